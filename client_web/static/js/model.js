// The state of one table as this client may see it, kept from a snapshot and the events that
// follow (docs/PROTOCOL.md sections 5 and 9). No DOM here: the view reads it.

import { halfPoints, isOudler, sortCards } from "./cards.js";

export const MULTIPLIER = { prise: 1, garde: 2, garde_sans: 4, garde_contre: 6 };
export const TARGET = [56, 51, 41, 36]; // points needed by the number of oudlers (R9.2)

export class TableModel {
  constructor(tableId) {
    this.table = tableId;
    this.v = null;
    this.seat = null; // our seat, null for a spectator
    this.info = null; // TableInfo
    this.deal = null; // DealView-like, kept up to date
    this.prompt = null; // the your_turn we must answer, or null
    this.lastTrick = null; // {leader, cards, winner, number, at}
    this.history = []; // [{deal_no, deal: [4], total: [4]}] seen on this page
    this.lastResult = null; // {deal_no, result, record}
    this.log = []; // narration entries {kind, ...}
    this.released = false; // our seat was released for its timeouts: we watch now
    this.fromChien = new Set(); // the chien's cards in our hand (taker, during the discard)
    this.pars = {}; // deal_no -> the `par` event (PROTOCOL.md 13), which may come late
  }

  /** A snapshot: forget everything and start from it. */
  reset(snap) {
    this.snapshots = (this.snapshots || 0) + 1; // how often we started again from a snapshot
    this.v = snap.v;
    this.seat = snap.seat;
    this.info = snap.info;
    if (this.info.scored == null) this.info.scored = Math.max(0, (this.info.deal_no || 0) - (snap.deal && snap.deal.phase !== "over" ? 1 : 0));
    this.prompt = null;
    this.deal = snap.deal ? structuredClone(snap.deal) : null;
    const d = this.deal;
    if (snap.seat != null) this.released = false;
    this.fromChien = new Set(d && d.phase === "discard" && d.taker === snap.seat && d.chien ? d.chien : []);
    if (d) {
      d.deal_no = snap.info.deal_no;
      if (d.phase === "over") {
        this.lastResult = { deal_no: d.deal_no, result: d.result, record: d.record };
      }
      const tr = d.tricks || [];
      if (tr.length) {
        const t = tr[tr.length - 1];
        this.lastTrick = { ...t, number: tr.length, at: 0 };
      } else this.lastTrick = null;
    }
  }

  /** Apply one event envelope; returns false when its version does not follow (a gap). */
  apply(env) {
    if (this.v != null && env.v !== this.v + 1) return false;
    this.v = env.v;
    const e = env.event;
    const d = this.deal;
    switch (e.type) {
      case "seat": {
        const s = this.info.seats[e.seat];
        Object.assign(s, { kind: e.kind, name: e.name, connected: e.connected, ai: e.ai, identity: e.identity ?? null });
        if (e.seat === this.seat && e.kind !== "human") {
          // Our seat was released (PROTOCOL.md 7: too many turns played by the AI in a row):
          // this connection now follows the table as a spectator.
          this.seat = null;
          this.released = e.reason || "released";
          this.prompt = null;
          if (d) {
            d.seat = null;
            d.hand = null;
          }
        }
        break;
      }
      case "table_state":
        if (e.state === "playing" && e.series !== this.info.series) this.info.scored = 0;
        Object.assign(this.info, { state: e.state, series: e.series, deal_no: e.deal_no, scores: e.scores });
        if (e.state !== "playing") this.prompt = null;
        break;
      case "deal_start":
        this.info.deal_no = e.deal_no;
        this.deal = {
          deal_no: e.deal_no,
          seat: this.seat,
          phase: "bidding",
          dealer: e.dealer,
          turn: env.turn,
          hand: e.hand ? [...e.hand] : null,
          hand_sizes: [18, 18, 18, 18],
          bids: [],
          taker: null,
          contract: null,
          chien: null,
          discard: null,
          discard_trumps: [],
          chelem_announced: null,
          poignees: [],
          tricks: [],
          trick: null,
          legal: null,
          result: null,
          record: null,
        };
        this.lastTrick = null;
        this.prompt = null;
        this.fromChien = new Set();
        break;
      case "bid":
        d.bids.push({ seat: e.seat, contract: e.contract });
        break;
      case "contract":
        d.taker = e.taker;
        d.contract = e.contract;
        d.phase = e.contract === "prise" || e.contract === "garde" ? "discard" : "chelem";
        break;
      case "chien":
        d.chien = [...e.cards];
        if (d.taker === this.seat && d.hand) {
          d.hand = sortCards([...d.hand, ...e.cards]);
          this.fromChien = new Set(e.cards);
        }
        d.hand_sizes[d.taker] = 24;
        break;
      case "discard":
        d.discard_trumps = [...(e.trumps || [])];
        if (e.cards) {
          d.discard = [...e.cards];
          if (d.hand) d.hand = d.hand.filter((c) => !e.cards.includes(c));
        }
        d.hand_sizes[e.seat] = 18;
        d.phase = "chelem";
        this.fromChien = new Set();
        break;
      case "chelem":
        d.chelem_announced = e.announce;
        d.phase = "play";
        d.trick = { leader: e.leader, cards: [], winner: null };
        break;
      case "poignee":
        d.poignees.push({ seat: e.seat, level: e.level, cards: [...e.cards] });
        break;
      case "play":
        if (!d.trick) d.trick = { leader: e.seat, cards: [], winner: null };
        d.trick.cards.push(e.card);
        d.hand_sizes[e.seat] -= 1;
        if (e.seat === this.seat && d.hand) d.hand = d.hand.filter((c) => c !== e.card);
        break;
      case "trick": {
        const t = { leader: e.leader, cards: [...e.cards], winner: e.winner };
        d.tricks.push(t);
        this.lastTrick = { ...t, number: e.number, at: performance.now() };
        d.trick = { leader: e.winner, cards: [], winner: null };
        break;
      }
      case "deal_over":
        d.phase = "over";
        d.result = e.result;
        d.record = e.record;
        d.trick = null;
        this.prompt = null;
        this.lastResult = { deal_no: d.deal_no, result: e.result, record: e.record };
        break;
      case "scores":
        if (d && d.result && d.result.status === "played") this.info.scored = (this.info.scored || 0) + 1;
        this.history = this.history.filter((h) => h.deal_no !== e.deal_no);
        this.history.push({ deal_no: e.deal_no, deal: e.deal, total: e.total });
        this.info.scores = e.total;
        break;
      case "par":
        // The same cards played by the reference bot; it may come after the next deal began.
        this.pars[e.deal_no] = e;
        break;
      default:
        break; // hidden, or a newer event type: only its version counts (PROTOCOL.md 10)
    }
    if (this.deal && this.deal.phase !== "over" && !["table_state", "seat", "par"].includes(e.type)) {
      this.deal.turn = env.turn;
    }
    if (this.prompt && this.prompt.v < env.v) this.prompt = null;
    return true;
  }

  setPrompt(msg) {
    this.prompt = msg;
    if (this.deal && msg.hand) this.deal.hand = [...msg.hand];
  }

  /** The seat of the taker's team for any seat (taker vs defenders). */
  sameTeam(a, b) {
    const tk = this.deal && this.deal.taker;
    if (tk == null) return a === b;
    return (a === tk) === (b === tk);
  }
}

/**
 * The deal replayed trick by trick from its record, for the review: who led, who won, and the
 * taker's running card points (R8, R9). Returns {bids, chien, discard, tricks: [...], final}.
 */
export function reviewOf(record) {
  const res = record.result || {};
  const taker = res.taker;
  const actions = record.actions || [];
  const bids = actions.filter((a) => a.type === "bid");
  const discard = (actions.find((a) => a.type === "discard") || {}).cards || null;
  const poignees = actions.filter((a) => a.type === "poignee");
  const plays = actions.filter((a) => a.type === "play");
  const chelemAction = actions.find((a) => a.type === "chelem");
  const tricks = [];
  let leader = chelemAction && chelemAction.announce ? taker : (record.dealer + 1) % 4;
  let running = 0; // taker's half points from tricks so far
  const wonByTeam = [0, 0]; // tricks won: [taker side, defence]
  for (let i = 0; i < plays.length; i += 4) {
    const group = plays.slice(i, i + 4);
    const cards = group.map((p) => p.card);
    const seats = group.map((p) => p.seat);
    const winner = trickWinner(leader, cards, seats, i / 4, wonByTeam, taker);
    const takerWins = winner === taker;
    let delta = 0;
    const last = i / 4 === 17;
    cards.forEach((c, k) => {
      const p = seats[k];
      let owner = winner;
      if (c === "EX") {
        if (!last) owner = p; // R8.1: stays with its team
        else if (!(winner === p && allWonBy(wonByTeam, p === taker))) owner = -1; // R8.2
      }
      let toTaker;
      if (owner === -1) toTaker = p !== taker; // the last-trick Excuse goes to the other team
      else toTaker = owner === taker;
      if (toTaker) delta += halfPoints(c);
    });
    // R8.1: the half point that passes when the Excuse's team loses the trick.
    const exAt = cards.indexOf("EX");
    if (exAt >= 0 && !last) {
      const exTaker = seats[exAt] === taker;
      if (exTaker !== takerWins) delta += takerWins ? 1 : -1;
    }
    running += delta;
    wonByTeam[takerWins ? 0 : 1] += 1;
    tricks.push({ number: i / 4 + 1, leader, cards, seats, winner, points: delta / 2, running: running / 2 });
    leader = winner;
  }
  return { bids, discard, poignees, chelem: chelemAction, tricks, final: res.taker_points };

  function allWonBy(won, takerSide) {
    return takerSide ? won[1] === 0 && won[0] === 17 : won[0] === 0 && won[1] === 17;
  }
}

function trickWinner(leader, cards, seats, index, won, taker) {
  // R7.7; R8.3: an Excuse led to the last trick by a side that won the 17 others wins it.
  if (index === 17 && cards[0] === "EX") {
    const side = seats[0] === taker;
    if ((side && won[1] === 0 && won[0] === 17) || (!side && won[0] === 0 && won[1] === 17)) return seats[0];
  }
  let lead = null;
  for (const c of cards) {
    if (c !== "EX") {
      lead = c[0];
      break;
    }
  }
  let best = -1;
  let bestVal = -1;
  const rank = (c) => ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"].indexOf(c.slice(1));
  cards.forEach((c, k) => {
    let v = -1;
    if (c[0] === "T") v = 100 + Number(c.slice(1));
    else if (c !== "EX" && c[0] === lead) v = rank(c);
    if (v > bestVal) {
      bestVal = v;
      best = k;
    }
  });
  return seats[best];
}

/** Count the taker's side oudlers won so far (for the info panel): T1 and T21 by trick winner,
 * the Excuse by who played it (R8.1). */
export function oudlersSoFar(deal) {
  if (!deal || deal.taker == null) return null;
  let n = 0;
  deal.tricks.forEach((t) => {
    t.cards.forEach((c, pos) => {
      if (c === "T1" || c === "T21") n += t.winner === deal.taker ? 1 : 0;
      if (c === "EX") n += (t.leader + pos) % 4 === deal.taker ? 1 : 0;
    });
  });
  return n;
}

// The table screen: four seats around the felt (you at the bottom; R2.1: the next seat sits to
// your right), the trick in the middle, your hand, the decisions, and the side panel. It follows
// one table through the protocol: join / resume / watch, snapshot, events, your_turn.

import { h, $, $$, clear, announce } from "./dom.js";
import { t, num, signed, currentLanguage, has, sentence } from "./i18n.js";
import { cardSVG, cardName, cardNameDef, cardNames, isOudler, isTrump, sortCards } from "./cards.js";
import { TableModel, TARGET, MULTIPLIER, oudlersSoFar } from "./model.js";
import { connectionFor, originURL } from "./net.js";
import * as store from "./store.js";
import { trickHold } from "./settings.js";
import { openRules } from "./rules.js";
import { openSheet, openReview, fillPar } from "./sheet.js";
import { errorText } from "./ui.js";

const POS = ["bottom", "right", "top", "left"]; // relative position of seat (me + k) % 4
const RANK_ORDER = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"];
const MULT = /^(.*?)\s*(\(×\d\))$/; // a contract's name and its multiplier: "Garde contre", "(×6)"
// Errors after which the connection comes back by itself (and calls enter() again).
const TRANSIENT = new Set(["connection_lost", "too_many_connections"]);

export class TableView {
  constructor(app, root, tableId, mode) {
    this.app = app;
    this.root = root;
    this.tid = tableId;
    this.mode = mode; // "seat" | "watch"
    this.model = new TableModel(tableId);
    this.status = "connecting"; // connecting | joined | watching | gone | replaced | error
    this.notice = null; // {kind, text, rule, sit}
    this.selected = new Set(); // discard or poignée selection
    this.poignee = null; // the option being chosen by hand
    this.chelemConfirm = false;
    this.promptKey = null;
    this.deadline = null;
    this.focusIndex = 0;
    this.log = [];
    this.pendingAction = false;
    this.frame = 0;
    this.listeners = [];
    this.sheetFor = null;
    this.releasedSeat = null;
    // The first decision takes the focus when it comes, as each next one does (below), if the
    // focus is nowhere else: the page that opened the table is gone, the focus with it.
    this.afterDecision = true;
  }

  /** Where "Skip to the game" goes: the decision at hand, else the hand, else the table. */
  skipTarget() {
    return (!this.inactive() && this.nextControl()) || this.root; // main#view takes the focus
  }

  // ------------------------------------------------------------------------------ lifecycle

  start() {
    const saved = store.getSeat(this.tid);
    const url = (saved && saved.url) || originURL();
    this.conn = connectionFor(url, this.app.displayName().slice(0, 32));
    if (url === originURL()) this.app.conn = this.conn;
    this.on(this.conn, "message", (e) => this.onMessage(e.detail));
    this.on(this.conn, "state", (e) => this.onConnState(e.detail));
    this.on(this.conn, "open", () => this.enter());
    this.on(document, "keydown", (e) => this.onKey(e));
    this.tick = setInterval(() => this.updateTimer(), 250);
    // The hand spreads over the width it has: lay it out again when that width changes.
    this.resizer = new ResizeObserver(() => this.layoutHand());
    this.resizer.observe(this.root);
    this.renderNow();
    if (this.conn.state === "open") this.enter();
    else this.conn.open().catch((e) => (TRANSIENT.has(e.code) ? this.render() : this.fail(e)));
  }

  dispose() {
    for (const [target, type, fn] of this.listeners) target.removeEventListener(type, fn);
    this.listeners = [];
    clearInterval(this.tick);
    cancelAnimationFrame(this.frame);
    clearTimeout(this.holdTimer);
    clearTimeout(this.movingTimer);
    if (this.resizer) this.resizer.disconnect();
    if (this.status === "watching" && this.conn.state === "open") {
      this.conn.request({ type: "unwatch", table: this.tid }).catch(() => {});
    }
    for (const d of $$("dialog.table-dlg")) d.close();
  }

  on(target, type, fn) {
    target.addEventListener(type, fn);
    this.listeners.push([target, type, fn]);
  }

  relabel() {
    this.renderNow();
  }

  refreshLayout() {
    this.render();
  }

  /** (Re)attach to the table on a fresh connection: resume the seat, join, or watch. */
  async enter() {
    clearTimeout(this.movingTimer);
    const saved = store.getSeat(this.tid);
    try {
      if (this.mode === "seat" && saved && saved.token) {
        try {
          await this.resume(saved);
          return;
        } catch (e) {
          if (e.code === "wrong_worker" || e.code === "table_moving") throw e;
          if (e.code !== "bad_token") throw e;
          store.setSeat(this.tid, { token: null, seat: null });
          this.note("info", t("table.seat_released"));
        }
      }
      if (this.mode === "seat") await this.join();
      else await this.watch();
    } catch (e) {
      if (e.code === "wrong_worker" && e.details && e.details.url) {
        store.setSeat(this.tid, { url: e.details.url });
        this.dispose();
        this.start();
        return;
      }
      if (e.code === "table_moving") {
        // Its worker stopped answering and another is adopting it (PROTOCOL.md 8): the seat
        // token stays good; ask again after the server's hint.
        const wait = Math.min(10, Math.max(0.25, Number(e.details && e.details.retry_after) || 1));
        this.note("info", t("code.table_moving"));
        clearTimeout(this.movingTimer);
        this.movingTimer = setTimeout(() => { if (this.conn.state === "open") this.enter(); }, wait * 1000);
        return;
      }
      if (e.code === "table_full" && this.mode === "seat") {
        this.note("info", t("table.full_watching"));
        this.mode = "watch";
        await this.watch().catch((e2) => this.fail(e2));
        return;
      }
      if (TRANSIENT.has(e.code)) return; // the connection will come back and call us
      this.fail(e);
    }
  }

  async resume(saved) {
    // With what we hold (after a drop) the server sends only the missed events; a fresh page
    // (a reload) holds nothing and asks for a snapshot.
    const v = this.model.info ? this.model.v : null;
    const ans = await this.conn.request({ type: "resume", token: saved.token, v });
    this.model.seat = ans.seat;
    this.status = "joined";
    store.setSeat(this.tid, { token: ans.token, seat: ans.seat });
    this.render();
  }

  async join(seat = null) {
    const ans = await this.conn.request({ type: "join", table: this.tid, seat });
    store.setSeat(this.tid, { token: ans.token, seat: ans.seat });
    this.model.seat = ans.seat;
    this.status = "joined";
    if (this.app.pendingStart === this.tid) {
      this.app.pendingStart = null;
      await this.conn.request({ type: "start", table: this.tid }).catch((e) => this.note("error", errorText(e)));
    }
    this.render();
  }

  /** After our seat was released for its timeouts: sit down again (the same seat if free). */
  async sitAgain() {
    this.mode = "seat";
    try {
      try {
        await this.join(this.releasedSeat);
      } catch (e) {
        if (e.code !== "seat_taken") throw e;
        await this.join(null);
      }
      this.releasedSeat = null;
      this.model.released = false;
      this.notice = null;
      announce(t("table.seated_again"));
    } catch (e) {
      this.mode = "watch";
      this.note("error", errorText(e));
    }
    this.render();
  }

  async watch() {
    this.model.v = null;
    await this.conn.request({ type: "watch", table: this.tid });
    this.status = "watching";
    this.render();
  }

  fail(e) {
    this.status = e && e.code === "no_such_table" ? "gone" : "error";
    this.error = errorText(e);
    this.render();
  }

  note(kind, text, rule = null) {
    this.notice = { kind, text, rule };
    this.render();
  }

  onConnState(d) {
    this.connState = d.state;
    this.closeCode = d.code ?? null;
    if (d.state === "replaced") {
      // Another tab or window plays our seat now: this one shows no turn, no countdown and no
      // card to play (whatever it held before belongs to the other tab), until "Play here".
      this.status = "replaced";
      this.model.prompt = null;
      this.deadline = null;
      this.pendingAction = false;
      this.poignee = null;
      this.chelemConfirm = false;
      this.selected = new Set();
      this.notice = null;
    }
    this.render();
  }

  /** "Play here": take the seat back from the other tab (whose own page then says so). */
  takeBack() {
    this.status = "connecting";
    this.notice = null;
    this.promptKey = null; // the turn comes again with the seat (a fresh your_turn)
    this.render();
    this.conn.reconnectNow().catch(() => {});
  }

  /** This tab no longer holds the seat (or holds it not yet again): nothing here may act. */
  inactive() {
    return this.status === "replaced" || this.connState === "replaced";
  }

  // ------------------------------------------------------------------------------ messages

  onMessage(msg) {
    if (msg.table !== this.tid) return;
    const m = this.model;
    if (msg.type === "snapshot") {
      m.reset(msg);
      if (msg.seat == null && this.status !== "watching") this.status = "watching";
      if (msg.seat != null) {
        this.status = "joined";
        store.setSeat(this.tid, { v: msg.v, seat: msg.seat, name: msg.info && msg.info.name });
      }
      this.promptKey = null;
      this.deadline = null;
      this.logPush({ k: "log.snapshot" });
      // A finished series shows its final sheet; a sheet left open from before the snapshot (the
      // events that would have finished it were replaced by it) is redrawn with the standings.
      if (m.deal && m.deal.phase === "over" && m.info.state === "finished") {
        this.showSheet(false, !!document.querySelector("#dlg-sheet[open]") && !document.getElementById("sheet-final"));
      }
    } else if (msg.type === "event") {
      const seated = m.seat;
      if (!m.apply(msg)) {
        this.resync();
        return;
      }
      if (seated != null && m.seat == null) this.released(seated, msg.event);
      if (m.seat != null) store.setSeat(this.tid, { v: msg.v });
      this.narrate(msg.event);
      if (msg.event.type === "trick") this.scheduleHold();
      if (msg.event.type === "scores") {
        // The sheet opens with the focus on its button: a screen reader hears the figures here.
        const list = msg.event.deal.map((v, s) => `${this.seatName(s)} ${signed(v)}`).join(", ");
        announce(t("scores.announce", { n: msg.event.deal_no, list }));
        this.showSheet(true);
      }
      if (msg.event.type === "par") this.parArrived(msg.event);
      if (msg.event.type === "deal_start") this.sheetNext(msg.event.deal_no);
      if (msg.event.type === "table_state" && msg.event.state === "closed") this.status = "gone";
      // The series is over: show the sheet again, now with the final standings.
      if (msg.event.type === "table_state" && msg.event.state === "finished" && document.getElementById("dlg-sheet")) this.showSheet(false, true);
    } else if (msg.type === "your_turn") {
      if (m.v != null && msg.v !== m.v) return; // stale: events after it are coming
      m.setPrompt(msg);
      this.deadline = msg.timer != null ? performance.now() + msg.timer * 1000 : null;
      this.timed = msg.timer != null; // our turns have a countdown (for the room it takes)
      const key = `${msg.v}:${msg.legal.phase}:${msg.legal.poignees.length}`;
      if (key !== this.promptKey) {
        this.promptKey = key;
        this.selected = new Set(msg.legal.discard ? msg.legal.discard.required : []);
        this.poignee = null;
        this.chelemConfirm = false;
        this.pendingAction = false;
        if (!this.notice || this.notice.kind !== "error") this.notice = null;
        announce(this.turnAnnouncement(msg.legal.phase));
      }
    }
    this.render();
  }

  /** What a screen reader hears when it becomes our turn (with the trick so far, to play). */
  turnAnnouncement(phase) {
    const text = t("turn.announce." + phase);
    const d = this.model.deal;
    if (phase !== "play" || !d || !d.trick || !d.trick.cards.length) return text;
    const played = d.trick.cards.map((c, i) => `${this.seatName((d.trick.leader + i) % 4)}${t("punct.colon")}${cardName(t, c)}`).join("; ");
    return `${text} ${t("turn.on_the_table", { cards: played })}`;
  }

  /** Our seat was released after too many turns played by the AI (PROTOCOL.md section 7). */
  released(seat, event) {
    this.releasedSeat = seat;
    this.mode = "watch"; // a reconnection must not sit us down again by itself
    this.status = "watching";
    this.deadline = null;
    store.setSeat(this.tid, { token: null, seat: null });
    const text = t(event.reason === "timeouts" ? "table.released_timeouts" : "table.released");
    this.notice = { kind: "warn", text, sit: true };
    announce(text);
  }

  async resync() {
    const saved = store.getSeat(this.tid);
    try {
      if (this.model.seat != null && saved && saved.token) await this.resume(saved);
      else {
        await this.conn.request({ type: "unwatch", table: this.tid }).catch(() => {});
        await this.watch();
      }
    } catch (e) {
      this.fail(e);
    }
  }

  scheduleHold() {
    clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => this.render(), trickHold(this.app.settings) + 20);
  }

  // ------------------------------------------------------------------------------ naming

  me() {
    return this.model.seat ?? 0; // spectators see seat 0 at the bottom
  }

  pos(seat) {
    return POS[(seat - this.me() + 4) % 4];
  }

  seatName(seat) {
    const m = this.model;
    if (seat === m.seat) return t("seat.you");
    const s = m.info && m.info.seats[seat];
    if (!s) return t("seat.n", { n: seat + 1 });
    if (s.kind === "human") return s.name ? this.app.humanName(s) : t("seat.n", { n: seat + 1 });
    if (s.kind === "ai") return t("seat.ai_pos." + this.pos(seat));
    return t("seat.empty_pos." + this.pos(seat));
  }

  /** "Ada" or "you" inside a sentence. */
  who(seat) {
    return seat === this.model.seat ? t("seat.you_inline") : this.seatName(seat);
  }

  /** t() with the "_you" variant of a key when the sentence is about our own seat (verb agreement). */
  tx(key, seat, params = {}) {
    const mine = seat != null && seat === this.model.seat && has(key + "_you");
    return t(mine ? key + "_you" : key, { name: this.who(seat), ...params });
  }

  contractName(c) {
    return t("contract." + c);
  }

  /** A bid button's text: the contract, its multiplier in small ("Garde contre", "(×6)"). */
  bidLabel(c) {
    const m = MULT.exec(this.contractName(c));
    return m ? [m[1], " ", h("span", { class: "mult" }, m[2])] : [this.contractName(c)];
  }

  /** The contract without its multiplier ("Garde contre"): your seat's tag on a phone. */
  contractShort(c) {
    const m = MULT.exec(this.contractName(c));
    return m ? m[1] : this.contractName(c);
  }

  // ------------------------------------------------------------------------------ narration

  logPush(entry) {
    this.log.push(entry);
    if (this.log.length > 250) this.log.shift();
  }

  narrate(e) {
    const me = this.model.seat;
    let entry = null;
    switch (e.type) {
      case "deal_start":
        entry = { k: "log.deal_start", n: e.deal_no, seat: e.dealer };
        break;
      case "bid":
        entry = { k: e.contract === "pass" ? "log.pass" : "log.bid", seat: e.seat, contract: e.contract };
        break;
      case "contract":
        entry = { k: "log.contract", seat: e.taker, contract: e.contract };
        break;
      case "chien":
        entry = { k: "log.chien", cards: e.cards };
        break;
      case "discard":
        entry = { k: e.trumps && e.trumps.length ? "log.discard_trumps" : "log.discard", seat: e.seat, cards: e.trumps };
        break;
      case "chelem":
        entry = { k: e.announce ? "log.chelem_yes" : "log.chelem_no", seat: e.seat, leader: e.leader };
        break;
      case "poignee":
        entry = { k: "log.poignee", seat: e.seat, level: e.level, cards: e.cards };
        break;
      case "play":
        entry = { k: "log.play", seat: e.seat, card: e.card };
        break;
      case "trick":
        entry = { k: "log.trick", n: e.number, seat: e.winner };
        break;
      case "deal_over":
        entry = e.result.status === "annulled" ? { k: "log.annulled", reason: e.result.reason } : { k: e.result.won ? "log.made" : "log.failed", seat: e.result.taker };
        break;
      case "seat":
        if (e.reason === "timeouts") entry = { k: "log.seat_released", seat: e.seat };
        else if (e.kind === "human" && e.connected) entry = { k: "log.seat_human", seat: e.seat };
        else if (e.kind === "human" && !e.connected) entry = { k: "log.seat_away", seat: e.seat };
        else if (e.kind === "ai") entry = { k: "log.seat_ai", seat: e.seat };
        break;
      case "table_state":
        entry = { k: "log.state_" + e.state };
        break;
      default:
        break;
    }
    if (entry) {
      this.logPush(entry);
      if (e.type !== "play" || e.seat !== me) announce(this.logText(entry));
    }
  }

  logText(x) {
    const p = {};
    if (x.seat != null) p.name = this.who(x.seat);
    if (x.leader != null) p.leader = this.who(x.leader);
    if (x.contract) p.contract = this.contractName(x.contract);
    if (x.card) {
      p.card = cardName(t, x.card);
      p.card_def = cardNameDef(t, x.card);
    }
    if (x.cards) p.cards = cardNames(t, x.cards);
    if (x.level) p.level = t("level." + x.level);
    if (x.reason) p.reason = t("reason." + x.reason);
    if (x.n != null) p.n = x.n;
    let key = x.k;
    if (x.seat != null && x.seat === this.model.seat && has(key + "_you")) key += "_you";
    else if (x.leader != null && x.leader === this.model.seat && has(key + "_lead_you")) key += "_lead_you";
    return t(key, p);
  }

  // ------------------------------------------------------------------------------ actions

  async act(msg) {
    if (this.pendingAction || this.inactive()) return;
    this.pendingAction = true;
    if (msg.type !== "play") this.afterDecision = true; // the focus goes on to the next decision
    try {
      await this.conn.request({ ...msg, table: this.tid });
      this.notice = null;
    } catch (e) {
      this.pendingAction = false;
      this.afterDecision = false;
      this.refused(e, msg);
    }
    this.render();
  }

  refused(e, msg) {
    let text = errorText(e);
    if (e.code === "illegal_action" || e.code === "wrong_phase") {
      if (msg.type === "play" && (e.rule === "R7.5" || e.rule === "R7.6")) text = sentence(t("refuse.card", { card: cardNameDef(t, msg.card), why: this.why(msg.card) }));
      else if (e.rule && has("rule." + e.rule)) text = t("rule." + e.rule);
      else if (e.rule && has("rule." + e.rule.split(".")[0])) text = t("rule." + e.rule.split(".")[0]);
    }
    this.notice = { kind: "error", text, rule: e.rule || null };
    announce(text);
  }

  /** Why a card may not be played now, in words (R7.5, R7.6). The server decides; this explains. */
  why(card) {
    const d = this.model.deal;
    const hand = (d && d.hand) || [];
    const trick = (d && d.trick && d.trick.cards) || [];
    const led = trick.find((c) => c !== "EX");
    const lead = led ? led[0] : null;
    const trumps = hand.filter((c) => isTrump(c));
    const hi = Math.max(0, ...trick.filter(isTrump).map((c) => Number(c.slice(1))));
    if (lead && lead !== "T" && hand.some((c) => c[0] === lead)) return t("why.follow", { suit: t("suit." + lead) });
    const over = trumps.filter((c) => Number(c.slice(1)) > hi);
    if (isTrump(card) && over.length && Number(card.slice(1)) < hi) return t("why.overtrump", { card: cardName(t, "T" + hi), cards: cardNames(t, over) });
    if (lead === "T" && trumps.length) return t("why.trump_led");
    if (trumps.length) return t("why.trump", { suit: t("suit." + lead) });
    return t("why.other");
  }

  clickCard(code) {
    if (this.inactive()) return; // the seat is played from another tab: the banner says so
    const m = this.model;
    const p = m.prompt;
    const phase = p && p.legal.phase;
    if (phase === "discard") return this.toggleDiscard(code);
    if (this.poignee) return this.togglePoignee(code);
    if (phase === "play") return this.act({ type: "play", card: code }); // an illegal one is refused by the server, with its rule
    if (m.deal && m.deal.phase === "play") this.note("error", t("code.not_your_turn"));
  }

  toggleDiscard(code) {
    const lg = this.model.prompt.legal.discard;
    if (lg.required.includes(code)) return this.note("info", sentence(t("discard.required_card", { card: cardNameDef(t, code) })), "R5.3");
    if (!lg.choices.includes(code)) {
      const never = isOudler(code) || code.endsWith("K");
      return this.note("error", sentence(t(never ? "discard.never" : "discard.no_trump", { card: cardNameDef(t, code) })), never ? "R5.2" : "R5.3");
    }
    if (this.selected.has(code)) this.selected.delete(code);
    else if (this.selected.size < lg.count) this.selected.add(code);
    else return this.note("info", t("discard.full", { n: lg.count }));
    this.notice = null;
    this.render();
  }

  togglePoignee(code) {
    const opt = this.poignee;
    if (!opt.eligible.includes(code)) return this.note("error", sentence(t("poignee.not_eligible", { card: cardNameDef(t, code) })), "R6.4");
    if (this.selected.has(code)) this.selected.delete(code);
    else if (this.selected.size < opt.size) this.selected.add(code);
    else return this.note("info", t("poignee.full", { n: opt.size }));
    this.notice = null; // an earlier refusal no longer applies
    this.render();
  }

  copyInvite(input) {
    const text = input.value;
    const done = () => this.note("ok", t("invite.copied"));
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, () => {
        input.select();
        this.note("info", t("invite.copy_manual"));
      });
    } else {
      input.select();
      try {
        document.execCommand("copy");
        done();
      } catch {
        this.note("info", t("invite.copy_manual"));
      }
    }
  }

  /** This browser created the table, it has started, and nobody else plays at it: your own
   * game against the AI, which leaving would leave playing on for nobody until the page closes.
   * Not a waiting table: its invitation may still be on its way to friends. */
  ownGame() {
    const m = this.model;
    const saved = store.getSeat(this.tid);
    return Boolean(
      m.seat != null && saved && saved.creator && m.info && m.info.state !== "waiting" &&
        m.info.seats.every((s, i) => i === m.seat || s.kind !== "human"),
    );
  }

  async leave() {
    if (this.model.seat == null) {
      this.app.go("#/");
      return;
    }
    const playing = this.model.info && this.model.info.state === "playing";
    const own = this.ownGame();
    if (playing && !window.confirm(t(own ? "table.end_confirm" : "table.leave_confirm"))) return;
    // Your own game ends with you (the seat's token carries the creator's right to close it,
    // also after a reload); a server that refuses gets the seat given up instead.
    if (own && (await this.closeOwn())) return;
    try {
      await this.conn.request({ type: "leave", table: this.tid });
    } catch (e) {
      if (e.code !== "not_seated" && e.code !== "no_such_table") {
        this.note("error", errorText(e));
        return;
      }
    }
    store.dropSeat(this.tid);
    this.app.go("#/");
  }

  async closeOwn() {
    try {
      await this.conn.request({ type: "close", table: this.tid });
    } catch (e) {
      if (e.code !== "no_such_table") return false;
    }
    store.dropSeat(this.tid);
    this.app.go("#/");
    return true;
  }

  restart() {
    this.conn.request({ type: "restart", table: this.tid }).catch((e) => this.note("error", errorText(e)));
  }

  // ------------------------------------------------------------------------------ keyboard

  onKey(e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (document.querySelector("dialog[open]")) return;
    const tag = (e.target && e.target.tagName) || "";
    if (["INPUT", "SELECT", "TEXTAREA"].includes(tag)) return;
    const p = this.model.prompt;
    if (p && p.legal.phase === "bidding" && /^[1-9]$/.test(e.key)) {
      const bid = p.legal.bids[Number(e.key) - 1];
      if (bid) {
        e.preventDefault();
        this.act({ type: "bid", contract: bid });
      }
      return;
    }
    if (e.key === "l" || e.key === "L") {
      e.preventDefault();
      this.showLast = !this.showLast;
      this.render();
    }
  }

  onHandKey(e) {
    const cards = $$(".hand .card", this.root);
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    let j = null;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") j = Math.min(cards.length - 1, i + 1);
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") j = Math.max(0, i - 1);
    else if (e.key === "Home") j = 0;
    else if (e.key === "End") j = cards.length - 1;
    if (j != null) {
      e.preventDefault();
      this.focusIndex = j;
      cards.forEach((c, k) => c.setAttribute("tabindex", k === j ? "0" : "-1"));
      cards[j].focus();
    }
  }

  // ------------------------------------------------------------------------------ rendering

  render() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.renderNow();
    });
  }

  renderNow() {
    const active = document.activeElement;
    const key = active && active.dataset ? active.dataset.key : null;
    const handIndex = active && active.closest && active.closest(".hand") ? $$(".hand .card", this.root).indexOf(active) : -1;
    // Focus on a decision (a bid, the discard, the chelem) whose button goes away with it.
    const inAction = !!(active && active.closest && active.closest("#action"));
    clear(this.root);
    const m = this.model;
    const view = h("div", { class: "tableview", dataset: { phase: (m.deal && m.deal.phase) || "none", state: (m.info && m.info.state) || "none" } });
    view.append(this.renderBar(), this.renderBanner());
    if (!m.info) {
      view.append(h("div", { class: "tv-loading" }, this.status === "gone" || this.status === "error"
        ? h("div", { class: "panel" }, h("p", { role: "alert" }, this.error || t("table.gone")), h("a", { class: "button", href: "#/" }, t("table.back")))
        : h("p", { class: "muted" }, t("table.connecting"))));
      this.root.append(view);
      return;
    }
    const felt = h("section", { class: "felt", "aria-label": t("table.felt") });
    for (let k = 0; k < 4; k++) felt.append(this.renderSeat((this.me() + k) % 4));
    felt.append(this.renderCenter());
    const side = this.renderSide();
    const play = h("div", { class: "tv-play" }, felt, this.renderAction(), this.renderHand());
    view.append(h("div", { class: "tv-main" }, play, side));
    this.root.append(view);
    this.layoutHand();
    this.updateTimer();
    const log = document.getElementById("log");
    if (log) log.scrollTop = log.scrollHeight; // the latest line in view
    // Keep the keyboard focus where it was (the same button, or the same place in the hand).
    let target = key ? this.root.querySelector(`[data-key="${CSS.escape(key)}"]`) : null;
    if (!target && handIndex >= 0) {
      const cards = $$(".hand .card", this.root);
      target = cards[Math.min(handIndex, cards.length - 1)];
      // A new turn to play: from a card that may not be played, to the nearest one that may.
      if (target && target.getAttribute("aria-disabled") === "true" && this.promptKey !== this.focusedPrompt) target = this.nearestPlayable(cards, cards.indexOf(target)) || target;
    }
    // The decision just taken is gone (its button with it): on to the next one, else the hand,
    // rather than the top of the page.
    if (!target && inAction && !this.root.contains(active)) target = this.nextControl();
    // Our next decision came (the chelem after the discard, the first card after it): its control.
    const here = handIndex >= 0 || inAction || !active || active === document.body;
    if (this.afterDecision && m.prompt && !this.pendingAction && here) {
      target = this.nextControl() || target;
      this.afterDecision = false;
    }
    if (target && document.activeElement !== target) target.focus({ preventScroll: true });
    if (target && target.closest(".hand")) this.focusedPrompt = this.promptKey;
  }

  /** The playable card of the hand nearest to index i (null if none is). */
  nearestPlayable(cards, i) {
    for (let k = 0; k < cards.length; k++) {
      for (const j of [i + k, i - k]) if (cards[j] && cards[j].getAttribute("aria-disabled") !== "true") return cards[j];
    }
    return null;
  }

  /** Where the focus goes after a decision: the next decision's first button, else the hand. */
  nextControl() {
    const p = this.model.prompt;
    const cards = $$(".hand .card", this.root);
    if (p && p.legal.phase !== "play" && p.legal.phase !== "discard") {
      const b = this.root.querySelector("#action .buttons button:not([disabled])");
      if (b) return b;
    }
    if (p && p.legal.phase === "play" && !p.legal.poignees.length) return this.nearestPlayable(cards, Math.min(this.focusIndex, cards.length - 1));
    if (p && p.legal.phase === "play") return this.root.querySelector("#action .buttons button") || cards[0] || null;
    return cards.find((c) => c.getAttribute("tabindex") === "0") || cards[0] || this.root.querySelector("#action .buttons button") || null;
  }

  /** The deal being played (or just played) in the series, and the series' length. */
  dealLine() {
    const info = this.model.info;
    const d = this.model.deal;
    const scored = info.scored || 0;
    let sub;
    if (info.state === "waiting" || (!d && scored === 0)) {
      sub = info.deals ? t("bar.deals", { n: info.deals }) : t("bar.target", { target: info.target_score });
    } else {
      // "Deal N" is the server's deal number (deal_start.deal_no), as on the score sheet, in
      // the log and the review; it keeps counting across annulled deals and games. When it is
      // not the place in this game's count of deals (scored ones), that place follows.
      const done = d && d.phase === "over" && d.result && d.result.status === "played";
      const n = Math.min(done ? scored : scored + 1, info.deals || Infinity);
      const no = (d && d.deal_no) || info.deal_no || n;
      if (!info.deals) sub = t("bar.deal_target", { n: no, target: info.target_score });
      else sub = no === n ? t("bar.deal_of", { n, total: info.deals }) : t("bar.deal_no_of", { no, n, total: info.deals });
    }
    if (info.series > 1) sub += " · " + t("bar.series", { n: info.series });
    if (info.turn_timer) sub += " · " + t("bar.turn_timer", { n: info.turn_timer });
    return sub;
  }

  renderBar() {
    const m = this.model;
    const info = m.info;
    const title = info ? info.name : t("table.title");
    // A table that does not exist (any more): its page says so and leads back; no buttons.
    if (!info && (this.status === "gone" || this.status === "error")) return h("div", { class: "tv-bar" }, h("div", { class: "tv-title" }, h("h1", {}, title)));
    const buttons = [];
    const lt = m.lastTrick;
    buttons.push(h("button", { type: "button", class: "ghost small", id: "btn-last", "aria-pressed": this.showLast ? "true" : "false", "aria-keyshortcuts": "L", disabled: !lt, dataset: { key: "btn-last" }, onclick: () => { this.showLast = !this.showLast; this.render(); } }, t("bar.last_trick")));
    // The last deal's sheet; after a reload (the page holds no result yet) the previous deal's,
    // fetched from the server (the `deal` request) when asked for.
    const prevNo = info && info.state !== "waiting" ? (info.deal_no || 0) - (m.deal && m.deal.phase !== "over" ? 1 : 0) : 0;
    if (m.lastResult && m.lastResult.record) buttons.push(h("button", { type: "button", class: "ghost small", id: "btn-sheet", dataset: { key: "btn-sheet" }, onclick: () => this.showSheet(false, true) }, t("bar.result")));
    else if (prevNo >= 1) buttons.push(h("button", { type: "button", class: "ghost small", id: "btn-sheet", dataset: { key: "btn-sheet" }, onclick: () => this.sheetOf(prevNo) }, t("bar.result")));
    // Your own game's button says it ends it, in a word that keeps the bar on one line at
    // 375 px (its title says it whole).
    const own = this.ownGame();
    buttons.push(h("button", { type: "button", class: "ghost small", id: "btn-leave", title: own ? t("bar.end_game_title") : null, dataset: { key: "btn-leave" }, onclick: () => this.leave() }, m.seat == null ? t("bar.stop_watching") : t(own ? "bar.end_game" : "bar.leave")));
    return h("div", { class: "tv-bar" },
      h("div", { class: "tv-title" }, h("h1", {}, title), info ? h("span", { class: "muted", id: "deal-no" }, this.dealLine()) : null,
        m.seat == null && info ? h("span", { class: "chip" }, t("bar.watching")) : null),
      h("div", { class: "tv-buttons" }, buttons));
  }

  renderBanner() {
    const st = this.connState;
    if (this.status === "replaced" || st === "replaced") {
      return h("div", { class: "banner warn", role: "alert", id: "banner" }, t("net.replaced"), " ",
        h("button", { type: "button", class: "small", id: "take-back", onclick: () => this.takeBack() }, t("net.take_back")));
    }
    if (st === "reconnecting" || (st === "connecting" && this.model.info)) {
      const text = this.closeCode === 4010 ? t("net.crowded") : t("net.reconnecting");
      return h("div", { class: "banner warn", role: "status", id: "banner", dataset: { code: String(this.closeCode ?? "") } }, text, " ",
        h("button", { type: "button", class: "small ghost", id: "retry-now", onclick: () => this.conn.reconnectNow().catch(() => {}) }, t("net.retry")));
    }
    if (this.status === "gone" && this.model.info) {
      return h("div", { class: "banner", role: "status", id: "banner" }, t("table.closed"), " ", h("a", { href: "#/" }, t("table.back")));
    }
    return h("div", { class: "banner-space", id: "banner" });
  }

  renderSeat(seat) {
    const m = this.model;
    const d = m.deal;
    const s = m.info.seats[seat];
    const pos = this.pos(seat);
    // Our seat's turn is not shown in a tab that no longer plays it (the other tab does).
    const turn = d && d.phase !== "over" && d.turn === seat && m.info.state === "playing" && !(seat === m.seat && this.inactive());
    const tags = [];
    const said = []; // the same facts, for the seat's accessible name
    // A tag has its words in full and in short: on a phone your seat's line is too narrow for
    // "dealer" and "taker · Garde contre (×6)" (css: .tag .short). Screen readers read the full
    // words, which are only hidden from sight there; the short ones are hidden from them.
    const tag = (cls, full, short) => h("span", { class: "tag " + cls },
      h("span", { class: "long" }, full), h("span", { class: "short", title: full, "aria-hidden": "true" }, short));
    if (d && d.dealer === seat) {
      tags.push(tag("dealer", t("seat.dealer"), t("seat.dealer_short")));
      said.push(t("seat.dealer"));
    }
    if (d && d.taker === seat) {
      tags.push(tag("taker", `${t("seat.taker")} · ${this.contractName(d.contract)}`, this.contractShort(d.contract)));
      said.push(`${t("seat.taker")}, ${this.contractName(d.contract)}`);
    }
    const bid = d && d.phase === "bidding" ? d.bids.find((b) => b.seat === seat) : null;
    if (bid) {
      tags.push(h("span", { class: "tag bid" + (bid.contract === "pass" ? " pass" : "") }, this.contractName(bid.contract)));
      said.push(this.contractName(bid.contract));
    }
    const won = d ? d.tricks.filter((x) => x.winner === seat).length : 0;
    const lines = [];
    if (d && d.phase === "play") lines.push(h("span", { class: "muted tricks" }, t("seat.tricks", { n: won })));
    if (d && d.hand_sizes && seat !== m.seat && d.phase !== "over") lines.push(h("span", { class: "muted cards-left" }, t("seat.cards", { n: d.hand_sizes[seat] })));
    if (s.kind === "human" && !s.connected) {
      lines.push(h("span", { class: "away" }, t("seat.away")));
      said.push(t("seat.away"));
    }
    if (s.kind === "ai" || s.kind === "empty") lines.push(h("span", { class: "muted level" }, t("seat.ai_level", { level: this.app.levelName(s.ai || "") })));
    const score = m.info.scores ? m.info.scores[seat] : 0;
    const where = seat !== m.seat && m.seat != null && s.kind === "human" ? t("pos." + pos) : "";
    if (where) lines.unshift(h("span", { class: "muted where" }, where));
    // What the seat to act is doing: bidding, choosing the discard, deciding on a chelem, or
    // playing (a poignée is shown with the first card: that is still playing).
    const toAct = t({ bidding: "seat.to_bid", discard: "seat.to_discard", chelem: "seat.to_chelem" }[d && d.phase] || "seat.to_act");
    const label = [this.seatName(seat), where, ...said, turn ? toAct : "", t("seat.score", { n: score })].filter(Boolean).join(", ");
    return h("div", { class: `seat pos-${pos}` + (turn ? " turn" : "") + (seat === m.seat ? " me" : ""), id: "seat-" + pos, role: "group", "aria-label": label, dataset: { seat: String(seat) } },
      h("div", { class: "seat-name" }, h("span", { class: "dot " + (s.kind === "human" ? (s.connected ? "on" : "off") : "ai"), "aria-hidden": "true" }),
        h("span", { class: "nm", title: this.seatName(seat) }, this.seatName(seat)),
        s.kind !== "human" && seat !== m.seat ? h("span", { class: "nm-short", "aria-hidden": "true" }, t(s.kind === "ai" ? "seat.ai_short" : "seat.empty_short")) : null,
        turn ? h("span", { class: "turn-mark", "aria-hidden": "true" }, toAct) : null,
        turn && seat === m.seat && this.deadline ? h("span", { class: "timer", id: "timer", role: "timer" }, this.timerText(true)) : null),
      tags.length ? h("div", { class: "seat-tags" }, tags) : null,
      h("div", { class: "seat-lines" }, lines, h("span", { class: "score" }, t("seat.score", { n: score }))));
  }

  renderCenter() {
    const m = this.model;
    const d = m.deal;
    const info = m.info;
    const center = h("div", { class: "center" });
    if (info.state === "waiting") {
      center.append(this.renderWaiting());
      return center;
    }
    if (!d) {
      center.append(h("p", { class: "on-felt" }, t("table.starting")));
      return center;
    }
    // The trick in progress, or the last one for a moment (or on request), or the chien.
    let trick = d.trick && d.trick.cards.length ? d.trick : null;
    let caption = null;
    const lt = m.lastTrick;
    const recent = lt && lt.at && performance.now() - lt.at < trickHold(this.app.settings);
    // A completed trick stays on the table for a moment (its winner marked), even when the
    // next one has begun, unless we must play to it (then we see what was led) or have played
    // to it already (we saw the last one then: the cards played after ours were hidden).
    const mustSee = m.prompt && m.prompt.legal.phase === "play";
    const ours = trick && m.seat != null && trick.cards.some((_, i) => (trick.leader + i) % 4 === m.seat);
    if ((this.showLast || (recent && (!trick || (!mustSee && !ours)))) && lt) {
      trick = lt;
      caption = this.tx("trick.won_by", lt.winner, { n: lt.number });
    }
    if (trick) {
      const box = h("ul", { class: "trick", id: "trick", "aria-label": caption || t("trick.current", { n: d.tricks.length + 1 }) });
      trick.cards.forEach((c, i) => {
        const seat = (trick.leader + i) % 4;
        const fresh = trick === d.trick && i === trick.cards.length - 1;
        box.append(h("li", { class: `tcard at-${this.pos(seat)}` + (fresh ? " fresh" : "") + (trick.winner === seat ? " winner" : "") + (i === 0 ? " led" : ""), "aria-label": `${this.seatName(seat)}${t("punct.colon")}${cardName(t, c)}` },
          this.cardFace(c, "trick-card"),
          h("span", { class: "tlabel" + (i === 0 ? " lead" : ""), "aria-hidden": "true" }, this.seatName(seat))));
      });
      center.append(box);
      center.append(h("p", { class: "caption on-felt", id: "trick-caption" }, caption || `${t("trick.current", { n: d.tricks.length + 1 })} · ${t("trick.led_by", { name: this.seatName(trick.leader) })}`));
      return center;
    }
    if (d.phase === "over") {
      const r = d.result;
      center.append(h("div", { class: "center-note" },
        h("p", { class: "on-felt big", id: "verdict" }, r.status === "annulled" ? t("center.annulled", { reason: t("reason." + r.reason) }) : this.tx(r.won ? "center.made" : "center.failed", r.taker)),
        r.status === "played" ? h("p", { class: "on-felt muted" }, t("center.points", { p: num(r.taker_points), n: r.taker_points, target: r.target })) : null));
      return center;
    }
    if (d.chien && (d.phase === "discard" || d.phase === "chelem")) {
      center.append(h("div", { class: "chien-show" }, h("p", { class: "on-felt" }, t("center.chien")), this.miniCards(d.chien, "chien")));
      return center;
    }
    if (d.turn === m.seat && this.inactive()) return center; // not "your turn" here: the banner says where
    if (d.phase === "bidding") center.append(h("p", { class: "on-felt" }, this.tx("center.bidding", d.turn)));
    else if (d.phase === "play") center.append(h("p", { class: "on-felt" }, this.tx("center.lead", d.turn)));
    else center.append(h("p", { class: "on-felt" }, this.tx("center.waiting_taker", d.taker)));
    return center;
  }

  renderWaiting() {
    const m = this.model;
    const info = m.info;
    const link = `${location.origin}${location.pathname}#/t/${this.tid}`;
    const input = h("input", { type: "text", readonly: true, value: link, id: "invite-link", "aria-label": t("invite.label") });
    const seated = info.seats.filter((s) => s.kind === "human").length;
    const saved = store.getSeat(this.tid);
    const canStart = m.seat != null || (saved && saved.creator);
    const facts = [info.deals ? t("bar.deals", { n: info.deals }) : t("bar.target", { target: info.target_score }),
      info.turn_timer ? t("bar.turn_timer", { n: info.turn_timer }) : null,
      info.public ? t("waiting.public") : t("waiting.private")].filter(Boolean).join(" · ");
    return h("div", { class: "waiting panel" },
      h("h2", {}, t("waiting.title")),
      h("p", {}, t("waiting.count", { n: seated }), " ", h("span", { class: "muted", id: "waiting-facts" }, facts)),
      h("p", { class: "muted" }, t("invite.hint")),
      h("div", { class: "inline" }, input,
        h("button", { type: "button", id: "copy-invite", dataset: { key: "copy-invite" }, onclick: () => this.copyInvite(input) }, t("invite.copy"))),
      canStart ? h("button", { type: "button", class: "primary", id: "start", dataset: { key: "start" }, onclick: () => this.conn.request({ type: "start", table: this.tid }).catch((e) => this.note("error", errorText(e))) }, t("waiting.start")) : null,
      this.noticeBox()); // next to the link it is about ("Link copied.")
  }

  noticeBox() {
    const n = this.notice;
    if (!n) return null;
    return h("p", { class: "notice " + n.kind, id: "notice", role: n.kind === "error" ? "alert" : "status" }, n.text, " ",
      n.rule ? h("button", { type: "button", class: "linklike", id: "see-rule", onclick: () => openRules(this.app, n.rule) }, t("action.see_rule", { rule: n.rule })) : null,
      n.sit ? h("button", { type: "button", class: "primary small", id: "sit-again", dataset: { key: "sit-again" }, onclick: () => this.sitAgain() }, t("table.sit_again")) : null);
  }

  renderAction() {
    const m = this.model;
    const p = m.prompt;
    const d = m.deal;
    const box = h("section", { class: "action", id: "action", "aria-label": t("action.label"), dataset: { prompt: p ? this.promptKey : "" } });
    const notice = this.noticeBox();
    const over = d && d.phase === "over";
    if (!p) {
      if (this.inactive() && m.seat != null) box.append(h("p", { class: "muted", id: "prompt" }, t("net.played_there")));
      else if (m.info.state === "waiting") box.append(h("p", { class: "muted", id: "prompt" }, m.seat == null ? t("action.spectator") : t("action.waiting_players")));
      else if (over || m.info.state === "finished") box.append(this.renderDealOver());
      else if (m.seat == null) box.append(h("p", { class: "muted", id: "prompt" }, t("action.spectator")));
      else if (d && d.turn != null && m.info.state === "playing") {
        box.append(h("p", { class: "prompt waiting", id: "prompt" }, t("action.waiting_for", { name: this.seatName(d.turn) })));
        // While the others play, the box keeps the room of our own turn (the same lines,
        // unseen), so that the hand below does not move at every trick.
        if (d.phase === "play") {
          box.append(h("p", { class: "hint play-hint placeholder", "aria-hidden": "true" }, t("action.play_hint")));
          if (this.timed) box.append(h("p", { class: "timer-line placeholder", "aria-hidden": "true" }, t("action.timer", { n: 60 })));
        }
      }
      else box.append(h("p", { class: "muted", id: "prompt" }, t("table.starting")));
      if (notice && m.info.state !== "waiting") box.append(notice);
      return box;
    }
    const lg = p.legal;
    box.classList.add("yours");
    if (lg.phase === "bidding") {
      box.append(h("p", { id: "prompt", class: "prompt" }, t("action.bid")),
        h("div", { class: "buttons bids", role: "group", "aria-label": t("action.bid") },
          lg.bids.map((b, i) => h("button", { type: "button", class: b === "pass" ? "" : "primary", dataset: { key: "bid-" + b, bid: b }, "aria-keyshortcuts": String(i + 1), onclick: () => this.act({ type: "bid", contract: b }) },
            h("kbd", { "aria-hidden": "true" }, String(i + 1)), " ", ...this.bidLabel(b)))),
        h("p", { class: "hint bid-hint" }, t("action.bid_hint")));
    } else if (lg.phase === "discard") {
      const dc = lg.discard;
      // Trumps among the choices: too few plain cards (R5.3), none at all when nothing is required.
      const trumps = dc.choices.some((c) => c[0] === "T");
      const rule = dc.required.length ? t("discard.rule_forced", { n: dc.required.length }) : trumps ? t("discard.rule_trumps") : t("discard.rule_plain");
      const ok = this.selected.size === dc.count;
      box.append(h("p", { id: "prompt", class: "prompt" }, t("action.discard", { n: dc.count, k: this.selected.size })),
        h("p", { class: "hint" }, rule),
        h("div", { class: "buttons" },
          h("button", { type: "button", class: "primary", id: "discard-go", dataset: { key: "discard-go" }, disabled: !ok, onclick: () => this.act({ type: "discard", cards: [...this.selected] }) }, t("action.discard_go")),
          h("button", { type: "button", class: "ghost", id: "discard-clear", dataset: { key: "discard-clear" }, onclick: () => { this.selected = new Set(dc.required); this.render(); } }, t("action.discard_clear"))));
    } else if (lg.phase === "chelem") {
      if (!this.chelemConfirm) {
        box.append(h("p", { id: "prompt", class: "prompt" }, t("action.chelem")),
          h("p", { class: "hint" }, t("action.chelem_hint")),
          h("div", { class: "buttons" },
            h("button", { type: "button", class: "primary", id: "chelem-no", dataset: { key: "chelem-no" }, onclick: () => this.act({ type: "chelem", announce: false }) }, t("action.chelem_no")),
            h("button", { type: "button", id: "chelem-yes", dataset: { key: "chelem-yes" }, onclick: () => { this.chelemConfirm = true; this.render(); } }, t("action.chelem_yes"))));
      } else {
        box.append(h("p", { id: "prompt", class: "prompt", role: "alert" }, t("action.chelem_confirm")),
          h("div", { class: "buttons" },
            h("button", { type: "button", class: "danger", id: "chelem-confirm", dataset: { key: "chelem-confirm" }, onclick: () => this.act({ type: "chelem", announce: true }) }, t("action.chelem_confirm_yes")),
            h("button", { type: "button", class: "primary", id: "chelem-cancel", dataset: { key: "chelem-cancel" }, onclick: () => { this.chelemConfirm = false; this.render(); } }, t("action.chelem_cancel"))));
      }
    } else if (lg.phase === "play") {
      box.append(h("p", { id: "prompt", class: "prompt" }, t("action.play")));
      if (lg.poignees.length && !this.poignee) {
        // Two or three levels offered (13 trumps or more): short rows side by side, or the
        // three full rows pushed the hand out of a laptop's window. Buttons say it whole.
        const multi = lg.poignees.length > 1;
        box.append(h("div", { class: "poignee-offer" + (multi ? " multi" : ""), role: "group", "aria-label": t("poignee.offer") },
          h("p", { class: "poignee-lede" }, t("poignee.offer")),
          lg.poignees.map((o) => h("div", { class: "poignee-row" },
            h("span", { class: "poignee-what" }, t(multi ? "poignee.what_short" : "poignee.what", { level: t("level." + o.level), n: o.size, bonus: o.bonus })),
            h("div", { class: "buttons" },
            h("button", { type: "button", class: "primary", dataset: { key: "poignee-" + o.level }, "aria-label": t("poignee.show", { level: t("level." + o.level), n: o.size, bonus: o.bonus }), onclick: () => this.act({ type: "poignee", cards: o.default }) },
              t("poignee.show_short")),
            h("button", { type: "button", class: "ghost", dataset: { key: "poignee-choose-" + o.level }, "aria-label": multi ? t("poignee.choose_named", { level: t("level." + o.level) }) : null, onclick: () => { this.poignee = o; this.selected = new Set(o.default); this.notice = null; this.render(); } }, t(multi ? "poignee.choose_short" : "poignee.choose"))))),
          h("p", { class: "hint" }, t("poignee.decline"))));
      } else if (this.poignee) {
        const o = this.poignee;
        box.append(h("p", { class: "hint" }, t("poignee.choosing", { level: t("level." + o.level), n: o.size, k: this.selected.size })),
          h("div", { class: "buttons" },
            h("button", { type: "button", class: "primary", id: "poignee-go", dataset: { key: "poignee-go" }, disabled: this.selected.size !== o.size, onclick: () => this.act({ type: "poignee", cards: [...this.selected] }) }, t("poignee.go")),
            h("button", { type: "button", class: "ghost", id: "poignee-cancel", dataset: { key: "poignee-cancel" }, onclick: () => { this.poignee = null; this.selected = new Set(); this.render(); } }, t("poignee.cancel"))));
      } else {
        box.append(h("p", { class: "hint play-hint" }, t("action.play_hint")));
      }
    }
    if (this.deadline) box.append(h("p", { class: "timer-line", id: "timer-line", role: "timer", "aria-live": "off" }, this.timerText(false)));
    if (notice) box.append(notice);
    return box;
  }

  /** After a deal: the verdict in words, the score sheet, and what comes next. */
  renderDealOver() {
    const m = this.model;
    const saved = store.getSeat(this.tid);
    const finished = m.info.state === "finished";
    const can = m.seat != null || (saved && saved.creator);
    const buttons = [];
    if (m.lastResult && m.lastResult.result) buttons.push(h("button", { type: "button", id: "center-sheet", dataset: { key: "center-sheet" }, onclick: () => this.showSheet(false, true) }, t("bar.result")));
    if (finished && can) buttons.push(h("button", { type: "button", class: "primary", id: "restart", dataset: { key: "restart" }, onclick: () => this.restart() }, t("center.restart")));
    if (finished) buttons.push(h("a", { class: "button ghost", href: "#/", id: "back-lobby" }, t("table.back")));
    return h("div", { class: "deal-over" },
      h("p", { id: "prompt", class: "prompt" }, finished ? t("center.finished") : t("center.next_deal")),
      buttons.length ? h("div", { class: "buttons" }, buttons) : null);
  }

  timerLeft() {
    return this.deadline ? Math.max(0, Math.ceil((this.deadline - performance.now()) / 1000)) : 0;
  }

  timerText(short) {
    const left = this.timerLeft();
    return short ? `${left} s` : t("action.timer", { n: left });
  }

  updateTimer() {
    if (!this.deadline) return;
    const left = this.timerLeft();
    for (const id of ["timer", "timer-line"]) {
      const e = document.getElementById(id);
      if (e) {
        e.textContent = this.timerText(id === "timer");
        e.classList.toggle("urgent", left <= 10);
      }
    }
    if (left === 0 && !this.model.prompt) this.deadline = null;
  }

  renderHand() {
    const m = this.model;
    const d = m.deal;
    const box = h("section", { class: "hand", id: "hand", "aria-label": t("hand.label") });
    if (m.seat == null || !d || !d.hand || d.phase === "over") return box;
    const p = m.prompt;
    const phase = p && p.legal.phase;
    if (phase === "discard" || this.poignee) box.classList.add("picking");
    const hand = d.hand;
    const legal = phase === "play" && !this.poignee ? new Set(p.legal.plays) : null;
    const discard = phase === "discard" ? p.legal.discard : null;
    const list = h("ul", { class: "cards" + (discard || this.poignee ? " picking" : ""), role: "list" });
    const focus = Math.min(this.focusIndex, hand.length - 1);
    const off = this.inactive(); // played from another tab: nothing to do with these cards here
    hand.forEach((c, i) => {
      let enabled = true;
      let note = "";
      if (off) {
        enabled = false;
        note = t("net.replaced");
      } else if (legal) {
        enabled = legal.has(c);
        if (!enabled) note = this.why(c);
      } else if (discard) {
        enabled = discard.choices.includes(c) || discard.required.includes(c);
        if (!enabled) note = sentence(t(isOudler(c) || c.endsWith("K") ? "discard.never" : "discard.no_trump", { card: cardNameDef(t, c) }));
      } else if (this.poignee) {
        enabled = this.poignee.eligible.includes(c);
      }
      const selectable = discard || this.poignee;
      const selected = selectable && this.selected.has(c);
      const chien = discard && m.fromChien.has(c);
      const name = cardName(t, c) + (isOudler(c) ? ", " + t("card.oudler") : "") + (chien ? ", " + t("hand.from_chien") : "") + (selected ? ", " + t("hand.selected") : "");
      const btn = h("button", {
        type: "button",
        class: "card" + (enabled ? "" : " dim") + (selected ? " selected" : "") + (discard && discard.required.includes(c) ? " required" : "") + (chien ? " from-chien" : ""),
        "aria-label": name,
        "aria-disabled": enabled ? null : "true",
        "aria-pressed": selectable ? (selected ? "true" : "false") : null,
        title: note || (chien ? t("hand.from_chien") : null),
        tabindex: i === focus ? "0" : "-1",
        dataset: { card: c },
      }, cardSVG(c, currentLanguage(), t("card.excuse_short")));
      btn.addEventListener("click", () => {
        this.focusIndex = i;
        this.clickCard(c);
      });
      btn.addEventListener("keydown", (e) => this.onHandKey(e));
      btn.addEventListener("focus", () => { this.focusIndex = i; });
      list.append(h("li", {}, btn));
    });
    box.append(h("h2", { class: "sr-only" }, t("hand.label")), h("div", { class: "cw-probe", "aria-hidden": "true" }), list);
    if (discard) box.append(h("p", { class: "hint hand-hint" }, t("hand.hint_discard")));
    return box;
  }

  /**
   * Spread the hand over the width it has: as little overlap as that width allows, on as few
   * lines as keep every card's index readable and, on a touch screen, wide enough to tap.
   */
  layoutHand() {
    const list = this.root.querySelector(".hand .cards");
    const probe = this.root.querySelector(".hand .cw-probe");
    if (!list || !probe) return;
    const items = [...list.children].filter((li) => !li.classList.contains("break"));
    for (const b of list.querySelectorAll(".break")) b.remove();
    const n = items.length;
    const width = list.getBoundingClientRect().width - 1; // a pixel to spare for rounding
    const cw = probe.getBoundingClientRect().width;
    if (!n || !width || !cw) return;
    // A strip of 27 px (the whole height of the card) is a safe target for a finger: one line
    // of 12 or 13 cards on a phone rather than two.
    const coarse = window.matchMedia("(pointer: coarse), (hover: none)").matches;
    const minStep = Math.max(cw * 0.36, coarse ? 27 : 24);
    const maxStep = cw + 6;
    let rows = 1;
    while (rows < 3 && n > 1 && (width - cw) / (Math.ceil(n / rows) - 1) < minStep) rows += 1;
    const perRow = Math.ceil(n / rows);
    const step = perRow > 1 ? Math.min(maxStep, (width - cw) / (perRow - 1)) : maxStep;
    list.style.setProperty("--step", `${Math.floor(step * 10) / 10}px`);
    list.dataset.rows = String(rows);
    items.forEach((li, i) => {
      const end = (i + 1) % perRow === 0 || i === n - 1;
      li.classList.toggle("end", end);
      li.classList.toggle("lower", i >= perRow);
      if (end && i < n - 1) li.after(h("li", { class: "break", role: "none", "aria-hidden": "true" }));
    });
  }

  renderSide() {
    const m = this.model;
    const d = m.deal;
    const side = h("aside", { class: "side", "aria-label": t("side.label") });
    const facts = h("dl", { class: "facts" });
    const add = (k, v, id) => facts.append(h("dt", {}, k), h("dd", id ? { id } : {}, v));
    if (d) {
      add(t("side.dealer"), this.seatName(d.dealer));
      if (d.contract) {
        add(t("side.contract"), `${this.contractName(d.contract)} · ${this.seatName(d.taker)}`, "side-contract");
        if (d.chelem_announced) add(t("side.chelem"), t("side.chelem_announced"));
        const n = oudlersSoFar(d);
        if (n != null && d.phase === "play") {
          add(t("side.oudlers"), t("side.oudlers_value", { n, target: TARGET[Math.min(n, 3)] }), "side-oudlers");
          if (d.taker === m.seat && d.hand) add(t("side.your_oudlers"), String(d.hand.filter(isOudler).length));
        }
        if (d.phase === "over" && d.result && d.result.status === "played") add(t("side.outcome"), t(d.result.won ? "side.won" : "side.lost", { p: d.result.taker_points, target: d.result.target }));
      }
    }
    const sections = [h("h2", {}, t(m.info.state === "waiting" ? "side.title_table" : "side.title")), facts];
    if (d && d.chien) sections.push(h("h3", {}, t("side.chien")), this.miniCards(d.chien, "side-chien"));
    else if (d && d.contract && (d.contract === "garde_sans" || d.contract === "garde_contre")) sections.push(h("p", { class: "muted" }, t("side.chien_hidden", { contract: this.contractName(d.contract) })));
    if (d && d.discard && d.taker === m.seat) sections.push(h("h3", {}, t("side.your_discard")), this.miniCards(d.discard, "side-discard"));
    if (d && d.discard_trumps && d.discard_trumps.length) sections.push(h("h3", {}, t("side.discard_trumps")), this.miniCards(d.discard_trumps, "side-discard-trumps"));
    if (d && d.poignees.length) {
      sections.push(h("h3", {}, t("side.poignees")));
      for (const pg of d.poignees) sections.push(h("p", {}, t("side.poignee_of", { name: this.seatName(pg.seat), level: t("level." + pg.level) })), this.miniCards(pg.cards, "side-poignee-" + pg.seat));
    }
    // Standings.
    const rows = [0, 1, 2, 3].map((s) => h("tr", { class: s === m.seat ? "me" : "" }, h("th", { scope: "row" }, this.seatName(s)), h("td", {}, num(m.info.scores[s]))));
    sections.push(h("h3", {}, t("side.scores")), h("table", { class: "scores", id: "standings" }, h("caption", { class: "sr-only" }, t("side.scores")), h("tbody", {}, rows)));
    // Earlier deals of this table, to review (their records come from the server).
    const lastNo = m.info.deal_no || 0;
    const past = [];
    for (let n = 1; n <= lastNo; n++) if (n < lastNo || (d && d.phase === "over")) past.push(n);
    if (past.length) {
      sections.push(h("h3", {}, t("past.title")), h("div", { class: "past" }, past.slice(-12).map((n) =>
        h("button", { type: "button", class: "small ghost", dataset: { key: "past-" + n }, "aria-label": t("past.review", { n }), onclick: () => this.reviewPast(n) }, String(n)))));
    }
    const log = h("ol", { class: "log", id: "log", "aria-label": t("side.log") }, this.log.slice(-60).map((x) => h("li", {}, this.logText(x))));
    const box = h("details", { class: "log-box", open: this.logOpen || null }, h("summary", {}, t("side.log")), log);
    box.addEventListener("toggle", () => {
      this.logOpen = box.open;
      if (box.open) log.scrollTop = log.scrollHeight;
    });
    sections.push(box);
    side.append(...sections);
    return side;
  }

  cardFace(code, cls) {
    return h("span", { class: cls }, cardSVG(code, currentLanguage(), t("card.excuse_short")));
  }

  miniCards(cards, id) {
    return h("ul", { class: "mini-cards", id, "aria-label": cardNames(t, cards) }, cards.map((c) => h("li", { "aria-hidden": "true" }, this.cardFace(c, "mini"))));
  }

  // ------------------------------------------------------------------------------ end of deal

  showSheet(live, force = false) {
    const r = this.model.lastResult;
    if (!r || !r.result) return;
    if (!force && this.sheetFor === r.deal_no) return;
    this.sheetFor = r.deal_no;
    openSheet(this, r, live);
  }

  /** The par of a deal came: fill it in the open score sheet of that deal. */
  parArrived(e) {
    const box = document.getElementById("sheet-par");
    if (box && Number(box.dataset.deal) === e.deal_no) fillPar(this, box, e);
    const mine = this.model.seat != null ? e.over_par[this.model.seat] : null;
    if (mine != null) announce(t("par.announce", { n: e.deal_no, d: signed(mine) }));
  }

  accountChanged() {
    this.render();
  }

  sheetNext(dealNo) {
    const note = document.getElementById("sheet-next");
    if (note) note.textContent = t("sheet.next_started", { n: dealNo });
  }

  review(r) {
    openReview(this, r);
  }

  /** The score sheet of an earlier deal this page has not seen end (after a reload). */
  async sheetOf(dealNo) {
    try {
      const ans = await this.conn.request({ type: "deal", table: this.tid, deal_no: dealNo });
      const rec = ans.record;
      if (!rec || !rec.result) return;
      if (!this.model.lastResult) this.model.lastResult = { deal_no: dealNo, result: rec.result, record: rec };
      this.showSheet(false, true);
    } catch (e) {
      this.note("error", e.code === "unknown_type" || e.code === "invalid_field" ? t("past.unsupported") : errorText(e));
    }
  }

  /** Review an earlier deal of this table: its record from the server (the `deal` request). */
  async reviewPast(dealNo) {
    const last = this.model.lastResult;
    if (last && last.deal_no === dealNo && last.record) return openReview(this, last);
    try {
      const ans = await this.conn.request({ type: "deal", table: this.tid, deal_no: dealNo });
      const rec = ans.record;
      if (!rec || !rec.result || rec.result.status !== "played") return this.note("info", t("past.annulled", { n: dealNo }));
      openReview(this, { deal_no: dealNo, result: rec.result, record: rec });
    } catch (e) {
      this.note("error", e.code === "unknown_type" || e.code === "invalid_field" ? t("past.unsupported") : errorText(e));
    }
  }
}

export { MULTIPLIER, sortCards, RANK_ORDER, $ };

// End of deal: the score sheet (as a club player writes it: contract, oudlers, points made and
// needed, margin, base, petit au bout, poignée, chelem, each seat's score) and the deal review,
// trick by trick, from the deal's record.

import { h, clear } from "./dom.js";
import { t, num, signed, currentLanguage } from "./i18n.js";
import { cardSVG, cardName, cardNames } from "./cards.js";
import { MULTIPLIER, reviewOf } from "./model.js";
import { dialog } from "./ui.js";

export function openSheet(view, r, live) {
  const m = view.model;
  // Closed, the sheet gives the focus back to what had it, or (it opened by itself at the end
  // of a deal, or that control was redrawn) to the next decision, else to what reopens it.
  const opener = document.activeElement && document.activeElement !== document.body ? document.activeElement : null;
  const openerKey = opener && opener.dataset ? opener.dataset.key : null; // the table redraws its controls
  const giveBack = () => {
    if (document.querySelector("dialog[open]")) return; // the review took over (it gives back itself)
    if (opener && opener.isConnected && !opener.closest("dialog")) return opener.focus();
    const again = openerKey && document.querySelector(`[data-key="${CSS.escape(openerKey)}"]`);
    if (again && !again.disabled) return again.focus();
    const next = view.nextControl && view.nextControl();
    if (next) return next.focus();
    for (const k of ["center-sheet", "btn-sheet"]) {
      const e = document.querySelector(`[data-key="${CSS.escape(k)}"]`);
      if (e && !e.disabled) return e.focus();
    }
    const main = document.getElementById("view");
    if (main) main.focus();
  };
  const res = r.result;
  const body = h("div", { class: "sheet", id: "sheet" });
  if (res.status === "annulled") {
    body.append(h("p", { class: "big" }, t("sheet.annulled", { n: r.deal_no, reason: t("reason." + res.reason) })));
  } else {
    const d = Math.abs(res.taker_points - res.target);
    const pd = res.per_defender;
    const rows = [
      [t("sheet.contract"), `${t("contract." + res.contract)}` + (res.chelem_announced ? " · " + t("sheet.chelem_announced") : "")],
      [t("sheet.taker"), view.seatName(res.taker)],
      [t("sheet.oudlers"), num(res.oudlers)],
      [t("sheet.needed"), num(res.target)],
      [t("sheet.points"), num(res.taker_points)],
      [t("sheet.defence"), num(91 - res.taker_points)],
      [t("sheet.outcome"), t(res.won ? "sheet.made" : "sheet.failed", { d })],
      [t("sheet.base"), `(25 + ${num(d)}) × ${res.multiplier} = ${num(Math.abs(res.base))}`],
      [t("sheet.petit"), res.petit_au_bout ? signed(res.petit_au_bout) : "—"],
      [t("sheet.poignee"), res.poignee ? signed(res.poignee) : "—"],
      [t("sheet.chelem"), res.chelem ? signed(res.chelem) : "—"],
      [t(pd >= 0 ? "sheet.defender_pays" : "sheet.taker_pays"), num(Math.abs(pd)), "sheet-per-defender"],
    ];
    body.append(h("p", { class: "verdict " + (res.won ? "won" : "lost") }, view.tx(res.won ? "sheet.verdict_won" : "sheet.verdict_lost", res.taker, { contract: t("contract." + res.contract) })),
      h("table", { class: "sheet-table", id: "sheet-table" }, h("caption", { class: "sr-only" }, t("sheet.title", { n: r.deal_no })),
        h("tbody", {}, rows.map(([k, v, id]) => h("tr", id ? { id } : {}, h("th", { scope: "row" }, k), h("td", {}, v))))),
      h("p", { class: "hint sheet-note" }, t("sheet.signs")));
  }
  const total = m.info.scores;
  const finished = m.info.state === "finished";
  // At the end of the game, each player's place (equal totals share a place).
  const place = (s) => 1 + [0, 1, 2, 3].filter((x) => total[x] > total[s]).length;
  const scoreRows = [0, 1, 2, 3].map((s) => h("tr", { class: s === m.seat ? "me" : "" },
    h("th", { scope: "row" }, view.seatName(s) + (res.taker === s ? ` (${t("seat.taker")})` : "")),
    h("td", {}, signed(res.scores[s])), h("td", {}, num(total[s])),
    finished ? h("td", { class: "place" }, t("sheet.place_n", { n: place(s), ordinal: true })) : null));
  body.append(h("table", { class: "sheet-scores", id: "sheet-scores" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("sheet.player")), h("th", { scope: "col" }, t("sheet.this_deal")), h("th", { scope: "col" }, t("sheet.total")),
      finished ? h("th", { scope: "col" }, t("sheet.place")) : null)),
    h("tbody", {}, scoreRows)));
  // The par (PROTOCOL.md 13): the same cards played by the reference bot, when the server
  // computes it (a server with accounts says `player` in its welcome); it may come later.
  if (res.status === "played") {
    const par = m.pars[r.deal_no];
    const w = view.conn && view.conn.welcome;
    if (par || (w && "player" in w)) {
      const box = h("section", { class: "sheet-par", id: "sheet-par", "aria-labelledby": "sheet-par-title", dataset: { deal: String(r.deal_no) } });
      body.append(box);
      if (par) fillPar(view, box, par);
      else box.append(h("h3", { id: "sheet-par-title" }, t("par.title")), h("p", { class: "muted", id: "par-wait", role: "status" }, t("par.computing")));
    }
  }
  // The series so far (the deals seen on this page).
  if (m.history.length > 1) {
    body.append(h("h3", {}, t("sheet.series")), h("table", { class: "sheet-series" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("sheet.deal")), [0, 1, 2, 3].map((s) => h("th", { scope: "col" }, view.seatName(s))))),
      h("tbody", {}, m.history.map((x) => h("tr", {}, h("th", { scope: "row" }, String(x.deal_no)), x.deal.map((v) => h("td", {}, signed(v))))))));
  }
  if (finished) {
    const best = Math.max(...total);
    const winners = [0, 1, 2, 3].filter((s) => total[s] === best);
    const line = winners.length === 1
      ? view.tx("sheet.winner", winners[0])
      : t("sheet.winners", { names: winners.map((s) => view.seatName(s)).join(", ") });
    body.append(h("p", { class: "big final", id: "sheet-final" }, line));
  }
  body.append(h("p", { class: "muted", id: "sheet-next", role: "status" }));
  const buttons = [];
  if (r.record && res.status === "played") {
    buttons.push(h("button", { type: "button", id: "open-review", onclick: () => { dlg.close(); openReview(view, r, "btn-sheet"); } }, t("sheet.review")));
  }
  const cont = h("button", { type: "button", class: "primary", id: "sheet-close", onclick: () => dlg.close() }, m.info.state === "finished" ? t("dialog.close") : t("sheet.continue"));
  buttons.push(cont);
  const dlg = dialog("sheet", t("sheet.title", { n: r.deal_no }), body, buttons, { class: "table-dlg sheet-dlg", onclose: giveBack });
  dlg.showModal();
  cont.focus();
  return dlg;
}

/**
 * The review of a deal. Closed, it gives the focus back to what opened it: that control (by its
 * data-key, as the table redraws its buttons), `back` (the key of a control that reopens what
 * opened it, e.g. the bar's "Score sheet" after the sheet's own button), or the sheet's buttons.
 */
export function openReview(view, r, back = null) {
  const opener = document.activeElement && document.activeElement !== document.body ? document.activeElement : null;
  const openerKey = opener && opener.dataset ? opener.dataset.key : null;
  const giveBack = () => {
    if (opener && opener.isConnected && !opener.closest("dialog:not([open])")) return opener.focus();
    for (const k of [openerKey, back, "btn-sheet", "center-sheet"]) {
      const e = k && document.querySelector(`[data-key="${CSS.escape(k)}"]`);
      if (e && !e.disabled) return e.focus();
    }
  };
  const rec = r.record;
  const rv = reviewOf(rec);
  const res = rec.result;
  const taker = res.taker;
  const steps = 2 + rv.tricks.length + 1;
  let step = 0;
  const body = h("div", { class: "review", id: "review" });
  const counter = h("p", { class: "review-step", id: "review-step", "aria-live": "polite" });
  const prev = h("button", { type: "button", id: "review-prev", "aria-keyshortcuts": "ArrowLeft" }, "← " + t("review.prev"));
  const next = h("button", { type: "button", class: "primary", id: "review-next", "aria-keyshortcuts": "ArrowRight" }, t("review.next") + " →");
  // Go straight to a step: the hands, the bidding, any trick, the count.
  const jump = h("select", { id: "review-jump", "aria-label": t("review.jump") },
    Array.from({ length: steps }, (_, i) => h("option", { value: String(i) }, stepName(i))));
  const card = (c, cls = "mini") => h("span", { class: cls, title: cardName(t, c) }, cardSVG(c, currentLanguage(), t("card.excuse_short")));
  const cardsRow = (cards, highlight = new Set()) => h("ul", { class: "mini-cards", "aria-label": cardNames(t, cards) },
    cards.map((c) => h("li", { class: highlight.has(c) ? "hl" : "", "aria-hidden": "true" }, card(c))));
  const you = (key, seat, params = {}) => view.tx(key, seat, params);

  function stepName(i) {
    if (i === 0) return t("review.hands");
    if (i === 1) return t("review.bidding");
    if (i === steps - 1) return t("review.end");
    return t("review.trick_of", { n: i - 1, total: rv.tricks.length });
  }

  // Each seat's cards before trick k (k from 0): the hands as dealt, with the chien and the
  // discard for a prise or garde taker, minus what was played.
  function handsBefore(k) {
    const hands = rec.hands.map((x) => [...x]);
    if (rv.discard && taker != null) {
      hands[taker] = [...hands[taker], ...rec.chien].filter((c) => !rv.discard.includes(c));
    }
    for (const tr of rv.tricks.slice(0, k)) tr.cards.forEach((c, i) => {
      const s = tr.seats[i];
      hands[s] = hands[s].filter((x) => x !== c);
    });
    return hands.map((x) => sortHand(x));
  }

  function draw() {
    clear(body);
    counter.dataset.step = String(step);
    counter.textContent = t("review.step", { n: step + 1, total: steps });
    jump.value = String(step);
    const had = document.activeElement;
    prev.disabled = step === 0;
    next.disabled = step === steps - 1;
    // Never leave the focus on a button that just became disabled.
    if (had === next && next.disabled) prev.focus();
    if (had === prev && prev.disabled) next.focus();
    if (step === 0) {
      body.append(h("h3", {}, t("review.hands")),
        ...rec.hands.map((hand, s) => h("div", { class: "rv-hand" }, h("p", {}, view.seatName(s) + (s === rec.dealer ? ` (${t("seat.dealer")})` : "")), cardsRow(sortHand(hand)))),
        h("div", { class: "rv-hand" }, h("p", {}, t("review.chien")), cardsRow(rec.chien)));
    } else if (step === 1) {
      const bids = rv.bids.map((b) => h("li", {}, `${view.seatName(b.seat)}${t("punct.colon")}${t("contract." + b.contract)}`));
      body.append(h("h3", {}, t("review.bidding")), h("ol", { class: "rv-bids" }, bids));
      if (rv.discard) body.append(h("p", {}, you("review.discard", taker)), cardsRow(rv.discard));
      else if (res.contract === "garde_sans") body.append(h("p", {}, t("review.chien_taker")));
      else if (res.contract === "garde_contre") body.append(h("p", {}, t("review.chien_defence")));
      if (rv.chelem) body.append(h("p", {}, rv.chelem.announce ? you("review.chelem_yes", taker) : t("review.chelem_no")));
      for (const pg of rv.poignees) body.append(h("p", {}, you("review.poignee", pg.seat, { n: pg.cards.length })), cardsRow(pg.cards));
    } else if (step < steps - 1) {
      const tr = rv.tricks[step - 2];
      const hands = handsBefore(step - 2);
      const played = new Set(tr.cards);
      const summary = `${you("review.led", tr.leader)}; ${you("review.took", tr.winner)}.`;
      body.append(h("h3", {}, t("review.trick_of", { n: tr.number, total: rv.tricks.length })),
        h("p", { id: "review-summary" }, summary),
        h("ol", { class: "rv-trick", id: "review-trick" }, tr.cards.map((c, i) => h("li", { class: tr.seats[i] === tr.winner ? "winner" : "" },
          card(c, "trick-card"), h("span", {}, view.seatName(tr.seats[i]) + t("punct.colon") + cardName(t, c))))),
        h("p", { id: "review-running" }, you("review.running", taker, { p: num(tr.running), n: tr.running, d: (tr.points >= 0 ? "+" : "") + num(tr.points) })),
        h("h4", {}, t("review.hands_now")),
        ...hands.map((hand, s) => h("div", { class: "rv-hand small" }, h("p", {}, view.seatName(s) + (s === taker ? ` (${t("seat.taker")})` : "")), cardsRow(hand, played))));
    } else {
      const fromTricks = rv.tricks.length ? rv.tricks[rv.tricks.length - 1].running : 0;
      const rest = res.taker_points - fromTricks;
      const pile = res.contract === "garde_contre" ? t("review.chien_defence")
        : res.contract === "garde_sans" ? t("review.pile_chien", { p: num(rest), n: rest })
          : t("review.pile_discard", { p: num(rest), n: rest });
      body.append(h("h3", {}, t("review.end")),
        h("p", {}, t("review.tricks_total", { p: num(fromTricks), n: fromTricks })),
        h("p", {}, pile),
        h("p", { class: "big", id: "review-final" }, you("review.final", taker, { p: num(res.taker_points), n: res.taker_points, target: num(res.target) })));
    }
  }
  const go = (i) => { step = Math.max(0, Math.min(steps - 1, i)); draw(); };
  prev.addEventListener("click", () => go(step - 1));
  next.addEventListener("click", () => go(step + 1));
  jump.addEventListener("change", () => go(Number(jump.value)));
  const dlg = dialog("review", t("review.title", { n: r.deal_no }), h("div", {}, h("div", { class: "review-head" }, counter, jump), body), [prev, next], { class: "table-dlg wide review-dlg", onclose: giveBack });
  dlg.addEventListener("keydown", (e) => {
    if (e.target === jump) return;
    if (e.key === "ArrowRight") { e.preventDefault(); next.click(); }
    if (e.key === "ArrowLeft") { e.preventDefault(); prev.click(); }
    if (e.key === "Home") { e.preventDefault(); go(0); }
    if (e.key === "End") { e.preventDefault(); go(steps - 1); }
  });
  draw();
  dlg.showModal();
  next.focus();
  return dlg;
}

const ORDER = ["S", "H", "C", "D", "T", "E"];
const RANKS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"];
function sortHand(cards) {
  const key = (c) => (c === "EX" ? 999 : c[0] === "T" ? 500 + Number(c.slice(1)) : ORDER.indexOf(c[0]) * 20 + RANKS.indexOf(c.slice(1)));
  return [...cards].sort((a, b) => key(a) - key(b));
}

export { MULTIPLIER };

/** The par section of a score sheet: each seat's score, par, difference and rating after it. */
export function fillPar(view, box, e) {
  clear(box);
  const m = view.model;
  const bot = view.app.levelName(e.level);
  box.append(h("h3", { id: "sheet-par-title" }, t("par.title")));
  if (m.seat != null && e.over_par[m.seat] != null) {
    const s = m.seat;
    box.append(h("p", { class: "par-line " + (e.over_par[s] >= 0 ? "won" : "lost"), id: "par-mine" },
      t("par.mine", { score: signed(e.scores[s]), bot, par: signed(e.par[s]), d: signed(e.over_par[s]) })));
    const r = e.ratings && e.ratings[s];
    if (r) box.append(h("p", { id: "par-rating" }, t("par.your_rating", { r: num(Math.round(r.rating * 10) / 10), d: signed(Math.round((r.delta || 0) * 10) / 10) }) + (r.provisional ? " · " + t("profile.provisional") : "")));
  } else {
    box.append(h("p", { class: "hint" }, t("par.explain", { bot })));
  }
  const rated = (e.ratings || []).some(Boolean);
  const rating = (r) => {
    if (!r) return "—";
    const v = num(Math.round(r.rating * 10) / 10);
    const delta = r.delta != null ? ` (${signed(Math.round(r.delta * 10) / 10)})` : "";
    return v + delta + (r.provisional ? " · " + t("profile.provisional") : "");
  };
  box.append(h("div", { class: "table-wrap par-wrap" }, h("table", { class: "sheet-scores", id: "par-table" },
    h("caption", { class: "sr-only" }, t("par.title")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("sheet.player")), h("th", { scope: "col" }, t("sheet.this_deal")),
      h("th", { scope: "col" }, t("par.par")), h("th", { scope: "col" }, t("par.over_par")), rated ? h("th", { scope: "col" }, t("par.rating")) : null)),
    h("tbody", {}, [0, 1, 2, 3].map((s) => h("tr", { class: s === m.seat ? "me" : "" },
      h("th", { scope: "row" }, view.seatName(s)),
      h("td", {}, signed(e.scores[s])), h("td", {}, signed(e.par[s])), h("td", {}, signed(e.over_par[s])),
      rated ? h("td", { class: "rating" }, rating(e.ratings[s])) : null))))));
}

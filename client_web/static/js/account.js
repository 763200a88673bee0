// Accounts (PROTOCOL.md section 13): register, log in, log out; the player's profile, history
// and the leaderboard. The player key lives in localStorage (store.js) and goes only into
// hello: it is never shown, never put in a URL, never logged.

import { h, clear, announce } from "./dom.js";
import { t, num, signed, currentLanguage, has } from "./i18n.js";
import { openReview } from "./sheet.js";
import * as store from "./store.js";
import { errorText, dialog } from "./ui.js";

const PAGE = 20; // history and leaderboard rows asked for at a time

/** An error of an account request, in words (with the field it is about when we know it). */
function accountError(e) {
  if (e && e.code === "invalid_field" && e.details && /name/.test(String(e.details.path || ""))) return t("account.bad_name");
  if (e && e.code === "invalid_field" && e.details && /password/.test(String(e.details.path || ""))) return t("code.bad_password");
  return errorText(e);
}

/** The connection is now this account (an `account` answer): keep its key, use its name. */
function signedIn(app, ans) {
  store.setPlayer({ key: ans.key, name: ans.player.name, kind: ans.player.kind });
  app.player = { name: ans.player.name, kind: ans.player.kind, since: ans.player.since };
  app.name = ans.player.name;
  store.setName(app.name);
  if (app.conn) app.conn.name = app.name.slice(0, 32); // the same connection, now that player
  app.accountChanged();
}

function field(id, label, attrs, hint) {
  const input = h("input", { id, name: id, ...attrs, "aria-describedby": hint ? id + "-hint" : null });
  return { input, nodes: [h("label", { for: id }, label), hint ? h("div", {}, input, h("p", { class: "hint", id: id + "-hint" }, hint)) : input] };
}

/** The account dialog: log in or create an account (a guest), or the profile (a player). */
export function openAccount(app, tab = "login") {
  if (app.player) return openProfile(app);
  const body = h("div", { class: "account", id: "account" });
  const tabs = h("div", { class: "seg", role: "group", "aria-label": t("account.title") },
    h("button", { type: "button", id: "tab-login", "aria-pressed": tab === "login" ? "true" : "false", onclick: () => { dlg.close(); openAccount(app, "login"); } }, t("account.login")),
    h("button", { type: "button", id: "tab-register", "aria-pressed": tab === "register" ? "true" : "false", onclick: () => { dlg.close(); openAccount(app, "register"); } }, t("account.register")));
  body.append(h("p", { class: "hint" }, t("account.why")), tabs);
  const err = h("p", { class: "form-error", role: "alert", id: "account-error" });
  const name = field("acc-name", t("account.name"), { type: "text", maxlength: "32", autocomplete: "username", required: true, value: tab === "register" ? (app.name || "") : "" });
  const pw = field("acc-password", t("account.password"), {
    type: "password", maxlength: "256", autocomplete: tab === "register" ? "new-password" : "current-password",
    required: tab === "login", minlength: tab === "register" ? "8" : null,
  }, tab === "register" ? t("account.password_hint") : null);
  const go = h("button", { type: "submit", class: "primary", id: "account-go" }, tab === "register" ? t("account.register_go") : t("account.login_go"));
  const form = h("form", { class: "account-form", id: "account-form" }, h("div", { class: "fields" }, ...name.nodes, ...pw.nodes), go, err);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    err.textContent = "";
    const n = name.input.value.trim();
    const p = pw.input.value;
    if (!n) {
      err.textContent = t("account.bad_name");
      name.input.focus();
      return;
    }
    if (tab === "register" && p && p.length < 8) {
      err.textContent = t("code.bad_password");
      pw.input.focus();
      return;
    }
    go.disabled = true;
    try {
      const c = app.connection();
      await c.open();
      const req = tab === "register" ? { type: "register", name: n } : { type: "login", name: n, password: p };
      if (tab === "register" && p) req.password = p;
      const ans = await c.request(req);
      signedIn(app, ans);
      announce(t(tab === "register" ? "account.registered" : "account.logged_in", { name: ans.player.name }));
      dlg.close();
      openProfile(app, true);
    } catch (e2) {
      err.textContent = accountError(e2);
      go.disabled = false;
      pw.input.value = "";
      (tab === "login" ? pw.input : name.input).focus();
    }
  });
  body.append(form);
  const board = h("button", { type: "button", class: "ghost", id: "open-leaderboard", onclick: () => { dlg.close(); openLeaderboard(app); } }, t("account.leaderboard"));
  const dlg = dialog("account", t("account.title"), body, [board]);
  dlg.showModal();
  name.input.focus();
  return dlg;
}

/** The browser's own locale when it is of the page's language (en-GB dates for en-GB). */
const locale = () => (navigator.languages || []).find((l) => String(l).slice(0, 2).toLowerCase() === currentLanguage()) || currentLanguage();
const pct = (x) => new Intl.NumberFormat(locale(), { style: "percent", maximumFractionDigits: 0 }).format(x);
const date = (iso) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : new Intl.DateTimeFormat(locale(), { dateStyle: "medium" }).format(d);
};
const dateTime = (iso) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : new Intl.DateTimeFormat(locale(), { dateStyle: "short", timeStyle: "short" }).format(d);
};

/** A rating as players read it: the conservative figure, the deals, provisional or not. */
export function ratingText(r) {
  if (!r) return t("profile.no_rating");
  const base = t("profile.rating_value", { r: num(Math.round(r.rating * 10) / 10), n: r.deals });
  return r.provisional ? `${base} · ${t("profile.provisional")}` : base;
}

/** The logged-in player's profile: rating, deals, over-par; history, leaderboard, log out. */
export async function openProfile(app, fresh = false) {
  const body = h("div", { class: "profile", id: "profile" }, h("p", { class: "muted" }, t("lobby.loading")));
  const err = h("p", { class: "form-error", role: "alert", id: "profile-error" });
  const logout = h("button", { type: "button", class: "ghost", id: "logout", onclick: () => doLogout() }, t("account.logout"));
  const hist = h("button", { type: "button", id: "open-history", onclick: () => { dlg.close(); openHistory(app); } }, t("account.history"));
  const board = h("button", { type: "button", id: "open-leaderboard", onclick: () => { dlg.close(); openLeaderboard(app); } }, t("account.leaderboard"));
  const dlg = dialog("account", app.player ? app.player.name : t("account.title"), h("div", {}, body, err), [logout, hist, board]);
  dlg.showModal();
  (fresh ? hist : board).focus();

  async function doLogout() {
    logout.disabled = true;
    try {
      const c = app.connection();
      await c.open();
      await c.request({ type: "logout" });
    } catch (e) {
      // A key already revoked elsewhere (bad_key), or a connection that is no longer that
      // player: the key is of no use any more either way; forget it.
      if (!["bad_key", "not_logged_in"].includes(e.code)) {
        err.textContent = errorText(e);
        logout.disabled = false;
        return;
      }
    }
    store.dropPlayer();
    app.player = null;
    app.accountChanged();
    announce(t("account.logged_out"));
    dlg.close();
  }

  try {
    const c = app.connection();
    await c.open();
    const ans = await c.request({ type: "player", name: app.player.name });
    renderProfile(body, ans.player);
  } catch (e) {
    clear(body);
    err.textContent = errorText(e);
  }
  return dlg;
}

function renderProfile(body, p) {
  clear(body);
  const facts = h("dl", { class: "facts profile-facts", id: "profile-facts" });
  const add = (k, v, id) => facts.append(h("dt", {}, k), h("dd", id ? { id } : {}, v));
  add(t("profile.kind"), t("kind." + p.kind));
  if (p.since) add(t("profile.since"), date(p.since));
  add(t("profile.rating"), ratingText(p.rating), "profile-rating");
  add(t("profile.deals"), t("profile.deals_value", { n: p.deals, played: p.played }), "profile-deals");
  add(t("profile.over_par"), p.over_par && p.over_par.deals ? t("profile.over_par_value", { d: signed(p.over_par.mean), n: p.over_par.deals }) : "—", "profile-over-par");
  if (p.taker) add(t("profile.taker"), p.taker.deals ? t("profile.taker_value", { n: p.taker.deals, rate: pct(p.taker.success_rate), margin: signed(p.taker.mean_margin) }) : "—");
  if (p.defender) add(t("profile.defender"), p.defender.deals ? t("profile.defender_value", { n: p.defender.deals, mean: signed(p.defender.mean_score) }) : "—");
  if (p.total != null) add(t("profile.total"), t("profile.total_value", { total: signed(p.total), mean: signed(p.mean || 0) }));
  const extras = [];
  if (p.petits_au_bout) extras.push(t("profile.petits", { n: p.petits_au_bout }));
  const pg = p.poignees || {};
  const npg = (pg.single || 0) + (pg.double || 0) + (pg.triple || 0);
  if (npg) extras.push(t("profile.poignees", { n: npg }));
  if (p.chelems) extras.push(t("profile.chelems", { n: p.chelems }));
  if (extras.length) add(t("profile.feats"), extras.join(" · "));
  body.append(facts, h("p", { class: "hint" }, t("profile.par_hint")));
}

/** A paged list (history, leaderboard): rows so far, and "Show more" while there is a next page. */
function pager(box, load, renderRows) {
  let rows = [];
  let next = null;
  let total = null;
  async function more(first) {
    const ans = await load(first ? null : next);
    rows = first ? ans.rows : [...rows, ...ans.rows];
    next = ans.next ?? null;
    total = ans.total ?? null;
    clear(box);
    renderRows(box, rows, total);
    if (next) {
      const b = h("button", { type: "button", class: "ghost", id: box.id + "-more" }, t("lobby.more", { n: Math.min(PAGE, total != null ? total - rows.length : PAGE) }));
      b.addEventListener("click", () => {
        b.disabled = true;
        more(false).catch((e) => { box.append(h("p", { class: "form-error", role: "alert" }, errorText(e))); });
      });
      box.append(b);
    }
  }
  return more;
}

/**
 * What the deal review needs of a table view, for a deal seen from the history: the seats by
 * number (the record names no one), ours as "you".
 */
function pastView(seat) {
  const seatName = (s) => (s === seat ? t("seat.you") : t("seat.n", { n: s + 1 }));
  return {
    model: { seat },
    seatName,
    tx: (key, s, params = {}) => t(s === seat && has(key + "_you") ? key + "_you" : key, { name: s === seat ? t("seat.you_inline") : seatName(s), ...params }),
  };
}

/** Step through one deal of the history (its record from the `deal` request). */
async function reviewDeal(app, d, where) {
  try {
    const c = app.connection();
    await c.open();
    const ans = await c.request({ type: "deal", table: d.table, deal_no: d.deal_no });
    const rec = ans.record;
    openReview(pastView(d.seat), { deal_no: d.deal_no, result: rec.result, record: rec });
  } catch (e) {
    where.textContent = errorText(e);
  }
}

/** The player's deals, newest first (the `history` request). */
export async function openHistory(app) {
  const box = h("div", { class: "history", id: "history" }, h("p", { class: "muted" }, t("lobby.loading")));
  const back = h("button", { type: "button", class: "ghost", onclick: () => { dlg.close(); openAccount(app); } }, t("account.back"));
  const err = h("p", { class: "form-error", role: "alert", id: "history-error" });
  const dlg = dialog("history", t("history.title"), h("div", {}, box, err), [back], { class: "wide" });
  dlg.showModal();
  const c = app.connection();
  const load = async (cursor) => {
    await c.open();
    const req = { type: "history", limit: PAGE };
    if (cursor) req.cursor = cursor;
    const ans = await c.request(req);
    return { rows: ans.deals, next: ans.next, total: ans.total };
  };
  const render = (b, deals, total) => {
    if (!deals.length) {
      b.append(h("p", { class: "muted", id: "history-empty" }, t("history.empty")));
      return;
    }
    if (total != null) b.append(h("p", { class: "muted", id: "history-count" }, t("history.count", { n: total })));
    const head = [[t("history.when")], [t("history.table")], [t("history.role")], [t("history.result")], [t("history.score"), "num"], [t("history.par"), "num"], [t("history.over_par"), "num"], [t("history.rating"), "num"]];
    b.append(h("div", { class: "table-wrap" }, h("table", { class: "data-table history-table", id: "history-table" },
      h("caption", { class: "sr-only" }, t("history.title")),
      h("thead", {}, h("tr", {}, head.map(([x, c]) => h("th", { scope: "col", class: c || null }, x)))),
      h("tbody", {}, deals.map((d) => h("tr", {},
        h("td", { class: "when" }, dateTime(d.finished_at)),
        h("th", { scope: "row" }, d.table_name || d.table, " ", h("span", { class: "muted" }, t("history.deal_no", { n: d.deal_no })),
          d.status === "played" ? h("button", { type: "button", class: "small ghost review-past", "aria-label": t("history.review_named", { name: d.table_name || d.table, n: d.deal_no }), onclick: () => reviewDeal(app, d, err) }, t("history.review")) : null),
        h("td", { class: "role" }, d.status === "played" && d.role ? t("history.role." + d.role) + (d.contract ? " · " + t("contract." + d.contract) : "") : t("history.annulled")),
        h("td", { class: "res" }, d.status === "played" ? t(d.won ? "history.won" : "history.lost") : "—"),
        // data-label: the column's name, shown above the figure on a phone (no header row there)
        h("td", { class: "num", "data-label": t("history.score") }, d.score != null ? signed(d.score) : "—"),
        h("td", { class: "num", "data-label": t("history.par") }, d.par != null ? signed(d.par) : "—"),
        h("td", { class: "num", "data-label": t("history.over_par") }, d.over_par != null ? signed(d.over_par) : "—"),
        h("td", { class: "num", "data-label": t("history.rating") }, d.rating && d.rating.delta != null ? signed(Math.round(d.rating.delta * 10) / 10) : "—")))))));
  };
  try {
    await pager(box, load, render)(true);
  } catch (e) {
    clear(box).append(h("p", { class: "form-error", role: "alert" }, errorText(e)));
  }
  return dlg;
}

/** The leaderboard: by rating, by total score, by mean score per deal. */
export async function openLeaderboard(app, by = "rating") {
  const box = h("div", { class: "leaderboard", id: "leaderboard" }, h("p", { class: "muted" }, t("lobby.loading")));
  const choice = h("select", { id: "board-by", "aria-label": t("board.by") },
    ["rating", "total", "mean"].map((x) => h("option", { value: x, selected: x === by }, t("board.by." + x))));
  const back = h("button", { type: "button", class: "ghost", onclick: () => { dlg.close(); openAccount(app); } }, app.player ? t("account.back") : t("account.login"));
  const dlg = dialog("leaderboard", t("board.title"), h("div", {},
    h("div", { class: "row-head" }, h("label", { for: "board-by" }, t("board.by")), choice), box), [back], { class: "wide" });
  dlg.showModal();
  const c = app.connection();
  let minDeals = null;
  const show = async () => {
    const b = choice.value;
    const load = async (cursor) => {
      await c.open();
      const req = { type: "leaderboard", by: b, limit: PAGE };
      if (cursor) req.cursor = cursor;
      const ans = await c.request(req);
      minDeals = ans.min_deals;
      return ans;
    };
    const render = (el, rows) => {
      el.append(h("p", { class: "hint" }, t("board.hint." + b)));
      if (!rows.length) {
        el.append(h("p", { class: "muted", id: "board-empty" }, b === "rating" ? t("board.empty_rating", { n: minDeals ?? 20 }) : t("board.empty")));
        return;
      }
      const figure = (r) => b === "rating" ? ratingText(r.rating) : b === "total" ? signed(r.total ?? 0) : signed(r.mean ?? 0);
      const me = app.player && app.player.name;
      el.append(h("div", { class: "table-wrap" }, h("table", { class: "data-table board-table", id: "board-table" },
        h("caption", { class: "sr-only" }, t("board.title")),
        h("thead", {}, h("tr", {}, [[t("board.rank"), "num"], [t("board.player")], [t("board.deals"), "num"], [t("board.by." + b), "num"], [t("board.over_par"), "num"]].map(([x, c]) => h("th", { scope: "col", class: c || null }, x)))),
        h("tbody", {}, rows.map((r) => h("tr", { class: r.kind === "registered" && r.name === me ? "me" : "" },
          h("td", { class: "num" }, String(r.rank)),
          h("th", { scope: "row" }, r.kind === "ai" ? app.levelName(r.name) : r.name, r.kind !== "registered" ? h("span", { class: "chip kind" }, t("kind." + r.kind)) : null),
          h("td", { class: "num" }, num(r.deals)),
          h("td", { class: "num" }, figure(r)),
          h("td", { class: "num" }, r.over_par != null ? signed(r.over_par) : "—")))))));
    };
    clear(box).append(h("p", { class: "muted" }, t("lobby.loading")));
    try {
      await pager(box, load, render)(true);
    } catch (e) {
      clear(box).append(h("p", { class: "form-error", role: "alert" }, errorText(e)));
    }
  };
  choice.addEventListener("change", show);
  await show();
  return dlg;
}

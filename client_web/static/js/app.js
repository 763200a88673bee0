// The application: start-up, routing (#/ landing, #/t/ID a seat, #/w/ID watching), the landing
// page (quick game, lobby, table creation), and the settings and rules dialogs.

import { h, $, clear, announce } from "./dom.js";
import { t, setLanguage, browserLanguage, currentLanguage, LANGUAGES, num } from "./i18n.js";
import * as S from "./settings.js";
import * as store from "./store.js";
import { connectionFor, originURL, setAccountHooks } from "./net.js";
import { openAccount } from "./account.js";
import { TableView } from "./table.js";
import { openRules } from "./rules.js";
import { errorText, dialog } from "./ui.js";
import { cardSVG } from "./cards.js";

// AI levels offered when the server does not list its own (welcome.ai_levels, PROTOCOL.md 2).
const DEFAULT_LEVELS = ["easy", "normal", "strong"];
const KNOWN_LEVELS = ["random", "heuristic", "strong", "easy", "normal"];
const LOBBY_PAGE = 20; // tables asked for at a time (list_tables.limit)
const HELD_CHECKED = 5; // the most recent tables where we hold a seat token, checked at the start page

// A player's name as the server takes it (PROTOCOL.md 2, hello.name): 1 to 32 characters, at
// least one of them visible, and no control character (C0, DEL, C1, line and paragraph
// separators, bidirectional controls).
const NAME_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const NAME_VISIBLE = /[^\s\p{C}\p{Default_Ignorable_Code_Point}\u2800]/u; // U+2800: the braille blank

/** What is wrong with a typed name ("control", "invisible", "long"), or null (an empty one is the default name). */
export function nameProblem(name) {
  if (!name) return null;
  if (NAME_CONTROL.test(name)) return "control";
  if (!NAME_VISIBLE.test(name)) return "invisible";
  if ([...name].length > 32) return "long";
  return null;
}

/** The server refused our name (invalid_field at $.name, PROTOCOL.md 2 and 8). */
function nameRefused(err) {
  return !!(err && err.code === "invalid_field" && err.details && err.details.path === "$.name");
}

export const app = {
  settings: S.load(),
  name: store.getName(),
  // The account this browser is logged in as ({name, kind}), or null (a guest). From the
  // stored key until the server's welcome confirms it (welcome.player).
  player: (() => {
    const p = store.getPlayer();
    return p ? { name: p.name, kind: p.kind } : null;
  })(),
  keyRefused: false, // the server no longer knew our key: say so once
  accounts: false, // the server speaks accounts (its welcome has `player`, PROTOCOL.md 13)
  conn: null,
  view: null,
  pendingStart: null,
  levels: null, // the server's ai_levels (from welcome or table_created), once known
  aiLevels() {
    const w = this.conn && this.conn.welcome;
    const offered = (w && Array.isArray(w.ai_levels) && w.ai_levels.length && w.ai_levels) || this.levels;
    if (offered) return offered.map((x) => (typeof x === "string" ? { level: x } : x)).filter((x) => x && x.level);
    return DEFAULT_LEVELS.map((level) => ({ level }));
  },
  /** A level's description in the player's language (the server's own text for a level we do not know). */
  levelDescription(level) {
    if (KNOWN_LEVELS.includes(level)) return t("ai_desc." + level);
    const x = this.aiLevels().find((l) => l.level === level);
    return (x && x.description) || "";
  },
  defaultLevel() {
    const levels = this.aiLevels().map((x) => x.level);
    for (const l of ["normal", "heuristic"]) if (levels.includes(l)) return l;
    return levels[0];
  },
  levelName(level) {
    return KNOWN_LEVELS.includes(level) ? t("ai." + level) : level;
  },
  displayName() {
    if (this.player && this.player.name) return this.player.name;
    const name = (this.name || "").trim();
    return name && !nameProblem(name) ? name : t("landing.default_name");
  },
  /** A human seat's name as others see it: a guest's is marked (anyone may type any name). */
  humanName(s) {
    if (s.identity === "guest") return t("seat.guest_name", { name: s.name });
    if (s.identity === "bot") return t("seat.bot_name", { name: s.name });
    return s.name;
  },
  /** Logged in or out: the top bar and the landing page say who we are. */
  accountChanged() {
    renderChrome();
    if (this.view && this.view.accountChanged) this.view.accountChanged();
  },
  connection() {
    this.conn = connectionFor(originURL(), this.displayName().slice(0, 32));
    return this.conn;
  },
  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  async setLanguage(code) {
    this.settings.lang = code;
    S.save(this.settings);
    await setLanguage(code);
    renderChrome();
    if (this.view && this.view.relabel) this.view.relabel();
    else route();
  },
};
window.__atout = app; // for the tests and the curious: the live state, read-only by convention

setAccountHooks({
  key: () => {
    const p = store.getPlayer();
    return p ? p.key : null;
  },
  welcome: (w, sentKey) => {
    const was = app.player ? `${app.player.name}/${app.player.kind}` : "";
    if (w.player) {
      app.player = { name: w.player.name, kind: w.player.kind, since: w.player.since };
      const p = store.getPlayer();
      if (p && (p.name !== w.player.name || p.kind !== w.player.kind)) store.setPlayer({ ...p, name: w.player.name, kind: w.player.kind });
    } else if (sentKey) {
      // A server that keeps no accounts ignores the key (PROTOCOL.md 13): we play as a guest
      // there, and keep the key for when it does.
      app.player = null;
    }
    const now = app.player ? `${app.player.name}/${app.player.kind}` : "";
    const accounts = "player" in w;
    if (now !== was || accounts !== app.accounts) {
      app.accounts = accounts;
      app.accountChanged();
    }
  },
  refused: () => {
    store.dropPlayer();
    app.player = null;
    app.keyRefused = true;
    app.accountChanged();
  },
});

// ----------------------------------------------------------------------------------- chrome

function renderChrome() {
  const header = clear($("#top"));
  header.append(
    h("a", { class: "brand", href: "#/", "aria-label": t("nav.home") },
      h("span", { class: "brand-mark", "aria-hidden": "true" }, "A"),
      h("span", { class: "brand-name" }, "Atout")),
    h("nav", { class: "top-actions", "aria-label": t("nav.label") },
      h("button", { type: "button", class: "ghost", id: "open-rules", onclick: () => openRules(app) }, t("nav.rules")),
      !app.player && !app.accounts ? null : app.player
        ? h("button", { type: "button", class: "ghost account-btn", id: "open-account", "aria-label": t("account.open_named", { name: app.player.name }), onclick: () => openAccount(app) },
          h("span", { class: "acc-name" }, app.player.name))
        : h("button", { type: "button", class: "ghost account-btn", id: "open-account", onclick: () => openAccount(app) }, t("account.login")),
      h("button", { type: "button", class: "ghost", id: "open-settings", onclick: openSettings }, t("nav.settings"))),
  );
  document.title = t("app.title");
  $("#skip").textContent = t("nav.skip");
  $("#noscript-hint") && $("#noscript-hint").remove();
}

// ----------------------------------------------------------------------------------- routing

function route() {
  const m = /^#\/([tw])\/([A-Za-z0-9_-]{1,64})$/.exec(location.hash);
  if (app.view) {
    app.view.dispose();
    app.view = null;
  }
  const main = clear($("#view"));
  if (m) {
    app.view = new TableView(app, main, m[2], m[1] === "w" ? "watch" : "seat");
  } else {
    app.view = new Landing(main);
  }
  app.view.start();
}

// ----------------------------------------------------------------------------------- landing

class Landing {
  constructor(root) {
    this.root = root;
    this.tables = [];
    this.next = null;
    this.total = null;
    this.error = null;
    this.loading = true;
    this.held = []; // open tables where this browser holds a seat: [{table, name}]
    this.onOpen = () => {
      this.refresh();
      this.checkHeld();
    };
    this.onState = (e) => {
      if (e.detail.state !== "reconnecting" || !e.detail.code) return;
      this.error = e.detail.code === 4010 ? t("net.crowded") : t("err.connect");
      this.loading = false;
      this.renderLobby();
    };
  }

  start() {
    this.render();
    const c = app.connection();
    c.addEventListener("open", this.onOpen);
    c.addEventListener("state", this.onState);
    c.open().catch((e) => {
      this.error = e && e.code === "too_many_connections" ? t("net.crowded") : t("err.connect");
      this.loading = false;
      this.renderLobby();
    });
    if (c.state === "open") {
      this.refresh();
      this.checkHeld();
    }
  }

  /**
   * The tables where this browser still holds a seat (after the browser's Back during a deal,
   * or a page opened afresh within the grace period): each is offered as "Return to your table".
   * A table is asked about by watching it for a moment (its snapshot says whether it is open and
   * our seat still a player's), or it answers that this connection sits there already.
   */
  async checkHeld() {
    const c = app.conn;
    if (!c || c.state !== "open" || this.checking) return;
    this.checking = true;
    const found = [];
    try {
      for (const saved of store.heldSeats().slice(0, HELD_CHECKED)) {
        const open = await this.heldOpen(c, saved);
        if (open) found.push({ table: saved.table, name: open.name || saved.name || null });
      }
    } finally {
      this.checking = false;
    }
    this.held = found;
    this.checked = true;
    this.renderReturn();
  }

  /** Whether the table of a stored seat is open with our seat a player's: {name} or null. */
  async heldOpen(c, saved) {
    let onSnap = null;
    const snap = new Promise((resolve) => {
      onSnap = (e) => { if (e.detail.type === "snapshot" && e.detail.table === saved.table) resolve(e.detail); };
      c.addEventListener("message", onSnap);
      setTimeout(() => resolve(null), 5000);
    });
    try {
      await c.request({ type: "watch", table: saved.table });
    } catch (e) {
      c.removeEventListener("message", onSnap);
      if (e.code === "already_seated") return { name: saved.name }; // this connection sits there (Back)
      if (e.code === "wrong_worker" || e.code === "table_moving") return { name: saved.name }; // elsewhere: the table page will see
      return null; // no_such_table (closed), or we cannot tell
    }
    const m = await snap;
    c.removeEventListener("message", onSnap);
    c.request({ type: "unwatch", table: saved.table }).catch(() => {});
    if (!m || !m.info || m.info.state === "closed") return null;
    const seat = m.info.seats && m.info.seats[saved.seat];
    return seat && seat.kind === "human" ? { name: m.info.name } : null;
  }

  renderReturn() {
    const box = this.returnBox;
    if (!box) return;
    clear(box);
    box.hidden = !this.held.length;
    if (this.checked) box.dataset.checked = "true"; // (for the tests: the tables were asked about)
    this.held.forEach((x, i) => box.append(h("div", { class: "return-row" },
      h("p", {}, x.name ? t("landing.return_at", { name: x.name }) : t("landing.return_seat")),
      h("a", { class: "button primary", href: "#/t/" + x.table, id: i === 0 ? "return-table" : null, dataset: { table: x.table } }, t("landing.return")))));
  }

  dispose() {
    if (app.conn) {
      app.conn.removeEventListener("open", this.onOpen);
      app.conn.removeEventListener("state", this.onState);
    }
  }

  relabel() {
    clear(this.root);
    this.render();
    this.renderLobby();
  }

  /**
   * Logged in or out, or the server turned out to speak accounts: only the name field changes
   * (a guest's typed name, the focus and an open "Play with friends" panel stay as they are).
   */
  accountChanged() {
    const box = this.root.querySelector("#name-box");
    if (!box) return;
    const input = box.querySelector("#name");
    const hint = box.querySelector("#name-hint");
    if (input && !app.player && !input.readOnly) {
      if (hint) hint.remove();
      const fresh = this.nameHint();
      if (fresh) box.append(fresh);
      input.setAttribute("aria-describedby", "name-hint");
    } else {
      clear(box).append(...this.nameField());
    }
    const c = this.root.querySelector("#c-name");
    if (c) c.placeholder = t("quick.table_name", { name: app.displayName() });
  }

  /** Logged in, the name is the account's; a guest may type any name (shown as a guest's). */
  nameHint() {
    if (!app.player && !app.accounts) return null;
    return app.player
      ? h("p", { class: "hint", id: "name-hint" }, t("landing.name_account"), " ",
        h("button", { type: "button", class: "linklike", id: "name-account", onclick: () => openAccount(app) }, t("account.profile")))
      : h("p", { class: "hint", id: "name-hint" }, app.keyRefused ? t("account.key_refused") + " " : "", t("landing.name_guest"), " ",
        h("button", { type: "button", class: "linklike", id: "name-login", onclick: () => openAccount(app) }, t("account.login_or_register")));
  }

  /**
   * Say what is wrong with the name next to its field (marked invalid, and focused): problem is
   * nameProblem()'s answer, or null for a name the server refused for a reason we did not see.
   */
  nameInvalid(problem) {
    const input = this.root.querySelector("#name");
    const box = this.root.querySelector("#name-box");
    if (!input || !box) return;
    let err = box.querySelector("#name-error");
    if (!err) {
      err = h("p", { class: "form-error", id: "name-error", role: "alert" });
      input.after(err);
    }
    err.textContent = t(problem ? "landing.name_" + problem : "landing.name_invalid");
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", ["name-error", box.querySelector("#name-hint") ? "name-hint" : null].filter(Boolean).join(" "));
    input.focus();
  }

  nameValid() {
    const input = this.root.querySelector("#name");
    const err = this.root.querySelector("#name-error");
    if (err) err.remove();
    if (!input || input.getAttribute("aria-invalid") !== "true") return;
    input.removeAttribute("aria-invalid");
    if (this.root.querySelector("#name-hint")) input.setAttribute("aria-describedby", "name-hint");
    else input.removeAttribute("aria-describedby");
  }

  /** Check the typed name before it goes to the server; false (and said) when it cannot. */
  checkName() {
    if (app.player) return true;
    const input = this.root.querySelector("#name");
    const problem = nameProblem(input ? input.value.trim() : (app.name || "").trim());
    if (problem) this.nameInvalid(problem);
    else this.nameValid();
    return !problem;
  }

  nameField() {
    const nameInput = h("input", {
      id: "name", name: "name", type: "text", maxlength: "32", autocomplete: "nickname",
      value: app.player ? app.player.name : app.name, placeholder: t("landing.default_name"), required: false,
      readonly: app.player ? true : null, "aria-describedby": app.player || app.accounts ? "name-hint" : null,
    });
    nameInput.addEventListener("change", () => {
      if (app.player) return;
      app.name = nameInput.value.trim().slice(0, 32);
      store.setName(app.name);
    });
    nameInput.addEventListener("input", () => {
      if (!nameProblem(nameInput.value.trim())) this.nameValid();
      const c = this.root.querySelector("#c-name");
      const name = nameInput.value.trim().slice(0, 32) || t("landing.default_name");
      if (c) c.placeholder = t("quick.table_name", { name });
    });
    return [nameInput, this.nameHint()];
  }

  render() {
    const s = app.settings;
    const lang = h("select", { id: "lang", name: "lang" },
      LANGUAGES.map((l) => h("option", { value: l.code, selected: l.code === currentLanguage(), lang: l.code }, l.name)));
    lang.addEventListener("change", () => app.setLanguage(lang.value));
    const length = h("select", { id: "series", name: "series" },
      [["d1", t("series.one")], ["d4", t("series.deals", { n: 4 })], ["d8", t("series.deals", { n: 8 })],
        ["s500", t("series.score", { n: 500 })], ["s1000", t("series.score", { n: 1000 })]]
        .map(([v, label]) => h("option", { value: v }, label)));
    length.value = sessionStorage.getItem("atout.series") || "d1";
    const level = h("select", { id: "level", name: "level", "aria-describedby": "level-desc" },
      app.aiLevels().map((x) => h("option", { value: x.level }, app.levelName(x.level))));
    level.value = sessionStorage.getItem("atout.level") || app.defaultLevel();
    if (!level.value) level.value = app.defaultLevel();
    const levelDesc = h("p", { class: "hint level-desc", id: "level-desc" }, app.levelDescription(level.value));
    level.addEventListener("change", () => { levelDesc.textContent = app.levelDescription(level.value); });
    this.levelSelect = level;
    const play = h("button", { type: "submit", class: "primary big", id: "play-ai" }, t("landing.play_ai"));
    const form = h("form", { class: "quick", id: "quick", "aria-labelledby": "quick-title" },
      h("h2", { id: "quick-title" }, t("landing.quick_title")),
      h("p", { class: "lede" }, t("landing.tagline")),
      h("div", { class: "fields" },
        h("label", { for: "name" }, t("landing.name")), h("div", { class: "with-desc", id: "name-box" }, ...this.nameField()),
        h("label", { for: "lang" }, t("landing.language")), lang,
        h("label", { for: "series" }, t("landing.series")), length,
        h("label", { for: "level" }, t("landing.level")), h("div", { class: "with-desc" }, level, levelDesc)),
      play,
      h("p", { class: "form-error", role: "alert", id: "quick-error" }));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!this.checkName()) return;
      if (!app.player) {
        app.name = form.querySelector("#name").value.trim();
        store.setName(app.name);
      }
      sessionStorage.setItem("atout.series", length.value);
      sessionStorage.setItem("atout.level", level.value);
      play.disabled = true;
      try {
        const opts = { name: t("quick.table_name", { name: app.displayName() }), public: false, ai: level.value };
        const v = length.value;
        if (v[0] === "d") opts.deals = Number(v.slice(1));
        else opts.target_score = Number(v.slice(1));
        await this.createAndSit(opts, true);
      } catch (err) {
        play.disabled = false;
        if (nameRefused(err)) {
          $("#quick-error").textContent = "";
          this.nameInvalid(nameProblem(app.name));
        } else $("#quick-error").textContent = errorText(err);
      }
    });

    this.lobbyBox = h("section", { class: "lobby", "aria-labelledby": "lobby-title" });
    this.returnBox = h("section", { class: "return-box", id: "return-box", "aria-label": t("landing.return"), hidden: true });
    this.root.append(
      h("div", { class: "landing" },
        this.returnBox,
        h("section", { class: "hero" },
          h("div", { class: "hero-text" },
            h("h1", {}, t("landing.title")),
            h("p", { class: "sub" }, t("landing.subtitle"))),
          h("div", { class: "hero-cards", "aria-hidden": "true" })),
        form,
        this.createForm(),
        this.lobbyBox,
        h("section", { class: "join-id panel", "aria-labelledby": "joinid-title" },
          h("h2", { id: "joinid-title" }, t("landing.join_title")),
          this.joinForm())));
    const heroBox = this.root.querySelector(".hero-cards");
    for (const c of ["T21", "EX", "HK", "T1"]) heroBox.append(h("span", { class: "hero-card" }, cardSVG(c, currentLanguage(), t("card.excuse_short"))));
    this.renderReturn();
    this.renderLobby();
  }

  joinForm() {
    const input = h("input", { id: "join-id", type: "text", autocomplete: "off", spellcheck: "false", placeholder: t("landing.join_placeholder") });
    const f = h("form", { class: "inline" },
      h("label", { for: "join-id", class: "sr-only" }, t("landing.join_label")), input,
      h("button", { type: "submit" }, t("landing.join_go")));
    f.addEventListener("submit", (e) => {
      e.preventDefault();
      const v = input.value.trim();
      const m = /([A-Za-z0-9_-]{6,64})\s*$/.exec(v.replace(/.*#\/[tw]\//, ""));
      if (m) app.go("#/t/" + m[1]);
    });
    return f;
  }

  createForm() {
    const levels = app.aiLevels();
    const sel = (id, label) => [h("label", { for: id }, label),
      h("select", { id, name: id }, levels.map((x) => h("option", { value: x.level, selected: x.level === app.defaultLevel(), title: app.levelDescription(x.level) }, app.levelName(x.level))))];
    const f = h("form", { class: "create", id: "create" },
      h("div", { class: "fields" },
        h("label", { for: "c-name" }, t("create.name")),
        h("input", { id: "c-name", type: "text", maxlength: "64", placeholder: t("quick.table_name", { name: app.displayName() }) }),
        h("span", { class: "label" }, t("create.visibility")),
        h("div", { class: "radios", role: "radiogroup", "aria-label": t("create.visibility") },
          h("label", {}, h("input", { type: "radio", name: "c-public", value: "1", checked: true }), t("create.public")),
          h("label", {}, h("input", { type: "radio", name: "c-public", value: "0" }), t("create.private"))),
        h("span", { class: "label" }, t("create.end")),
        h("div", { class: "radios end" },
          h("span", { class: "end-choice" },
            h("label", {}, h("input", { type: "radio", name: "c-end", value: "deals", checked: true }), t("create.deals")),
            h("input", { id: "c-deals", type: "number", min: "1", max: "1000", value: "4", "aria-label": t("create.deals_n") }),
            h("span", {}, t("create.deals_unit"))),
          h("span", { class: "end-choice" },
            h("label", {}, h("input", { type: "radio", name: "c-end", value: "score" }), t("create.target")),
            h("input", { id: "c-target", type: "number", min: "1", max: "100000", value: "500", "aria-label": t("create.target_n") }),
            h("span", {}, t("create.target_unit")))),
        h("label", { for: "c-timer" }, t("create.timer")),
        h("select", { id: "c-timer" }, [["", t("create.no_timer")], ["30", "30 s"], ["60", "60 s"], ["120", "2 min"], ["300", "5 min"]]
          .map(([v, l]) => h("option", { value: v }, l))),
        ...sel("c-ai1", t("create.ai_right")),
        ...sel("c-ai2", t("create.ai_across")),
        ...sel("c-ai3", t("create.ai_left")),
        h("span", { class: "label" }, t("create.you")),
        h("label", { class: "check" }, h("input", { type: "checkbox", id: "c-sit", checked: true, onchange: (e) => {
          // Not sitting: the fourth seat needs a level of its own (it took the one across).
          for (const el of f.querySelectorAll(".ai-you")) el.hidden = e.target.checked;
        } }), t("create.sit")),
        ...sel("c-ai0", t("create.ai_you")).map((el) => { el.classList.add("ai-you"); el.hidden = true; return el; })),
      h("button", { type: "submit", class: "primary", id: "create-go" }, t("create.go")),
      h("p", { class: "form-error", role: "alert", id: "create-error" }));
    f.addEventListener("submit", async (e) => {
      e.preventDefault();
      const val = (id) => f.querySelector("#" + id).value;
      const opts = {
        public: f.querySelector('input[name="c-public"]:checked').value === "1",
        // Seat 0 is the creator's; an AI there only until a player sits, or for good when the
        // creator watches: then it has its own field.
        ai: [f.querySelector("#c-sit").checked ? val("c-ai2") : val("c-ai0"), val("c-ai1"), val("c-ai2"), val("c-ai3")],
      };
      const name = val("c-name").trim();
      opts.name = name || t("quick.table_name", { name: app.displayName() });
      if (f.querySelector('input[name="c-end"]:checked').value === "deals") opts.deals = Number(val("c-deals")) || 4;
      else opts.target_score = Number(val("c-target")) || 500;
      if (val("c-timer")) opts.turn_timer = Number(val("c-timer"));
      if (!this.checkName()) return;
      try {
        await this.createAndSit(opts, false, f.querySelector("#c-sit").checked);
      } catch (err) {
        if (nameRefused(err)) this.nameInvalid(nameProblem(app.name));
        else f.querySelector("#create-error").textContent = errorText(err);
      }
    });
    return h("details", { class: "panel create-box", id: "create-box" },
      h("summary", {}, h("span", { class: "h2like" }, t("create.title")), h("span", { class: "hint" }, t("create.hint"))), f);
  }

  async createAndSit(opts, start, sit = true) {
    const c = app.connection();
    await c.open();
    const created = await c.request({ type: "create_table", ...opts });
    if (Array.isArray(created.ai_levels) && created.ai_levels.length) app.levels = created.ai_levels;
    const info = created.table;
    if (info.url && info.url !== c.url) store.setSeat(info.table, { url: info.url });
    store.setSeat(info.table, { creator: true });
    if (start) app.pendingStart = info.table;
    app.go((sit ? "#/t/" : "#/w/") + info.table);
  }

  async refresh(more = false) {
    const c = app.conn;
    if (!c || c.state !== "open") return;
    try {
      const req = { type: "list_tables", limit: LOBBY_PAGE };
      if (more && this.next) req.cursor = this.next;
      const ans = await c.request(req);
      this.tables = more ? [...this.tables, ...ans.tables] : ans.tables;
      this.next = ans.next ?? null;
      this.total = ans.total ?? null;
      this.error = null;
    } catch (e) {
      this.error = errorText(e);
    }
    this.loading = false;
    this.renderLobby();
    // The levels of this server may differ from the defaults (welcome.ai_levels).
    const lv = this.levelSelect;
    const offered = app.aiLevels().map((x) => x.level).join(" ");
    if (lv && [...lv.options].map((o) => o.value).join(" ") !== offered) {
      clear(this.root);
      this.render();
    }
  }

  renderLobby() {
    const box = this.lobbyBox;
    if (!box) return;
    clear(box);
    const refresh = h("button", { type: "button", class: "ghost small", id: "lobby-refresh", onclick: () => this.refresh() }, t("lobby.refresh"));
    box.append(h("div", { class: "row-head" }, h("h2", { id: "lobby-title" }, t("lobby.title")), refresh));
    if (this.error) {
      const c = app.conn;
      const retry = c && c.state !== "open" ? h("button", { type: "button", class: "small", id: "lobby-retry", onclick: () => c.reconnectNow().catch(() => {}) }, t("net.retry")) : null;
      box.append(h("p", { class: "form-error", role: "alert", id: "lobby-error" }, this.error, " ", retry));
    }
    if (this.loading) {
      box.append(h("p", { class: "muted" }, t("lobby.loading")));
      return;
    }
    if (!this.tables.length) {
      box.append(h("p", { class: "muted", id: "lobby-empty" }, t("lobby.empty")));
      return;
    }
    const rows = this.tables.map((ti) => {
      const humans = ti.seats.filter((s) => s.kind === "human");
      const free = ti.seats.some((s) => s.kind !== "human");
      // Before its first deal a table says what it will play ("0 of 4" read as a count).
      const deal = !ti.deal_no ? (ti.deals ? t("bar.deals", { n: ti.deals }) : t("bar.target", { target: ti.target_score }))
        : ti.deals ? t("lobby.deal_of", { n: ti.deal_no, total: ti.deals }) : t("lobby.deal_target", { n: ti.deal_no, target: ti.target_score });
      return h("tr", {},
        h("th", { scope: "row" }, ti.name),
        h("td", {}, t("state." + ti.state)),
        h("td", {}, humans.map((s) => app.humanName(s)).join(", ") || "—", " ", h("span", { class: "muted" }, t("lobby.humans", { n: humans.length }))),
        h("td", {}, deal),
        h("td", {}, String(ti.spectators)),
        h("td", { class: "actions" },
          free && ti.state !== "finished" ? h("a", { class: "button small", href: "#/t/" + ti.table, "aria-label": t("lobby.join_named", { name: ti.name }) }, t("lobby.join")) : null,
          h("a", { class: "button small ghost", href: "#/w/" + ti.table, "aria-label": t("lobby.watch_named", { name: ti.name }) }, t("lobby.watch"))));
    });
    box.append(h("div", { class: "table-wrap" }, h("table", { class: "lobby-table" },
      h("caption", { class: "sr-only" }, t("lobby.title")),
      h("thead", {}, h("tr", {}, [t("lobby.name"), t("lobby.state"), t("lobby.players"), t("lobby.deal"), t("lobby.watchers"), h("span", { class: "sr-only" }, t("lobby.actions"))].map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", {}, rows))));
    if (this.total != null && this.total > LOBBY_PAGE) box.append(h("p", { class: "muted", id: "lobby-count" }, t("lobby.count", { shown: this.tables.length, n: this.total })));
    if (this.next) box.append(h("button", { type: "button", class: "ghost", id: "lobby-more", onclick: () => this.refresh(true) }, t("lobby.more", { n: Math.min(LOBBY_PAGE, this.total != null ? this.total - this.tables.length : LOBBY_PAGE) })));
  }
}

// ----------------------------------------------------------------------------------- settings

function openSettings() {
  const s = app.settings;
  const slider = (key, label, hint) => {
    const id = "set-" + key;
    const out = h("output", { for: id, id: id + "-out" }, s[key] + " %");
    const input = h("input", { type: "range", id, min: "0", max: "100", step: "5", value: String(s[key]), "aria-describedby": hint ? id + "-hint" : null });
    input.addEventListener("input", () => {
      s[key] = Number(input.value);
      out.textContent = s[key] + " %";
      S.apply(s);
      S.save(s);
      if (app.view && app.view.refreshLayout) app.view.refreshLayout();
    });
    return [h("label", { for: id }, label), h("div", { class: "range" }, input, out), hint ? h("p", { class: "hint", id: id + "-hint" }, hint) : null];
  };
  const lang = h("select", { id: "set-lang" }, LANGUAGES.map((l) => h("option", { value: l.code, lang: l.code, selected: l.code === currentLanguage() }, l.name)));
  lang.addEventListener("change", async () => {
    await app.setLanguage(lang.value);
    dlg.close();
    openSettings();
  });
  const schemeSel = h("select", { id: "set-scheme" }, [["auto", t("settings.scheme_auto")], ["light", t("settings.scheme_light")], ["dark", t("settings.scheme_dark")]]
    .map(([v, l]) => h("option", { value: v, selected: s.scheme === v }, l)));
  schemeSel.addEventListener("change", () => {
    s.scheme = schemeSel.value;
    S.apply(s);
    S.save(s);
  });
  const reset = h("button", { type: "button", class: "ghost", id: "set-reset" }, t("settings.reset"));
  reset.addEventListener("click", () => {
    const keepLang = s.lang;
    Object.assign(s, S.DEFAULTS, { lang: keepLang });
    S.apply(s);
    S.save(s);
    dlg.close();
    openSettings();
  });
  // A sample of the table, to see the colours, the grain and the card size change.
  const preview = h("div", { class: "settings-preview", "aria-hidden": "true" },
    h("ul", { class: "mini-cards" }, ["T21", "EX", "HK", "SQ", "D1"].map((c) => h("li", {}, h("span", { class: "mini" }, cardSVG(c, currentLanguage(), t("card.excuse_short")))))),
    h("p", {}, t("settings.preview")));
  const dlg = dialog("settings", t("settings.title"),
    h("div", { class: "fields settings" }, preview,
      h("label", { for: "set-lang" }, t("settings.language")), lang,
      ...slider("contrast", t("settings.contrast")),
      ...slider("grain", t("settings.grain")),
      ...slider("temperature", t("settings.temperature"), t("settings.temperature_hint")),
      ...slider("cardSize", t("settings.card_size")),
      ...slider("animation", t("settings.animation"), window.matchMedia("(prefers-reduced-motion: reduce)").matches ? t("settings.reduced_motion") : t("settings.animation_hint")),
      h("label", { for: "set-scheme" }, t("settings.scheme")), schemeSel),
    [reset]);
  dlg.showModal();
}

// ----------------------------------------------------------------------------------- start

async function boot() {
  S.apply(app.settings);
  for (const q of ["(prefers-color-scheme: dark)", "(prefers-reduced-motion: reduce)"]) {
    window.matchMedia(q).addEventListener("change", () => S.apply(app.settings));
  }
  await setLanguage(app.settings.lang || browserLanguage());
  renderChrome();
  window.addEventListener("hashchange", route);
  // The skip link's href (#view) would change the address, which the router reads as the
  // landing page: it moves the focus itself, to the decision at hand if there is one.
  $("#skip").addEventListener("click", (e) => {
    e.preventDefault();
    const target = (app.view && app.view.skipTarget && app.view.skipTarget()) || $("#view");
    target.focus();
  });
  route();
  document.documentElement.classList.add("ready");
}

boot();
export { announce, num };

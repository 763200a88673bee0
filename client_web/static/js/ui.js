// Shared pieces of the interface: server errors in words, and modal dialogs.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** A server error (or a lost connection) in the player's language. */
export function errorText(err) {
  const code = err && err.code ? err.code : "internal";
  const key = "code." + code;
  const known = ["connection_lost", "replaced", "no_such_table", "table_full", "seat_taken", "already_seated", "not_seated",
    "not_your_seat", "not_your_turn", "wrong_phase", "wrong_state", "illegal_action", "bad_token", "not_allowed",
    "limit_reached", "rate_limited", "shutting_down", "storage_unavailable", "invalid_field", "unsupported_version",
    "no_such_deal", "unknown_type", "internal", "wrong_worker", "table_moving", "too_many_connections",
    // accounts (PROTOCOL.md 13)
    "name_taken", "bad_password", "login_failed", "bad_key", "not_logged_in", "no_such_player", "not_supported"];
  const wait = err && err.details && Number(err.details.retry_after);
  if (code === "rate_limited" && wait > 0) return t("code.rate_limited_wait", { n: Math.ceil(wait) });
  return known.includes(code) ? t(key) : t("code.internal");
}

/** A modal <dialog> with a title, a body and buttons; removed from the page when closed. */
export function dialog(id, title, body, buttons = [], opts = {}) {
  const old = document.getElementById("dlg-" + id);
  if (old) old.remove();
  const close = h("button", { type: "button", class: "ghost dlg-close", "aria-label": t("dialog.close") }, "×");
  const d = h("dialog", { id: "dlg-" + id, class: "dlg " + (opts.class || ""), "aria-labelledby": "dlg-" + id + "-title" },
    h("div", { class: "dlg-head" }, h("h2", { id: "dlg-" + id + "-title" }, title), close),
    h("div", { class: "dlg-body" }, body),
    buttons.length ? h("div", { class: "dlg-buttons" }, buttons) : null);
  close.addEventListener("click", () => d.close());
  d.addEventListener("close", () => {
    d.remove();
    if (opts.onclose) opts.onclose();
  });
  document.body.append(d);
  return d;
}


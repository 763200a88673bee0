// Small DOM helpers. Text always goes in through textContent (player names come from others).

/** h("button", {class: "x", onclick: f, "aria-label": "..."}, "text", child, ...) */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

export function clear(e) {
  while (e.firstChild) e.firstChild.remove();
  return e;
}

/** Announce a sentence to screen readers (the polite live region). */
export function announce(text) {
  const live = document.getElementById("live");
  if (!live) return;
  const p = document.createElement("p");
  p.textContent = text;
  live.append(p);
  while (live.childElementCount > 5) live.firstElementChild.remove();
}

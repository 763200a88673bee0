// The rules panel: the player rule texts of the server (/texts/rules.{lang}.json, shared with
// the terminal client), in the chosen language; a refusal opens it at its rule's paragraph.

import { h } from "./dom.js";
import { t, currentLanguage } from "./i18n.js";
import { dialog } from "./ui.js";

const cache = new Map();

let index = null;

async function load(lang) {
  // /texts/index.json lists the languages the server has texts for: never ask for a missing one.
  if (!index) index = fetch("/texts/index.json").then((r) => (r.ok ? r.json() : { languages: [] })).catch(() => null);
  const idx = await index;
  if (!idx) {
    index = null;
    return null;
  }
  if (!idx.languages.includes(lang)) return null;
  if (!cache.has(lang)) {
    cache.set(lang, fetch(`/texts/rules.${lang}.json`, { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null));
  }
  const v = await cache.get(lang);
  if (v == null) cache.delete(lang); // try again next time
  return v;
}

/** The paragraph explaining a rule number: exact match on its rules, else by prefix (R7.5 -> R7). */
export function findParagraph(texts, rule) {
  if (!texts || !rule) return null;
  const all = texts.sections.flatMap((s) => s.paragraphs);
  return all.find((p) => (p.rules || []).includes(rule))
    || all.find((p) => (p.rules || []).includes(rule.split(".")[0]))
    || all.find((p) => (p.rules || []).some((r) => r.split(".")[0] === rule.split(".")[0]))
    || null;
}

export async function openRules(app, rule = null) {
  const lang = currentLanguage();
  const body = h("div", { class: "rules", id: "rules" }, h("p", { class: "muted" }, t("rules.loading")));
  const dlg = dialog("rules", t("rules.title"), body, [], { class: "wide rules-dlg" });
  dlg.showModal();
  const texts = await load(lang);
  body.replaceChildren();
  if (!texts) {
    body.append(h("p", { role: "alert", id: "rules-missing" }, t("rules.unavailable")));
    return dlg;
  }
  const target = findParagraph(texts, rule);
  const toc = h("nav", { class: "rules-toc", "aria-label": t("rules.contents") },
    h("ol", {}, texts.sections.map((s) => h("li", {}, h("a", { href: "#rules-" + s.id, onclick: (e) => { e.preventDefault(); body.querySelector("#rules-" + CSS.escape(s.id)).scrollIntoView(); } }, s.title)))));
  body.append(h("h3", { class: "sr-only" }, texts.title), toc);
  for (const s of texts.sections) {
    const sec = h("section", { id: "rules-" + s.id, "aria-labelledby": "rules-h-" + s.id }, h("h3", { id: "rules-h-" + s.id }, s.title));
    for (const p of s.paragraphs) {
      const para = h("p", { id: "rule-" + p.id, class: p === target ? "target" : "", tabindex: p === target ? "-1" : null, dataset: { rules: (p.rules || []).join(" ") } },
        p.text, " ", (p.rules || []).length ? h("span", { class: "rule-refs" }, "(" + p.rules.join(", ") + ")") : null);
      sec.append(para);
    }
    body.append(sec);
  }
  if (target) {
    const el = body.querySelector("#rule-" + CSS.escape(target.id));
    if (!el || !dlg.open) return dlg;
    el.scrollIntoView({ block: "center" });
    el.focus({ preventScroll: true });
  }
  return dlg;
}

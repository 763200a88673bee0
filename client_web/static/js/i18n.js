// Translations: English, French, Czech (one module each, loaded on demand). t(key, params)
// fills {name} placeholders; a template may be an object of plural forms keyed by
// Intl.PluralRules categories ({one, few, many, other}) chosen by params.n (ordinal forms when
// params.ordinal is set).

export const LANGUAGES = [
  { code: "en", name: "English" },
  { code: "fr", name: "Français" },
  { code: "cs", name: "Čeština" },
];

let lang = "en";
let table = {};
let namer = null; // the language's own card names, if it has them
let articled = null; // the language's card names with their article ("le six de cœur"), if any
let plurals = new Intl.PluralRules("en");
let ordinals = new Intl.PluralRules("en", { type: "ordinal" });
let numbers = new Intl.NumberFormat("en", { maximumFractionDigits: 1 });
/** Keys asked for but missing in the current language (tests assert this stays empty). */
export const missing = new Set();
window.__atoutMissing = missing;

/** The first of the browser's preferred languages we speak, else English. */
export function browserLanguage() {
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const code = String(l).slice(0, 2).toLowerCase();
    if (LANGUAGES.some((x) => x.code === code)) return code;
  }
  return "en";
}

export async function setLanguage(code) {
  if (!LANGUAGES.some((x) => x.code === code)) code = "en";
  const mod = await import(`./lang/${code}.js`);
  lang = code;
  table = mod.default;
  namer = mod.cardName || null;
  articled = mod.cardWithArticle || null;
  plurals = new Intl.PluralRules(code);
  ordinals = new Intl.PluralRules(code, { type: "ordinal" });
  numbers = new Intl.NumberFormat(code, { maximumFractionDigits: 1 });
  document.documentElement.lang = code;
}

export const currentLanguage = () => lang;

/** A number as the language writes it (45.5 -> "45,5" in French and Czech). */
export const num = (x) => numbers.format(x).replace(/^-/, "−");

/** A signed number: +58, −174. */
export const signed = (x) => (x > 0 ? "+" : x < 0 ? "−" : "") + numbers.format(Math.abs(x));

export function t(key, params = {}) {
  let tpl = table[key];
  if (tpl === undefined) {
    missing.add(`${lang}:${key}`);
    return key;
  }
  if (typeof tpl === "object") {
    // params.ordinal: the forms are ordinal ones (1st, 2nd, 3rd, 4th; 1er, 2e).
    const cat = (params.ordinal ? ordinals : plurals).select(Number(params.n));
    tpl = tpl[cat] ?? tpl.other;
  }
  return tpl.replace(/\{(\w+)\}/g, (m, k) => {
    if (!(k in params)) return m;
    const v = params[k];
    return typeof v === "number" ? num(v) : String(v);
  });
}

/** The current language's own name for a card, or null (cards.js asks this first). */
t.cardName = (code) => (namer ? namer(code) : null);

/** A card's name as the object of a sentence ("joue le six de cœur", "plays the six of
 * hearts"): the language's own form when it has one, else the name as it is. */
t.cardArticle = (code, name) => (articled ? articled(code, name) : name);

/** A text as a sentence: its first letter a capital (a card's name may begin it: "the king of
 * spades may never…", "srdcový král se…"). */
export const sentence = (s) => (s ? s.charAt(0).toUpperCase() + s.slice(1) : s);

/** Whether a key exists (for optional texts, e.g. a rule number without its own sentence). */
export const has = (key) => key in table;

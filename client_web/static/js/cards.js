// Cards: codes (RULES.md R1.2), display order, points, names, and the SVG drawing of all 78
// cards and the back. Every card is drawn here, from these few shapes, under the project's
// licence; colours come from the stylesheet (classes), so the contrast settings apply to cards.

export const SUITS = ["S", "H", "C", "D"]; // display order: black, red, black, red
export const RANKS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"];
export const OUDLERS = new Set(["T1", "T21", "EX"]);
const SVGNS = "http://www.w3.org/2000/svg";

/** Every card code, in display order (spades, hearts, clubs, diamonds, trumps, Excuse). */
export const ALL_CARDS = [
  ...SUITS.flatMap((s) => RANKS.map((r) => s + r)),
  ...Array.from({ length: 21 }, (_, i) => "T" + (i + 1)),
  "EX",
];
const ORDER = new Map(ALL_CARDS.map((c, i) => [c, i]));

export const suitOf = (code) => (code === "EX" ? "EX" : code[0]);
export const rankOf = (code) => code.slice(1);
export const isTrump = (code) => code[0] === "T";
export const isOudler = (code) => OUDLERS.has(code);
export const isRed = (code) => code[0] === "H" || code[0] === "D";

/** Sort card codes into display order (a copy). */
export function sortCards(cards) {
  return [...cards].sort((a, b) => ORDER.get(a) - ORDER.get(b));
}

/** Card points in half points (R1.5): oudlers and kings 9, queens 7, cavaliers 5, jacks 3, else 1. */
export function halfPoints(code) {
  if (OUDLERS.has(code)) return 9;
  if (code[0] === "T") return 1;
  return { K: 9, Q: 7, C: 5, J: 3 }[code.slice(1)] || 1;
}

/** The card's name in words, e.g. "queen of hearts", "trump 21" (for screen readers and text).
 * A language module may name cards itself (Czech adjectives agree with the rank's gender). */
export function cardName(t, code) {
  const own = t.cardName && t.cardName(code);
  if (own) return own;
  if (code === "EX") return t("card.excuse");
  if (code === "T1") return t("card.petit");
  if (code[0] === "T") return t("card.trump", { n: code.slice(1) });
  return t("card.plain." + code[0], { rank: t("rank." + code.slice(1)) });
}

/** A card's name with its article where the language puts one: for sentences. */
export const cardNameDef = (t, code) => t.cardArticle(code, cardName(t, code));

/** A list of cards in words: "king of hearts, trump 3". */
export const cardNames = (t, cards) => cards.map((c) => cardName(t, c)).join(", ");

// ---------------------------------------------------------------------------------- drawing

function el(name, attrs = {}, children = []) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function text(x, y, size, content, cls, anchor = "start") {
  const t = el("text", { x, y, "font-size": size, class: cls, "text-anchor": anchor });
  t.textContent = content;
  return t;
}

// Suit signs drawn in a 32 × 32 box.
const SUIT_PATHS = {
  H: "M16 30C16 30 1.5 20.5 1.5 10.5 1.5 5.3 5.3 1.8 9.8 1.8 12.8 1.8 15 3.6 16 6 17 3.6 19.2 1.8 22.2 1.8 26.7 1.8 30.5 5.3 30.5 10.5 30.5 20.5 16 30 16 30Z",
  D: "M16 1 28.5 16 16 31 3.5 16Z",
  S: "M16 1C16 1 2.5 11 2.5 19.2 2.5 23.6 5.8 26.2 9.6 26.2 12.2 26.2 14 25 14.9 23.7 14.6 26.7 13.2 29 10.6 31H21.4C18.8 29 17.4 26.7 17.1 23.7 18 25 19.8 26.2 22.4 26.2 26.2 26.2 29.5 23.6 29.5 19.2 29.5 11 16 1 16 1Z",
  C: "M16 1.5A6.6 6.6 0 0 0 10.6 12 6.6 6.6 0 1 0 14.6 22.5C14.3 26 13 28.8 10.6 31H21.4C19 28.8 17.7 26 17.4 22.5A6.6 6.6 0 1 0 21.4 12 6.6 6.6 0 0 0 16 1.5Z",
};
const STAR = "M16 1.5 19.6 11.6 30.3 11.9 21.8 18.4 24.9 28.7 16 22.6 7.1 28.7 10.2 18.4 1.7 11.9 12.4 11.6Z";

function sign(path, x, y, size, cls) {
  const s = size / 32;
  return el("path", { d: path, class: cls, transform: `translate(${x} ${y}) scale(${s})` });
}

/** The index letters of the court cards, per language (the card's picture is the same). */
const COURT = {
  en: { J: "J", C: "C", Q: "Q", K: "K", 1: "1" },
  fr: { J: "V", C: "C", Q: "D", K: "R", 1: "1" },
  cs: { J: "Kl", C: "J", Q: "D", K: "K", 1: "1" },
};

function indexLabel(code, lang) {
  if (code[0] === "T") return code.slice(1);
  const r = code.slice(1);
  return (COURT[lang] || COURT.en)[r] || r;
}

/**
 * An <svg> of one card (100 × 150 units). ``code`` null draws the back.
 * ``lang`` picks the court letters; ``label`` is the Excuse's printed name.
 */
export function cardSVG(code, lang = "en", label = "") {
  const svg = el("svg", {
    viewBox: "0 0 100 150",
    class: "card-svg",
    "aria-hidden": "true",
    focusable: "false",
  });
  if (code == null) {
    svg.append(
      el("rect", { x: 1.5, y: 1.5, width: 97, height: 147, rx: 8, class: "cb-bg" }),
      el("rect", { x: 8, y: 8, width: 84, height: 134, rx: 5, class: "cb-frame" }),
      el("path", { d: "M8 40L60 142M8 92L34 142M40 8L92 110M66 8L92 58M92 40L40 142M92 92L66 142M60 8L8 110M34 8L8 58", class: "cb-lines" }),
      text(50, 88, 40, "A", "cb-mono", "middle"),
    );
    return svg;
  }
  const trump = code[0] === "T";
  const excuse = code === "EX";
  const kind = excuse ? "excuse" : trump ? "trump" : isRed(code) ? "red" : "black";
  svg.classList.add("k-" + kind);
  svg.append(el("rect", { x: 1.5, y: 1.5, width: 97, height: 147, rx: 8, class: "c-bg" }));
  const ink = "c-ink";
  const idx = el("g", { class: "c-index" });
  if (excuse) {
    idx.append(sign(STAR, 5, 6, 26, ink));
  } else {
    const lab = indexLabel(code, lang);
    const size = lab.length > 1 ? 27 : 32;
    idx.append(text(lab.length > 1 ? 3.5 : 6, 32, size, lab, "c-rank " + ink));
    if (!trump) idx.append(sign(SUIT_PATHS[code[0]], 6, 38, 24, ink));
  }
  if (isOudler(code)) idx.append(el("circle", { cx: 17, cy: excuse ? 44 : 46, r: 6, class: "c-oudler" }));
  svg.append(idx);
  // The same index, upside down in the opposite corner.
  const idx2 = idx.cloneNode(true);
  idx2.setAttribute("transform", "rotate(180 50 75)");
  svg.append(idx2);
  if (excuse) {
    svg.append(
      el("circle", { cx: 50, cy: 72, r: 27, class: "c-medal" }),
      sign(STAR, 30, 52, 40, ink),
    );
    if (label) svg.append(text(50, 120, 12, label.toUpperCase(), "c-caption " + ink, "middle"));
  } else if (trump) {
    const n = code.slice(1);
    svg.append(
      el("rect", { x: 24, y: 38, width: 52, height: 74, rx: 26, class: isOudler(code) ? "c-medal c-medal-oudler" : "c-medal" }),
      text(50, 88, n.length > 1 ? 36 : 42, n, "c-big " + ink, "middle"),
    );
  } else {
    const r = code.slice(1);
    const p = SUIT_PATHS[code[0]];
    if (/^[JCQK]$/.test(r)) {
      svg.append(
        el("rect", { x: 27, y: 36, width: 46, height: 78, rx: 4, class: "c-court" }),
        text(50, 84, 32, indexLabel(code, lang), "c-big " + ink, "middle"),
        sign(p, 40, 90, 20, ink),
        sign(p, 40, 40, 20, ink),
      );
    } else {
      svg.append(sign(p, 27, 52, 46, ink));
    }
  }
  return svg;
}

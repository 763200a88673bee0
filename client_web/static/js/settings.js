// Player settings, remembered in the browser (localStorage): language, contrast, grain, colour
// temperature (sliders, 50 % by default, as on the rule card), card size, animation speed and
// colour scheme. apply() turns them into CSS custom properties on the root element.

const KEY = "atout.settings";
export const DEFAULTS = {
  lang: null, // null: from the browser
  contrast: 50,
  grain: 50,
  temperature: 50,
  cardSize: 50,
  animation: 50, // 0: no animation
  scheme: "auto", // auto | light | dark
};

export function load() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) || "{}") };
  } catch {
    return { ...DEFAULTS };
  }
}

export function save(s) {
  try {
    localStorage.setItem(KEY, JSON.stringify(s));
  } catch {
    /* private mode or full storage: settings last for this page only */
  }
}

// Palettes designed for at least 4.5:1 (text on its background) at contrast 50.
const PALETTES = {
  light: {
    bg: "#f3eee3", surface: "#fffdf8", raised: "#ebe4d4", text: "#1b211e", muted: "#47524c",
    line: "#8b8a80", accent: "#7a4f00", primary: "#1d6443", onPrimary: "#ffffff",
    felt: "#1d563c", feltRaised: "#143f2c", onFelt: "#f4f7f2", feltMuted: "#cadccf",
    danger: "#a3241c", ok: "#1d6443", warn: "#7a4f00", focus: "#0b57d0", mark: "#ffd166",
    card: "#fffdf7", cardEdge: "#55524a", red: "#b8122b", black: "#151515", trump: "#f2e8cc",
    trumpInk: "#2f2300", medal: "#e7d7ab", oudler: "#b87800", back: "#1d563c", backInk: "#cfe3d6",
  },
  dark: {
    bg: "#111513", surface: "#1a201d", raised: "#242c28", text: "#e8ece8", muted: "#b0bbb4",
    line: "#6b7670", accent: "#e6b85c", primary: "#1f6d48", onPrimary: "#ffffff",
    felt: "#15412d", feltRaised: "#0e3122", onFelt: "#f1f5f0", feltMuted: "#c2d6c8",
    danger: "#ff8a80", ok: "#7fd6a4", warn: "#e6b85c", focus: "#8ab4f8", mark: "#ffd166",
    card: "#f7f3e8", cardEdge: "#2a2a2a", red: "#b8122b", black: "#151515", trump: "#eee2c2",
    trumpInk: "#2f2300", medal: "#dfcd9c", oudler: "#a86d00", back: "#1b5a3d", backInk: "#b9dcc6",
  },
};

const hex = (c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
const toHex = (rgb) => "#" + rgb.map((x) => Math.round(Math.max(0, Math.min(255, x))).toString(16).padStart(2, "0")).join("");
export const mix = (a, b, t) => toHex(hex(a).map((x, i) => x + (hex(b)[i] - x) * t));

export function scheme(s) {
  if (s.scheme === "light" || s.scheme === "dark") return s.scheme;
  return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/** The colours for these settings (also used by the tests' contrast check). */
export function palette(s) {
  const sch = scheme(s);
  const p = { ...PALETTES[sch] };
  const dark = sch === "dark";
  const hi = dark ? "#ffffff" : "#000000";
  const lo = dark ? "#000000" : "#ffffff";
  const c = (s.contrast - 50) / 50; // -1 .. 1
  if (c > 0) {
    for (const k of ["text", "muted", "accent", "danger", "ok", "warn", "line"]) p[k] = mix(p[k], hi, c * 0.8);
    for (const k of ["bg", "surface", "raised"]) p[k] = mix(p[k], lo, c * 0.7);
    for (const k of ["onFelt", "feltMuted"]) p[k] = mix(p[k], "#ffffff", c * 0.8);
    for (const k of ["felt", "feltRaised", "primary"]) p[k] = mix(p[k], "#000000", c * 0.45);
    p.red = mix(p.red, "#8a0000", c);
    p.black = mix(p.black, "#000000", c);
    p.card = mix(p.card, "#ffffff", c);
    p.cardEdge = mix(p.cardEdge, "#000000", c);
  } else if (c < 0) {
    const k = -c * 0.4;
    for (const x of ["text", "muted", "accent", "line"]) p[x] = mix(p[x], p.bg, k);
    for (const x of ["onFelt", "feltMuted"]) p[x] = mix(p[x], p.felt, k);
  }
  const tt = (s.temperature - 50) / 50;
  if (tt !== 0) {
    const tint = tt > 0 ? "#ff9a3c" : "#4d8dff";
    const k = Math.abs(tt) * 0.1;
    for (const x of ["bg", "surface", "raised", "felt", "feltRaised", "card", "trump"]) p[x] = mix(p[x], tint, x === "card" || x === "trump" ? k * 0.5 : k);
  }
  return p;
}

export function apply(s) {
  const root = document.documentElement;
  const p = palette(s);
  for (const [k, v] of Object.entries(p)) root.style.setProperty("--" + k.replace(/[A-Z]/g, (m) => "-" + m.toLowerCase()), v);
  root.dataset.scheme = scheme(s);
  root.style.setProperty("--grain", String((s.grain / 100) * 0.16));
  root.style.setProperty("--card-scale", String(0.8 + (s.cardSize / 100) * 0.5));
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const speed = reduced ? 0 : s.animation; // the system's wish wins over the slider
  root.style.setProperty("--anim", speed === 0 ? "0ms" : `${Math.round(480 - speed * 3.6)}ms`);
  root.dataset.motion = speed === 0 ? "off" : "on";
}

/** How long the last card of a trick stays on the table before it is cleared (ms). */
export function trickHold(s) {
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  return Math.round(2200 - (reduced ? 50 : s.animation) * 12);
}

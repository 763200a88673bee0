// What the browser remembers besides settings: the player's name, the player key of an
// account (PROTOCOL.md section 13: sent in hello, never shown, never in a URL) and, per table,
// the seat token and the last version seen (to resume after a reload or a drop, section 7).

const SEATS = "atout.seats";
const NAME = "atout.name";
const PLAYER = "atout.player";

function read(key, fallback) {
  try {
    const v = localStorage.getItem(key);
    return v == null ? fallback : JSON.parse(v);
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* storage unavailable: the seat lasts as long as the page */
  }
}

export const getName = () => read(NAME, "");
export const setName = (n) => write(NAME, n);

export function getSeat(table) {
  return read(SEATS, {})[table] || null;
}

export function setSeat(table, data) {
  const all = read(SEATS, {});
  all[table] = { ...(all[table] || {}), ...data, at: Date.now() };
  // Keep the 20 most recent tables only.
  const keys = Object.keys(all).sort((a, b) => all[b].at - all[a].at);
  for (const k of keys.slice(20)) delete all[k];
  write(SEATS, all);
}

/** The tables where this browser holds a seat token, the most recent first: [{table, ...}]. */
export function heldSeats() {
  const all = read(SEATS, {});
  return Object.keys(all)
    .filter((k) => all[k] && typeof all[k].token === "string" && all[k].token)
    .map((k) => ({ ...all[k], table: k }))
    .sort((a, b) => (b.at || 0) - (a.at || 0));
}

export function dropSeat(table) {
  const all = read(SEATS, {});
  delete all[table];
  write(SEATS, all);
}

/** The account this browser is logged in as on this server: {key, name, kind}, or null. */
export function getPlayer() {
  const p = read(PLAYER, null);
  return p && typeof p.key === "string" && p.key ? p : null;
}

export function setPlayer(p) {
  write(PLAYER, { key: p.key, name: p.name, kind: p.kind || "registered" });
}

export function dropPlayer() {
  try {
    localStorage.removeItem(PLAYER);
  } catch {
    /* storage unavailable */
  }
}

// What the browser remembers besides settings: the player's name and, per table, the seat
// token and the last version seen (to resume after a reload or a drop, PROTOCOL.md section 7).

const SEATS = "atout.seats";
const NAME = "atout.name";

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

export function dropSeat(table) {
  const all = read(SEATS, {});
  delete all[table];
  write(SEATS, all);
}

// One WebSocket connection to an Atout server (docs/PROTOCOL.md): hello, requests matched to
// their answers by id, pushed messages, and automatic reconnection with back-off. What to do
// after a reconnection (resume seats, watch again) is up to the listeners of "open".

const PROTOCOL_VERSION = 1;
const CLIENT = "atout-web/1";

/** The server's WebSocket URL derived from the page's own address (https -> wss). */
export function originURL(loc = window.location) {
  const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${loc.host}/`;
}

export class ServerError extends Error {
  constructor(msg) {
    super(msg.message || msg.code);
    this.code = msg.code;
    this.rule = msg.rule || null;
    this.details = msg.details || null;
    this.serverMessage = msg.message || "";
  }
}

export class Connection extends EventTarget {
  constructor(url, name) {
    super();
    this.url = url;
    this.name = name;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject}
    this.welcome = null;
    this.state = "idle"; // idle | connecting | open | reconnecting | replaced | closed
    this.attempt = 0;
    this.closedByUs = false;
    this.timer = null;
  }

  /** Connect (if not yet) and resolve with the welcome. */
  open() {
    if (this.state === "open") return Promise.resolve(this.welcome);
    if (this._opening) return this._opening;
    this.closedByUs = false;
    this._opening = new Promise((resolve, reject) => {
      this._openResolve = resolve;
      this._openReject = reject;
    });
    this._connect();
    return this._opening;
  }

  _setState(s, detail = {}) {
    this.state = s;
    this.dispatchEvent(new CustomEvent("state", { detail: { state: s, ...detail } }));
  }

  _connect() {
    clearTimeout(this.timer);
    this._setState(this.attempt ? "reconnecting" : "connecting", { attempt: this.attempt });
    let ws;
    try {
      ws = new WebSocket(this.url, ["atout.v1"]);
    } catch (e) {
      this._failOpen(e);
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.closedByUs) ws.close(1000); // closed while connecting: now we may
      else this._hello(ws);
    });
    ws.addEventListener("message", (e) => this._onMessage(e.data));
    ws.addEventListener("close", (e) => this._onClose(ws, e.code));
  }

  async _hello(ws, withKey = true) {
    const key = withKey ? hooks.key() : null;
    try {
      const hello = { type: "hello", version: PROTOCOL_VERSION, name: this.name, client: CLIENT };
      if (key) hello.key = key; // the account (PROTOCOL.md 13); name is then the account's
      let w;
      try {
        w = await this.request(hello, true);
      } catch (e) {
        if (!key || e.code !== "bad_key" || ws !== this.ws) throw e;
        // The key was revoked (logged out elsewhere) or the account is gone: forget it and
        // carry on as a guest, and say so (hooks.refused).
        hooks.refused();
        return this._hello(ws, false);
      }
      if (ws !== this.ws) return;
      if (w.player && w.player.name) this.name = w.player.name.slice(0, 32);
      hooks.welcome(w, !!key);
      this.welcome = w;
      const again = this.attempt > 0;
      this.attempt = 0;
      this._setState("open");
      if (this._openResolve) {
        this._openResolve(w);
        this._openResolve = this._openReject = null;
      }
      this._opening = null;
      this.dispatchEvent(new CustomEvent("open", { detail: { welcome: w, again } }));
    } catch (e) {
      // A hello the server cannot take (invalid_field: our name, PROTOCOL.md 2) is refused the
      // same way every time: no reconnecting with it; the next open() tries again.
      if (e.code === "invalid_field" && ws === this.ws) this.closedByUs = true;
      this._failOpen(e);
      ws.close();
    }
  }

  _failOpen(e) {
    if (this._openReject) {
      this._openReject(e);
      this._openResolve = this._openReject = null;
      this._opening = null;
    }
  }

  _onMessage(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return; // the server only sends JSON; ignore anything else
    }
    if (msg.id != null && this.pending.has(msg.id) && msg.type !== "event") {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.type === "error") p.reject(new ServerError(msg));
      else p.resolve(msg);
      return;
    }
    if (msg.type === "error") {
      this.dispatchEvent(new CustomEvent("error-message", { detail: msg }));
      return;
    }
    this.dispatchEvent(new CustomEvent("message", { detail: msg }));
  }

  _onClose(ws, code) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.welcome = null;
    this.lastClose = code;
    // 4010: this address has too many connections open (other tabs, devices behind the same
    // router): say so rather than "connection lost".
    const lost = code === 4010 ? "too_many_connections" : "connection_lost";
    for (const p of this.pending.values()) p.reject(new ServerError({ code: lost }));
    this.pending.clear();
    if (this.closedByUs) {
      this._setState("closed");
      return;
    }
    if (code === 4009) {
      this._failOpen(new ServerError({ code: "replaced" }));
      this._setState("replaced"); // another tab or window took our seat: do not fight back
      return;
    }
    if (code === 4002) {
      this._failOpen(new ServerError({ code: "unsupported_version" }));
      this._setState("closed", { code });
      return;
    }
    // Anything else: try again (PROTOCOL.md 8, close codes), resuming seats with the last
    // version seen (the listeners of "open" do that).
    this.attempt += 1;
    const delay = retryDelay(code, this.attempt) * (0.75 + Math.random() * 0.5);
    this._setState("reconnecting", { attempt: this.attempt, delay, code });
    this.timer = setTimeout(() => this._connect(), delay);
  }

  /** Try again now (the "reconnect" button, or after a replaced seat). */
  reconnectNow() {
    if (this.state === "open" || this.state === "connecting") return this.open();
    clearTimeout(this.timer);
    this.closedByUs = false;
    if (!this._opening) {
      this._opening = new Promise((resolve, reject) => {
        this._openResolve = resolve;
        this._openReject = reject;
      });
    }
    this.attempt = Math.max(1, this.attempt);
    this._connect();
    return this._opening;
  }

  close() {
    this.closedByUs = true;
    clearTimeout(this.timer);
    // Closing a socket that is still connecting makes the browser log a warning; it is closed
    // as soon as it opens instead (the "open" listener above).
    if (this.ws && this.ws.readyState !== WebSocket.CONNECTING) this.ws.close(1000);
  }

  /** Send a request; resolves with its answer, rejects with a ServerError. */
  request(msg, beforeWelcome = false) {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || (!beforeWelcome && this.state !== "open")) {
      return Promise.reject(new ServerError({ code: "connection_lost" }));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ ...msg, id }));
    });
  }
}

/**
 * How long to wait before reconnecting after a close with this code (ms, before jitter):
 * 4008 (we read too slowly) at once, since the missed events are waiting; 4010 (too many
 * connections from this address) and 4029 (too many messages) after a while; a server
 * restart (1001) after a few seconds; anything else (a network drop) with a back-off.
 */
export function retryDelay(code, attempt) {
  const backoff = Math.min(10000, 400 * 2 ** Math.min(attempt - 1, 5));
  if (code === 4008) return attempt <= 1 ? 100 : backoff;
  if (code === 4010) return 15000;
  if (code === 4029) return 5000;
  if (code === 1001) return Math.max(2000, backoff);
  return backoff;
}

/**
 * The account side of hello, set by the app: key() gives the player key to send (null: a
 * guest), welcome(w, sentKey) learns who the server says we are, refused() hears that the
 * server no longer knows the key.
 */
const hooks = { key: () => null, welcome: () => {}, refused: () => {} };
export function setAccountHooks(h) {
  Object.assign(hooks, h);
}

/** Connections by URL: the page's own server, and other workers of a cluster (wrong_worker). */
const pool = new Map();

export function connectionFor(url, name) {
  let c = pool.get(url);
  if (c && c.name !== name) {
    c.close();
    pool.delete(url);
    c = null;
  }
  if (!c) {
    c = new Connection(url, name);
    pool.set(url, c);
  }
  return c;
}

export function closeAll() {
  for (const c of pool.values()) c.close();
  pool.clear();
}

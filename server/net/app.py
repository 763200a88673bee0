"""The network layer: WebSocket server, handshake and version negotiation, request routing,
HTTP health and metrics, and graceful shutdown.

Each connection gets a :class:`Session`. Frames are decoded strictly into protocol structs and
routed: handshake and lobby requests are answered here, table requests go to the table's actor
inbox (the actor answers them). Every frame gets exactly one answer; nothing here ever sends a
traceback: unexpected errors are logged and answered with ``internal``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import dataclasses
import gc
import ipaddress
import logging
import secrets
import socket
import sys
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import Server as WSServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

import protocol.messages as P
from protocol.errors import CloseCode, ErrorCode
from protocol.version import MAX_FRAME_BYTES, PROTOCOL_VERSION, SUBPROTOCOLS, SUPPORTED_VERSIONS
from server.cluster.worker import Cluster
from server.config import Config, Network, proxy_networks, token_hash
from server.net.connection import BINARY_MARK, AtoutConnection
from server.net.decode import Refusal, decode_request, peek_id
from server.net.players import PlayerRequests
from server.net.session import Flusher, Session
from server.net.web import WebFiles, worker_origins
from server.ops.logs import connection_context, worker_logs
from server.ops.logs import setup as setup_logging
from server.ops.metrics import Metrics
from server.ops.signals import stop_signals
from server.players.accounts import Accounts
from server.players.service import Reviews
from server.tables.decider import Decider
from server.tables.lobby import Lobby, LobbyError

log = logging.getLogger("atout.server")

HEALTH_CACHE = 1.0  # seconds a /healthz answer is reused
SWITCH_INTERVAL = 0.0001  # seconds a thread waiting for the GIL lets the holder run (see run)
DEFAULT_PAGE = 50  # tables per `tables` answer when `list_tables` gives no limit

try:
    from importlib.metadata import version as _pkg_version

    SERVER_VERSION = _pkg_version("atout")
except Exception:  # not installed (running from a source tree)
    SERVER_VERSION = "0"
SERVER_NAME = f"atout/{SERVER_VERSION}"

_TABLE_REQUESTS: tuple[type, ...] = (
    P.Join,
    P.Watch,
    P.Unwatch,
    P.Leave,
    P.Start,
    P.Restart,
    P.Close,
    *P.ACTION_TYPES,
)


class Server:
    """The table server. ``await start()``, then ``await stop()`` (or :func:`run`)."""

    def __init__(self, cfg: Config, store: Any, decider: Decider | None = None) -> None:
        self.cfg = cfg
        self.store = store
        self.metrics = Metrics()
        self.decider = decider or Decider(cfg.ai_deadline)
        self.lobby = Lobby(cfg, store, self.metrics, self.decider)
        self.metrics.tables_by_state = self.lobby.by_state
        self.metrics.store_pending = lambda: int(getattr(store, "pending", 0) or 0)
        self.metrics.ai_fallbacks = self.decider.fallback_counts
        self.port = cfg.port
        self._ws: WSServer | None = None
        # A worker of several sharing the database (server/cluster/worker.py), or None.
        clustered = cfg.worker_id is not None or cfg.worker_slot is not None
        self.cluster = Cluster(cfg, self.lobby) if clustered else None
        if self.cluster is not None:
            cluster = self.cluster
            self.metrics.cluster_tables = lambda: (cluster.adopted, cluster.lost)
        self._lag: asyncio.Task[None] | None = None
        self._stopping = False
        # The browser client's files, answered on this port like /healthz (server/net/web.py).
        self.web = WebFiles(connect=worker_origins(cfg.public_url)) if cfg.web else None
        self._health, self._health_at = False, -HEALTH_CACHE  # /healthz's cached answer
        self._per_address: dict[str, int] = {}  # open connections by client address
        self._proxies = proxy_networks(cfg.trusted_proxies)  # --trusted-proxies
        self._flusher = Flusher()  # writes what the sessions queued, once per loop turn
        self.lobby.output_flusher = self._flusher.flush_now  # and when a table is done with an item
        self._handlers: dict[type, Any] = {
            P.Hello: self._on_hello,
            P.Ping: self._on_ping,
            P.ListTables: self._on_list,
            P.CreateTable: self._on_create,
            P.Resume: self._on_resume,
            P.GetDeal: self._on_deal,
        }
        self._reads: set[asyncio.Task[None]] = set()  # store reads in flight (`deal`)
        for t in _TABLE_REQUESTS:
            self._handlers[t] = self._to_table
        # Accounts, profiles, histories, leaderboards (server/net/players.py); par and ratings
        # of every scored deal (server/players/service.py).
        self.players = PlayerRequests(store, Accounts(store))
        self._handlers.update(self.players.handlers())
        self.reviews: Reviews | None = None
        if self.players.keeps_players and cfg.reviews:
            self.reviews = Reviews(
                store, cfg.par_level, self.lobby.announce, worker_setup=worker_logs("review")
            )
            self.lobby.reviews = self.reviews
            self.metrics.reviews = self.reviews.counts

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> int:
        cfg = self.cfg
        # Tables in progress when the server last stopped (or crashed) come back first, their
        # new versions stored, before any client can connect.
        owned = None
        if self.cluster is not None:  # register; rebuild exactly the tables this worker owns
            mine = await self.cluster.prepare()
            owned = mine.__contains__
        await self.lobby.restore(owned)
        await self.players.start()
        if self.reviews is not None:
            self.reviews.owned = owned
            self.reviews.start()
        # `--host ::` means every interface, IPv4 included: asyncio would bind an IPv6-only
        # socket (IPV6_V6ONLY), unreachable at 127.0.0.1, where the example proxies connect.
        sock = dual_stack_socket(cfg.host, cfg.port, cfg.backlog)
        where: dict[str, Any] = {"sock": sock} if sock is not None else {}
        self._ws = await serve(
            self._handler,
            None if sock is not None else cfg.host,
            None if sock is not None else cfg.port,
            **where,
            create_connection=AtoutConnection,
            backlog=cfg.backlog,
            subprotocols=list(SUBPROTOCOLS),  # type: ignore[arg-type]
            select_subprotocol=_select_subprotocol,
            process_request=self._http,
            compression=None,
            max_size=MAX_FRAME_BYTES,
            max_queue=32,
            ping_interval=cfg.ping_interval,
            ping_timeout=cfg.ping_timeout,
            close_timeout=5,
            server_header=SERVER_NAME,
        )
        self.port = self._ws.sockets[0].getsockname()[1]  # the real one when port 0 was asked
        gc.callbacks.append(self.metrics.gc_callback)
        self._lag = asyncio.get_running_loop().create_task(self.metrics.watch_loop_lag())
        if self.cluster is not None:
            try:  # register this worker (its URL names the real port)
                await self.cluster.start(self.port)
            except BaseException:  # do not leave the port open for a worker that cannot run
                self._ws.close()
                await self._ws.wait_closed()
                raise
        return self.port

    async def stop(self) -> None:
        """Stop accepting, close every connection with 1001, stop the tables, flush the store."""
        if self._stopping:
            return
        self._stopping = True
        self.lobby.shutting_down = True
        if self.cluster is not None:
            await self.cluster.stop()  # deregister first: no more clients sent here
        if self._ws is not None:
            self._ws.close(close_connections=True)  # close code 1001 (going away)
            await self._ws.wait_closed()
        await self.lobby.shutdown()
        await self.players.close()
        if self.reviews is not None:
            await self.reviews.stop()
        await self.decider.shutdown()
        if self._lag is not None:
            self._lag.cancel()
        if self.metrics.gc_callback in gc.callbacks:
            gc.callbacks.remove(self.metrics.gc_callback)
        if self.store is not None:
            await self.store.close()

    # -- HTTP --------------------------------------------------------------------------------

    async def _http(self, conn: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP on the WebSocket port: ``GET`` or ``HEAD`` (anything else was answered
        405 by :class:`AtoutConnection`). None lets the WebSocket handshake go on."""
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            resp = await self._healthz(conn, "deep=1" in request.path.partition("?")[2])
        elif path == "/metrics":
            resp = conn.respond(HTTPStatus.OK, self.metrics.render())
            del resp.headers["Content-Type"]
            resp.headers["Content-Type"] = "text/plain; version=0.0.4; charset=utf-8"
        elif request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        elif self.web is not None:  # the browser client's files (it answers HEAD and 404 too)
            web = self.web.respond(request)  # its Server header: websockets' server_header
            if web is None:
                return None
            resp = web
        else:
            resp = conn.respond(HTTPStatus.NOT_FOUND, "not found\n")
        if request.method == "HEAD":  # the same headers, Content-Length included; no body
            resp = dataclasses.replace(resp, body=b"")
        if log.isEnabledFor(logging.DEBUG):  # health checks and scrapes: not worth a line each
            who = client_address(conn, self._proxies)
            log.debug("HTTP %s %s from %s: %d", request.method, path, who, resp.status_code)
        return resp

    async def _healthz(self, conn: ServerConnection, deep: bool) -> Response:
        """200 while the server runs and its database took a write within the last second
        (a cached answer: health checks must not load the database); ``?deep=1`` writes now."""
        if self._stopping:
            return conn.respond(HTTPStatus.SERVICE_UNAVAILABLE, "shutting down\n")
        if self.store is not None:
            now = asyncio.get_running_loop().time()
            if deep or now - self._health_at > HEALTH_CACHE:
                ok = await self.store.writable()
                self._health, self._health_at = ok, asyncio.get_running_loop().time()
            if not self._health:
                return conn.respond(HTTPStatus.SERVICE_UNAVAILABLE, "store not writable\n")
        return conn.respond(HTTPStatus.OK, "ok\n")

    # -- connections -------------------------------------------------------------------------

    async def _handler(self, ws: ServerConnection) -> None:
        # The library keeps our subprotocol selector as a closure over the connection on its
        # protocol object: a reference cycle that only a full collection would free. The
        # handshake is over: drop it, and a closed connection is freed by reference counting.
        vars(ws.protocol).pop("select_subprotocol", None)
        cfg = self.cfg
        m = self.metrics
        address = client_address(ws, self._proxies)
        open_here = self._per_address.get(address, 0)
        if open_here >= cfg.max_connections_per_address:
            m.closes[CloseCode.TOO_MANY_CONNECTIONS] += 1
            with contextlib.suppress(ConnectionClosed):
                await ws.close(
                    CloseCode.TOO_MANY_CONNECTIONS, "too many connections from your address"
                )
            return
        self._per_address[address] = open_here + 1
        sess = Session(
            ws,
            secrets.token_hex(6),
            m,
            max_queue=cfg.out_queue,
            max_bytes=cfg.out_bytes,
            rate=cfg.rate,
            burst=cfg.burst,
            max_strikes=cfg.max_strikes,
            flusher=self._flusher,
        )
        sess.address = address
        connection_context(sess.id)  # this connection's log records name it
        log.info("connection from %s opened", address)
        m.connections_open += 1
        m.connections_total += 1
        self.lobby.sessions[sess.id] = sess
        loop = asyncio.get_running_loop()
        writer = loop.create_task(sess.writer())
        timer = loop.call_later(cfg.hello_timeout, self._hello_timeout, sess)
        if isinstance(ws, AtoutConnection):
            # Messages of one frame are handled as they are parsed, in this task's context
            # (its log records name the connection); the others still come through recv.
            ctx = contextvars.copy_context()

            def on_message(frame: bytes, sess: Session = sess) -> None:
                ctx.run(self._on_frame_safe, sess, frame)

            ws.on_message = on_message
        try:
            while True:  # bytes, text frames included: decode.py checks their UTF-8
                self._on_frame(sess, await ws.recv(decode=False))
        except ConnectionClosed:
            pass
        finally:
            if isinstance(ws, AtoutConnection):
                ws.on_message = None  # it holds the session: no cycle left behind
            timer.cancel()
            m.connections_open -= 1
            left = self._per_address[address] - 1
            if left:
                self._per_address[address] = left
            else:
                del self._per_address[address]
            self.lobby.gone(sess)
            # The close frames the server started: the echo of a client's own close is not one.
            sent = ws.protocol.close_sent
            by_client = bool(ws.protocol.close_rcvd_then_sent)
            if sent is not None and not by_client:
                m.closes[sent.code] += 1
            log.info(
                "connection closed by the %s (%s)",
                "client" if by_client or sent is None else "server",
                ws.close_code if ws.close_code is not None else "no close frame",
            )
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer

    def _hello_timeout(self, sess: Session) -> None:
        if not sess.greeted and not sess.closed:
            sess.close_after_flush(CloseCode.HELLO_TIMEOUT, "no hello")

    def _on_frame_safe(self, sess: Session, frame: bytes) -> None:
        """:meth:`_on_frame` called by the connection as a frame is parsed: nothing may
        escape into the library's parser."""
        try:
            self._on_frame(sess, frame)
        except Exception:  # never expected: _on_frame answers every frame itself
            log.exception("%s: error handling a frame", sess)
            sess.error(None, ErrorCode.INTERNAL, "internal server error")

    def _on_frame(self, sess: Session, frame: bytes) -> None:
        self.metrics.messages_in += 1
        if sess.closed:
            return
        if not sess.allow():
            if sess.abusive:
                sess.close_after_flush(CloseCode.RATE_LIMITED, "rate limit exceeded repeatedly")
            else:
                sess.error(peek_id(frame), ErrorCode.RATE_LIMITED, "too many messages; slow down")
            return
        if frame.startswith(BINARY_MARK):
            sess.error(
                None, ErrorCode.BINARY_FRAME, "binary frames are not accepted: send JSON text"
            )
            return
        msg = decode_request(frame)
        if type(msg) is Refusal:
            sess.error(msg.rid, msg.code, msg.message, details=msg.details)
            return
        try:
            handler = self._handlers[type(msg)]
            if handler != self._on_hello and not sess.greeted:
                wait = " (wait for the welcome)" if sess.hello_pending else ""
                sess.error(msg.id, ErrorCode.HELLO_REQUIRED, f"send hello first{wait}")
                return
            handler(sess, msg)
        except Exception:
            log.exception("%s: error handling %s", sess, type(msg).__name__)
            sess.error(msg.id, ErrorCode.INTERNAL, "internal server error")

    # -- handshake and lobby requests ------------------------------------------------------

    def _welcome(self, sess: Session, msg: P.Hello) -> dict[str, Any]:
        cfg = self.cfg
        return {
            "type": "welcome",
            "id": msg.id,
            "version": PROTOCOL_VERSION,
            "server": SERVER_NAME,
            "session": sess.id,
            "subprotocol": sess.ws.subprotocol,
            "limits": {
                "max_frame_bytes": MAX_FRAME_BYTES,
                "rate_per_second": cfg.rate,
                "burst": cfg.burst,
                "grace_seconds": cfg.grace,
                "turn_limit_seconds": cfg.turn_limit if cfg.turn_limit > 0 else None,
                "max_timeouts": cfg.max_timeouts,
            },
            "resumed": None,
            "admin": sess.admin,
            "ai_levels": self.lobby.ai_levels,
            "player": None
            if sess.account is None
            else {k: sess.account[k] for k in ("name", "kind", "since")},
        }

    def _on_hello(self, sess: Session, msg: P.Hello) -> None:
        if sess.greeted:
            sess.error(msg.id, ErrorCode.ALREADY_GREETED, "this connection already said hello")
            return
        if sess.hello_pending:
            sess.error(msg.id, ErrorCode.HELLO_REQUIRED, "wait for the welcome")
            return
        if msg.version not in SUPPORTED_VERSIONS:
            sess.error(
                msg.id,
                ErrorCode.UNSUPPORTED_VERSION,
                f"protocol version {msg.version} is not supported",
                details={"supported": list(SUPPORTED_VERSIONS)},
            )
            sess.close_after_flush(CloseCode.UNSUPPORTED_VERSION, "unsupported protocol version")
            return
        if msg.admin is not None:
            known = self.cfg.admin_token_hash
            if known is None or not secrets.compare_digest(token_hash(msg.admin), known):
                sess.error(msg.id, ErrorCode.NOT_ALLOWED, "this admin token is not valid")
                return
            sess.admin = True
        sess.name = msg.name
        if msg.key is not None:  # a player key: checked in the store first
            sess.hello_pending = True
            loop = asyncio.get_running_loop()
            task = loop.create_task(self._hello_with_key(sess, msg))
            self.players._tasks.add(task)
            task.add_done_callback(self.players._tasks.discard)
            return
        self._hello_greet(sess, msg)

    async def _hello_with_key(self, sess: Session, msg: P.Hello) -> None:
        try:
            ok = await self.players.hello_key(sess, msg.key or "")
        except Exception:
            log.exception("%s: checking a player key failed", sess)
            sess.hello_pending = False
            sess.error(msg.id, ErrorCode.INTERNAL, "internal server error")
            return
        sess.hello_pending = False
        if not ok:
            sess.error(msg.id, ErrorCode.BAD_KEY, "this player key is not valid (any more)")
            return
        if not sess.closed:
            self._hello_greet(sess, msg)

    def _hello_greet(self, sess: Session, msg: P.Hello) -> None:
        welcome = self._welcome(sess, msg)
        if msg.token is None:
            sess.greeted = True
            sess.send_obj(welcome)
            return
        table = self.lobby.table_for_token(msg.token)
        if table is None and self.cluster is not None:  # maybe a seat at another worker
            self.cluster.route_hello(sess, msg)
            return
        if table is None or not table.post(("hello", sess, msg, welcome)):
            sess.error(msg.id, ErrorCode.BAD_TOKEN, "this seat token is not valid (any more)")
            return
        sess.hello_pending = True  # the table answers with the welcome (or bad_token)

    def _on_ping(self, sess: Session, msg: P.Ping) -> None:
        sess.send_obj({"type": "pong", "id": msg.id})

    def _on_list(self, sess: Session, msg: P.ListTables) -> None:
        limit = DEFAULT_PAGE if msg.limit is None else msg.limit
        source = self.lobby if self.cluster is None else self.cluster
        try:
            tables, nxt, total = source.page(msg.cursor, limit)
        except ValueError as e:
            sess.error(
                msg.id, ErrorCode.INVALID_FIELD, f"cursor: {e}", details={"path": "$.cursor"}
            )
            return
        sess.send_obj(
            {"type": "tables", "id": msg.id, "tables": tables, "next": nxt, "total": total}
        )

    def _on_create(self, sess: Session, msg: P.CreateTable) -> None:
        try:
            table = self.lobby.create(sess, msg)
        except LobbyError as e:
            details = None if e.path is None else {"path": e.path}
            sess.error(msg.id, e.code, e.message, details=details)
            return
        # The table answers once its row is stored (or refuses: storage_unavailable).
        extra = {"url": self.cluster.url} if self.cluster is not None else {}
        table.post(("created", sess, msg, extra))

    def _on_resume(self, sess: Session, msg: P.Resume) -> None:
        table = self.lobby.table_for_token(msg.token)
        if table is None and self.cluster is not None:  # maybe a seat at another worker
            self.cluster.route_token(sess, msg)
            return
        if table is None or not table.post(("req", sess, msg)):
            sess.error(msg.id, ErrorCode.BAD_TOKEN, "this seat token is not valid (any more)")

    def _on_deal(self, sess: Session, msg: P.GetDeal) -> None:
        """A finished deal's record, read from the store off the event loop. Readable: any
        deal of a public table; a private table's deals only from a seat there, or from a
        connection of an account that sat there (issue 12)."""
        task = asyncio.get_running_loop().create_task(self._answer_deal(sess, msg))
        self._reads.add(task)
        task.add_done_callback(self._reads.discard)

    async def _answer_deal(self, sess: Session, msg: P.GetDeal) -> None:
        table = self.lobby.tables.get(msg.table)
        seated = table is not None and any(s.session is sess for s in table.seats)
        account = sess.account["id"] if sess.account is not None else None
        players = self.players.keeps_players

        def read(store: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None, bool]:
            rec = store.deal(msg.table, msg.deal_no)
            row = store.table(msg.table) if rec is not None else None
            sat = rec is not None and account is not None and players
            return rec, row, bool(sat and store.sat_at(msg.table, account))

        if self.store is None:  # a server without persistence keeps no records
            sess.error(msg.id, ErrorCode.NO_SUCH_DEAL, "this server keeps no deal records")
            return
        try:
            rec, row, sat = await self.store.run(read)
        except Exception as e:  # the store failed: nothing was read
            log.warning("%s: cannot read deal %s/%d: %s", sess, msg.table, msg.deal_no, e)
            sess.error(msg.id, ErrorCode.STORAGE_UNAVAILABLE, "the deal cannot be read right now")
            return
        public = bool(((row or {}).get("options") or {}).get("public"))
        if rec is None or not (public or seated or sat):
            sess.error(
                msg.id,
                ErrorCode.NO_SUCH_DEAL,
                f"no readable finished deal {msg.deal_no} at table {msg.table[:64]!r}",
            )
            return
        sess.send_obj(
            {
                "type": "deal",
                "id": msg.id,
                "table": msg.table,
                "deal_no": msg.deal_no,
                "record": rec,
            }
        )

    def _to_table(self, sess: Session, msg: Any) -> None:
        table = self.lobby.tables.get(msg.table)
        if table is None and self.cluster is not None:  # maybe another worker's table
            self.cluster.route(sess, msg)
            return
        if table is None or not table.post(("req", sess, msg)):
            sess.error(msg.id, ErrorCode.NO_SUCH_TABLE, f"no open table {msg.table[:64]!r}")


def client_address(ws: ServerConnection, trusted: tuple[Network, ...]) -> str:
    """The client's IP address: the peer's, or, when the peer is in a trusted reverse proxy's
    network, the last address in ``X-Forwarded-For`` that is not itself a trusted proxy."""
    peer = unmapped(str(ws.remote_address[0])) if ws.remote_address else ""
    if not trusted or ws.request is None or not _trusted(peer, trusted):
        return peer
    hops = [h.strip() for v in ws.request.headers.get_all("X-Forwarded-For") for h in v.split(",")]
    for hop in reversed(hops):
        if hop and not _trusted(hop, trusted):
            return unmapped(hop)
    return peer


def _trusted(address: str, trusted: tuple[Network, ...]) -> bool:
    """Whether ``address`` (text) is in one of the ``trusted`` networks (an address of the
    other family, or no address at all, is in none)."""
    try:
        ip = ipaddress.ip_address(unmapped(address))
    except ValueError:
        return False
    return any(ip in net for net in trusted)


def unmapped(address: str) -> str:
    """An IPv4 peer of a dual-stack socket (``::ffff:10.0.0.1``) as its IPv4 address."""
    if address.startswith("::ffff:") and "." in address:
        return address[7:]
    return address


def dual_stack_socket(host: str, port: int, backlog: int) -> socket.socket | None:
    """For ``host`` ``::`` (every interface), one listening socket that takes IPv6 and IPv4
    (IPv4 peers then show as ``::ffff:a.b.c.d``; :func:`client_address` unwraps them). One
    socket, not one per family, so that port 0 gives one port. None for any other host, or
    where the system has no dual-stack sockets (some BSDs): there ``::`` stays IPv6 only,
    as docs/OPERATIONS.md says."""
    if host != "::":
        return None
    if not socket.has_dualstack_ipv6():
        log.warning("--host ::: this system cannot take IPv4 on an IPv6 socket; IPv6 only")
        return None
    return socket.create_server(
        ("::", port), family=socket.AF_INET6, backlog=backlog, dualstack_ipv6=True
    )


def _select_subprotocol(conn: ServerConnection, offered: Any) -> Any:
    """Speak ``atout.v1`` when offered; otherwise carry on without a subprotocol, so that the
    ``hello`` can be answered with a typed ``unsupported_version`` error instead of an HTTP 400."""
    for p in SUBPROTOCOLS:
        if p in offered:
            return p
    return None


# ---------------------------------------------------------------------------------- running


async def serve_until_stopped(cfg: Config, stop: asyncio.Event) -> int:
    from server.cluster.worker import ClusterError
    from server.store import describe
    from server.store.aio import AsyncStore
    from server.store.base import StoreError

    try:
        # A write waits at most 1 s for another connection's lock, then fails (and is retried
        # a couple of times): a player is told `storage_unavailable` in seconds, not minutes.
        store = AsyncStore(cfg.db, busy_timeout=1.0)
    except (StoreError, OSError) as e:
        log.error("cannot open the database %s: %s", describe(cfg.db), e)
        return 1
    server = Server(cfg, store)
    try:
        port = await server.start()
    except (OSError, OverflowError) as e:  # OverflowError: a port past 65535 (a Config of code)
        log.error("cannot listen on %s:%s: %s", cfg.host, cfg.port, e)
        await store.close()
        return 1
    except StoreError as e:
        log.error("cannot rebuild the open tables from %s: %s", describe(cfg.db), e)
        await store.close()
        return 1
    except ClusterError as e:
        log.error("cannot join the cluster: %s", e)
        await store.close()
        return 1
    host = cfg.host if ":" not in cfg.host else f"[{cfg.host}]"
    log.info(
        "Atout server %s listening on ws://%s:%d (protocol %s, database %s)",
        SERVER_VERSION,
        host,
        port,
        ", ".join(SUBPROTOCOLS),
        describe(cfg.db),
    )
    log.info(
        "connect with a WebSocket client to ws://%s:%d and send "
        '{"type": "hello", "id": 1, "version": 1, "name": "you"} (docs/PROTOCOL.md); '
        "health: http://%s:%d/healthz, metrics: http://%s:%d/metrics",
        host,
        port,
        host,
        port,
        host,
        port,
    )
    if cfg.worker_id is None and cfg.worker_slot is None:  # a lone server: how to play
        # A wildcard bind is reached at 127.0.0.1 from this machine (`::` too: dual-stack).
        local = "127.0.0.1" if cfg.host in ("0.0.0.0", "::", "") else host
        there = " (from elsewhere, this host's address)" if local != host else ""
        if cfg.web:
            log.info("players open http://%s:%d/ in a browser%s", local, port, there)
        log.info(
            "terminal client: %s --server ws://%s:%d",
            terminal_client(),
            local,
            port,
        )
    await stop.wait()
    log.info("shutting down: closing connections (1001), stopping tables, flushing the store")
    await server.stop()
    log.info("stopped")
    return 0


def terminal_client() -> str:
    """The terminal client's command as installed with this server (``atout`` beside this
    Python: a venv's, the container's), or ``atout``. Not ``make play``: a host under systemd
    or in a container has neither make nor the checkout's .venv."""
    import os

    beside = os.path.join(os.path.dirname(sys.executable), "atout")
    return beside if os.path.exists(beside) else "atout"


def loop_factory(name: str) -> tuple[str, Callable[[], asyncio.AbstractEventLoop] | None]:
    """The event loop ``serve --loop`` names, as (what runs, factory for ``asyncio.Runner``).

    ``asyncio`` (the standard loop, the default), ``uvloop`` (libuv; not a dependency: on this
    server it saved under 15 % of the CPU per request in bench/load.py, docs/SCALING.md section
    5), or ``auto``: uvloop where it is installed, else asyncio. Raises ValueError when
    uvloop is asked for and cannot be imported."""
    if name not in ("auto", "uvloop", "asyncio"):
        raise ValueError(f"--loop {name!r}: choose auto, uvloop or asyncio")
    if name == "asyncio":
        return "asyncio", None
    try:
        import uvloop
    except ImportError:
        if name == "uvloop":
            raise ValueError(
                "--loop uvloop: uvloop is not installed here (pip install uvloop; it does not "
                "run on Windows); use --loop asyncio"
            ) from None
        return "asyncio", None
    return f"uvloop {getattr(uvloop, '__version__', '')}".strip(), uvloop.new_event_loop


def run(args: argparse.Namespace) -> int:
    """``atout-server serve``: run until SIGTERM, SIGINT or SIGHUP, then shut down cleanly
    (exit 0)."""
    try:
        cfg = Config.from_args(args)
        setup_logging(cfg.log_level, cfg.log_format)
        loop_name, factory = loop_factory(cfg.loop)
    except ValueError as e:  # a Config built without the command line (its checks)
        print(f"atout-server serve: {e}", file=sys.stderr)
        return 2

    # Collector tuning, measured (docs: 1,000 players, p99 action-to-event latency): with the
    # default thresholds, objects that live for one AI think delay get promoted and full
    # collections pause the loop for 100-200 ms every few seconds; a larger young generation
    # lets them die young. Start-up objects (imports) never need scanning again.
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    # Every table write goes through the store's thread, and each hop of the GIL between it and
    # a busy event loop waited up to the switch interval (5 ms by default). A batch takes one hop
    # per SQLite statement (the module lets the GIL go around each step): when many deals end
    # together, a batch of their records made hundreds of hops, and took 20-50 ms at 0.5 ms
    # (bench/load.py, AI seats at the 0.5 s pace). A shorter interval only costs switches while
    # the store's thread asks for the GIL (CPU per request: same within the noise at 0.1 ms).
    sys.setswitchinterval(SWITCH_INTERVAL)

    async def main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in stop_signals():
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        log.info("event loop: %s", loop_name)
        return await serve_until_stopped(cfg, stop)

    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main())

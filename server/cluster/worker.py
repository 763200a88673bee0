"""Several worker processes on one host, sharing one SQLite database (docs/SCALING.md).

- Each worker listens on its own port and registers itself in the shared database (``workers``:
  worker id, public URL, pid, host, heartbeat); it deregisters when it stops. A registration
  whose heartbeat is too old, or whose process is gone (same host), is ignored.
- A table lives in the worker that created it. Its id carries the worker's prefix (``w1-...``)
  and ``table_owner`` records the owner when the table is created: the database is the source
  of truth, the prefix only answers while the row is still being written.
- A request about a table another live worker owns (join, watch, ..., ``resume`` and ``hello``
  with a seat token of that table) is answered with the error ``wrong_worker`` carrying the
  owner's URL; the client reconnects there. Seat tokens are indexed by their SHA-256 only
  (``token_owner``): the database never holds a usable token.
- Each worker publishes its own public tables at each heartbeat; ``list_tables`` on any worker
  merges its own tables (fresh) with those of the other live workers (one heartbeat old at
  most), each with its ``url``.
- ``atout-server serve --workers N --port P`` runs :func:`supervise`: N workers on ports
  P..P+N-1, each restarted when it dies.

The event loop never touches SQLite: registry reads and writes run in order on one dedicated
thread with its own connection, and the request path reads only in-memory caches, except for
the (rare) lookup of a table or token this worker does not hold.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import logging
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from protocol.errors import ErrorCode
from server.tables.seats import Connection, token_hash

if TYPE_CHECKING:
    from server.config import Config
    from server.tables.lobby import Lobby
    from server.tables.table import Table

log = logging.getLogger("atout.cluster")

T = TypeVar("T")
_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode

_PREFIX = re.compile(r"^w(\d{1,6})-")
_STATE_ORDER = {"waiting": 0, "playing": 1, "finished": 2}
SUPERVISOR_ENV = "ATOUT_SUPERVISOR_PID"  # set for the workers a supervisor starts
CLOSED_ROWS_KEPT = 86400.0  # seconds a closed table's ownership row answers no_such_table

_SCHEMA = """
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS workers (
    worker INTEGER PRIMARY KEY,
    url TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started_at REAL NOT NULL,
    heartbeat_at REAL NOT NULL,
    listing TEXT NOT NULL DEFAULT '[]',
    listing_rev INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS table_owner (
    table_id TEXT PRIMARY KEY,
    worker INTEGER NOT NULL,
    created_at REAL NOT NULL,
    closed_at REAL
);
CREATE TABLE IF NOT EXISTS token_owner (
    token_hash TEXT PRIMARY KEY,
    table_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS token_owner_table ON token_owner (table_id);
COMMIT;
"""


class ClusterError(Exception):
    """This worker cannot take its place in the cluster (its id is held by a live process)."""


# --- identifiers ----------------------------------------------------------------------------


def table_prefix(worker: int) -> str:
    return f"w{worker}-"


def worker_of(table_id: str) -> int | None:
    """The worker a table id names by its prefix (a hint: the database decides)."""
    m = _PREFIX.match(table_id)
    return int(m.group(1)) if m else None


def public_url(template: str | None, worker: int, host: str, port: int) -> str:
    """The URL clients reach a worker at: ``template`` with ``{worker}``, ``{port}`` and
    ``{host}`` filled in, or ``ws://HOST:PORT/`` (a wildcard bind address names this host)."""
    if template:
        return template.format(worker=worker, port=port, host=host)
    if host in ("", "0.0.0.0", "::"):
        host = socket.getfqdn()
    if ":" in host:
        host = f"[{host}]"
    return f"ws://{host}:{port}/"


# --- liveness -------------------------------------------------------------------------------


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (a zombie awaiting its parent does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        return stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3] != b"Z"
    except (OSError, ValueError):
        return True  # no /proc: trust kill()


@dataclass
class WorkerRow:
    worker: int
    url: str
    pid: int
    host: str
    started_at: float
    heartbeat_at: float
    listing_rev: int

    def live(self, now: float, stale_after: float, host: str) -> bool:
        if now - self.heartbeat_at > stale_after:
            return False
        return self.host != host or pid_alive(self.pid)


_WORKER_COLS = "w.worker, w.url, w.pid, w.host, w.started_at, w.heartbeat_at, w.listing_rev"


def _row(values: tuple[Any, ...]) -> WorkerRow | None:
    return None if values[0] is None else WorkerRow(*values)


# --- the registry: synchronous SQL, one connection, one thread -------------------------------


class Registry:
    """The cluster's tables in the shared SQLite file (use from one thread)."""

    def __init__(self, path: str, busy_timeout: float = 5.0) -> None:
        self.conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
        try:
            self.conn.executescript(_SCHEMA)
        except BaseException:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    def _tx(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            result = fn(c)
        except BaseException:
            c.execute("ROLLBACK")
            raise
        c.execute("COMMIT")
        return result

    # -- workers --

    def register(
        self, worker: int, url: str, pid: int, host: str, now: float, stale_after: float
    ) -> None:
        def tx(c: sqlite3.Connection) -> None:
            held = self._worker(worker)
            if (
                held is not None
                and (held.pid, held.host) != (pid, host)
                and held.live(now, stale_after, host)
            ):
                raise ClusterError(
                    f"worker {worker} is already registered by live process {held.pid} on "
                    f"{held.host} ({held.url})"
                )
            rev = (held.listing_rev if held is not None else 0) + 1
            c.execute(
                "INSERT OR REPLACE INTO workers (worker, url, pid, host, started_at,"
                " heartbeat_at, listing, listing_rev) VALUES (?, ?, ?, ?, ?, ?, '[]', ?)",
                (worker, url, pid, host, now, now, rev),
            )
            c.execute(
                "DELETE FROM table_owner WHERE closed_at IS NOT NULL AND closed_at < ?",
                (now - CLOSED_ROWS_KEPT,),
            )

        self._tx(tx)

    def deregister(self, worker: int, pid: int) -> None:
        self.conn.execute("DELETE FROM workers WHERE worker = ? AND pid = ?", (worker, pid))

    def _worker(self, worker: int) -> WorkerRow | None:
        r = self.conn.execute(
            f"SELECT {_WORKER_COLS} FROM workers w WHERE w.worker = ?", (worker,)
        ).fetchone()
        return None if r is None else WorkerRow(*r)

    def workers(self) -> list[WorkerRow]:
        rows = self.conn.execute(f"SELECT {_WORKER_COLS} FROM workers w ORDER BY w.worker")
        return [WorkerRow(*r) for r in rows]

    def beat(
        self,
        worker: int,
        pid: int,
        now: float,
        listing: bytes | None,
        known: dict[int, tuple[int, int]],
    ) -> tuple[bool, list[WorkerRow], dict[int, list[dict[str, Any]]]]:
        """Heartbeat (and publish ``listing`` when given); then every registration, and the
        listings of the other workers whose (pid, revision) differs from ``known``."""
        c = self.conn
        if listing is None:
            cur = c.execute(
                "UPDATE workers SET heartbeat_at = ? WHERE worker = ? AND pid = ?",
                (now, worker, pid),
            )
        else:
            cur = c.execute(
                "UPDATE workers SET heartbeat_at = ?, listing = ?, listing_rev = listing_rev + 1"
                " WHERE worker = ? AND pid = ?",
                (now, listing.decode(), worker, pid),
            )
        ours = cur.rowcount == 1
        rows = self.workers()
        listings: dict[int, list[dict[str, Any]]] = {}
        for r in rows:
            if r.worker != worker and known.get(r.worker) != (r.pid, r.listing_rev):
                (text,) = c.execute(
                    "SELECT listing FROM workers WHERE worker = ?", (r.worker,)
                ).fetchone()
                try:
                    listings[r.worker] = _decode(text)
                except msgspec.DecodeError:
                    listings[r.worker] = []
        return ours, rows, listings

    # -- tables and tokens --

    def claim_tables(self, worker: int, table_ids: list[str], now: float) -> None:
        self.conn.executemany(
            "INSERT INTO table_owner (table_id, worker, created_at) VALUES (?, ?, ?)"
            " ON CONFLICT (table_id) DO UPDATE SET worker = excluded.worker, closed_at = NULL",
            [(tid, worker, now) for tid in table_ids],
        )

    def close_table(self, table_id: str, now: float) -> None:
        def tx(c: sqlite3.Connection) -> None:
            c.execute("UPDATE table_owner SET closed_at = ? WHERE table_id = ?", (now, table_id))
            c.execute("DELETE FROM token_owner WHERE table_id = ?", (table_id,))

        self._tx(tx)

    def index_tokens(self, pairs: list[tuple[str, str]]) -> None:
        """(token hash, table id) pairs."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO token_owner (token_hash, table_id) VALUES (?, ?)", pairs
        )

    def drop_token(self, hashed: str) -> None:
        self.conn.execute("DELETE FROM token_owner WHERE token_hash = ?", (hashed,))

    def table_owner(self, table_id: str) -> tuple[int | None, bool, WorkerRow | None]:
        """(owner, closed, its registration) of a table; (None, False, None) if unknown."""
        r = self.conn.execute(
            f"SELECT o.worker, o.closed_at IS NOT NULL, {_WORKER_COLS} FROM table_owner o"
            " LEFT JOIN workers w ON w.worker = o.worker WHERE o.table_id = ?",
            (table_id,),
        ).fetchone()
        if r is None:
            return None, False, None
        return r[0], bool(r[1]), _row(r[2:])

    def token_table(self, hashed: str) -> str | None:
        r = self.conn.execute(
            "SELECT table_id FROM token_owner WHERE token_hash = ?", (hashed,)
        ).fetchone()
        return None if r is None else str(r[0])

    def worker(self, worker: int) -> WorkerRow | None:
        return self._worker(worker)


# --- the worker side: attached to a Server ---------------------------------------------------


class TokenIndex(dict[str, "Table"]):
    """The lobby's seat tokens (token, or its hash -> table), mirrored into ``token_owner``
    (by hash) so that another worker can redirect a ``resume`` or a ``hello`` with the token."""

    def __init__(self, cluster: Cluster, items: dict[str, Table]) -> None:
        super().__init__(items)
        self._cluster = cluster

    def __setitem__(self, token: str, table: Table) -> None:
        super().__setitem__(token, table)
        self._cluster.token_added(token, table.id)

    def __delitem__(self, token: str) -> None:
        super().__delitem__(token)
        self._cluster.token_removed(token)

    def pop(self, token: str, *default: Any) -> Any:  # type: ignore[override]
        had = token in self
        value = super().pop(token, *default)
        if had:
            self._cluster.token_removed(token)
        return value


class Cluster:
    """This worker's part in a cluster: registration and heartbeat, table and token ownership,
    redirects, and the merged lobby listing. Created by the Server when ``cfg.worker_id`` is
    set; the lobby and the server call the few hooks below."""

    def __init__(self, cfg: Config, lobby: Lobby) -> None:
        assert cfg.worker_id is not None
        self.cfg = cfg
        self.lobby = lobby
        self.worker: int = cfg.worker_id
        self.prefix = table_prefix(self.worker)
        self.heartbeat = max(0.05, float(cfg.heartbeat))
        self.stale_after = max(5 * self.heartbeat, 3.0)
        self.pid = os.getpid()
        self.host = socket.gethostname()
        self.url = ""  # known once listening
        self._template = cfg.public_url
        parent = os.environ.get(SUPERVISOR_ENV)
        self._supervisor = int(parent) if parent and parent.isdigit() else None
        self._ex = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="atout-cluster")
        self._reg: Registry | None = None
        self._opened = self._ex.submit(self._open, cfg.db)
        self._writes: set[concurrent.futures.Future[Any]] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._beat: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._closed = False
        self._published: bytes | None = None
        self._workers: dict[int, WorkerRow] = {}
        self._known: dict[int, tuple[int, int]] = {}
        self._listings: dict[int, list[dict[str, Any]]] = {}
        self.lobby.cluster = self
        # The lobby keys its tokens by their hash when it can look a raw token up
        # (``table_for_token``), by the raw token otherwise; the registry always by hash.
        self._keys_hashed = hasattr(self.lobby, "table_for_token")
        self.lobby.tokens = TokenIndex(self, dict(self.lobby.tokens))

    # -- the registry thread --

    def _open(self, path: str) -> None:
        self._reg = Registry(path)

    def _registry(self) -> Registry:
        if self._reg is None:
            raise ClusterError("the cluster registry is not open")
        return self._reg

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.wrap_future(self._ex.submit(lambda: fn(self._registry(), *args)))

    def _write(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue a registry write (in order, off the event loop); failures are logged."""
        if self._closed:
            return
        fut = self._ex.submit(lambda: fn(self._registry(), *args))
        self._writes.add(fut)
        fut.add_done_callback(self._write_done)

    def _write_done(self, fut: concurrent.futures.Future[Any]) -> None:
        self._writes.discard(fut)
        if not fut.cancelled() and fut.exception() is not None:
            log.error("worker %d: registry write failed: %s", self.worker, fut.exception())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- lifecycle (Server.start / Server.stop) --

    async def start(self, port: int) -> None:
        """Register (after listening: the URL names the real ``port``), claim the tables and
        tokens this worker already holds (rebuilt ones), start the heartbeat. On failure the
        caller stops listening: a worker that cannot take its place must not accept clients."""
        self.url = public_url(self._template, self.worker, self.cfg.host, port)
        try:
            await asyncio.wrap_future(self._opened)
            await self._call(
                Registry.register,
                self.worker,
                self.url,
                self.pid,
                self.host,
                time.time(),
                self.stale_after,
            )
        except BaseException:
            self._closed = True
            self._ex.shutdown(wait=False)
            raise
        if self.lobby.tables:
            self._write(Registry.claim_tables, self.worker, list(self.lobby.tables), time.time())
        if self.lobby.tokens:
            pairs = [(self._hash_of(k), t.id) for k, t in self.lobby.tokens.items()]
            self._write(Registry.index_tokens, pairs)
        self._beat = asyncio.get_running_loop().create_task(self._heartbeat())
        log.info("worker %d registered at %s (pid %d)", self.worker, self.url, self.pid)

    async def stop(self) -> None:
        """Deregister at once (nobody is sent here any more), then flush and close."""
        if self._closed:
            return
        self._closed = True
        if self._beat is not None:
            self._beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beat
        with contextlib.suppress(Exception):
            await self._call(Registry.deregister, self.worker, self.pid)
        if self._tasks:  # lookups in flight still get their answer
            await asyncio.wait(list(self._tasks), timeout=2)
        for task in list(self._tasks):
            task.cancel()
        pending = list(self._writes)
        if pending:
            await asyncio.wait([asyncio.wrap_future(f) for f in pending], timeout=5)
        with contextlib.suppress(Exception):
            await self._call(Registry.close)
        self._ex.shutdown(wait=False)
        log.info("worker %d deregistered", self.worker)

    async def _heartbeat(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.heartbeat)
            self._wake.clear()
            if self._supervisor is not None and os.getppid() != self._supervisor:
                log.error("worker %d: the supervisor is gone; stopping", self.worker)
                os.kill(os.getpid(), signal.SIGTERM)
                return
            try:
                await self._beat_once()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a locked or full database: try again next beat
                log.warning("worker %d: heartbeat failed: %s", self.worker, e)
            await asyncio.sleep(min(self.heartbeat, 0.25))  # at most 4 beats/s when woken

    async def _beat_once(self) -> None:
        listing = _encode([{**t, "url": self.url} for t in self.lobby.listing()])
        publish = listing if listing != self._published else None
        ours, rows, listings = await self._call(
            Registry.beat, self.worker, self.pid, time.time(), publish, dict(self._known)
        )
        if publish is not None and ours:
            self._published = listing
        if not ours:  # our row is gone (cleaned as stale after a long pause): register again
            log.warning("worker %d: registration lost; registering again", self.worker)
            self._published = None
            await self._call(
                Registry.register,
                self.worker,
                self.url,
                self.pid,
                self.host,
                time.time(),
                self.stale_after,
            )
        self._workers = {r.worker: r for r in rows if r.worker != self.worker}
        for r in rows:
            if r.worker in listings:
                self._listings[r.worker] = listings[r.worker]
                self._known[r.worker] = (r.pid, r.listing_rev)
        for gone in set(self._listings) - set(self._workers):
            self._listings.pop(gone, None)
            self._known.pop(gone, None)

    def _live(self, row: WorkerRow | None) -> bool:
        return row is not None and row.live(time.time(), self.stale_after, self.host)

    # -- hooks from the lobby --

    def claim(self, random_id: str) -> str:
        """A new table's id (this worker's prefix), its ownership recorded in the database."""
        tid = self.prefix + random_id
        self._write(Registry.claim_tables, self.worker, [tid], time.time())
        self._wake.set()  # publish the listing soon
        return tid

    def released(self, table_id: str) -> None:
        """A table closed. At shutdown its row stays: a restart may rebuild the table."""
        if not self.lobby.shutting_down:
            self._write(Registry.close_table, table_id, time.time())
            self._wake.set()

    def _hash_of(self, key: str) -> str:
        """The registry key of a lobby token key."""
        return key if self._keys_hashed else token_hash(key)

    def token_added(self, token: str, table_id: str) -> None:
        self._write(Registry.index_tokens, [(self._hash_of(token), table_id)])

    def token_removed(self, token: str) -> None:
        if not self.lobby.shutting_down:
            self._write(Registry.drop_token, self._hash_of(token))

    # -- hooks from the server: listing and redirects --

    def listing(self) -> list[dict[str, Any]]:
        """Public tables of every live worker: ours as they are now, the others' as of their
        last heartbeat. Each with the ``url`` of its worker."""
        tables = [{**t, "url": self.url} for t in self.lobby.listing()]
        now = time.time()
        for n, row in self._workers.items():
            if n in self._listings and row.live(now, self.stale_after, self.host):
                tables.extend(self._listings[n])
        tables.sort(key=lambda t: _STATE_ORDER.get(t.get("state", ""), 3))
        return tables[: self.cfg.list_limit]

    def route(self, sess: Connection, msg: Any) -> None:
        """A request about a table this worker does not hold."""
        self._spawn(self._route_table(sess, msg))

    def route_token(self, sess: Connection, msg: Any) -> None:
        """A ``resume`` with a token this worker does not hold."""
        self._spawn(self._route_token(sess, msg, hello=False))

    def route_hello(self, sess: Connection, msg: Any) -> None:
        """A ``hello`` with a token this worker does not hold (answered before any other
        request of the connection, as a table would)."""
        sess.hello_pending = True
        self._spawn(self._route_token(sess, msg, hello=True))

    async def _owner(self, table_id: str) -> WorkerRow | None:
        """The live registration of the other worker that owns ``table_id``, if any."""
        owner, closed, row = await self._call(Registry.table_owner, table_id)
        if closed:
            return None
        if owner is None:  # not (yet) recorded: the id's prefix says who created it
            owner = worker_of(table_id)
            if owner is None or owner == self.worker:
                return None
            row = await self._call(Registry.worker, owner)
        if owner == self.worker or not self._live(row):
            return None
        return row

    def _redirect(self, sess: Connection, rid: Any, table_id: str, row: WorkerRow) -> None:
        sess.error(
            rid,
            ErrorCode.WRONG_WORKER,
            f"table {table_id} is served by worker {row.worker}: connect to {row.url}",
            details={"url": row.url, "worker": row.worker, "table": table_id},
        )

    async def _route_table(self, sess: Connection, msg: Any) -> None:
        tid: str = msg.table
        try:
            row = await self._owner(tid)
        except Exception:
            log.exception("worker %d: looking up the owner of %r", self.worker, tid[:64])
            sess.error(msg.id, ErrorCode.INTERNAL, "internal server error")
            return
        if row is None:
            sess.error(msg.id, ErrorCode.NO_SUCH_TABLE, f"no open table {tid[:64]!r}")
        else:
            self._redirect(sess, msg.id, tid, row)

    async def _route_token(self, sess: Connection, msg: Any, *, hello: bool) -> None:
        row: WorkerRow | None = None
        tid: str | None = None
        failed = False
        try:
            tid = await self._call(Registry.token_table, token_hash(msg.token or ""))
            if tid is not None:
                row = await self._owner(tid)
        except Exception:
            log.exception("worker %d: looking up a seat token's table", self.worker)
            failed = True
        finally:
            if hello:
                sess.hello_pending = False
        if failed:
            sess.error(msg.id, ErrorCode.INTERNAL, "internal server error")
        elif row is None or tid is None:
            sess.error(msg.id, ErrorCode.BAD_TOKEN, "this seat token is not valid (any more)")
        else:
            self._redirect(sess, msg.id, tid, row)


# --- command line -------------------------------------------------------------------------


def supervise(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    """``atout-server serve --workers N --port P``: run N workers (``serve --worker-id n
    --port P+n`` with the same other options), restart any that dies, and stop them all on
    SIGTERM or SIGINT."""
    try:  # the workers' log format (server/ops/logs.py), when this version has it
        from server.ops.logs import setup

        setup(args.log_level, getattr(args, "log_format", "text"))
    except ImportError:
        logging.basicConfig(
            level=getattr(logging, str(args.log_level).upper(), logging.INFO),
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
    n_workers: int = args.workers
    if args.port == 0:
        log.error("--workers needs a fixed --port: the workers listen on PORT..PORT+N-1")
        return 2
    base = list(argv if argv is not None else sys.argv[1:])
    # Migrations and the registry tables once, before N processes race to apply them.
    from server.store.sqlite import Store, StoreError

    try:
        Store(args.db).close()
        registry = Registry(args.db)
    except (StoreError, sqlite3.Error, OSError) as e:
        log.error("cannot open the database %s: %s", args.db, e)
        return 1

    stopping = False

    def on_signal(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    env = {**os.environ, SUPERVISOR_ENV: str(os.getpid())}
    procs: dict[int, subprocess.Popen[bytes]] = {}
    started: dict[int, float] = {}
    failures = dict.fromkeys(range(n_workers), 0)
    due = dict.fromkeys(range(n_workers), 0.0)

    def spawn(n: int) -> None:
        cmd = [sys.executable, "-m", "server.cli", *base]
        cmd += ["--worker-id", str(n), "--port", str(args.port + n)]
        procs[n] = subprocess.Popen(cmd, env=env)
        started[n] = time.monotonic()
        log.info("worker %d started on port %d (pid %d)", n, args.port + n, procs[n].pid)

    log.info(
        "supervising %d workers on ports %d..%d (database %s)",
        n_workers,
        args.port,
        args.port + n_workers - 1,
        args.db,
    )
    try:
        while not stopping:
            now = time.monotonic()
            for n in range(n_workers):
                p = procs.get(n)
                if p is None:
                    if now >= due[n]:
                        spawn(n)
                    continue
                code = p.poll()
                if code is None:
                    continue
                del procs[n]
                with contextlib.suppress(sqlite3.Error):
                    registry.deregister(n, p.pid)  # others stop sending clients there now
                # Back off when a worker keeps dying at start (port taken, bad database...).
                failures[n] = 0 if now - started[n] > 30 else failures[n] + 1
                delay = 0.0 if failures[n] <= 1 else min(30.0, 0.5 * 2 ** (failures[n] - 1))
                due[n] = now + delay
                log.warning(
                    "worker %d (pid %d) exited with %s; restarting in %.1f s",
                    n,
                    p.pid,
                    code,
                    delay,
                )
            time.sleep(0.1)
    finally:
        log.info("stopping %d workers", len(procs))
        for p in procs.values():
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for n, p in procs.items():
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.error("worker %d (pid %d) did not stop in time: killing it", n, p.pid)
                p.kill()
                p.wait()
                with contextlib.suppress(sqlite3.Error):
                    registry.deregister(n, p.pid)
        registry.close()
    log.info("stopped")
    return 0

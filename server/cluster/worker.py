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
import subprocess
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import msgspec

from protocol.errors import ErrorCode
from server.config import token_hash
from server.store.base import Fence, Registry, StoreError, WorkerIdTaken, WorkerRow, pid_alive
from server.tables.lobby import ListKey, list_key, paginate
from server.tables.seats import Connection

__all__ = ["Cluster", "ClusterError", "WorkerRow", "pid_alive", "public_url", "worker_of"]

if TYPE_CHECKING:
    from server.config import Config
    from server.tables.lobby import Lobby
    from server.tables.table import Table

log = logging.getLogger("atout.cluster")

T = TypeVar("T")
_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode

_PREFIX = re.compile(r"^w(\d{1,6})-")
SUPERVISOR_ENV = "ATOUT_SUPERVISOR_PID"  # set for the workers a supervisor starts


class ClusterError(Exception):
    """This worker cannot take its place in the cluster (its id is held by a live process)."""


# --- identifiers ----------------------------------------------------------------------------


def table_prefix(worker: int) -> str:
    return f"w{worker}-"


def worker_of(table_id: str) -> int | None:
    """The worker a table id names by its prefix (a hint: the database decides)."""
    m = _PREFIX.match(table_id)
    return int(m.group(1)) if m else None


def public_url(
    template: str | None, worker: int, host: str, port: int, *, slot: int | None = None
) -> str:
    """The URL clients reach a worker at: ``template`` with ``{worker}`` (its id), ``{slot}``
    (its place on its host: port offset), ``{port}``, ``{host}`` (the bind address) and
    ``{hostname}`` (this machine's name) filled in, or ``ws://HOST:PORT/`` (a wildcard bind
    address names this host)."""
    if template:
        return template.format(
            worker=worker,
            slot=worker if slot is None else slot,
            port=port,
            host=host,
            hostname=socket.gethostname(),
        )
    if host in ("", "0.0.0.0", "::"):
        host = socket.getfqdn()
    if ":" in host:
        host = f"[{host}]"
    return f"ws://{host}:{port}/"


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
        table = self[token]
        super().__delitem__(token)
        self._cluster.token_removed(token, table.id)

    def pop(self, token: str, *default: Any) -> Any:
        had = token in self
        value = super().pop(token, *default)
        if had:
            self._cluster.token_removed(token, value.id)
        return value


class Cluster:
    """This worker's part in a cluster: registration and heartbeat lease, table and token
    ownership with the ownership epochs (fencing), adoption of lost workers' tables, redirects,
    and the merged lobby listing. Created by the Server when ``cfg.worker_id`` or
    ``cfg.worker_slot`` is set; the lobby and the server call the few hooks below.

    Start-up is in two steps: :meth:`prepare` registers (the registry allocates the id on
    PostgreSQL) and takes over the tables of a dead predecessor, so that the server rebuilds
    exactly the tables it owns before it listens; :meth:`start` publishes the URL (the real
    port) and starts the heartbeat."""

    def __init__(self, cfg: Config, lobby: Lobby) -> None:
        assert cfg.worker_id is not None or cfg.worker_slot is not None
        self.cfg = cfg
        self.lobby = lobby
        self.slot: int | None = cfg.worker_slot if cfg.worker_slot is not None else cfg.worker_id
        self.worker: int = cfg.worker_id if cfg.worker_id is not None else -1  # until registered
        self.prefix = table_prefix(self.worker)
        self.heartbeat = max(0.05, float(cfg.heartbeat))
        # The lease: long enough that a worker stalled by a busy machine keeps its tables
        # (a lapse gets them adopted), short enough that a dead one's are adopted soon.
        lease = cfg.lease if cfg.lease is not None and cfg.lease > 0 else 5 * self.heartbeat
        self.stale_after = max(lease, 3.0, 2 * self.heartbeat)
        self.pid = os.getpid()
        self.host = cfg.host_name or socket.gethostname()
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
        self._last_beat = 0.0  # monotonic time of the last heartbeat that renewed the lease
        self._listener: threading.Thread | None = None
        #: set once the listing listener listens (PostgreSQL): from then on no other worker's
        #: listing change is missed (tests wait for it rather than sleep)
        self.listening = threading.Event()
        #: table id -> ownership epoch, for every table this worker serves (the fences)
        self.epochs: dict[str, int] = {}
        self._restoring: set[str] = set()  # adopted tables being rebuilt here (``moving``)
        self.adopted = 0  # tables taken over from lost workers (metrics, tests)
        self.lost = 0  # tables lost to another worker
        self.lobby.cluster = self
        if self.lobby.journal is not None:
            self.lobby.journal.fence = self.fence
        # The lobby keys its tokens by their hash when it can look a raw token up
        # (``table_for_token``), by the raw token otherwise; the registry always by hash.
        self._keys_hashed = hasattr(self.lobby, "table_for_token")
        self.lobby.tokens = TokenIndex(self, dict(self.lobby.tokens))

    # -- the registry thread --

    def _open(self, db: str) -> None:
        from server.store import open_registry

        self._reg = open_registry(db)

    def _registry(self) -> Registry:
        if self._reg is None:
            raise ClusterError("the cluster registry is not open")
        return self._reg

    async def _call(self, method: str, *args: Any) -> Any:
        """Call registry ``method`` on the registry thread and wait for its answer."""
        return await asyncio.wrap_future(
            self._ex.submit(lambda: getattr(self._registry(), method)(*args))
        )

    def _write(self, method: str, *args: Any) -> None:
        """Queue a registry write (in order, off the event loop); failures are logged."""
        if self._closed:
            return
        fut = self._ex.submit(lambda: getattr(self._registry(), method)(*args))
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

    # -- fencing --

    def fence(self, table_id: str) -> Fence:
        """Who may write ``table_id``: this worker at the epoch it holds (-1 if it holds none,
        which the store refuses)."""
        return (table_id, self.worker, self.epochs.get(table_id, -1))

    # -- lifecycle (Server.start / Server.stop) --

    async def prepare(self) -> set[str]:
        """Register and take over what a dead predecessor in our slot (or under our id) left;
        returns the ids of the open tables this worker now owns, to rebuild before listening.
        On failure (ClusterError) the server must not start."""
        try:
            await asyncio.wrap_future(self._opened)
            try:
                self.worker = await self._call(
                    "register",
                    self.cfg.worker_id,
                    "",  # no URL until listening: not a redirect target yet
                    self.pid,
                    self.host,
                    time.time(),
                    self.stale_after,
                    self.slot,
                )
            except WorkerIdTaken as e:
                raise ClusterError(str(e)) from None
            self.prefix = table_prefix(self.worker)
            self._last_beat = time.monotonic()
            taken = await self._call(
                "adopt", self.worker, time.time(), self.stale_after, self.host, self.slot,
                True,
            )  # fmt: skip
            self.epochs = await self._call("owned_tables", self.worker)
        except BaseException:
            self._closed = True
            self._ex.shutdown(wait=False)
            raise
        for tid, old, epoch in taken:
            if old != self.worker:
                self.adopted += 1
                log.info("worker %d: adopted table %s from worker %d (epoch %d)",
                         self.worker, tid, old, epoch)  # fmt: skip
        return set(self.epochs)

    async def start(self, port: int) -> None:
        """Publish our URL (it names the real ``port``), index the tokens of the rebuilt tables,
        start the heartbeat (and the listing listener)."""
        self.url = public_url(self._template, self.worker, self.cfg.host, port, slot=self.slot)
        await self._call("set_url", self.worker, self.pid, self.url)
        if self.lobby.tokens:
            pairs = [(self._hash_of(k), t.id) for k, t in self.lobby.tokens.items()]
            self._write("index_tokens", pairs)
        loop = asyncio.get_running_loop()
        if self._registry().pushes:
            self._listener = threading.Thread(
                target=self._listen, args=(loop,), name="atout-listen", daemon=True
            )
            self._listener.start()
        self._beat = loop.create_task(self._heartbeat())
        log.info("worker %d registered at %s (pid %d, host %s)",
                 self.worker, self.url, self.pid, self.host)  # fmt: skip

    def _listen(self, loop: asyncio.AbstractEventLoop) -> None:
        """On its own thread and connection: wake the heartbeat when another worker's listing
        changes (PostgreSQL LISTEN/NOTIFY), so that its new table is listed at once."""
        from server.store import open_registry

        reg: Registry | None = None
        while not self._closed:
            try:
                if reg is None:
                    reg = open_registry(self.cfg.db)
                    got = reg.listen(0)  # LISTEN at once, then say so
                    self.listening.set()
                else:
                    got = reg.listen(0.5)
                if got and not self._closed:
                    loop.call_soon_threadsafe(self._wake.set)
            except Exception as e:
                log.warning("worker %d: listing listener: %s", self.worker, e)
                if reg is not None:
                    with contextlib.suppress(Exception):
                        reg.close()
                reg = None
                time.sleep(0.5)
        if reg is not None:
            with contextlib.suppress(Exception):
                reg.close()

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
            await self._call("deregister", self.worker, self.pid)
            await self._call("notify")
        if self._tasks:  # lookups in flight still get their answer
            await asyncio.wait(list(self._tasks), timeout=2)
        for task in list(self._tasks):
            task.cancel()
        pending = list(self._writes)
        if pending:
            await asyncio.wait([asyncio.wrap_future(f) for f in pending], timeout=5)
        with contextlib.suppress(Exception):
            await self._call("close")
        self._ex.shutdown(wait=False)
        if self._listener is not None:
            await asyncio.to_thread(self._listener.join, 2)
        log.info("worker %d deregistered", self.worker)

    async def _heartbeat(self) -> None:
        while not self._closed:
            # asyncio.timeout, not wait_for: Python 3.11's wait_for returns the awaited result
            # when the cancel of stop() lands as a wake-up completes it (another worker's
            # notify, a table to adopt), swallowing the cancel, and stop() awaited this loop
            # forever (tests/test_cluster_unit.py). The _closed check ends it even then.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.heartbeat):
                    await self._wake.wait()
            if self._closed:
                return
            self._wake.clear()
            if self._supervisor is not None and os.getppid() != self._supervisor:
                log.error("worker %d: the supervisor is gone; stopping", self.worker)
                os.kill(os.getpid(), signal.SIGTERM)
                return
            try:
                await self._beat_once()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a locked, full or unreachable database: next beat
                log.warning("worker %d: heartbeat failed: %s", self.worker, e)
            await asyncio.sleep(min(self.heartbeat, 0.25))  # at most 4 beats/s when woken

    async def _beat_once(self) -> None:
        listing = _encode([{**t, "url": self.url} for t in self.lobby.listing()])
        publish = listing if listing != self._published else None
        started = time.monotonic()
        lapsed = started - self._last_beat > self.stale_after
        ours, rows, listings = await self._call(
            "beat", self.worker, self.pid, time.time(), publish, dict(self._known)
        )
        if publish is not None and ours:
            self._published = listing
        if not ours:  # our row is gone or marked stopped: register again, same id
            log.warning("worker %d: registration lost; registering again", self.worker)
            self._published = None
            await self._call(
                "register", self.worker, self.url, self.pid, self.host, time.time(),
                self.stale_after, self.slot,
            )  # fmt: skip
            lapsed = True
        self._last_beat = started
        self._workers = {r.worker: r for r in rows if r.worker != self.worker}
        for r in rows:
            if r.worker in listings:
                self._listings[r.worker] = listings[r.worker]
                self._known[r.worker] = (r.pid, r.listing_rev)
        for gone in set(self._listings) - set(self._workers):
            self._listings.pop(gone, None)
            self._known.pop(gone, None)
        # Which of our tables are still ours (another worker adopts them once our lease ran
        # out: after a long pause, a lost connection...); and what we may adopt.
        # (only the tables known before the query: one created meanwhile may not be in it)
        known = dict(self.epochs)
        held = await self._call("owned_tables", self.worker)
        for tid, epoch in known.items():
            if self.epochs.get(tid) != epoch:
                continue  # changed meanwhile (adopted, lost, forgotten)
            if tid in self.lobby.tables:
                if held.get(tid) != epoch:
                    self._lose(tid, "lease lapsed" if lapsed else "owner row changed")
            elif tid not in held:  # closed here, and its owner row says so: forget it
                del self.epochs[tid]
        if not self.lobby.shutting_down and not self._closed and self.url:
            await self._adopt()

    async def _adopt(self) -> None:
        taken = await self._call(
            "adopt", self.worker, time.time(), self.stale_after, self.host, self.slot
        )
        if not taken:
            return
        t0 = time.monotonic()
        for tid, _old, epoch in taken:
            self.epochs[tid] = epoch
        ids = {tid for tid, _, _ in taken}
        self._restoring |= ids
        try:
            n = await self.lobby.restore(lambda tid: tid in ids and tid not in self.lobby.tables)
        finally:
            self._restoring -= ids
        self.adopted += len(taken)
        for tid, old, epoch in taken:
            log.warning("worker %d: adopted table %s from worker %d (epoch %d)",
                        self.worker, tid, old, epoch)  # fmt: skip
        log.info("worker %d: %d table(s) adopted, %d rebuilt in %.3f s",
                 self.worker, len(taken), n, time.monotonic() - t0)  # fmt: skip
        pairs = [(self._hash_of(k), t.id) for k, t in self.lobby.tokens.items() if t.id in ids]
        if pairs:
            self._write("index_tokens", pairs)
        self._wake.set()  # publish the listing with them

    def _lose(self, table_id: str, why: str) -> None:
        """Another worker owns ``table_id`` now: stop serving it, write nothing more."""
        table = self.lobby.tables.get(table_id)
        self.epochs.pop(table_id, None)
        if table is None:
            return
        self.lost += 1
        log.error("worker %d: table %s is served by another worker now (%s); dropping it",
                  self.worker, table_id, why)  # fmt: skip
        table.post(("lost",))

    def fenced(self, table_id: str) -> None:
        """A write of ``table_id`` was refused by the store: another worker adopted it."""
        if table_id in self.epochs:
            self._lose(table_id, "a write was fenced")

    def _live(self, row: WorkerRow | None) -> bool:
        return (
            row is not None and bool(row.url) and row.live(time.time(), self.stale_after, self.host)
        )

    # -- hooks from the lobby --

    def claim(self, random_id: str) -> str:
        """A new table's id (this worker's prefix), its ownership recorded in the database."""
        tid = self.prefix + random_id
        self.epochs[tid] = 1
        self._write("claim_tables", self.worker, [tid], time.time())
        self._wake.set()  # publish the listing soon
        return tid

    def released(self, table_id: str) -> None:
        """A table closed. At shutdown its row stays: a restart may rebuild the table. Its
        epoch stays known (its last writes, queued right after, carry it as their fence) until
        a heartbeat finds its owner row closed."""
        if not self.lobby.shutting_down and table_id in self.epochs:
            self._write("close_table", table_id, time.time(), self.fence(table_id))
            self._wake.set()

    def _hash_of(self, key: str) -> str:
        """The registry key of a lobby token key."""
        return key if self._keys_hashed else token_hash(key)

    def token_added(self, token: str, table_id: str) -> None:
        self._write("index_tokens", [(self._hash_of(token), table_id)])

    def token_removed(self, token: str, table_id: str | None = None) -> None:
        if not self.lobby.shutting_down:
            fence = self.fence(table_id) if table_id is not None else None
            self._write("drop_token", self._hash_of(token), fence)

    # -- hooks from the server: listing and redirects --

    def page(self, cursor: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None, int]:
        """A page of the public tables of every live worker: ours as they are now, the others'
        as of their last heartbeat. Each with the ``url`` of its worker."""
        entries: list[tuple[ListKey, Any]] = list(self.lobby.public())
        now = time.time()
        for n, row in self._workers.items():
            if n in self._listings and row.live(now, self.stale_after, self.host):
                entries.extend(
                    (list_key(t.get("state", ""), t.get("table", "")), t) for t in self._listings[n]
                )
        page, nxt = paginate(entries, cursor, limit)
        infos = [t if isinstance(t, dict) else {**t.info(), "url": self.url} for t in page]
        return infos, nxt, len(entries)

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

    async def _owner(self, table_id: str) -> WorkerRow | Literal["moving"] | None:
        """The live registration of the other worker that owns ``table_id``; ``"moving"``
        while the table is open but between workers (its owner's lease ran out and a live
        worker is about to adopt it, or this one is rebuilding it); None: no such table."""
        owner, closed, row = await self._call("table_owner", table_id)
        if closed:
            return None
        if owner is None:  # not (yet) recorded: the id's prefix says who created it
            owner = worker_of(table_id)
            if owner is None or owner == self.worker:
                return None
            row = await self._call("worker", owner)
            return row if self._live(row) else None  # never adopted: nothing records it
        if owner == self.worker:
            return "moving" if table_id in self._restoring else None
        if self._live(row):
            return row
        if self.lobby.shutting_down or self._closed:
            return None
        self._wake.set()  # adopt at the next beat rather than at the next interval
        return "moving"

    def _moving(self, sess: Connection, rid: Any, table_id: str) -> None:
        sess.error(
            rid,
            ErrorCode.TABLE_MOVING,
            f"table {table_id} is moving to another worker (its own stopped answering): "
            "send the request again in a moment",
            details={"table": table_id, "retry_after": round(max(self.heartbeat, 0.5), 1)},
        )

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
        elif row == "moving":
            self._moving(sess, msg.id, tid)
        else:
            self._redirect(sess, msg.id, tid, row)

    async def _route_token(self, sess: Connection, msg: Any, *, hello: bool) -> None:
        row: WorkerRow | Literal["moving"] | None = None
        tid: str | None = None
        failed = False
        try:
            tid = await self._call("token_table", token_hash(msg.token or ""))
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
        elif row == "moving":  # the token stays good: the adopter will take it
            self._moving(sess, msg.id, tid)
        else:
            self._redirect(sess, msg.id, tid, row)


# --- command line -------------------------------------------------------------------------


def supervise(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    """``atout-server serve --workers N --port P``: run N workers (``serve --worker-id n
    --port P+n`` with the same other options), restart any that dies, and stop them all on
    SIGTERM, SIGINT or SIGHUP."""
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
    if args.port + n_workers - 1 > 65535:  # the command line refuses it too (server/cli.py)
        log.error(
            "--workers %d --port %d: the workers would listen past port 65535",
            n_workers,
            args.port,
        )
        return 2
    base = list(argv if argv is not None else sys.argv[1:])
    # Migrations and the registry tables once, before N processes race to apply them.
    from server.store import describe, is_postgres, open_registry, open_store

    try:
        open_store(args.db).close()
        registry = open_registry(args.db)
    except (StoreError, OSError) as e:
        log.error("cannot open the database %s: %s", describe(args.db), e)
        return 1
    # One host (SQLite): worker n is slot n, as always. Several hosts (PostgreSQL): the
    # registry allocates each worker's id; the slot still gives its port.
    id_option = "--worker-slot" if is_postgres(args.db) else "--worker-id"
    host = getattr(args, "host_name", None) or socket.gethostname()

    stopping = False

    def on_signal(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    from server.ops.signals import stop_signals  # SIGHUP too: a closed terminal, unless nohup

    for sig in stop_signals():
        signal.signal(sig, on_signal)
    env = {**os.environ, SUPERVISOR_ENV: str(os.getpid())}
    procs: dict[int, subprocess.Popen[bytes]] = {}
    started: dict[int, float] = {}
    failures = dict.fromkeys(range(n_workers), 0)
    due = dict.fromkeys(range(n_workers), 0.0)

    def spawn(n: int) -> None:
        cmd = [sys.executable, "-m", "server.cli", *base]
        cmd += [id_option, str(n), "--port", str(args.port + n)]
        procs[n] = subprocess.Popen(cmd, env=env)
        started[n] = time.monotonic()
        log.info("worker %d started on port %d (pid %d)", n, args.port + n, procs[n].pid)

    log.info(
        "supervising %d workers on ports %d..%d (database %s)",
        n_workers,
        args.port,
        args.port + n_workers - 1,
        describe(args.db),
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
                with contextlib.suppress(StoreError, OSError):
                    registry.deregister(None, p.pid, host)  # not a redirect target any more
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
                with contextlib.suppress(StoreError, OSError):
                    registry.deregister(None, p.pid, host)
        registry.close()
    log.info("stopped")
    return 0

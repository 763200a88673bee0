"""The cluster registry in the shared SQLite file (``server.store.base.Registry``; one host).

Tables (their own migration set, ``atout-registry``, applied by the first worker or the
supervisor: a lone server never creates them):

- ``workers(worker, url, pid, host, slot, started_at, heartbeat_at, listing, listing_rev,
  stopped)``: one registration per worker id; ``stopped`` once it deregistered (kept so that its
  lease still tells when its tables may be adopted);
- ``table_owner(table_id, worker, epoch, created_at, closed_at)``: who serves a table, and the
  ownership epoch every write of the table is checked against (``SqliteStore.write_batch``);
- ``token_owner(token_hash, table_id)``: seat tokens by SHA-256 only.

On one host a worker id is the worker's slot (``--worker-id``, its port offset), as before.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
from sqlite_utils import Database, Migrations

from server.store.base import Adopted, Fence, StoreError, WorkerIdTaken, WorkerRow

T = TypeVar("T")
_decode = msgspec.json.decode

CLOSED_ROWS_KEPT = 86400.0  # seconds a closed table's ownership row answers no_such_table

REGISTRY_MIGRATIONS = Migrations("atout-registry")
REGISTRY_MIGRATION_NAMES: list[str] = []


def _migration(name: str) -> Callable[[Callable[[Database], None]], Callable[[Database], None]]:
    REGISTRY_MIGRATION_NAMES.append(name)
    return REGISTRY_MIGRATIONS(name=name)


@_migration("r0001_registry")
def _r0001(db: Database) -> None:
    # IF NOT EXISTS: databases from before this migration set have these tables already
    db.executescript(
        """
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
        """
    )


@_migration("r0002_epochs")
def _r0002(db: Database) -> None:
    # Adoption (docs/SCALING.md section 3): the ownership epoch, the slot, clean stops kept.
    db.execute("ALTER TABLE table_owner ADD COLUMN epoch INTEGER NOT NULL DEFAULT 1")
    db.execute("CREATE INDEX table_owner_worker ON table_owner (worker) WHERE closed_at IS NULL")
    db.execute("ALTER TABLE workers ADD COLUMN slot INTEGER")
    db.execute("ALTER TABLE workers ADD COLUMN stopped INTEGER NOT NULL DEFAULT 0")


_WORKER_COLS = (
    "w.worker, w.url, w.pid, w.host, w.started_at,"
    " CASE WHEN w.stopped THEN 0 ELSE w.heartbeat_at END, w.listing_rev, w.slot"
)


def _row(values: tuple[Any, ...]) -> WorkerRow | None:
    return None if values[0] is None else WorkerRow(*values)


class SqliteRegistry:
    """The registry on its own connection to the SQLite file (use from one thread)."""

    pushes = False

    def __init__(self, path: str, busy_timeout: float = 5.0) -> None:
        self.conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
        try:
            db = Database(self.conn)
            applied = [m.name for m in REGISTRY_MIGRATIONS.applied(db)]
            unknown = [n for n in applied if n not in REGISTRY_MIGRATION_NAMES]
            if unknown:
                raise StoreError(
                    f"{path} was written by a newer Atout (unknown registry migrations: "
                    f"{', '.join(unknown)}); refusing to write to it"
                )
            if len(applied) < len(REGISTRY_MIGRATION_NAMES):
                self.conn.execute("BEGIN IMMEDIATE")  # one worker migrates, the others wait
                try:
                    REGISTRY_MIGRATIONS.apply(db)
                finally:
                    if self.conn.in_transaction:
                        self.conn.execute("COMMIT")
        except BaseException:
            self.conn.close()
            raise
        self._last_lost: set[str] = set()

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
        self,
        worker: int | None,
        url: str,
        pid: int,
        host: str,
        now: float,
        stale_after: float,
        slot: int | None = None,
    ) -> int:
        def tx(c: sqlite3.Connection) -> int:
            wid = worker if worker is not None else slot
            if wid is None:  # one host: the next free number
                (top,) = c.execute("SELECT COALESCE(MAX(worker), -1) FROM workers").fetchone()
                wid = int(top) + 1
            held = self._worker(wid)
            if (
                held is not None
                and (held.pid, held.host) != (pid, host)
                and held.live(now, stale_after, host)
            ):
                raise WorkerIdTaken(
                    f"worker {wid} is already registered by live process {held.pid} on "
                    f"{held.host} ({held.url})"
                )
            rev = (held.listing_rev if held is not None else 0) + 1
            c.execute(
                "INSERT OR REPLACE INTO workers (worker, url, pid, host, slot, started_at,"
                " heartbeat_at, listing, listing_rev, stopped)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, '[]', ?, 0)",
                (wid, url, pid, host, slot if slot is not None else wid, now, now, rev),
            )
            c.execute(
                "DELETE FROM table_owner WHERE closed_at IS NOT NULL AND closed_at < ?",
                (now - CLOSED_ROWS_KEPT,),
            )
            return wid

        return self._tx(tx)

    def set_url(self, worker: int, pid: int, url: str) -> None:
        self.conn.execute(
            "UPDATE workers SET url = ? WHERE worker = ? AND pid = ?", (url, worker, pid)
        )

    def deregister(self, worker: int | None, pid: int, host: str | None = None) -> None:
        """Not a redirect target any more (at once); its lease still runs for adoption.
        ``worker`` None: whichever worker process ``pid`` of ``host`` registered."""
        sql = "UPDATE workers SET stopped = 1, listing = '[]', listing_rev = listing_rev + 1"
        if worker is not None:
            self.conn.execute(sql + " WHERE worker = ? AND pid = ?", (worker, pid))
        else:
            self.conn.execute(sql + " WHERE pid = ? AND host = ?", (pid, host))

    def _worker(self, worker: int) -> WorkerRow | None:
        r = self.conn.execute(
            f"SELECT {_WORKER_COLS} FROM workers w WHERE w.worker = ?", (worker,)
        ).fetchone()
        return None if r is None else WorkerRow(*r)

    def workers(self) -> list[WorkerRow]:
        rows = self.conn.execute(
            f"SELECT {_WORKER_COLS} FROM workers w WHERE NOT w.stopped ORDER BY w.worker"
        )
        return [WorkerRow(*r) for r in rows]

    def worker(self, worker: int) -> WorkerRow | None:
        return self._worker(worker)

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
                "UPDATE workers SET heartbeat_at = ? WHERE worker = ? AND pid = ? AND NOT stopped",
                (now, worker, pid),
            )
        else:
            cur = c.execute(
                "UPDATE workers SET heartbeat_at = ?, listing = ?, listing_rev = listing_rev + 1"
                " WHERE worker = ? AND pid = ? AND NOT stopped",
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

    def notify(self) -> None:
        pass  # one host: the others read the listings at their next heartbeat

    def listen(self, timeout: float) -> bool:
        return False

    # -- tables and tokens --

    def claim_tables(self, worker: int, table_ids: list[str], now: float) -> None:
        self.conn.executemany(
            "INSERT INTO table_owner (table_id, worker, epoch, created_at) VALUES (?, ?, 1, ?)"
            " ON CONFLICT (table_id) DO NOTHING",
            [(tid, worker, now) for tid in table_ids],
        )

    def owned_tables(self, worker: int) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT table_id, epoch FROM table_owner WHERE worker = ? AND closed_at IS NULL",
            (worker,),
        )
        return {str(t): int(e) for t, e in rows}

    def adopt(
        self,
        worker: int,
        now: float,
        stale_after: float,
        host: str,
        slot: int | None,
        include_own: bool = False,
    ) -> list[Adopted]:
        def tx(c: sqlite3.Connection) -> list[Adopted]:
            owners = c.execute(
                "SELECT DISTINCT o.worker FROM table_owner o WHERE o.closed_at IS NULL"
            ).fetchall()
            lost = []
            for (owner,) in owners:
                if owner == worker:
                    if include_own:  # a previous process under our id: ours again
                        lost.append(owner)
                    continue
                row = c.execute(
                    "SELECT pid, host, slot, heartbeat_at, stopped FROM workers WHERE worker = ?",
                    (owner,),
                ).fetchone()
                if _adoptable(row, now, stale_after, host, slot):
                    lost.append(owner)
            out: list[Adopted] = []
            for owner in lost:
                rows = c.execute(
                    "SELECT table_id, epoch FROM table_owner"
                    " WHERE worker = ? AND closed_at IS NULL",
                    (owner,),
                ).fetchall()
                for tid, epoch in rows:
                    cur = c.execute(
                        "UPDATE table_owner SET worker = ?, epoch = epoch + 1"
                        " WHERE table_id = ? AND worker = ? AND epoch = ?",
                        (worker, tid, owner, epoch),
                    )
                    if cur.rowcount == 1:
                        out.append((str(tid), int(owner), int(epoch) + 1))
            return out

        return self._tx(tx)

    def close_table(self, table_id: str, now: float, fence: Fence | None = None) -> None:
        def tx(c: sqlite3.Connection) -> None:
            if fence is not None and not _holds(c, fence):
                return  # another worker serves it now: not ours to close
            c.execute("UPDATE table_owner SET closed_at = ? WHERE table_id = ?", (now, table_id))
            c.execute("DELETE FROM token_owner WHERE table_id = ?", (table_id,))

        self._tx(tx)

    def table_owner(self, table_id: str) -> tuple[int | None, bool, WorkerRow | None]:
        """(owner, closed, its live-or-not registration) of a table; (None, False, None) if
        unknown."""
        r = self.conn.execute(
            f"SELECT o.worker, o.closed_at IS NOT NULL, {_WORKER_COLS} FROM table_owner o"
            " LEFT JOIN workers w ON w.worker = o.worker WHERE o.table_id = ?",
            (table_id,),
        ).fetchone()
        if r is None:
            return None, False, None
        return r[0], bool(r[1]), _row(r[2:])

    def index_tokens(self, pairs: list[tuple[str, str]]) -> None:
        """(token hash, table id) pairs."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO token_owner (token_hash, table_id) VALUES (?, ?)", pairs
        )

    def drop_token(self, hashed: str, fence: Fence | None = None) -> None:
        def tx(c: sqlite3.Connection) -> None:
            if fence is None or _holds(c, fence):
                c.execute("DELETE FROM token_owner WHERE token_hash = ?", (hashed,))

        self._tx(tx)

    def token_table(self, hashed: str) -> str | None:
        r = self.conn.execute(
            "SELECT table_id FROM token_owner WHERE token_hash = ?", (hashed,)
        ).fetchone()
        return None if r is None else str(r[0])


def _holds(c: sqlite3.Connection, fence: Fence) -> bool:
    tid, worker, epoch = fence
    row = c.execute("SELECT worker, epoch FROM table_owner WHERE table_id = ?", (tid,)).fetchone()
    return row is None or (row[0], row[1]) == (worker, epoch)


def _adoptable(
    row: tuple[Any, ...] | None, now: float, stale_after: float, host: str, slot: int | None
) -> bool:
    """Whether the tables of a worker (its registration ``row``: pid, host, slot,
    heartbeat_at, stopped) may be taken: its lease expired, or it is gone and we are its
    successor (same host and slot). No registration at all: gone long ago."""
    if row is None:
        return True
    pid, whost, wslot, beat, stopped = row
    if now - beat > stale_after:
        return True
    from server.store.base import pid_alive

    gone = bool(stopped) or (whost == host and not pid_alive(pid))
    return gone and whost == host and slot is not None and wslot == slot

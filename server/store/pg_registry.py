"""The cluster registry on PostgreSQL (``server.store.base.Registry``), for workers on several
hosts sharing one database.

Its tables come with the store's migrations (``0003_registry`` in ``server/store/postgres.py``):
``workers`` (registrations: URL, pid, host, slot, heartbeat, published listing), ``table_owner``
(who serves each table, with its ownership epoch), ``token_owner`` (seat tokens by SHA-256).

Across hosts a pid means nothing, so liveness is the heartbeat lease alone (``heartbeat_at``
younger than the lease), except for a worker's own host, where a dead pid also counts. Worker
ids come from a sequence at registration, so they are unique across hosts. A listing change is
pushed with ``NOTIFY atout_lobby`` in the transaction that publishes it; the other workers
``LISTEN`` on a connection of their own and refresh at once.

Adoption is a compare-and-set per table (``UPDATE ... WHERE worker = old AND epoch = e``) that
bumps the epoch. A table write holds ``FOR SHARE`` on the owner row while it checks its fence
(``PostgresStore.write_batch``), so the update waits for a write in flight and every later
write of the old owner sees the new epoch and is refused.
"""

from __future__ import annotations

import contextlib
import select
import time
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
import psycopg
from psycopg.types.json import set_json_loads

from server.store.base import Adopted, Fence, StoreError, WorkerIdTaken, WorkerRow, describe
from server.store.postgres import IDLE_IN_TRANSACTION_MS, connect, pg_error

T = TypeVar("T")
_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode

CHANNEL = "atout_lobby"
CLOSED_ROWS_KEPT = 86400.0  # seconds a closed table's ownership row answers no_such_table
GONE_ROWS_KEPT = 86400.0  # seconds an expired registration owning nothing is kept

# Leases are timed by the database server's clock (``_NOW``), never by the hosts' own: two
# hosts' clocks may disagree by more than a lease. A row's heartbeat is handed to the caller in
# the caller's own clock (its age subtracted from ``time.time()``), so ``WorkerRow.live`` works.
_NOW = "extract(epoch from clock_timestamp())"
_WORKER_COLS = (
    "w.worker, w.url, w.pid, w.host, w.started_at,"
    f" CASE WHEN w.stopped THEN NULL ELSE {_NOW} - w.heartbeat_at END, w.listing_rev, w.slot"
)


def _worker_row(r: Any) -> WorkerRow:
    """A registration, its heartbeat moved to this host's clock (0: stopped)."""
    age = r[5]
    beat = 0.0 if age is None else time.time() - float(age)
    return WorkerRow(r[0], r[1], r[2], r[3], r[4], beat, r[6], r[7])


class PostgresRegistry:
    """The registry on its own connection (use from one thread). ``listen`` needs a registry
    of its own (its connection waits for notifications)."""

    pushes = True

    def __init__(
        self, url: str, *, lock_timeout: float = 2.0, connect_timeout: float = 5.0
    ) -> None:
        self.url = url
        self.path = describe(url)
        self._lock_ms = max(1, int(lock_timeout * 1000))
        self._connect_timeout = max(1, int(connect_timeout + 0.999))
        self._conn: psycopg.Connection[Any] | None = None
        self._listening = False
        c = self._connection()
        with c.cursor() as cur:
            cur.execute("SELECT to_regclass('table_owner') IS NOT NULL")
            row = cur.fetchone()
        if not row or not row[0]:
            # the store's migrations create the registry (serve, or the supervisor, opens the
            # store first): a database without them is not one Atout has set up
            self.close()
            raise StoreError(f"{self.path} has no registry tables: open it with the store first")

    # -- the connection --

    def _connection(self) -> psycopg.Connection[Any]:
        c = self._conn
        if c is not None and not c.closed and not c.broken:
            return c
        if c is not None:
            with contextlib.suppress(Exception):
                c.close()
        self._conn = None
        self._listening = False
        try:
            c = connect(
                self.url,
                f"-c lock_timeout={self._lock_ms}"
                f" -c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_MS}",
                self._connect_timeout,
                "atout-registry",
            )
        except psycopg.Error as e:
            raise pg_error(e) from e
        set_json_loads(_decode, c)
        self._conn = c
        return c

    def _tx(self, fn: Callable[[psycopg.Cursor[Any]], T]) -> T:
        conn = self._connection()
        try:
            with conn.transaction(), conn.cursor() as cur:
                return fn(cur)
        except psycopg.Error as e:
            raise pg_error(e) from e

    def _q(self, sql: str, args: Any = None) -> list[tuple[Any, ...]]:
        try:
            with self._connection().cursor() as cur:
                cur.execute(sql, args)
                return cur.fetchall() if cur.description else []
        except psycopg.Error as e:
            raise pg_error(e) from e

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None

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
        def tx(c: psycopg.Cursor[Any]) -> int:
            if worker is None:
                c.execute("SELECT nextval('worker_ids')")
                wid = int(c.fetchone()[0])  # type: ignore[index]
                held = None
            else:
                wid = worker
                c.execute("SELECT setval('worker_ids', GREATEST(%s, (SELECT last_value FROM"
                          " worker_ids)))", (wid,))  # fmt: skip
                c.execute(
                    f"SELECT {_WORKER_COLS} FROM workers w WHERE w.worker = %s FOR UPDATE", (wid,)
                )
                r = c.fetchone()
                held = None if r is None else _worker_row(r)
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
                "INSERT INTO workers (worker, url, pid, host, slot, started_at, heartbeat_at,"
                f" listing, listing_rev, stopped) VALUES (%s, %s, %s, %s, %s, %s, {_NOW}, '[]', %s,"
                " false) ON CONFLICT (worker) DO UPDATE SET url = excluded.url,"
                " pid = excluded.pid, host = excluded.host, slot = excluded.slot,"
                " started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at,"
                " listing = '[]', listing_rev = excluded.listing_rev, stopped = false",
                (wid, url, pid, host, slot, now, rev),
            )
            c.execute(
                "DELETE FROM table_owner WHERE closed_at IS NOT NULL AND closed_at < %s",
                (now - CLOSED_ROWS_KEPT,),
            )
            c.execute(
                f"DELETE FROM workers w WHERE heartbeat_at < {_NOW} - %s AND NOT EXISTS"
                " (SELECT 1 FROM table_owner o WHERE o.worker = w.worker AND o.closed_at IS NULL)",
                (GONE_ROWS_KEPT,),
            )
            return wid

        return self._tx(tx)

    def set_url(self, worker: int, pid: int, url: str) -> None:
        self._q("UPDATE workers SET url = %s WHERE worker = %s AND pid = %s", (url, worker, pid))

    def deregister(self, worker: int | None, pid: int, host: str | None = None) -> None:
        sql = "UPDATE workers SET stopped = true, listing = '[]', listing_rev = listing_rev + 1"
        if worker is not None:
            self._q(sql + " WHERE worker = %s AND pid = %s", (worker, pid))
        else:
            self._q(sql + " WHERE pid = %s AND host = %s", (pid, host))
        self.notify()

    def workers(self) -> list[WorkerRow]:
        rows = self._q(
            f"SELECT {_WORKER_COLS} FROM workers w WHERE NOT w.stopped ORDER BY w.worker"
        )
        return [_worker_row(r) for r in rows]

    def worker(self, worker: int) -> WorkerRow | None:
        rows = self._q(f"SELECT {_WORKER_COLS} FROM workers w WHERE w.worker = %s", (worker,))
        return _worker_row(rows[0]) if rows else None

    def beat(
        self,
        worker: int,
        pid: int,
        now: float,
        listing: bytes | None,
        known: dict[int, tuple[int, int]],
    ) -> tuple[bool, list[WorkerRow], dict[int, list[dict[str, Any]]]]:
        """Renew the lease (and publish ``listing``, with a NOTIFY, when given); every live
        registration; the listings that changed since ``known``."""

        def tx(c: psycopg.Cursor[Any]) -> tuple[bool, list[WorkerRow], dict[int, Any]]:
            if listing is None:
                c.execute(
                    f"UPDATE workers SET heartbeat_at = {_NOW} WHERE worker = %s AND pid = %s"
                    " AND NOT stopped",
                    (worker, pid),
                )
            else:
                c.execute(
                    f"UPDATE workers SET heartbeat_at = {_NOW}, listing = %s::jsonb,"
                    " listing_rev = listing_rev + 1 WHERE worker = %s AND pid = %s"
                    " AND NOT stopped",
                    (listing.decode(), worker, pid),
                )
            ours = c.rowcount == 1
            if ours and listing is not None:
                c.execute(f"NOTIFY {CHANNEL}")
            c.execute(f"SELECT {_WORKER_COLS} FROM workers w WHERE NOT w.stopped ORDER BY w.worker")
            rows = [_worker_row(r) for r in c.fetchall()]
            want = [
                r.worker
                for r in rows
                if r.worker != worker and known.get(r.worker) != (r.pid, r.listing_rev)
            ]
            listings: dict[int, list[dict[str, Any]]] = {}
            if want:
                c.execute("SELECT worker, listing FROM workers WHERE worker = ANY(%s)", (want,))
                for w, lst in c.fetchall():
                    listings[w] = lst if isinstance(lst, list) else []
            return ours, rows, listings

        return self._tx(tx)

    def notify(self) -> None:
        self._q(f"NOTIFY {CHANNEL}")

    def listen(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for a NOTIFY from another worker; True if one came."""
        conn = self._connection()
        if not self._listening:
            conn.execute(f"LISTEN {CHANNEL}")
            self._listening = True
        try:
            got = False
            for _ in conn.notifies(timeout=timeout, stop_after=1):
                got = True
            # drain whatever else arrived meanwhile: one refresh covers them all
            with contextlib.suppress(Exception):
                if select.select([conn.fileno()], [], [], 0)[0]:
                    for _ in conn.notifies(timeout=0.001):
                        pass
            return got
        except psycopg.Error as e:
            raise pg_error(e) from e

    # -- tables and tokens --

    def claim_tables(self, worker: int, table_ids: list[str], now: float) -> None:
        def tx(c: psycopg.Cursor[Any]) -> None:
            c.executemany(
                "INSERT INTO table_owner (table_id, worker, epoch, created_at)"
                " VALUES (%s, %s, 1, %s) ON CONFLICT (table_id) DO NOTHING",
                [(tid, worker, now) for tid in table_ids],
            )

        self._tx(tx)

    def owned_tables(self, worker: int) -> dict[str, int]:
        rows = self._q(
            "SELECT table_id, epoch FROM table_owner WHERE worker = %s AND closed_at IS NULL",
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
        """Compare-and-set every open table of a lost worker (lease expired; or, on this host,
        a dead predecessor in ``slot``; or, with ``include_own``, a previous process under our
        own id) and of no worker at all (tables written by a lone server before): each owner
        row moves to us with its epoch bumped. One transaction per owner, rows locked with
        SKIP LOCKED so that two adopters split the tables instead of queueing."""
        from server.store.base import pid_alive

        rows = self._q(
            f"SELECT DISTINCT o.worker, w.pid, w.host, w.slot, {_NOW} - w.heartbeat_at, w.stopped"
            " FROM table_owner o LEFT JOIN workers w ON w.worker = o.worker"
            " WHERE o.closed_at IS NULL"
        )
        owners = []
        for owner, pid, whost, wslot, age, stopped in rows:
            if owner == worker:
                if include_own:
                    owners.append(owner)
                continue
            if pid is None or age > stale_after:
                owners.append(owner)  # no registration, or its lease ran out
            elif (
                whost == host
                and slot is not None
                and wslot == slot
                and (stopped or not pid_alive(pid))
            ):
                owners.append(owner)  # our dead predecessor in this place of this host
        out: list[Adopted] = []
        for owner in owners:

            def tx(c: psycopg.Cursor[Any], owner: int = owner) -> list[Adopted]:
                # compare-and-set on (owner, epoch); rows a write of the old owner holds are
                # skipped (SKIP LOCKED) and taken at the next beat, once that write is over
                c.execute(
                    "UPDATE table_owner o SET worker = %s, epoch = o.epoch + 1"
                    " FROM (SELECT table_id, epoch FROM table_owner WHERE worker = %s"
                    " AND closed_at IS NULL FOR UPDATE SKIP LOCKED) s"
                    " WHERE o.table_id = s.table_id AND o.worker = %s AND o.epoch = s.epoch"
                    " RETURNING o.table_id, o.epoch",
                    (worker, owner, owner),
                )
                return [(str(t), int(owner), int(e)) for t, e in c.fetchall()]

            out += self._tx(tx)

        def orphans(c: psycopg.Cursor[Any]) -> list[Adopted]:
            c.execute(
                "INSERT INTO table_owner (table_id, worker, epoch, created_at)"
                " SELECT t.id, %s, 1, %s FROM tables t WHERE t.status = 'open'"
                " AND NOT EXISTS (SELECT 1 FROM table_owner o WHERE o.table_id = t.id)"
                " ON CONFLICT (table_id) DO NOTHING RETURNING table_id",
                (worker, now),
            )
            return [(str(t), -1, 1) for (t,) in c.fetchall()]

        if include_own:
            out += self._tx(orphans)
        return out

    def close_table(self, table_id: str, now: float, fence: Fence | None = None) -> None:
        def tx(c: psycopg.Cursor[Any]) -> None:
            if fence is not None:
                c.execute(
                    "UPDATE table_owner SET closed_at = %s WHERE table_id = %s AND worker = %s"
                    " AND epoch = %s",
                    (now, table_id, fence[1], fence[2]),
                )
                if c.rowcount == 0:
                    return  # not ours any more: another worker serves it
            else:
                c.execute(
                    "UPDATE table_owner SET closed_at = %s WHERE table_id = %s", (now, table_id)
                )
            c.execute("DELETE FROM token_owner WHERE table_id = %s", (table_id,))

        self._tx(tx)

    def table_owner(self, table_id: str) -> tuple[int | None, bool, WorkerRow | None]:
        rows = self._q(
            f"SELECT o.worker, o.closed_at IS NOT NULL, {_WORKER_COLS} FROM table_owner o"
            " LEFT JOIN workers w ON w.worker = o.worker WHERE o.table_id = %s",
            (table_id,),
        )
        if not rows:
            return None, False, None
        r = rows[0]
        return r[0], bool(r[1]), None if r[2] is None else _worker_row(r[2:])

    def index_tokens(self, pairs: list[tuple[str, str]]) -> None:
        if not pairs:
            return

        def tx(c: psycopg.Cursor[Any]) -> None:
            c.executemany(
                "INSERT INTO token_owner (token_hash, table_id) VALUES (%s, %s)"
                " ON CONFLICT (token_hash) DO UPDATE SET table_id = excluded.table_id",
                pairs,
            )

        self._tx(tx)

    def drop_token(self, hashed: str, fence: Fence | None = None) -> None:
        if fence is None:
            self._q("DELETE FROM token_owner WHERE token_hash = %s", (hashed,))
            return
        self._q(
            "DELETE FROM token_owner WHERE token_hash = %s AND NOT EXISTS (SELECT 1 FROM"
            " table_owner o WHERE o.table_id = %s AND (o.worker, o.epoch) != (%s, %s))",
            (hashed, fence[0], fence[1], fence[2]),
        )

    def token_table(self, hashed: str) -> str | None:
        rows = self._q("SELECT table_id FROM token_owner WHERE token_hash = %s", (hashed,))
        return str(rows[0][0]) if rows else None

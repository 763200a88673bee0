"""SQLite persistence (the embedded default): tables, finished deals, cumulative scores,
players, and the action log.

One ``SqliteStore`` owns one SQLite connection (WAL mode) and is used from one thread; it
implements ``server.store.base.Store``. The server runs it off the event loop with
``server.store.aio.AsyncStore`` (one dedicated thread, writes kept in order, transient failures
retried).

Schema (applied by ``sqlite_utils.Migrations``, set ``atout``; see ``MIGRATIONS``):

- ``players(name, first_seen, last_seen)``: every human name that finished a deal.
- ``tables(id, name, options JSON, status, created_at, finished_at)``.
- ``deals(table_id, deal_no, dealer, status, contract, taker, seat0..seat3, scores JSON,
  record JSON, dealt JSON, started_at, finished_at)``: ``status`` is ``in_progress`` (started,
  its actions in ``actions``), ``played`` or ``annulled`` (finished: ``record`` is the full
  ``atout-deal/1`` record with its result), or ``abandoned`` (its table closed mid-deal;
  ``record`` holds the partial record).
- ``scores(table_id, seat, player, score, deals, updated_at)``: cumulative per table, seat and
  player (``''`` for an AI seat), so a seat taken over by someone else keeps both totals apart.
- ``actions(table_id, deal_no, idx, action JSON, created_at)``: the append-only log of the deal
  in progress, enough with ``deals.dealt`` to rebuild it by replay after a crash; a deal's log is
  dropped in the transaction that stores its finished record (the record holds every action).
  Clustered on its key (``WITHOUT ROWID``, migration 0004), so a deal's log sits on a page or
  two however many tables play at once.

Scores are REAL, which holds half points exactly; they come back as ``int`` when whole.
Timestamps are ISO 8601 UTC text (``2026-07-01T12:00:00.000Z``), so they sort as strings.
- the players' tables (accounts, keys, ratings, ``deal_players``, ``pars``): see
  ``server/store/players.py``.

The cluster registry's tables (``server/store/sqlite_registry.py``) live in the same file.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import pathlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import msgspec
from sqlite_utils import Database, Migrations

from server.store.base import (
    AI,
    FINISHED_STATUSES,
    RECORD_FORMAT,
    Fence,
    Op,
    OpenTable,
    StoreClosed,
    StoreConflict,
    StoreDisconnected,
    StoreError,
    StoreFenced,
    StoreFull,
    StoreIOError,
    StoreLocked,
    StoreReadOnly,
    backup_tmp,
    canonical,
    check_dealt,
    check_record,
    directory_problem,
    json_value,
    now,
    num,
    parse_time,
    partial_record,
    shown_ops,
    table_dict,
)
from server.store.players import PLAYERS_SCHEMA, SqlitePlayers, backfill_deal_players

__all__ = [
    "AI",
    "FINISHED_STATUSES",
    "MIGRATIONS",
    "MIGRATION_NAMES",
    "RECORD_FORMAT",
    "SqliteStore",
    "Store",
    "StoreClosed",
    "StoreConflict",
    "StoreDisconnected",
    "StoreError",
    "StoreFenced",
    "StoreFull",
    "StoreIOError",
    "StoreLocked",
    "StoreReadOnly",
    "now",
    "parse_time",
    "store_error",
]

log = logging.getLogger("atout.store")

#: Seconds between two background checkpoints (SqliteStore.checkpoint_in_background).
CHECKPOINT_INTERVAL = 0.5

T = TypeVar("T")

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode
_num = num
_json_value = json_value


# --- errors ---------------------------------------------------------------------------------

_BY_SQLITE_CODE: dict[int, type[StoreError]] = {
    5: StoreLocked,  # SQLITE_BUSY
    6: StoreLocked,  # SQLITE_LOCKED
    8: StoreReadOnly,  # SQLITE_READONLY
    10: StoreIOError,  # SQLITE_IOERR
    13: StoreFull,  # SQLITE_FULL
    14: StoreIOError,  # SQLITE_CANTOPEN
    15: StoreLocked,  # SQLITE_PROTOCOL: lock contention on the WAL index
}


def store_error(e: BaseException) -> StoreError:
    """The typed StoreError for a sqlite3 or OS error."""
    if isinstance(e, StoreError):
        return e
    if isinstance(e, sqlite3.Error):
        code = getattr(e, "sqlite_errorcode", None)
        cls = _BY_SQLITE_CODE.get(code & 0xFF, StoreError) if code is not None else StoreError
        if code is None and "locked" in str(e):
            cls = StoreLocked
        name = getattr(e, "sqlite_errorname", None)
        return cls(f"{e} ({name})" if name else str(e))
    if isinstance(e, OSError):
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            return StoreFull(str(e))
        if e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return StoreReadOnly(str(e))
        return StoreIOError(str(e))
    return StoreError(str(e))


# --- schema ---------------------------------------------------------------------------------

MIGRATIONS = Migrations("atout")
MIGRATION_NAMES: list[str] = []  # in order; a database naming others is from a newer Atout


def _migration(name: str) -> Callable[[Callable[[Database], None]], Callable[[Database], None]]:
    MIGRATION_NAMES.append(name)
    return MIGRATIONS(name=name)


@_migration("0001_initial")
def _m0001_initial(db: Database) -> None:
    db.table("tables").create(
        {
            "id": str,
            "name": str,
            "options": str,
            "status": str,
            "created_at": str,
            "finished_at": str,
        },
        pk="id",
        not_null={"name", "options", "status", "created_at"},
    )
    db.table("deals").create(
        {
            "table_id": str,
            "deal_no": int,
            "dealer": int,
            "status": str,
            "contract": str,
            "taker": int,
            "seat0": str,
            "seat1": str,
            "seat2": str,
            "seat3": str,
            "scores": str,
            "record": str,
            "started_at": str,
            "finished_at": str,
        },
        pk=("table_id", "deal_no"),
        not_null={"table_id", "deal_no", "dealer", "status"},
        foreign_keys=[("table_id", "tables", "id")],
    )
    db.table("deals").create_index(["finished_at"])
    db.table("deals").create_index(["status"])
    db.table("scores").create(
        {
            "table_id": str,
            "seat": int,
            "player": str,
            "score": float,
            "deals": int,
            "updated_at": str,
        },
        pk=("table_id", "seat", "player"),
        not_null={"table_id", "seat", "player", "score", "deals", "updated_at"},
        defaults={"score": 0.0, "deals": 0},
        foreign_keys=[("table_id", "tables", "id")],
    )
    db.table("scores").create_index(["player"])
    db.table("players").create(
        {"name": str, "first_seen": str, "last_seen": str},
        pk="name",
        not_null={"first_seen", "last_seen"},
    )
    # One row rewritten by writable(): a real write that /healthz can afford.
    db.table("health").create({"id": int, "checked_at": str}, pk="id")


@_migration("0002_action_log")
def _m0002_action_log(db: Database) -> None:
    # Crash safety: the dealt cards of a deal in progress and its accepted actions, in order.
    db.table("deals").add_column("dealt", str)
    db.table("actions").create(
        {"table_id": str, "deal_no": int, "idx": int, "action": str, "created_at": str},
        pk=("table_id", "deal_no", "idx"),
        not_null={"action", "created_at"},
        foreign_keys=[(("table_id", "deal_no"), "deals", ("table_id", "deal_no"))],
    )


@_migration("0003_players")
def _m0003_players(db: Database) -> None:
    # Issue 12: accounts, their keys (SHA-256 only), ratings, who sat in each seat of every
    # finished deal (with the per-seat figures of its review: par, rating after it), and the
    # par replay of each deal. SQL in server/store/players.py (the mixin of Store).
    for statement in PLAYERS_SCHEMA:
        db.execute(statement)
    backfill_deal_players(db.conn)


@_migration("0004_actions_clustered")
def _m0004_actions_clustered(db: Database) -> None:
    # The action log clustered on its key (WITHOUT ROWID): a deal's actions side by side on a
    # page or two. In rowid order, a thousand tables playing at once interleaved their rows, so
    # deleting one finished deal's log (in its record's transaction) dirtied a page for each of
    # its 78 actions: a batch of three deal ends on 1,500 deals in progress took 4.0 ms (COMMIT
    # 2.2, the deletes 1.1) and wrote 2.0 MiB; clustered, 1.9 ms and 0.66 MiB
    # (bench/store_batch.py, docs/SCALING.md section 5).
    # The new table refuses what the old one let in (a key with NULLs, an action of no deal):
    # say which rows stop the upgrade, rather than a bare constraint error.
    (nulls,) = db.execute(
        "SELECT COUNT(*) FROM actions WHERE table_id IS NULL OR deal_no IS NULL OR idx IS NULL"
    ).fetchone()
    orphans = len(db.execute("PRAGMA foreign_key_check(actions)").fetchall())
    if nulls or orphans:
        raise StoreError(
            f"cannot cluster the action log (migration 0004): {nulls} row(s) of the actions "
            f"table with an empty key and {orphans} of no stored deal; they cannot be replayed: "
            "delete them (after a backup) and start again"
        )
    db.execute(
        'CREATE TABLE "actions_clustered" ('
        '"table_id" TEXT NOT NULL, "deal_no" INTEGER NOT NULL, "idx" INTEGER NOT NULL,'
        ' "action" TEXT NOT NULL, "created_at" TEXT NOT NULL,'
        ' FOREIGN KEY ("table_id", "deal_no") REFERENCES "deals"("table_id", "deal_no"),'
        ' PRIMARY KEY ("table_id", "deal_no", "idx")) WITHOUT ROWID'
    )
    db.execute(
        "INSERT INTO actions_clustered (table_id, deal_no, idx, action, created_at)"
        " SELECT table_id, deal_no, idx, action, created_at FROM actions"
    )
    db.execute("DROP TABLE actions")
    db.execute("ALTER TABLE actions_clustered RENAME TO actions")


# --- the store ------------------------------------------------------------------------------


class SqliteStore(SqlitePlayers):
    """The SQLite store (``server.store.base.Store``) on one connection; one thread only.

    ``create=False`` refuses to create a missing file (admin commands). ``readonly=True`` opens
    the file read-only and applies no migration (export, scores, backup: a backup taken before
    an upgrade must be of the old schema). ``busy_timeout`` is how long a write waits for another
    connection's lock before failing with StoreLocked. ``synchronous`` NORMAL (the default) is
    durable across a process crash (kill -9) in WAL mode; FULL also across power loss.
    """

    keeps_players = True  # server/store/players.py

    def __init__(
        self,
        path: str,
        *,
        create: bool = True,
        readonly: bool = False,
        busy_timeout: float = 5.0,
        synchronous: str = "NORMAL",
    ) -> None:
        self.path = path
        self.readonly = readonly
        self._in_batch = False
        self._checkpointer: _Checkpointer | None = None
        self._busy_ms = int(busy_timeout * 1000)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous}")
        if (readonly or not create) and path != ":memory:" and not os.path.exists(path):
            raise StoreError(f"no database at {path}")
        if not readonly and path != ":memory:" and not path.startswith("file:"):
            # SQLite says only "unable to open database file (SQLITE_CANTOPEN)"; the database
            # and its -wal and -shm are made in its directory
            directory = os.path.dirname(os.path.abspath(path))
            problem = directory_problem(directory)
            if problem and not os.path.exists(path):
                raise StoreIOError(f"{problem} (the database and its -wal and -shm go there)")
        try:
            if readonly:
                uri = pathlib.Path(path).absolute().as_uri() + "?mode=ro"
                conn = sqlite3.connect(uri, uri=True, timeout=busy_timeout)
            else:
                conn = sqlite3.connect(path, timeout=busy_timeout)
            self.db = Database(conn, execute_plugins=False)
        except sqlite3.Error as e:
            raise store_error(e) from e
        self.conn = conn
        try:
            with self._errors():
                self._check_schema()
                if not readonly:
                    self.db.enable_wal()
                    conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
                    conn.execute("PRAGMA foreign_keys=ON")
                    # The writer's page cache (SQLite's default is 2 MiB) and reads through a
                    # memory map rather than a read() per page: when many deals end together
                    # their records, actions and seats touch pages all over the file, and each
                    # batch re-read them (bench/load.py, AI seats at the 0.5 s pace: the store's
                    # thread is the bottleneck then; p99 action-to-event 40 ms against 73-81 ms
                    # in the runs just before, docs/SCALING.md section 5). Both are bounds, not
                    # allocations: a small database uses what it needs.
                    conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
                    conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
                    before = {m.name for m in MIGRATIONS.applied(self.db)}
                    MIGRATIONS.apply(self.db)
                    if before:  # an upgrade, not a new database: said as PostgreSQL says it
                        for name in MIGRATION_NAMES:
                            if name not in before:
                                log.info("%s: migration %s applied", self.path, name)
                    # No implicit transactions: every write is in an explicit one (_tx,
                    # write_batch) or is one statement, its own transaction (a batch of
                    # actions only: write_batch).
                    conn.isolation_level = None
        except BaseException:
            conn.close()
            raise

    def _check_schema(self) -> None:
        applied = [m.name for m in MIGRATIONS.applied(self.db)]
        unknown = [n for n in applied if n not in MIGRATION_NAMES]
        if unknown and not self.readonly:
            raise StoreError(
                f"{self.path} was written by a newer Atout (unknown migrations: "
                f"{', '.join(unknown)}); refusing to write to it"
            )
        if self.readonly and "0001_initial" not in applied:
            raise StoreError(f"{self.path} is not an Atout database")

    def schema_version(self) -> list[str]:
        """The names of the applied migrations, in order."""
        with self._errors():
            return [m.name for m in MIGRATIONS.applied(self.db)]

    # -- transactions and errors --

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except (sqlite3.Error, OSError) as e:
            raise store_error(e) from e

    def _tx(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(conn)`` in one write transaction, errors typed, rolled back on failure.

        BEGIN IMMEDIATE takes the write lock up front: under contention it waits (busy_timeout)
        instead of failing when a read-then-write transaction finds its snapshot stale.
        """
        conn = self.conn
        if self._in_batch:  # inside write_batch: its transaction and savepoint hold this
            return fn(conn)
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except (sqlite3.Error, OSError) as e:
            raise store_error(e) from e
        return result

    # -- health --

    def writable(self, timeout: float = 0.5) -> bool:
        """Whether a real write commits now (waiting at most ``timeout`` s for a lock)."""
        if self.readonly:
            return False
        try:
            self.conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            try:
                self._tx(
                    lambda c: c.execute(
                        "INSERT OR REPLACE INTO health (id, checked_at) VALUES (1, ?)", (now(),)
                    )
                )
            finally:
                self.conn.execute(f"PRAGMA busy_timeout={self._busy_ms}")
        except (StoreError, sqlite3.Error) as e:
            log.warning("store not writable: %s", e)
            return False
        return True

    # -- tables --

    def create_table(
        self,
        table_id: str,
        name: str,
        options: dict[str, Any],
        *,
        status: str = "open",
        created_at: str | None = None,
    ) -> None:
        """Record a table. Re-creating an existing id updates its name and options only."""
        created = parse_time(created_at) if created_at else now()
        opts = _encode(options).decode()
        self._tx(
            lambda c: c.execute(
                "INSERT INTO tables (id, name, options, status, created_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET name = excluded.name, options = excluded.options",
                (table_id, name, opts, status, created),
            )
        )

    def set_table_status(self, table_id: str, status: str) -> None:
        self._tx(
            lambda c: c.execute("UPDATE tables SET status = ? WHERE id = ?", (status, table_id))
        )

    def finish_table(self, table_id: str, status: str = "finished") -> None:
        """Mark a table finished (or closed...). A deal still in progress there is abandoned."""
        at = now()

        def tx(c: sqlite3.Connection) -> None:
            cur = c.execute(
                "UPDATE tables SET status = ?, finished_at = ? WHERE id = ?", (status, at, table_id)
            )
            if cur.rowcount == 0:
                log.warning("finish_table: no table %r", table_id)
            for (deal_no,) in c.execute(
                "SELECT deal_no FROM deals WHERE table_id = ? AND status = 'in_progress'",
                (table_id,),
            ).fetchall():
                self._abandon(c, table_id, deal_no, at)

        self._tx(tx)

    def table(self, table_id: str) -> dict[str, Any] | None:
        """A table's row (options decoded) with its number of finished deals, or None."""
        with self._errors():
            row = self.conn.execute(
                "SELECT id, name, options, status, created_at, finished_at,"
                " (SELECT COUNT(*) FROM deals d WHERE d.table_id = t.id"
                "  AND d.status IN ('played', 'annulled')) FROM tables t WHERE id = ?",
                (table_id,),
            ).fetchone()
        if row is None:
            return None
        return table_dict(row)

    def tables(self, *, unfinished: bool = False) -> list[dict[str, Any]]:
        """Every table (or those not finished/closed), oldest first."""
        where = " WHERE finished_at IS NULL" if unfinished else ""
        with self._errors():
            rows = self.conn.execute(
                "SELECT id, name, options, status, created_at, finished_at,"
                " (SELECT COUNT(*) FROM deals d WHERE d.table_id = t.id"
                "  AND d.status IN ('played', 'annulled')) FROM tables t"
                f"{where} ORDER BY created_at, id"
            ).fetchall()
        return [table_dict(r) for r in rows]

    def open_tables(self, owned: Callable[[str], bool] | None = None) -> list[OpenTable]:
        """Each open table (those ``owned(table_id)`` accepts), oldest first: its row, its
        finished deal records (as :meth:`deals` gives them) and its deals in progress (as
        :meth:`unfinished_deals`): what rebuilding a table after a restart needs."""
        with self._errors():
            ids = [
                r[0]
                for r in self.conn.execute(
                    "SELECT id FROM tables WHERE status = 'open' ORDER BY created_at, id"
                )
                if owned is None or owned(r[0])
            ]
        unfinished: dict[str, list[dict[str, Any]]] = {}
        for entry in self.unfinished_deals():
            unfinished.setdefault(entry["table_id"], []).append(entry)
        out = []
        for tid in ids:
            row = self.table(tid)
            if row is not None:
                out.append((row, list(self.deals(tid)), unfinished.get(tid, [])))
        return out

    # -- deals --

    def record_deal(
        self,
        table_id: str,
        deal_no: int,
        record: dict[str, Any],
        players: Sequence[str | None],
        scores: Sequence[float],
        finished_at: str | None = None,
        *,
        seats: Sequence[dict[str, Any]] | None = None,
    ) -> None:
        """Store a finished deal and add its scores to the cumulative ones, in one transaction.

        ``record`` is the full ``atout-deal/1`` record with its result; ``players`` the four
        seats' names (None for an AI); ``scores`` this deal's score per seat, which must be the
        record's ``result.scores``. ``seats``: who sat in each seat (``account`` id, ``guest``
        name or ``ai`` level, ``partial``: the seat changed hands during the deal), for the
        players' histories (``deal_players``); without it the names are taken as guests'.
        A played deal is left for its review (par and ratings, ``server.players``). Idempotent on (table_id, deal_no): writing the same deal
        again changes nothing, so a retried write never counts twice; a different record under
        the same number raises StoreConflict.
        """
        # Encoded once, as stored; its decoding is the plain JSON the checks compare (a
        # round trip through json_value and a second encoding were a third of a deal end's
        # CPU on the store's thread, with the GIL).
        rec_bytes = _encode(record)
        rec = _decode(rec_bytes)
        result = check_record(rec, players, scores)
        deal_scores = [_num(float(x)) for x in scores]
        at = parse_time(finished_at) if finished_at else now()
        rec_text = rec_bytes.decode()
        names = [p or AI for p in players]
        taker = result.get("taker")
        contract = result.get("contract")
        status = result["status"]

        def tx(c: sqlite3.Connection) -> None:
            row = c.execute(
                "SELECT status, record FROM deals WHERE table_id = ? AND deal_no = ?",
                (table_id, deal_no),
            ).fetchone()
            if row is not None and row[0] != "in_progress":
                if row[0] in FINISHED_STATUSES and _decode(row[1]) == rec:
                    log.debug("deal %s/%s already stored", table_id, deal_no)
                    return
                raise StoreConflict(
                    f"deal {deal_no} of table {table_id} is already stored ({row[0]}) with "
                    "a different record"
                )
            values = (
                rec["dealer"],
                status,
                contract,
                taker,
                *(players[s] for s in range(4)),
                _encode(deal_scores).decode(),
                rec_text,
                at,
                "pending" if status == "played" else None,  # its review (server.players)
            )
            if row is None:
                _ensure_table(c, table_id, at)  # else its deal's row (a foreign key) proves it
                c.execute(
                    "INSERT INTO deals (dealer, status, contract, taker, seat0, seat1, seat2,"
                    " seat3, scores, record, finished_at, review, started_at, table_id, deal_no)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*values, at, table_id, deal_no),
                )
            else:
                c.execute(
                    "UPDATE deals SET dealer = ?, status = ?, contract = ?, taker = ?, seat0 = ?,"
                    " seat1 = ?, seat2 = ?, seat3 = ?, scores = ?, record = ?, finished_at = ?,"
                    " review = ? WHERE table_id = ? AND deal_no = ?",
                    (*values, table_id, deal_no),
                )
                c.execute(
                    "DELETE FROM actions WHERE table_id = ? AND deal_no = ?", (table_id, deal_no)
                )
            # One statement for the four seats, not ``executemany``: each statement of a batch
            # waits to win the GIL back from the event loop (see _INSERT_ACTIONS).
            c.execute(
                _UPSERT_SCORES,
                [v for s in range(4) for v in (table_id, s, names[s], float(deal_scores[s]), at)],
            )
            humans = list(dict.fromkeys(p for p in players if p))
            if humans:
                c.execute(
                    "INSERT INTO players (name, first_seen, last_seen) VALUES "
                    + ", ".join(["(?, ?, ?)"] * len(humans))
                    + " ON CONFLICT (name) DO UPDATE SET"
                    " first_seen = min(first_seen, excluded.first_seen),"
                    " last_seen = max(last_seen, excluded.last_seen)",
                    [v for n in humans for v in (n, at, at)],
                )
            self._record_seats(c, table_id, deal_no, status, players, seats, deal_scores, at)

        self._tx(tx)

    def table_scores(self, table_id: str) -> list[int | float]:
        """Cumulative score per seat (0 for a seat or table with no deal yet)."""
        with self._errors():
            rows = self.conn.execute(
                "SELECT seat, SUM(score) FROM scores WHERE table_id = ? GROUP BY seat",
                (table_id,),
            ).fetchall()
        totals: list[int | float] = [0, 0, 0, 0]
        for seat, total in rows:
            totals[seat] = _num(total)
        return totals

    def deals(self, table_id: str | None = None, since: str | None = None) -> Iterator[dict]:
        """Finished deal records (played or annulled), oldest first, each with a ``meta`` object
        (table_id, deal_no, players, finished_at) added to what the server stored under it.
        ``since`` is a date or date-time (UTC when naive) on the deal's finish."""
        where = ["status IN ('played', 'annulled')"]
        params: list[Any] = []
        if table_id is not None:
            where.append("table_id = ?")
            params.append(table_id)
        if since is not None:
            where.append("finished_at >= ?")
            params.append(parse_time(since))
        sql = (
            "SELECT table_id, deal_no, seat0, seat1, seat2, seat3, finished_at, record"
            f" FROM deals WHERE {' AND '.join(where)} ORDER BY finished_at, table_id, deal_no"
        )
        with self._errors():
            cur = self.conn.execute(sql, params)
            while rows := cur.fetchmany(200):
                for tid, no, s0, s1, s2, s3, at, text in rows:
                    rec = _decode(text)
                    meta = {
                        "table_id": tid,
                        "deal_no": no,
                        "players": [s0, s1, s2, s3],
                        "finished_at": at,
                    }
                    rec["meta"] = {**meta, **(rec.get("meta") or {})}
                    yield canonical(rec)

    def deal(self, table_id: str, deal_no: int) -> dict[str, Any] | None:
        """One finished deal's record (played or annulled) with its ``meta``, or None."""
        with self._errors():
            row = self.conn.execute(
                "SELECT seat0, seat1, seat2, seat3, finished_at, record FROM deals"
                " WHERE table_id = ? AND deal_no = ? AND status IN ('played', 'annulled')",
                (table_id, deal_no),
            ).fetchone()
        if row is None:
            return None
        s0, s1, s2, s3, at, text = row
        rec = _decode(text)
        meta = {"table_id": table_id, "deal_no": deal_no, "players": [s0, s1, s2, s3]}
        rec["meta"] = {**meta, "finished_at": at, **(rec.get("meta") or {})}
        return rec

    def standings(self, table_id: str | None = None) -> list[dict[str, Any]]:
        """Without ``table_id``: the leaderboard, one row per human player (AI seats left
        out) by total score: ``player, score, deals, tables, last_seen``. With it: the table's
        standings, one row per seat and player by score: ``seat, player (None for AI), score,
        deals``. Ties are broken by name or seat so the order is stable."""
        with self._errors():
            if table_id is None:
                rows = self.conn.execute(
                    "SELECT s.player, SUM(s.score), SUM(s.deals), COUNT(DISTINCT s.table_id),"
                    " p.last_seen FROM scores s LEFT JOIN players p ON p.name = s.player"
                    " WHERE s.player != '' GROUP BY s.player"
                    " ORDER BY SUM(s.score) DESC, s.player"
                ).fetchall()
                return [
                    {
                        "rank": i + 1,
                        "player": name,
                        "score": _num(score),
                        "deals": deals,
                        "tables": tables,
                        "last_seen": last,
                    }
                    for i, (name, score, deals, tables, last) in enumerate(rows)
                ]
            rows = self.conn.execute(
                "SELECT seat, player, score, deals FROM scores WHERE table_id = ?"
                " ORDER BY score DESC, seat, player",
                (table_id,),
            ).fetchall()
        return [
            {"rank": i + 1, "seat": seat, "player": name or None, "score": _num(score), "deals": n}
            for i, (seat, name, score, n) in enumerate(rows)
        ]

    # -- the action log of deals in progress (crash safety) --

    def start_deal(
        self,
        table_id: str,
        deal_no: int,
        dealer: int,
        hands: Sequence[Sequence[str]],
        chien: Sequence[str],
        *,
        players: Sequence[str | None] | None = None,
        started_at: str | None = None,
    ) -> None:
        """Record a deal as dealt (card codes), before its first action is accepted.

        Idempotent for the same cards; raises StoreConflict when the deal number is taken.
        """
        dealt, seats = check_dealt(hands, chien, players)
        at = parse_time(started_at) if started_at else now()

        def tx(c: sqlite3.Connection) -> None:
            row = c.execute(
                "SELECT status, dealer, dealt FROM deals WHERE table_id = ? AND deal_no = ?",
                (table_id, deal_no),
            ).fetchone()
            if row is not None:
                if row[0] == "in_progress" and row[1] == dealer and _decode(row[2]) == dealt:
                    return
                raise StoreConflict(f"deal {deal_no} of table {table_id} already exists ({row[0]})")
            _ensure_table(c, table_id, at)
            c.execute(
                "INSERT INTO deals (table_id, deal_no, dealer, status, seat0, seat1, seat2, seat3,"
                " dealt, started_at) VALUES (?, ?, ?, 'in_progress', ?, ?, ?, ?, ?, ?)",
                (table_id, deal_no, dealer, *seats, _encode(dealt).decode(), at),
            )

        self._tx(tx)

    def append_action(self, table_id: str, deal_no: int, idx: int, action: Any) -> None:
        """Durably append action ``idx`` (0-based, no gaps) to a started deal's log.

        ``action`` is an action dict as in a record (or a server.rules action struct).
        Idempotent for the same action at the same index; StoreConflict otherwise.
        """
        act = _json_value(action)
        text = _encode(act).decode()
        at = now()

        def tx(c: sqlite3.Connection) -> None:
            row = c.execute(
                "SELECT status FROM deals WHERE table_id = ? AND deal_no = ?", (table_id, deal_no)
            ).fetchone()
            if row is None or row[0] != "in_progress":
                state = "not started" if row is None else row[0]
                raise StoreConflict(
                    f"cannot log an action for deal {deal_no} of table {table_id}: {state}"
                )
            (count,) = c.execute(
                "SELECT COUNT(*) FROM actions WHERE table_id = ? AND deal_no = ?",
                (table_id, deal_no),
            ).fetchone()
            if idx < count:
                (old,) = c.execute(
                    "SELECT action FROM actions WHERE table_id = ? AND deal_no = ? AND idx = ?",
                    (table_id, deal_no, idx),
                ).fetchone()
                if _decode(old) == act:
                    return
                raise StoreConflict(
                    f"action {idx} of deal {deal_no} of table {table_id} is already logged"
                    " as a different action"
                )
            if idx != count:
                raise StoreConflict(
                    f"action {idx} of deal {deal_no} of table {table_id} would leave a gap"
                    f" (next is {count})"
                )
            c.execute(
                "INSERT INTO actions (table_id, deal_no, idx, action, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (table_id, deal_no, idx, text, at),
            )

        self._tx(tx)

    def unfinished_deals(self) -> list[dict[str, Any]]:
        """Every deal in progress, to rebuild by replay: ``table_id, deal_no, players,
        started_at`` and ``record``, an ``atout-deal/1`` record without result holding the dealt
        cards and the logged actions in order (``server.rules.records.decode_record`` reads it;
        apply its actions to ``start_state``)."""
        with self._errors():
            deals = self.conn.execute(
                "SELECT table_id, deal_no, dealer, seat0, seat1, seat2, seat3, dealt, started_at"
                " FROM deals WHERE status = 'in_progress' ORDER BY table_id, deal_no"
            ).fetchall()
            out = []
            for tid, no, dealer, s0, s1, s2, s3, dealt, at in deals:
                actions = [
                    _decode(a)
                    for (a,) in self.conn.execute(
                        "SELECT action FROM actions WHERE table_id = ? AND deal_no = ?"
                        " ORDER BY idx",
                        (tid, no),
                    )
                ]
                out.append(
                    {
                        "table_id": tid,
                        "deal_no": no,
                        "players": [s0, s1, s2, s3],
                        "started_at": at,
                        "record": partial_record(dealer, dealt, actions),
                    }
                )
        return out

    def _abandon(self, c: sqlite3.Connection, table_id: str, deal_no: int, at: str) -> None:
        row = c.execute(
            "SELECT dealer, dealt, status FROM deals WHERE table_id = ? AND deal_no = ?",
            (table_id, deal_no),
        ).fetchone()
        if row is None or row[2] != "in_progress":
            return
        actions = [
            _decode(a)
            for (a,) in c.execute(
                "SELECT action FROM actions WHERE table_id = ? AND deal_no = ? ORDER BY idx",
                (table_id, deal_no),
            )
        ]
        partial = partial_record(row[0], row[1], actions)
        c.execute(
            "UPDATE deals SET status = 'abandoned', record = ?, finished_at = ?"
            " WHERE table_id = ? AND deal_no = ?",
            (_encode(partial).decode(), at, table_id, deal_no),
        )
        c.execute("DELETE FROM actions WHERE table_id = ? AND deal_no = ?", (table_id, deal_no))

    # -- the journal's batches --

    def write_batch(
        self, groups: list[list[Op]], fences: list[Fence | None] | None = None
    ) -> list[BaseException | None]:
        """Every group in ONE transaction (``server.store.base.Store.write_batch``).

        The common case, groups of actions only (one, or an action and the AI answers made
        with it), is one INSERT without ``append_action``'s checks (its status and gap queries
        and JSON round trip) that a table makes true by construction; the keys still refuse a
        duplicate or an unknown deal. A batch of nothing else is that statement alone, its own
        transaction. If it fails, those groups go the slow way (the Store's own methods, all in
        one savepoint, then one savepoint each if one of them fails) to find out which one."""
        conn = self.conn
        if fences is None and _actions_only(groups):
            # The common case in one statement, its own transaction: each statement waits to
            # win the GIL back from the event loop (see _INSERT_ACTIONS), BEGIN and COMMIT too.
            try:
                conn.execute(_INSERT_ACTIONS, (now(), _action_rows(groups)))
                return [None] * len(groups)
            except sqlite3.Error as e:
                err = store_error(e)
                if err.transient:
                    raise err from e
                # nothing was written (a statement is atomic): find the failed group below
        # True: to do; None: done; an exception: that group failed (nothing of it was written)
        results: list[BaseException | bool | None] = [True] * len(groups)
        try:
            conn.execute("BEGIN IMMEDIATE")
            if fences is not None:
                self._check_fences(conn, fences, results)
            self._fast_actions(conn, groups, results)
            if True in results:
                self._slow_groups(conn, groups, results)
            conn.execute("COMMIT")
        except BaseException as e:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(e, sqlite3.Error | OSError):
                raise store_error(e) from e
            raise
        return [None if r is True else r for r in results]  # type: ignore[misc]

    def _check_fences(
        self,
        conn: sqlite3.Connection,
        fences: list[Fence | None],
        results: list[BaseException | bool | None],
    ) -> None:
        """Refuse the groups of tables whose owner row names another worker or epoch. A table
        with no owner row yet is claimed (epoch 1) by its first write. BEGIN IMMEDIATE holds
        the write lock, so an adopter's compare-and-set cannot land in between."""
        for k, fence in enumerate(fences):
            if fence is None:
                continue
            tid, worker, epoch = fence
            row = conn.execute(
                "SELECT worker, epoch, closed_at FROM table_owner WHERE table_id = ?", (tid,)
            ).fetchone()
            if row is None and epoch == 1:
                conn.execute(
                    "INSERT INTO table_owner (table_id, worker, epoch, created_at)"
                    " VALUES (?, ?, 1, strftime('%s', 'now'))",
                    (tid, worker),
                )
            elif row is None or (row[0], row[1]) != (worker, epoch):
                owner = "nobody" if row is None else f"worker {row[0]} (epoch {row[1]})"
                results[k] = StoreFenced(
                    f"table {tid} is owned by {owner}, not worker {worker} (epoch {epoch})"
                )

    def _fast_actions(
        self,
        conn: sqlite3.Connection,
        groups: list[list[Op]],
        results: list[BaseException | bool | None],
    ) -> None:
        idx = [i for i, ops in enumerate(groups) if results[i] is True and _actions_only([ops])]
        if not idx:
            return
        alone = len(idx) == len(groups)  # then the transaction itself is the savepoint
        if not alone:
            conn.execute("SAVEPOINT atout_fast")
        try:
            conn.execute(_INSERT_ACTIONS, (now(), _action_rows([groups[i] for i in idx])))
        except sqlite3.Error as e:
            err = store_error(e)
            if err.transient:
                raise err from e
            if alone:
                conn.execute("ROLLBACK")
                conn.execute("BEGIN IMMEDIATE")
            else:
                conn.execute("ROLLBACK TO atout_fast")
                conn.execute("RELEASE atout_fast")
            return
        if not alone:
            conn.execute("RELEASE atout_fast")
        for i in idx:
            results[i] = None

    def _slow_groups(
        self,
        conn: sqlite3.Connection,
        groups: list[list[Op]],
        results: list[BaseException | bool | None],
    ) -> None:
        """Each remaining group through the Store's own methods, each all or nothing.

        First all of them inside one savepoint: a savepoint and its release per group were two
        of the dozen statements of a deal's end, and each statement waits to win the GIL back
        from the event loop (see _INSERT_ACTIONS). If one of them fails, that savepoint is
        rolled back and every group is written again inside a savepoint of its own, to keep
        the others."""
        todo = [k for k, r in enumerate(results) if r is True]
        if not todo:
            return
        self._in_batch = True
        try:
            if len(todo) > 1:
                conn.execute("SAVEPOINT atout_groups")
                try:
                    for k in todo:
                        _write_group(self, groups[k])
                except Exception as e:
                    err = store_error(e) if isinstance(e, sqlite3.Error | OSError) else e
                    if isinstance(err, StoreError) and err.transient:
                        raise err from e  # the storage itself: the whole batch is retried
                    if not conn.in_transaction:  # SQLite ended it itself: nothing to keep
                        raise err from e
                    # Then one savepoint each, to keep the others; the groups before the failed
                    # one run twice (their debug lines too), nothing else is repeated.
                    log.debug("store: a batch's group failed (%s); one savepoint each", err)
                    conn.execute("ROLLBACK TO atout_groups")
                    conn.execute("RELEASE atout_groups")
                else:
                    conn.execute("RELEASE atout_groups")
                    for k in todo:
                        results[k] = None
                    return
            for k in todo:
                conn.execute("SAVEPOINT atout_group")
                try:
                    _write_group(self, groups[k])
                except Exception as e:
                    err = store_error(e) if isinstance(e, sqlite3.Error | OSError) else e
                    if isinstance(err, StoreError) and err.transient:
                        raise err from e
                    ops = groups[k]
                    if isinstance(err, StoreError):
                        log.error("store write refused: %s; payload: %s", err, _ops_payload(ops))
                    else:
                        log.exception("store write failed; payload: %s", _ops_payload(ops))
                    conn.execute("ROLLBACK TO atout_group")
                    results[k] = err
                else:
                    results[k] = None
                conn.execute("RELEASE atout_group")
        finally:
            self._in_batch = False

    # -- copying (migrate-db) --

    def dump_rows(self) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        """Every row of the store's tables, parents first, JSON columns decoded, in chunks:
        (table name, rows). ``atout-server migrate-db`` feeds them to another store's
        :meth:`load_rows`."""
        with self._errors():
            have = {
                r[0]
                for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                if not r[0].startswith("sqlite_")
            }
            for name in sorted(have - set(COPIED_TABLES) - NOT_COPIED):
                (n,) = self.conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()
                if n:  # never drop data silently: this version cannot carry it over
                    raise StoreError(f"cannot copy table {name} ({n} rows): not known here")
            self.conn.execute("BEGIN")  # one snapshot for the whole copy (WAL readers)
            try:
                yield from self._dump(have)
            finally:
                self.conn.execute("COMMIT")

    def _dump(self, have: set[str]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        with self._errors():
            for name in COPIED_TABLES:
                if name not in have:
                    continue
                order = _COPY_ORDER.get(name, "rowid")
                cur = self.conn.execute(f"SELECT * FROM {name} ORDER BY {order}")
                cols = [d[0] for d in cur.description]
                json_cols = JSON_COLUMNS.get(name, ())
                while chunk := cur.fetchmany(500):
                    rows = []
                    for r in chunk:
                        row = dict(zip(cols, r, strict=True))
                        for c in json_cols:
                            if row.get(c) is not None:
                                row[c] = _decode(row[c])
                        rows.append(row)
                    yield name, rows

    @contextlib.contextmanager
    def bulk_load(self) -> Iterator[None]:
        """One write transaction for :meth:`load_rows` calls and the reads that check them
        (on this connection, they see the rows not yet committed): committed when the block
        ends, rolled back if it raises. ``migrate-db``'s copy is all or nothing."""
        conn = self.conn
        with self._errors():
            conn.execute("BEGIN IMMEDIATE")
        self._in_batch = True  # load_rows' _tx runs inside this transaction (errors raw)
        try:
            yield
        except BaseException as e:
            self._in_batch = False
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(e, sqlite3.Error | OSError):
                raise store_error(e) from e
            raise
        self._in_batch = False
        with self._errors():
            conn.execute("COMMIT")

    def row_counts(self) -> dict[str, int]:
        """The number of rows of each copied table (inside :meth:`bulk_load` too)."""
        with self._errors():
            return {
                t: self.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                for t in COPIED_TABLES
            }

    def load_rows(self, table: str, rows: list[dict[str, Any]]) -> None:
        """Insert rows as :meth:`dump_rows` gives them (a row already there is kept)."""
        if table not in COPIED_TABLES:
            raise ValueError(f"not a store table: {table}")
        if not rows:
            return
        cols = list(rows[0])
        json_cols = set(JSON_COLUMNS.get(table, ()))
        values = [
            tuple(
                _encode(r[c]).decode() if c in json_cols and r[c] is not None else r[c]
                for c in cols
            )
            for r in rows
        ]
        sql = (
            f"INSERT OR IGNORE INTO {table} ({', '.join(cols)})"
            f" VALUES ({', '.join('?' for _ in cols)})"
        )
        self._tx(lambda c: c.executemany(sql, values))

    # -- maintenance --

    def backup(self, dest: str, *, overwrite: bool = False) -> None:
        """Online, consistent copy of the database to ``dest`` (VACUUM INTO: compact, and
        readable by itself without a -wal file). Written to a temporary file next to ``dest``,
        checked, then renamed, so ``dest`` is never a half-written file."""
        if os.path.exists(dest) and not overwrite:
            raise StoreError(f"{dest} already exists")
        tmp = ""
        try:
            with self._errors():
                tmp = backup_tmp(dest)  # empty and 0600: VACUUM INTO takes an empty file
                self.conn.execute("VACUUM INTO ?", (tmp,))
                check = sqlite3.connect(tmp)
                try:
                    (ok,) = check.execute("PRAGMA quick_check").fetchone()
                finally:
                    check.close()
                if ok != "ok":
                    raise StoreError(f"backup failed its integrity check: {ok}")
                os.replace(tmp, dest)
        finally:
            if tmp and os.path.exists(tmp):
                os.remove(tmp)

    def checkpoint_in_background(self, interval: float = CHECKPOINT_INTERVAL) -> None:
        """Checkpoint the WAL from a thread and a connection of their own, every ``interval``
        seconds, instead of in the commit that makes it pass 1,000 pages (SQLite's default).

        That commit copied the WAL into the database and synced both files while holding the
        write lock: 20 ms on this machine's disk for 4 MB, up to 230 ms under load, and every
        table's write of the journal's next batch waited for it (docs/SCALING.md section 5).
        A passive checkpoint from another connection never blocks the writer; the WAL is
        written again from its start once a checkpoint has copied all of it. Durability is the
        same: commits are in the WAL, which is synced before each checkpoint."""
        if self.readonly or self.path == ":memory:" or self._checkpointer is not None:
            return
        with self._errors():
            self.conn.execute("PRAGMA wal_autocheckpoint=0")
        self._checkpointer = _Checkpointer(self.path, interval, self._busy_ms)

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()  # before this connection: the last one to close
            self._checkpointer = None  # checkpoints the WAL and removes it
        try:
            if not self.readonly:
                self.conn.execute("PRAGMA optimize")
        except sqlite3.Error:
            pass  # best effort; closing must not fail for it
        self.conn.close()


class _Checkpointer:
    """A thread running ``PRAGMA wal_checkpoint(PASSIVE)`` on its own connection. SQLite does
    the work with the GIL released: the event loop runs meanwhile."""

    def __init__(self, path: str, interval: float, busy_ms: int) -> None:
        self._conn = sqlite3.connect(path, check_same_thread=False)
        self._conn.execute(f"PRAGMA busy_timeout={busy_ms}")
        self._interval = interval
        self._stopping = threading.Event()
        self.checkpoints = 0
        self._thread = threading.Thread(target=self._run, name="atout-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stopping.wait(self._interval):
                try:
                    self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    self.checkpoints += 1
                except sqlite3.Error as e:  # tried again next time; the WAL only grows meanwhile
                    log.warning("store: background checkpoint failed: %s", e)
        finally:
            self._conn.close()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join()


def _ensure_table(c: sqlite3.Connection, table_id: str, at: str) -> None:
    # A deal must never be lost because its table's row was not written first.
    c.execute(
        "INSERT OR IGNORE INTO tables (id, name, options, status, created_at)"
        " VALUES (?, ?, '{}', 'open', ?)",
        (table_id, table_id, at),
    )


#: The writing connection's page cache (KiB) and memory-mapped size (bytes): see __init__.
CACHE_KIB = 32 * 1024
MMAP_BYTES = 256 * 1024 * 1024


def _write_group(store: SqliteStore, ops: list[Op]) -> None:
    """A group's writes through the store's own methods (inside a batch's transaction)."""
    for method, args, kw in ops:
        if method not in WRITE_METHODS:
            raise ValueError(f"{method} is not a store write")
        getattr(store, method)(*args, **kw)


#: The order :meth:`SqliteStore.dump_rows` reads a table without rowids in (its key).
_COPY_ORDER = {"actions": "table_id, deal_no, idx"}

#: Every action of a batch in one statement, from one JSON array of [table_id, deal_no, idx,
#: action as JSON text] rows. Not ``executemany``: the sqlite3 module lets go of the GIL around
#: each row's step and must win it back from the event loop's thread every time. Beside a busy
#: loop that wait, not SQLite, was most of a batch, and every table's next event waits for its
#: batch: 60 actions took 8.6 ms row by row and 2.0 ms as this one statement in its own
#: transaction (write_batch), for 0.2 ms more of SQLite's time when nothing else runs
#: (bench/store_batch.py).
_INSERT_ACTIONS = (
    "INSERT INTO actions (table_id, deal_no, idx, action, created_at)"
    " SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'),"
    " json_extract(value, '$[2]'), json_extract(value, '$[3]'), ? FROM json_each(?)"
)


def _actions_only(groups: list[list[Op]]) -> bool:
    """Every group holds appended actions only (written by _INSERT_ACTIONS)."""
    return all(ops and all(o[0] == "append_action" and not o[2] for o in ops) for ops in groups)


def _action_rows(groups: list[list[Op]]) -> str:
    """The JSON parameter of _INSERT_ACTIONS for the actions of ``groups``."""
    rows = []
    for ops in groups:
        for _, (table_id, deal_no, n, action), _ in ops:
            rows.append((table_id, deal_no, n, _encode(action).decode()))
    return _encode(rows).decode()


#: A finished deal's scores added to its table's, the four seats in one statement.
_UPSERT_SCORES = (
    "INSERT INTO scores (table_id, seat, player, score, deals, updated_at) VALUES "
    + ", ".join(["(?, ?, ?, ?, 1, ?)"] * 4)
    + " ON CONFLICT (table_id, seat, player) DO UPDATE SET"
    " score = score + excluded.score, deals = deals + 1, updated_at = excluded.updated_at"
)
#: The Store methods a journal batch may call.
WRITE_METHODS = frozenset(
    {
        "create_table",
        "set_table_status",
        "finish_table",
        "record_deal",
        "start_deal",
        "append_action",
    }
)
#: The tables ``migrate-db`` copies, parents first; and their JSON columns (as stored: text in
#: SQLite, jsonb in PostgreSQL; rows carry them decoded).
COPIED_TABLES = (
    "tables",
    "players",
    "accounts",
    "account_keys",
    "ratings",
    "deals",
    "scores",
    "actions",
    "deal_players",
    "pars",
)
JSON_COLUMNS: dict[str, tuple[str, ...]] = {
    "tables": ("options",),
    "deals": ("scores", "record", "dealt"),
    "actions": ("action",),
    "pars": ("scores", "record"),
}
#: Tables of a database that are not data to copy: bookkeeping, health, the cluster registry.
NOT_COPIED = frozenset(
    {"_sqlite_migrations", "atout_migrations", "health", "workers", "table_owner", "token_owner"}
)


def _ops_payload(ops: list[Op]) -> str:
    """A failed group's writes, for the log (seat tokens are never among them: only hashes).

    Cards nobody may see yet are left out: a deal's hands and chien (a refused ``start_deal``
    was never dealt: nothing to recover) and a discard's cards (a refused action is sent again
    by its player). Logs travel further than the database (collectors, bug reports)."""
    try:
        return _encode(shown_ops(ops)).decode()
    except (TypeError, msgspec.EncodeError):
        return repr(shown_ops(ops))


Store = SqliteStore  # the name the rest of the code and the tests have always used

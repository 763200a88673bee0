"""SQLite persistence: tables, finished deals, cumulative scores, players, and the action log.

One ``Store`` owns one SQLite connection (WAL mode) and is used from one thread. The server uses
``AsyncStore``, which runs a ``Store`` on a single dedicated worker thread so that the event loop
never waits on the disk, keeps writes in the order they were asked, and retries a failed write
with backoff instead of losing it.

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
- the players' tables (accounts, keys, ratings, ``deal_players``, ``pars``): see
  ``server/store/players.py``.
- ``actions(table_id, deal_no, idx, action JSON, created_at)``: the append-only log of the deal
  in progress, enough with ``deals.dealt`` to rebuild it by replay after a crash; a deal's log is
  dropped in the transaction that stores its finished record (the record holds every action).

Scores are REAL, which holds half points exactly; they come back as ``int`` when whole.
Timestamps are ISO 8601 UTC text (``2026-07-01T12:00:00.000Z``), so they sort as strings.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import errno
import logging
import os
import pathlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

import msgspec
from sqlite_utils import Database, Migrations

from server.store.players import PLAYERS_SCHEMA, PlayerStore, backfill_deal_players

log = logging.getLogger("atout.store")

RECORD_FORMAT = "atout-deal/1"  # server.rules.records.FORMAT, not imported to keep this light
AI = ""  # the ``scores.player`` of an AI seat (NULL cannot take part in a primary key)
FINISHED_STATUSES = ("played", "annulled")
T = TypeVar("T")

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode


# --- errors ---------------------------------------------------------------------------------


class StoreError(Exception):
    """A storage failure the server can report; ``code`` is stable and machine-readable.

    ``transient`` errors (locked database, full disk, I/O, read-only file) may succeed when
    retried once the cause is gone; others (conflicting data, corrupt file) will not.
    """

    code = "storage_error"
    transient = False


class StoreLocked(StoreError):
    code = "storage_locked"
    transient = True


class StoreFull(StoreError):
    code = "storage_full"
    transient = True


class StoreReadOnly(StoreError):
    code = "storage_read_only"
    transient = True  # permissions or a remount can be fixed while the server runs


class StoreIOError(StoreError):
    code = "storage_io"
    transient = True


class StoreConflict(StoreError):
    """A write contradicts what is stored (a different record under the same deal number...)."""

    code = "storage_conflict"


class StoreClosed(StoreError):
    code = "storage_closed"


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


# --- helpers --------------------------------------------------------------------------------


def now() -> str:
    return _fmt_time(datetime.now(UTC))


def _fmt_time(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text: str) -> str:
    """A date or date-time (ISO 8601; naive means UTC) in the stored form. Raises ValueError."""
    dt = datetime.fromisoformat(text.strip())
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return _fmt_time(dt)


def _num(x: float | int | None) -> int | float:
    """A stored score: exact halves as floats, whole numbers as ints."""
    if x is None:
        return 0
    return int(x) if float(x).is_integer() else float(x)


def _json_value(obj: Any) -> Any:
    """``obj`` as plain JSON data (tuples become lists, structs become dicts)."""
    return _decode(_encode(obj))


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


# --- the store ------------------------------------------------------------------------------


class Store(PlayerStore):
    """Synchronous store on one SQLite connection; use it from one thread only.

    ``create=False`` refuses to create a missing file (admin commands). ``readonly=True`` opens
    the file read-only and applies no migration (export, scores, backup: a backup taken before
    an upgrade must be of the old schema). ``busy_timeout`` is how long a write waits for another
    connection's lock before failing with StoreLocked. ``synchronous`` NORMAL (the default) is
    durable across a process crash (kill -9) in WAL mode; FULL also across power loss.
    """

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
        self._busy_ms = int(busy_timeout * 1000)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous}")
        if (readonly or not create) and path != ":memory:" and not os.path.exists(path):
            raise StoreError(f"no database at {path}")
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
                    MIGRATIONS.apply(self.db)
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
        return _table_dict(row)

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
        return [_table_dict(r) for r in rows]

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
        rec = _json_value(record)
        result = _check_record(rec, players, scores)
        deal_scores = [_num(float(x)) for x in scores]
        at = parse_time(finished_at) if finished_at else now()
        rec_text = _encode(rec).decode()
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
            _ensure_table(c, table_id, at)
            values = (
                rec["dealer"],
                status,
                contract,
                taker,
                *(players[s] for s in range(4)),
                _encode(deal_scores).decode(),
                rec_text,
                at,
            )
            if row is None:
                c.execute(
                    "INSERT INTO deals (dealer, status, contract, taker, seat0, seat1, seat2,"
                    " seat3, scores, record, finished_at, started_at, table_id, deal_no)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*values, at, table_id, deal_no),
                )
            else:
                c.execute(
                    "UPDATE deals SET dealer = ?, status = ?, contract = ?, taker = ?, seat0 = ?,"
                    " seat1 = ?, seat2 = ?, seat3 = ?, scores = ?, record = ?, finished_at = ?"
                    " WHERE table_id = ? AND deal_no = ?",
                    (*values, table_id, deal_no),
                )
                c.execute(
                    "DELETE FROM actions WHERE table_id = ? AND deal_no = ?", (table_id, deal_no)
                )
            c.executemany(
                "INSERT INTO scores (table_id, seat, player, score, deals, updated_at)"
                " VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (table_id, seat, player) DO UPDATE SET"
                " score = score + excluded.score, deals = deals + 1,"
                " updated_at = excluded.updated_at",
                [(table_id, s, names[s], float(deal_scores[s]), at) for s in range(4)],
            )
            c.executemany(
                "INSERT INTO players (name, first_seen, last_seen) VALUES (?, ?, ?)"
                " ON CONFLICT (name) DO UPDATE SET"
                " first_seen = min(first_seen, excluded.first_seen),"
                " last_seen = max(last_seen, excluded.last_seen)",
                [(n, at, at) for n in dict.fromkeys(p for p in players if p)],
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
                    yield rec

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
        if len(hands) != 4:
            raise ValueError("hands must list four hands")
        dealt = {"hands": [list(h) for h in hands], "chien": list(chien)}
        at = parse_time(started_at) if started_at else now()
        seats = list(players) if players is not None else [None] * 4
        if len(seats) != 4:
            raise ValueError("players must list four seats")

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
                cards = _decode(dealt) if dealt else {"hands": [], "chien": []}
                out.append(
                    {
                        "table_id": tid,
                        "deal_no": no,
                        "players": [s0, s1, s2, s3],
                        "started_at": at,
                        "record": {
                            "format": RECORD_FORMAT,
                            "dealer": dealer,
                            "hands": cards["hands"],
                            "chien": cards["chien"],
                            "actions": actions,
                        },
                    }
                )
        return out

    def abandon_deal(self, table_id: str, deal_no: int) -> None:
        """Give up a deal in progress (its table closed): it keeps its partial record but is
        neither replayed on start nor exported."""
        at = now()
        self._tx(lambda c: self._abandon(c, table_id, deal_no, at))

    def _abandon(self, c: sqlite3.Connection, table_id: str, deal_no: int, at: str) -> None:
        row = c.execute(
            "SELECT dealer, dealt, status FROM deals WHERE table_id = ? AND deal_no = ?",
            (table_id, deal_no),
        ).fetchone()
        if row is None or row[2] != "in_progress":
            return
        cards = _decode(row[1]) if row[1] else {"hands": [], "chien": []}
        actions = [
            _decode(a)
            for (a,) in c.execute(
                "SELECT action FROM actions WHERE table_id = ? AND deal_no = ? ORDER BY idx",
                (table_id, deal_no),
            )
        ]
        partial = {"format": RECORD_FORMAT, "dealer": row[0], **cards, "actions": actions}
        c.execute(
            "UPDATE deals SET status = 'abandoned', record = ?, finished_at = ?"
            " WHERE table_id = ? AND deal_no = ?",
            (_encode(partial).decode(), at, table_id, deal_no),
        )
        c.execute("DELETE FROM actions WHERE table_id = ? AND deal_no = ?", (table_id, deal_no))

    # -- maintenance --

    def backup(self, dest: str, *, overwrite: bool = False) -> None:
        """Online, consistent copy of the database to ``dest`` (VACUUM INTO: compact, and
        readable by itself without a -wal file). Written to a temporary file next to ``dest``,
        checked, then renamed, so ``dest`` is never a half-written file."""
        if os.path.exists(dest) and not overwrite:
            raise StoreError(f"{dest} already exists")
        directory = os.path.dirname(os.path.abspath(dest))
        tmp = os.path.join(directory, f".{os.path.basename(dest)}.{os.getpid()}.tmp")
        try:
            if os.path.exists(tmp):
                os.remove(tmp)
            with self._errors():
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
            if os.path.exists(tmp):
                os.remove(tmp)

    def close(self) -> None:
        try:
            if not self.readonly:
                self.conn.execute("PRAGMA optimize")
        except sqlite3.Error:
            pass  # best effort; closing must not fail for it
        self.conn.close()


def _check_record(
    rec: Any, players: Sequence[str | None], scores: Sequence[float]
) -> dict[str, Any]:
    """The record's result, after checking the arguments agree with each other."""
    if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT:
        raise ValueError(f"record_deal needs an {RECORD_FORMAT} record")
    result = rec.get("result")
    if not isinstance(result, dict) or result.get("status") not in FINISHED_STATUSES:
        raise ValueError("record_deal needs a finished record with its result")
    if len(players) != 4 or len(scores) != 4:
        raise ValueError("players and scores must list the four seats")
    stored = result.get("scores")
    if stored is not None and [float(x) for x in stored] != [float(x) for x in scores]:
        raise ValueError(
            f"scores {list(scores)} are not the deal's result scores {stored} "
            "(record_deal takes this deal's scores, not cumulative ones)"
        )
    return result


def _ensure_table(c: sqlite3.Connection, table_id: str, at: str) -> None:
    # A deal must never be lost because its table's row was not written first.
    c.execute(
        "INSERT OR IGNORE INTO tables (id, name, options, status, created_at)"
        " VALUES (?, ?, '{}', 'open', ?)",
        (table_id, table_id, at),
    )


def _table_dict(row: tuple) -> dict[str, Any]:
    tid, name, options, status, created, finished, deals = row
    return {
        "id": tid,
        "name": name,
        "options": _decode(options),
        "status": status,
        "created_at": created,
        "finished_at": finished,
        "deals": deals,
    }


# --- off the event loop ---------------------------------------------------------------------


class AsyncStore:
    """A Store on one dedicated thread, for the asyncio server.

    Every call runs on the same worker thread, in the order it was made, so writes are ordered
    and the event loop never touches SQLite. A write that fails for a transient reason (locked
    database, full disk, I/O) is logged and retried with exponential backoff (``retry_initial``
    doubling up to ``retry_max`` seconds) until it succeeds; later calls wait behind it, which
    keeps the order. A write that cannot succeed (a conflict, a bug) is logged with its payload
    and raised to its caller. Cancelling the awaiting task does not cancel the write.

    Opening (migrations) happens in ``__init__`` on the worker thread, which blocks the caller
    for that short start-up step and raises its StoreError right away.
    """

    def __init__(
        self,
        path: str,
        *,
        retry_initial: float = 0.05,
        retry_max: float = 2.0,
        **store_options: Any,
    ) -> None:
        self.path = path
        self._retry_initial = retry_initial
        self._retry_max = retry_max
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="atout-store"
        )
        self._give_up = threading.Event()
        self._lock = threading.Lock()
        self._pending = 0
        self._failing = False
        self._closed = False
        try:
            self._store: Store = self._executor.submit(
                lambda: Store(path, **store_options)
            ).result()
        except BaseException:
            self._executor.shutdown(wait=False)
            raise

    # -- figures for /healthz and /metrics --

    @property
    def pending(self) -> int:
        """Calls submitted and not finished (including one being retried)."""
        return self._pending

    @property
    def failing(self) -> bool:
        """Whether the last write attempt failed and is being retried."""
        return self._failing

    # -- the machinery --

    def _run(self, fn: Callable[..., T], args: tuple, retry: bool, attempts: int | None) -> T:
        """On the worker thread: call ``fn(*args)``, retrying transient failures."""
        name = getattr(fn, "__name__", "call")
        delay = self._retry_initial
        n = 0
        try:
            while True:
                n += 1
                try:
                    result = fn(*args)
                except StoreError as e:
                    last = (
                        not e.transient
                        or not retry
                        or (attempts is not None and n >= attempts)
                        or self._give_up.is_set()
                    )
                    if last:
                        if retry:
                            self._failing = e.transient
                            log.error(
                                "store %s failed for good after %d attempt(s): %s [%s]; "
                                "payload: %s",
                                name,
                                n,
                                e,
                                e.code,
                                _payload(args),
                            )
                        raise
                    self._failing = True
                    log.warning(
                        "store %s failed (attempt %d), retrying in %.2fs: %s [%s]",
                        name,
                        n,
                        delay,
                        e,
                        e.code,
                    )
                    self._give_up.wait(delay)
                    delay = min(delay * 2, self._retry_max)
                    continue
                except Exception:
                    log.exception("store %s failed; payload: %s", name, _payload(args))
                    raise
                if n > 1:
                    log.info("store %s succeeded after %d attempts", name, n)
                if retry:
                    self._failing = False
                return result
        finally:
            with self._lock:
                self._pending -= 1

    async def _call(
        self,
        fn: Callable[..., T],
        *args: Any,
        retry: bool = True,
        attempts: int | None = None,
    ) -> T:
        if self._closed:
            raise StoreClosed("the store is closed")
        with self._lock:
            self._pending += 1
        cf = self._executor.submit(self._run, fn, args, retry, attempts)
        fut = asyncio.wrap_future(cf)
        # If the caller is cancelled the write still happens (shield), and its outcome has
        # already been logged by _run, so nobody needs to retrieve it.
        fut.add_done_callback(_consume)
        return await asyncio.shield(fut)

    async def run(self, fn: Callable[[Store], T]) -> T:
        """Run ``fn(store)`` on the worker thread, in order with the other calls (no retry)."""
        return await self._call(fn, self._store, retry=False)

    # -- the interface --

    async def create_table(self, table_id: str, name: str, options: dict[str, Any]) -> None:
        await self._call(self._store.create_table, table_id, name, options)

    async def set_table_status(self, table_id: str, status: str) -> None:
        await self._call(self._store.set_table_status, table_id, status)

    async def finish_table(self, table_id: str, status: str = "finished") -> None:
        await self._call(self._store.finish_table, table_id, status)

    async def record_deal(
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
        # The finish time is taken now, not when a retried write finally lands.
        await self._call(
            _record_deal_with,
            self._store,
            table_id,
            deal_no,
            record,
            list(players),
            list(scores),
            finished_at or now(),
            seats,
        )

    async def start_deal(
        self,
        table_id: str,
        deal_no: int,
        dealer: int,
        hands: Sequence[Sequence[str]],
        chien: Sequence[str],
        players: Sequence[str | None] | None = None,
        *,
        attempts: int | None = 3,
    ) -> None:
        await self._call(
            _start_deal_at,
            self._store,
            table_id,
            deal_no,
            dealer,
            hands,
            chien,
            players,
            now(),
            attempts=attempts,
        )

    async def append_action(
        self, table_id: str, deal_no: int, idx: int, action: Any, *, attempts: int | None = 3
    ) -> None:
        """Log an action before its events go out. By default a few quick attempts only, then
        StoreError: the server refuses the action and the table carries on when storage
        recovers (``attempts=None`` retries until it succeeds)."""
        await self._call(
            self._store.append_action, table_id, deal_no, idx, action, attempts=attempts
        )

    async def writable(self, timeout: float = 1.0) -> bool:
        """For /healthz: False at once while a write is being retried, else a real write."""
        if self._closed or self._failing:
            return False
        try:
            return await asyncio.wait_for(
                self._call(self._store.writable, min(timeout, 0.5), retry=False), timeout
            )
        except (TimeoutError, StoreError):
            return False

    async def table_scores(self, table_id: str) -> list[int | float]:
        return await self._call(self._store.table_scores, table_id, attempts=3)

    async def standings(self, table_id: str | None = None) -> list[dict[str, Any]]:
        return await self._call(self._store.standings, table_id, attempts=3)

    async def unfinished_deals(self) -> list[dict[str, Any]]:
        return await self._call(self._store.unfinished_deals, attempts=3)

    async def close(self, timeout: float | None = None) -> None:
        """Flush every pending write, then close. After ``timeout`` seconds, writes still being
        retried stop retrying: each is logged at ERROR with its payload and fails its caller."""
        if self._closed:
            return
        self._closed = True
        cf = self._executor.submit(self._store.close)
        fut = asyncio.wrap_future(cf)
        try:
            if timeout is None:
                await asyncio.shield(fut)
            else:
                try:
                    await asyncio.wait_for(asyncio.shield(fut), timeout)
                except TimeoutError:
                    self._give_up.set()
                    await asyncio.shield(fut)
        finally:
            self._executor.shutdown(wait=False)


def _start_deal_at(
    store: Store,
    table_id: str,
    deal_no: int,
    dealer: int,
    hands: Sequence[Sequence[str]],
    chien: Sequence[str],
    players: Sequence[str | None] | None,
    at: str,
) -> None:
    store.start_deal(table_id, deal_no, dealer, hands, chien, players=players, started_at=at)


_start_deal_at.__name__ = "start_deal"


def _record_deal_with(
    store: Store,
    table_id: str,
    deal_no: int,
    record: dict[str, Any],
    players: Sequence[str | None],
    scores: Sequence[float],
    finished_at: str,
    seats: Sequence[dict[str, Any]] | None,
) -> None:
    store.record_deal(table_id, deal_no, record, players, scores, finished_at, seats=seats)


_record_deal_with.__name__ = "record_deal"


def _payload(args: tuple) -> str:
    """Arguments of a failed call as JSON, so an operator can recover what was not written."""
    try:
        return _encode([a for a in args if not isinstance(a, Store)]).decode()
    except (TypeError, msgspec.EncodeError):
        return repr(args)


def _consume(fut: asyncio.Future) -> None:
    if not fut.cancelled():
        fut.exception()

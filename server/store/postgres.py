"""PostgreSQL persistence, for hosts who outgrow one machine: the same store as
``server/store/sqlite.py`` (``server.store.base.Store``), the same behaviour, on a server that
several Atout hosts share.

The driver is psycopg 3, used synchronously on the store's own thread (``AsyncStore``), like
SQLite: measured on this project's hot path (bench/pg_driver.py, docs/SCALING.md section 5), it
costs the event loop 3 to 4 times less CPU per commit than asyncpg on the loop, at the same
commit rate, and it keeps one code path for both backends (journal, admin commands,
migrations). Each store holds one connection and reconnects on demand after a failure (the
caller's retries pace it), which is all a pool of one would do.

Schema: the SQLite tables one to one, JSON columns as ``jsonb``, scores ``double precision``
(exact for halves), timestamps as ISO 8601 UTC text as in SQLite (so that both backends export
byte for byte the same), text ordered ``COLLATE "C"`` (SQLite's binary order), and the cluster
registry's tables (``server/store/pg_registry.py``) in the same list of migrations.

Errors map to the same typed StoreErrors: a lost or refused connection and a server shutting
down (``StoreDisconnected``), a serialization failure, deadlock or lock timeout
(``StoreLocked``), a full disk (``StoreFull``), a read-only server such as a standby
(``StoreReadOnly``): all transient, so the server refuses the action with
``storage_unavailable`` and carries on when the database is back.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import msgspec
import psycopg
from psycopg import errors as pgerr
from psycopg import sql
from psycopg.types.json import set_json_loads

from server.store.base import (
    AI,
    FINISHED_STATUSES,
    Fence,
    Op,
    OpenTable,
    StoreConflict,
    StoreError,
    StoreFenced,
    StoreIOError,
    backup_tmp,
    canonical,
    check_dealt,
    check_record,
    describe,
    json_value,
    now,
    num,
    parse_time,
    partial_record,
    table_dict,
)
from server.store.pg_errors import pg_error

log = logging.getLogger("atout.store")

T = TypeVar("T")
_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode

#: A transaction left open this long by a stalled client (a worker paused past its lease) is
#: ended by the server, so that its row locks never block another worker's adoption.
IDLE_IN_TRANSACTION_MS = 5000
#: An advisory lock key: one process applies the migrations, the others wait for it.
_MIGRATION_LOCK = 0x61746F7574  # "atout"

# --- schema: one ordered list of migrations ---------------------------------------------------

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_initial",
        """
        CREATE TABLE tables (
            id text PRIMARY KEY,
            name text NOT NULL,
            options jsonb NOT NULL,
            status text NOT NULL,
            created_at text NOT NULL,
            finished_at text
        );
        CREATE TABLE deals (
            table_id text NOT NULL REFERENCES tables (id),
            deal_no integer NOT NULL,
            dealer integer NOT NULL,
            status text NOT NULL,
            contract text,
            taker integer,
            seat0 text, seat1 text, seat2 text, seat3 text,
            scores jsonb,
            record jsonb,
            started_at text,
            finished_at text,
            PRIMARY KEY (table_id, deal_no)
        );
        CREATE INDEX deals_finished_at ON deals (finished_at);
        CREATE INDEX deals_status ON deals (status);
        CREATE TABLE scores (
            table_id text NOT NULL REFERENCES tables (id),
            seat integer NOT NULL,
            player text NOT NULL,
            score double precision NOT NULL DEFAULT 0,
            deals integer NOT NULL DEFAULT 0,
            updated_at text NOT NULL,
            PRIMARY KEY (table_id, seat, player)
        );
        CREATE INDEX scores_player ON scores (player);
        CREATE TABLE players (
            name text PRIMARY KEY,
            first_seen text NOT NULL,
            last_seen text NOT NULL
        );
        CREATE TABLE health (id integer PRIMARY KEY, checked_at text);
        """,
    ),
    (
        "0002_action_log",
        """
        ALTER TABLE deals ADD COLUMN dealt jsonb;
        CREATE TABLE actions (
            table_id text NOT NULL,
            deal_no integer NOT NULL,
            idx integer NOT NULL,
            action jsonb NOT NULL,
            created_at text NOT NULL,
            PRIMARY KEY (table_id, deal_no, idx),
            FOREIGN KEY (table_id, deal_no) REFERENCES deals (table_id, deal_no)
        );
        """,
    ),
    (
        "0003_registry",
        """
        CREATE SEQUENCE worker_ids START 1;
        CREATE TABLE workers (
            worker integer PRIMARY KEY,
            url text NOT NULL,
            pid integer NOT NULL,
            host text NOT NULL,
            slot integer,
            started_at double precision NOT NULL,
            heartbeat_at double precision NOT NULL,
            listing jsonb NOT NULL DEFAULT '[]',
            listing_rev integer NOT NULL DEFAULT 0,
            stopped boolean NOT NULL DEFAULT false
        );
        CREATE TABLE table_owner (
            table_id text PRIMARY KEY,
            worker integer NOT NULL,
            epoch integer NOT NULL DEFAULT 1,
            created_at double precision NOT NULL,
            closed_at double precision
        );
        CREATE INDEX table_owner_worker ON table_owner (worker) WHERE closed_at IS NULL;
        CREATE TABLE token_owner (
            token_hash text PRIMARY KEY,
            table_id text NOT NULL
        );
        CREATE INDEX token_owner_table ON token_owner (table_id);
        """,
    ),
    (
        "0004_players",
        # SQLite's 0003_players (server/store/players.py): accounts, key hashes, ratings, who sat
        # in each seat of every finished deal, par replays. Integers where SQLite has them
        # (flags 0/1), JSON as jsonb.
        """
        CREATE TABLE accounts (
            id bigserial PRIMARY KEY,
            ns text NOT NULL,
            name text NOT NULL,
            name_key text NOT NULL,
            kind text NOT NULL,
            password text,
            created_at text NOT NULL,
            last_seen text,
            UNIQUE (ns, name_key)
        );
        CREATE TABLE account_keys (
            key_hash text PRIMARY KEY,
            account_id bigint NOT NULL REFERENCES accounts (id),
            created_at text NOT NULL,
            last_used text
        );
        CREATE INDEX account_keys_account ON account_keys (account_id);
        CREATE TABLE ratings (
            account_id bigint PRIMARY KEY REFERENCES accounts (id),
            mu double precision NOT NULL,
            sigma double precision NOT NULL,
            deals integer NOT NULL,
            updated_at text NOT NULL
        );
        CREATE TABLE deal_players (
            table_id text NOT NULL,
            deal_no integer NOT NULL,
            seat integer NOT NULL,
            account_id bigint REFERENCES accounts (id),
            guest text,
            ai text,
            partial integer NOT NULL DEFAULT 0,
            status text NOT NULL,
            score double precision NOT NULL,
            finished_at text NOT NULL,
            reviewed integer NOT NULL DEFAULT 0,
            role text,
            won integer,
            margin double precision,
            petit_au_bout integer,
            poignee text,
            chelem integer,
            par double precision,
            rating_mu double precision,
            rating_sigma double precision,
            rating_delta double precision,
            PRIMARY KEY (table_id, deal_no, seat),
            FOREIGN KEY (table_id, deal_no) REFERENCES deals (table_id, deal_no)
        );
        CREATE INDEX deal_players_account ON deal_players (account_id, finished_at);
        CREATE INDEX deal_players_guest ON deal_players (guest, finished_at);
        CREATE TABLE pars (
            table_id text NOT NULL,
            deal_no integer NOT NULL,
            level text NOT NULL,
            scores jsonb NOT NULL,
            record jsonb NOT NULL,
            cpu_ms double precision,
            computed_at text NOT NULL,
            PRIMARY KEY (table_id, deal_no),
            FOREIGN KEY (table_id, deal_no) REFERENCES deals (table_id, deal_no)
        );
        ALTER TABLE deals ADD COLUMN review text;
        CREATE INDEX deals_review ON deals (review) WHERE review = 'pending';
        """,
    ),
]
MIGRATION_NAMES = [name for name, _ in MIGRATIONS]


# --- the store ----------------------------------------------------------------------------------


class PostgresStore:
    """The PostgreSQL store (``server.store.base.Store``) on one connection; one thread only.

    ``url`` is a libpq URL (``postgresql://user:password@host:port/dbname``; every libpq
    parameter and ``PG*`` variable works). ``readonly=True`` opens a read-only session and
    applies no migration (the admin commands); ``create=False`` is accepted for symmetry with
    SQLite (a PostgreSQL database is never created by Atout: create it with ``createdb``).
    ``busy_timeout`` is how long a write waits for a row lock (``lock_timeout``) before
    failing with StoreLocked; ``connect_timeout`` how long connecting may take.
    """

    # The players' tables (``server.store.base.PlayerStore``, issue 12): server/store/players.py's
    # methods through the dialect adapter of server/store/pg_players.py (``__getattr__``).
    keeps_players = True

    def __init__(
        self,
        url: str,
        *,
        create: bool = True,
        readonly: bool = False,
        busy_timeout: float = 5.0,
        connect_timeout: float = 5.0,
    ) -> None:
        self.url = url
        self.path = describe(url)  # for messages: never the password
        self.readonly = readonly
        self._busy_ms = max(1, int(busy_timeout * 1000))
        self._connect_timeout = max(1, int(connect_timeout + 0.999))
        self._conn: psycopg.Connection[Any] | None = None
        self._cur: psycopg.Cursor[Any] | None = None  # the batch's, inside write_batch
        self._in_batch = False
        conn = self._connection()
        try:
            self._check_schema(conn)
            if not readonly:
                self._migrate(conn)
        except BaseException:
            self.close()
            raise

    # -- the players' methods (server/store/pg_players.py) --

    def __getattr__(self, name: str) -> Any:
        """The players' store methods (accounts, reviews, profiles, histories, leaderboards),
        written once in server/store/players.py, run here through pg_players."""
        if name.startswith("_"):
            raise AttributeError(name)
        from server.store.pg_players import PLAYER_METHODS, PgPlayers

        if name not in PLAYER_METHODS:
            raise AttributeError(name)
        players = self.__dict__.get("_players")
        if players is None:
            players = self.__dict__["_players"] = PgPlayers(self)
        return getattr(players, name)

    # -- the connection --

    def _options(self) -> str:
        opts = [
            f"-c lock_timeout={self._busy_ms}",
            f"-c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_MS}",
            "-c TimeZone=UTC",
        ]
        if self.readonly:
            opts.append("-c default_transaction_read_only=on")
        return " ".join(opts)

    def _connection(self) -> psycopg.Connection[Any]:
        """The connection, (re)opened when it is missing or broken."""
        c = self._conn
        if c is not None and not c.closed and not c.broken:
            return c
        if c is not None:
            with contextlib.suppress(Exception):
                c.close()
            self._conn = None
        try:
            c = connect(self.url, self._options(), self._connect_timeout, "atout")
        except psycopg.Error as e:
            raise pg_error(e) from e
        set_json_loads(_decode, c)
        self._conn = c
        return c

    @contextlib.contextmanager
    def _errors(self) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor for reads (autocommit: each statement its own snapshot), errors typed."""
        try:
            with self._connection().cursor() as cur:
                yield cur
        except psycopg.Error as e:
            raise pg_error(e) from e

    def _tx(self, fn: Callable[[psycopg.Cursor[Any]], T]) -> T:
        """Run ``fn(cursor)`` in one transaction, errors typed, rolled back on failure."""
        if self._in_batch:  # inside write_batch: its transaction and savepoint hold this
            assert self._cur is not None
            return fn(self._cur)
        conn = self._connection()
        try:
            with conn.transaction(), conn.cursor() as cur:
                return fn(cur)
        except psycopg.Error as e:
            raise pg_error(e) from e

    # -- schema --

    def _applied(self, cur: psycopg.Cursor[Any]) -> list[str] | None:
        cur.execute("SELECT to_regclass('atout_migrations') IS NOT NULL")
        row = cur.fetchone()
        if not row or not row[0]:
            return None
        cur.execute("SELECT name FROM atout_migrations ORDER BY seq")
        return [r[0] for r in cur.fetchall()]

    def _check_schema(self, conn: psycopg.Connection[Any]) -> None:
        try:
            with conn.cursor() as cur:
                applied = self._applied(cur) or []
        except psycopg.Error as e:
            raise pg_error(e) from e
        unknown = [n for n in applied if n not in MIGRATION_NAMES]
        if unknown and not self.readonly:
            raise StoreError(
                f"{self.path} was written by a newer Atout (unknown migrations: "
                f"{', '.join(unknown)}); refusing to write to it"
            )
        if self.readonly and "0001_initial" not in applied:
            raise StoreError(f"{self.path} is not an Atout database")

    def _migrate(self, conn: psycopg.Connection[Any]) -> None:
        try:
            with conn.transaction(), conn.cursor() as cur:
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                cur.execute(
                    "CREATE TABLE IF NOT EXISTS atout_migrations (seq integer PRIMARY KEY,"
                    " name text UNIQUE NOT NULL, applied_at text NOT NULL)"
                )
                applied = self._applied(cur) or []
                unknown = [n for n in applied if n not in MIGRATION_NAMES]
                if unknown:  # another process of a newer Atout got here first
                    raise StoreError(
                        f"{self.path} was written by a newer Atout (unknown migrations: "
                        f"{', '.join(unknown)}); refusing to write to it"
                    )
                for seq, (name, ddl) in enumerate(MIGRATIONS, 1):
                    if name in applied:
                        continue
                    cur.execute(ddl)
                    cur.execute(
                        "INSERT INTO atout_migrations (seq, name, applied_at) VALUES (%s, %s, %s)",
                        (seq, name, now()),
                    )
                    log.info("%s: migration %s applied", self.path, name)
        except psycopg.Error as e:
            raise pg_error(e) from e

    def schema_version(self) -> list[str]:
        """The names of the applied migrations, in order."""
        with self._errors() as cur:
            return self._applied(cur) or []

    # -- health --

    def writable(self, timeout: float = 0.5) -> bool:
        """Whether a real write commits now (waiting at most ``timeout`` s for a lock)."""
        if self.readonly:
            return False
        ms = max(1, int(timeout * 1000))

        def tx(c: psycopg.Cursor[Any]) -> None:
            c.execute(f"SET LOCAL lock_timeout = {ms}")
            c.execute(f"SET LOCAL statement_timeout = {ms}")
            c.execute(
                "INSERT INTO health (id, checked_at) VALUES (1, %s)"
                " ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at",
                (now(),),
            )

        try:
            self._tx(tx)
        except StoreError as e:
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
                "INSERT INTO tables (id, name, options, status, created_at)"
                " VALUES (%s, %s, %s::jsonb, %s, %s) ON CONFLICT (id) DO UPDATE"
                " SET name = excluded.name, options = excluded.options",
                (table_id, name, opts, status, created),
            )
        )

    def set_table_status(self, table_id: str, status: str) -> None:
        self._tx(
            lambda c: c.execute("UPDATE tables SET status = %s WHERE id = %s", (status, table_id))
        )

    def finish_table(self, table_id: str, status: str = "finished") -> None:
        """Mark a table finished (or closed...). A deal still in progress there is abandoned."""
        at = now()

        def tx(c: psycopg.Cursor[Any]) -> None:
            c.execute(
                "UPDATE tables SET status = %s, finished_at = %s WHERE id = %s",
                (status, at, table_id),
            )
            if c.rowcount == 0:
                log.warning("finish_table: no table %r", table_id)
            c.execute(
                "SELECT deal_no FROM deals WHERE table_id = %s AND status = 'in_progress'",
                (table_id,),
            )
            for (deal_no,) in c.fetchall():
                self._abandon(c, table_id, deal_no, at)

        self._tx(tx)

    _TABLE_COLS = (
        "SELECT id, name, options, status, created_at, finished_at,"
        " (SELECT COUNT(*) FROM deals d WHERE d.table_id = t.id"
        "  AND d.status IN ('played', 'annulled')) FROM tables t"
    )

    def table(self, table_id: str) -> dict[str, Any] | None:
        """A table's row (options decoded) with its number of finished deals, or None."""
        with self._errors() as cur:
            cur.execute(self._TABLE_COLS + " WHERE id = %s", (table_id,))
            row = cur.fetchone()
        return None if row is None else table_dict(row)

    def tables(self, *, unfinished: bool = False) -> list[dict[str, Any]]:
        """Every table (or those not finished/closed), oldest first."""
        where = " WHERE finished_at IS NULL" if unfinished else ""
        with self._errors() as cur:
            cur.execute(
                self._TABLE_COLS + where + ' ORDER BY created_at COLLATE "C", id COLLATE "C"'
            )
            rows = cur.fetchall()
        return [table_dict(r) for r in rows]

    def open_tables(self, owned: Callable[[str], bool] | None = None) -> list[OpenTable]:
        """Each open table (those ``owned(table_id)`` accepts), oldest first, with its finished
        deal records and its deals in progress: what rebuilding a table needs."""
        with self._errors() as cur:
            cur.execute(
                "SELECT id FROM tables WHERE status = 'open'"
                ' ORDER BY created_at COLLATE "C", id COLLATE "C"'
            )
            ids = [r[0] for r in cur.fetchall() if owned is None or owned(r[0])]
        if not ids:
            return []
        unfinished: dict[str, list[dict[str, Any]]] = {}
        for entry in self._unfinished(ids):
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
        """Store a finished deal and add its scores to the cumulative ones, in one transaction
        (as ``SqliteStore.record_deal``: idempotent; a different record under the same number
        raises StoreConflict; ``seats``: who sat in each seat, for ``deal_players``)."""
        rec_bytes = _encode(record)  # encoded once, as stored (SqliteStore.record_deal)
        rec = _decode(rec_bytes)
        result = check_record(rec, players, scores)
        deal_scores = [num(float(x)) for x in scores]
        at = parse_time(finished_at) if finished_at else now()
        rec_text = rec_bytes.decode()
        names = [p or AI for p in players]
        taker = result.get("taker")
        contract = result.get("contract")
        status = result["status"]

        def tx(c: psycopg.Cursor[Any]) -> None:
            c.execute(
                "SELECT status, record FROM deals WHERE table_id = %s AND deal_no = %s FOR UPDATE",
                (table_id, deal_no),
            )
            row = c.fetchone()
            if row is not None and row[0] != "in_progress":
                if row[0] in FINISHED_STATUSES and row[1] == rec:
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
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s,"
                    " %s, %s)",
                    (*values, at, table_id, deal_no),
                )
            else:
                c.execute(
                    "UPDATE deals SET dealer = %s, status = %s, contract = %s, taker = %s,"
                    " seat0 = %s, seat1 = %s, seat2 = %s, seat3 = %s, scores = %s::jsonb,"
                    " record = %s::jsonb, finished_at = %s WHERE table_id = %s AND deal_no = %s",
                    (*values, table_id, deal_no),
                )
                c.execute(
                    "DELETE FROM actions WHERE table_id = %s AND deal_no = %s",
                    (table_id, deal_no),
                )
            c.executemany(
                "INSERT INTO scores (table_id, seat, player, score, deals, updated_at)"
                " VALUES (%s, %s, %s, %s, 1, %s) ON CONFLICT (table_id, seat, player) DO UPDATE"
                " SET score = scores.score + excluded.score, deals = scores.deals + 1,"
                " updated_at = excluded.updated_at",
                [(table_id, s, names[s], float(deal_scores[s]), at) for s in range(4)],
            )
            humans = list(dict.fromkeys(p for p in players if p))
            if humans:
                c.executemany(
                    "INSERT INTO players (name, first_seen, last_seen) VALUES (%s, %s, %s)"
                    " ON CONFLICT (name) DO UPDATE SET"
                    ' first_seen = LEAST(players.first_seen COLLATE "C", excluded.first_seen),'
                    ' last_seen = GREATEST(players.last_seen COLLATE "C", excluded.last_seen)',
                    [(n, at, at) for n in humans],
                )
            _record_seats(c, table_id, deal_no, status, players, seats, deal_scores, at)

        self._tx(tx)

    def table_scores(self, table_id: str) -> list[int | float]:
        """Cumulative score per seat (0 for a seat or table with no deal yet)."""
        with self._errors() as cur:
            cur.execute(
                "SELECT seat, SUM(score) FROM scores WHERE table_id = %s GROUP BY seat",
                (table_id,),
            )
            rows = cur.fetchall()
        totals: list[int | float] = [0, 0, 0, 0]
        for seat, total in rows:
            totals[seat] = num(total)
        return totals

    def deals(self, table_id: str | None = None, since: str | None = None) -> Iterator[dict]:
        """Finished deal records (played or annulled), oldest first, each with its ``meta``
        (as ``SqliteStore.deals``; the same bytes once encoded)."""
        where = ["status IN ('played', 'annulled')"]
        params: list[Any] = []
        if table_id is not None:
            where.append("table_id = %s")
            params.append(table_id)
        if since is not None:
            where.append('finished_at COLLATE "C" >= %s')
            params.append(parse_time(since))
        query = (
            "SELECT table_id, deal_no, seat0, seat1, seat2, seat3, finished_at, record"
            f" FROM deals WHERE {' AND '.join(where)}"
            ' ORDER BY finished_at COLLATE "C", table_id COLLATE "C", deal_no'
        )
        conn = self._connection()
        try:
            # a server-side cursor (in a read-only transaction): an export streams
            with conn.transaction(), conn.cursor(name="atout_deals") as cur:
                cur.itersize = 200
                cur.execute(query, params)
                for tid, no, s0, s1, s2, s3, at, rec in cur:
                    meta = {
                        "table_id": tid,
                        "deal_no": no,
                        "players": [s0, s1, s2, s3],
                        "finished_at": at,
                    }
                    rec["meta"] = {**meta, **(rec.get("meta") or {})}
                    yield canonical(rec)
        except psycopg.Error as e:
            raise pg_error(e) from e

    def deal(self, table_id: str, deal_no: int) -> dict[str, Any] | None:
        """One finished deal's record (played or annulled) with its ``meta``, or None (as
        ``SqliteStore.deal``)."""
        with self._errors() as cur:
            cur.execute(
                "SELECT seat0, seat1, seat2, seat3, finished_at, record FROM deals"
                " WHERE table_id = %s AND deal_no = %s AND status IN ('played', 'annulled')",
                (table_id, deal_no),
            )
            row = cur.fetchone()
        if row is None:
            return None
        s0, s1, s2, s3, at, rec = row
        meta = {"table_id": table_id, "deal_no": deal_no, "players": [s0, s1, s2, s3]}
        rec["meta"] = {**meta, "finished_at": at, **(rec.get("meta") or {})}
        return canonical(rec)

    def standings(self, table_id: str | None = None) -> list[dict[str, Any]]:
        """The leaderboard, or one table's standings (as ``SqliteStore.standings``)."""
        with self._errors() as cur:
            if table_id is None:
                cur.execute(
                    "SELECT s.player, SUM(s.score), SUM(s.deals), COUNT(DISTINCT s.table_id),"
                    " MAX(p.last_seen) FROM scores s LEFT JOIN players p ON p.name = s.player"
                    " WHERE s.player != '' GROUP BY s.player"
                    ' ORDER BY SUM(s.score) DESC, s.player COLLATE "C"'
                )
                return [
                    {
                        "rank": i + 1,
                        "player": name,
                        "score": num(score),
                        "deals": int(deals),
                        "tables": int(tables),
                        "last_seen": last,
                    }
                    for i, (name, score, deals, tables, last) in enumerate(cur.fetchall())
                ]
            cur.execute(
                "SELECT seat, player, score, deals FROM scores WHERE table_id = %s"
                ' ORDER BY score DESC, seat, player COLLATE "C"',
                (table_id,),
            )
            rows = cur.fetchall()
        return [
            {"rank": i + 1, "seat": seat, "player": name or None, "score": num(score), "deals": n}
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
        Idempotent for the same cards; raises StoreConflict when the deal number is taken."""
        dealt, seats = check_dealt(hands, chien, players)
        at = parse_time(started_at) if started_at else now()

        def tx(c: psycopg.Cursor[Any]) -> None:
            c.execute(
                "SELECT status, dealer, dealt FROM deals WHERE table_id = %s AND deal_no = %s",
                (table_id, deal_no),
            )
            row = c.fetchone()
            if row is not None:
                if row[0] == "in_progress" and row[1] == dealer and row[2] == dealt:
                    return
                raise StoreConflict(f"deal {deal_no} of table {table_id} already exists ({row[0]})")
            _ensure_table(c, table_id, at)
            c.execute(
                "INSERT INTO deals (table_id, deal_no, dealer, status, seat0, seat1, seat2,"
                " seat3, dealt, started_at)"
                " VALUES (%s, %s, %s, 'in_progress', %s, %s, %s, %s, %s::jsonb, %s)",
                (table_id, deal_no, dealer, *seats, _encode(dealt).decode(), at),
            )

        self._tx(tx)

    def append_action(self, table_id: str, deal_no: int, idx: int, action: Any) -> None:
        """Durably append action ``idx`` (0-based, no gaps) to a started deal's log.
        Idempotent for the same action at the same index; StoreConflict otherwise."""
        act = json_value(action)
        text = _encode(act).decode()
        at = now()

        def tx(c: psycopg.Cursor[Any]) -> None:
            c.execute(
                "SELECT status FROM deals WHERE table_id = %s AND deal_no = %s FOR UPDATE",
                (table_id, deal_no),
            )
            row = c.fetchone()
            if row is None or row[0] != "in_progress":
                state = "not started" if row is None else row[0]
                raise StoreConflict(
                    f"cannot log an action for deal {deal_no} of table {table_id}: {state}"
                )
            c.execute(
                "SELECT COUNT(*) FROM actions WHERE table_id = %s AND deal_no = %s",
                (table_id, deal_no),
            )
            (count,) = c.fetchone() or (0,)
            if idx < count:
                c.execute(
                    "SELECT action FROM actions WHERE table_id = %s AND deal_no = %s AND idx = %s",
                    (table_id, deal_no, idx),
                )
                (old,) = c.fetchone() or (None,)
                if old == act:
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
                " VALUES (%s, %s, %s, %s::jsonb, %s)",
                (table_id, deal_no, idx, text, at),
            )

        self._tx(tx)

    def unfinished_deals(self) -> list[dict[str, Any]]:
        """Every deal in progress, to rebuild by replay (as ``SqliteStore.unfinished_deals``)."""
        return self._unfinished(None)

    def _unfinished(self, ids: list[str] | None) -> list[dict[str, Any]]:
        where = "status = 'in_progress'" + (" AND table_id = ANY(%s)" if ids is not None else "")
        with self._errors() as cur:
            cur.execute(
                "SELECT table_id, deal_no, dealer, seat0, seat1, seat2, seat3, dealt, started_at"
                f' FROM deals WHERE {where} ORDER BY table_id COLLATE "C", deal_no',
                (ids,) if ids is not None else None,
            )
            deals = cur.fetchall()
            out = []
            for tid, no, dealer, s0, s1, s2, s3, dealt, at in deals:
                cur.execute(
                    "SELECT action FROM actions WHERE table_id = %s AND deal_no = %s ORDER BY idx",
                    (tid, no),
                )
                actions = [a for (a,) in cur.fetchall()]
                out.append(
                    {
                        "table_id": tid,
                        "deal_no": no,
                        "players": [s0, s1, s2, s3],
                        "started_at": at,
                        "record": canonical(partial_record(dealer, dealt, actions)),
                    }
                )
        return out

    def _abandon(self, c: psycopg.Cursor[Any], table_id: str, deal_no: int, at: str) -> None:
        """Give up a deal in progress (its table closed): it keeps its partial record but is
        neither replayed on start nor exported."""
        c.execute(
            "SELECT dealer, dealt, status FROM deals WHERE table_id = %s AND deal_no = %s"
            " FOR UPDATE",
            (table_id, deal_no),
        )
        row = c.fetchone()
        if row is None or row[2] != "in_progress":
            return
        c.execute(
            "SELECT action FROM actions WHERE table_id = %s AND deal_no = %s ORDER BY idx",
            (table_id, deal_no),
        )
        actions = [a for (a,) in c.fetchall()]
        partial = partial_record(row[0], row[1], actions)
        c.execute(
            "UPDATE deals SET status = 'abandoned', record = %s::jsonb, finished_at = %s"
            " WHERE table_id = %s AND deal_no = %s",
            (_encode(partial).decode(), at, table_id, deal_no),
        )
        c.execute("DELETE FROM actions WHERE table_id = %s AND deal_no = %s", (table_id, deal_no))

    # -- the journal's batches --

    def write_batch(
        self, groups: list[list[Op]], fences: list[Fence | None] | None = None
    ) -> list[BaseException | None]:
        """Every group in ONE transaction (``server.store.base.Store.write_batch``): the fences
        checked under a row lock (``FOR SHARE``: an adopter's compare-and-set waits for this
        transaction, and this one sees its result), the single-action groups in one
        ``INSERT ... SELECT FROM jsonb_to_recordset`` (one round trip for all), the rest one
        savepoint each. A fast insert refused by a key falls back to the slow way."""
        try:
            return self._batch(groups, fences, fast=True)
        except _FastRefused:
            return self._batch(groups, fences, fast=False)

    def _batch(
        self, groups: list[list[Op]], fences: list[Fence | None] | None, *, fast: bool
    ) -> list[BaseException | None]:
        results: list[BaseException | bool | None] = [True] * len(groups)
        conn = self._connection()
        try:
            with conn.transaction(), conn.cursor() as cur:
                self._cur = cur
                if fences is not None:
                    _check_fences(cur, fences, results)
                if fast:
                    _fast_actions(cur, groups, results)
                if True in results:
                    self._slow_groups(conn, groups, results)
        except psycopg.Error as e:
            raise pg_error(e) from e
        finally:
            self._cur = None
        return [None if r is True else r for r in results]  # type: ignore[misc]

    def _slow_groups(
        self,
        conn: psycopg.Connection[Any],
        groups: list[list[Op]],
        results: list[BaseException | bool | None],
    ) -> None:
        from server.store.sqlite import WRITE_METHODS, _ops_payload

        self._in_batch = True
        try:
            for k, ops in enumerate(groups):
                if results[k] is not True:
                    continue
                try:
                    with conn.transaction():  # a savepoint
                        for method, args, kw in ops:
                            if method not in WRITE_METHODS:
                                raise ValueError(f"{method} is not a store write")
                            getattr(self, method)(*args, **kw)
                except Exception as e:
                    err = pg_error(e) if isinstance(e, psycopg.Error) else e
                    if isinstance(err, StoreError) and err.transient:
                        raise err from e  # the storage itself: the whole batch is retried
                    if isinstance(err, StoreError):
                        log.error("store write refused: %s; payload: %s", err, _ops_payload(ops))
                    else:
                        log.exception("store write failed; payload: %s", _ops_payload(ops))
                    results[k] = err
                else:
                    results[k] = None
        finally:
            self._in_batch = False

    # -- copying (migrate-db) --

    def dump_rows(self) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        """Every row of the store's tables, parents first, in chunks (for ``migrate-db``)."""
        from server.store.sqlite import COPIED_TABLES

        conn = self._connection()
        try:
            with conn.transaction():  # one snapshot for the whole copy
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                for name in COPIED_TABLES:
                    with conn.cursor(name=f"atout_dump_{name}") as cur:
                        cur.itersize = 500
                        cur.execute(
                            sql.SQL("SELECT * FROM {} ORDER BY 1").format(sql.Identifier(name))
                        )
                        cols: list[str] | None = None
                        chunk: list[dict[str, Any]] = []
                        for r in cur:
                            if cols is None:
                                cols = [d.name for d in cur.description or ()]
                            chunk.append(dict(zip(cols, r, strict=True)))
                            if len(chunk) == 500:
                                yield name, chunk
                                chunk = []
                        if chunk:
                            yield name, chunk
        except psycopg.Error as e:
            raise pg_error(e) from e

    @contextlib.contextmanager
    def bulk_load(self) -> Iterator[None]:
        """One transaction for ``load_rows`` calls and the reads that check them (on this
        connection, they see the rows not yet committed): committed when the block ends,
        rolled back if it raises. ``migrate-db``'s copy is all or nothing."""
        conn = self._connection()
        try:
            with conn.transaction(), conn.cursor() as cur:
                # The copy's checks read SRC for a while, this transaction idle meanwhile: the
                # session's 5 s limit (IDLE_IN_TRANSACTION_MS) ended it, copy and all.
                cur.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
                self._cur, self._in_batch = cur, True  # load_rows' _tx runs on this cursor
                try:
                    yield
                finally:
                    self._cur, self._in_batch = None, False
        except psycopg.Error as e:
            raise pg_error(e) from e

    def row_counts(self) -> dict[str, int]:
        """The number of rows of each copied table (inside ``bulk_load`` too)."""
        from server.store.sqlite import COPIED_TABLES

        def tx(c: psycopg.Cursor[Any]) -> dict[str, int]:
            out = {}
            for t in COPIED_TABLES:
                c.execute(sql.SQL("SELECT COUNT(*) FROM {}").format(sql.Identifier(t)))
                row = c.fetchone()
                out[t] = int(row[0]) if row else 0
            return out

        return self._tx(tx)

    def load_rows(self, table: str, rows: list[dict[str, Any]]) -> None:
        """Insert rows as ``dump_rows`` gives them (a row already there is kept)."""
        from server.store.sqlite import COPIED_TABLES, JSON_COLUMNS

        if table not in COPIED_TABLES:
            raise ValueError(f"not a store table: {table}")
        if not rows:
            return
        cols = list(rows[0])
        json_cols = set(JSON_COLUMNS.get(table, ()))
        marks = [sql.SQL("%s::jsonb") if c in json_cols else sql.SQL("%s") for c in cols]
        query = sql.SQL("INSERT INTO {} ({}) VALUES ({}) ON CONFLICT DO NOTHING").format(
            sql.Identifier(table),
            sql.SQL(", ").join(sql.Identifier(c) for c in cols),
            sql.SQL(", ").join(marks),
        )
        values = [
            tuple(
                _encode(r[c]).decode() if c in json_cols and r[c] is not None else r[c]
                for c in cols
            )
            for r in rows
        ]

        def tx(c: psycopg.Cursor[Any]) -> None:
            c.executemany(query, values)
            if table == "accounts":  # ids were copied: the sequence goes on after them
                c.execute(
                    "SELECT setval(pg_get_serial_sequence('accounts', 'id'),"
                    " GREATEST((SELECT COALESCE(MAX(id), 0) FROM accounts), 1))"
                )

        self._tx(tx)

    # -- maintenance --

    def backup(self, dest: str, *, overwrite: bool = False) -> None:
        """A consistent online copy with ``pg_dump --format=custom`` (restore it with
        ``pg_restore``), written to a temporary file next to ``dest``, checked with
        ``pg_restore --list``, then renamed: ``dest`` is never a half-written file."""
        if os.path.exists(dest) and not overwrite:
            raise StoreError(f"{dest} already exists")
        pg_dump, pg_restore = _client_tool("pg_dump"), _client_tool("pg_restore")
        tmp = ""
        try:
            tmp = backup_tmp(dest)  # 0600: pg_dump writes into it and keeps its mode
            out = subprocess.run(
                [pg_dump, "--format=custom", "--no-owner", f"--file={tmp}", "--dbname", self.url],
                capture_output=True,
                text=True,
                timeout=3600,
            )
            if out.returncode != 0:
                raise StoreError(f"pg_dump failed: {out.stderr.strip()}")
            check = subprocess.run(
                [pg_restore, "--list", tmp], capture_output=True, text=True, timeout=600
            )
            if check.returncode != 0 or "TABLE DATA public deals" not in check.stdout:
                raise StoreError(f"the backup failed its check: {check.stderr.strip()}")
            os.replace(tmp, dest)
        except OSError as e:
            raise StoreIOError(str(e)) from e
        finally:
            if tmp and os.path.exists(tmp):
                os.remove(tmp)

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None


def connect(
    url: str, options: str, connect_timeout: int, application_name: str
) -> psycopg.Connection[Any]:
    """An autocommit connection with Atout's session settings added to those the URL (or
    ``PGOPTIONS``) gives, which come last and so win (e.g. ``?options=-c synchronous_commit=off``
    for a host that accepts losing the last commits on a power loss)."""
    from psycopg.conninfo import conninfo_to_dict

    given = conninfo_to_dict(url).get("options") or os.environ.get("PGOPTIONS") or ""
    return psycopg.connect(
        url,
        autocommit=True,
        options=f"{options} {given}".strip(),
        connect_timeout=connect_timeout,
        application_name=application_name,
    )


class _FastRefused(Exception):
    """The one-statement insert of a batch's actions hit a key: redo the batch the slow way."""


def _check_fences(
    cur: psycopg.Cursor[Any], fences: list[Fence | None], results: list[BaseException | bool | None]
) -> None:
    want = {f[0]: f for f in fences if f is not None}
    cur.execute(
        "SELECT table_id, worker, epoch FROM table_owner WHERE table_id = ANY(%s) FOR SHARE",
        (list(want),),
    )
    have = {t: (w, e) for t, w, e in cur.fetchall()}
    new = [f for t, f in want.items() if t not in have and f[2] == 1]
    if new:  # a new table's first write claims it (its claim may not have landed yet)
        cur.executemany(
            "INSERT INTO table_owner (table_id, worker, epoch, created_at)"
            " VALUES (%s, %s, 1, extract(epoch from now())) ON CONFLICT (table_id) DO NOTHING",
            [(t, w) for t, w, _ in new],
        )
        cur.execute(
            "SELECT table_id, worker, epoch FROM table_owner WHERE table_id = ANY(%s) FOR SHARE",
            ([t for t, _, _ in new],),
        )
        have.update({t: (w, e) for t, w, e in cur.fetchall()})
    for k, fence in enumerate(fences):
        if fence is None:
            continue
        tid, worker, epoch = fence
        held = have.get(tid)
        if held != (worker, epoch):
            owner = "nobody" if held is None else f"worker {held[0]} (epoch {held[1]})"
            results[k] = StoreFenced(
                f"table {tid} is owned by {owner}, not worker {worker} (epoch {epoch})"
            )


_FAST_INSERT = (
    "INSERT INTO actions (table_id, deal_no, idx, action, created_at)"
    " SELECT table_id, deal_no, idx, action, %s FROM jsonb_to_recordset(%s::jsonb)"
    " AS x(table_id text, deal_no integer, idx integer, action jsonb)"
)


def _fast_actions(
    cur: psycopg.Cursor[Any], groups: list[list[Op]], results: list[BaseException | bool | None]
) -> None:
    idx = [  # groups of actions only (one, or an action and the AI answers made with it)
        i
        for i, ops in enumerate(groups)
        if results[i] is True and ops and all(o[0] == "append_action" and not o[2] for o in ops)
    ]
    if not idx:
        return
    rows = []
    for i in idx:
        for _, (table_id, deal_no, n, action), _ in groups[i]:
            rows.append({"table_id": table_id, "deal_no": deal_no, "idx": n, "action": action})
    try:
        cur.execute(_FAST_INSERT, (now(), _encode(rows).decode()))
    except pgerr.IntegrityError as e:  # a duplicate or an unknown deal: find out which
        raise _FastRefused() from e
    for i in idx:
        results[i] = None


def _record_seats(
    c: psycopg.Cursor[Any],
    table_id: str,
    deal_no: int,
    status: str,
    players: Sequence[str | None],
    seats: Sequence[dict[str, Any]] | None,
    scores: Sequence[float],
    at: str,
) -> None:
    """Who sat in each seat of a finished deal (``deal_players``; as
    ``server.store.players.PlayerStore._record_seats``); a played deal waits for its review."""
    if seats is None:  # callers that know only names: guests and unknown AI levels
        seats = [{"guest": p} for p in players]
    rows = []
    for s, who in enumerate(seats):
        account = who.get("account")
        rows.append(
            (
                table_id, deal_no, s, account,
                None if account is not None else who.get("guest"),
                who.get("ai"), int(bool(who.get("partial"))), status, float(scores[s]), at,
                int(status != "played"),
            )
        )  # fmt: skip
    c.executemany(
        "INSERT INTO deal_players (table_id, deal_no, seat, account_id, guest, ai, partial,"
        " status, score, finished_at, reviewed)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        rows,
    )
    if status == "played":
        c.execute(
            "UPDATE deals SET review = 'pending' WHERE table_id = %s AND deal_no = %s",
            (table_id, deal_no),
        )


def _ensure_table(c: psycopg.Cursor[Any], table_id: str, at: str) -> None:
    # A deal must never be lost because its table's row was not written first.
    c.execute(
        "INSERT INTO tables (id, name, options, status, created_at)"
        " VALUES (%s, %s, '{}'::jsonb, 'open', %s) ON CONFLICT (id) DO NOTHING",
        (table_id, table_id, at),
    )


def _client_tool(name: str) -> str:
    """``pg_dump`` or ``pg_restore``: on PATH, else Debian's newest PostgreSQL binaries."""
    import glob

    found = shutil.which(name)
    if found:
        return found
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    raise StoreError(f"{name} not found: install PostgreSQL's client programs")

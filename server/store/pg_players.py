"""The players' store methods (``server/store/players.py``: accounts, reviews, profiles,
histories, leaderboards) on PostgreSQL.

Those methods are written once, in SQLite's dialect, against a ``conn`` / ``_tx`` / ``_errors``
trio. Here the same methods run on a PostgreSQL store through a thin connection adapter that
speaks that dialect: ``?`` placeholders, ``cursor.lastrowid`` after an insert into
``accounts``, ``INSERT OR REPLACE``, ``SUM`` of a comparison (an integer in SQLite),
``json_extract`` of the table's ``public`` option, a bare column taken from a group,
``sqlite3.IntegrityError`` for a duplicate name, JSON columns read back as text. The translation is explicit and small (``translate``);
a statement it does not know is passed as it is, and the tests run the players' store methods
on both backends and compare their answers (tests/test_players_store_pg.py), so a new
construction that needs translating shows there.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import psycopg
from psycopg import errors as pgerr
from psycopg.types.string import TextLoader

from server.store.pg_errors import pg_error
from server.store.players import SqlitePlayers as _Base  # the same code, through _Conn

#: INSERT OR REPLACE: the key each table is replaced on
_KEYS = {"pars": ("table_id", "deal_no"), "ratings": ("account_id",)}
_SUM_ARG = re.compile(r"SUM\(")
_OR_REPLACE = re.compile(r"INSERT OR REPLACE INTO (\w+) \(([^)]*)\)(.*)$", re.S)
_PUBLIC = "COALESCE(json_extract(t.options, '$.public'), 1)"
_GROUPED_GUEST = "GROUP BY dp.account_id, CASE WHEN dp.account_id IS NULL THEN dp.guest END"


def _sum_of_comparisons(sql: str) -> str:
    """``SUM(a = b ...)`` (an integer in SQLite) as ``SUM((a = b ...)::int)``."""
    out = []
    i = 0
    for m in _SUM_ARG.finditer(sql):
        if m.start() < i:
            continue
        start = m.end()
        depth, j = 1, start
        while j < len(sql) and depth:
            depth += {"(": 1, ")": -1}.get(sql[j], 0)
            j += 1
        inner = sql[start : j - 1]
        flat = re.sub(r"\([^()]*\)", "", inner)  # comparisons at the top level only
        if re.search(r"(=|<|>|\bAND\b|\bOR\b|\bIS\b)", flat):
            out.append(sql[i:start] + f"({inner})::int)")
        else:
            out.append(sql[i:j])
        i = j
    out.append(sql[i:])
    return "".join(out)


def translate(sql: str) -> tuple[str, bool]:
    """A statement in SQLite's dialect (as server/store/players.py writes them) for
    PostgreSQL, and whether it returns the new row's id (``lastrowid``)."""
    q = sql.replace("%", "%%").replace("?", "%s")
    q = q.replace(_PUBLIC, "COALESCE((t.options->>'public')::boolean, true)")
    if _GROUPED_GUEST in q:  # a bare column SQLite takes from the group: its only value
        q = q.replace("dp.guest AS guest", "MIN(dp.guest) AS guest")
    if "SUM(" in q:
        q = _sum_of_comparisons(q)
    m = _OR_REPLACE.match(q.strip())
    if m:
        table, cols, rest = m.group(1), m.group(2), m.group(3)
        keys = _KEYS[table]
        names = [c.strip() for c in cols.split(",")]
        sets = ", ".join(f"{c} = excluded.{c}" for c in names if c not in keys)
        q = (
            f"INSERT INTO {table} ({cols}){rest} ON CONFLICT ({', '.join(keys)})"
            f" DO UPDATE SET {sets}"
        )
    returning = q.lstrip().startswith("INSERT INTO accounts")
    if returning:
        q += " RETURNING id"
    return q, returning


class _Cursor:
    """What the players' code uses of a sqlite3 cursor."""

    def __init__(self, cur: psycopg.Cursor[Any], lastrowid: int | None) -> None:
        self._cur = cur
        self.lastrowid = lastrowid
        self.rowcount = cur.rowcount

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._cur.fetchone() if self._cur.description else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._cur.fetchall() if self._cur.description else []

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchall())


class _Conn:
    """What the players' code uses of a sqlite3 connection, over the store's PostgreSQL
    connection (autocommit) or the cursor of a transaction."""

    def __init__(self, store: Any, cur: psycopg.Cursor[Any] | None) -> None:
        self._store = store
        self._tx_cur = cur

    def _cursor(self) -> psycopg.Cursor[Any]:
        cur = self._tx_cur or self._store._connection().cursor()
        cur.adapters.register_loader("jsonb", TextLoader)  # JSON read back as text, as SQLite
        return cur

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Cursor:
        q, returning = translate(sql)
        cur = self._cursor()
        try:
            if returning and self._tx_cur is not None:
                # a duplicate name must not abort the transaction: its own savepoint
                with cur.connection.transaction():
                    cur.execute(q, tuple(params))
            else:
                cur.execute(q, tuple(params))
            lastrowid = int(cur.fetchone()[0]) if returning else None  # type: ignore[index]
        except pgerr.IntegrityError as e:
            raise sqlite3.IntegrityError(str(e)) from e
        except psycopg.Error as e:
            raise pg_error(e) from e
        return _Cursor(cur, lastrowid)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        q, _ = translate(sql)
        try:
            self._cursor().executemany(q, [tuple(r) for r in rows])
        except psycopg.Error as e:
            raise pg_error(e) from e


class PgPlayers(_Base):
    """The players' methods of a PostgresStore (``PostgresStore.players``)."""

    def __init__(self, store: Any) -> None:
        self._store = store

    @property
    def conn(self) -> _Conn:  # type: ignore[override]
        return _Conn(self._store, None)

    def _tx(self, fn: Callable[[Any], Any]) -> Any:
        return self._store._tx(lambda cur: fn(_Conn(self._store, cur)))

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        yield  # _Conn.execute types the errors itself


#: the players' public methods a PostgresStore answers (delegated to PgPlayers)
PLAYER_METHODS = frozenset(
    name for name in dir(_Base) if not name.startswith("_") and callable(getattr(_Base, name, None))
)

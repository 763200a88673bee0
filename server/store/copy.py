"""``atout-server migrate-db SRC DEST``: copy a whole store from one database to another (a
SQLite file into PostgreSQL, typically, or back), so that a host can move up without losing a
deal: tables, finished deals with their records and scores, players, and the deals in progress
with their action logs (their tables resume on the new database).

SRC is opened read-only and read in one snapshot; DEST is created or migrated to this version's
schema and must hold no rows. The copy is one transaction of DEST, checked before it commits:
every table's row count and the exported records of both sides are compared. So a copy that
fails, is refused or is interrupted leaves DEST as it was, empty (on PostgreSQL the accounts'
id sequence may have moved on: sequences are not transactional, and ids may skip), and can
simply be run again.
(It once kept rows already in DEST, to resume an interrupted copy: a second run from a newer
SRC then left DEST a mix of both snapshots, with the deals finished in between missing.) It
refuses a SRC holding data this version cannot carry over, rather than dropping it.
The cluster registry is not copied (it is runtime state): open tables are rebuilt by the first
server or adopted by the first worker that starts on DEST.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from server.store.base import StoreError

_encode = msgspec.json.Encoder().encode


def migrate_db(
    src: str, dest: str, *, progress: Callable[[str, int], None] | None = None
) -> dict[str, int]:
    """Copy SRC into DEST; returns the number of rows copied per table. Raises StoreError."""
    from server.store import describe, open_store

    if src == dest:
        raise StoreError("SRC and DEST are the same database")
    source = open_store(src, readonly=True)
    try:
        target = open_store(dest)
        try:
            _refuse_a_database_with_rows(target, describe(dest))
            counts: dict[str, int] = {}
            with target.bulk_load():  # all or nothing: the checks run before the commit
                for table, rows in source.dump_rows():
                    target.load_rows(table, rows)
                    counts[table] = counts.get(table, 0) + len(rows)
                    if progress is not None:
                        progress(table, counts[table])
                _verify(source, target, counts, describe(src), describe(dest))
        finally:
            target.close()
    finally:
        source.close()
    return counts


#: How a refusal names a row of the tables everything else hangs from (a table's deals, scores
#: and actions; an account's keys and rating). They are the first tables ``dump_rows`` gives.
_LABEL = {"tables": ("id", "tables"), "players": ("name", "player names"),
          "accounts": ("name", "accounts")}  # fmt: skip


def _refuse_a_database_with_rows(target: Any, dest: str) -> None:
    """DEST must hold no rows: what it holds would be merged with SRC's, or (an earlier copy
    of SRC) kept in the state of that copy. The first table with rows is named."""
    rows_of = target.dump_rows()
    try:
        for table, rows in rows_of:
            if not rows:
                continue
            column, what = _LABEL.get(table, (None, f"rows of {table}"))
            example = f" (such as {rows[0][column]})" if column else ""
            raise StoreError(
                f"{dest} is not empty: it holds {what}{example}. migrate-db copies into an "
                "empty database only (a copy that failed or was interrupted leaves it empty: "
                "run it again)"
            )
    finally:
        rows_of.close()  # ends its read snapshot


def _verify(source: object, target: object, counts: dict[str, int], src: str, dest: str) -> None:
    """DEST has exactly the rows copied, and both sides export the same records and
    standings and have the same deals in progress (DEST was empty). Raising rolls the copy
    back."""
    have = target.row_counts()  # type: ignore[attr-defined]
    short = {t: (have.get(t, 0), n) for t, n in counts.items() if have.get(t, 0) != n}
    if short:
        t, (got, n) = next(iter(short.items()))
        raise StoreError(f"after the copy, {dest} has {got} rows of {t}, not the {n} of {src}")
    a = [_encode(r) for r in source.deals()]  # type: ignore[attr-defined]
    b = [_encode(r) for r in target.deals()]  # type: ignore[attr-defined]
    if a != b and sorted(a) != sorted(b):
        raise StoreError(f"after the copy, {dest} does not export the deals {src} does")
    if source.standings() != target.standings():  # type: ignore[attr-defined]
        raise StoreError(f"after the copy, {dest} does not have the standings {src} has")
    if len(source.unfinished_deals()) != len(target.unfinished_deals()):  # type: ignore[attr-defined]
        raise StoreError(f"after the copy, {dest} does not have the deals in progress {src} has")

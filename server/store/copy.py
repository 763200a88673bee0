"""``atout-server migrate-db SRC DEST``: copy a whole store from one database to another (a
SQLite file into PostgreSQL, typically, or back), so that a host can move up without losing a
deal: tables, finished deals with their records and scores, players, and the deals in progress
with their action logs (their tables resume on the new database).

SRC is opened read-only and read in one snapshot; DEST is created or migrated to this version's
schema. The copy is idempotent (a row already in DEST is kept), so an interrupted copy can be
run again; it refuses a SRC holding data this version cannot carry over, rather than dropping
it. At the end every table's row count and the exported records of both sides are compared.
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
            _refuse_another_database(source, target, describe(src), describe(dest))
            counts: dict[str, int] = {}
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


#: What tells one database's rows from another's, in the tables everything else hangs from
#: (a table's deals, scores and actions; an account's keys and rating): its key columns, and
#: the column a refusal names it by. They are the first tables ``dump_rows`` gives.
_IDENTITY = {
    "tables": (("id",), "id", "table(s)"),
    "players": (("name",), "name", "player name(s)"),
    "accounts": (("id", "name"), "name", "account(s)"),
}


def _identities(store: Any) -> dict[str, dict[tuple[Any, ...], Any]]:
    """Each identity table's rows of ``store``, by key (the label a refusal shows)."""
    out: dict[str, dict[tuple[Any, ...], Any]] = {t: {} for t in _IDENTITY}
    rows_of = store.dump_rows()
    try:
        for table, rows in rows_of:
            if table not in _IDENTITY:
                break  # the rest hangs from these
            cols, label, _ = _IDENTITY[table]
            for r in rows:
                out[table][tuple(r[c] for c in cols)] = r[label]
    finally:
        rows_of.close()  # ends its read snapshot
    return out


def _refuse_another_database(source: Any, target: Any, src: str, dest: str) -> None:
    """DEST must be empty, or hold only what an interrupted copy of SRC left: rows already
    there are kept (INSERT OR IGNORE), so another database's tables, accounts or players would
    be merged in silently."""
    have, want = _identities(target), _identities(source)
    for table, (_, _, what) in _IDENTITY.items():
        extra = sorted(str(v) for k, v in have[table].items() if k not in want[table])
        if extra:
            raise StoreError(
                f"{dest} already holds {len(extra)} {what} that {src} does not have (such as "
                f"{extra[0]}): copy into an empty database (a copy that was interrupted may be "
                "run again)"
            )


def _verify(source: object, target: object, counts: dict[str, int], src: str, dest: str) -> None:
    """Both sides export the same records, and DEST holds at least every row copied."""
    a = [_encode(r) for r in source.deals()]  # type: ignore[attr-defined]
    b = [_encode(r) for r in target.deals()]  # type: ignore[attr-defined]
    if a != b[: len(a)] and sorted(a) != sorted(b):
        raise StoreError(f"after the copy, {dest} does not export the deals {src} does")
    sa = source.standings()  # type: ignore[attr-defined]
    sb = target.standings()  # type: ignore[attr-defined]
    if len(b) == len(a) and sa != sb:
        raise StoreError(f"after the copy, {dest} does not have the standings {src} has")
    if len(source.unfinished_deals()) > len(target.unfinished_deals()):  # type: ignore[attr-defined]
        raise StoreError(f"after the copy, {dest} misses deals in progress of {src}")

"""The store (server/store/base.py) on both backends: deals and scores, the action log, batches
and fences, errors; and what is SQLite's own (its migrations, file modes, locks, backups).

Tests taking ``store`` run twice, on SQLite and on PostgreSQL (tests/fixtures_pg.py); the
PostgreSQL specifics (its errors for real: a lost connection, a read-only server, a held row
lock, a full disk) are in tests/test_store_postgres.py."""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from sqlite_utils import Database

from server.rules.deal import OVER, DealState, apply
from server.rules.randplay import random_action, random_deal
from server.rules.records import decode_record, record_of, start_state
from server.store.sqlite import (
    MIGRATION_NAMES,
    MIGRATIONS,
    Store,
    StoreConflict,
    StoreError,
    StoreFull,
    StoreLocked,
    StoreReadOnly,
)

PLAYERS = ["ann", None, "bob", None]


def played(seed: int, dealer: int = 0) -> dict[str, Any]:
    """The record of a deal played to the end with random legal actions, as JSON data
    (record_of() may hold tuples where stored JSON has lists)."""
    return msgspec.json.decode(msgspec.json.encode(record_of(random_deal(seed, dealer))))


def record(store: Store, table: str, deal_no: int, rec: dict, players=PLAYERS, **kw) -> None:
    store.record_deal(table, deal_no, rec, players, rec["result"]["scores"], **kw)


@pytest.fixture
def path(tmp_path: Path) -> str:
    return str(tmp_path / "atout.db")


@pytest.fixture
def store(db: str):
    """A store on each backend (``db``: a SQLite file, then a PostgreSQL database)."""
    from server.store import open_store

    s = open_store(db)
    yield s
    s.close()


@pytest.fixture
def sqlite_store(path: str):
    s = Store(path)
    yield s
    s.close()


def q(store: Any, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows of a query (``?`` placeholders) on either backend; JSON columns as stored text."""
    if hasattr(store, "conn"):
        return [tuple(r) for r in store.conn.execute(sql, args).fetchall()]
    with store._connection().cursor() as cur:
        cur.execute(sql.replace("?", "%s"), args)
        return [tuple(r) for r in cur.fetchall()]


def execute(store: Any, sql_sqlite: str, sql_pg: str) -> None:
    """A statement that each backend spells its own way."""
    if hasattr(store, "conn"):
        store.conn.executescript(sql_sqlite)
    else:
        store._connection().execute(sql_pg)


def tables_of(path: str) -> set[str]:
    with sqlite3.connect(path) as c:
        return {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


# --- schema ---------------------------------------------------------------------------------


def test_migrations_create_the_schema_from_an_empty_file(path: str) -> None:
    Path(path).touch()  # an empty file is a valid, empty SQLite database
    s = Store(path)
    assert (
        s.schema_version()
        == MIGRATION_NAMES
        == [
            "0001_initial",
            "0002_action_log",
            "0003_players",
            "0004_actions_clustered",
        ]
    )
    assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    s.close()
    assert {"players", "tables", "deals", "scores", "actions", "health"} <= tables_of(path)


def test_reopening_keeps_data_and_applies_nothing_twice(path: str) -> None:
    s = Store(path)
    s.create_table("t1", "First", {"deals": 2})
    s.close()
    s = Store(path)
    assert s.schema_version() == MIGRATION_NAMES
    rows = s.conn.execute("SELECT COUNT(*) FROM _sqlite_migrations").fetchone()[0]
    assert rows == len(MIGRATION_NAMES)
    assert s.table("t1")["options"] == {"deals": 2}
    s.close()


def test_a_version_1_database_is_migrated_with_its_data(path: str) -> None:
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="0002_action_log")
    db.execute(
        "INSERT INTO tables (id, name, options, status, created_at)"
        " VALUES ('old', 'Old', '{}', 'open', '2026-01-01T00:00:00.000Z')"
    )
    db.close()
    assert "actions" not in tables_of(path)

    s = Store(path)
    assert s.schema_version() == MIGRATION_NAMES
    assert s.table("old")["name"] == "Old"
    s.start_deal("old", 1, *_dealt(played(1)))  # uses the columns migration 2 added
    assert len(s.unfinished_deals()) == 1
    s.close()


def test_migration_4_clusters_the_action_log_and_keeps_every_action(path: str) -> None:
    # Two deals in progress whose actions were logged interleaved (as tables playing at once
    # log them), under the schema before migration 4.
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="0004_actions_clustered")
    db.close()
    old = Store.__new__(Store)  # the store's methods on a connection of the old schema
    old.conn = sqlite3.connect(path, isolation_level=None)
    old.conn.execute("PRAGMA foreign_keys=ON")
    old._in_batch = False
    recs = {"a": played(1), "b": played(2, dealer=1)}
    for tid, rec in recs.items():
        old.create_table(tid, tid, {})
        old.start_deal(tid, 1, *_dealt(rec))
    for n in range(10):
        for tid, rec in recs.items():
            old.append_action(tid, 1, n, rec["actions"][n])
    old.conn.close()

    s = Store(path)
    assert s.schema_version() == MIGRATION_NAMES
    (sql,) = s.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'actions'").fetchone()
    assert sql.rstrip().endswith("WITHOUT ROWID")
    by_table = {d["table_id"]: d for d in s.unfinished_deals()}
    assert {t: d["record"]["actions"] for t, d in by_table.items()} == {
        t: rec["actions"][:10] for t, rec in recs.items()
    }
    # the log still refuses a gap and a different action at a taken index (its key)
    with pytest.raises(StoreConflict):
        s.append_action("a", 1, 12, recs["a"]["actions"][12])
    with pytest.raises(StoreConflict):
        s.append_action("a", 1, 3, recs["a"]["actions"][4])
    s.append_action("a", 1, 3, recs["a"]["actions"][3])  # the same one again: idempotent
    # storing a deal's record drops its log, and only its own
    s.close()
    s = Store(path)
    a = recs["a"]
    for n in range(10, len(a["actions"])):
        s.append_action("a", 1, n, a["actions"][n])
    s.record_deal("a", 1, a, PLAYERS, a["result"]["scores"])
    left = s.conn.execute("SELECT table_id, COUNT(*) FROM actions GROUP BY table_id").fetchall()
    assert left == [("b", 10)]
    s.close()


def test_migration_4_names_the_log_rows_it_cannot_carry_over(path: str) -> None:
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="0004_actions_clustered")
    db.execute(  # foreign keys off (sqlite-utils' default): an action of no stored deal
        "INSERT INTO actions (table_id, deal_no, idx, action, created_at)"
        " VALUES ('ghost', 1, 0, '{}', 'x')"
    )
    db.conn.commit()
    db.close()
    with pytest.raises(StoreError, match="1 of no stored deal"):
        Store(path)
    ro = Store(path, readonly=True)
    assert ro.schema_version() == MIGRATION_NAMES[:3]  # rolled back: nothing changed
    ro.close()


def test_a_database_from_a_newer_version_is_refused(path: str) -> None:
    Store(path).close()
    with sqlite3.connect(path) as c:
        c.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
            " VALUES ('atout', '9999_future', 'x')"
        )
    with pytest.raises(StoreError, match="newer"):
        Store(path)


def test_admin_open_modes_never_create_a_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.db")
    with pytest.raises(StoreError, match="no database"):
        Store(missing, create=False)
    with pytest.raises(StoreError, match="no database"):
        Store(missing, readonly=True)
    assert not os.path.exists(missing)


# --- deals and scores -----------------------------------------------------------------------


def test_record_deal_stores_the_deal_and_the_scores(store: Store) -> None:
    store.create_table("t1", "First", {"deals": 4, "public": True})
    rec = played(1)
    record(store, "t1", 1, rec, finished_at="2026-07-01T10:00:00Z")

    (stored,) = list(store.deals("t1"))
    meta = stored.pop("meta")
    assert stored == rec
    assert meta == {
        "table_id": "t1",
        "deal_no": 1,
        "players": PLAYERS,
        "finished_at": "2026-07-01T10:00:00.000Z",
    }
    assert store.table_scores("t1") == rec["result"]["scores"]
    (row,) = q(store, "SELECT dealer, status, contract, taker, seat0, seat1, scores FROM deals")
    result = rec["result"]
    assert row[:4] == (0, result["status"], result.get("contract"), result.get("taker"))
    assert row[4:6] == ("ann", None)
    names = [r[0] for r in q(store, "SELECT name FROM players ORDER BY name")]
    assert names == ["ann", "bob"]
    assert store.table("t1")["deals"] == 1


def test_record_deal_is_one_transaction(store: Store) -> None:
    """When the score update fails, the deal is not stored either."""
    execute(
        store,
        "CREATE TRIGGER fail_scores BEFORE INSERT ON scores BEGIN SELECT RAISE(ABORT, 'boom'); END",
        "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
        " RAISE EXCEPTION 'boom'; END $$;"
        " CREATE TRIGGER fail_scores BEFORE INSERT ON scores FOR EACH ROW EXECUTE FUNCTION boom()",
    )
    with pytest.raises(StoreError, match="boom"):
        record(store, "t1", 1, played(1))
    assert list(store.deals()) == []
    assert q(store, "SELECT COUNT(*) FROM deals")[0][0] == 0
    execute(store, "DROP TRIGGER fail_scores", "DROP TRIGGER fail_scores ON scores")
    record(store, "t1", 1, played(1))
    assert len(list(store.deals())) == 1


def test_record_deal_is_idempotent(store: Store) -> None:
    rec1, rec2 = played(1), played(2, dealer=1)
    record(store, "t1", 1, rec1)
    record(store, "t1", 2, rec2)
    expected = [
        a + b for a, b in zip(rec1["result"]["scores"], rec2["result"]["scores"], strict=True)
    ]
    assert store.table_scores("t1") == expected
    record(store, "t1", 2, copy.deepcopy(rec2))  # a retried write
    record(store, "t1", 1, rec1)
    assert store.table_scores("t1") == expected
    assert [r["deals"] for r in store.standings("t1")] == [2, 2, 2, 2]
    with pytest.raises(StoreConflict):
        record(store, "t1", 2, played(3))  # another deal under a used number
    assert store.table_scores("t1") == expected


def test_record_deal_checks_its_arguments(store: Store) -> None:
    rec = played(1)
    with pytest.raises(ValueError, match="not the deal's result scores"):
        store.record_deal("t1", 1, rec, PLAYERS, [s * 2 for s in rec["result"]["scores"]])
    unfinished = dict(rec)
    del unfinished["result"]
    with pytest.raises(ValueError, match="finished record"):
        store.record_deal("t1", 1, unfinished, PLAYERS, [0, 0, 0, 0])
    with pytest.raises(ValueError, match="four seats"):
        store.record_deal("t1", 1, rec, PLAYERS[:3], rec["result"]["scores"])
    assert list(store.deals()) == []


def test_half_points_are_exact_and_whole_totals_are_ints(store: Store) -> None:
    rec = played(1)
    rec["result"]["scores"] = [-88.5, 29.5, 29.5, 29.5]  # R10: a prise lost by 4.5 points
    record(store, "t1", 1, rec)
    assert store.table_scores("t1") == [-88.5, 29.5, 29.5, 29.5]
    rec2 = played(2, dealer=1)
    rec2["result"]["scores"] = [88.5, -29.5, -29.5, -29.5]
    record(store, "t1", 2, rec2)
    totals = store.table_scores("t1")
    assert totals == [0, 0, 0, 0]
    assert all(type(x) is int for x in totals)
    (stored, _) = list(store.deals("t1"))
    assert stored["result"]["scores"] == [-88.5, 29.5, 29.5, 29.5]


def test_an_annulled_deal_counts_as_played_with_zero(store: Store) -> None:
    rec = played(35)  # every seat passes
    assert rec["result"]["status"] == "annulled"
    record(store, "t1", 1, rec)
    assert store.table_scores("t1") == [0, 0, 0, 0]
    assert store.standings("t1")[0]["deals"] == 1
    assert q(store, "SELECT status, taker FROM deals") == [("annulled", None)]


def test_everything_survives_a_restart(db: str) -> None:
    from server.store import open_store as Store

    path = db
    s = Store(path)
    s.create_table("t1", "First", {})
    recs = [played(i, dealer=i % 4) for i in range(5)]
    for i, rec in enumerate(recs):
        record(s, "t1", i + 1, rec)
    scores, standings = s.table_scores("t1"), s.standings()
    s.close()
    s = Store(path)
    assert s.table_scores("t1") == scores
    assert s.standings() == standings
    assert [{k: v for k, v in r.items() if k != "meta"} for r in s.deals()] == recs
    s.close()


def test_standings(store: Store) -> None:
    store.create_table("t1", "First", {})
    store.create_table("t2", "Second", {})
    r1, r2, r3 = played(1), played(2, dealer=1), played(3)
    s1, s2, s3 = (r["result"]["scores"] for r in (r1, r2, r3))
    record(store, "t1", 1, r1, ["ann", None, "bob", None])
    record(store, "t1", 2, r2, ["ann", None, "cid", None])  # cid takes bob's seat
    record(store, "t2", 1, r3, [None, "bob", None, "ann"])

    board = {r["player"]: r for r in store.standings()}
    assert set(board) == {"ann", "bob", "cid"}  # AI seats are not players
    assert board["ann"]["score"] == s1[0] + s2[0] + s3[3]
    assert (board["ann"]["deals"], board["ann"]["tables"]) == (3, 2)
    assert board["bob"]["score"] == s1[2] + s3[1]
    assert (board["cid"]["score"], board["cid"]["deals"]) == (s2[2], 1)
    ranked = store.standings()
    assert [r["rank"] for r in ranked] == [1, 2, 3]
    assert [r["score"] for r in ranked] == sorted((r["score"] for r in ranked), reverse=True)

    table = store.standings("t1")
    seat2 = {r["player"]: r for r in table if r["seat"] == 2}
    assert seat2["bob"]["score"] == s1[2] and seat2["cid"]["score"] == s2[2]
    assert next(r for r in table if r["seat"] == 1)["player"] is None
    assert store.table_scores("t1")[2] == s1[2] + s2[2]  # the seat's total, whoever sat
    assert store.standings("nope") == []
    assert store.table_scores("nope") == [0, 0, 0, 0]


def test_deals_filters_by_table_and_date(store: Store) -> None:
    record(store, "a", 1, played(1), finished_at="2026-06-30T23:59:59Z")
    record(store, "b", 1, played(2), finished_at="2026-07-01T00:00:00Z")
    record(store, "a", 2, played(3), finished_at="2026-07-02T08:00:00+02:00")
    meta = [(d["meta"]["table_id"], d["meta"]["deal_no"]) for d in store.deals()]
    assert meta == [("a", 1), ("b", 1), ("a", 2)]  # in the order they finished
    assert [d["meta"]["deal_no"] for d in store.deals("a")] == [1, 2]
    assert [d["meta"]["table_id"] for d in store.deals(since="2026-07-01")] == ["b", "a"]
    assert [d["meta"]["deal_no"] for d in store.deals("a", since="2026-07-02T06:00Z")] == [2]
    assert list(store.deals(since="2026-07-02T07:00Z")) == []
    with pytest.raises(ValueError):
        list(store.deals(since="yesterday"))


def test_one_deal_is_read_as_deals_gives_it(store: Store) -> None:
    """`Store.deal` (the `deal` request, interface 2): one finished deal, the same record and
    meta as `deals` gives, None for a deal that is not finished or not there."""
    record(store, "a", 1, played(1))
    record(store, "a", 2, played(2))
    for no in (1, 2):
        (want,) = [d for d in store.deals("a") if d["meta"]["deal_no"] == no]
        assert store.deal("a", no) == want
    assert store.deal("a", 3) is None and store.deal("zz", 1) is None


def test_tables_and_their_status(store: Store) -> None:
    store.create_table("t1", "First", {"deals": 2})
    store.create_table("t1", "Renamed", {"deals": 3})  # re-creating updates name and options
    store.set_table_status("t1", "playing")
    assert store.table("t1") | {"created_at": None} == {
        "id": "t1",
        "name": "Renamed",
        "options": {"deals": 3},
        "status": "playing",
        "created_at": None,
        "finished_at": None,
        "deals": 0,
    }
    store.create_table("t2", "Second", {})
    store.finish_table("t1", "finished")
    assert store.table("t1")["finished_at"] is not None
    assert [t["id"] for t in store.tables()] == ["t1", "t2"]
    assert [t["id"] for t in store.tables(unfinished=True)] == ["t2"]
    assert store.table("nope") is None


def test_a_deal_for_an_unknown_table_is_not_lost(store: Store) -> None:
    record(store, "ghost", 1, played(1))
    assert store.table("ghost")["deals"] == 1


# --- the action log (crash safety) ----------------------------------------------------------


def _dealt(rec: dict) -> tuple[int, list[list[str]], list[str]]:
    return rec["dealer"], rec["hands"], rec["chien"]


def _fields(st: DealState) -> dict[str, Any]:
    return {name: getattr(st, name) for name in DealState.__slots__}


def _rebuild(entry: dict) -> DealState:
    rec = decode_record(msgspec.json.encode(entry["record"]))
    st = start_state(rec)
    for a in rec.actions:
        st = apply(st, a)
    return st


def test_an_interrupted_deal_is_rebuilt_by_replay(db: str) -> None:
    import random

    from server.store import open_store as Store

    path = db
    rng = random.Random(7)
    full = random_deal(11, dealer=2)
    rec = record_of(full)
    s = Store(path)
    s.create_table("t1", "First", {})
    s.start_deal("t1", 3, *_dealt(rec), players=PLAYERS)
    st = start_state(decode_record(msgspec.json.encode(rec | {"actions": []})))
    for idx in range(30):
        action = random_action(st, rng)
        s.append_action("t1", 3, idx, action)  # a rules struct is accepted as well as a dict
        st = apply(st, action)
    s.close()  # the server stops (or dies) mid-deal

    s = Store(path)
    (entry,) = s.unfinished_deals()
    assert (entry["table_id"], entry["deal_no"], entry["players"]) == ("t1", 3, PLAYERS)
    assert entry["record"]["dealer"] == 2 and len(entry["record"]["actions"]) == 30
    rebuilt = _rebuild(entry)
    assert _fields(rebuilt) == _fields(st)

    while st.phase != OVER:
        action = random_action(st, rng)
        s.append_action("t1", 3, len(st.action_list()), action)
        st = apply(st, action)
    final = msgspec.json.decode(msgspec.json.encode(record_of(st)))
    s.record_deal("t1", 3, final, PLAYERS, final["result"]["scores"])
    assert s.unfinished_deals() == []
    assert q(s, "SELECT COUNT(*) FROM actions")[0][0] == 0  # in the record now
    (stored,) = s.deals()
    assert stored["actions"] == final["actions"]
    s.close()


def test_action_log_rules(store: Store) -> None:
    rec = played(1)
    with pytest.raises(StoreConflict, match="not started"):
        store.append_action("t1", 1, 0, rec["actions"][0])
    store.start_deal("t1", 1, *_dealt(rec))
    store.start_deal("t1", 1, *_dealt(rec))  # a retried start is harmless
    with pytest.raises(StoreConflict):
        store.start_deal("t1", 1, *_dealt(played(2)))
    a0, a1, a2 = rec["actions"][:3]
    store.append_action("t1", 1, 0, a0)
    store.append_action("t1", 1, 0, a0)  # a retried append is harmless
    with pytest.raises(StoreConflict, match="different"):
        store.append_action("t1", 1, 0, a1)
    with pytest.raises(StoreConflict, match="gap"):
        store.append_action("t1", 1, 2, a2)
    store.append_action("t1", 1, 1, a1)
    assert store.unfinished_deals()[0]["record"]["actions"] == [a0, a1]


def test_a_batch_writes_groups_of_several_actions_all_or_nothing(store: Store) -> None:
    """A table's group may hold an action and the AI answers made with it (server/tables):
    written in the batch's one transaction; a group that cannot be written (here, a duplicate
    index with another action) is refused whole, and the others are kept."""
    rec1, rec2 = played(1), played(2)
    store.start_deal("t1", 1, *_dealt(rec1))
    store.start_deal("t2", 1, *_dealt(rec2))
    a, b = rec1["actions"], rec2["actions"]

    def acts(tid: str, first: int, actions: list[Any]) -> list[Any]:
        return [("append_action", (tid, 1, first + i, x), {}) for i, x in enumerate(actions)]

    assert store.write_batch([acts("t1", 0, a[:4]), acts("t2", 0, b[:1])]) == [None, None]
    results = store.write_batch([acts("t1", 4, a[4:8]), acts("t2", 0, b[1:3])])
    assert results[0] is None and isinstance(results[1], StoreConflict)
    by_table = {e["table_id"]: e["record"]["actions"] for e in store.unfinished_deals()}
    assert by_table == {"t1": a[:8], "t2": b[:1]}


def test_a_refused_write_is_logged_without_the_cards_nobody_may_see(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """A refused group is logged with its payload (to recover it), but a deal's hands and
    chien and a discard's cards stay out: the error lines of a second server on the same file
    printed the hands of a deal in progress."""
    rec = next(
        r for r in map(played, range(3, 60)) if any(x["type"] == "discard" for x in r["actions"])
    )
    store.start_deal("t1", 1, *_dealt(rec))
    store.append_action("t1", 1, 0, rec["actions"][0])  # a bid
    other = played(2)
    discard = next(x for x in rec["actions"] if x["type"] == "discard")
    groups = [
        [("start_deal", ("t1", 1, *_dealt(other)), {})],  # another deal under the same number
        [("append_action", ("t1", 1, 0, discard), {})],  # another action at index 0
    ]
    with caplog.at_level(logging.ERROR, logger="atout.store"):
        results = store.write_batch(groups)
    assert all(isinstance(r, StoreConflict) for r in results), results
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "start_deal" in text and "append_action" in text and '"t1",1' in text, text
    hidden = (
        {c for hand in other["hands"] for c in hand} | set(other["chien"]) | set(discard["cards"])
    )
    shown = {c for c in hidden if f'"{c}"' in text}
    assert not shown, (shown, text)
    assert "(4 hands, not logged)" in text and '"cards":"(not logged)"' in text


def test_a_batch_of_deal_ends_shares_one_savepoint_and_still_keeps_each_group_apart(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """A deal's end (its record, the table's row, the next deal) is one group of a batch.
    Several such groups go inside one savepoint: a savepoint and its release per group were
    two of a deal end's dozen statements. When one group fails, the others are still written
    and the failed one is not, as with a savepoint each."""
    recs = {t: played(i) for i, t in enumerate(("t1", "t2", "t3"), start=1)}
    for t, rec in recs.items():
        store.start_deal(t, 1, *_dealt(rec))

    def deal_end(t: str, next_rec: dict[str, Any]) -> list[Any]:
        rec = recs[t]
        return [
            ("record_deal", (t, 1, rec, PLAYERS, rec["result"]["scores"]), {}),
            ("create_table", (t, t, {"deals": 3}), {}),
            ("start_deal", (t, 2, *_dealt(next_rec)), {}),
        ]

    sqlite = hasattr(store, "conn")  # the statements are SQLite's (PostgreSQL: the outcome)
    statements: list[str] = []
    if sqlite:
        store.conn.set_trace_callback(statements.append)
    assert store.write_batch([deal_end("t1", played(11)), deal_end("t2", played(12))]) == [
        None,
        None,
    ]
    if sqlite:
        store.conn.set_trace_callback(None)
        marks = [x for x in statements if x.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK"))]
        assert marks == ["SAVEPOINT atout_groups", "RELEASE atout_groups"]

    # t3's next deal number is taken by other cards: its whole group fails. t5 before it and t4
    # after it stand, t5's written once although the batch wrote it again after the failure.
    store.start_deal("t3", 2, *_dealt(played(99)))
    for t, seed in (("t4", 4), ("t5", 5)):
        recs[t] = played(seed)
        store.start_deal(t, 1, *_dealt(recs[t]))
    if sqlite:
        statements.clear()
        store.conn.set_trace_callback(statements.append)
    with caplog.at_level(logging.ERROR, logger="atout.store"):
        results = store.write_batch(
            [deal_end("t5", played(15)), deal_end("t3", played(13)), deal_end("t4", played(14))]
        )
    assert results[0] is None and isinstance(results[1], StoreConflict) and results[2] is None
    assert len([r for r in caplog.records if "refused" in r.getMessage()]) == 1
    if sqlite:
        store.conn.set_trace_callback(None)
        marks = [x for x in statements if x.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK"))]
        assert marks[:3] == [
            "SAVEPOINT atout_groups",
            "ROLLBACK TO atout_groups",
            "RELEASE atout_groups",
        ]
        assert marks[3:].count("SAVEPOINT atout_group") == 3
    stored = {(d["meta"]["table_id"], d["meta"]["deal_no"]) for d in store.deals()}
    assert stored == {("t1", 1), ("t2", 1), ("t4", 1), ("t5", 1)}  # t3's record rolled back
    in_progress = {(d["table_id"], d["deal_no"]) for d in store.unfinished_deals()}
    assert in_progress == {("t1", 2), ("t2", 2), ("t3", 1), ("t3", 2), ("t4", 2), ("t5", 2)}
    for t in ("t4", "t5"):  # each deal's scores counted once
        assert store.table_scores(t) == recs[t]["result"]["scores"]


def test_closing_a_table_abandons_its_deal_in_progress(store: Store) -> None:
    rec = played(1)
    record(store, "t1", 1, rec)
    store.start_deal("t1", 2, *_dealt(played(2, dealer=1)))
    store.append_action("t1", 2, 0, played(2, dealer=1)["actions"][0])
    store.finish_table("t1", "closed")
    assert store.unfinished_deals() == []
    assert [d["meta"]["deal_no"] for d in store.deals()] == [1]  # not exported
    ((status, partial),) = q(store, "SELECT status, record FROM deals WHERE deal_no = 2")
    if isinstance(partial, str):
        partial = msgspec.json.decode(partial)
    assert status == "abandoned" and partial["actions"][0] == played(2, dealer=1)["actions"][0]
    with pytest.raises(StoreConflict):
        store.append_action("t1", 2, 1, rec["actions"][1])


def test_logged_actions_survive_kill_9(path: str) -> None:
    """Committed with synchronous=NORMAL in WAL mode: durable across a process crash."""
    rec = played(5)
    script = textwrap.dedent(
        f"""
        import json, os, signal, sys
        from server.store.sqlite import Store
        rec = json.loads(sys.stdin.read())
        s = Store({path!r})
        s.start_deal("t1", 1, rec["dealer"], rec["hands"], rec["chien"])
        for i, a in enumerate(rec["actions"][:10]):
            s.append_action("t1", 1, i, a)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    import json

    proc = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(rec), text=True, capture_output=True
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    s = Store(path)
    (entry,) = s.unfinished_deals()
    assert entry["record"]["actions"] == rec["actions"][:10]
    s.close()


# --- storage failures -----------------------------------------------------------------------


def test_a_locked_database_raises_a_typed_error_and_recovers(path: str) -> None:
    s = Store(path, busy_timeout=0.05)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreLocked) as err:
            record(s, "t1", 1, played(1))
        assert err.value.transient and err.value.code == "storage_locked"
        with pytest.raises(StoreLocked):
            s.create_table("t2", "x", {})
        assert s.writable(timeout=0.05) is False
        assert s.table_scores("t1") == [0, 0, 0, 0]  # WAL readers are not blocked
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert s.writable() is True
    record(s, "t1", 1, played(1))
    assert s.table_scores("t1") == played(1)["result"]["scores"]
    s.close()


def test_a_full_disk_raises_a_typed_error_and_loses_nothing(sqlite_store: Store) -> None:
    store = sqlite_store
    record(store, "t1", 1, played(1))
    before = store.table_scores("t1")
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count={pages}")  # no room to grow: SQLITE_FULL
    big = played(2, dealer=1)
    big["meta"] = {"padding": "x" * 20000}
    with pytest.raises(StoreFull) as err:
        record(store, "t1", 2, big)
    assert err.value.transient and err.value.code == "storage_full"
    assert store.table_scores("t1") == before
    assert [d["meta"]["deal_no"] for d in store.deals()] == [1]
    store.conn.execute("PRAGMA max_page_count=1073741823")  # space is back
    record(store, "t1", 2, big)
    assert len(list(store.deals())) == 2


def test_a_read_only_database(path: str) -> None:
    Store(path).close()
    s = Store(path, readonly=True)
    with pytest.raises(StoreReadOnly) as err:
        s.create_table("t1", "x", {})
    assert err.value.code == "storage_read_only"
    assert s.writable() is False
    assert s.table_scores("t1") == [0, 0, 0, 0]
    s.close()


@contextlib.contextmanager
def read_only_file(path: str) -> Iterator[None]:
    """Make ``path`` unwritable: its mode, or for root (who ignores modes) the immutable flag."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        os.chmod(path, 0o444)
        try:
            yield
        finally:
            os.chmod(path, 0o644)
        return
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: cannot make a file read-only")
    if subprocess.run(["chattr", "+i", path], capture_output=True).returncode != 0:
        pytest.skip("running as root on a file system without the immutable flag")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", path], check=True)


def test_a_read_only_file(path: str) -> None:
    s = Store(path)
    s.create_table("t1", "First", {})
    s.close()
    with read_only_file(path):
        s = Store(path)  # SQLite falls back to reading; migrations have nothing to write
        try:
            assert s.table("t1")["name"] == "First"
            assert s.writable() is False
            with pytest.raises(StoreReadOnly) as err:
                record(s, "t1", 1, played(1))
            assert err.value.transient
            assert s.table_scores("t1") == [0, 0, 0, 0]
        finally:
            s.close()
    s = Store(path)  # writable again: the server carries on
    record(s, "t1", 1, played(1))
    s.close()


def test_writable_is_a_real_write(store: Store) -> None:
    assert store.writable() is True
    assert q(store, "SELECT checked_at FROM health")[0][0] is not None


# --- backups --------------------------------------------------------------------------------


def test_backup_is_a_valid_copy_taken_online(sqlite_store: Store, tmp_path: Path) -> None:
    store = sqlite_store
    recs = [played(i) for i in range(3)]
    for i, rec in enumerate(recs):
        record(store, "t1", i + 1, rec)
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # a writer is busy meanwhile
    other.execute(
        "INSERT INTO tables (id, name, options, status, created_at) VALUES ('w', 'w', '{}', 'o', 'x')"
    )
    dest = str(tmp_path / "backup.db")
    try:
        store.backup(dest)
    finally:
        other.execute("ROLLBACK")
        other.close()
    with sqlite3.connect(dest) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    copy_ = Store(dest, readonly=True)
    assert [{k: v for k, v in d.items() if k != "meta"} for d in copy_.deals()] == recs
    assert copy_.table_scores("t1") == store.table_scores("t1")
    assert copy_.table("w") is None  # uncommitted work is not in the copy
    copy_.close()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []

    with pytest.raises(StoreError, match="exists"):
        store.backup(dest)
    record(store, "t1", 4, played(4))
    store.backup(dest, overwrite=True)
    with Database(dest) as db:
        assert db["deals"].count == 4


def test_a_backup_is_readable_by_its_owner_only(sqlite_store: Store, tmp_path: Path) -> None:
    """A backup holds the accounts' password hashes: 0600 whatever the umask, also when it
    replaces an older backup that others could read."""
    record(sqlite_store, "t1", 1, played(1))
    dest = tmp_path / "backup.db"
    old = os.umask(0o022)
    try:
        sqlite_store.backup(str(dest))
        assert dest.stat().st_mode & 0o777 == 0o600
        dest.chmod(0o644)
        sqlite_store.backup(str(dest), overwrite=True)
        assert dest.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)
    with Database(str(dest)) as db:
        assert db["deals"].count == 1
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_the_wal_is_checkpointed_in_the_background_not_by_a_commit(tmp_path: Path) -> None:
    """The server's store checkpoints from a thread of its own (a commit that checkpoints holds
    the write lock while it syncs both files): once a background checkpoint has copied the WAL,
    the next write starts it again from the beginning; the last connection to close still
    removes it."""
    path = str(tmp_path / "bg.db")
    s = Store(path)
    s.checkpoint_in_background(interval=0.02)
    assert s.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    s.conn.execute("CREATE TABLE filler (x TEXT)")
    for _ in range(60):  # ~1,500 pages: past the 1,000 at which a commit would checkpoint
        with s.conn:
            s.conn.execute("INSERT INTO filler VALUES (?)", ("x" * 100_000,))
    checkpointer = s._checkpointer
    assert checkpointer is not None
    done = checkpointer.checkpoints
    deadline = time.monotonic() + 10
    while checkpointer.checkpoints < done + 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    with s.conn:  # the WAL is all copied: this write starts it again
        s.conn.execute("INSERT INTO filler VALUES ('y')")
    checker = sqlite3.connect(path)
    try:
        busy, frames, _ = checker.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    finally:
        checker.close()
    assert busy == 0 and 0 < frames < 100
    s.close()
    assert not os.path.exists(path + "-wal")

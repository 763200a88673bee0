"""``atout-server migrate-db SRC DEST``: a SQLite database moved into PostgreSQL keeps every
deal, score, player, account and deal in progress (the exports, scores and standings of both
sides are the same bytes; a server on the new database rebuilds the table in progress); the
copy is all or nothing, into an empty DEST only; it goes back from PostgreSQL to SQLite the same way; and it refuses
what it cannot carry over rather than dropping it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from helpers_server import running_server

from server.rules.randplay import random_deal
from server.rules.records import record_of
from server.store import open_store

CLI = [sys.executable, "-m", "server.cli"]
PLAYERS = ["ann", None, "bob", None]


def played(seed: int, dealer: int = 0) -> dict[str, Any]:
    return msgspec.json.decode(msgspec.json.encode(record_of(random_deal(seed, dealer))))


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    return subprocess.run([*CLI, *args], capture_output=True, env=env, timeout=120)


def fill(db: str) -> None:
    """Two tables, five finished deals (halves, an annulled one), an account, and a deal in
    progress with its actions and its table's live state (so that a server can rebuild it)."""
    s = open_store(db)
    s.create_table("t1", "First", {"deals": 4})
    s.create_table("t2", "Second", {"deals": 2})
    for i in range(4):
        rec = played(i, i % 4)
        s.record_deal("t1", i + 1, rec, PLAYERS, rec["result"]["scores"],
                      f"2026-07-0{i + 1}T10:00:00Z")  # fmt: skip
    annulled = played(35)
    s.record_deal("t2", 1, annulled, [None, "cid", None, "ann"], [0, 0, 0, 0])
    if hasattr(s, "create_account"):
        assert s.create_account("Dora", "dora", "registered", None, "f" * 64) is not None
    s.close()


def with_a_deal_in_progress(db: str) -> str:
    """A table playing its first deal (made by a real server, stopped mid-deal)."""
    import asyncio
    import random

    from helpers_server import Client, autoplay, create_table, is_event

    async def main() -> str:
        async with running_server(db, seed=3, absent_wait=30.0) as srv:
            c = await Client.connect(srv.port, "eve")
            tid = await create_table(c, deals=2)
            await c.join(tid, seat=1)
            await c.request({"type": "start", "table": tid})
            await autoplay(c, tid, random.Random(2), is_event("trick", number=2))
            await c.close()
            return tid

    return asyncio.run(main())


def row_counts(db: str) -> dict[str, int]:
    s = open_store(db)
    try:
        return s.row_counts()
    finally:
        s.close()


def same_everywhere(a: str, b: str) -> None:
    for cmd in (["export"], ["scores", "--json"], ["scores", "--table", "t1", "--json"]):
        x, y = run(*cmd, "--db", a), run(*cmd, "--db", b)
        assert x.returncode == 0 and y.returncode == 0, (x.stderr, y.stderr)
        assert x.stdout == y.stdout, cmd
    sa, sb = open_store(a, readonly=True), open_store(b, readonly=True)
    try:
        assert sa.unfinished_deals() == sb.unfinished_deals()
        assert sa.tables() == sb.tables()
    finally:
        sa.close()
        sb.close()


def test_sqlite_into_postgres_and_back(tmp_path: Path, pg_url: str) -> None:
    src = str(tmp_path / "atout.db")
    fill(src)
    tid = with_a_deal_in_progress(src)
    out = run("migrate-db", src, pg_url)
    assert out.returncode == 0, out.stderr
    assert b"copied" in out.stdout and b"5 deals" not in out.stdout  # 6 with the one in progress
    assert b"6 deals" in out.stdout
    same_everywhere(src, pg_url)
    again = run("migrate-db", src, pg_url)  # DEST is no longer empty: refused, untouched
    assert again.returncode == 1 and b"is not empty: it holds tables" in again.stderr
    same_everywhere(src, pg_url)
    dest = open_store(pg_url, readonly=True)
    try:
        (row,) = [t for t in dest.tables() if t["id"] == tid]
        assert "live" in row["options"] and row["status"] == "open"
    finally:
        dest.close()

    # back into a new SQLite file: the same again
    back = str(tmp_path / "back.db")
    out = run("migrate-db", pg_url, back)
    assert out.returncode == 0, out.stderr
    same_everywhere(src, back)
    with sqlite3.connect(back) as c:
        assert c.execute("SELECT name FROM accounts").fetchall() == [("Dora",)]

    # a server on the PostgreSQL copy takes the table in progress up where it was
    import asyncio

    async def rebuilt() -> int:
        async with running_server(pg_url, seed=3, absent_wait=30.0) as srv:
            return len(srv.lobby.tables)

    assert asyncio.run(rebuilt()) == 1


def test_what_cannot_be_copied_is_refused(tmp_path: Path, pg_url: str) -> None:
    src = str(tmp_path / "atout.db")
    fill(src)
    assert run("migrate-db", src, src).returncode == 1
    with sqlite3.connect(src) as c:
        c.execute("CREATE TABLE mystery (x)")
        c.execute("INSERT INTO mystery VALUES (1)")
    out = run("migrate-db", src, pg_url)
    assert out.returncode == 1 and b"cannot copy table mystery" in out.stderr
    missing = run("migrate-db", str(tmp_path / "none.db"), pg_url)
    assert missing.returncode == 1 and b"no database" in missing.stderr


def test_dest_must_be_empty(tmp_path: Path) -> None:
    """A DEST holding tables, accounts or player names would be merged with SRC (rows already
    there were kept), or, an earlier copy of SRC, kept in that copy's state: refused, before
    anything is written."""
    src = str(tmp_path / "src.db")
    fill(src)
    other, accounts, players = (str(tmp_path / f"{n}.db") for n in ("other", "acc", "pl"))
    s = open_store(other)
    s.create_table("elsewhere", "Not from src", {"deals": 1})
    s.close()
    s = open_store(accounts)
    assert s.create_account("Dora", "dora", "registered", None, "f" * 64) is not None  # SRC's
    s.close()
    open_store(players).close()
    with sqlite3.connect(players) as c:
        c.execute("INSERT INTO players (name, first_seen, last_seen) VALUES ('yan', 'x', 'x')")
    for dest, what in (
        (other, b"it holds tables (such as elsewhere)"),
        (accounts, b"it holds accounts (such as Dora)"),
        (players, b"it holds player names (such as yan)"),
    ):
        before = row_counts(dest)
        out = run("migrate-db", src, dest)
        assert out.returncode == 1 and what in out.stderr, out.stderr
        assert b"copies into an empty database only" in out.stderr
        assert row_counts(dest) == before  # nothing copied


def test_a_newer_snapshot_of_src_is_not_mixed_into_an_older_copy(tmp_path: Path) -> None:
    """Two backups of one server a deal apart: the second copied over the first was merged
    (rows already there kept, new ones added), then failed its check with DEST already mixed:
    the deal finished in between missing from its exports, a server started on it anyway."""
    old, new, dest = (str(tmp_path / f"{n}.db") for n in ("old", "new", "dest"))
    fill(old)
    s = open_store(new)
    s.close()
    with sqlite3.connect(old) as a, sqlite3.connect(new) as b:
        a.backup(b)
    s = open_store(new)
    rec = played(9)
    s.record_deal("t2", 2, rec, PLAYERS, rec["result"]["scores"], "2026-07-09T10:00:00Z")
    s.close()
    assert run("migrate-db", old, dest).returncode == 0
    before = run("export", "--db", dest).stdout
    out = run("migrate-db", new, dest)
    assert out.returncode == 1 and b"is not empty" in out.stderr
    assert run("export", "--db", dest).stdout == before  # the older copy, whole
    fresh = str(tmp_path / "fresh.db")
    assert run("migrate-db", new, fresh).returncode == 0
    same_everywhere(new, fresh)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_copy_that_fails_leaves_dest_empty(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy is one transaction of DEST: one that fails half-way (here its check, after
    every row was loaded; or a table's load) leaves nothing, and is simply run again."""
    from server.store import copy as copy_mod
    from server.store.base import StoreError

    src = str(tmp_path / "src.db")
    fill(src)
    dest = str(tmp_path / "dest.db") if backend == "sqlite" else request.getfixturevalue("pg_url")
    empty = row_counts(dest)
    assert not any(empty.values())

    def failing_check(*args: Any) -> None:
        raise StoreError("the check failed")

    monkeypatch.setattr(copy_mod, "_verify", failing_check)
    with pytest.raises(StoreError, match="the check failed"):
        copy_mod.migrate_db(src, dest)
    assert row_counts(dest) == empty
    monkeypatch.undo()

    calls = 0
    probe = open_store(dest, readonly=True)
    kind = type(probe)
    probe.close()
    real = kind.load_rows

    def load_then_fail(self: Any, table: str, rows: list[dict[str, Any]]) -> None:
        nonlocal calls
        calls += 1
        if calls == 4:
            raise StoreError("interrupted")
        real(self, table, rows)

    monkeypatch.setattr(kind, "load_rows", load_then_fail)
    with pytest.raises(StoreError, match="interrupted"):
        copy_mod.migrate_db(src, dest)
    monkeypatch.undo()
    assert row_counts(dest) == empty
    counts = copy_mod.migrate_db(src, dest)  # run again: the whole copy
    assert row_counts(dest) == {t: counts.get(t, 0) for t in empty}


def test_a_copy_whose_checks_read_src_for_long_is_not_cut_off(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DEST's transaction stays idle while the checks read SRC: PostgreSQL's limit on an idle
    transaction (5 s for the server's sessions, here 0.3 s) ended it, copy and all (review)."""
    import time

    import server.store.postgres as pg
    from server.store import copy as copy_mod
    from server.store.sqlite import SqliteStore

    src = str(tmp_path / "src.db")
    fill(src)
    monkeypatch.setattr(pg, "IDLE_IN_TRANSACTION_MS", 300)
    real = SqliteStore.standings

    def slow(self: Any, *args: Any, **kw: Any) -> Any:
        time.sleep(0.8)  # a large SRC, read after DEST's deals: DEST idle meanwhile
        return real(self, *args, **kw)

    monkeypatch.setattr(SqliteStore, "standings", slow)
    counts = copy_mod.migrate_db(src, pg_url)
    assert row_counts(pg_url) == {t: counts.get(t, 0) for t in row_counts(pg_url)}
    assert counts["deals"] == 5


def test_a_database_error_of_a_sqlite_dest_is_said_in_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error of SQLite itself inside the copy's transaction (a full disk, a trigger) came out
    as a raw sqlite3 exception, a traceback from the command (review): it is a StoreError,
    and DEST is left empty."""
    from server.store import copy as copy_mod
    from server.store.base import StoreError
    from server.store.sqlite import SqliteStore

    src, dest = str(tmp_path / "src.db"), str(tmp_path / "dest.db")
    fill(src)
    real = SqliteStore.load_rows

    def full_disk(self: Any, table: str, rows: list[dict[str, Any]]) -> None:
        if table == "deals":
            raise sqlite3.OperationalError("database or disk is full")
        real(self, table, rows)

    monkeypatch.setattr(SqliteStore, "load_rows", full_disk)
    with pytest.raises(StoreError, match="disk is full"):
        copy_mod.migrate_db(src, dest)
    assert not any(row_counts(dest).values())

"""``atout-server migrate-db SRC DEST``: a SQLite database moved into PostgreSQL keeps every
deal, score, player, account and deal in progress (the exports, scores and standings of both
sides are the same bytes; a server on the new database rebuilds the table in progress); the
copy can be run again; it goes back from PostgreSQL to SQLite the same way; and it refuses
what it cannot carry over rather than dropping it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
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
    again = run("migrate-db", src, pg_url)  # idempotent: nothing doubled
    assert again.returncode == 0, again.stderr
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


def test_another_database_is_not_merged_into_dest(tmp_path: Path) -> None:
    """DEST must be empty, or hold only what an interrupted copy of SRC left: a DEST holding
    other tables was merged with SRC (INSERT OR IGNORE), then reported as failing the check."""
    src, other, dest = (str(tmp_path / f"{n}.db") for n in ("src", "other", "dest"))
    fill(src)
    s = open_store(other)
    s.create_table("elsewhere", "Not from src", {"deals": 1})
    s.close()
    out = run("migrate-db", other, dest)
    assert out.returncode == 0, out.stderr
    out = run("migrate-db", src, dest)
    assert out.returncode == 1
    assert b"already holds 1 table(s) that" in out.stderr and b"elsewhere" in out.stderr
    d = open_store(dest, readonly=True)
    try:
        assert [t["id"] for t in d.tables()] == ["elsewhere"]  # nothing copied
    finally:
        d.close()
    # Run again after an interruption (DEST holds part of SRC): allowed.
    assert run("migrate-db", src, str(tmp_path / "fresh.db")).returncode == 0
    assert run("migrate-db", src, str(tmp_path / "fresh.db")).returncode == 0


def test_another_database_s_accounts_or_players_are_not_merged(tmp_path: Path) -> None:
    """Nor a DEST without tables but with accounts or player names of its own (a server that
    only registered players): they would have been merged with SRC's."""
    src = str(tmp_path / "src.db")
    fill(src)  # its account is Dora
    accounts, players = str(tmp_path / "accounts.db"), str(tmp_path / "players.db")
    s = open_store(accounts)
    assert s.create_account("Zed", "zed", "registered", None, "e" * 64) is not None
    s.close()
    open_store(players).close()
    with sqlite3.connect(players) as c:
        c.execute("INSERT INTO players (name, first_seen, last_seen) VALUES ('yan', 'x', 'x')")
    for dest, what in ((accounts, b"1 account(s) that"), (players, b"1 player name(s) that")):
        out = run("migrate-db", src, dest)
        assert out.returncode == 1 and what in out.stderr, out.stderr
        d = open_store(dest, readonly=True)
        try:
            assert d.tables() == []  # nothing copied
        finally:
            d.close()
    # The same account, name and id, is SRC's own (an interrupted copy): allowed.
    part = str(tmp_path / "part.db")
    s = open_store(part)
    assert s.create_account("Dora", "dora", "registered", None, "f" * 64) is not None
    s.close()
    out = run("migrate-db", src, part)
    assert out.returncode == 0, out.stderr

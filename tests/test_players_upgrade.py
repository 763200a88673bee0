"""Upgrade in place (issue 12, section 5): a database written by the release before accounts
(``tests/data/atout-0002.db``, made by ``tests/data/make_db_0002.py`` with the code at main
before the players' migration: three tables, five finished deals of guests, one deal in
progress) opens, migrates, keeps every deal and score, and the server carries on from it."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

from helpers_server import Client, autoplay, running_server, table_finished

from server.store.sqlite import MIGRATION_NAMES, Store

OLD = Path(__file__).parent / "data" / "atout-0002.db"
PUBLIC, PRIVATE, UNFINISHED = "7lqvUxWonhcm", "n18K_i1Ao9Zx", "Oyol6KpsnxCo"


def _copy(tmp_path: Path) -> Path:
    dest = tmp_path / "old.db"
    shutil.copy(OLD, dest)
    return dest


def test_the_old_database_is_of_the_previous_schema() -> None:
    with sqlite3.connect(f"file:{OLD}?mode=ro", uri=True) as c:
        names = [r[0] for r in c.execute("SELECT name FROM _sqlite_migrations ORDER BY id")]
    assert names == ["0001_initial", "0002_action_log"]


def test_upgrade_keeps_everything_and_backfills_the_seats(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    before = Store(str(path), readonly=True)
    deals_before = list(before.deals())
    standings_before = before.standings()
    before.close()
    s = Store(str(path))
    assert s.schema_version()[-1] == MIGRATION_NAMES[-1]
    assert list(s.deals()) == deals_before
    assert s.standings() == standings_before
    # every seat of the five finished deals, guests by name, AI seats by level
    rows = s.conn.execute(
        "SELECT table_id, deal_no, seat, guest, ai, score FROM deal_players"
        " ORDER BY table_id, deal_no, seat"
    ).fetchall()
    assert len(rows) == 20
    for rec in deals_before:
        meta = rec["meta"]
        mine = [r for r in rows if (r[0], r[1]) == (meta["table_id"], meta["deal_no"])]
        assert [r[3] for r in mine] == meta["players"]
        assert [r[5] for r in mine] == rec["result"]["scores"]
        assert all((r[3] is None) == (r[4] == "random") for r in mine)
    # the played deals wait for their review (par); guests' figures are there already
    assert len(s.pending_reviews()) == sum(d["result"]["status"] == "played" for d in deals_before)
    board, _ = s.leaderboard("total")
    assert {r["name"]: r["kind"] for r in board} == {"Marie": "guest", "Bob": "guest"}
    # private table: not in anyone's history but its own players'
    _, _, total = s.history(guest="Bob")
    assert total == 3  # Bob's two deals at the private table are not listed to strangers
    s.close()
    again = Store(str(path))  # reopening applies nothing twice
    assert again.schema_version().count("0003_players") == 1
    again.close()


async def test_the_server_resumes_the_old_database(tmp_path: Path) -> None:
    """The deal in progress at the old table is rebuilt and finished; its seats are recorded
    the new way; old and new deals are reviewed (par) by the server."""
    path = _copy(tmp_path)
    async with running_server(path, grace=30, absent_wait=0.0) as srv:
        assert UNFINISHED in srv.lobby.tables
        c = await Client.connect(srv.port, "Marie")
        # The old seat token is unknown to the test: a new player takes an AI seat.
        await c.join(UNFINISHED, seat=0)
        await autoplay(c, UNFINISHED, random.Random(5), table_finished, timeout=60)
        await srv.reviews.idle()
        await c.close()
    s = Store(str(path))
    assert s.pending_reviews() == []
    n = s.conn.execute("SELECT COUNT(*) FROM pars").fetchone()[0]
    played = s.conn.execute("SELECT COUNT(*) FROM deals WHERE status = 'played'").fetchone()[0]
    assert n == played >= 5
    seats = s.conn.execute(
        "SELECT seat, guest FROM deal_players WHERE table_id = ? AND guest IS NOT NULL",
        (UNFINISHED,),
    ).fetchall()
    assert ("Marie",) in {(g,) for _, g in seats}
    s.close()

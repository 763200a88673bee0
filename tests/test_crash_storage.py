"""Storage failures while tables play: a locked database and a full disk. The action that cannot
be stored is refused with ``storage_unavailable`` and changes nothing (no event, same version,
same deal); /healthz says 503; nothing in the database is corrupted; once the storage is back the
same action is accepted and the tables finish, with every deal stored once and scores adding up.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path
from typing import Any

from helpers_server import Client, choose, create_table, is_event, table_finished

from server.config import Config
from server.net.app import Server
from server.store.aio import AsyncStore
from server.store.sqlite import Store


class Lock:
    """Another connection holding the database's write lock until released."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("BEGIN EXCLUSIVE")

    def release(self) -> None:
        self.conn.execute("ROLLBACK")
        self.conn.close()


def _get(port: int, path: str) -> int:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


async def _server(db: Path) -> Server:
    # short lock waits so that a refusal comes fast (the defaults take about 2 s)
    store = AsyncStore(str(db), busy_timeout=0.05)
    # seeded deals: no petit sec cutting a deal short where the test expects to play
    cfg = Config(port=0, think_delay=0.0, deal_pause=0.0, absent_wait=30.0, seed=11)
    srv = Server(cfg, store)
    await srv.start()
    return srv


async def _my_turn(c: Client, tid: str, start: int) -> tuple[int, dict[str, Any]]:
    return await c.wait_for(lambda m: m["type"] == "your_turn" and m["table"] == tid, start)


def _check_stored(db: Path, tid: str, client: Client) -> None:
    """What the client saw is what is stored: records, scores, a sound file."""
    seen = [m["event"] for m in client.events(tid) if is_event("deal_over")(m)]
    totals = [m["event"]["total"] for m in client.events(tid) if is_event("scores")(m)]
    store = Store(str(db), readonly=True)
    try:
        stored = list(store.deals(tid))
        assert [{k: v for k, v in d.items() if k != "meta"} for d in stored] == [
            e["record"] for e in seen
        ]
        assert store.table_scores(tid) == totals[-1]
        assert store.unfinished_deals() == []
        assert store.conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        store.close()


async def test_a_locked_database_refuses_the_action_and_play_resumes(tmp_path: Path) -> None:
    db = tmp_path / "atout.db"
    srv = await _server(db)
    try:
        ann = await Client.connect(srv.port, "ann")
        tid = await create_table(ann, deals=1)
        await ann.join(tid, seat=0)
        # an AI table going on meanwhile, followed by its creator
        eve = await Client.connect(srv.port, "eve")
        ai_tid = await create_table(eve, deals=2)
        assert (await eve.request({"type": "watch", "table": ai_tid}))["type"] == "watching"
        assert (await eve.request({"type": "start", "table": ai_tid}))["type"] == "ok"
        assert (await ann.request({"type": "start", "table": tid}))["type"] == "ok"
        rng = random.Random(5)
        i = 0
        for _ in range(6):  # a few moves in
            i, turn = await _my_turn(ann, tid, i)
            i += 1
            assert (await ann.request({**choose(turn["legal"], rng), "table": tid}))["type"] == "ok"
        i, turn = await _my_turn(ann, tid, i)
        i += 1
        table = srv.lobby.tables[tid]
        v, actions = table.v, table.deal.n_actions

        lock = Lock(db)
        try:
            action = {**choose(turn["legal"], rng), "table": tid}
            start = len(ann.msgs)
            refused = await ann.request(action)
            assert refused["type"] == "error" and refused["code"] == "storage_unavailable"
            assert refused["details"] == {"reason": "storage_locked"}
            # nothing changed: no event, same version, same deal (the refusal is the table's
            # answer to the action: any event it caused would have come before it)
            assert not [m for m in ann.msgs[start:] if m["type"] == "event"]
            assert (table.v, table.deal.n_actions) == (v, actions)
            assert await asyncio.to_thread(_get, srv.port, "/healthz") == 503
        finally:
            lock.release()

        # the storage is back: the same action goes through and the tables finish
        assert (await ann.request(action))["type"] == "ok"
        for _ in range(100):  # /healthz answers from a cache of at most a second
            if await asyncio.to_thread(_get, srv.port, "/healthz") == 200:
                break
            await asyncio.sleep(0.05)
        assert await asyncio.to_thread(_get, srv.port, "/healthz") == 200
        while not any(table_finished(m) for m in ann.msgs):
            i, turn = await ann.wait_for(
                lambda m: m["type"] == "your_turn" or table_finished(m), i, timeout=20
            )
            i += 1
            if turn["type"] == "your_turn":
                r = await ann.request({**choose(turn["legal"], rng), "table": tid})
                assert r["type"] == "ok", r
        await eve.wait_for(table_finished, timeout=20)
        await ann.close()
        await eve.close()
    finally:
        await srv.stop()
    _check_stored(db, tid, ann)
    _check_stored(db, ai_tid, eve)


def _fill(conn: sqlite3.Connection) -> None:
    """A full disk, for real: the file may not grow (max_page_count) and its free room is
    taken by a filler table; the next write needing a page fails with SQLITE_FULL."""
    conn.execute("CREATE TABLE filler (x BLOB)")
    conn.commit()
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    conn.execute(f"PRAGMA max_page_count={pages}")
    for size in (4000, 1000, 250, 60, 15):
        while True:
            try:
                conn.execute("INSERT INTO filler VALUES (zeroblob(?))", (size,))
                conn.commit()
            except sqlite3.OperationalError:
                conn.rollback()
                break


def _unfill(conn: sqlite3.Connection) -> None:
    conn.execute("DROP TABLE filler")
    conn.commit()
    conn.execute("PRAGMA max_page_count=1073741823")


async def test_a_full_disk_refuses_the_action_and_play_resumes(tmp_path: Path) -> None:
    db = tmp_path / "atout.db"
    srv = await _server(db)
    names = ["ann", "bob", "cyd", "dan"]
    try:
        clients = [await Client.connect(srv.port, n) for n in names]
        tid = await create_table(clients[0], deals=1)
        for seat, c in enumerate(clients):  # the fourth starts the table
            await c.join(tid, seat=seat)
        await srv.store.run(lambda s: _fill(s.conn))
        table = srv.lobby.tables[tid]
        rng = random.Random(7)
        cursors = [0, 0, 0, 0]
        refused: dict[str, Any] | None = None
        # the four play in turn until an action cannot be stored
        while refused is None:
            seat = table.deal.turn
            c = clients[seat]
            cursors[seat], turn = await _my_turn(c, tid, cursors[seat])
            cursors[seat] += 1
            v, actions = table.v, table.deal.n_actions
            action = {**choose(turn["legal"], rng), "table": tid}
            r = await c.request(action)
            if r["type"] == "error":
                refused = r
                assert (table.v, table.deal.n_actions) == (v, actions)
        assert refused["code"] == "storage_unavailable", refused
        assert refused["details"] == {"reason": "storage_full"}
        assert (await c.request(action))["type"] == "error"  # still full: still refused
        await srv.store.run(lambda s: _unfill(s.conn))  # room again
        start = len(c.msgs)
        rid = await c.send(action)
        cursors[seat], ok = await c.wait_for(lambda m: m.get("id") == rid, start)
        assert ok["type"] == "ok", ok
        cursors[seat] += 1  # its next your_turn may have come with the answer

        async def play(k: int) -> None:
            i = cursors[k]
            while True:
                i, m = await clients[k].wait_for(
                    lambda m: m["type"] == "your_turn" or table_finished(m), i, timeout=20
                )
                i += 1
                if m["type"] != "your_turn":
                    return
                r = await clients[k].request({**choose(m["legal"], rng), "table": tid})
                assert r["type"] == "ok", r

        await asyncio.gather(*(play(k) for k in range(4)))
        for c in clients:
            await c.close()
    finally:
        await srv.stop()
    _check_stored(db, tid, clients[0])

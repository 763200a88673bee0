"""Persistence through the real SQLite store: finished deals and scores survive a server
restart, and exported records replay to the results the players saw."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from helpers_server import Client, autoplay, create_table, is_event, running_server, table_finished

from server.store import open_store as Store

SERVER = [sys.executable, "-m", "server.cli"]


async def _play(port: int, name: str, deals: int, seed: int) -> tuple[str, Client]:
    c = await Client.connect(port, name)
    tid = await create_table(c, deals=deals)
    await c.join(tid)
    await c.request({"type": "start", "table": tid})
    await autoplay(c, tid, random.Random(seed), table_finished)
    return tid, c


async def test_deals_and_scores_survive_a_restart_and_export_replays(db: str) -> None:
    seen: dict[str, list[dict]] = {}
    totals: dict[str, list[float]] = {}
    async with running_server(db) as srv:
        tid1, c1 = await _play(srv.port, "alice", 3, 1)
        # a second table still playing when the server stops: its finished deals are kept
        c3 = await Client.connect(srv.port, "carol")
        tid3 = await create_table(c3, deals=50, think_delay=0.001)
        await c3.join(tid3)
        await c3.request({"type": "start", "table": tid3})
        await autoplay(c3, tid3, random.Random(3), is_event("deal_over"))
    for tid, c in ((tid1, c1), (tid3, c3)):
        seen[tid] = [m["event"] for m in c.events(tid) if is_event("deal_over")(m)]
        scores = [m["event"]["total"] for m in c.events(tid) if is_event("scores")(m)]
        totals[tid] = scores[-1]
    assert c3.closed_code == 1001  # going away

    # restart on the same file: it opens, migrates nothing, and plays on; the table still
    # playing is rebuilt (carol's seat waits for her: nobody plays it during this run)
    async with running_server(db, absent_wait=60.0) as srv:
        assert srv.lobby.tables[tid3].seats[0].name == "carol"
        tid2, c2 = await _play(srv.port, "bob", 1, 2)
        seen[tid2] = [m["event"] for m in c2.events(tid2) if is_event("deal_over")(m)]
        # The series' one played deal may follow annulled ones (R3.2: dealt again): the
        # table's total is the last one announced, not the first deal's scores.
        scores = [m["event"]["total"] for m in c2.events(tid2) if is_event("scores")(m)]
        totals[tid2] = scores[-1]
        await c2.close()

    store = Store(str(db))
    unseen = 0
    try:
        for tid in (tid1, tid2, tid3):
            assert store.table_scores(tid) == totals[tid]
            stored = list(store.deals(tid))
            if tid == tid3:
                # carol's table deals on with nobody to see it after the restart, while her seat
                # waits (a stopping server deals no new deal: test_crash_rebuild). A deal can only
                # end so when it ends before anybody acts (a petit sec, R3.1; about one deal in
                # fifty): stored, unseen.
                extra = stored[len(seen[tid]) :]
                petit_sec = {"status": "annulled", "reason": "petit_sec", "scores": [0, 0, 0, 0]}
                assert all(d["result"] == petit_sec for d in extra), extra
                unseen += len(extra)
                stored = stored[: len(seen[tid])]
            assert [d["result"] for d in stored] == [e["result"] for e in seen[tid]]
            assert [{k: v for k, v in d.items() if k != "meta"} for d in stored] == [
                e["record"] for e in seen[tid]
            ]
        assert store.table(tid1)["status"] == "finished"
        assert store.table(tid3)["status"] == "open"  # a stop keeps it for the next start
    finally:
        store.close()

    exported = subprocess.run(
        [*SERVER, "export", "--db", str(db)], capture_output=True, check=True, timeout=60
    ).stdout
    lines = exported.decode().splitlines()
    assert len(lines) == sum(len(v) for v in seen.values()) + unseen
    replayed = subprocess.run(
        [*SERVER, "replay", "-"], input=exported, capture_output=True, timeout=60
    )
    assert replayed.returncode == 0, replayed.stderr
    results = [json.loads(x) for x in replayed.stdout.decode().splitlines()]
    by_table: dict[str, list[dict]] = {}
    for line, result in zip(lines, results, strict=True):
        by_table.setdefault(json.loads(line)["meta"]["table_id"], []).append(result)
    for tid, events in seen.items():
        assert by_table[tid][: len(events)] == [e["result"] for e in events]

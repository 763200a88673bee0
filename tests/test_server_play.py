"""Whole games over real sockets: one human with three AI, four humans, a spectator, and
twenty tables at once."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers_server import (
    Client,
    autoplay,
    check_no_leaks,
    check_versions,
    choose,
    create_table,
    is_event,
    running_server,
    table_finished,
)

from server.rules.records import replay_line
from server.store.sqlite import Store


async def test_one_client_with_three_ai_plays_complete_deals(tmp_path: Path) -> None:
    db = tmp_path / "atout.db"
    async with running_server(db) as srv:
        c = await Client.connect(srv.port, "alice")
        tid = await create_table(c, name="solo", deals=3, ai="random")
        await c.join(tid, seat=2)
        assert (await c.request({"type": "start", "table": tid}))["type"] == "ok"
        await autoplay(c, tid, random.Random(1), table_finished)
        overs = [m["event"] for m in c.events(tid) if m["event"]["type"] == "deal_over"]
        scores = [m["event"] for m in c.events(tid) if m["event"]["type"] == "scores"]
        # `deals` counts scored deals: an annulled one (R3) is dealt again
        n = len(overs)
        assert [o["result"]["status"] for o in overs].count("played") == 3 and len(scores) == n
        total = [0.0] * 4
        for over, sc in zip(overs, scores, strict=True):
            assert sc["deal"] == over["result"]["scores"]
            total = [a + b for a, b in zip(total, sc["deal"], strict=True)]
            assert sc["total"] == total
            ok, result = replay_line(__import__("json").dumps(over["record"]))
            assert ok and result == over["result"]
        assert sum(total) == 0
        # R2.4: the dealer moves one seat to the right each deal
        dealers = [
            m["event"]["dealer"] for m in c.events(tid) if m["event"]["type"] == "deal_start"
        ]
        assert [(d - dealers[0]) % 4 for d in dealers] == [i % 4 for i in range(n)]
        check_versions(c, tid)
        assert check_no_leaks(c, tid, 2) == n
        assert not c.decode_errors
        assert not [m for m in c.msgs if m["type"] == "error"]
        await c.close()
    store = Store(str(db))
    try:
        assert store.table_scores(tid) == total
        deals = list(store.deals(tid))
        assert [d["meta"]["deal_no"] for d in deals] == list(range(1, n + 1))
        assert all(d["meta"]["players"][2] == "alice" for d in deals)
    finally:
        store.close()


async def test_four_humans_play_a_full_deal() -> None:
    async with running_server() as srv:
        clients = [await Client.connect(srv.port, f"p{i}") for i in range(4)]
        tid = await create_table(clients[0], deals=1)
        for i, c in enumerate(clients):
            await c.join(tid, seat=i)
        # four players: the table starts by itself
        await asyncio.gather(
            *(
                autoplay(c, tid, random.Random(10 + i), table_finished)
                for i, c in enumerate(clients)
            )
        )
        records = []
        for i, c in enumerate(clients):
            check_versions(c, tid)
            assert check_no_leaks(c, tid, i) == 1
            assert not c.decode_errors
            (over,) = [m["event"] for m in c.events(tid) if m["event"]["type"] == "deal_over"]
            records.append(over["record"])
            # every seat saw the same sequence of versions
            assert [m["v"] for m in c.events(tid)][-1] == clients[0].events(tid)[-1]["v"]
        assert all(r == records[0] for r in records)
        for c in clients:
            await c.close()


async def test_spectator_follows_a_deal() -> None:
    async with running_server() as srv:
        player = await Client.connect(srv.port, "player")
        spec = await Client.connect(srv.port, "watcher")
        tid = await create_table(player, deals=2)
        await player.join(tid, seat=0)
        w = await spec.request({"type": "watch", "table": tid})
        assert w["type"] == "watching"
        _, snap = await spec.wait_for(lambda m: m["type"] == "snapshot")
        assert snap["seat"] is None and snap["info"]["seats"][0]["name"] == "player"
        await player.request({"type": "start", "table": tid})
        await autoplay(player, tid, random.Random(3), table_finished)
        await spec.wait_for(table_finished)
        assert not [m for m in spec.msgs if m["type"] == "your_turn"]
        starts = [m for m in spec.events(tid) if m["event"]["type"] == "deal_start"]
        assert len(starts) == 2 and all(m["event"]["hand"] is None for m in starts)
        check_versions(spec, tid)
        assert check_no_leaks(spec, tid, None) == 2
        # the spectator's stream is the players' stream minus what only a seat sees
        assert [m["v"] for m in spec.events(tid)] == [
            m["v"] for m in player.events(tid) if m["v"] > snap["v"]
        ]
        spec_overs = [
            m["event"]["record"] for m in spec.events(tid) if m["event"]["type"] == "deal_over"
        ]
        play_overs = [
            m["event"]["record"] for m in player.events(tid) if m["event"]["type"] == "deal_over"
        ]
        assert spec_overs == play_overs
        assert not spec.decode_errors
        await spec.close()
        await player.close()


async def test_twenty_tables_play_concurrently_with_ai() -> None:
    async with running_server() as srv:
        clients = [await Client.connect(srv.port, f"c{i}") for i in range(20)]
        tids = [await create_table(c, deals=2) for c in clients]
        for c, tid in zip(clients, tids, strict=True):
            await c.join(tid)
            await c.request({"type": "start", "table": tid})
        await asyncio.gather(
            *(
                autoplay(c, tid, random.Random(i), table_finished, timeout=60)
                for i, (c, tid) in enumerate(zip(clients, tids, strict=True))
            )
        )
        for c, tid in zip(clients, tids, strict=True):
            results = [m["event"]["result"] for m in c.events(tid) if is_event("deal_over")(m)]
            assert [r["status"] for r in results].count("played") == 2  # scored deals
            check_versions(c, tid)
            assert not c.decode_errors
        assert srv.lobby.by_state() == {"finished": 20}
        assert srv.metrics.ai_failures == {"error": 0, "illegal": 0}  # no bot raised
        for c in clients:
            await c.close()


async def test_a_bot_that_raises_is_counted_and_the_table_plays_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A table plays a random legal move for a bot that raised (server/tables/drivers.py) and
    # logs it; /metrics counts it, so that an operator and a test can see it happened.
    from server.ai.heuristic import HeuristicBot

    real = HeuristicBot.choose
    calls = {"n": 0}

    def flaky(self, view, legal):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 5:
            raise RuntimeError("a bug in the bot")
        return real(self, view, legal)

    monkeypatch.setattr(HeuristicBot, "choose", flaky)
    async with running_server(ai_failures=True) as srv:
        c = await Client.connect(srv.port, "ann")
        tid = await create_table(c, deals=1, ai="normal")
        await c.join(tid, seat=0)
        await c.request({"type": "start", "table": tid})
        await autoplay(c, tid, random.Random(3), table_finished, timeout=60)
        assert calls["n"] > 5
        assert srv.metrics.ai_failures == {"error": 1, "illegal": 0}
        text = srv.metrics.render()
        assert 'atout_ai_failures_total{reason="error"} 1' in text
        assert 'atout_ai_failures_total{reason="illegal"} 0' in text
        await c.close()


async def test_table_restart_and_close() -> None:
    async with running_server() as srv:
        c = await Client.connect(srv.port, "r")
        tid = await create_table(c, deals=1)
        await c.join(tid)
        await c.request({"type": "start", "table": tid})
        await autoplay(c, tid, random.Random(5), table_finished)
        r = await c.request({"type": "restart", "table": tid})
        assert r["type"] == "ok"
        m = await autoplay(c, tid, random.Random(6), table_finished)
        # The deals go on numbering; an annulled one (R3.1, R3.2) is dealt again.
        assert m["event"]["series"] == 2 and m["event"]["deal_no"] >= 2
        overs = [e["event"]["result"]["status"] for e in c.events(tid) if is_event("deal_over")(e)]
        assert overs.count("played") == 2 and overs[-1] == "played"
        listed = await c.request({"type": "list_tables"})
        assert [t["state"] for t in listed["tables"] if t["table"] == tid] == ["finished"]
        assert (await c.request({"type": "close", "table": tid}))["type"] == "ok"
        await c.wait_for(is_event("table_state", state="closed"))
        listed = await c.request({"type": "list_tables"})
        assert tid not in [t["table"] for t in listed["tables"]]
        r = await c.request({"type": "join", "table": tid})
        assert r["code"] == "no_such_table"
        await c.close()


@pytest.mark.parametrize("level", ["easy", "normal", "heuristic", "strong"])
async def test_ai_levels_play_through_the_server(level: str) -> None:
    # strong AI thinks in worker processes, with a short deadline here
    async with running_server(ai_deadline=0.05) as srv:
        c = await Client.connect(srv.port, "lv")
        tid = await create_table(c, deals=1, ai=["random", level, level, level])
        info = srv.lobby.tables[tid].info()
        assert [s["ai"] for s in info["seats"]] == ["random", level, level, level]
        await c.join(tid, seat=0)
        await c.request({"type": "start", "table": tid})
        await autoplay(c, tid, random.Random(11), table_finished, timeout=60)
        overs = [m["event"]["result"] for m in c.events(tid) if is_event("deal_over")(m)]
        assert [r["status"] for r in overs].count("played") == 1  # `deals` counts scored deals
        assert srv.metrics.loop_lag_max < 0.5  # the search never ran on the event loop
        # A strong search that raised would have been replaced by the heuristic move: counted
        # (and logged), and a failure here.
        assert srv.lobby.decider.fallback_counts()["error"] == 0
        assert 'atout_ai_fallbacks_total{reason="error"} 0' in srv.metrics.render()
        assert srv.metrics.ai_failures == {"error": 0, "illegal": 0}  # nor did a cheap level
        await c.close()


async def test_ai_levels_are_offered_and_a_new_table_plays_normal_ai() -> None:
    """Interface 4 (TEAM.md): `welcome` and `table_created` list the levels to offer, easiest
    first, each with a description; a table created without `ai` gets the `normal` bot."""
    async with running_server() as srv:
        c = await Client.connect(srv.port, "lv")
        (welcome,) = [m for m in c.msgs if m["type"] == "welcome"]
        levels = welcome["ai_levels"]
        assert [x["level"] for x in levels] == ["easy", "normal", "strong"]
        assert all(isinstance(x["description"], str) and x["description"] for x in levels)
        r = await c.request({"type": "create_table", "deals": 1})
        assert r["type"] == "table_created" and r["ai_levels"] == levels
        assert {s["ai"] for s in r["table"]["seats"]} == {"normal"}
        for x in levels:  # every offered level is accepted
            r = await c.request({"type": "create_table", "deals": 1, "ai": x["level"]})
            assert r["type"] == "table_created", r
        await c.close()


async def test_a_join_is_announced_as_a_connected_human() -> None:
    """Others learn of a newcomer as connected (not as a dropped player), and no table id
    starts with "-" (command lines would read it as an option)."""
    async with running_server() as srv:
        a, b = await Client.connect(srv.port, "a"), await Client.connect(srv.port, "b")
        tids = [await create_table(a, deals=1, public=False) for _ in range(15)]
        assert not any(t.startswith("-") for t in tids)
        tid = tids[0]
        await a.join(tid, seat=0)
        start = len(a.msgs)
        await b.join(tid, seat=2)
        _, m = await a.wait_for(
            lambda m: (
                m["type"] == "event" and m["event"]["type"] == "seat" and m["event"]["seat"] == 2
            ),
            start,
        )
        assert m["event"]["connected"] is True and m["event"]["kind"] == "human"
        assert m["event"]["name"] == "b" and m["event"]["ai"] is None
        await a.close()
        await b.close()


async def test_bots_get_their_seats_view_unless_they_do_not_read_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bot is handed exactly ``views.view`` of its own seat in the state it decides on (the
    table's deal, or a state made ahead when AI seats answer at once), except a bot that says
    it never reads it (``reads_view = False``: the random bot), which gets nothing to read; a
    bot that reads bitmasks (``reads_masks``: normal, easy) gets the view with ``masks=True``,
    but nothing for a forced card (one legal card, no poignée: ``forced_without_view``)."""
    import server.tables.drivers as drivers
    from server.config import Config
    from server.net.app import Server
    from server.rules import legal_actions
    from server.rules.views import view
    from server.tables.decider import Decider

    built: list[tuple[object, int | None, bool, dict]] = []  # type: ignore[type-arg]

    def recording_view(st, seat, *, masks=False, legal=None):  # type: ignore[no-untyped-def]
        assert legal is None or legal == legal_actions(st)  # the driver's, reused
        out = view(st, seat, masks=masks, legal=legal)
        built.append((st, seat, masks, out))
        return out

    monkeypatch.setattr(drivers, "view", recording_view)
    seen: list[tuple[str, int, dict, dict | None]] = []  # type: ignore[type-arg]

    failures: list[str] = []  # the table catches what a bot raises (and plays at random)

    class Recording(Decider):  # the inline levels decide through choose_now
        def choose_now(self, bot, seat_view, legal):  # type: ignore[no-untyped-def]
            expected = None
            forced = len(legal.plays) == 1 and not legal.poignees
            try:
                if getattr(bot, "reads_view", True) and not forced:
                    # the view the table built last, of the state decided on
                    st, seat, masks, out = built[-1]
                    assert out is seat_view and seat == legal.seat and st.turn == legal.seat
                    assert masks is bot.reads_masks is True
                    assert legal_actions(st) == legal
                    expected = view(st, legal.seat, masks=True)
                elif getattr(bot, "reads_view", True):  # a forced card: no view built
                    assert bot.forced_without_view is True
                    expected = {}
            except AssertionError as e:
                failures.append(f"{bot.name} seat {legal.seat}: {e!r}")
            seen.append((bot.name, legal.seat, seat_view, expected))
            return super().choose_now(bot, seat_view, legal)

    cfg = Config(port=0, think_delay=0.0, deal_pause=0.0, ai_share=0.0, max_bot_tables=1000)
    server = Server(cfg, None, Recording())
    await server.start()
    try:
        c = await Client.connect(server.port, "v")
        tid = await create_table(c, deals=2, ai=["random", "random", "normal", "easy"])
        await c.join(tid, seat=0)
        await c.request({"type": "start", "table": tid})
        await autoplay(c, tid, random.Random(5), table_finished, timeout=60)
        await c.close()
    finally:
        await server.stop()
    assert failures == []
    assert server.metrics.ai_failures == {"error": 0, "illegal": 0}
    levels = {level for level, *_ in seen}
    assert levels == {"random", "normal", "easy"}
    forced = 0
    for level, seat, got, expected in seen:
        if level == "random":
            assert got == {}, seat
        elif expected == {}:
            assert got == {}, (level, seat)
            forced += 1
        else:
            assert got == expected and got["seat"] == seat and got["hand"], (level, seat)
    assert forced >= 2  # at least the last trick's, of each deal


async def test_ai_answers_made_at_once_are_stored_with_the_action_before_anyone_hears(
    tmp_path: Path,
) -> None:
    """With no think delay, the AI seats' answers to a human's action are made in the same
    turn of the table and written in the same group as the action (one journal group per
    action mid-deal, whatever the AI answered); the table never moves ahead of the database:
    whenever the human is prompted, the deal's stored actions are exactly those played."""
    from server.rules.records import decode_record

    db = tmp_path / "atout.db"
    async with running_server(db) as srv:
        c = await Client.connect(srv.port, "ann")
        tid = await create_table(c, deals=1, ai="normal")
        await c.join(tid, seat=0)
        assert (await c.request({"type": "start", "table": tid}))["type"] == "ok"
        table = srv.lobby.tables[tid]
        journal = srv.lobby.journal
        assert journal is not None
        rng = random.Random(4)
        i, answered, prompts = 0, 0, 0

        def stored_actions() -> int | None:
            s = Store(str(db), readonly=True)
            try:
                for e in s.unfinished_deals():
                    if e["table_id"] == tid and e["deal_no"] == table.deal_no:
                        return len(decode_record(json.dumps(e["record"]).encode()).actions)
                return None
            finally:
                s.close()

        while True:
            i, m = await c.wait_for(
                lambda m: (
                    (m["type"] == "your_turn" and m["table"] == tid) or is_event("deal_over")(m)
                ),
                i,
                timeout=20,
            )
            i += 1
            if m["type"] != "your_turn":
                break
            prompts += 1
            assert await asyncio.to_thread(stored_actions) == table.deal.n_actions
            before, groups = table.deal.n_actions, journal.groups
            r = await c.request({**choose(m["legal"], rng), "table": tid})
            assert r["type"] == "ok", r
            i, m = await c.wait_for(
                lambda m: (
                    (m["type"] == "your_turn" and m["table"] == tid) or is_event("deal_over")(m)
                ),
                i,
                timeout=20,
            )
            if m["type"] == "your_turn":  # mid-deal: the action and the AI answers, one group
                assert journal.groups == groups + 1
                answered += table.deal.n_actions - before - 1
        assert prompts > 5 and answered > prompts  # the AI answered most actions at once
        await c.close()


async def test_a_bug_once_an_action_is_stored_is_answered_and_the_server_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # What a table does once an action is stored (apply it, send its events) runs as the
    # journal delivers the batch (server.store.journal, ``then``), not in the table's task.
    # It still runs in the table's context (its log records name the table), and a bug there
    # reaches the player as an `internal` error, as one in the task would.
    from server.ops import logs
    from server.tables.sequence import DealSequence

    real = DealSequence._apply_steps
    seen: list[str | None] = []

    def apply_steps(self: DealSequence, steps: list[Any]) -> None:
        if steps[0][1].seat == 0 and not seen:  # the human's first action only
            seen.append(logs._table.get())
            raise RuntimeError("a bug after storing")
        real(self, steps)

    monkeypatch.setattr(DealSequence, "_apply_steps", apply_steps)
    async with running_server(tmp_path / "a.db") as srv:
        c = await Client.connect(srv.port, "alice")
        tid = await create_table(c, deals=1)
        await c.join(tid, seat=0)
        assert (await c.request({"type": "start", "table": tid}))["type"] == "ok"
        _, turn = await c.wait_for(lambda m: m["type"] == "your_turn")
        rid = await c.send({**choose(turn["legal"], random.Random(1)), "table": tid})
        await c.wait_for(lambda m: m.get("id") == rid and m["type"] == "error")
        assert [m["type"] for m in c.answers_to(rid)] == ["ok", "error"]
        assert c.answers_to(rid)[1]["code"] == "internal"
        assert seen == [tid]
        assert (await c.request({"type": "ping"}))["type"] == "pong"
        await c.close()
    assert any("a bug after storing" in r.getMessage() or r.exc_info for r in caplog.records)

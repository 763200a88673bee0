"""Reconnection: resuming a seat with its token (missed events or a snapshot), token
replacement, the AI standing in for an absent player, grace expiry and the turn timer."""

from __future__ import annotations

import asyncio
import random
import time
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

from protocol import CloseCode


def _event_vs(c: Client, tid: str) -> list[int]:
    return [m["v"] for m in c.events(tid)]


def _trick(n: int) -> Any:
    return is_event("trick", number=n)


async def _start_solo(c: Client, **options: Any) -> str:
    tid = await create_table(c, **options)
    await c.join(tid, seat=0)
    await c.request({"type": "start", "table": tid})
    return tid


async def _play_then_leave(port: int, name: str, seed: int, trick: int) -> tuple[Client, str, str]:
    """A player alone with three AI plays seat 0 of a one-deal table up to trick ``trick``,
    then disconnects: its closed client, the table and the seat's token."""
    c = await Client.connect(port, name)
    tid = await _start_solo(c, deals=1)
    await autoplay(c, tid, random.Random(seed), _trick(trick))
    await c.close()
    return c, tid, c.token


@pytest.mark.parametrize("how", ["resume", "hello"])
async def test_reconnect_mid_deal_gets_missed_events(how: str) -> None:
    # the absent seat's turn waits long enough for the player to come back
    async with running_server(absent_wait=5.0, grace=10.0) as srv:
        c1, tid, token = await _play_then_leave(srv.port, "ann", 1, 3)
        last_v = c1.events(tid)[-1]["v"]  # the last version this connection received
        # the AI seats play on until it is ann's turn (her own waits for absent_wait)
        table = srv.lobby.tables[tid]
        deadline = time.monotonic() + 4
        while not (table.v > last_v and table.deal.turn == 0):
            assert time.monotonic() < deadline, (table.v, last_v, table.deal.turn)
            await asyncio.sleep(0.01)
        if how == "resume":
            c2 = await Client.connect(srv.port, "ann")
            r = await c2.request({"type": "resume", "token": token, "v": last_v})
            assert r["type"] == "joined" and r["seat"] == 0 and r["token"] == token
        else:
            c2 = await Client.connect(srv.port, "ann", hello=False)
            w = await c2.request(
                {"type": "hello", "version": 1, "name": "ann", "token": token, "v": last_v}
            )
            assert w["type"] == "welcome" and w["resumed"] == {"table": tid, "seat": 0}
        # missed events, not a snapshot; numbering continues right after last_v
        assert not [m for m in c2.msgs if m["type"] == "snapshot"]
        _, prompt = await c2.wait_for(lambda m: m["type"] == "your_turn")
        vs = _event_vs(c2, tid)
        assert vs[0] == last_v + 1 and vs == list(range(vs[0], vs[0] + len(vs)))
        # the last replayed event is the seat coming back
        assert c2.events(tid)[-1]["event"] == {
            "type": "seat",
            "seat": 0,
            "kind": "human",
            "name": "ann",
            "connected": True,
            "ai": None,
            "identity": "guest",  # no player key (issue 12)
        }
        assert prompt["v"] == vs[-1]
        await autoplay(c2, tid, random.Random(2), table_finished)
        check_versions(c2, tid)
        # together the two connections saw every version once, after c1's first snapshot
        first = next(m["v"] for m in c1.msgs if m["type"] == "snapshot")
        seen = _event_vs(c1, tid) + _event_vs(c2, tid)
        assert seen == list(range(first + 1, c2.events(tid)[-1]["v"] + 1))
        assert not c2.decode_errors
        await c2.close()


async def test_resume_without_version_gets_a_snapshot_and_the_deal_finishes() -> None:
    async with running_server(absent_wait=5.0) as srv:
        _, tid, token = await _play_then_leave(srv.port, "bo", 3, 5)
        await asyncio.sleep(0.05)
        c2 = await Client.connect(srv.port, "bo")
        r = await c2.request({"type": "resume", "token": token})
        assert r["type"] == "joined"
        _, snap = await c2.wait_for(lambda m: m["type"] == "snapshot")
        deal = snap["deal"]
        assert snap["seat"] == 0 and deal["seat"] == 0 and len(deal["tricks"]) >= 5
        assert deal["hand"] is not None and deal["record"] is None
        # Issue 9 item 8: the snapshot is the table exactly as of its `v`: the event saying the
        # seat is connected again came before it (it is in the snapshot), not after.
        assert snap["v"] == srv.lobby.tables[tid].v
        assert snap["info"]["seats"][0]["connected"] is True
        assert not [
            m for m in c2.events(tid) if m["v"] > snap["v"] and m["event"]["type"] == "seat"
        ]
        await autoplay(c2, tid, random.Random(4), table_finished)
        check_versions(c2, tid)
        assert check_no_leaks(c2, tid, 0) == 1
        await c2.close()


async def test_resume_from_a_version_older_than_the_log_gets_a_snapshot() -> None:
    async with running_server(event_log=8, absent_wait=5.0) as srv:
        _, tid, token = await _play_then_leave(srv.port, "cy", 5, 4)
        c2 = await Client.connect(srv.port, "cy")
        assert (await c2.request({"type": "resume", "token": token, "v": 1}))["type"] == "joined"
        await c2.wait_for(lambda m: m["type"] == "snapshot")
        await autoplay(c2, tid, random.Random(6), table_finished)
        check_versions(c2, tid)
        await c2.close()


@pytest.mark.parametrize("back", [7, 8])
async def test_a_log_of_n_events_resumes_from_n_before_the_end_not_earlier(back: int) -> None:
    """The seat's log keeps its last ``event_log`` events: resuming from a version it still
    covers replays them (the seat event of the resume is one of them), one more is a
    snapshot."""
    async with running_server(event_log=8, absent_wait=30.0) as srv:
        _, tid, token = await _play_then_leave(srv.port, "di", 7, 3)
        table = srv.lobby.tables[tid]
        for _ in range(500):  # the AI plays on to seat 0's turn, where the table waits
            if table.deal.turn == 0 and table.seats[0].session is None:
                break
            await asyncio.sleep(0.01)
        else:
            pytest.fail("seat 0's turn never came")
        end = table.v  # the resume adds the seat event: the log then holds end-6 .. end+1
        c2 = await Client.connect(srv.port, "di")
        r = await c2.request({"type": "resume", "token": token, "v": end - back})
        assert r["type"] == "joined"
        await c2.wait_for(lambda m: m["type"] == "your_turn")
        snaps = [m for m in c2.msgs if m["type"] == "snapshot"]
        if back == 7:
            assert not snaps and _event_vs(c2, tid) == list(range(end - 6, end + 2))
        else:
            assert len(snaps) == 1 and snaps[0]["v"] == end + 1 and not _event_vs(c2, tid)
        await c2.close()


async def test_second_connection_with_the_token_replaces_the_first() -> None:
    async with running_server() as srv:
        c1 = await Client.connect(srv.port, "dee")
        tid = await _start_solo(c1, deals=1)
        await autoplay(c1, tid, random.Random(7), _trick(2))
        c2 = await Client.connect(srv.port, "dee")
        v = c1.events(tid)[-1]["v"]
        r = await c2.request({"type": "resume", "token": c1.token, "v": v})
        assert r["type"] == "joined"
        await asyncio.wait_for(c1._reader, 5)
        assert c1.closed_code == CloseCode.REPLACED
        # the seat never looked disconnected to the others
        assert not [m for m in c2.events(tid) if is_event("seat", connected=False)(m)]
        await autoplay(c2, tid, random.Random(8), table_finished)
        await c2.close()


async def test_absent_player_is_played_by_the_ai_then_released_after_grace() -> None:
    async with running_server(absent_wait=0.05, grace=0.2, think_delay=0.005) as srv:
        c1 = await Client.connect(srv.port, "eve")
        watcher = await Client.connect(srv.port, "w")
        # random AI: its deals are played (bots that pass would end them before the grace)
        tid = await create_table(c1, deals=2, ai="random")
        await c1.join(tid, seat=3)
        await watcher.request({"type": "watch", "table": tid})
        await c1.request({"type": "start", "table": tid})
        await c1.wait_for(lambda m: m["type"] == "your_turn")
        token = c1.token
        await c1.close()
        _, gone = await watcher.wait_for(is_event("seat", seat=3, connected=False))
        assert gone["event"]["kind"] == "human" and gone["event"]["ai"] == "random"
        # the table does not stall: the AI plays for seat 3, and after the grace period the
        # seat becomes an AI seat for good
        await watcher.wait_for(is_event("seat", seat=3, kind="ai"), timeout=5)
        await watcher.wait_for(table_finished, timeout=20)
        check_versions(watcher, tid)
        c2 = await Client.connect(srv.port, "eve")
        r = await c2.request({"type": "resume", "token": token})
        assert r["type"] == "error" and r["code"] == "bad_token"
        await c2.close()
        await watcher.close()


async def test_turn_timer_lets_the_ai_play_for_a_silent_player() -> None:
    async with running_server() as srv:
        c = await Client.connect(srv.port, "slow")
        # random AI: the deal is played, not passed out (the test counts seat 0's cards)
        tid = await _start_solo(c, deals=1, turn_timer=0.02, ai="random")
        _, prompt = await c.wait_for(lambda m: m["type"] == "your_turn")
        assert prompt["timer"] == 0.02
        # never answer: the table still finishes, the AI playing seat 0's moves
        await c.wait_for(table_finished, timeout=20)
        acted = [
            m
            for m in c.events(tid)
            if m["event"].get("seat") == 0 and m["event"]["type"] in ("bid", "play")
        ]
        assert len(acted) >= 18
        await c.close()


async def test_a_turn_timer_runs_from_its_own_prompt_not_from_an_earlier_one() -> None:
    # A table has one alarm (server.tables.drivers), armed for the first prompt's deadline and
    # left armed when the player moves: it must not act for the player at that old deadline,
    # only once the new prompt's own timer has run out.
    async with running_server() as srv:
        c = await Client.connect(srv.port, "ann")
        tid = await _start_solo(c, deals=1, turn_timer=0.6, ai="random")
        loop = asyncio.get_running_loop()
        i, first = await c.wait_for(lambda m: m["type"] == "your_turn")
        await asyncio.sleep(0.35)  # the first deadline is 0.25 s away
        await c.send({**choose(first["legal"], random.Random(1)), "table": tid})
        i, second = await c.wait_for(lambda m: m["type"] == "your_turn", start=i + 1)
        prompted = loop.time()
        assert second["timer"] == 0.6  # a new turn, a whole timer
        # silent now: the AI plays seat 0's move when the second timer runs out
        await c.wait_for(
            lambda m: (
                m["type"] == "event"
                and m["event"].get("seat") == 0
                and m["event"]["type"] in ("bid", "discard", "chelem", "poignee", "play")
            ),
            start=i + 1,
            timeout=10,
        )
        assert loop.time() - prompted >= 0.6 - 0.01
        assert srv.lobby.tables[tid].seats[0].timeouts == 1
        await c.close()


@pytest.mark.parametrize("how", ["reconnect", "second_tab", "same_connection"])
async def test_prompting_a_turn_again_keeps_what_is_left_of_its_timer(how: str) -> None:
    # docs/PROTOCOL.md section 7: no seat can hold a table forever. A reload (a new
    # connection), a second tab (replacement) or a resume on the same connection used to start
    # a full turn timer again, so a player could hold the table by reconnecting.
    async with running_server(absent_wait=30.0, grace=30.0) as srv:
        c = await Client.connect(srv.port, "ann")
        tid = await _start_solo(c, deals=1, turn_timer=30.0, ai="random")
        _, first = await c.wait_for(lambda m: m["type"] == "your_turn")
        assert first["timer"] == 30.0
        table = srv.lobby.tables[tid]
        assert table.driver_due is not None
        deadline = table.driver_due[3]  # loop time at which the AI acts for seat 0
        await asyncio.sleep(0.3)
        if how == "reconnect":
            await c.close()
            await asyncio.sleep(0.1)
            # gone during its turn: the AI stands in no later than the turn's deadline,
            # though the absent wait (30 s) is as long as the timer
            assert table.driver_due is not None
            assert table.driver_due[3] <= deadline + 1e-3
            c2 = await Client.connect(srv.port, "ann")
        elif how == "second_tab":
            c2 = await Client.connect(srv.port, "ann")
        else:
            c2 = c
        start = len(c2.msgs)
        r = await c2.request({"type": "resume", "token": c.token})
        assert r["type"] == "joined" and r["seat"] == 0
        _, again = await c2.wait_for(lambda m: m["type"] == "your_turn", start=start)
        assert (again["legal"], again["hand"]) == (first["legal"], first["hand"])  # same turn
        assert 0 < again["timer"] <= 29.8  # what is left, not a new 30 s
        assert table.driver_due is not None
        assert abs(table.driver_due[3] - deadline) < 1e-3
        assert table.driver_timer is not None  # the table's alarm rings no later than that
        assert table.driver_timer.when() <= deadline + 1e-3
        # acting gives the next turn a timer of its own
        bid = {"type": "bid", "table": tid, "contract": "pass"}
        assert (await c2.request(bid))["type"] == "ok"
        if how == "second_tab":
            await c.close()
        await c2.close()


async def test_one_connection_cannot_resume_two_seats_of_a_table() -> None:
    async with running_server() as srv:
        a = await Client.connect(srv.port, "a")
        b = await Client.connect(srv.port, "b")
        tid = await create_table(a)
        await a.join(tid, seat=0)
        await b.join(tid, seat=1)
        r = await a.request({"type": "resume", "token": b.token})
        assert r["type"] == "error" and r["code"] == "already_seated"
        # resuming its own seat on the same connection is harmless: a fresh snapshot
        r = await a.request({"type": "resume", "token": a.token})
        assert r["type"] == "joined" and r["seat"] == 0
        await a.wait_for(lambda m: m["type"] == "snapshot", start=len(a.msgs) - 2)
        assert not b.is_closed
        await a.close()
        await b.close()

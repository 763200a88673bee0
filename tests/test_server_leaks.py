"""Information leaks: every frame sent to every seat and to a spectator (snapshots, events,
prompts, resync, errors) is checked, at every step of several full deals, against what that
seat may know under RULES.md; the oracle (helpers_server.known_cards) is independent of
server/rules/views.py."""

from __future__ import annotations

import asyncio
import json
import random
from types import SimpleNamespace
from typing import Any

import pytest
from helpers_server import (
    Client,
    autoplay,
    check_no_leaks,
    check_versions,
    choose,
    create_table,
    deal_records,
    is_event,
    running_server,
    table_finished,
)

CONTRACTS = ["prise", "garde", "garde_sans", "garde_contre"]


def contract_cycler(c: Client, legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Deal k: the first seat able to bid CONTRACTS[k % 4] does, everybody else passes; so
    every contract (and the hidden chien of garde_sans/garde_contre) is covered."""
    if legal["bids"]:
        deal_no = sum(1 for m in c.msgs if is_event("deal_start")(m))
        want = CONTRACTS[(deal_no - 1) % 4]
        return {"type": "bid", "contract": want if want in legal["bids"] else "pass"}
    return choose(legal, rng, poignee_chance=0.8)


def dealt(c: Client, tid: str) -> int:
    """The deals dealt at ``tid`` as ``c`` saw them (annulled ones included)."""
    return sum(1 for m in c.events(tid) if m["event"]["type"] == "deal_start")


async def test_no_frame_reveals_hidden_cards_over_several_deals() -> None:
    async with running_server() as srv:
        players = [await Client.connect(srv.port, f"s{i}") for i in range(4)]
        spectator = await Client.connect(srv.port, "spec")
        tid = await create_table(players[0], deals=8)
        await spectator.request({"type": "watch", "table": tid})
        for i, c in enumerate(players):
            await c.join(tid, seat=i)
        await asyncio.gather(
            *(
                autoplay(c, tid, random.Random(100 + i), table_finished, chooser=contract_cycler)
                for i, c in enumerate(players)
            )
        )
        await spectator.wait_for(table_finished)
        contracts = {
            m["event"]["contract"] for m in spectator.events(tid) if is_event("contract")(m)
        }
        assert contracts == set(CONTRACTS)  # every visibility case was exercised
        for i, c in enumerate(players):
            # 8 scored deals, and any deal nobody took (annulled, dealt again: R3)
            assert check_no_leaks(c, tid, i) == dealt(spectator, tid) >= 8
            check_versions(c, tid)
            assert not c.decode_errors
        assert check_no_leaks(spectator, tid, None) == dealt(spectator, tid)
        check_versions(spectator, tid)
        # the discard: taker sees the cards, others only the trumps (R5.4)
        for m in players[0].events(tid):
            if is_event("discard")(m):
                ev = m["event"]
                assert (ev.get("cards") is not None) == (ev["seat"] == 0)


async def test_resync_snapshots_reveal_nothing_either() -> None:
    """A seat that drops and resumes mid-deal (snapshot) and a spectator arriving mid-deal."""
    # seeded deals: a petit sec (a deal over before its first trick) would upset the script
    async with running_server(absent_wait=5.0, seed=2) as srv:
        c = await Client.connect(srv.port, "p")
        tid = await create_table(c, deals=4)
        await c.join(tid, seat=1)
        await c.request({"type": "start", "table": tid})
        rng = random.Random(9)
        conns = [c]
        lates: list[Client] = []
        for deal in range(1, 5):
            await autoplay(c, tid, rng, is_event("trick", number=2 + deal))
            late = await Client.connect(srv.port, f"late{deal}")
            await late.request({"type": "watch", "table": tid})
            token = c.token
            await c.close()
            c = await Client.connect(srv.port, "p")
            r = await c.request({"type": "resume", "token": token})  # no version: snapshot
            assert r["type"] == "joined"
            c.token = token
            conns.append(c)
            if deal < 4:
                await autoplay(c, tid, rng, is_event("deal_start"))
            else:
                await autoplay(c, tid, rng, table_finished)
            await late.wait_for(is_event("deal_over"))
            await late.close()
            lates.append(late)
        records: dict[int, dict[str, Any]] = {}
        for conn in conns:
            records.update(deal_records(conn, tid))
        assert sorted(records) == [1, 2, 3, 4]
        checked = 0
        for conn in conns:
            checked += check_no_leaks(conn, tid, 1, records)
            assert not conn.decode_errors
        assert checked == 8  # each deal: before the drop, and after the resume
        for late in lates:
            assert check_no_leaks(late, tid, None, records) >= 1


async def test_the_oracle_catches_a_leak() -> None:
    """The checker is not vacuous: a forged frame showing another seat's card fails it."""
    async with running_server() as srv:
        c = await Client.connect(srv.port, "o")
        tid = await create_table(c, deals=1)
        await c.join(tid, seat=0)
        await c.request({"type": "start", "table": tid})
        await autoplay(c, tid, random.Random(1), table_finished)
        await c.close()
    assert check_no_leaks(c, tid, 0) == 1
    record = deal_records(c, tid)[1]
    start = next(i for i, m in enumerate(c.msgs) if is_event("deal_start")(m))
    secret = record["hands"][2][0]  # seat 2's first card: unknown to seat 0 at the start
    forged = {"type": "error", "id": None, "code": "internal", "message": f'"{secret}"'}
    frames = [
        *c.frames[: start + 1],
        json.dumps({**forged, "message": secret}),
        *c.frames[start + 1 :],
    ]
    msgs = [*c.msgs[: start + 1], forged, *c.msgs[start + 1 :]]
    fake = SimpleNamespace(name="fake", frames=frames, msgs=msgs)
    with pytest.raises(AssertionError, match=secret):
        check_no_leaks(fake, tid, 0)  # type: ignore[arg-type]

"""A table's `deals` counts scored deals (R3.3: annulled ones are still recorded; R2.4: the
dealer still rotates), and the `deal` request returns a finished deal's record to those who
may read it (interface 2 of TEAM.md)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from server.rules.records import replay_line
from tests.helpers_server import Client, autoplay, choose, create_table, running_server


def _pass_first_deal(c: Client, legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Everybody passes in deal 1 (R3.2); afterwards the first to speak takes a prise."""
    deal_no = max(
        (m["event"]["deal_no"] for m in c.msgs if m["type"] == "event"
         and m["event"]["type"] == "deal_start"),
        default=0,
    )  # fmt: skip
    if legal["bids"]:
        if deal_no == 1:
            return {"type": "bid", "contract": "pass"}
        return {"type": "bid", "contract": "prise" if "prise" in legal["bids"] else "pass"}
    return choose(legal, rng)


async def test_deals_counts_scored_deals_and_annulled_ones_are_dealt_again(
    tmp_path: Path,
) -> None:
    # Seeded: the first deal is not a petit sec (R3.1), which would annul it before the bidding
    # this test passes out (about one deal in 30 otherwise).
    async with running_server(tmp_path / "a.db", seed=5) as srv:
        clients = [await Client.connect(srv.port, f"p{i}") for i in range(4)]
        tid = await create_table(clients[0], deals=2)
        for i, c in enumerate(clients):
            await c.join(tid, seat=i)
        await asyncio.gather(
            *(
                autoplay(
                    c, tid, random.Random(i), lambda m: m["type"] == "event"
                    and m["event"]["type"] == "table_state" and m["event"]["state"] == "finished",
                    chooser=_pass_first_deal, timeout=60,
                )
                for i, c in enumerate(clients)
            )
        )  # fmt: skip
        evs = [m["event"] for m in clients[0].events(tid)]
        results = [e["result"] for e in evs if e["type"] == "deal_over"]
        starts = [e for e in evs if e["type"] == "deal_start"]
        assert results[0] == {"status": "annulled", "reason": "all_passed", "scores": [0] * 4}
        assert sum(r["status"] == "played" for r in results) == 2  # `deals` counts these
        assert results[-1]["status"] == "played"
        dealers = [s["dealer"] for s in starts]
        assert [(d - dealers[0]) % 4 for d in dealers] == list(range(len(dealers)))  # R2.4
        watcher = await Client.connect(srv.port, "watcher")
        await watcher.request({"type": "watch", "table": tid})
        _, snap = await watcher.wait_for(lambda m: m["type"] == "snapshot")
        assert snap["info"]["scored"] == 2 and snap["info"]["deal_no"] == len(starts)
        await watcher.close()
        # R3.3: the annulled deal is recorded too, and readable with `deal`
        r = await clients[1].request({"type": "deal", "table": tid, "deal_no": 1})
        assert r["type"] == "deal" and r["record"]["result"]["status"] == "annulled"
        for c in clients:
            await c.close()


async def test_deal_request_reads_records_within_the_access_rule(tmp_path: Path) -> None:
    async with running_server(tmp_path / "b.db") as srv:
        host = await Client.connect(srv.port, "host")
        other = await Client.connect(srv.port, "other")
        public = await create_table(host, deals=1, public=True)
        private = await create_table(host, deals=1, public=False)
        for tid in (public, private):
            await host.join(tid, seat=0)
            assert (await host.request({"type": "start", "table": tid}))["type"] == "ok"
            await autoplay(
                host, tid, random.Random(3),
                lambda m, t=tid: m["type"] == "event" and m["table"] == t
                and m["event"]["type"] == "scores",
            )  # fmt: skip
        # a public table's deal: anyone may read it, exactly as played
        r = await other.request({"type": "deal", "table": public, "deal_no": 1})
        assert r["type"] == "deal" and r["deal_no"] == 1 and r["table"] == public
        (over,) = [m["event"] for m in host.events(public) if m["event"]["type"] == "deal_over"]
        assert {k: v for k, v in r["record"].items() if k != "meta"} == over["record"]
        ok, result = replay_line(__import__("json").dumps(r["record"]))
        assert ok and result == over["result"]
        assert r["record"]["meta"]["players"][0] == "host"
        # a private table's deal: only from a seat there
        r = await other.request({"type": "deal", "table": private, "deal_no": 1})
        assert r["type"] == "error" and r["code"] == "no_such_deal"
        r = await host.request({"type": "deal", "table": private, "deal_no": 1})
        assert r["type"] == "deal"
        # unknown deals and tables
        for body in (
            {"table": public, "deal_no": 9},
            {"table": "nosuchtable", "deal_no": 1},
        ):
            r = await other.request({"type": "deal", **body})
            assert r["type"] == "error" and r["code"] == "no_such_deal", r
        r = await other.request({"type": "deal", "table": public, "deal_no": 0})
        assert r["type"] == "error" and r["code"] == "invalid_field"
        await host.close()
        await other.close()

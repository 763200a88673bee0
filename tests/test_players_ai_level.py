"""An AI level's profile and history (docs/PROTOCOL.md section 13) count what it played: its
seats are not rows of its account (one AI level may hold three seats of a deal), so they were
empty while its rating counted every rated deal."""

from __future__ import annotations

import random
from pathlib import Path

from helpers_server import Client, autoplay, create_table, deal_records, running_server

DEALS = 3


async def test_an_ai_level_has_the_deals_its_rating_counts(tmp_path: Path) -> None:
    async with running_server(tmp_path / "atout.db", seed=5) as srv:
        c = await Client.connect(srv.port, "Ann")
        tid = await create_table(c, deals=DEALS, ai="normal", think_delay=0)
        await c.join(tid, 0)
        await c.request({"type": "start", "table": tid})
        await autoplay(
            c,
            tid,
            random.Random(1),
            lambda m: (
                m["type"] == "event"
                and m["event"]["type"] == "table_state"
                and m["event"]["state"] == "finished"
            ),
            timeout=60,
        )
        await srv.reviews.idle()
        records = deal_records(c, tid)
        played = [n for n, r in records.items() if r["result"]["status"] == "played"]
        assert len(records) >= DEALS
        prof = (await c.request({"type": "player", "kind": "ai", "name": "normal"}))["player"]
        assert prof["kind"] == "ai" and prof["name"] == "normal"
        assert prof["deals"] == len(records) and prof["played"] == len(played)
        assert prof["rating"]["deals"] == len(played)  # three seats, one rated player
        # its seats: three a deal, so more seat figures than deals
        assert prof["taker"]["deals"] + prof["defender"]["deals"] == 3 * len(played)
        # the history: one row a deal (a public table), page by page without repeats
        seen: list[int] = []
        cursor = None
        while True:
            ask = {"type": "history", "kind": "ai", "name": "normal", "limit": 1}
            page = await c.request(ask if cursor is None else {**ask, "cursor": cursor})
            assert page["type"] == "history", page
            assert page["total"] == len(records)
            seen += [d["deal_no"] for d in page["deals"]]
            assert all(d["table"] == tid and d["seat"] in (1, 2, 3) for d in page["deals"])
            cursor = page["next"]
            if cursor is None:
                break
        assert sorted(seen) == sorted(records)
        await c.close()

"""The `deal` request widened to accounts (issue 12, TEAM.md interface 2): a private table's
deals are readable by the accounts that sat there, from any later connection logged in as them
(also once the table is closed), and by nobody else but the connections seated there; a guest
name proves nothing."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from helpers_server import Client, autoplay, create_table, running_server


async def _account(port: int, name: str) -> tuple[Client, str]:
    c = await Client.connect(port, name)
    r = await c.request({"type": "register", "name": name, "password": f"{name} secret"})
    assert r["type"] == "account", r
    return c, str(r["key"])


async def _as(port: int, key: str | None, name: str = "x") -> Client:
    c = await Client.connect(port, name, hello=False)
    hello: dict[str, Any] = {"type": "hello", "version": 1, "name": name}
    if key is not None:
        hello["key"] = key
    w = await c.request(hello)
    assert w["type"] == "welcome", w
    return c


async def test_a_private_tables_deals_are_readable_by_the_accounts_that_sat_there(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "d.db") as srv:
        ada, ada_key = await _account(srv.port, "Ada")
        _, bob_key = await _account(srv.port, "Bob")
        tid = await create_table(ada, deals=1, public=False)
        await ada.join(tid, seat=0)
        assert (await ada.request({"type": "start", "table": tid}))["type"] == "ok"
        await autoplay(
            ada, tid, random.Random(5),
            lambda m: m["type"] == "event" and m["table"] == tid
            and m["event"]["type"] == "scores",
        )  # fmt: skip
        ask = {"type": "deal", "table": tid, "deal_no": 1}
        assert (await ada.request(ask))["type"] == "deal"  # from the seat, as before
        # Ada on another device, not seated: she sat there, so she may read it
        ada2 = await _as(srv.port, ada_key)
        r = await ada2.request(ask)
        assert r["type"] == "deal" and r["record"]["meta"]["players"][0] == "Ada", r
        # another account, a guest under Ada's name, and a guest: no
        for c in (await _as(srv.port, bob_key), await _as(srv.port, None, "Ada")):
            r = await c.request(ask)
            assert r["type"] == "error" and r["code"] == "no_such_deal", r
            await c.close()
        # still readable by Ada once the table is closed and she left
        assert (await ada.request({"type": "close", "table": tid}))["type"] == "ok"
        assert (await ada.request({"type": "leave", "table": tid}))["type"] in ("ok", "error")
        r = await ada2.request(ask)
        assert r["type"] == "deal", r
        # after a logout the connection is a guest again: no more
        assert (await ada2.request({"type": "logout"}))["type"] == "ok"
        r = await ada2.request(ask)
        assert r["type"] == "error" and r["code"] == "no_such_deal", r
        await ada.close()
        await ada2.close()

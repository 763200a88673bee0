"""Record a real protocol transcript of one deal (used for docs/PROTOCOL.md).

    .venv/bin/python examples/transcript.py [--seed N] > transcript.md

Starts a table server in-process on a free port (AI think delay 0, reproducible deals from
``--seed``), connects one client that plays seat 0 against three AI, and prints every frame in
both directions, grouped by phase, as Markdown. The client plays simply: it bids ``garde`` when
it may, discards the required cards then the first choices, announces no chelem, shows a
poignée when offered, and plays its first legal card.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.client import connect

from server.app import Server
from server.lobby import Config


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(", ", ": "), ensure_ascii=False)


async def record(seed: int) -> list[tuple[str, dict[str, Any]]]:
    """(direction, message) for every frame of one deal, from hello to the end of the table."""
    server = Server(Config(port=0, think_delay=0, deal_pause=0, seed=seed), None)
    port = await server.start()
    out: list[tuple[str, dict[str, Any]]] = []
    try:
        async with connect(f"ws://127.0.0.1:{port}", subprotocols=["atout.v1"]) as ws:  # type: ignore[list-item]
            next_id = 0

            async def send(msg: dict[str, Any]) -> None:
                nonlocal next_id
                next_id += 1
                msg = {"type": msg["type"], "id": next_id, **msg}
                out.append(("C→S", msg))
                await ws.send(json.dumps(msg))

            async def recv() -> dict[str, Any]:
                msg = json.loads(await ws.recv())
                out.append(("S→C", msg))
                return msg

            await send({"type": "hello", "version": 1, "name": "Ada", "client": "transcript/1"})
            await recv()
            await send({"type": "create_table", "name": "Demo", "deals": 1, "think_delay": 0})
            table = (await recv())["table"]["table"]
            await send({"type": "join", "table": table, "seat": 0})
            await recv()  # joined
            await recv()  # snapshot
            await send({"type": "start", "table": table})
            while True:
                m = await recv()
                ev = m.get("event") or {}
                if ev.get("type") == "table_state" and ev["state"] == "finished":
                    break
                if m["type"] != "your_turn":
                    continue
                legal = m["legal"]
                if legal["bids"]:
                    action = {"contract": "garde" if "garde" in legal["bids"] else "pass"}
                    await send({"type": "bid", "table": table, **action})
                elif legal["discard"] is not None:
                    d = legal["discard"]
                    cards = d["required"] + d["choices"][: d["count"] - len(d["required"])]
                    await send({"type": "discard", "table": table, "cards": cards})
                elif legal["chelem"]:
                    await send({"type": "chelem", "table": table, "announce": False})
                elif legal["poignees"]:
                    opt = legal["poignees"][0]
                    await send({"type": "poignee", "table": table, "cards": opt["default"]})
                else:
                    await send({"type": "play", "table": table, "card": legal["plays"][0]})
    finally:
        await server.stop()
    return out


def phase_of(direction: str, m: dict[str, Any], state: dict[str, Any]) -> str:
    t = m["type"]
    if t in ("hello", "welcome"):
        return "Handshake"
    if t in ("create_table", "table_created"):
        return "Creating a table"
    if t in ("join", "joined", "snapshot"):
        return "Sitting down"
    ev = m.get("event", {}).get("type") if t == "event" else None
    if t == "start" or (ev == "table_state" and m["event"]["state"] == "playing"):
        state["phase"] = "Starting the table (empty seats become AI)"
    elif ev == "deal_start":
        state["phase"] = "The deal starts"
    elif ev == "bid" and state["phase"] != "Bidding (R4)":
        state["phase"] = "Bidding (R4)"
    elif ev in ("contract", "chien"):
        state["phase"] = "Contract and chien (R4.3, R5.1)"
    elif ev == "discard" or t == "discard":
        state["phase"] = "Discard (R5)"
    elif ev == "chelem" or t == "chelem":
        state["phase"] = "Chelem decision (R6.1)"
    elif (ev in ("play", "poignee") or t in ("play", "poignee")) and state["trick"] is None:
        state["trick"] = 1
        state["phase"] = "Trick 1 (R7)"
    elif ev == "trick":
        state["trick"] = m["event"]["number"] + 1
        state["after_trick"] = True
        return state["phase"]
    elif ev == "deal_over":
        state["phase"] = "The deal is over: result and full record"
    elif ev == "scores" or ev == "table_state":
        state["phase"] = "Scores, and the end of the table"
    if state.pop("after_trick", False) and state["trick"] <= 18 and ev != "deal_over":
        state["phase"] = f"Trick {state['trick']} (R7)"
    return str(state["phase"])


def markdown(frames: list[tuple[str, dict[str, Any]]]) -> str:
    lines: list[str] = []
    state: dict[str, Any] = {"phase": "", "trick": None}
    current = None
    for direction, m in frames:
        phase = phase_of(direction, m, state)
        if phase != current:
            if current is not None:
                lines.append("```")
                lines.append("")
            lines.append(f"#### {phase}")
            lines.append("")
            lines.append("```text")
            current = phase
        lines.append(f"{direction} {_compact(m)}")
    lines.append("```")
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()
    sys.stdout.write(markdown(asyncio.run(record(args.seed))))
    return 0


if __name__ == "__main__":
    sys.exit(main())

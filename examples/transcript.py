"""Record a real protocol transcript of one deal (used for docs/PROTOCOL.md).

    .venv/bin/python examples/transcript.py [--seed N] > transcript.md
    .venv/bin/python examples/transcript.py --seed 2 --update docs/PROTOCOL.md

Starts a table server in-process on a free port with the default options of
``atout-server serve`` (only ``--seed`` differs: it makes the deals reproducible), connects one
client that creates a one-deal table with AI think delay 0 and plays seat 0 against three random AI, and
prints every frame in both directions, grouped by phase, as Markdown. ``--update`` replaces the
transcript in section 12 of the given document instead (its hand-written introduction is kept). The client plays simply: it bids ``garde`` when
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

from server.config import Config
from server.net.app import Server


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(", ", ": "), ensure_ascii=False)


async def record(seed: int) -> list[tuple[str, dict[str, Any]]]:
    """(direction, message) for every frame of one deal, from hello to the end of the table."""
    # Server defaults (think delay 0.8 s, deal pause 3 s, ...), so that the options shown in
    # `table_created` are those the document gives as defaults; the table asks for think_delay 0.
    server = Server(Config(port=0, seed=seed), None)
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
            await send(
                {
                    "type": "create_table",
                    "name": "Demo",
                    "deals": 1,
                    "think_delay": 0,
                    "ai": "random",
                }
            )
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


NOTES = {
    "Handshake": (
        "The client offered the `atout.v1` subprotocol and says `hello`; the server answers with "
        "the version it will speak and its limits."
    ),
    "Creating a table": (
        "A one-deal table with AI think delay 0 and `random` AI (simple to follow; the default "
        "is `normal`); the options not given take the server's defaults (`deal_pause` 3 s, no "
        "turn timer). The answer also lists the AI levels to offer (`ai_levels`, as in "
        "`welcome`). Nobody sits yet: every seat is `empty`, with the AI level that will fill it."
    ),
    "Sitting down": (
        "`joined` carries the secret seat token. The new table was at version 0; Ada sitting "
        "down is its first event (`seat`, version 1), which Ada does not receive as an event: "
        "her snapshot is taken at version 1 and already shows her seat, the waiting table and "
        "no deal yet."
    ),
    "Starting the table (empty seats become AI)": (
        "`ok` answers `start`; then one `seat` event per seat that became AI and the "
        "`table_state` event. Versions go up by one per event."
    ),
    "The deal starts": (
        "Seat 2 deals, so seat 3 speaks first (`turn`: 3). Only Ada's own 18 cards are in "
        "`hand`; the other seats and spectators receive the same event with their own hand "
        "(`null` for spectators)."
    ),
    "Bidding (R4)": (
        "Seat 3 passes; Ada gets `your_turn` with every contract allowed, bids `garde`, and the "
        "others pass. Note that the `ok` comes before the event of Ada's own bid."
    ),
    "Contract and chien (R4.3, R5.1)": (
        "The bidding is over: Ada takes with a `garde`, so the chien is shown to everyone. Her "
        "`your_turn` now offers the discard: 6 cards, nothing required, chosen among her "
        "plain cards (no king, no trump needed here: R5.2, R5.3)."
    ),
    "Discard (R5)": (
        "Only the taker receives `cards`; the defenders' copy of this event has only `trumps` "
        "(empty here: no trump was discarded, R5.4). Then the chelem decision is due."
    ),
    "Chelem decision (R6.1)": (
        "No chelem: the first trick is led by the seat after the dealer, seat 3 (`leader`)."
    ),
    "Trick 1 (R7)": (
        "Seat 3 leads the king of diamonds; Ada must follow diamonds (or play the Excuse), which "
        "is exactly what `plays` lists. Each trick ends with a `trick` event naming its winner, "
        "who leads the next one."
    ),
    "Trick 18 (R7)": (
        "The last trick: after its `trick` event `turn` is `null`, the deal is over."
    ),
    "The deal is over: result and full record": (
        "`deal_over` reveals everything: the result (Ada needed 51 points with one oudler and "
        "made 38: the garde is lost, −76 per defender, R9, R10) and the complete "
        "`atout-deal/1` record, which `atout-server replay` accepts as is."
    ),
    "Scores, and the end of the table": (
        "This deal's scores and the cumulative ones; the table was configured for one deal, so "
        "it is now `finished` (it could be restarted or closed)."
    ),
}


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
            if phase in NOTES:
                lines.append(NOTES[phase])
                lines.append("")
            lines.append("```text")
            current = phase
        lines.append(f"{direction} {_compact(m)}")
    lines.append("```")
    return "\n".join(lines) + "\n"


_FIRST_HEADING = "#### Handshake"


def update(path: Path, transcript: str) -> None:
    """Replace the transcript of section 12 (from its first phase heading up to the next
    ``## `` section, or the end of the file) with ``transcript``."""
    text = path.read_text(encoding="utf-8")
    section = text.index("## 12. ")
    start = text.index(_FIRST_HEADING, section)
    end = text.find("\n## ", start)
    tail = "" if end < 0 else text[end:]
    path.write_text(text[:start] + transcript + tail, encoding="utf-8")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--update", type=Path, metavar="DOC", help="rewrite section 12 of DOC in place")
    args = p.parse_args()
    transcript = markdown(asyncio.run(record(args.seed)))
    if args.update is not None:
        update(args.update, transcript)
    else:
        sys.stdout.write(transcript)
    return 0


if __name__ == "__main__":
    sys.exit(main())

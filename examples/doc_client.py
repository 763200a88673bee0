"""A minimal Atout client written from docs/PROTOCOL.md alone.

It connects, says hello, creates a table whose three other seats are played by the
server's AI, sits down, starts the table and plays N deals for its seat by picking among
the legal actions the server sends with every ``your_turn``. It checks that every table
version arrives in order, prints each deal's result and exits 0 when the table is
finished.

    python examples/doc_client.py ws://127.0.0.1:8765 [--deals N] [--seed S] [--verbose]

Only the standard library and ``websockets`` are used; nothing of the project is
imported, on purpose: this file is the proof that the protocol document is enough.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import sys
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

PROTOCOL_VERSION = 1
SUBPROTOCOL = "atout.v1"


class ProtocolViolation(Exception):
    """The server did something the document says it never does."""


class DocClient:
    def __init__(self, ws: Any, *, deals: int, seed: int | None, verbose: bool, ai: str) -> None:
        self.ws = ws
        self.deals = deals
        self.rng = random.Random(seed)
        self.verbose = verbose
        self.ai = ai
        self._ids = itertools.count(1)
        self.table: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.v: int | None = None  # last table version received
        self.pending: dict[Any, dict[str, Any]] = {}  # request id -> request
        self.action_in_flight: Any = None  # id of the action awaiting its answer
        self.last_prompt: dict[str, Any] | None = None
        self.results: list[dict[str, Any]] = []
        self.totals: list[float] | None = None
        self.state: str | None = None
        # Client-side token bucket matching welcome.limits (section 8), so that a fast
        # client (think_delay 0) never gets rate_limited.
        self.rate = 100.0
        self.burst = 200.0
        self.tokens = 200.0
        self.refilled = 0.0
        self.rate_limited = 0
        self.counts = {
            "bid": 0,
            "discard": 0,
            "chelem": 0,
            "poignee": 0,
            "poignee_declined": 0,
            "play": 0,
        }

    # -- transport -------------------------------------------------------------------

    def log(self, direction: str, msg: Any) -> None:
        if self.verbose:
            text = msg if isinstance(msg, str) else json.dumps(msg)
            print(f"{direction} {text}", file=sys.stderr)

    async def send(self, msg: dict[str, Any]) -> Any:
        msg = {
            "type": msg["type"],
            "id": next(self._ids),
            **{k: v for k, v in msg.items() if k != "type"},
        }
        self.pending[msg["id"]] = msg
        await self.pace()
        self.log("C→S", msg)
        await self.ws.send(json.dumps(msg))
        return msg["id"]

    async def pace(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        self.tokens = min(self.burst, self.tokens + (now - self.refilled) * self.rate)
        self.refilled = now
        if self.tokens < 1.0:
            await asyncio.sleep((1.0 - self.tokens) / self.rate)
            self.refilled = loop.time()
            self.tokens = 1.0
        self.tokens -= 1.0

    async def recv(self) -> dict[str, Any]:
        raw = await self.ws.recv()
        if not isinstance(raw, str):
            raise ProtocolViolation("server sent a binary frame")
        self.log("S→C", raw)
        msg = json.loads(raw)
        if not isinstance(msg, dict):
            raise ProtocolViolation(f"server sent a non-object: {raw[:80]}")
        return msg

    async def request(self, msg: dict[str, Any], expect: str) -> dict[str, Any]:
        """Send a request and wait for its answer, handling pushed messages meanwhile."""
        rid = await self.send(msg)
        while True:
            answer = await self.recv()
            if answer.get("id") == rid and answer.get("type") in (expect, "error"):
                self.pending.pop(rid, None)
                if answer["type"] == "error":
                    raise ProtocolViolation(
                        f"{msg['type']} refused: {answer.get('code')}: {answer.get('message')}"
                    )
                return answer
            await self.handle(answer)

    # -- lobby -----------------------------------------------------------------------

    async def setup(self) -> None:
        welcome = await self.request(
            {
                "type": "hello",
                "version": PROTOCOL_VERSION,
                "name": "DocClient",
                "client": "doc-client/1",
            },
            "welcome",
        )
        limits = welcome.get("limits") or {}
        # Keep a small margin under the server's bucket.
        self.rate = 0.9 * float(limits.get("rate_per_second", self.rate))
        self.burst = max(1.0, float(limits.get("burst", self.burst)) - 10.0)
        self.tokens = min(self.tokens, self.burst)
        if welcome.get("version") != PROTOCOL_VERSION:
            raise ProtocolViolation(f"server speaks version {welcome.get('version')}")
        print(
            f"connected to {welcome.get('server')} session {welcome.get('session')} "
            f"subprotocol {welcome.get('subprotocol')}"
        )
        created = await self.request(
            {
                "type": "create_table",
                "name": "doc client",
                "public": False,
                "deals": self.deals,
                "ai": self.ai,
                "think_delay": 0,
                "deal_pause": 0,
            },
            "table_created",
        )
        info = created["table"]
        self.table = info["table"]
        if info.get("state") != "waiting":
            raise ProtocolViolation(f"new table is {info.get('state')}, not waiting")
        joined = await self.request({"type": "join", "table": self.table, "seat": 0}, "joined")
        self.seat, self.token = joined["seat"], joined["token"]
        print(f"table {self.table}: seated at {self.seat}")
        await self.request({"type": "start", "table": self.table}, "ok")

    # -- the table stream ------------------------------------------------------------

    async def handle(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "snapshot":
            if msg.get("table") != self.table:
                return
            self.v = msg["v"]
            self.last_prompt = None
        elif kind == "event":
            if msg.get("table") != self.table:
                return
            v = msg["v"]
            if self.v is not None and v != self.v + 1:
                raise ProtocolViolation(f"version gap: had {self.v}, got {v}")
            self.v = v
            await self.on_event(msg["event"], msg.get("turn"))
        elif kind == "your_turn":
            if msg.get("table") == self.table:
                await self.on_your_turn(msg)
        elif kind == "ok" or kind == "error":
            request = self.pending.pop(msg.get("id"), None)
            if msg.get("id") == self.action_in_flight:
                self.action_in_flight = None
                if kind == "error" and msg.get("code") == "rate_limited" and request is not None:
                    # Not processed: wait a little and send the same action again.
                    self.rate_limited += 1
                    await asyncio.sleep(0.5)
                    resend = {k: v for k, v in request.items() if k != "id"}
                    self.action_in_flight = await self.send(resend)
                elif kind == "error":
                    print(
                        f"action {request} refused: {msg.get('code')} {msg.get('rule')} {msg.get('message')}"
                    )
                    if (
                        msg.get("code") in ("illegal_action", "invalid_field")
                        and self.last_prompt is not None
                    ):
                        # Nothing changed and the prompt still holds (section 6): retry plainly.
                        await self.act(self.last_prompt, plain=True)
                    else:
                        # not_your_turn, wrong_phase, ...: the prompt is stale; wait for the next one.
                        self.last_prompt = None
            elif kind == "error":
                raise ProtocolViolation(f"request {request} refused: {msg}")
        # Unknown message types are ignored (section 10).

    async def on_event(self, event: dict[str, Any], turn: int | None) -> None:
        etype = event.get("type")
        if etype == "deal_start":
            hand = event.get("hand") or []
            print(
                f"deal {event.get('deal_no')}: dealer {event.get('dealer')}, my hand {' '.join(hand)}"
            )
        elif etype == "contract":
            print(f"  contract: seat {event.get('taker')} {event.get('contract')}")
        elif etype == "poignee":
            print(f"  seat {event.get('seat')} shows a {event.get('level')} poignée")
        elif etype == "deal_over":
            result = event["result"]
            record = event.get("record") or {}
            if record.get("format") != "atout-deal/1":
                raise ProtocolViolation(f"unexpected record format {record.get('format')}")
            self.results.append(result)
            print(f"  RESULT {json.dumps(result, sort_keys=True)}")
        elif etype == "scores":
            self.totals = event.get("total")
            print(f"  scores: deal {event.get('deal')} total {self.totals}")
        elif etype == "table_state":
            state = event.get("state")
            print(f"table {state}{' (' + event['reason'] + ')' if event.get('reason') else ''}")
            self.state = state
        # bid, chien, discard, chelem, play, trick, seat, hidden and unknown events: only
        # their version matters to this client (its hand comes with every your_turn).

    # -- decisions -------------------------------------------------------------------

    async def on_your_turn(self, prompt: dict[str, Any]) -> None:
        if prompt.get("v") != self.v:
            # A prompt is valid at the version of the event just before it (section 6).
            raise ProtocolViolation(
                f"your_turn at v {prompt.get('v')} but the table is at {self.v}"
            )
        if prompt.get("seat") != self.seat:
            raise ProtocolViolation(f"your_turn for seat {prompt.get('seat')}")
        self.last_prompt = prompt
        if self.action_in_flight is not None:
            raise ProtocolViolation("your_turn while an action is still unanswered")
        await self.act(prompt)

    async def act(self, prompt: dict[str, Any], *, plain: bool = False) -> None:
        legal = prompt["legal"]
        phase = legal.get("phase")
        base = {"table": self.table}
        rng = self.rng
        if legal.get("bids"):
            bids = legal["bids"]
            # Mostly prise/garde when still possible (so that chien and discard happen), now
            # and then a higher contract, else pass.
            low = [b for b in bids if b in ("prise", "garde")]
            high = [b for b in bids if b in ("garde_sans", "garde_contre")]
            roll = rng.random()
            if plain:
                choice = bids[0]
            elif low and roll < 0.6:
                choice = rng.choice(low)
            elif high and roll < 0.7:
                choice = rng.choice(high)
            else:
                choice = bids[0]
            msg = {"type": "bid", **base, "contract": choice}
            self.counts["bid"] += 1
        elif legal.get("discard"):
            d = legal["discard"]
            required = list(d["required"])
            others = [c for c in d["choices"] if c not in required]
            need = d["count"] - len(required)
            picked = others[:need] if plain else rng.sample(others, need)
            msg = {"type": "discard", **base, "cards": required + picked}
            self.counts["discard"] += 1
        elif legal.get("chelem"):
            msg = {"type": "chelem", **base, "announce": (not plain) and rng.random() < 0.1}
            self.counts["chelem"] += 1
        elif legal.get("plays"):
            offers = legal.get("poignees") or []
            if offers and not plain and rng.random() < 0.7:
                offer = rng.choice(offers)
                msg = {"type": "poignee", **base, "cards": self.poignee_cards(offer)}
                self.counts["poignee"] += 1
            else:
                if offers:
                    self.counts["poignee_declined"] += 1
                card = legal["plays"][0] if plain else rng.choice(legal["plays"])
                msg = {"type": "play", **base, "card": card}
                self.counts["play"] += 1
        else:
            raise ProtocolViolation(f"your_turn in phase {phase} offers nothing: {legal}")
        self.action_in_flight = await self.send(msg)

    def poignee_cards(self, offer: dict[str, Any]) -> list[str]:
        """The default set, or another valid set: `size` trumps taken from `eligible` (R6.4)."""
        size = offer["size"]
        trumps = [c for c in offer["eligible"] if c.startswith("T")]
        if len(trumps) >= size and self.rng.random() < 0.5:
            return self.rng.sample(trumps, size)
        return list(offer["default"])

    # -- main loop -------------------------------------------------------------------

    async def run(self) -> None:
        await self.setup()
        while self.state not in ("finished", "closed"):
            await self.handle(await self.recv())
        if self.state == "closed":
            raise ProtocolViolation("the table was closed before it finished")
        # `deals` counts scored deals: annulled ones (R3) are dealt again (section 4).
        scored = sum(1 for r in self.results if r.get("status") == "played")
        if scored != self.deals or self.results[-1].get("status") != "played":
            raise ProtocolViolation(
                f"table finished after {scored} scored deals, expected {self.deals}"
            )
        # The creator may close a finished table; everyone there then gets a table_state
        # `closed` event (section 4).
        await self.request({"type": "close", "table": self.table}, "ok")
        while self.state != "closed":
            await self.handle(await self.recv())
        print(
            f"FINAL deals={len(self.results)} totals={self.totals} last_v={self.v} "
            f"actions={self.counts} rate_limited={self.rate_limited}"
        )


async def main_async(args: argparse.Namespace) -> int:
    async with connect(
        args.url, subprotocols=[SUBPROTOCOL], max_size=16 * 2**20, open_timeout=10
    ) as ws:
        client = DocClient(ws, deals=args.deals, seed=args.seed, verbose=args.verbose, ai=args.ai)
        await asyncio.wait_for(client.run(), timeout=args.timeout)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="server URL, e.g. ws://127.0.0.1:8765")
    parser.add_argument("--deals", type=int, default=1, help="deals to play (1..1000)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random choices")
    parser.add_argument("--ai", default="random", help="AI level of the three other seats")
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="give up after this many seconds"
    )
    parser.add_argument("--verbose", action="store_true", help="print every message on stderr")
    args = parser.parse_args(argv)
    try:
        return asyncio.run(main_async(args))
    except (ProtocolViolation, WebSocketException, TimeoutError, OSError) as exc:
        print(f"doc_client: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

"""Helpers for the table-server tests: a server on a free port, a recording client, a random
player driven by ``your_turn`` prompts, and an independent information-leak oracle.

Every frame a :class:`Client` receives is kept (``client.frames``) and decoded with the
protocol's typed server decoder, so any frame that does not match ``protocol/messages.py`` fails
the test that received it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import re
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

import protocol.messages as P
from server.config import Config
from server.net.app import Server
from server.rules.cards import CODES

CARD_CODES = frozenset(CODES)
TIMEOUT = 10.0


@asynccontextmanager
async def running_server(
    db: Path | str | None = None, *, ai_failures: bool = False, **overrides: Any
) -> AsyncIterator[Server]:
    """A server on 127.0.0.1 with a free port; AI and pauses at 0 unless overridden, and no
    limit on tables of bots only (tests run many from one address; tests of those limits set
    them).

    ``db``: a SQLite path for the real AsyncStore (None: no store). A table plays a random move
    for an AI seat whose bot raised or chose an illegal action, and logs it: the test fails
    then, unless it expects it (``ai_failures=True``)."""
    from server.store.aio import AsyncStore

    settings: dict[str, Any] = {
        "port": 0,
        "think_delay": 0.0,
        "deal_pause": 0.0,
        "ai_share": 0.0,
        "max_bot_tables": 1000,
    }
    settings.update(overrides)
    store = AsyncStore(str(db)) if db is not None else None
    server = Server(Config(**settings), store)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
    if not ai_failures:
        check_no_ai_failures(server)


def check_no_ai_failures(server: Server) -> None:
    """No AI move of ``server`` was played at random because its bot raised or chose an illegal
    action (a table logs it and plays on, so a test would not see it otherwise)."""
    assert server.metrics.ai_failures == {"error": 0, "illegal": 0}, (
        "an AI seat's bot raised or chose an illegal action (its traceback is in the log)"
    )


class Client:
    """A test client that records every frame it receives (in order)."""

    def __init__(self, ws: ClientConnection, name: str) -> None:
        self.ws = ws
        self.name = name
        self.frames: list[str] = []  # raw text of every frame received
        self.msgs: list[dict[str, Any]] = []
        self.decode_errors: list[str] = []
        self._new = asyncio.Event()
        self._ids = itertools.count(1)
        self.closed_code: int | None = None
        self._reader = asyncio.get_running_loop().create_task(self._read())
        self.seat: int | None = None
        self.token: str | None = None
        self.play_cursor = 0  # autoplay resumes reading here

    @classmethod
    async def connect(
        cls, port: int, name: str = "tester", *, hello: bool = True, subprotocol: bool = True
    ) -> Client:
        ws = await connect(
            f"ws://127.0.0.1:{port}",
            subprotocols=["atout.v1"] if subprotocol else None,  # type: ignore[list-item]
            max_size=None,
            open_timeout=TIMEOUT,
        )
        c = cls(ws, name)
        if hello:
            w = await c.request({"type": "hello", "version": 1, "name": name})
            assert w["type"] == "welcome", w
        return c

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                assert isinstance(frame, str), "the server sends text frames only"
                self.frames.append(frame)
                try:
                    P.decode_server(frame)
                except msgspec.ValidationError as e:
                    self.decode_errors.append(f"{e}: {frame[:300]}")
                self.msgs.append(json.loads(frame))
                self._new.set()
        except ConnectionClosed:
            pass
        finally:
            self.closed_code = self.ws.close_code
            self._new.set()

    @property
    def is_closed(self) -> bool:
        return self._reader.done()

    async def close(self) -> None:
        await self.ws.close()
        await self._reader

    async def send(self, obj: dict[str, Any]) -> Any:
        """Send a request (an ``id`` is added if missing); returns its id."""
        if "id" not in obj:
            obj = {**obj, "id": next(self._ids)}
        await self.ws.send(json.dumps(obj))
        return obj["id"]

    async def send_raw(self, data: str | bytes) -> None:
        await self.ws.send(data)

    async def wait_for(
        self, pred: Callable[[dict[str, Any]], bool], start: int = 0, timeout: float = TIMEOUT
    ) -> tuple[int, dict[str, Any]]:
        """The first message at index >= start matching pred (waiting for it)."""
        i = start
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            while i < len(self.msgs):
                if pred(self.msgs[i]):
                    return i, self.msgs[i]
                i += 1
            if self.is_closed:
                raise AssertionError(f"{self.name}: closed ({self.closed_code}) while waiting")
            self._new.clear()
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"{self.name}: timed out; last: {self.msgs[-3:]}")
            with suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), left)

    async def answer(self, rid: Any, start: int = 0) -> dict[str, Any]:
        """The answer (result or error) to request ``rid``."""
        _, m = await self.wait_for(lambda m: m.get("id") == rid and "id" in m, start)
        return m

    async def request(self, obj: dict[str, Any]) -> dict[str, Any]:
        start = len(self.msgs)
        rid = await self.send(obj)
        return await self.answer(rid, start)

    def answers_to(self, rid: Any) -> list[dict[str, Any]]:
        return [m for m in self.msgs if m.get("id") == rid and m["type"] != "event"]

    def events(self, table: str | None = None) -> list[dict[str, Any]]:
        return [
            m for m in self.msgs if m["type"] == "event" and (table is None or m["table"] == table)
        ]

    async def join(self, table: str, seat: int | None = None) -> dict[str, Any]:
        r = await self.request({"type": "join", "table": table, "seat": seat})
        assert r["type"] == "joined", r
        self.seat, self.token = r["seat"], r["token"]
        return r


async def create_table(c: Client, **options: Any) -> str:
    # Random AI unless the test asks for a level: its bids rarely pass a deal out, so a table of
    # N deals deals about N times (the server's default level, `normal`, passes hands it would
    # lose, and every annulled deal is dealt again).
    options.setdefault("ai", "random")
    r = await c.request({"type": "create_table", **options})
    assert r["type"] == "table_created", r
    return str(r["table"]["table"])


def choose(
    legal: dict[str, Any], rng: random.Random, poignee_chance: float = 0.3
) -> dict[str, Any]:
    """A random legal action from a ``legal`` object, using only what the protocol says."""
    if legal["plays"]:
        if legal["poignees"] and rng.random() < poignee_chance:
            return {"type": "poignee", "cards": rng.choice(legal["poignees"])["default"]}
        return {"type": "play", "card": rng.choice(legal["plays"])}
    if legal["bids"]:
        return {"type": "bid", "contract": rng.choice(legal["bids"])}
    if legal["discard"] is not None:
        d = legal["discard"]
        rest = rng.sample(d["choices"], d["count"] - len(d["required"]))
        return {"type": "discard", "cards": d["required"] + rest}
    assert legal["chelem"], legal
    return {"type": "chelem", "announce": rng.random() < 0.05}


async def autoplay(
    c: Client,
    table: str,
    rng: random.Random,
    until: Callable[[dict[str, Any]], bool],
    *,
    timeout: float = 30.0,
    on_msg: Callable[[Client, dict[str, Any]], Any] | None = None,
    chooser: Callable[[Client, dict[str, Any], random.Random], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Answer every ``your_turn`` of ``table`` with a random legal action until a message
    matches ``until``; returns that message. Fails on any error answer."""
    i = c.play_cursor
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        i, m = await c.wait_for(lambda _m: True, i, timeout=max(0.1, deadline - loop.time()))
        i += 1
        c.play_cursor = i
        if on_msg is not None:
            await on_msg(c, m)
        if m["type"] == "error":
            raise AssertionError(f"{c.name}: unexpected error {m}")
        if m["type"] == "your_turn" and m["table"] == table:
            action = chooser(c, m["legal"], rng) if chooser else choose(m["legal"], rng)
            await c.send({**action, "table": table})
        if until(m):
            return m


def is_event(event_type: str, /, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    def pred(m: dict[str, Any]) -> bool:
        if m["type"] != "event" or m["event"]["type"] != event_type:
            return False
        return all(m["event"].get(k) == v for k, v in fields.items())

    return pred


def table_finished(m: dict[str, Any]) -> bool:
    return is_event("table_state", state="finished")(m)


# ------------------------------------------------------------------------ version checks


def check_versions(c: Client, table: str) -> None:
    """Events of ``table`` numbered +1 each, no gap, none repeated; snapshots fit in."""
    last: int | None = None
    for m in c.msgs:
        if m.get("table") != table:
            continue
        if m["type"] == "snapshot":
            assert last is None or m["v"] >= last, (last, m["v"])
            last = m["v"]
        elif m["type"] == "event":
            if last is not None:
                assert m["v"] == last + 1, f"{c.name}: v {m['v']} after {last}"
            last = m["v"]


# ------------------------------------------------------------------------ the leak oracle

_CODE_RE = re.compile(r'"((?:[SHDC](?:10|[1-9JCQK]))|T(?:1[0-9]|2[01]|[1-9])|EX)"')


def cards_in(frame: str) -> set[str]:
    """Every card code appearing as a JSON string in a frame."""
    return set(_CODE_RE.findall(frame)) & CARD_CODES


def known_cards(record: dict[str, Any], seat: int | None, k: int) -> set[str]:
    """What ``seat`` (None: a spectator) may know after the first ``k`` actions of a deal,
    computed from RULES.md independently of server/rules/views.py."""
    known: set[str] = set()
    if seat is not None:
        known |= set(record["hands"][seat])
    bids = 0
    taker = None
    best = 0
    order = ["pass", "prise", "garde", "garde_sans", "garde_contre"]
    for a in record["actions"][:k]:
        t = a["type"]
        if t == "bid":
            bids += 1
            if a["contract"] != "pass":
                taker, best = a["seat"], order.index(a["contract"])
            if bids == 4 and taker is not None and best <= 2:
                known |= set(record["chien"])  # R5.1: shown to everyone
        elif t == "discard":
            known |= {c for c in a["cards"] if c.startswith("T")}  # R5.4
            if seat == a["seat"]:
                known |= set(a["cards"])
        elif t == "poignee":
            known |= set(a["cards"])  # R6.7
        elif t == "play":
            known.add(a["card"])
    return known


def actions_in_view(deal: dict[str, Any] | None) -> int:
    """How many record actions a snapshot's deal view reflects."""
    if deal is None:
        return 0
    n = len(deal["bids"])
    discarded = deal["contract"] in ("prise", "garde") and deal["phase"] not in (
        "bidding",
        "discard",
    )
    if deal["taker"] is not None and discarded:
        n += 1  # the discard
    if deal["chelem_announced"] is not None:
        n += 1
    n += len(deal["poignees"])
    n += 4 * len(deal["tricks"])
    if deal["trick"] is not None:
        n += len(deal["trick"]["cards"])
    return n


_ACTION_EVENTS = frozenset({"bid", "discard", "chelem", "poignee", "play"})


def deal_records(c: Client, table: str) -> dict[int, dict[str, Any]]:
    """deal_no -> the record revealed by ``deal_over``, as seen by ``c``."""
    out: dict[int, dict[str, Any]] = {}
    deal_no = 0
    for m in c.msgs:
        if m.get("table") != table:
            continue
        if m["type"] == "snapshot":
            deal_no = m["info"]["deal_no"]
            continue
        if m["type"] != "event":
            continue
        ev = m["event"]
        if ev["type"] == "deal_start":
            deal_no = ev["deal_no"]
        elif ev["type"] == "deal_over":
            out[deal_no] = ev["record"]
    return out


def check_no_leaks(
    c: Client, table: str, seat: int | None, records: dict[int, dict[str, Any]] | None = None
) -> int:
    """Check every frame ``c`` received for ``table`` against what ``seat`` may know at that
    moment; returns the number of deals checked. A deal's frames are checked against its
    record (from this connection's ``deal_over`` or from ``records``); frames between a
    ``deal_over`` and the next ``deal_start`` may show everything. Fails if a deal's frames
    cannot be checked for want of its record."""
    known_records = dict(records or {})
    known_records.update(deal_records(c, table))
    pending: dict[int, list[tuple[str, int]]] = {}  # deal_no -> (frame, actions known then)
    k = 0
    deal_no = 0
    in_deal = False
    for frame, m in zip(c.frames, c.msgs, strict=True):
        if m.get("table") not in (table, None):
            continue
        t = m["type"]
        if t == "snapshot":
            deal = m["deal"]
            deal_no = m["info"]["deal_no"]
            in_deal = deal is not None and deal["phase"] != "over"
            k = actions_in_view(deal)
        elif t == "event":
            et = m["event"]["type"]
            if et == "deal_start":
                in_deal, k, deal_no = True, 0, m["event"]["deal_no"]
            elif et == "deal_over":
                in_deal = False
            elif et in _ACTION_EVENTS:
                k += 1
        if in_deal:
            pending.setdefault(deal_no, []).append((frame, k))
    for no, frames in pending.items():
        assert no in known_records, f"{c.name}: no record to check deal {no} against"
        record = known_records[no]
        for f, kk in frames:
            leaked = cards_in(f) - known_cards(record, seat, kk)
            assert not leaked, f"{c.name} (seat {seat}) saw {sorted(leaked)} in {f[:400]}"
    return len(pending)


#: pids of the server processes the running test started (see kill_leftovers, conftest.py)
STARTED: list[int] = []


def kill_leftovers(pids: list[int]) -> None:
    """SIGKILL the server processes of ``pids`` that still run, and forget them: for a test's
    teardown, so that a test failing half-way does not leave its servers running (eight did,
    for over an hour, after one failed run). Only a live ``server.cli`` process is signalled,
    never a process that took the number of one that ended."""
    while pids:
        pid = pids.pop()
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:  # gone (or no /proc: nothing to check against, so leave it)
            continue
        if b"server.cli" in cmdline:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

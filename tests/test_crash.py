"""Crash safety, end to end: the real server in its own process is killed with SIGKILL in the
middle of deals (during bidding, right after a discard, mid-trick), restarted on the same
database, and the players reconnect with their tokens and finish. Then the stored records must be
exactly the deals that were played (what every client saw accepted, in order; each deal once)
and the scores must add up.

Three tables play at once: A (one human, three AI, 3 deals), B (four humans, 3 deals: the first
to speak takes a prise, so a human discards) and C (two humans, two AI, 2 deals). Humans act by
a seeded random policy over what the protocol offers (``legal``). The server runs with JSON logs
at debug level; they must never contain a seat token.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from helpers_server import STARTED, Client, actions_in_view, choose, create_table
from websockets.exceptions import ConnectionClosed

from server.store import open_store as Store

SERVER = [sys.executable, "-m", "server.cli"]
LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)")
ACTIONS = frozenset({"bid", "discard", "chelem", "poignee", "play"})


class ServerProcess:
    """``atout-server serve`` as a child process; its log lines are kept (``self.lines``)."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.lines: list[str] = []
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> int:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
        self.proc = await asyncio.create_subprocess_exec(
            *SERVER,
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--db",
            str(self.db),
            "--think-delay",
            "0",
            "--deal-pause",
            "0",
            "--absent-wait",
            "30",  # the humans come back long before: they play every one of their turns
            "--grace",
            "60",
            "--log-format",
            "json",
            "--log-level",
            "debug",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        STARTED.append(self.proc.pid)
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read(port))
        self.port = await asyncio.wait_for(port, 20)
        return self.port

    async def _read(self, port: asyncio.Future[int]) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        async for raw in self.proc.stderr:
            line = raw.decode().rstrip("\n")
            self.lines.append(line)
            m = LISTENING.search(line)
            if m and not port.done():
                port.set_result(int(m.group(1)))
        if not port.done():
            port.set_exception(RuntimeError("the server exited:\n" + "\n".join(self.lines)))

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        assert await self.proc.wait() == -signal.SIGKILL
        if self._reader is not None:
            await self._reader

    async def stop(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(self.proc.wait(), 20) == 0
        if self._reader is not None:
            await self._reader


def key(a: dict[str, Any]) -> tuple[Any, ...]:
    """An action as every seat sees it, from a record entry or an event."""
    t = a["type"]
    if t == "bid":
        return (t, a["seat"], a["contract"])
    if t == "discard":
        return (t, a["seat"])
    if t == "chelem":
        return (t, a["seat"], a["announce"])
    if t == "poignee":
        return (t, a["seat"], sorted(a["cards"]))
    return (t, a["seat"], a["card"])


class Player:
    """A human seat played by a seeded policy, across connections (server restarts)."""

    def __init__(self, name: str, seed: int, policy: Callable[..., dict[str, Any]]) -> None:
        self.name = name
        self.rng = random.Random(seed)
        self.policy = policy
        self.c: Client | None = None
        self.clients: list[Client] = []
        self.table = ""
        self.seat = -1
        self.token = ""
        self.cursor = 0
        self.last_v: int | None = None
        self.deal_no = 0
        self.trick_cards = 0  # cards on the table in the trick in progress
        self.bids = 0  # bids made in the deal in progress
        self.tricks = 0  # tricks played in the deal in progress
        # segments of actions seen, each (deal_no, index of its first action, [keys])
        self.segments: list[tuple[int, int, list[tuple[Any, ...]]]] = []
        self.accepted: list[tuple[int, dict[str, Any]]] = []  # (deal_no, action) answered ok
        self.finished = False
        self.unseen_end = False  # the table finished while the server was down
        self.last_total: list[Any] | None = None

    async def connect(self, port: int) -> None:
        self.c = await Client.connect(port, self.name)
        self.clients.append(self.c)

    async def reconnect(self, port: int) -> None:
        c = await Client.connect(port, self.name, hello=False)
        self.c = c
        self.clients.append(c)
        self.cursor = 0
        hello = {"type": "hello", "version": 1, "name": self.name, "token": self.token}
        w = await c.request({**hello, "v": self.last_v})
        if w.get("code") == "bad_token":
            # its last deal ended as the server was killed: a finished table is not rebuilt
            # (the records show whether the series really was over)
            self.finished = self.unseen_end = True
            return
        assert w["type"] == "welcome", w
        assert w["resumed"] == {"table": self.table, "seat": self.seat}

    def _track(self, m: dict[str, Any]) -> None:
        if m.get("table") != self.table:
            return
        if m["type"] == "snapshot":
            # After a restart the missed events are gone: a snapshot, never going back in v.
            assert self.last_v is None or m["v"] > self.last_v, (self.name, self.last_v, m["v"])
            self.last_v = m["v"]
            self.deal_no = m["info"]["deal_no"]
            self.finished = m["info"]["state"] == "finished"
            self.last_total = m["info"]["scores"]
            deal = m["deal"]
            self.trick_cards = len(deal["trick"]["cards"]) if deal and deal["trick"] else 0
            self.bids = len(deal["bids"]) if deal else 0
            self.tricks = len(deal["tricks"]) if deal else 0
            self.segments.append((self.deal_no, actions_in_view(deal), []))
        elif m["type"] == "event":
            assert self.last_v is not None and m["v"] == self.last_v + 1, (self.name, m)
            self.last_v = m["v"]
            ev = m["event"]
            t = ev["type"]
            if t == "deal_start":
                self.deal_no = ev["deal_no"]
                self.trick_cards = self.bids = self.tricks = 0
                self.segments.append((self.deal_no, 0, []))
            elif t in ACTIONS:
                self.segments[-1][2].append(key(ev))
                if t == "play":
                    self.trick_cards += 1
                elif t == "bid":
                    self.bids += 1
            elif t == "trick":
                self.trick_cards = 0
                self.tricks += 1
            elif t == "scores":
                self.last_total = ev["total"]
            elif t == "table_state" and ev["state"] == "finished":
                self.finished = True

    async def play(self, on_ok: Callable[[Player, dict[str, Any], dict[str, Any]], bool]) -> str:
        """Answer every your_turn until the table finishes ("finished"), the connection drops
        ("closed"), or ``on_ok`` asks for the server to be killed now ("kill")."""
        c = self.c
        assert c is not None
        try:
            while not self.finished:
                i, m = await c.wait_for(lambda _m: True, self.cursor, timeout=20)
                self.cursor = i + 1
                if m["type"] == "error":
                    raise AssertionError(f"{self.name}: unexpected error {m}")
                self._track(m)
                if m["type"] != "your_turn" or m["table"] != self.table:
                    continue
                before = {"trick_cards": self.trick_cards, "bids": self.bids, "tricks": self.tricks}
                action = self.policy(self, m["legal"])
                start = len(c.msgs)
                rid = await c.send({**action, "table": self.table})
                _, answer = await c.wait_for(
                    lambda a, rid=rid: a.get("id") == rid, start, timeout=20
                )
                assert answer["type"] == "ok", (self.name, action, answer)
                self.accepted.append((self.deal_no, {**action, "seat": self.seat}))
                if on_ok(self, action, before):
                    return "kill"
        except (AssertionError, ConnectionClosed) as e:
            if c.is_closed or isinstance(e, ConnectionClosed):
                return "closed"
            raise AssertionError(f"{self.name}: {e}") from e
        return "finished"


def random_policy(p: Player, legal: dict[str, Any]) -> dict[str, Any]:
    return choose(legal, p.rng, poignee_chance=0.5)


def prise_policy(p: Player, legal: dict[str, Any]) -> dict[str, Any]:
    """Table B: the first to speak takes a prise, the others pass; then at random."""
    if legal["bids"]:
        return {"type": "bid", "contract": "prise" if p.bids == 0 else "pass"}
    return random_policy(p, legal)


# The moments to kill at, in turn: each is checked when a human's action is answered ok.
def during_bidding(p: Player, action: dict[str, Any], before: dict[str, Any]) -> bool:
    return action["type"] == "bid" and before["bids"] < 3  # more bids to come


def after_a_discard(p: Player, action: dict[str, Any], before: dict[str, Any]) -> bool:
    return action["type"] == "discard" and p.deal_no >= 2


def mid_trick(p: Player, action: dict[str, Any], before: dict[str, Any]) -> bool:
    # the trick goes on, late in a deal
    return action["type"] == "play" and before["trick_cards"] < 3 and before["tricks"] >= 8


async def _set_up(port: int) -> tuple[dict[str, str], list[Player]]:
    a = Player("ann", 1, random_policy)
    b = [Player(n, 10 + i, prise_policy) for i, n in enumerate(("bea", "bob", "bud", "bil"))]
    c = [Player("cat", 20, random_policy), Player("cid", 21, random_policy)]
    players = [a, *b, *c]
    for p in players:
        await p.connect(port)
    tables = {
        "A": await create_table(_c(a), name="A", deals=3),
        "B": await create_table(_c(b[0]), name="B", deals=3),
        "C": await create_table(_c(c[0]), name="C", deals=2, ai="heuristic"),
    }
    seats = [(a, "A", 0), (c[0], "C", 1), (c[1], "C", 3), *((p, "B", i) for i, p in enumerate(b))]
    for p, t, seat in seats:  # the fourth human at B starts it
        p.table = tables[t]
        r = await _c(p).request({"type": "join", "table": p.table, "seat": seat})
        assert r["type"] == "joined", r
        p.seat, p.token = r["seat"], r["token"]
    for p in (a, c[0]):
        assert (await _c(p).request({"type": "start", "table": p.table}))["type"] == "ok"
    return tables, players


def _c(p: Player) -> Client:
    assert p.c is not None
    return p.c


async def test_kill_9_in_the_middle_of_deals_loses_nothing(db: str) -> None:
    server = ServerProcess(db)
    logs: list[str] = []
    port = await server.start()
    tables, players = await _set_up(port)
    moments = [during_bidding, after_a_discard, mid_trick]
    kills: list[str] = []
    while True:
        moment = moments[len(kills)] if len(kills) < len(moments) else None

        def on_ok(
            p: Player, action: dict[str, Any], before: dict[str, Any], moment: Any = moment
        ) -> bool:
            return moment is not None and bool(moment(p, action, before))

        tasks = {asyncio.create_task(p.play(on_ok)): p for p in players if not p.finished}
        killer = None
        while tasks and killer is None:  # until a kill is due, or every table is finished
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED, timeout=60)
            assert done, "the players got stuck"
            for t in done:
                p = tasks.pop(t)
                if t.result() == "kill":
                    killer = p
                else:
                    assert t.result() == "finished", (p.name, t.result())
        if killer is None:
            break
        # SIGKILL right after the action was answered: what was said must survive
        await server.kill()
        kills.append(f"{moment.__name__} at table {killer.table} by {killer.name}")
        for t in tasks:
            assert await t in ("kill", "closed", "finished")
        logs += server.lines
        server = ServerProcess(db)
        port = await server.start()
        await asyncio.gather(*(p.reconnect(port) for p in players if not p.finished))
    assert len(kills) == len(moments), kills
    print("killed:", "; ".join(kills))
    await server.stop()
    logs += server.lines
    for p in players:
        for c in p.clients:
            assert not c.decode_errors, c.decode_errors
            if not c.is_closed:
                await c.close()

    # What was stored is exactly what was played: export -> the records, replay -> results
    exported = subprocess.run(
        [*SERVER, "export", "--db", str(db)], capture_output=True, check=True, timeout=60
    ).stdout
    records = [json.loads(line) for line in exported.decode().splitlines()]
    by_table: dict[str, dict[int, dict[str, Any]]] = {}
    for rec in records:
        deals = by_table.setdefault(rec["meta"]["table_id"], {})
        assert rec["meta"]["deal_no"] not in deals, "a deal stored twice"
        deals[rec["meta"]["deal_no"]] = rec
    # a table's `deals` counts played deals: one nobody took (annulled, R3) is dealt again
    assert set(by_table) == set(tables.values())
    for name, wanted in (("A", 3), ("B", 3), ("C", 2)):
        deals = by_table[tables[name]]
        assert sorted(deals) == list(range(1, len(deals) + 1)), (name, sorted(deals))
        played = [n for n, r in deals.items() if r["result"]["status"] == "played"]
        assert len(played) == wanted, (name, {n: r["result"]["status"] for n, r in deals.items()})
        assert deals[max(deals)]["result"]["status"] == "played"  # the series ends on one
    replayed = subprocess.run(
        [*SERVER, "replay", "-"], input=exported, capture_output=True, timeout=60
    )
    assert replayed.returncode == 0, replayed.stdout
    results = [json.loads(x) for x in replayed.stdout.decode().splitlines()]
    assert results == [rec["result"] for rec in records]

    for p in players:
        deals = by_table[p.table]
        for deal_no, first, seen in p.segments:
            if not seen:
                continue
            # every action a client saw is in the record, at its place, nothing in between
            stored = [key(a) for a in deals[deal_no]["actions"]]
            assert stored[first : first + len(seen)] == seen, (p.name, deal_no, first)
        for deal_no, action in p.accepted:  # and every action answered ok is in it
            stored = [key(a) for a in deals[deal_no]["actions"]]
            assert key(action) in stored, (p.name, deal_no, action)
        mine = [(n, key(a)) for n, a in p.accepted]
        theirs = [
            (n, key(a))
            for n, rec in sorted(deals.items())
            for a in rec["actions"]
            if a["seat"] == p.seat
        ]
        assert _subsequence(mine, theirs), p.name

    # the scores add up: per table, stored deal scores sum to the stored cumulative ones and to
    # the totals the players were last shown
    store = Store(str(db), readonly=True)
    try:
        assert store.unfinished_deals() == []
        for name, tid in tables.items():
            deals = by_table[tid]
            total = [sum(d["result"]["scores"][s] for d in deals.values()) for s in range(4)]
            assert store.table_scores(tid) == total, name
            assert store.table(tid)["status"] == "finished", name
            shown = [p.last_total for p in players if p.table == tid and not p.unseen_end]
            assert all(t == total for t in shown), (name, shown, total)
    finally:
        store.close()

    # JSON logs, one object a line, and no seat token in them
    logs = _without_orphaned_spawns(logs, len(kills))
    assert len(logs) > 20
    tokens = {p.token for p in players}
    for i, line in enumerate(logs):
        try:
            obj = json.loads(line)
        except ValueError:  # say what wrote it: the block of plain text, whole
            raise AssertionError("not a JSON log line:\n" + "\n".join(logs[i : i + 60])) from None
        assert {"ts", "level", "logger", "msg"} <= set(obj), line
        assert not any(t in line for t in tokens), line
    assert any(obj.get("table") for obj in map(json.loads, logs))
    assert any(obj.get("conn") for obj in map(json.loads, logs))


def _without_orphaned_spawns(logs: list[str], kills: int) -> list[str]:
    """The log lines less what a worker process printed when the server was killed while
    spawning it: the child had started, its parent died before sending it its start-up data,
    and Python's ``spawn_main`` printed the EOFError before any of the server's code ran in
    it (so no JSON formatter). That output belongs to the kill, not to the server's logging;
    any other plain text still fails the test, and so would more such blocks than kills."""
    out: list[str] = []
    orphaned = 0
    i = 0
    while i < len(logs):
        if logs[i] == "Traceback (most recent call last):":
            end = i + 1
            while end < len(logs) and logs[end].startswith(" "):
                end += 1
            block = logs[i : end + 1]
            if (
                end < len(logs)
                and logs[end] == "EOFError: Ran out of input"
                and any(
                    "multiprocessing/spawn.py" in line and "spawn_main" in line for line in block
                )
                and any("preparation_data = reduction.pickle.load" in line for line in block)
            ):
                orphaned += 1
                i = end + 1
                continue
        out.append(logs[i])
        i += 1
    assert orphaned <= kills, orphaned
    return out


# The block as CI once found it after a kill (Python 3.11; the interpreter's path shortened).
_ORPHANED_SPAWN = """Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 122, in spawn_main
    exitcode = _main(fd, parent_sentinel)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 130, in _main
    preparation_data = reduction.pickle.load(from_parent)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
EOFError: Ran out of input""".splitlines()


def test_only_an_orphaned_spawns_traceback_is_set_aside() -> None:
    json_line = '{"ts":"t","level":"info","logger":"atout.server","msg":"m"}'
    assert _without_orphaned_spawns([json_line, *_ORPHANED_SPAWN, json_line], 1) == [json_line] * 2
    other = [*_ORPHANED_SPAWN[:-1], "ValueError: boom"]  # any other error stays
    assert _without_orphaned_spawns(other, 1) == other
    elsewhere = [line.replace("spawn.py", "queues.py") for line in _ORPHANED_SPAWN]
    assert _without_orphaned_spawns(elsewhere, 1) == elsewhere
    with pytest.raises(AssertionError):  # more of them than kills
        _without_orphaned_spawns(_ORPHANED_SPAWN * 2, 1)


def _subsequence(small: list[Any], big: list[Any]) -> bool:
    it = iter(big)
    return all(x in it for x in small)

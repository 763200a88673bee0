"""Load benchmark: the Atout server against real WebSocket clients, and against the bare limit
of its stack (a minimal ``websockets`` echo server driven by the same clients).

The Atout server runs as its own process (``atout-server serve``: temporary database, AI think
delay 0, deal pause 0); the clients run in one or more other processes (asyncio, one
connection per player) and play from the ``your_turn`` prompts of docs/PROTOCOL.md: a random
legal bid, the required cards then the first allowed ones for a discard, no chelem, a random
legal card. Modes:

* ``ai``: N clients, each alone at a table with three AI of the server's default level (``normal``,
  think delay 0);
* ``humans``: N clients, four human bot clients per table (N/4 tables);
* ``idle``: N connections that said ``hello`` and do nothing: server memory per connection;
* ``echo``: the same clients against ``bench/echo_server.py`` (same library and settings);
  each request asks for as many reply frames, of the same mean size, as the Atout mode that
  ran before it sent per action (defaults when run alone); in the humans' echo the clients go
  by four as at a table, taking turns, and a request's replies go round the four connections
  as a table's events go to its four players (``--echo-one-socket``: all to the requester);
* ``all``: idle, then ai and its echo, then humans and its echo.

Each Atout phase ends by draining what it left the server (the reviews of its deals, its store
writes), so that no phase pays for another; the CPU this takes is charged to it and printed
("left for after the window"), with the CPU per request that includes it.

Clients act as soon as they are prompted (``--pace 0``: as fast as the server allows, a
closed loop in which latency is queueing: about N / throughput), or after a think time drawn
uniformly in [0.5, 1.5] x ``--pace`` seconds (an open, realistic load whose latency is the
server's response time). The server is started with a per-connection rate limit
(``--rate``/``--burst``, :data:`RATE`) and a connection limit per address far above what the
clients send, so they need no token bucket of their own: a ``rate_limited`` error or a refused
connection counts as an error of the run. Every figure is measured in a window that starts
after a warm-up, once every table plays.

    .venv/bin/python bench/load.py                        # all modes, 1,000 clients, ~2.5 min
    .venv/bin/python bench/load.py --pace 1               # 1,000 players acting every ~1 s
    .venv/bin/python bench/load.py --mode ai --clients 200 --duration 10
    .venv/bin/python bench/load.py --quick                # everything in under a minute
    .venv/bin/python bench/load.py --quick --json         # plus one JSON line of figures

Loopback only, bounded in clients and time; stops the servers it started, even on errors.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import multiprocessing as mp
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLK_TCK = os.sysconf("SC_CLK_TCK")
TIMEOUT = 60.0  # seconds any single request of the set-up may take
CLIENT_READ_SIZE = 64 * 1024  # bytes a client asks of its socket per read (see _open)
CONNECT_PARALLEL = 50  # connections opened at once (the servers' listen backlog is 1024)
# The server's per-connection rate limit for the run (``serve --rate/--burst``): far above what
# a client sends (at saturation with 1,000 clients, under 10 frames/s each), so the figures are
# the server's and no client needs a token bucket of its own.
RATE, BURST = 10_000, 10_000

# Echo profile used when ``--mode echo`` runs without an Atout mode before it: what one action
# of the ``ai`` mode costs (frames sent back per action, mean frame size, request size),
# measured with this script.
DEFAULT_PROFILE = (7.2, 150, 59)


# -- the client's view of the protocol (docs/PROTOCOL.md), decoded with msgspec -------------


class DiscardRule(msgspec.Struct):
    count: int
    required: list[str]
    choices: list[str]


class Legal(msgspec.Struct):
    phase: str
    bids: list[str] = []
    discard: DiscardRule | None = None
    chelem: bool = False
    plays: list[str] = []


class Event(msgspec.Struct):
    type: str
    state: str | None = None


class Msg(msgspec.Struct):
    type: str
    id: Any = None
    table: Any = None  # a table id, or a TableInfo object in table_created
    legal: Legal | None = None
    event: Event | None = None
    code: str | None = None
    message: str | None = None


_decode = msgspec.json.Decoder(Msg).decode
_encode = msgspec.json.Encoder().encode


def bot_action(lg: Legal, rng: random.Random) -> dict[str, Any]:
    """The clients' move for a prompt (see the module's doc; bench/table_cpu.py plays the same):
    a random legal bid, the required cards then the first allowed ones for a discard, no
    chelem, a random legal card."""
    if lg.phase == "bidding":
        return {"type": "bid", "contract": rng.choice(lg.bids)}
    if lg.phase == "discard" and lg.discard is not None:
        d = lg.discard
        free = [c for c in d.choices if c not in d.required]
        return {"type": "discard", "cards": d.required + free[: d.count - len(d.required)]}
    if lg.phase == "chelem":
        return {"type": "chelem", "announce": False}
    return {"type": "play", "card": rng.choice(lg.plays)}


class SetupError(Exception):
    pass


# -- statistics of one client process --------------------------------------------------------


class Stats:
    def __init__(self) -> None:
        self.t_start = float("inf")  # measurement window (time.monotonic, same in all processes)
        self.t_end = float("inf")
        self.stopping = False
        self.requests = 0  # actions (or echo requests) sent in the window
        self.request_bytes = 0
        self.frames = 0  # frames received in the window
        self.bytes = 0
        self.lat_ok: list[float] = []
        self.lat_event: list[float] = []  # action -> its event (echo: request -> first reply)
        self.lat_event_at: list[float] = []  # when each of those actions was sent (window time)
        self.lat_turn: list[float] = []  # action -> next your_turn (echo: -> last reply)
        self.client_lag: list[float] = []  # the client loop's own lateness
        self.errors: Counter[str] = Counter()
        self.unexpected_closes = 0
        self.deals = 0

    def in_window(self, t: float) -> bool:
        return self.t_start <= t < self.t_end

    def result(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "request_bytes": self.request_bytes,
            "frames": self.frames,
            "bytes": self.bytes,
            "lat_ok": self.lat_ok,
            "lat_event": self.lat_event,
            "lat_event_at": self.lat_event_at,
            "lat_turn": self.lat_turn,
            "client_lag": self.client_lag,
            "errors": dict(self.errors),
            "unexpected_closes": self.unexpected_closes,
            "deals": self.deals,
        }


class Conn:
    """One connection: a reader task, request/answer matching, paced sends."""

    def __init__(self, ws: ClientConnection, stats: Stats, pace: float, rng: random.Random):
        self.ws = ws
        self.stats = stats
        self.pace = pace
        self.rng = rng
        self.ids = itertools.count(1)
        self.waiting: dict[Any, asyncio.Future[Msg]] = {}
        self.reader: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)  # the loop keeps only weak references to tasks
        task.add_done_callback(self.tasks.discard)

    def start(self) -> None:
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                await self.on_frame(raw)
        except ConnectionClosed:
            pass
        except Exception as e:  # a bug in the client: say so, count it
            self.stats.errors[f"client:{type(e).__name__}"] += 1
            print(f"load.py client error: {e!r}", file=sys.stderr)
        if not self.stats.stopping:
            self.stats.unexpected_closes += 1
        for fut in self.waiting.values():
            if not fut.done():
                fut.set_exception(SetupError("connection closed"))

    async def on_frame(self, raw: str | bytes) -> None:
        raise NotImplementedError

    async def leave(self) -> None:
        pass

    def think(self) -> float:
        return self.pace * (0.5 + self.rng.random()) if self.pace > 0 else 0.0

    async def send_paced(self, data: bytes | str, think: float, on_sent: Any = None) -> None:
        """Send after ``think`` seconds."""
        if think > 0:
            await asyncio.sleep(think)
        if self.stats.stopping:
            return
        if on_sent is not None:
            on_sent(time.monotonic())
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(data, text=True)

    async def close(self) -> None:
        await self.leave()
        with contextlib.suppress(TimeoutError, WebSocketException, OSError):
            await asyncio.wait_for(self.ws.close(), 10)
        if self.reader is not None:
            self.reader.cancel()


class Player(Conn):
    """A human player bot at an Atout table."""

    def __init__(self, ws: ClientConnection, stats: Stats, pace: float, rng: random.Random):
        super().__init__(ws, stats, pace, rng)
        self.table: str | None = None
        self.owner = False  # created the table: restarts it when it finishes
        self.seated = False
        self.action_id: Any = None
        self.t_send = 0.0
        self.await_event = False
        self.await_turn = False

    async def request(self, obj: dict[str, Any]) -> Msg:
        rid = next(self.ids)
        fut: asyncio.Future[Msg] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = fut
        await self.ws.send(_encode({**obj, "id": rid}), text=True)
        msg = await asyncio.wait_for(fut, TIMEOUT)
        if msg.type == "error":
            raise SetupError(f"{obj['type']}: {msg.code}: {msg.message}")
        return msg

    async def leave(self) -> None:
        """Give the seat back before closing: a dropped seat would keep its table playing
        (the AI stands in for the grace period) and load the next phase."""
        if self.table is not None and self.seated:
            with contextlib.suppress(SetupError, TimeoutError, WebSocketException, OSError):
                await self.request({"type": "leave", "table": self.table})

    async def hello(self, name: str) -> None:
        await self.request({"type": "hello", "version": 1, "name": name, "client": "bench"})

    async def on_frame(self, raw: str | bytes) -> None:
        now = time.monotonic()
        st = self.stats
        if st.in_window(now):
            st.frames += 1
            st.bytes += len(raw)
        m = _decode(raw)
        t = m.type
        if t == "event":
            if self.await_event:
                self.await_event = False
                if st.in_window(self.t_send):
                    st.lat_event.append(now - self.t_send)
                    st.lat_event_at.append(self.t_send - st.t_start)
            ev = m.event
            if ev is not None:
                if ev.type == "deal_over" and self.owner and st.in_window(now):
                    st.deals += 1
                elif ev.type == "table_state" and ev.state == "finished" and self.owner:
                    self._spawn(self._restart())
        elif t == "your_turn":
            if self.await_turn:
                self.await_turn = False
                if st.in_window(self.t_send):
                    st.lat_turn.append(now - self.t_send)
            if not st.stopping and m.legal is not None:
                self._act(m.legal)
        else:
            if t == "error":
                st.errors[m.code or "?"] += 1
                print(f"load.py: server error {m.code}: {m.message}", file=sys.stderr)
            if m.id is not None:
                if m.id == self.action_id:
                    self.action_id = None
                    if t == "ok":
                        self.await_event = True
                        if st.in_window(self.t_send):
                            st.lat_ok.append(now - self.t_send)
                fut = self.waiting.pop(m.id, None)
                if fut is not None and not fut.done():
                    fut.set_result(m)

    def _act(self, lg: Legal) -> None:
        obj = bot_action(lg, self.rng)
        rid = next(self.ids)
        obj["id"] = rid
        obj["table"] = self.table
        data = _encode(obj)
        self.action_id = rid

        def sent(t: float) -> None:
            st = self.stats
            self.t_send = t
            self.await_turn = True
            if st.in_window(t):
                st.requests += 1
                st.request_bytes += len(data)

        self._spawn(self.send_paced(data, self.think(), sent))

    async def _restart(self) -> None:
        msg = {"type": "restart", "id": next(self.ids), "table": self.table}
        await self.ws.send(_encode(msg), text=True)


# Echo groups of this client process: unique on an echo server that outlives phases and
# processes (a process id may come again).
GROUP_TOKEN = f"{os.getpid()}-{random.SystemRandom().getrandbits(64):016x}"


class EchoRound:
    """The request in flight of a group of echo clients (a table's seats): its K replies may
    arrive at any member (the echo server's groups), and the last one lets the next seat go."""

    __slots__ = ("by", "k", "remaining", "t_send")

    def __init__(self) -> None:
        self.k = self.remaining = 0
        self.t_send = 0.0
        self.by: EchoClient | None = None  # who sent it: the seat after it asks next


class EchoClient(Conn):
    """The same client loop against the echo server: request, K replies, next request."""

    def __init__(
        self,
        ws: ClientConnection,
        stats: Stats,
        pace: float,
        rng: random.Random,
        profile: tuple[float, int, int],
        round_: EchoRound,
    ):
        super().__init__(ws, stats, pace, rng)
        self.per_request, self.size, self.req_size = profile
        self.acc = rng.random()
        self.round = round_  # shared by the group
        self.next: EchoClient = self  # who sends the next request (humans: the next seat)

    def next_request(self, think: float) -> None:
        self.acc += self.per_request
        k = max(1, int(self.acc))
        self.acc -= k
        head = f"{k} {self.size}|"
        data = head + "x" * max(0, self.req_size - len(head))
        rd = self.round
        rd.k = rd.remaining = k
        rd.by = self

        def sent(t: float) -> None:
            st = self.stats
            rd.t_send = t
            if st.in_window(t):
                st.requests += 1
                st.request_bytes += len(data)

        self._spawn(self.send_paced(data, think, sent))

    async def on_frame(self, raw: str | bytes) -> None:
        now = time.monotonic()
        st = self.stats
        if st.in_window(now):
            st.frames += 1
            st.bytes += len(raw)
        rd = self.round
        rd.remaining -= 1
        sent_in = st.in_window(rd.t_send)
        if rd.remaining == rd.k - 1 and sent_in:
            st.lat_event.append(now - rd.t_send)
            st.lat_event_at.append(rd.t_send - st.t_start)
        if rd.remaining == 0:
            if sent_in:
                st.lat_turn.append(now - rd.t_send)
            if not st.stopping and rd.by is not None:
                nxt = rd.by.next  # the seat after the requester, whoever got the last frame
                nxt.next_request(nxt.think())


# -- a client process ------------------------------------------------------------------------


@dataclass
class Spec:
    """What one client process does (sent to it at start)."""

    mode: str  # ai | humans | idle | echo
    url: str  # one URL, or several separated by spaces (a cluster: tables spread over them)
    n: int
    first: int  # global index of its first client (names and seeds)
    pace: float
    seed: int
    active: int = 0  # echo: clients that send requests (the others stay connected, idle)
    group: int = 1  # echo: clients taking turns like the seats of a table (humans: 4)
    profile: tuple[float, int, int] = DEFAULT_PROFILE
    read_size: int = CLIENT_READ_SIZE  # bytes per socket read (0: the transport's own)
    fanout: bool = True  # echo groups: a request's replies go round the group's connections


def _raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def _open(url: str, read_size: int = CLIENT_READ_SIZE) -> ClientConnection:
    ws = await connect(
        url,
        subprotocols=["atout.v1"],  # type: ignore[list-item]
        compression=None,
        max_size=1 << 20,  # server frames may be large (a deal record); docs say accept 1 MiB
        open_timeout=TIMEOUT,
        close_timeout=5,
    )
    # The clients are the measuring instrument: asyncio's selector transport reads 256 KiB at a
    # time, above glibc's mmap threshold, and each read cost ~13 us more than a 64 KiB one
    # (server/net/connection.py READ_SIZE). With four players per table a client process did
    # several reads per action and was the run's bottleneck before the server was.
    if read_size and getattr(ws.transport, "max_size", 0) > read_size:
        ws.transport.max_size = read_size  # type: ignore[attr-defined]
    return ws


async def _setup(spec: Spec, stats: Stats) -> tuple[list[Conn], list[Any]]:
    """Open the connections and seat the players; returns them and the 'go' coroutines."""
    conns: list[Conn] = []
    gos: list[Any] = []
    sem = asyncio.Semaphore(CONNECT_PARALLEL)

    def rng(i: int) -> random.Random:
        return random.Random(spec.seed * 1_000_003 + spec.first + i)

    urls = spec.url.split()

    async def player(i: int) -> Player:
        # a cluster: each table on one worker, tables spread evenly (a table's four together)
        table_no = (spec.first + i) // (4 if spec.mode == "humans" else 1)
        ws = await _open(urls[table_no % len(urls)], spec.read_size)
        p = Player(ws, stats, spec.pace, rng(i))
        conns.append(p)
        p.start()
        await p.hello(f"bench{spec.first + i}")
        return p

    async def solo(i: int) -> None:  # ai mode: one human, three AI
        async with sem:
            p = await player(i)
            tc = await p.request(
                {
                    "type": "create_table",
                    "name": f"bench {spec.first + i}",
                    "public": False,
                    "deals": 1000,
                    "think_delay": 0,
                    "deal_pause": 0,
                }
            )
            p.table = tc.table["table"]
            p.owner = True
            await p.request({"type": "join", "table": p.table, "seat": 0})
            p.seated = True
        gos.append(p.request({"type": "start", "table": p.table}))

    async def four(i: int) -> None:  # humans mode: the fourth player joins at 'go'
        async with sem:
            ps = [await player(i + k) for k in range(4)]
            tc = await ps[0].request(
                {
                    "type": "create_table",
                    "name": f"bench {spec.first + i}",
                    "public": False,
                    "deals": 1000,
                    "think_delay": 0,
                    "deal_pause": 0,
                }
            )
            table = tc.table["table"]
            ps[0].owner = True
            for k, p in enumerate(ps):
                p.table = table
                if k < 3:
                    await p.request({"type": "join", "table": table, "seat": k})
                    p.seated = True
        gos.append(_join_last(ps[3], table))

    async def idle(i: int) -> None:
        async with sem:
            await player(i)

    async def echo(i: int) -> None:
        async with sem:
            cs = []
            rd = EchoRound()
            for k in range(spec.group):
                ws = await _open(spec.url, spec.read_size)
                if spec.fanout and spec.group > 1:  # replies go round the group, as at a table
                    await ws.send(f"@{GROUP_TOKEN}-{i}")
                    answer = await asyncio.wait_for(ws.recv(), TIMEOUT)
                    if answer != "@":  # "!full": more members than a table's seats
                        raise RuntimeError(f"the echo server refused a group member: {answer!r}")
                c = EchoClient(ws, stats, spec.pace, rng(i + k), spec.profile, rd)
                conns.append(c)
                c.start()
                cs.append(c)
            for k, c in enumerate(cs):  # requests go round the group as actions round a table
                c.next = cs[(k + 1) % len(cs)]
        if i < spec.active:
            gos.append(_echo_go(cs[0]))

    if spec.mode == "ai":
        jobs = [solo(i) for i in range(spec.n)]
    elif spec.mode == "humans":
        jobs = [four(i) for i in range(0, spec.n, 4)]
    elif spec.mode == "idle":
        jobs = [idle(i) for i in range(spec.n)]
    else:
        jobs = [echo(i) for i in range(0, spec.n, spec.group)]
    await asyncio.gather(*jobs)
    return conns, gos


async def _join_last(p: Player, table: str) -> None:
    await p.request({"type": "join", "table": table, "seat": 3})  # the series starts
    p.seated = True


async def _echo_go(c: EchoClient) -> None:
    c.next_request(c.rng.random() * c.pace)  # spread the first requests over one think time


async def _worker_async(spec: Spec, pipe: Connection) -> None:
    loop = asyncio.get_running_loop()
    stats = Stats()
    try:
        conns, gos = await _setup(spec, stats)
    except Exception as e:
        pipe.send(("failed", f"{type(e).__name__}: {e}"))
        return
    # The clients are the measuring instrument: their own collector pauses would show as server
    # latency. Set-up objects are frozen; nothing is collected while measuring.
    gc.collect()
    gc.freeze()
    pipe.send(("ready", len(conns)))
    cmd = await loop.run_in_executor(None, pipe.recv)
    if cmd[0] == "go":
        _, stats.t_start, stats.t_end = cmd
        gc.disable()
        probe = loop.create_task(_lag_probe(stats))
        await asyncio.gather(*gos)
        await asyncio.sleep(max(0.0, stats.t_start - time.monotonic()))
        cpu0 = time.process_time()
        await asyncio.sleep(max(0.0, stats.t_end - time.monotonic()))
        cpu1 = time.process_time()
        stats.stopping = True
        probe.cancel()
        gc.enable()
        res = stats.result()
        res["cpu_seconds"] = cpu1 - cpu0
        pipe.send(("result", res))
        cmd = await loop.run_in_executor(None, pipe.recv)
    stats.stopping = True
    await asyncio.gather(*(c.close() for c in conns))
    pipe.send(("closed", None))


async def _lag_probe(stats: Stats, interval: float = 0.005) -> None:
    """How late the client's own loop wakes up: the share of a latency that is the client's."""
    while True:
        t = time.monotonic()
        await asyncio.sleep(interval)
        now = time.monotonic()
        if stats.in_window(t):
            stats.client_lag.append(now - t - interval)


def worker(spec: Spec, pipe: Connection) -> None:
    """Entry point of a client process."""
    _raise_nofile()
    try:
        asyncio.run(_worker_async(spec, pipe))
    except Exception as e:  # pragma: no cover - reported to the parent
        pipe.send(("failed", f"{type(e).__name__}: {e}"))


# -- the servers -----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A server process started by this script, and its /proc readings. With ``workers`` it is
    a cluster's supervisor: its workers listen on ``port``..``port + workers - 1`` and the
    readings add up the worker processes."""

    def __init__(
        self, name: str, popen: subprocess.Popen[bytes], port: int, workers: int = 0
    ) -> None:
        self.name = name
        self.popen = popen
        self.pid = popen.pid
        self.port = port
        self.ports = [port + n for n in range(workers)] if workers else [port]
        self.url = " ".join(f"ws://127.0.0.1:{p}/" for p in self.ports)

    def pids(self) -> list[int]:
        if len(self.ports) == 1:
            return [self.pid]
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children") as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            return []

    def all_pids(self) -> list[int]:
        """The server's processes and every process they started (the strong AI's pool): the
        server's CPU and memory are theirs too."""
        out: list[int] = []
        todo = self.pids()
        while todo:
            pid = todo.pop()
            out.append(pid)
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tasks:
                try:
                    with open(f"/proc/{pid}/task/{tid}/children") as f:
                        todo.extend(int(x) for x in f.read().split())
                except OSError:
                    continue
        return out

    def cpu_seconds(self, thread: int | None = None) -> float:
        """CPU time of the process and its children (of a cluster: of its workers and
        theirs), or of one of its threads (the event loop's: ``self.pid``; of a cluster: every
        worker's main thread)."""
        total = 0.0
        for pid in self.pids() if thread is not None else self.all_pids():
            path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{pid}/stat"
            try:
                with open(path) as f:
                    data = f.read()
            except OSError:
                continue
            fields = data[data.rindex(")") + 2 :].split()
            total += (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime
        return total

    def _status(self, key: str) -> int:
        total = 0
        for pid in self.all_pids():
            try:
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith(key + ":"):
                            total += int(line.split()[1])  # kB
            except OSError:
                continue
        return total

    def rss_kib(self) -> int:
        return self._status("VmRSS")

    def hwm_kib(self) -> int:
        return self._status("VmHWM")

    def stop(self) -> int | None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(5)
        return self.popen.returncode


# Runs ``atout-server`` under cProfile with the CPU-time clock of its event-loop thread (what
# that thread computes, not the time it waits for a core on a busy machine, nor the store's
# thread); the stats are written when it stops.
_PROFILED = (
    "import cProfile, sys, time; from server.cli import main; "
    "p = cProfile.Profile(time.thread_time); rc = p.runcall(main, sys.argv[2:]); "
    "p.dump_stats(sys.argv[1]); sys.exit(rc)"
)


def start_atout(
    tmp: str,
    max_tables: int,
    workers: int = 0,
    db: str | None = None,
    *,
    profile: str | None = None,
    root: str = ROOT,
    loop: str = "asyncio",
) -> Server:
    """``atout-server serve`` from the source tree ``root`` (its folder first on the path;
    ``workers`` > 0: a cluster of that many workers under a supervisor) on ``db`` (default: a
    new SQLite file in ``tmp``)."""
    port = _free_port() if not workers else _free_ports(workers)
    run = [sys.executable, "-m", "server.cli"]
    if profile:
        run = [sys.executable, "-c", _PROFILED, os.path.abspath(profile)]
    cmd = [
        *run, "serve",
        "--host", "127.0.0.1", "--port", str(port),
        "--db", db or os.path.join(tmp, "bench.db"),
        "--think-delay", "0", "--deal-pause", "0",
        "--max-tables", str(max_tables),
        # One address (127.0.0.1) for every client, and no client-side bucket: limits far
        # above what the run sends; a refusal would show as an error.
        "--max-connections-per-address", str(max_tables),
        "--rate", str(RATE), "--burst", str(BURST),
        "--log-level", "warning",
    ]  # fmt: skip
    if root == ROOT or loop != "asyncio":  # a baseline tree may predate --loop (asyncio)
        cmd += ["--loop", loop]
    if workers:
        cmd += ["--workers", str(workers)]
    log = open(os.path.join(tmp, "server.log"), "wb")  # noqa: SIM115 - the child writes it
    popen = subprocess.Popen(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    srv = Server("atout", popen, port, workers)
    deadline = time.monotonic() + 30
    ready: set[int] = set()
    while True:
        if popen.poll() is not None:
            raise RuntimeError(f"the Atout server exited ({popen.returncode}): {_log_tail(tmp)}")
        for p in srv.ports:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{p}/healthz", timeout=2) as r:
                    if r.status == 200:
                        ready.add(p)
            except OSError:
                pass
        if ready == set(srv.ports):
            return srv
        if time.monotonic() > deadline:
            srv.stop()
            raise RuntimeError(f"the Atout server did not start: {_log_tail(tmp)}")
        time.sleep(0.1)


def _free_ports(n: int) -> int:
    """A port P such that P..P+n-1 are all free now."""
    for _ in range(100):
        p = _free_port()
        if p + n > 65535:
            continue
        socks = []
        try:
            for k in range(n):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", p + k))
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
        return p
    raise RuntimeError(f"no {n} consecutive free ports")


def start_echo(loop: str = "asyncio") -> Server:
    popen = subprocess.Popen(
        [
            sys.executable,
            os.path.join(ROOT, "bench", "echo_server.py"),
            *("--port", "0", "--loop", loop),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
    )
    assert popen.stdout is not None
    line = popen.stdout.readline().decode()  # "PORT n" once listening, "" if it died
    if not line.startswith("PORT "):
        popen.kill()
        raise RuntimeError("the echo server did not start")
    return Server("echo", popen, int(line.split()[1]))


def _log_tail(tmp: str) -> str:
    try:
        with open(os.path.join(tmp, "server.log"), errors="replace") as f:
            return f.read()[-2000:]
    except OSError:
        return ""


def scrape(srv: Server) -> dict[str, float]:
    """The server's /metrics (every worker's, added up), summed over labels except errors
    (kept per code)."""
    out: dict[str, float] = {}
    text = ""
    for p in srv.ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{p}/metrics", timeout=10) as r:
            text += r.read().decode() + "\n"
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        key, value = line.rsplit(" ", 1)
        name = key.split("{", 1)[0]
        if name == "atout_errors_total":
            name = key
        out[name] = out.get(name, 0.0) + float(value)
    return out


def drain(srv: Server, limit: float = 180.0) -> tuple[float, float]:
    """Wait until the Atout server has done what the phase left it (the reviews of its deals,
    each deal's par computed in a worker process, and its store writes); returns the seconds
    waited and the server's CPU seconds meanwhile. At saturation a phase leaves thousands of
    deals to review, whose CPU would otherwise land in the next phase (on 6 December 2026 the
    humans phase after the ai phase ran at 0.67 of its speed alone) and in the echo's run."""
    t0, c0 = time.monotonic(), srv.cpu_seconds()
    state = "unknown"
    while time.monotonic() - t0 < limit:
        try:
            m = scrape(srv)
        except OSError as e:  # not drained as far as we know: look again
            state = f"/metrics unreadable ({e})"
        else:
            if "atout_review_backlog" not in m:  # a tree from before the review counters
                state = "no review backlog metric: store writes only"
            left = m.get("atout_review_backlog", 0.0) + m.get("atout_store_pending_writes", 0.0)
            if not left:
                break
            state = f"{left:g} still queued"
        time.sleep(0.5)
    else:
        print(f"warning: the server did not drain in {limit:g} s ({state})")
    if state.startswith("no review"):
        print(f"note: {state}")
    return time.monotonic() - t0, srv.cpu_seconds() - c0


# -- one measured phase ----------------------------------------------------------------------


def _recv(pipe: Connection, deadline: float, what: str) -> tuple[str, Any]:
    if not pipe.poll(max(0.0, deadline - time.monotonic())):
        raise RuntimeError(f"a client process did not answer in time ({what})")
    try:
        msg: tuple[str, Any] = pipe.recv()
    except EOFError:
        raise RuntimeError(f"a client process died ({what})") from None
    if msg[0] == "failed":
        raise RuntimeError(f"a client process failed ({what}): {msg[1]}")
    return msg


def pct(xs: list[float], q: float) -> float | None:
    """Nearest-rank percentile, in milliseconds."""
    if not xs:
        return None
    return round(xs[min(len(xs) - 1, int(q * len(xs)))] * 1000, 2)


def lat(xs: list[float]) -> dict[str, float | None]:
    xs.sort()
    return {
        "n": len(xs),
        "p50": pct(xs, 0.50),
        "p95": pct(xs, 0.95),
        "p99": pct(xs, 0.99),
        "max": pct(xs, 1.0),
    }


@dataclass
class Phase:
    mode: str
    clients: int
    active: int = 0  # echo: clients that send requests
    profile: tuple[float, int, int] = DEFAULT_PROFILE
    group: int = 1  # echo: clients taking turns (4 like the humans of a table)


def run_phase(ph: Phase, srv: Server, args: argparse.Namespace) -> dict[str, Any]:
    """Start the client processes, let them play, measure, close; the phase's figures."""
    group = 4 if ph.mode == "humans" else ph.group
    units = ph.clients // group
    nproc = max(1, min(args.procs, units))
    chunks = [units // nproc + (1 if i < units % nproc else 0) for i in range(nproc)]
    ctx = mp.get_context("spawn")
    workers: list[tuple[Any, Connection]] = []
    rss0 = srv.rss_kib()
    first = 0
    t0 = time.monotonic()
    try:
        for c in chunks:
            a, b = ctx.Pipe()
            spec = Spec(
                mode=ph.mode,
                url=srv.url,
                n=c * group,
                first=first,
                pace=args.pace,
                seed=args.seed,
                active=max(0, min(c * group, ph.active - first)),
                profile=ph.profile,
                group=group if ph.mode == "echo" else 1,
                read_size=args.client_read_size,
                fanout=not args.echo_one_socket,
            )
            first += c * group
            pr = ctx.Process(target=worker, args=(spec, b), daemon=True)
            pr.start()
            workers.append((pr, a))
        deadline = time.monotonic() + 60 + ph.clients * 0.1
        for _, a in workers:
            _recv(a, deadline, "set-up")
        setup = time.monotonic() - t0
        out: dict[str, Any] = {
            "mode": ph.mode,
            "server": srv.name,
            "clients": ph.clients,
            "client_processes": nproc,
            "setup_seconds": round(setup, 2),
        }
        if ph.mode == "idle" or (ph.mode == "echo" and ph.active == 0):
            time.sleep(args.settle)
            rss1 = srv.rss_kib()
            out.update(
                rss_before_kib=rss0,
                rss_kib=rss1,
                kib_per_connection=round((rss1 - rss0) / max(1, ph.clients), 1),
            )
            results: list[dict[str, Any]] = []
        else:
            t_go = time.monotonic()
            t_start = t_go + args.warmup
            t_end = t_start + args.duration
            for _, a in workers:
                a.send(("go", t_start, t_end))
            time.sleep(max(0.0, t_start - time.monotonic()))
            c0, m0 = srv.cpu_seconds(), (scrape(srv) if srv.name == "atout" else {})
            l0 = srv.cpu_seconds(srv.pid)
            time.sleep(max(0.0, t_end - time.monotonic()))
            c1, m1 = srv.cpu_seconds(), (scrape(srv) if srv.name == "atout" else {})
            l1 = srv.cpu_seconds(srv.pid)
            rss1 = srv.rss_kib()
            results = [_recv(a, t_end + 60, "results")[1] for _, a in workers]
            out.update(_summary(results, args.duration, c1 - c0, m0, m1, rss1))
            # The event loop's own thread (the rest: the store's thread, the AI pool's).
            out["server_loop_thread_cpu_percent"] = round(100 * (l1 - l0) / args.duration, 1)
        for _, a in workers:
            a.send(("close",))
        for _, a in workers:
            _recv(a, time.monotonic() + 60, "closing")
        if srv.name == "atout":
            wait_quiet(srv)
            if "requests_per_s" in out:
                # What the phase left (reviews, writes) is done now, and charged to it.
                waited, cpu = drain(srv)
                req = out["requests_per_s"] * args.duration
                out["leftover_seconds"] = round(waited, 1)
                out["leftover_cpu_seconds"] = round(cpu, 2)
                if req and out["server_cpu_us_per_request"] is not None:
                    out["server_cpu_us_per_request_with_leftover"] = round(
                        out["server_cpu_us_per_request"] + 1e6 * cpu / req, 1
                    )
        return out
    finally:
        for pr, _ in workers:
            pr.join(5)
            if pr.is_alive():
                pr.kill()
                pr.join()


def wait_quiet(srv: Server, limit: float = 90.0) -> None:
    """Wait until the previous phase's connections and tables are gone from the server."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        m = scrape(srv)
        if m.get("atout_connections_open", 0) == 0 and m.get("atout_tables", 0) == 0:
            return
        time.sleep(0.2)
    print("warning: the server still has connections or tables from the previous phase")


def _summary(
    results: list[dict[str, Any]],
    duration: float,
    server_cpu: float,
    m0: dict[str, float],
    m1: dict[str, float],
    rss: int,
) -> dict[str, Any]:
    def total(key: str) -> int:
        return sum(int(r[key]) for r in results)

    def joined(key: str) -> list[float]:
        return [x for r in results for x in r[key]]

    req, frames, nbytes = total("requests"), total("frames"), total("bytes")
    errors: Counter[str] = Counter()
    for r in results:
        errors.update(r["errors"])
    server_errors = {
        k.split('"')[1]: int(v - m0.get(k, 0.0))
        for k, v in m1.items()
        if k.startswith("atout_errors_total{") and v - m0.get(k, 0.0) > 0
    }

    def delta(name: str) -> float:
        return m1.get(name, 0.0) - m0.get(name, 0.0)

    out: dict[str, Any] = {
        "duration": duration,
        "requests_per_s": round(req / duration, 1),
        "engine_actions_per_s": round(delta("atout_actions_total") / duration, 1) if m1 else None,
        "deals_per_s": round(total("deals") / duration, 2),
        "frames_in_per_s": round(frames / duration, 1),
        "lat_event_ms": lat(joined("lat_event")),
        "timeline": _timeline(joined("lat_event_at"), joined("lat_event")),
        "lat_turn_ms": lat(joined("lat_turn")),
        "lat_ok_ms": lat(joined("lat_ok")),
        "client_loop_lag_ms": lat(joined("client_lag")),
        "server_cpu_percent": round(100 * server_cpu / duration, 1),
        # CPU time per request: the server's capacity on one free core is about 1e6 / this
        # many requests per second, whatever else the machine runs meanwhile.
        "server_cpu_us_per_request": round(1e6 * server_cpu / req, 1) if req else None,
        "server_rss_kib": rss,
        "clients_cpu_percent": round(100 * sum(r["cpu_seconds"] for r in results) / duration, 1),
        "errors": dict(errors),
        "server_errors": server_errors,
        "unexpected_closes": total("unexpected_closes"),
        "profile": (
            round(frames / req, 2) if req else 0.0,
            round(nbytes / frames) if frames else 0,
            round(total("request_bytes") / req) if req else 0,
        ),
    }
    if m1:
        out["loop_lag_max_ms"] = round(m1.get("atout_event_loop_lag_max_seconds", 0) * 1000, 1)
        out["gc_pause_max_ms"] = round(m1.get("atout_gc_pause_max_seconds", 0) * 1000, 1)
    return out


# -- the run ---------------------------------------------------------------------------------


def _errors_of(ph: dict[str, Any]) -> int:
    return (
        sum(ph.get("errors", {}).values())
        + sum(ph.get("server_errors", {}).values())
        + ph.get("unexpected_closes", 0)
    )


def _fmt_lat(d: dict[str, Any]) -> str:
    return f"p50 {d['p50']} / p95 {d['p95']} / p99 {d['p99']} / max {d['max']} ms"


def _timeline(at: list[float], lats: list[float]) -> list[list[float | None]]:
    """Action -> event latency second by second of the window: [second, actions, p50, p99,
    max] (ms). A tail that comes in waves (many deals ending together) shows here."""
    by: dict[int, list[float]] = {}
    for t, x in zip(at, lats, strict=True):
        by.setdefault(int(t), []).append(x)
    out: list[list[float | None]] = []
    for sec in sorted(by):
        q = lat(by[sec])
        out.append([sec, len(by[sec]), q["p50"], q["p99"], q["max"]])
    return out


SHOW_TIMELINE = False  # --timeline


def _print_phase(name: str, ph: dict[str, Any]) -> None:
    if "kib_per_connection" in ph:
        print(
            f"{name:<12} {ph['clients']} idle connections: RSS {ph['rss_before_kib']} -> "
            f"{ph['rss_kib']} KiB, {ph['kib_per_connection']} KiB per connection "
            f"(set-up {ph['setup_seconds']} s)"
        )
        return
    eng = ph.get("engine_actions_per_s")
    print(
        f"{name:<12} {ph['clients']} clients ({ph['client_processes']} process(es)): "
        f"{ph['requests_per_s']} requests/s"
        + (f" ({eng} engine actions/s incl. AI, {ph['deals_per_s']} deals/s)" if eng else "")
    )
    what = "action -> its event" if ph["server"] == "atout" else "request -> 1st reply"
    print(f"{'':<12}   {what:<24} {_fmt_lat(ph['lat_event_ms'])}")
    what = "action -> next your_turn" if ph["server"] == "atout" else "request -> last reply"
    print(f"{'':<12}   {what:<24} {_fmt_lat(ph['lat_turn_ms'])}")
    extra = ""
    if "loop_lag_max_ms" in ph:
        extra = (
            f", loop lag max {ph['loop_lag_max_ms']} ms, GC pause max {ph['gc_pause_max_ms']} ms"
        )
    cl = ph["client_loop_lag_ms"]
    print(f"{'':<12}   {'client loop lag':<24} p99 {cl['p99']} / max {cl['max']} ms")
    loop_cpu = ph.get("server_loop_thread_cpu_percent")
    print(
        f"{'':<12}   server CPU {ph['server_cpu_percent']} % "
        + (f"(event-loop thread {loop_cpu} %) " if loop_cpu is not None else "")
        + f"({ph['server_cpu_us_per_request']} us per request), RSS {ph['server_rss_kib'] // 1024} "
        f"MiB, clients CPU {ph['clients_cpu_percent']} %{extra}"
    )
    if "leftover_cpu_seconds" in ph:
        print(
            f"{'':<12}   left for after the window: {ph['leftover_seconds']} s, "
            f"{ph['leftover_cpu_seconds']} s of server CPU (with it: "
            f"{ph.get('server_cpu_us_per_request_with_leftover')} us per request, an upper "
            "bound: the warm-up's deals are among them)"
        )
    f, s, r = ph["profile"]
    print(
        f"{'':<12}   {f} frames of {s} B back per request of {r} B; errors "
        f"{_errors_of(ph)} {ph['errors'] or ''}{ph['server_errors'] or ''}"
        + (f", unexpected closes {ph['unexpected_closes']}" if ph["unexpected_closes"] else "")
    )
    if SHOW_TIMELINE and ph.get("timeline"):
        print(f"{'':<12}   {'second':>6} {'actions':>8} {'p50':>8} {'p99':>8} {'max':>8} ms")
        for sec, n, p50, p99, mx in ph["timeline"]:
            print(f"{'':<12}   {sec:>6} {n:>8} {p50:>8} {p99:>8} {mx:>8}")


def _rep(rep: int, n: int) -> str:
    return f" #{rep + 1}" if n > 1 else ""


def _median_phase(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One phase's figures over several runs: the median of each number (latency percentiles
    one by one), the errors of them all; ``runs`` keeps each run's main figures."""
    if len(runs) == 1:
        return runs[0]

    def med(xs: list[Any]) -> Any:
        xs = [x for x in xs if x is not None]
        if not xs:
            return None
        m = statistics.median(xs)
        # Counts stay integers (two runs' median of 1000 clients is not "1000.0 clients").
        return int(m) if all(type(x) is int for x in xs) and m == int(m) else round(m, 2)

    out = dict(runs[0])
    out["timeline"] = None  # each run's is printed with it
    for k, v in runs[0].items():
        if isinstance(v, int | float) and not isinstance(v, bool):
            out[k] = med([r[k] for r in runs])
        elif isinstance(v, dict) and k.startswith(("lat_", "client_loop")):
            out[k] = {q: med([r[k][q] for r in runs]) for q in v}
    errors: Counter[str] = Counter()
    server_errors: Counter[str] = Counter()
    for r in runs:
        errors.update(r["errors"])
        server_errors.update(r["server_errors"])
    out["errors"], out["server_errors"] = dict(errors), dict(server_errors)
    out["unexpected_closes"] = sum(r["unexpected_closes"] for r in runs)
    out["runs"] = [
        {
            "requests_per_s": r["requests_per_s"],
            "server_cpu_us_per_request": r["server_cpu_us_per_request"],
            "p99_event_ms": r["lat_event_ms"]["p99"],
        }
        for r in runs
    ]
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or not b:
        return None
    return round(a / b, 3)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Load benchmark of the Atout server against a bare websockets echo server."
    )
    ap.add_argument("--mode", choices=("ai", "humans", "idle", "echo", "all"), default="all")
    ap.add_argument("--clients", type=int, default=1000, help="players (connections) per mode")
    ap.add_argument("--idle-clients", type=int, help="connections of the idle mode (--clients)")
    ap.add_argument("--duration", type=float, default=15.0, help="measured seconds per mode")
    ap.add_argument("--warmup", type=float, default=3.0, help="seconds of play before measuring")
    ap.add_argument(
        "--pace", type=float, default=0.0, help="mean human think time, s (0: act at once)"
    )
    ap.add_argument("--procs", type=int, default=1, help="client processes")
    ap.add_argument("--settle", type=float, default=2.0, help="idle: seconds before reading RSS")
    ap.add_argument(
        "--no-echo", action="store_true", help="skip the echo runs (A/B runs of the server only)"
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--workers", type=int, default=0, help="run the server as a cluster of N workers"
    )
    ap.add_argument(
        "--db",
        help="the server's database: a SQLite path or a postgresql:// URL (default: a"
        " new SQLite file)",
    )
    ap.add_argument(
        "--postgres",
        action="store_true",
        help="the server's database in a throw-away PostgreSQL server (tests/helpers_pg.py)",
    )
    ap.add_argument(
        "--profile",
        metavar="PATH",
        help="run the Atout server under cProfile (CPU-time clock; its event-loop thread) and "
        "write the stats to PATH (pstats) when it stops; figures are slowed by the profiler",
    )
    ap.add_argument(
        "--loops",
        default="asyncio",
        help="event loops to run both servers on, compared in the same run: asyncio, uvloop "
        "or both (asyncio,uvloop)",
    )
    ap.add_argument(
        "--baseline",
        metavar="DIR",
        help="also run the Atout phases with the server of the source tree DIR (e.g. a "
        "checkout of main) in the same run, and print this tree's figures against it",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run the ai and humans phases N times, the servers taking turns; figures are "
        "medians (for comparisons on a busy machine)",
    )
    ap.add_argument(
        "--client-read-size",
        type=int,
        default=CLIENT_READ_SIZE,
        metavar="BYTES",
        help="bytes a client reads from its socket at a time (0: asyncio's 256 KiB, the "
        "clients of runs before 1 December 2026's evening)",
    )
    ap.add_argument(
        "--echo-one-socket",
        action="store_true",
        help="the humans' echo answers each request on the requester's connection alone (the "
        "echo of runs before 6 December 2026), rather than round the four connections of its "
        "group as a table's events go to its four players",
    )
    ap.add_argument(
        "--timeline",
        action="store_true",
        help="print each phase's action -> event latency second by second of its window",
    )
    ap.add_argument("--quick", action="store_true", help="small and short: under a minute")
    ap.add_argument("--json", action="store_true", help="also print one JSON line of figures")
    args = ap.parse_args(argv)
    global SHOW_TIMELINE
    SHOW_TIMELINE = args.timeline
    if args.quick:
        if "--clients" not in (argv or sys.argv):
            args.clients = 200
        if "--duration" not in (argv or sys.argv):
            args.duration = 4.0
        if "--warmup" not in (argv or sys.argv):
            args.warmup = 1.0
        if "--settle" not in (argv or sys.argv):
            args.settle = 0.5
    if args.clients < 4 or args.clients > 5000 or not 0 < args.duration <= 600:
        ap.error("--clients must be 4..5000 and --duration 0..600 s")
    args.clients -= args.clients % 4 if args.mode in ("humans", "all") else 0
    idle_n = args.idle_clients or args.clients
    _raise_nofile()

    loops = [x.strip() for x in args.loops.split(",") if x.strip()]
    if not loops or any(x not in ("asyncio", "uvloop") for x in loops):
        ap.error("--loops: a comma-separated list of asyncio, uvloop")
    # The Atout servers of the run: this tree on each loop, then the baseline tree (if any) on
    # the first loop.
    variants: list[tuple[str, str, str]] = [(lp, ROOT, lp) for lp in loops]
    if args.baseline:
        base = os.path.abspath(args.baseline)
        variants.append(("base", base, loops[0]))  # on the first loop (it may lack --loop)
    first = variants[0][0]

    def key(name: str, label: str) -> str:  # one variant: the plain names of earlier runs
        return name if label == first else f"{name}@{label}"

    tmp = tempfile.mkdtemp(prefix="atout-load-")
    pg = None
    one_db = args.postgres or (args.db or "").startswith("postgresql:")
    if one_db and len(variants) > 1:
        ap.error("one PostgreSQL database cannot serve several servers: no --loops/--baseline")
    if args.postgres:
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        from helpers_pg import HOW_TO_GET_IT, PgServer, find_bindir

        bindir = find_bindir()
        if bindir is None:
            ap.error(HOW_TO_GET_IT)
        pg = PgServer(bindir, durable=True).start()
        args.db = pg.url()
    atouts: dict[str, Server] = {}
    echos: dict[str, Server] = {}
    report: dict[str, Any] = {
        "settings": {
            k: getattr(args, k)
            for k in (
                "mode",
                "clients",
                "duration",
                "warmup",
                "pace",
                "procs",
                "seed",
                "repeat",
                "workers",
                "echo_one_socket",
            )
        }
        | {"loops": loops, "baseline": args.baseline, "rate": RATE, "burst": BURST},
        "machine": {"cpus": os.cpu_count(), "loadavg_start": os.getloadavg()[0]},
        "phases": {},
    }
    phases = report["phases"]
    print(
        f"Atout load benchmark: mode {args.mode}, {args.clients} clients, {args.duration:g} s "
        f"per mode (+{args.warmup:g} s warm-up), pace {args.pace:g} s, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f}; servers' rate limit {RATE}/s, burst {BURST}"
    )
    try:
        for label, root, lp in variants:
            d = os.path.join(tmp, label)
            os.makedirs(d)
            db = args.db
            if db is not None and not db.startswith("postgresql:"):
                db = f"{db}.{label}"  # a SQLite file of its own for each server
            atouts[label] = srv = start_atout(
                d,
                max(5000, args.clients + 100),
                args.workers,
                db,
                profile=args.profile,
                root=root,
                loop=lp,
            )
            print(f"atout [{label}] pid {srv.pid} {srv.url} (source {root}, loop {lp})")
        for lp in loops:
            echos[lp] = srv = start_echo(lp)
            print(f"echo [{lp}] pid {srv.pid} {srv.url}")
        if args.mode in ("idle", "all"):
            idle_runs = [(atouts[v[0]], "idle", v[0]) for v in variants]
            idle_runs += [(echos[lp], "echo", lp) for lp in loops]
            for srv, mode, label in idle_runs:
                run_phase(Phase(mode, 20), srv, args)  # warm-up: lazy imports, first buffers
                time.sleep(args.settle)
                ph = run_phase(Phase(mode, idle_n), srv, args)
                name = key(f"idle_{srv.name}", label)
                phases[name] = ph
                _print_phase(name, ph)
        for mode in ("ai", "humans"):
            if args.mode not in (mode, "all"):
                continue
            # --repeat N: the servers take turns N times (A B C A B C ...), so that a change
            # of the machine's load touches them alike; each figure is the median of its runs.
            runs: dict[str, list[dict[str, Any]]] = {}
            g = 1 if mode == "ai" else 4
            for rep in range(args.repeat):
                for label, _, _ in variants:
                    ph = run_phase(Phase(mode, args.clients), atouts[label], args)
                    runs.setdefault(key(mode, label), []).append(ph)
                    _print_phase(key(mode, label) + _rep(rep, args.repeat), ph)
                if args.no_echo:
                    continue
                for lp in loops:
                    prof = tuple(runs[key(mode, lp)][-1]["profile"])
                    eph = run_phase(
                        Phase("echo", args.clients, args.clients, prof, g), echos[lp], args
                    )
                    runs.setdefault(key(f"echo_{mode}", lp), []).append(eph)
                    _print_phase(key(f"echo_{mode}", lp) + _rep(rep, args.repeat), eph)
            for name, rs in runs.items():
                phases[name] = _median_phase(rs)
                if args.repeat > 1:
                    _print_phase(f"{name} (median of {len(rs)})", phases[name])
        if args.mode == "echo":
            for lp in loops:
                ph = run_phase(Phase("echo", args.clients, args.clients), echos[lp], args)
                phases[key("echo", lp)] = ph
                _print_phase(key("echo", lp), ph)
    finally:
        logs = []
        for label, started in [*atouts.items(), *(("echo-" + k, v) for k, v in echos.items())]:
            peak = started.hwm_kib() if started.popen.poll() is None else None
            report[key(f"{started.name}_peak_rss_kib", label.removeprefix("echo-"))] = peak
            started.stop()
            if started.name == "atout":
                logs.append(_log_tail(os.path.join(tmp, label)))
        shutil.rmtree(tmp, ignore_errors=True)
        if pg is not None:
            pg.stop()
    log = "\n".join(x for x in logs if x)
    log_errors = sum(1 for ln in log.splitlines() if " ERROR " in ln or "Traceback" in ln)
    report["server_log_errors"] = log_errors
    if log_errors:
        print(f"server log errors:\n{log}")

    # Ratios to the echo server (on the same loop) and the targets.
    ratios: dict[str, Any] = {}
    targets: dict[str, Any] = {}
    for mode in ("ai", "humans"):
        for label, _, lp in variants:
            ph, eph = phases.get(key(mode, label)), phases.get(key(f"echo_{mode}", lp))
            if ph is None or eph is None:
                continue
            r = {
                "throughput": _ratio(ph["requests_per_s"], eph["requests_per_s"]),
                # Capacity on one free core, from CPU time per request: immune to what else
                # the machine runs, and to the clients being the bottleneck of the echo run.
                "capacity_cpu_normalised": _ratio(
                    eph["server_cpu_us_per_request"], ph["server_cpu_us_per_request"]
                ),
                # The same, Atout charged with the reviews and writes its phase left behind.
                "capacity_cpu_normalised_with_leftover": _ratio(
                    eph["server_cpu_us_per_request"],
                    ph.get("server_cpu_us_per_request_with_leftover"),
                ),
                "p50_event_over_first_reply": _ratio(
                    ph["lat_event_ms"]["p50"], eph["lat_event_ms"]["p50"]
                ),
                "p99_event_over_first_reply": _ratio(
                    ph["lat_event_ms"]["p99"], eph["lat_event_ms"]["p99"]
                ),
                "p99_turn_over_last_reply": _ratio(
                    ph["lat_turn_ms"]["p99"], eph["lat_turn_ms"]["p99"]
                ),
            }
            name = key(mode, label)
            ratios[name] = r
            print(
                f"{name} vs echo [{lp}]: throughput x{r['throughput']} (CPU per request: x"
                f"{r['capacity_cpu_normalised']}, with what the phase left: x"
                f"{r['capacity_cpu_normalised_with_leftover']}), p50 latency "
                f"x{r['p50_event_over_first_reply']}, p99 latency "
                f"x{r['p99_event_over_first_reply']}"
            )
            if label == first:
                want = 0.6 if mode == "humans" else 0.5
                targets[f"{mode}_throughput_at_least_{want}_echo"] = (r["throughput"] or 0) >= want
                # Where the clients, sharing the cores, bind the echo's run, its throughput
                # flatters the ratio: the server's own cost per request says what it can carry.
                targets[f"{mode}_cpu_per_request_at_least_{want}_echo"] = (
                    r["capacity_cpu_normalised_with_leftover"] or 0
                ) >= want
        p99 = (
            phases[key(mode, first)]["lat_event_ms"]["p99"] if key(mode, first) in phases else None
        )
        if key(mode, first) in phases:
            n = phases[key(mode, first)]["clients"]
            targets[f"{mode}_p99_under_50ms_at_{n}_players"] = p99 is not None and p99 < 50
    # The same phases of two variants: loops against the first, baseline against this tree.
    comparisons: dict[str, Any] = {}
    pairs = [(lp, loops[0]) for lp in loops[1:]]  # another loop / the first one
    if args.baseline:
        pairs.append((loops[0], "base"))  # this tree / the baseline, on the same loop
    for label, ref in pairs:
        for name in ("ai", "humans", "idle_atout"):
            a, b = phases.get(key(name, label)), phases.get(key(name, ref))
            if a is None or b is None:
                continue
            c = (
                {"kib_per_connection": _ratio(a["kib_per_connection"], b["kib_per_connection"])}
                if "kib_per_connection" in a
                else {
                    "requests_per_s": _ratio(a["requests_per_s"], b["requests_per_s"]),
                    "cpu_us_per_request": _ratio(
                        a["server_cpu_us_per_request"], b["server_cpu_us_per_request"]
                    ),
                    "p99_event": _ratio(a["lat_event_ms"]["p99"], b["lat_event_ms"]["p99"]),
                }
            )
            comparisons[f"{key(name, label)} / {key(name, ref)}"] = c
            print(
                f"{key(name, label)} / {key(name, ref)}: "
                + ", ".join(f"{k} x{v}" for k, v in c.items())
            )
    for lp in loops[1:]:
        for name in ("echo_ai", "echo_humans"):
            a, b = phases.get(key(name, lp)), phases.get(key(name, loops[0]))
            if a is not None and b is not None:
                c = {
                    "requests_per_s": _ratio(a["requests_per_s"], b["requests_per_s"]),
                    "cpu_us_per_request": _ratio(
                        a["server_cpu_us_per_request"], b["server_cpu_us_per_request"]
                    ),
                }
                comparisons[f"{key(name, lp)} / {name}"] = c
                print(f"{key(name, lp)} / {name}: " + ", ".join(f"{k} x{v}" for k, v in c.items()))
    if "idle_atout" in phases:
        targets["idle_under_25_kib_per_connection"] = (
            phases["idle_atout"]["kib_per_connection"] < 25
        )
    total_errors = sum(_errors_of(p) for p in phases.values()) + log_errors
    targets["zero_errors"] = total_errors == 0
    report.update(ratios=ratios, comparisons=comparisons, targets=targets, errors=total_errors)
    report["machine"]["loadavg_end"] = os.getloadavg()[0]
    print(
        "peak RSS (VmHWM): "
        + ", ".join(
            f"{k.replace('_peak_rss_kib', '')} {(v or 0) // 1024} MiB"
            for k, v in report.items()
            if "_peak_rss_kib" in k
        )
    )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    for name, ok in targets.items():
        print(f"target {name}: {'met' if ok else 'MISSED'}")
    if args.json:
        for p in phases.values():
            for k in ("lat_event_ms", "lat_turn_ms", "lat_ok_ms", "client_loop_lag_ms"):
                if k in p:
                    p[k].pop("n", None)
        print(json.dumps(report))
    return 0 if total_errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

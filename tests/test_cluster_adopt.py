"""Adopting the tables of a lost worker (docs/SCALING.md section 3): two worker processes with
different host names share one database; a player plays at a table of the first; the first is
lost (SIGKILL, or SIGSTOP past its lease); the second adopts the table (compare-and-set of its
owner row with a new ownership epoch), rebuilds it by replay, and the player reconnects with
the token, is redirected there and finishes the series. Every action the player was told was
accepted is in the stored records, every stored deal is one the player saw, each once, and a
stopped worker that wakes up never writes to the table again (its writes are fenced).

The SIGSTOP test runs on PostgreSQL only: on SQLite a process stopped inside a write
transaction would hold the file's lock until it is woken (one host, one file: the supervisor's
restart is the remedy there, docs/SCALING.md).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from helpers_server import STARTED, TIMEOUT, Client, choose, is_event, table_finished
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidHandshake

from server.store import is_postgres, open_registry, open_store

ROOT = Path(__file__).resolve().parent.parent
LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)")
LEASE = 3.0  # the lease of --heartbeat 0.2: max(5 x 0.2, 3 s)


class Worker:
    """``atout-server serve`` as one worker of a cluster, on a host of its own name."""

    def __init__(self, db: str, n: int, log: Path) -> None:
        self.db, self.n, self.log_path = db, n, log
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0
        self.lines: list[str] = []
        self._reader: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    async def start(self) -> None:
        ident = ["--worker-slot", "0"] if is_postgres(self.db) else ["--worker-id", str(self.n)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port", "0",
            "--db", self.db, *ident, "--host-name", f"host{self.n}", "--heartbeat", "0.2",
            "--think-delay", "0.05", "--deal-pause", "0", "--absent-wait", "30",
            "--grace", "60", "--log-format", "json", "--log-level", "info",
            cwd=ROOT, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, env=env,
        )  # fmt: skip
        STARTED.append(self.proc.pid)
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read(port))
        self.port = await asyncio.wait_for(port, 30)

    async def _read(self, port: asyncio.Future[int]) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        async for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            self.lines.append(line)
            m = LISTENING.search(line)
            if m and not port.done():
                port.set_result(int(m.group(1)))
        if not port.done():
            port.set_exception(RuntimeError("the worker exited:\n" + "\n".join(self.lines)))

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    async def stop(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGCONT)
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), 20)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        if self._reader is not None:
            await self._reader
        self.log_path.write_text("\n".join(self.lines))

    def logged(self, text: str) -> bool:
        return any(text in line for line in self.lines)


async def connect_to(url: str, name: str) -> Client:
    ws = await connect(url, subprotocols=["atout.v1"], max_size=None, open_timeout=TIMEOUT)  # type: ignore[list-item]
    return Client(ws, name)


class Ann:
    """One human at a table of three AI: plays her turns, follows redirects, reconnects."""

    def __init__(self) -> None:
        self.rng = random.Random(5)
        self.c: Client | None = None
        self.token: str | None = None
        self.tid = ""
        self.accepted: list[dict[str, Any]] = []  # the actions the server said ok to
        self.clients: list[Client] = []

    async def hello(self, url: str) -> dict[str, Any]:
        c = await connect_to(url, "ann")
        self.clients.append(c)
        w = await c.request({"type": "hello", "version": 1, "name": "ann", "token": self.token})
        self.c = c
        return w

    async def resume_somewhere(self, urls: list[str], timeout: float = 30) -> str:
        """Reconnect with the token: to each URL in turn, following ``wrong_worker``, until
        a worker resumes the seat; the URL that did."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for url in urls:
                try:
                    w = await asyncio.wait_for(self.hello(url), 3)
                    if w.get("type") == "error" and w.get("code") == "wrong_worker":
                        url = w["details"]["url"]
                        w = await asyncio.wait_for(self.hello(url), 5)
                except (OSError, TimeoutError, AssertionError, InvalidHandshake):
                    # InvalidHandshake: a worker being killed may accept the TCP connection
                    # and close it before answering the upgrade (seen on a loaded machine)
                    continue
                if w.get("type") == "welcome" and w.get("resumed"):
                    return str(url)
            await asyncio.sleep(0.2)
        raise AssertionError("the seat could not be resumed anywhere")

    async def play(self, until: Any, timeout: float = 30) -> bool:
        """Play our turns until ``until(msg)``; False when the connection stops answering."""
        c = self.c
        assert c is not None
        i = c.play_cursor
        deadline = time.monotonic() + timeout
        while True:
            try:
                i, m = await c.wait_for(
                    lambda _m: True, i, timeout=max(0.1, deadline - time.monotonic())
                )
            except AssertionError:
                return False  # closed, or silent (a stopped worker)
            i += 1
            c.play_cursor = i
            if until(m):
                return True
            if m["type"] == "your_turn" and m["table"] == self.tid:
                action = {**choose(m["legal"], self.rng), "table": self.tid}
                try:
                    r = await asyncio.wait_for(c.request(action), 3)
                except (TimeoutError, AssertionError):
                    return False
                if r["type"] == "ok":
                    self.accepted.append(action)
                elif r["type"] == "error" and r["code"] in (
                    "storage_unavailable",
                    "not_your_turn",
                    "wrong_phase",
                ):
                    continue  # fenced, or a prompt overtaken by a resume: nothing was taken
                else:
                    raise AssertionError(f"unexpected answer {r}")

    def seen_records(self) -> dict[int, dict[str, Any]]:
        """deal_no -> the record every connection of hers saw in ``deal_over``."""
        out: dict[int, dict[str, Any]] = {}
        for c in self.clients:
            deal_no = 0
            for m in c.msgs:
                if m.get("table") != self.tid:
                    continue
                if m["type"] == "snapshot":
                    deal_no = m["info"]["deal_no"]
                elif is_event("deal_start")(m):
                    deal_no = m["event"]["deal_no"]
                elif is_event("deal_over")(m):
                    rec = m["event"]["record"]
                    assert out.get(deal_no, rec) == rec, f"deal {deal_no} seen twice, differing"
                    out[deal_no] = rec
        return out


def _key(a: dict[str, Any]) -> tuple[Any, ...]:
    return (a["type"], a.get("card"), a.get("contract"), tuple(sorted(a.get("cards") or [])))


def check_nothing_lost(db: str, ann: Ann) -> None:
    """Every accepted action of Ann's is in the stored deals, every stored deal is one she saw
    (byte for byte), each deal number once, and nothing is left in progress."""
    store = open_store(db, readonly=True)
    try:
        stored = {d["meta"]["deal_no"]: d for d in store.deals(ann.tid)}
        assert store.unfinished_deals() == []
        table = store.table(ann.tid)
    finally:
        store.close()
    seen = ann.seen_records()
    assert table is not None and table["status"] == "finished"
    assert sorted(stored) == list(range(1, len(stored) + 1))
    for no, rec in stored.items():
        assert {k: v for k, v in rec.items() if k != "meta"} == seen[no], f"deal {no}"
    mine = [_key(a) for rec in stored.values() for a in rec["actions"] if a["seat"] == 0]
    for a in ann.accepted:
        assert _key(a) in mine, f"accepted {a} is not stored"


async def _set_up(db: str, tmp_path: Path) -> tuple[Worker, Worker, Ann]:
    one, two = Worker(db, 0, tmp_path / "w0.log"), Worker(db, 1, tmp_path / "w1.log")
    await one.start()
    await two.start()
    ann = Ann()
    w = await ann.hello(one.url)
    assert w["type"] == "welcome"
    assert ann.c is not None
    created = await ann.c.request({"type": "create_table", "deals": 2, "think_delay": 0.05})
    ann.tid = created["table"]["table"]
    joined = await ann.c.request({"type": "join", "table": ann.tid, "seat": 0})
    ann.token = joined["token"]
    assert (await ann.c.request({"type": "start", "table": ann.tid}))["type"] == "ok"
    assert await ann.play(is_event("trick", number=3))  # well into the first deal
    return one, two, ann


def dump(one: Worker, two: Worker, ann: Ann) -> None:
    """What a failing run saw (pytest shows it with the failure)."""
    for w in (one, two):
        print(f"--- worker {w.n} log (last lines)")
        print("\n".join(w.lines[-40:]))
    if ann.c is not None:
        print("--- the player's last messages")
        for m in ann.c.msgs[-15:]:
            print(json.dumps(m)[:300])


async def metric(w: Worker, name: str) -> float:
    """One sample of a worker's /metrics."""

    def get() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{w.port}/metrics", timeout=10) as r:
            return str(r.read().decode())

    text = await asyncio.to_thread(get)
    (value,) = re.findall(rf"^{name} (\S+)$", text, re.M)
    return float(value)


def owner_of(db: str, tid: str) -> tuple[int | None, bool]:
    reg = open_registry(db)
    try:
        owner, closed, _ = reg.table_owner(tid)
        return owner, closed
    finally:
        reg.close()


async def test_sigkill_a_worker_and_its_table_carries_on_elsewhere(db: str, tmp_path: Path) -> None:
    one, two, ann = await _set_up(db, tmp_path)
    try:
        first_owner, _ = owner_of(db, ann.tid)
        killed = time.monotonic()
        one.signal(signal.SIGKILL)
        assert ann.c is not None
        url = await ann.resume_somewhere([two.url], timeout=LEASE + 20)
        assert url == two.url
        resumed_after = time.monotonic() - killed
        assert await ann.play(table_finished, timeout=60)
        owner, _ = owner_of(db, ann.tid)
        assert owner != first_owner and owner is not None
        assert two.logged("adopted table")
        assert await metric(two, "atout_cluster_tables_adopted_total") >= 1
        assert await metric(two, "atout_cluster_tables_lost_total") == 0
        print(f"\nadopted and resumed {resumed_after:.2f} s after SIGKILL (lease {LEASE} s)")
    except BaseException:
        dump(one, two, ann)
        raise
    finally:
        await one.stop()
        await two.stop()
        for c in ann.clients:
            await c.close()
    check_nothing_lost(db, ann)


async def test_sigstop_past_the_lease_and_the_woken_worker_never_writes(
    pg_url: str, tmp_path: Path
) -> None:
    db = pg_url
    one, two, ann = await _set_up(db, tmp_path)
    try:
        first_owner, _ = owner_of(db, ann.tid)
        one.signal(signal.SIGSTOP)
        stopped = time.monotonic()
        # Ann's worker stops answering; the other adopts the table once the lease ran out
        url = await ann.resume_somewhere([two.url], timeout=LEASE + 20)
        assert url == two.url and time.monotonic() - stopped >= LEASE * 0.9
        owner, _ = owner_of(db, ann.tid)
        assert owner not in (None, first_owner)
        assert await ann.play(is_event("deal_start", deal_no=2), timeout=60)
        # wake the old worker in the middle of the second deal: it finds its table gone
        one.signal(signal.SIGCONT)
        deadline = time.monotonic() + 10
        while not one.logged("served by another worker now") and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert one.logged("served by another worker now"), "\n".join(one.lines[-20:])
        assert await metric(one, "atout_cluster_tables_lost_total") >= 1
        assert await metric(two, "atout_cluster_tables_adopted_total") >= 1
        assert await ann.play(table_finished, timeout=60)
        assert owner_of(db, ann.tid)[0] == owner
    except BaseException:
        dump(one, two, ann)
        raise
    finally:
        await one.stop()
        await two.stop()
        for c in ann.clients:
            await c.close()
    check_nothing_lost(db, ann)
    # the woken worker wrote nothing: no write of its landed after the adoption
    woke = [json.loads(x) for x in one.lines if x.startswith("{")]
    assert not [e for e in woke if "writes lost" in e.get("msg", "")], woke[-5:]

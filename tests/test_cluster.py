"""Cluster mode for real: ``atout-server serve --workers 2`` (the supervisor) runs two worker
processes on consecutive free ports sharing one temporary database: a SQLite file (worker n is
the one on port P+n), then a PostgreSQL database (the registry allocates the ids).

A table created on worker 0 is listed by worker 1 with worker 0's URL; asking worker 1 to join
it answers ``wrong_worker`` with that URL; the client follows it and plays a whole deal.
Killing worker 0 (SIGKILL) does not disturb a table playing on worker 1, and the supervisor
restarts worker 0. SIGTERM stops everything cleanly and leaves no registration behind.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from fixtures_pg import new_database
from helpers_server import TIMEOUT, Client, autoplay, is_event, table_finished
from websockets.asyncio.client import connect

from server.rules.records import replay_line
from server.store import open_registry, open_store

ROOT = Path(__file__).resolve().parent.parent


def free_port_pair() -> int:
    """A port P such that P and P + 1 are both free now."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            p = s.getsockname()[1]
        if p >= 65535:
            continue
        try:
            with socket.socket() as s1, socket.socket() as s2:
                s1.bind(("127.0.0.1", p))
                s2.bind(("127.0.0.1", p + 1))
        except OSError:
            continue
        return int(p)
    raise RuntimeError("no two consecutive free ports")


@dataclass
class Running:
    proc: subprocess.Popen[bytes]
    port: int
    db: str
    log: Path

    def url(self, n: int) -> str:
        return f"ws://127.0.0.1:{self.port + n}/"

    def workers(self) -> dict[int, tuple[str, int, int]]:
        """place n (port P+n) -> (url, pid, worker id) of the live registrations now."""
        try:
            reg = open_registry(self.db)
        except Exception:  # not created yet
            return {}
        try:
            return {
                int(r.url.rsplit(":", 1)[1].strip("/")) - self.port: (r.url, r.pid, r.worker)
                for r in reg.workers()
                if r.url
            }
        finally:
            reg.close()

    def worker_id(self, n: int) -> int:
        return self.workers()[n][2]

    def healthy(self, n: int) -> bool:
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{self.port + n}/healthz", timeout=1
            ) as r:
                return bool(r.status == 200)
        except OSError:
            return False

    def wait_ready(self, n: int, not_pid: int | None = None, timeout: float = 15) -> int:
        """Wait until worker n is registered (by a pid other than ``not_pid``) and healthy."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()
            reg = self.workers().get(n)
            if reg is not None and reg[1] != not_pid and self.healthy(n):
                assert reg[0] == self.url(n)
                return reg[1]
            time.sleep(0.05)
        raise AssertionError(f"worker {n} not ready:\n{self.log.read_text()[-3000:]}")


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Running]:
    tmp = tmp_path_factory.mktemp("cluster")
    port = free_port_pair()
    log = tmp / "server.log"
    if request.param == "sqlite":
        db = str(tmp / "atout.db")
    else:
        db = new_database(request.getfixturevalue("pg_server"))
    cmd = [sys.executable, "-m", "server.cli", "serve", "--workers", "2", "--port", str(port)]
    cmd += ["--db", db, "--think-delay", "0", "--deal-pause", "0", "--heartbeat", "0.2"]
    cmd += ["--lease", "60"]  # not about adoption: a stalled worker must not lose its tables
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    running = Running(proc, port, db, log)
    try:
        running.wait_ready(0)
        running.wait_ready(1)
        yield running
    finally:
        if proc.poll() is None:
            proc.kill()  # its workers notice their supervisor is gone and stop
            proc.wait()


async def connect_url(url: str, name: str, *, hello: bool = True) -> Client:
    ws = await connect(url, subprotocols=["atout.v1"], max_size=None, open_timeout=TIMEOUT)  # type: ignore[list-item]
    c = Client(ws, name)
    if hello:
        w = await c.request({"type": "hello", "version": 1, "name": name})
        assert w["type"] == "welcome", w
    return c


async def listed(c: Client, table: str, present: bool = True, timeout: float = 5) -> list[Any]:
    """Poll ``list_tables`` until ``table`` is (or is not) in it; its entries."""
    deadline = time.monotonic() + timeout
    while True:
        tables = (await c.request({"type": "list_tables"}))["tables"]
        found = [t for t in tables if t["table"] == table]
        if bool(found) == present:
            return found
        assert time.monotonic() < deadline, f"{table} listed: {not present}; {tables}"
        await asyncio.sleep(0.05)


async def test_redirect_follow_and_play(cluster: Running) -> None:
    ada = await connect_url(cluster.url(0), "Ada")
    bob = await connect_url(cluster.url(1), "Bob")
    created = await ada.request({"type": "create_table", "name": "on worker 0", "deals": 1})
    info = created["table"]
    tid = info["table"]
    w0 = cluster.worker_id(0)
    assert tid.startswith(f"w{w0}-") and info["url"] == cluster.url(0)

    # Worker 1 lists worker 0's table, with worker 0's URL.
    (entry,) = await listed(bob, tid)
    assert entry["url"] == cluster.url(0) and entry["name"] == "on worker 0"

    # Worker 1 sends Bob to worker 0.
    e = await bob.request({"type": "join", "table": tid})
    assert e["type"] == "error" and e["code"] == "wrong_worker", e
    assert e["details"] == {"url": cluster.url(0), "worker": w0, "table": tid}
    e = await bob.request({"type": "watch", "table": tid})
    assert e["code"] == "wrong_worker"

    # Bob follows the redirect and plays the whole deal there (three AI seats).
    there = await connect_url(e["details"]["url"], "Bob")
    await there.join(tid)
    assert (await there.request({"type": "start", "table": tid}))["type"] == "ok"
    await autoplay(there, tid, random.Random(5), table_finished)
    # One played deal; before it, any annulled deal (R3.1, R3.2) is dealt again.
    overs = [m for m in there.events(tid) if is_event("deal_over")(m)]
    assert [m["event"]["result"]["status"] for m in overs][-1] == "played"
    over = overs[-1]
    record = over["event"]["record"]
    ok, result = replay_line(msgspec.json.encode(record))
    assert ok and result == over["event"]["result"]
    assert there.decode_errors == [] and bob.decode_errors == []

    # His seat token, shown to worker 1, is redirected too (resume, and hello with a token).
    e = await bob.request({"type": "resume", "token": there.token})
    assert e["code"] == "wrong_worker" and e["details"]["url"] == cluster.url(0)
    fresh = await connect_url(cluster.url(1), "Bob", hello=False)
    e = await fresh.request({"type": "hello", "version": 1, "name": "Bob", "token": there.token})
    assert e["code"] == "wrong_worker" and e["details"]["table"] == tid

    # The deal is stored once, in the shared database (written just after its events).
    deadline = time.monotonic() + 10
    while True:
        store = open_store(cluster.db, readonly=True)
        try:
            stored = [(d["result"]["status"],) for d in store.deals(tid)]
        finally:
            store.close()
        if stored or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    assert stored == [(over["event"]["result"]["status"],)]
    for c in (ada, bob, there, fresh):
        await c.close()


async def test_killing_a_worker_leaves_the_other_alone(cluster: Running) -> None:
    old_pid = cluster.wait_ready(0)
    ada = await connect_url(cluster.url(0), "Ada")
    on_a = (await ada.request({"type": "create_table", "name": "doomed"}))["table"]["table"]
    bob = await connect_url(cluster.url(1), "Bob")
    tid = (await bob.request({"type": "create_table", "name": "safe", "deals": 3, "ai": "random"}))[
        "table"
    ]["table"]
    assert tid.startswith(f"w{cluster.worker_id(1)}-")
    await listed(bob, on_a)
    await bob.join(tid)
    assert (await bob.request({"type": "start", "table": tid}))["type"] == "ok"
    rng = random.Random(7)
    await autoplay(bob, tid, rng, is_event("trick"))  # mid-deal

    os.kill(old_pid, signal.SIGKILL)
    # Worker 1 stops listing the dead worker's tables at once, and its own table plays on.
    await listed(bob, on_a, present=False, timeout=3)
    await autoplay(bob, tid, rng, table_finished)
    assert not bob.is_closed
    deals = [m for m in bob.events(tid) if is_event("deal_over")(m)]
    # `deals` counts played deals: one nobody took (annulled, R3) is dealt again
    played = [m for m in deals if m["event"]["result"]["status"] == "played"]
    assert len(played) == 3

    # The supervisor brought worker 0 back (new process, same port and URL).
    new_pid = cluster.wait_ready(0, not_pid=old_pid)
    assert new_pid != old_pid
    again = await connect_url(cluster.url(0), "Ada")
    back = (await again.request({"type": "create_table", "name": "back"}))["table"]["table"]
    await listed(bob, back)
    for c in (bob, again):
        await c.close()


def test_supervisor_stops_cleanly(cluster: Running) -> None:
    pids = [pid for _, pid, _ in cluster.workers().values()]
    assert len(pids) == 2
    # SIGHUP (a closed terminal) stops it as cleanly as SIGTERM: one on each database
    cluster.proc.send_signal(signal.SIGHUP if cluster.db.endswith(".db") else signal.SIGTERM)
    assert cluster.proc.wait(15) == 0
    assert cluster.workers() == {}  # both deregistered
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)

"""No child of a SIGKILLed server survives it: the strong AI's worker processes (and the
multiprocessing resource tracker behind them) exit once their parent is gone, so nothing keeps
the server's output pipes open (a supervisor waiting for EOF on them would wait forever) or
its CPU (server/ai/runner.py, its pool initializer's watchdog)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from helpers_server import Client, create_table
from test_crash import ServerProcess

from server.store.base import pid_alive


def children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rindex(b")") + 2 :].split()
        parents[int(entry)] = int(rest[1])
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for c, pp in parents.items():
            if pp == p and c not in out:
                out.add(c)
                todo.append(c)
    return out


async def test_no_child_outlives_a_killed_server(tmp_path: Path) -> None:
    srv = ServerProcess(str(tmp_path / "kill.db"))
    port = await srv.start()
    assert srv.proc is not None
    c = await Client.connect(port, "ann")
    # A table of strong bots: their card decisions run in the runner's worker processes.
    tid = await create_table(c, ai=["strong"] * 4, deals=50)
    assert (await c.request({"type": "start", "table": tid}))["type"] != "error"
    deadline = time.monotonic() + 60
    kids: set[int] = set()
    while time.monotonic() < deadline:
        kids = children(srv.proc.pid)
        if len(kids) >= 2:  # a worker and the resource tracker
            break
        await asyncio.sleep(0.2)
    assert len(kids) >= 2, f"the server started no worker process: {kids}"
    await c.close()
    # kill() waits for the server and for EOF on its stderr: a child still holding the pipe
    # would make it wait, so it gets a deadline here.
    await asyncio.wait_for(srv.kill(), 30)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(pid_alive(k) for k in kids):
        await asyncio.sleep(0.1)
    assert not [k for k in kids if pid_alive(k)], "children outlived the killed server"

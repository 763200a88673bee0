"""Hostile clients against the server (issue 9), each measured on this tree and on a baseline
revision checked out into a temporary folder, in the same run:

* ``reader``: 500 public tables, then clients that send ``list_tables`` 90 times a second and
  never read: the server's peak memory (VmHWM) over the run, and how it ended (4008 or not).
* ``cpu``: one connection starts 20 tables of bots only at think delay 0 while a player plays a
  table of its own (one human, three AI): the player's round trip per action (p50, p99) and the
  server's CPU, against the same player alone.
* ``churn``: 2,000 connections opened, greeted and closed, three rounds: the server's memory
  after each round, with the serve command's collector settings (``gc.freeze`` and threshold
  50,000) and with Python's defaults, and the longest collector pause.

    .venv/bin/python bench/hostile.py                     # all, against revision 3245940
    .venv/bin/python bench/hostile.py --only churn --baseline HEAD~3
    .venv/bin/python bench/hostile.py --quick             # smaller, under a minute

Servers run as their own processes on 127.0.0.1 with temporary databases and are stopped at the
end. The figures are noisy (a shared machine): compare the two columns of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
CLK_TCK = os.sysconf("SC_CLK_TCK")
BASELINE = "3245940"  # the revision issue 9 was measured on


# -- servers ------------------------------------------------------------------------------------


class Proc:
    def __init__(self, tree: Path, port: int, tmp: str, extra: list[str], gc_default: bool):
        # gc_default: run the serve command with Python's own collector settings
        boot = (
            "import gc, sys; gc.freeze = lambda: None; gc.set_threshold = lambda *a: None; "
            if gc_default
            else "import sys; "
        )
        code = boot + "sys.argv[0] = 'atout-server'; from server.cli import main; sys.exit(main())"
        args = [
            "serve",
            "--host", "127.0.0.1", "--port", str(port), "--db", os.path.join(tmp, "b.db"),
            "--log-level", "warning",
            *extra,
        ]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self.log = open(os.path.join(tmp, "server.log"), "ab")  # noqa: SIM115
        self.popen = subprocess.Popen(
            [sys.executable, "-c", code, *args],
            cwd=tree,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.port = port
        deadline = time.monotonic() + 30
        while True:
            if self.popen.poll() is not None:
                raise RuntimeError(f"server exited: {Path(tmp, 'server.log').read_text()[-800:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def status(self, key: str) -> int:
        for line in Path(f"/proc/{self.popen.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return 0

    def cpu(self) -> float:
        data = Path(f"/proc/{self.popen.pid}/stat").read_text()
        fields = data[data.rindex(")") + 2 :].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def metric(self, name: str) -> float:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as r:
            text = r.read().decode()
        m = re.search(rf"^{name}(?:\{{[^}}]*\}})? (\S+)$", text, re.M)
        return float(m.group(1)) if m else 0.0

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
        self.log.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def server(tree: Path, extra: list[str] | None = None, gc_default: bool = False) -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        p = Proc(tree, free_port(), tmp, extra or [], gc_default)
        try:
            yield p
        finally:
            p.stop()


@contextlib.contextmanager
def baseline_tree(rev: str) -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        yield Path(tmp)


# -- clients ------------------------------------------------------------------------------------


async def client(port: int, name: str) -> ClientConnection:
    ws = await connect(f"ws://127.0.0.1:{port}", subprotocols=["atout.v1"], max_size=None)  # type: ignore[list-item]
    await ws.send(json.dumps({"type": "hello", "id": 0, "version": 1, "name": name}))
    await ws.recv()
    return ws


async def request(ws: ClientConnection, msg: dict[str, Any]) -> dict[str, Any]:
    rid = random.getrandbits(40)
    await ws.send(json.dumps({**msg, "id": rid}))
    while True:
        m = json.loads(await ws.recv())
        if m.get("id") == rid:
            return m


async def make_tables(port: int, n: int, **opts: Any) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        ws = await client(port, "maker")
        for _ in range(min(20, n - len(out))):
            r = await request(ws, {"type": "create_table", **opts})
            out.append(r["table"]["table"])
        # the connection stays open: its tables stay open too
        _keep.append(ws)
    return out


_keep: list[ClientConnection] = []


async def reader_run(port: int, p: Proc, seconds: float, clients: int) -> dict[str, Any]:
    await make_tables(port, 500, name="a public table with a name of a usual length")
    base = p.status("VmRSS")
    conns = [await client(port, f"never{i}") for i in range(clients)]
    for ws in conns:
        ws.transport.pause_reading()
    t_end = time.monotonic() + seconds
    closed = 0
    i = 0
    while time.monotonic() < t_end:
        for ws in conns:
            with contextlib.suppress(Exception):
                await ws.send(json.dumps({"type": "list_tables", "id": i}))
        i += 1
        await asyncio.sleep(1 / 90)
    for ws in conns:
        ws.transport.resume_reading()
        try:
            async with asyncio.timeout(10):
                async for _ in ws:
                    pass
        except Exception:
            pass
        if ws.close_code == 4008:
            closed += 1
    return {
        "rss_before_mib": base / 1024,
        "peak_mib": p.status("VmHWM") / 1024,
        "closed_4008": closed,
        "clients": clients,
    }


async def play_one_table(port: int, seconds: float) -> list[float]:
    """A player at a table with three AI, acting 20 ms after each prompt: round trip per
    action (seconds), from sending it to its `ok`."""
    ws = await client(port, "victim")
    r = await request(
        ws,
        {"type": "create_table", "deals": 1000, "think_delay": 0, "deal_pause": 0, "ai": "random"},
    )
    tid = r["table"]["table"]
    await request(ws, {"type": "join", "table": tid})
    await request(ws, {"type": "start", "table": tid})
    rtts: list[float] = []
    t_end = time.monotonic() + seconds
    rng = random.Random(1)
    while time.monotonic() < t_end:
        m = json.loads(await ws.recv())
        if m["type"] != "your_turn":
            continue
        legal = m["legal"]
        if legal["plays"]:
            act: dict[str, Any] = {"type": "play", "card": rng.choice(legal["plays"])}
        elif legal["bids"]:
            act = {"type": "bid", "contract": "pass"}
        elif legal["discard"]:
            d = legal["discard"]
            act = {"type": "discard", "cards": (d["required"] + d["choices"])[: d["count"]]}
        else:
            act = {"type": "chelem", "announce": False}
        t0 = time.perf_counter()
        await ws.send(json.dumps({**act, "table": tid, "id": 1}))
        while True:
            a = json.loads(await ws.recv())
            if a.get("id") == 1:
                break
        rtts.append(time.perf_counter() - t0)
        await asyncio.sleep(0.02)  # 50 actions a second at most: well inside the rate limit
    await ws.close()
    return rtts


async def cpu_run(port: int, p: Proc, seconds: float, abuse: bool) -> dict[str, Any]:
    started = 0
    if abuse:
        ws = await client(port, "abuser")
        for _ in range(20):
            r = await request(
                ws,
                {
                    "type": "create_table",
                    "deals": 1000,
                    "think_delay": 0,
                    "deal_pause": 0,
                    "ai": "heuristic",
                },
            )
            s = await request(ws, {"type": "start", "table": r["table"]["table"]})
            started += s["type"] == "ok"
        _keep.append(ws)
        await asyncio.sleep(1)
    c0, t0 = p.cpu(), time.monotonic()
    rtts = await play_one_table(port, seconds)
    cpu = (p.cpu() - c0) / (time.monotonic() - t0)
    q = statistics.quantiles(rtts, n=100)
    return {
        "bot_tables_started": started,
        "actions": len(rtts),
        "p50_ms": q[49] * 1000,
        "p99_ms": q[98] * 1000,
        "server_cpu": cpu,
    }


async def churn_run(port: int, p: Proc, per_round: int, rounds: int) -> dict[str, Any]:
    out: dict[str, Any] = {"rss_start_mib": p.status("VmRSS") / 1024, "rounds_mib": []}
    for _ in range(rounds):
        for start in range(0, per_round, 50):
            batch = [await client(port, f"c{start + k}") for k in range(50)]
            for ws in batch:
                await request(ws, {"type": "list_tables"})
            for ws in batch:
                await ws.close()
        await asyncio.sleep(1)
        out["rounds_mib"].append(p.status("VmRSS") / 1024)
    out["gc_pause_max_ms"] = p.metric("atout_gc_pause_max_seconds") * 1000
    return out


# -- the runs -------------------------------------------------------------------------------------


def run(tree: Path, what: str, q: bool, label: str) -> dict[str, Any]:
    res: dict[str, Any] = {}
    # every client of this benchmark comes from 127.0.0.1: the per-address limits are not
    # what is measured here (except where said)
    many = ["--max-connections-per-address", "100000"] if label == "this tree" else []
    if what in ("all", "reader"):
        with server(tree, many) as p:
            res["reader"] = asyncio.run(reader_run(p.port, p, 8 if q else 22, 1 if q else 3))
            _keep.clear()
    if what in ("all", "cpu"):
        for name, abuse, extra in (
            ("alone", False, []),
            ("abused", True, []),
            ("abused, no bot-table limit", True, ["--max-bot-tables", "100"]),
        ):
            if label != "this tree" and "limit" in name:
                continue
            with server(tree, many + (extra if label == "this tree" else [])) as p:
                res[f"cpu {name}"] = asyncio.run(cpu_run(p.port, p, 5 if q else 15, abuse))
                _keep.clear()
    if what in ("all", "churn"):
        for gc_default in (False, True):
            with server(tree, many, gc_default=gc_default) as p:
                key = "churn, default gc" if gc_default else "churn, serve's gc settings"
                res[key] = asyncio.run(churn_run(p.port, p, 500 if q else 2000, 3))
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=("reader", "cpu", "churn"), default="all")
    ap.add_argument("--baseline", default=BASELINE, help="git revision to compare with")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with baseline_tree(a.baseline) as old:
        results = {
            "this tree": run(ROOT, a.only, a.quick, "this tree"),
            f"baseline {a.baseline}": run(old, a.only, a.quick, "baseline"),
        }
    for label, res in results.items():
        print(f"== {label}")
        for k, v in res.items():
            print(f"  {k}: " + ", ".join(f"{n}={_fmt(x)}" for n, x in v.items()))
    if a.json:
        print(json.dumps(results))
    return 0


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.2f}"
    if isinstance(x, list):
        return "[" + ", ".join(_fmt(y) for y in x) + "]"
    return str(x)


if __name__ == "__main__":
    sys.exit(main())

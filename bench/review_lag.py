"""Event-loop lag caused by the reviews of scored deals (par and ratings, issue 12), against a
baseline measured in the same run: the same server and load with reviews turned off.

A real server (``server.net.app.Server``, temporary SQLite database) runs in this process; one
WebSocket client creates ``--tables`` tables of ``random`` AI only (think delay ``--think``
seconds, no pause between deals) and starts them, so deals finish and are reviewed all the
time (with ``--think 0`` the tables play as fast as the server can: the loop is saturated and
every review competes with it). A probe task on the server's loop sleeps ``--probe-ms`` again
and again and records how late it wakes up: the lag every connection on this server sees.
The phases alternate off, on, off, on, ... (``--rounds``), each on a fresh server and
database, so that drift of a noisy machine hits both alike; figures are pooled per setting.

    .venv/bin/python bench/review_lag.py                      # about 50 s
    .venv/bin/python bench/review_lag.py --quick              # about 15 s
    .venv/bin/python bench/review_lag.py --think 0 --tables 8 # saturated loop

Prints, per setting: lag p50, p99, p99.9 and max, deals scored per second, reviews done and
the review backlog left at the end (a backlog that grows means reviews do not keep up), the
par CPU time per deal; then the ratios on/off.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from websockets.asyncio.client import connect

from server.config import Config
from server.net.app import Server
from server.store.aio import AsyncStore


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def probe(interval: float, stop: asyncio.Event, lags: list[float]) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        t = loop.time()
        await asyncio.sleep(interval)
        lags.append(max(0.0, loop.time() - t - interval))


async def request(ws: Any, obj: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(obj))
    while True:
        m = json.loads(await ws.recv())
        if m.get("id") == obj["id"]:
            if m.get("type") == "error":
                raise RuntimeError(f"{obj['type']}: {m}")
            return m


async def phase(args: argparse.Namespace, reviews: bool, db: str) -> dict[str, Any]:
    cfg = Config(
        port=0,
        db=db,
        think_delay=args.think,
        deal_pause=0.0,
        ai_share=0.0,
        max_bot_tables=10_000,
        max_tables_per_session=10_000,
        reviews=reviews,
        log_level="warning",
    )
    store = AsyncStore(db)
    server = Server(cfg, store)
    await server.start()
    lags: list[float] = []
    stop = asyncio.Event()
    try:
        port = server.port
        async with connect(f"ws://127.0.0.1:{port}/", subprotocols=["atout.v1"]) as ws:  # type: ignore[list-item]
            await request(ws, {"type": "hello", "id": 0, "version": 1, "name": "bench"})
            for i in range(args.tables):
                t = await request(
                    ws,
                    {
                        "type": "create_table",
                        "id": f"c{i}",
                        "public": False,
                        "deals": 1000,
                        "ai": "random",
                        "think_delay": args.think,
                        "deal_pause": 0,
                    },
                )
                await request(ws, {"type": "start", "id": f"s{i}", "table": t["table"]["table"]})
            await asyncio.sleep(args.warmup)  # every table plays
            deals0 = server.metrics.deals_finished
            rev0 = server.reviews.reviewed if server.reviews else 0
            cpu0 = server.reviews.cpu_ms if server.reviews else 0.0
            t0 = time.monotonic()
            task = asyncio.get_running_loop().create_task(probe(args.probe_ms / 1000, stop, lags))
            await asyncio.sleep(args.seconds)
            stop.set()
            await task
            elapsed = time.monotonic() - t0
            deals = server.metrics.deals_finished - deals0
            rev = (server.reviews.reviewed - rev0) if server.reviews else 0
            cpu = (server.reviews.cpu_ms - cpu0) if server.reviews else 0.0
            backlog = server.reviews._queue.qsize() if server.reviews else 0
    finally:
        await server.stop()
    return {
        "lags": lags,
        "elapsed": elapsed,
        "deals": deals,
        "reviewed": rev,
        "cpu_ms": cpu,
        "backlog": backlog,
    }


def summary(runs: list[dict[str, Any]]) -> dict[str, float]:
    lags = [x for r in runs for x in r["lags"]]
    el = sum(r["elapsed"] for r in runs)
    rev = sum(r["reviewed"] for r in runs)
    return {
        "p50": 1e3 * pct(lags, 0.5),
        "p99": 1e3 * pct(lags, 0.99),
        "p999": 1e3 * pct(lags, 0.999),
        "max": 1e3 * max(lags),
        "mean": 1e3 * statistics.fmean(lags),
        "n": len(lags),
        "deals_s": sum(r["deals"] for r in runs) / el,
        "reviews_s": rev / el,
        "backlog": max(r["backlog"] for r in runs),
        "par_ms": (sum(r["cpu_ms"] for r in runs) / rev) if rev else float("nan"),
    }


async def main_async(args: argparse.Namespace) -> None:
    got: dict[bool, list[dict[str, Any]]] = {False: [], True: []}
    with tempfile.TemporaryDirectory(prefix="atout-review-lag-") as tmp:
        for r in range(args.rounds):
            for on in (False, True):
                got[on].append(await phase(args, on, os.path.join(tmp, f"{r}-{int(on)}.db")))
    off, on = summary(got[False]), summary(got[True])
    print(
        f"{args.tables} tables of random AI, think delay {args.think:g} s, no deal pause;"
        f" {args.rounds} x {args.seconds:g} s per setting (alternating), probe every"
        f" {args.probe_ms:g} ms; {os.cpu_count()} cores"
    )
    for name, s in (("reviews off (baseline)", off), ("reviews on", on)):
        print(
            f"  {name:24s} lag p50 {s['p50']:.2f} ms, p99 {s['p99']:.2f} ms, p99.9"
            f" {s['p999']:.2f} ms, max {s['max']:.2f} ms, mean {s['mean']:.2f} ms (n={s['n']});"
            f" deals {s['deals_s']:.1f}/s, reviews {s['reviews_s']:.1f}/s,"
            f" backlog at end {s['backlog']}, par CPU {s['par_ms']:.2f} ms/deal"
        )

    def ratio(k: str) -> float:
        return on[k] / off[k] if off[k] else float("nan")

    print(
        f"  ratio on/off: lag p50 {ratio('p50'):.2f}x, p99 {ratio('p99'):.2f}x, p99.9"
        f" {ratio('p999'):.2f}x, max {ratio('max'):.2f}x, mean {ratio('mean'):.2f}x;"
        f" deals/s {ratio('deals_s'):.2f}x"
    )
    if args.json:
        print(json.dumps({"off": off, "on": on}))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tables", type=int, default=40)
    ap.add_argument("--think", type=float, default=0.02, help="AI think delay (s)")
    ap.add_argument("--seconds", type=float, default=10.0, help="measured seconds per phase")
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--probe-ms", type=float, default=5.0)
    ap.add_argument("--quick", action="store_true", help="1 round of 5 s per setting")
    ap.add_argument("--json", action="store_true", help="also one JSON line of figures")
    args = ap.parse_args(argv)
    if args.quick:
        args.rounds, args.seconds = 1, 5.0
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Event-loop lag while many tables of ``strong`` bots play (issue 4: never stall the server).

Each table is an asyncio task that plays deals through the rules engine and asks
:class:`server.ai.runner.Runner` for every decision, exactly as the table server does (views,
legal actions and ``apply`` run on the loop; strong searches run in the worker processes). A
probe task sleeps ``--probe-ms`` in a loop and records how late it wakes up: that is the lag
any connection handler on this loop would see.

    .venv/bin/python bench/ai_loop_lag.py --tables 50 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from server.ai.runner import Runner
from server.rules import OVER, apply, legal_actions
from server.rules.deal import new_deal
from server.rules.views import view


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def table(
    tid: int, runner: Runner, args: argparse.Namespace, stop_at: float, out: dict
) -> None:
    i = 0
    while time.monotonic() < stop_at:
        st = new_deal(args.seed * 100_003 + tid * 1000 + i, dealer=i % 4)
        while st.phase != OVER and time.monotonic() < stop_at:
            legal = legal_actions(st)
            assert legal is not None
            v = view(st, legal.seat)
            t = time.perf_counter()
            act = await runner.decide(args.level, v, legal, args.deadline)
            out["latency"].append(time.perf_counter() - t)
            st = apply(st, act)  # always legal: apply would raise otherwise
            if args.pace_ms:
                await asyncio.sleep(args.pace_ms / 1000)
        if st.phase == OVER:
            out["deals"] += 1
        i += 1


async def probe(interval: float, stop_at: float, lags: list[float]) -> None:
    while time.monotonic() < stop_at:
        t = time.perf_counter()
        await asyncio.sleep(interval)
        lags.append(time.perf_counter() - t - interval)


async def main_async(args: argparse.Namespace) -> None:
    opts = {} if args.extend is None else {"extend": args.extend}
    runner = Runner(args.workers, strong_budget_ms=args.budget_ms, bot_options=opts)
    runner.warm_up()
    out: dict = {"latency": [], "deals": 0}
    lags: list[float] = []
    t0 = time.monotonic()
    stop_at = t0 + args.seconds
    await asyncio.gather(
        probe(args.probe_ms / 1000, stop_at, lags),
        *(table(t, runner, args, stop_at, out) for t in range(args.tables)),
    )
    elapsed = time.monotonic() - t0
    runner.shutdown()
    lat = out["latency"]
    print(
        f"{args.tables} tables of {args.level} bots, {elapsed:.0f} s, {runner.workers} worker process(es)"
        f" on {os.cpu_count()} cores, budget {args.budget_ms:g} ms, deadline {args.deadline:g} s,"
        f" pace {args.pace_ms:g} ms"
    )
    print(
        f"  event-loop lag (probe every {args.probe_ms:g} ms, n={len(lags)}): p50 {1e3 * pct(lags, 0.5):.2f} ms,"
        f" p99 {1e3 * pct(lags, 0.99):.2f} ms, max {1e3 * max(lags):.2f} ms, mean {1e3 * statistics.fmean(lags):.2f} ms"
    )
    print(
        f"  decisions {runner.decisions} ({runner.decisions / elapsed:.0f}/s), deals completed {out['deals']},"
        f" heuristic fallbacks after the deadline {runner.fallbacks}"
    )
    print(
        f"  decision latency seen by a table: p50 {1e3 * pct(lat, 0.5):.1f} ms, p95 {1e3 * pct(lat, 0.95):.1f} ms,"
        f" max {1e3 * max(lat):.1f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--level", default="strong")
    ap.add_argument("--budget-ms", type=float, default=100.0)
    ap.add_argument("--deadline", type=float, default=2.0, help="seconds per decision")
    ap.add_argument(
        "--extend",
        type=float,
        default=None,
        help="strong's time extension for open card decisions (default: the bot's, 2.5; 1: none)",
    )
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: cores)")
    ap.add_argument("--pace-ms", type=float, default=0.0, help="pause after each action")
    ap.add_argument("--probe-ms", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Duplicate duel between two AI levels: how much better is bot A than baseline B?

Every deal is played five times on the same cards: once with B in all four seats (the
reference), and once with A in seat s and B in the other three, for s = 0..3. A's score in seat s
is compared with B's score in the same seat of the reference game (a paired difference), so the
luck of the cards cancels out. One observation per deal is the mean of its four paired
differences; the 95% interval is mean ± 1.96 standard errors over deals.

Printed: mean paired difference in game points per deal for A's seat, with its 95% interval,
split by the role A's seat had (taker or defender); A's and B's mean card points as taker and
contract success rates; annulled deals; A's decision time p50/p95 (all decisions and card
decisions with a real choice). Seeded and reproducible: deal i is ``new_deal(seed * 1_000_003
+ i, dealer=i % 4)`` and each bot's seed is derived from (seed, deal, seat).

    .venv/bin/python bench/ai_duel.py --a heuristic --b random --deals 200
    .venv/bin/python bench/ai_duel.py --a strong --b heuristic --deals 500 --budget-ms 100
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from server.ai import make_bot
from server.rules import OVER, apply, legal_actions, score
from server.rules.deal import new_deal
from server.rules.views import view

_ARGS: dict[str, Any] = {}


def _make(level: str, seed: int, budget_ms: float, objective: str) -> Any:
    if level == "strong":
        from server.ai.strong import StrongBot

        return StrongBot(seed, budget_ms=budget_ms, objective=objective, **_ARGS.get("opts", {}))
    return make_bot(level, seed)


def play_game(
    seed: int, i: int, levels: list[str], timed_seat: int, budget_ms: float, objective: str
) -> dict[str, Any]:
    st = new_deal(seed * 1_000_003 + i, dealer=i % 4)
    bots = [_make(levels[s], seed * 7919 + i * 31 + s, budget_ms, objective) for s in range(4)]
    times: list[float] = []
    card_times: list[float] = []
    while st.phase != OVER:
        lg = legal_actions(st)
        assert lg is not None
        v = view(st, lg.seat)
        t = time.perf_counter()
        act = bots[lg.seat].choose(v, lg)
        dt = time.perf_counter() - t
        if lg.seat == timed_seat:
            times.append(dt)
            if len(lg.plays) > 1 and type(act).__name__ == "Play":
                card_times.append(dt)
        st = apply(st, act)
    sc = score(st)
    return {
        "scores": [x / 2 for x in sc.scores_half()],
        "taker": sc.taker if sc.status == "played" else -1,
        "contract": sc.contract,
        "won": sc.won,
        "taker_points": sc.taker_half / 2,
        "annulled": sc.status != "played",
        "times": times,
        "card_times": card_times,
    }


def play_deal(i: int) -> dict[str, Any]:
    a, b = _ARGS["a"], _ARGS["b"]
    seed, budget, obj = _ARGS["seed"], _ARGS["budget_ms"], _ARGS["objective"]
    ref = play_game(seed, i, [b] * 4, -1, budget, obj)
    if ref["annulled"] and _ARGS.get("played_only"):
        return {"deal": i, "skipped": True}
    games = []
    for s in range(4):
        levels = [b] * 4
        levels[s] = a
        games.append(play_game(seed, i, levels, s, budget, obj))
    return {"deal": i, "ref": ref, "games": games}


def _init(args: dict[str, Any]) -> None:
    _ARGS.update(args)


def ci(xs: list[float]) -> tuple[float, float, int]:
    """Mean and 95% half-width (normal approximation)."""
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan"), 0
    m = statistics.fmean(xs)
    if n < 2:
        return m, float("nan"), n
    return m, 1.96 * statistics.stdev(xs) / math.sqrt(n), n


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def summarise(results: list[dict[str, Any]], a: str, b: str) -> dict[str, Any]:
    per_deal = []
    by_role: dict[str, list[float]] = {"taker": [], "defender": [], "annulled": []}
    a_taker_pts, b_taker_pts, a_won, b_won = [], [], [], []
    times: list[float] = []
    card_times: list[float] = []
    annulled_ref = 0
    for r in results:
        ref = r["ref"]
        annulled_ref += ref["annulled"]
        diffs = []
        for s, g in enumerate(r["games"]):
            d = g["scores"][s] - ref["scores"][s]
            diffs.append(d)
            role = "annulled" if g["annulled"] else ("taker" if g["taker"] == s else "defender")
            by_role[role].append(d)
            if g["taker"] == s:
                a_taker_pts.append(g["taker_points"])
                a_won.append(1.0 if g["won"] else 0.0)
            if ref["taker"] == s:
                b_taker_pts.append(ref["taker_points"])
                b_won.append(1.0 if ref["won"] else 0.0)
            times.extend(g["times"])
            card_times.extend(g["card_times"])
        per_deal.append(statistics.fmean(diffs))
    m, h, n = ci(per_deal)
    out = {
        "a": a,
        "b": b,
        "deals": n,
        "annulled_reference_deals": annulled_ref,
        "diff_per_deal": [m, h],
        "diff_taker": list(ci(by_role["taker"])),
        "diff_defender": list(ci(by_role["defender"])),
        "a_taker_points": list(ci(a_taker_pts)),
        "b_taker_points": list(ci(b_taker_pts)),
        "a_success": list(ci(a_won)),
        "b_success": list(ci(b_won)),
        "a_time_ms": [pct(times, 0.5) * 1e3, pct(times, 0.95) * 1e3, max(times, default=0) * 1e3],
        "a_card_time_ms": [
            pct(card_times, 0.5) * 1e3,
            pct(card_times, 0.95) * 1e3,
            max(card_times, default=0) * 1e3,
        ],
    }
    return out


def report(s: dict[str, Any], args: argparse.Namespace, elapsed: float) -> str:
    def f(x: list[float]) -> str:
        return f"{x[0]:+.2f} ± {x[1]:.2f} (n={x[2]})" if len(x) > 2 else f"{x[0]:+.2f} ± {x[1]:.2f}"

    lines = [
        f"duel {s['a']} vs {s['b']}: seed {args.seed}, {s['deals']} deals from index {args.first}"
        + (
            f" (played only: {s['skipped_annulled']} annulled deals skipped)"
            if args.played_only
            else ""
        )
        + (
            f", budget {args.budget_ms:g} ms, objective {args.objective}"
            if "strong" in (s["a"], s["b"])
            else ""
        ),
        f"  A - B game points per deal (seat, paired): {s['diff_per_deal'][0]:+.2f} ± {s['diff_per_deal'][1]:.2f} (95% CI, n={s['deals']} deals; {s['annulled_reference_deals']} reference deals annulled)",
        f"    when A's seat was taker:    {f(s['diff_taker'])}",
        f"    when A's seat was defender: {f(s['diff_defender'])}",
        f"  card points as taker: A {s['a_taker_points'][0]:.2f} (n={s['a_taker_points'][2]}), B {s['b_taker_points'][0]:.2f} (n={s['b_taker_points'][2]})",
        f"  contract success: A {100 * s['a_success'][0]:.1f}% , B {100 * s['b_success'][0]:.1f}%",
        f"  A decision time: all p50 {s['a_time_ms'][0]:.2f} ms, p95 {s['a_time_ms'][1]:.2f} ms, max {s['a_time_ms'][2]:.1f} ms;"
        f" card choices p50 {s['a_card_time_ms'][0]:.2f} ms, p95 {s['a_card_time_ms'][1]:.2f} ms, max {s['a_card_time_ms'][2]:.1f} ms",
        f"  wall time {elapsed:.0f} s with {args.jobs} worker process(es)",
    ]
    return "\n".join(lines)


def _parse_opt(text: str) -> tuple[str, Any]:
    key, _, raw = text.partition("=")
    value: Any
    if raw.lower() == "none":
        value = None
    else:
        try:
            value = int(raw)
        except ValueError:
            try:
                value = float(raw)
            except ValueError:
                value = raw
    return key.strip(), value


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--a", default="heuristic", help="the bot under test")
    ap.add_argument("--b", default="random", help="the baseline")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--first", type=int, default=0, help="index of the first deal")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget-ms", type=float, default=100.0, help="strong bot time per decision")
    ap.add_argument("--objective", default="score", help="strong bot rollout objective")
    ap.add_argument(
        "--played-only",
        action="store_true",
        help="skip deals that the baseline table annuls (all pass); count only played deals",
    )
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument(
        "--opt",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra StrongBot parameter, e.g. max_samples=30, confidence=none (repeatable)",
    )
    ap.add_argument("--out", help="write per-deal results (JSON lines) here")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON too")
    args = ap.parse_args(argv)
    shared = {
        "a": args.a,
        "b": args.b,
        "seed": args.seed,
        "budget_ms": args.budget_ms,
        "objective": args.objective,
        "opts": dict(_parse_opt(o) for o in args.opt),
        "played_only": args.played_only,
    }
    t0 = time.perf_counter()
    results: list[dict[str, Any]] = []
    skipped = 0
    nxt = args.first
    ex = (
        ProcessPoolExecutor(args.jobs, initializer=_init, initargs=(shared,))
        if args.jobs > 1
        else None
    )
    if ex is None:
        _init(shared)
    try:
        while len(results) < args.deals:
            # With --played-only, deals annulled in the reference game are skipped and the next
            # indices are played until enough deals count (the set stays reproducible).
            want = args.deals - len(results)
            batch = range(nxt, nxt + (want if not args.played_only else max(4, int(want * 1.6))))
            nxt = batch.stop
            out = (
                list(ex.map(play_deal, batch, chunksize=1)) if ex else [play_deal(i) for i in batch]
            )
            for r in out:
                if r.get("skipped"):
                    skipped += 1
                elif len(results) < args.deals:
                    results.append(r)
    finally:
        if ex is not None:
            ex.shutdown()
    elapsed = time.perf_counter() - t0
    if args.out:
        with open(args.out, "w") as fh:
            for r in results:
                slim = {
                    "deal": r["deal"],
                    "ref": {k: v for k, v in r["ref"].items() if "times" not in k},
                    "games": [{k: v for k, v in g.items() if "times" not in k} for g in r["games"]],
                }
                fh.write(json.dumps(slim) + "\n")
    s = summarise(results, args.a, args.b)
    s["skipped_annulled"] = skipped
    s["deal_indices"] = [r["deal"] for r in results]
    print(report(s, args, elapsed))
    if args.json:
        print(json.dumps(s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

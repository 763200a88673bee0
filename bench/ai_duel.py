"""Duplicate duel between two AI levels: how much better is bot A than baseline B?

Every deal is played five times on the same cards: once with B in all four seats (the
reference), and once with A in seat s and B in the other three, for s = 0..3. A's score in seat s
is compared with B's score in the same seat of the reference game (a paired difference), so the
luck of the cards cancels out. One observation per deal is the mean of its four paired
differences; the 95% interval is mean ± 1.96 standard errors over deals.

Levels: any level of ``server.ai.make_bot`` (the bots as they are now), and the frozen
baselines ``heuristic_v1`` and ``strong_v1``: the bots of git revision 3245940 (issue 13's
starting point), extracted from git and imported under another package name, so that no later
change can move the baseline (``bench/ai_baseline.py``; ``NAME@REV`` freezes another revision).

Printed: mean paired difference in game points per deal for A's seat, with its 95% interval,
split by the role A's seat had (taker or defender); card points as taker and contract success;
how often each contract is taken (per 1,000 seat-deals); the rates of issue 13's recurring
errors (``bench/ai_errors.py``: takes with at most 4 trumps and their success, points put on a
partner's trick with the taker still to play, Petit lost, Petit played in front of the taker,
kings trumped from long suits) per 1,000 seat-deals, for A (its seats in the duel games) and B
(the reference game), with 95% intervals; decision time p50/p95 of A and of B in the same run.
Seeded and reproducible: deal i is ``new_deal(seed * 1_000_003 + i, dealer=i % 4)`` and each
bot's seed is derived from (seed, deal, seat).

    .venv/bin/python bench/ai_duel.py --a heuristic --b heuristic_v1 --deals 1000
    .venv/bin/python bench/ai_duel.py --a strong --b heuristic --deals 300 --budget-ms 100
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

from bench.ai_baseline import make_frozen, split_level
from bench.ai_errors import KEYS, count_errors
from server.ai import make_bot
from server.rules import OVER, apply, legal_actions
from server.rules.actions import CONTRACTS
from server.rules.deal import new_deal
from server.rules.records import record_of
from server.rules.views import view

_ARGS: dict[str, Any] = {}


def _patches(level: str) -> dict[str, Any]:
    """Module constants a variant level sets (``heuristic:policy.CASH_RISK=0.2``): keys with a
    dot name ``server.ai.<module>.<CONSTANT>``."""
    if ":" not in level:
        return {}
    spec = level.partition(":")[2]
    return dict(o for o in (_parse_opt(x) for x in spec.split(",") if x) if "." in o[0])


class _Patched:
    """Sets a level's module constants for one game, restoring them afterwards. Only one live
    level may play in a patched game (the constants are per process): the others must be
    frozen baselines or the same variant."""

    def __init__(self, levels: list[str]) -> None:
        self.patches: dict[str, Any] = {}
        for lv in dict.fromkeys(levels):
            p = _patches(lv)
            if p:
                others = [x for x in levels if x != lv and split_level(x) is None]
                if others:
                    raise ValueError(f"{lv}: a patched level plays only against frozen levels")
                self.patches = p
        self.saved: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> None:
        import importlib

        for key, value in self.patches.items():
            mod_name, _, attr = key.rpartition(".")
            mod = importlib.import_module(f"server.ai.{mod_name}")
            if not hasattr(mod, attr):
                raise ValueError(f"server.ai.{mod_name} has no {attr}")
            self.saved.append((mod, attr, getattr(mod, attr)))
            setattr(mod, attr, value)

    def __exit__(self, *exc: Any) -> None:
        for mod, attr, value in reversed(self.saved):
            setattr(mod, attr, value)
        self.saved.clear()


def _make(level: str, seed: int, budget_ms: float, objective: str) -> Any:
    strong_opts = {"budget_ms": budget_ms, "objective": objective, **_ARGS.get("opts", {})}
    if ":" in level:  # e.g. strong:hidden_rollouts=0,max_samples=50 (a variant for experiments)
        level, _, spec = level.partition(":")
        strong_opts.update(
            o for o in (_parse_opt(x) for x in spec.split(",") if x) if "." not in o[0]
        )
    frozen = split_level(level)
    if frozen is not None:
        return make_frozen(level, seed, **(strong_opts if frozen[0] == "strong" else {}))
    if level == "strong":
        from server.ai.strong import StrongBot

        return StrongBot(seed, **strong_opts)
    return make_bot(level, seed)


def play_game(
    seed: int, i: int, levels: list[str], timed: set[int], budget_ms: float, objective: str
) -> dict[str, Any]:
    with _Patched(levels):
        return _play_game(seed, i, levels, timed, budget_ms, objective)


def _play_game(
    seed: int, i: int, levels: list[str], timed: set[int], budget_ms: float, objective: str
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
        if lg.seat in timed:
            times.append(dt)
            if len(lg.plays) > 1 and type(act).__name__ == "Play":
                card_times.append(dt)
        st = apply(st, act)
    rec = record_of(st)
    res = rec["result"]
    played = res["status"] == "played"
    return {
        "scores": res["scores"],
        "taker": res["taker"] if played else -1,
        "contract": res["contract"] if played else None,
        "won": res.get("won"),
        "taker_points": res.get("taker_points"),
        "annulled": not played,
        "errors": count_errors(rec),
        "times": times,
        "card_times": card_times,
    }


def play_deal(i: int) -> dict[str, Any]:
    a, b, a2 = _ARGS["a"], _ARGS["b"], _ARGS.get("a2")
    seed, budget, obj = _ARGS["seed"], _ARGS["budget_ms"], _ARGS["objective"]
    ref = play_game(seed, i, [b] * 4, {0, 1, 2, 3}, budget, obj)
    if ref["annulled"] and _ARGS.get("played_only"):
        return {"deal": i, "skipped": True}
    out: dict[str, Any] = {"deal": i, "ref": ref}
    for key, level in (("games", a), ("games2", a2)):
        if level is None:
            continue
        games = []
        for s in range(4):
            levels = [b] * 4
            levels[s] = level
            games.append(play_game(seed, i, levels, {s}, budget, obj))
        out[key] = games
    return out


def _init(args: dict[str, Any]) -> None:
    _ARGS.update(args)


def ci(xs: list[float]) -> list[float]:
    """[mean, 95% half-width (normal approximation), n]."""
    n = len(xs)
    if n == 0:
        return [float("nan"), float("nan"), 0]
    m = statistics.fmean(xs)
    if n < 2:
        return [m, float("nan"), n]
    return [m, 1.96 * statistics.stdev(xs) / math.sqrt(n), n]


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


class SeatStats:
    """Per seat-deal observations of one side (A in its duel seats, or B in the reference)."""

    def __init__(self) -> None:
        self.n = 0
        self.errors: dict[str, list[float]] = {k: [] for k in KEYS}
        self.takes: dict[str, list[float]] = {c: [] for c in CONTRACTS[1:]}
        self.taker_points: list[float] = []
        self.won: list[float] = []
        self.won_by: dict[str, list[float]] = {c: [] for c in CONTRACTS[1:]}
        self.le4_won: list[float] = []
        self.times: list[float] = []
        self.card_times: list[float] = []

    def add(self, g: dict[str, Any], s: int) -> None:
        self.n += 1
        e = g["errors"][s]
        for k in KEYS:
            self.errors[k].append(float(e[k]))
        if e["take_le4"]:
            self.le4_won.append(float(e["take_le4_won"]))
        took = g["taker"] == s
        for c in CONTRACTS[1:]:
            self.takes[c].append(1.0 if took and g["contract"] == c else 0.0)
        if took:
            self.taker_points.append(g["taker_points"])
            self.won.append(1.0 if g["won"] else 0.0)
            self.won_by[g["contract"]].append(1.0 if g["won"] else 0.0)

    def summary(self) -> dict[str, Any]:
        def per_k(xs: list[float]) -> list[float]:
            m, h, n = ci(xs)
            return [1000 * m, 1000 * h, n]

        return {
            "seat_deals": self.n,
            "errors_per_1000": {k: per_k(v) for k, v in self.errors.items()},
            "takes_per_1000": {c: per_k(v) for c, v in self.takes.items()},
            "le4_success": ci(self.le4_won),
            "taker_points": ci(self.taker_points),
            "success": ci(self.won),
            "success_by_contract": {c: ci(v) for c, v in self.won_by.items()},
            "time_ms": [pct(self.times, 0.5) * 1e3, pct(self.times, 0.95) * 1e3],
            "card_time_ms": [
                pct(self.card_times, 0.5) * 1e3,
                pct(self.card_times, 0.95) * 1e3,
                max(self.card_times, default=0) * 1e3,
            ],
        }


def compare(results: list[dict[str, Any]]) -> dict[str, Any]:
    """A vs A2, each in one seat among the same three B bots, same deals and seats: the paired
    difference of their seat scores (B's reference game cancels out)."""
    per_deal = []
    for r in results:
        per_deal.append(
            statistics.fmean(
                g["scores"][s] - g2["scores"][s]
                for s, (g, g2) in enumerate(zip(r["games"], r["games2"], strict=True))
            )
        )
    return {"diff_per_deal": ci(per_deal)}


def summarise(results: list[dict[str, Any]], a: str, b: str, key: str = "games") -> dict[str, Any]:
    per_deal = []
    by_role: dict[str, list[float]] = {"taker": [], "defender": [], "annulled": []}
    sa, sb = SeatStats(), SeatStats()
    annulled_ref = 0
    for r in results:
        ref = r["ref"]
        annulled_ref += ref["annulled"]
        diffs = []
        for s, g in enumerate(r[key]):
            d = g["scores"][s] - ref["scores"][s]
            diffs.append(d)
            role = "annulled" if g["annulled"] else ("taker" if g["taker"] == s else "defender")
            by_role[role].append(d)
            sa.add(g, s)
            sb.add(ref, s)
            sa.times.extend(g["times"])
            sa.card_times.extend(g["card_times"])
        sb.times.extend(ref["times"])
        sb.card_times.extend(ref["card_times"])
        per_deal.append(statistics.fmean(diffs))
    m, h, n = ci(per_deal)
    return {
        "a": a,
        "b": b,
        "deals": n,
        "annulled_reference_deals": annulled_ref,
        "diff_per_deal": [m, h],
        "diff_taker": ci(by_role["taker"]),
        "diff_defender": ci(by_role["defender"]),
        "A": sa.summary(),
        "B": sb.summary(),
    }


ERROR_LABELS = {
    "take_le4": "takes with <= 4 trumps",
    "points_given": "points on partner's trick, taker after",
    "petit_lost": "Petit lost",
    "petit_choice": "Petit lost by choice (another card legal)",
    "petit_front": "Petit lost, played before an opponent",
    "king_trumped": "taker's king of a long suit trumped",
}


def report(s: dict[str, Any], args: argparse.Namespace, elapsed: float) -> str:
    def f(x: list[float], pct100: bool = False) -> str:
        k = 100 if pct100 else 1
        if not x[2]:
            return "n/a"
        return f"{k * x[0]:.1f} ± {k * x[1]:.1f}" + ("%" if pct100 else "")

    A, B = s["A"], s["B"]
    lines = [
        f"duel {s['a']} vs {s['b']}: seed {args.seed}, {s['deals']} deals from index {args.first}"
        + (
            f" (played only: {s['skipped_annulled']} annulled deals skipped)"
            if args.played_only
            else ""
        )
        + (
            f", budget {args.budget_ms:g} ms, objective {args.objective}"
            if any("strong" in x for x in (s["a"], s["b"]))
            else ""
        ),
        f"  A - B game points per deal (seat, paired): {s['diff_per_deal'][0]:+.2f} ± {s['diff_per_deal'][1]:.2f} (95% CI, n={s['deals']} deals; {s['annulled_reference_deals']} reference deals annulled)",
        f"    when A's seat was taker:    {s['diff_taker'][0]:+.2f} ± {s['diff_taker'][1]:.2f} (n={s['diff_taker'][2]})",
        f"    when A's seat was defender: {s['diff_defender'][0]:+.2f} ± {s['diff_defender'][1]:.2f} (n={s['diff_defender'][2]})",
        f"  {'':44s} {'A (' + s['a'] + ')':>24s} {'B (' + s['b'] + ')':>24s}",
        f"  {'seat-deals':44s} {A['seat_deals']:>24d} {B['seat_deals']:>24d}",
        f"  {'card points as taker':44s} {f(A['taker_points']):>24s} {f(B['taker_points']):>24s}",
        f"  {'contract success':44s} {f(A['success'], True):>24s} {f(B['success'], True):>24s}",
    ]
    for c in CONTRACTS[1:]:
        lines.append(
            f"  {'takes ' + c + ' per 1000 (success)':44s}"
            f" {f(A['takes_per_1000'][c]) + ' (' + f(A['success_by_contract'][c], True) + ')':>24s}"
            f" {f(B['takes_per_1000'][c]) + ' (' + f(B['success_by_contract'][c], True) + ')':>24s}"
        )
    lines.append("  errors per 1000 seat-deals (95% CI):")
    for k, label in ERROR_LABELS.items():
        lines.append(
            f"    {label:42s} {f(A['errors_per_1000'][k]):>24s} {f(B['errors_per_1000'][k]):>24s}"
        )
    lines.append(
        f"    {'  ... of which made':42s} {f(A['le4_success'], True):>24s} {f(B['le4_success'], True):>24s}"
    )
    lines += [
        f"  {'decision time p50 / p95 (ms), all':44s} {A['time_ms'][0]:>11.2f} / {A['time_ms'][1]:<10.2f} {B['time_ms'][0]:>11.2f} / {B['time_ms'][1]:<10.2f}",
        f"  {'card choices p50 / p95 (ms)':44s} {A['card_time_ms'][0]:>11.2f} / {A['card_time_ms'][1]:<10.2f} {B['card_time_ms'][0]:>11.2f} / {B['card_time_ms'][1]:<10.2f}",
        f"  wall time {elapsed:.0f} s with {args.jobs} worker process(es); load average at the end {os.getloadavg()[0]:.2f}",
    ]
    return "\n".join(lines)


def _progress(results: list[dict[str, Any]], elapsed: float) -> None:
    """A running figure on stderr (long strong duels: see early whether a run is worth its end)."""
    ab = ci(
        [
            statistics.fmean(
                g["scores"][s] - r["ref"]["scores"][s] for s, g in enumerate(r["games"])
            )
            for r in results
        ]
    )
    line = f"[{len(results)} deals, {elapsed:.0f} s] A - B {ab[0]:+.2f} ± {ab[1]:.2f}"
    if "games2" in results[0]:
        d = compare(results)["diff_per_deal"]
        line += f", A - A2 {d[0]:+.2f} ± {d[1]:.2f}"
    print(line, file=sys.stderr, flush=True)


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
    ap.add_argument("--b", default="heuristic_v1", help="the baseline")
    ap.add_argument(
        "--a2",
        help="a second bot under test, also in one seat among three B bots on the same deals;"
        " A is then also compared with A2 directly (e.g. strong vs strong_v1 in a field of"
        " heuristic bots, at a fraction of the cost of a head-to-head duel)",
    )
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
    ap.add_argument(
        "--progress",
        type=int,
        default=0,
        metavar="N",
        help="print the running A - B (and A - A2) figure on stderr every N deals",
    )
    ap.add_argument("--out", help="write per-deal results (JSON lines) here")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON too")
    args = ap.parse_args(argv)
    shared = {
        "a": args.a,
        "b": args.b,
        "a2": args.a2,
        "seed": args.seed,
        "budget_ms": args.budget_ms,
        "objective": args.objective,
        "opts": dict(_parse_opt(o) for o in args.opt),
        "played_only": args.played_only,
    }
    for level in (
        args.a,
        args.b,
        args.a2 or args.b,
    ):  # fail early (and extract frozen code once) on a bad level
        _make(level, 0, args.budget_ms, args.objective)
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
            out = ex.map(play_deal, batch, chunksize=1) if ex else map(play_deal, batch)
            for r in out:
                if r.get("skipped"):
                    skipped += 1
                elif len(results) < args.deals:
                    results.append(r)
                    if args.progress and len(results) % args.progress == 0:
                        _progress(results, time.perf_counter() - t0)
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
                    **{
                        key: [{k: v for k, v in g.items() if "times" not in k} for g in r[key]]
                        for key in ("games", "games2")
                        if key in r
                    },
                }
                fh.write(json.dumps(slim) + "\n")
    s = summarise(results, args.a, args.b)
    s["skipped_annulled"] = skipped
    print(report(s, args, elapsed))
    if args.a2:
        s2 = summarise(results, args.a2, args.b, "games2")
        s2["skipped_annulled"] = skipped
        print(report(s2, args, elapsed))
        c = compare(results)
        s["vs_a2"] = {"a2": args.a2, **c, "a2_summary": s2}
        print(
            f"A ({args.a}) - A2 ({args.a2}), each in one seat among three {args.b} bots:"
            f" {c['diff_per_deal'][0]:+.2f} ± {c['diff_per_deal'][1]:.2f} game points per deal"
            f" (95% CI, n={c['diff_per_deal'][2]} deals)"
        )
    if args.json:
        print(json.dumps(s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Do the ratings mean something? A simulated club of bots of three strengths plays deals at
random tables of four, rated exactly as the server rates (``server.players.ratings.rate``).

Printed: per level, the players' final μ, σ and μ − 3σ; whether the levels are ordered
(every player of a stronger level above every player of a weaker one, by μ) with separated
intervals (the lowest μ − 2σ of a level above the highest μ + 2σ of the level below); σ after
n rated deals against the curve docs/RATINGS.md gives; the CPU time per deal of the ratings.

    .venv/bin/python bench/rating_sim.py                      # the documented run
    .venv/bin/python bench/rating_sim.py --deals 3000 --per-level 4 --budget-ms 1
    flock /tmp/atout-bench.lock .venv/bin/python bench/rating_sim.py --deals 20000

Seeded and reproducible (up to the strong bot's time budget).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from server.ai import make_bot
from server.players import ratings
from server.rules import OVER, apply, legal_actions, score
from server.rules.deal import new_deal
from server.rules.views import view

LEVELS = ("random", "heuristic", "strong")


def sigma_curve(n: float) -> float:
    """σ after n rated deals as docs/RATINGS.md states it (ratings.expected_sigma)."""
    return ratings.expected_sigma(n)


def _bot(level: str, seed: int, budget_ms: float) -> Any:
    if level == "strong":
        from server.ai.strong import StrongBot

        return StrongBot(seed, budget_ms=budget_ms)
    return make_bot(level, seed)


def play(seed: int, levels: list[str], budget_ms: float) -> Any:
    st = new_deal(seed, dealer=seed % 4)
    bots = [_bot(levels[s], seed * 31 + s, budget_ms) for s in range(4)]
    while st.phase != OVER:
        lg = legal_actions(st)
        assert lg is not None
        st = apply(st, bots[lg.seat].choose(view(st, lg.seat), lg))
    return st


def simulate(
    deals: int,
    per_level: int = 4,
    seed: int = 1,
    budget_ms: float = 1.0,
    levels: tuple[str, ...] = LEVELS,
) -> dict[str, Any]:
    rng = random.Random(seed)
    players = [f"{lv}-{i}" for lv in levels for i in range(per_level)]
    level_of = {p: p.rsplit("-", 1)[0] for p in players}
    current = {p: (ratings.MU0, ratings.SIGMA0) for p in players}
    rated = dict.fromkeys(players, 0)
    trace: dict[str, list[tuple[int, float]]] = {p: [] for p in players}
    rate_cpu = 0.0
    annulled = 0
    for i in range(deals):
        seats = rng.sample(players, 4)
        st = play(seed * 1_000_003 + i, [level_of[p] for p in seats], budget_ms)
        res = score(st).to_dict()
        if res["status"] != "played":
            annulled += 1
            continue
        t0 = time.process_time()
        new = ratings.rate(seats, {p: current[p] for p in seats}, res["taker"], res["won"])
        rate_cpu += time.process_time() - t0
        for p, r in new.items():
            current[p] = r
            rated[p] += 1
            trace[p].append((rated[p], r[1]))
    return {
        "players": players,
        "level_of": level_of,
        "ratings": current,
        "rated": rated,
        "trace": trace,
        "annulled": annulled,
        "rate_cpu_us": rate_cpu / max(1, deals - annulled) * 1e6,
        "levels": levels,
    }


def ordered(out: dict[str, Any]) -> tuple[bool, bool]:
    """(every player of a stronger level has a higher μ than every player of a weaker one,
    the levels' 2σ intervals are separated)."""
    by_level = {
        lv: [out["ratings"][p] for p in out["players"] if out["level_of"][p] == lv]
        for lv in out["levels"]
    }
    order_ok = sep_ok = True
    for weak, strong in zip(out["levels"], out["levels"][1:], strict=False):
        lo = by_level[weak]
        hi = by_level[strong]
        order_ok &= min(m for m, _ in hi) > max(m for m, _ in lo)
        sep_ok &= min(m - 2 * s for m, s in hi) > max(m + 2 * s for m, s in lo)
    return order_ok, sep_ok


def sigma_ratios(out: dict[str, Any], at: tuple[int, ...] = (10, 40, 160, 640)) -> dict[int, float]:
    """Mean over players of σ(n) / curve(n), at the given numbers of rated deals."""
    res: dict[int, float] = {}
    for n in at:
        vals = [s for p in out["players"] for k, s in out["trace"][p] if k == n]
        if vals:
            res[n] = sum(vals) / len(vals) / sigma_curve(n)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=6000)
    ap.add_argument("--per-level", type=int, default=4)
    ap.add_argument("--budget-ms", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t0 = time.perf_counter()
    out = simulate(a.deals, a.per_level, a.seed, a.budget_ms)
    wall = time.perf_counter() - t0
    print(
        f"{a.deals} deals ({out['annulled']} annulled), {len(out['players'])} players, "
        f"strong budget {a.budget_ms} ms, {wall:.1f} s"
    )
    for lv in out["levels"]:
        rows = [
            (p, *out["ratings"][p], out["rated"][p])
            for p in out["players"]
            if out["level_of"][p] == lv
        ]
        for p, mu, sigma, n in rows:
            print(
                f"  {p:12} mu {mu:7.2f}  sigma {sigma:5.2f}  mu-3s {mu - 3 * sigma:7.2f}"
                f"  rated deals {n}"
            )
    o, s = ordered(out)
    print(f"ordered by level: {o}; 2-sigma intervals separated: {s}")
    for n, r in sigma_ratios(out).items():
        print(
            f"  sigma after {n:4} rated deals: {r:.2f} x the documented curve "
            f"({sigma_curve(n):.2f})"
        )
    print(f"ratings CPU: {out['rate_cpu_us']:.0f} us per rated deal")


if __name__ == "__main__":
    main()

"""Tune the heuristic bot's bidding thresholds (and check its poignée rule) by simulation.

For every simulated deal and every seat, the deal is played once per contract (prise, garde,
garde sans, garde contre) with that seat forced to take it (the others pass) and four
``heuristic`` bots doing everything else (discard, chelem, card play; no poignée, so that
scores measure the contract alone). Each hand thus gets its club-scale point count
(``evaluate.hand_points``: strength and distribution points) and the taker's result under each
contract.

The bidding rule "bid the highest contract c whose count, strength + w_c * distribution,
reaches threshold t_c; pass (worth 0) otherwise" is then fitted to maximise the taker's mean
score on half of the hands (coordinate ascent over thresholds and weights) and checked on the
other half. The poignée part reports, by trump count, how often the side of a seat holding 10+
trumps wins: a poignée (paid to the contract's winner) pays when that is above one half.

    .venv/bin/python bench/tune_bidding.py --deals 3000 --out /tmp/bidsim.jsonl
    .venv/bin/python bench/tune_bidding.py --load /tmp/bidsim.jsonl      # refit only
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import server.ai.heuristic as heuristic
from server.ai.evaluate import hand_points
from server.rules import OVER, Bid, apply, legal_actions, score
from server.rules.actions import CONTRACTS
from server.rules.cards import TRUMP_MASK
from server.rules.deal import new_deal
from server.rules.views import view

heuristic.choose_poignee = lambda *a: False  # type: ignore[assignment]


def simulate(i: int) -> list[dict[str, Any]]:
    seed = _SEED[0]
    st0 = new_deal(random.Random(seed * 1_000_003 + i), dealer=i % 4)
    if st0.phase == OVER:
        return []
    bot = heuristic.HeuristicBot(0)
    out = []
    for s in range(4):
        base, dist = hand_points(st0.initial_hands[s])
        rec: dict[str, Any] = {
            "deal": i,
            "seat": s,
            "base": base,
            "dist": dist,
            "trumps": (st0.initial_hands[s] & TRUMP_MASK).bit_count(),
            "score": [],
            "taker_trumps_after": [],
            "def_max_trumps": max(
                (st0.initial_hands[o] & TRUMP_MASK).bit_count() for o in range(4) if o != s
            ),
            "won": [],
        }
        for c in range(1, 5):
            st = st0
            for _ in range(4):
                st = apply(st, Bid(st.turn, CONTRACTS[c] if st.turn == s else "pass"))  # type: ignore[arg-type]
            trumps_after = -1
            while st.phase != OVER:
                lg = legal_actions(st)
                assert lg is not None
                st = apply(st, bot.choose(view(st, lg.seat), lg))
                if trumps_after < 0 and st.phase == "play":
                    trumps_after = (st.hands[s] & TRUMP_MASK).bit_count()
            sc = score(st)
            rec["score"].append(sc.per_defender_half / 2)
            rec["won"].append(sc.won)
            rec["taker_trumps_after"].append(trumps_after)
        out.append(rec)
    return out


_SEED = [1]


def _init(seed: int) -> None:
    _SEED[0] = seed


def decide(base: float, dist: float, th: list[float], w: list[float]) -> int:
    c = 0
    for k in range(4):
        if base + w[k] * dist >= th[k]:
            c = k + 1
    return c


def total(rows: list[dict[str, Any]], th: list[float], w: list[float]) -> float:
    t = 0.0
    for r in rows:
        c = decide(r["base"], r["dist"], th, w)
        if c:
            t += r["score"][c - 1]
    return t / len(rows)


def fit(rows: list[dict[str, Any]]) -> tuple[list[float], list[float]]:
    th = [30.0, 42.0, 55.0, 65.0]
    w = [0.0, 0.0, 1.0, 1.0]
    best = total(rows, th, w)
    for _ in range(4):
        improved = False
        for k in range(4):
            for cand in range(10, 100):
                trial = th[:]
                trial[k] = float(cand)
                v = total(rows, trial, w)
                if v > best + 1e-9:
                    best, th, improved = v, trial, True
            for cw in (0.0, 0.5, 1.0, 1.5):
                trial_w = w[:]
                trial_w[k] = cw
                v = total(rows, th, trial_w)
                if v > best + 1e-9:
                    best, w, improved = v, trial_w, True
        if not improved:
            break
    return th, w


def analyse(rows: list[dict[str, Any]]) -> None:
    rows = sorted(rows, key=lambda r: (r["deal"], r["seat"]))
    train = [r for r in rows if r["deal"] % 2 == 0]
    test = [r for r in rows if r["deal"] % 2 == 1]
    print(f"{len(rows)} hands ({len(train)} to fit, {len(test)} to check)")
    # Mean taker score by point count, per contract: where each contract starts to pay.
    print("mean per-defender score when forced to take, by strength points (bins of 5):")
    print("  points   n    prise   garde   g.sans  g.contre")
    bins: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        bins.setdefault(int(r["base"]) // 5 * 5, []).append(r)
    for b in sorted(bins):
        rs = bins[b]
        if len(rs) < 20:
            continue
        means = [sum(r["score"][c] for r in rs) / len(rs) for c in range(4)]
        print(f"  {b:3d}-{b + 4:<3d} {len(rs):5d} " + " ".join(f"{m:7.1f}" for m in means))
    th, w = fit(train)
    print(f"fitted thresholds {th}, distribution weights {w}")
    for name, part in (("fit half", train), ("check half", test)):
        print(
            f"  {name}: mean taker score per hand {total(part, th, w):+.2f} (per defender);"
            f" club defaults (30,42,55,65) {total(part, [30, 42, 55, 65], [0, 0, 1, 1]):+.2f};"
            f" always pass 0"
        )
    dist = [0, 0, 0, 0, 0]
    for r in test:
        dist[decide(r["base"], r["dist"], th, w)] += 1
    print("  bids on the check half: " + ", ".join(f"{CONTRACTS[c]} {dist[c]}" for c in range(5)))
    # Poignée: does the side holding 10+ trumps win its contract more often than not?
    print("poignée check (contract garde, taker forced):")
    for n in (10, 11, 12, 13):
        tk = [r["won"][1] for r in rows if r["taker_trumps_after"][1] == n]
        if tk:
            print(
                f"  taker with {n} trumps after the discard: wins {100 * sum(tk) / len(tk):.0f}% (n={len(tk)})"
            )
    for n in (10, 11, 12):
        df = [not r["won"][1] for r in rows if r["def_max_trumps"] == n]
        if df:
            print(
                f"  a defender holds {n} trumps: the taker loses {100 * sum(df) / len(df):.0f}% (n={len(df)})"
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--out", help="save the simulated hands (JSON lines)")
    ap.add_argument("--load", help="refit from saved hands instead of simulating")
    args = ap.parse_args(argv)
    if args.load:
        with open(args.load) as fh:
            rows = [json.loads(line) for line in fh]
    else:
        t0 = time.perf_counter()
        with ProcessPoolExecutor(args.jobs, initializer=_init, initargs=(args.seed,)) as ex:
            rows = [r for part in ex.map(simulate, range(args.deals), chunksize=8) for r in part]
        print(
            f"simulated {args.deals} deals in {time.perf_counter() - t0:.0f} s (seed {args.seed})"
        )
        if args.out:
            with open(args.out, "w") as fh:
                for r in rows:
                    fh.write(json.dumps(r) + "\n")
    analyse(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

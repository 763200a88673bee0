"""Fit the heuristic bot's bidding (``server.ai.evaluate.BID_WEIGHTS``) by simulation, and check
its poignée rule.

For every simulated deal and every seat, the deal is played once per contract (prise, garde,
garde sans, garde contre) with that seat forced to take it (the others pass) and four
``heuristic`` bots doing everything else (discard, chelem, card play; no poignée, so that
scores measure the contract alone). Each hand thus gets its features
(``evaluate.bid_features``: trump count and strength, oudlers, the Petit's protection, honours,
long suits, voids and singletons) and the taker's result (per-defender score) under each
contract.

The model: for each contract, the expected per-defender score is a linear function of the
features, fitted by least squares (a small ridge term) on the even deals. The bidding rule
"bid the contract with the best predicted score if it is positive, else pass (worth 0)" is
then checked on the odd deals against the realised scores, next to the previous rule
(club-scale count and thresholds) and "always pass". The script prints the fitted weights as
the Python literal to paste into ``server/ai/evaluate.py``.

The poignée part reports, by trump count, how often the side of a seat holding 10+ trumps
wins: a poignée (paid to the contract's winner) pays when that is above one half.

    .venv/bin/python bench/tune_bidding.py --deals 6000 --out /tmp/bidsim.jsonl
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
from server.ai.evaluate import BID_FEATURES, BID_MARGIN, STRONG_GARDE, bid_features
from server.rules import OVER, Bid, apply, legal_actions, score
from server.rules.actions import CONTRACTS
from server.rules.cards import TRUMP_MASK
from server.rules.deal import new_deal
from server.rules.views import view

heuristic.choose_poignee = lambda *a: False  # type: ignore[assignment]

# The rule before issue 13 (club-scale count, thresholds (33, 40, 58, 65)), for comparison.
OLD_THRESHOLDS = (33, 40, 58, 65)


def old_count(hand: int) -> int:
    """The club-scale count of revision 3245940 (strength + distribution points)."""
    from server.rules.cards import EXCUSE_BIT, PETIT_BIT, SUIT_MASKS, TRUMP_BASE

    trumps = hand & TRUMP_MASK
    t = trumps.bit_count()
    pts = 0
    if hand >> (TRUMP_BASE + 20) & 1:
        pts += 10
    if hand & EXCUSE_BIT:
        pts += 8
    if hand & PETIT_BIT:
        pts += (0, 0, 0, 0, 2, 5, 6, 7, 8)[min(t, 8)]
    pts += 2 * max(0, t - 4)
    pts += (trumps >> (TRUMP_BASE + 15) & 0x1F).bit_count()
    for s in range(4):
        suit = hand & SUIT_MASKS[s]
        n = suit.bit_count()
        king = suit >> (14 * s + 13) & 1
        queen = suit >> (14 * s + 12) & 1
        pts += 10 if king and queen else 6 if king else 3 if queen else 0
        pts += 2 * (suit >> (14 * s + 11) & 1) + (suit >> (14 * s + 10) & 1)
        if n >= 5:
            pts += 5 + 2 * (n - 5)
        if n == 0:
            pts += 6
        elif n == 1 and not king:
            pts += 3
    return pts


def simulate(i: int) -> list[dict[str, Any]]:
    seed = _SEED[0]
    st0 = new_deal(random.Random(seed * 1_000_003 + i), dealer=i % 4)
    if st0.phase == OVER:
        return []
    bot = heuristic.HeuristicBot(0)
    out = []
    for s in range(4):
        hand = st0.initial_hands[s]
        rec: dict[str, Any] = {
            "deal": i,
            "seat": s,
            "hand": hand,
            "old": old_count(hand),
            "trumps": (hand & TRUMP_MASK).bit_count(),
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


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the system is small)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        p = m[col][col]
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col] / p
                for k in range(col, n + 1):
                    m[r][k] -= f * m[col][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def least_squares(xs: list[list[float]], ys: list[float], ridge: float = 1.0) -> list[float]:
    k = len(xs[0])
    ata = [[0.0] * k for _ in range(k)]
    atb = [0.0] * k
    for x, y in zip(xs, ys, strict=True):
        for i in range(k):
            xi = x[i]
            if not xi:
                continue
            atb[i] += xi * y
            row = ata[i]
            for j in range(k):
                row[j] += xi * x[j]
    for i in range(1, k):  # no penalty on the intercept
        ata[i][i] += ridge
    return solve(ata, atb)


def predict(w: list[float], x: list[float]) -> float:
    return sum(a * b for a, b in zip(w, x, strict=True))


def decide(weights: list[list[float]], x: list[float], margin: float = 0.0) -> int:
    """As ``evaluate.choose_bid`` with no bid before: the best predicted contract above
    ``margin`` (garde sans and contre only for hands rated +STRONG_GARDE in garde)."""
    best, best_v = 0, margin
    garde = predict(weights[1], x)
    for c in range(4):
        if c >= 2 and garde < STRONG_GARDE:
            break
        v = predict(weights[c], x)
        if v > best_v:
            best, best_v = c + 1, v
    return best


def decide_old(count: int) -> int:
    c = 0
    for k in range(4):
        if count >= OLD_THRESHOLDS[k]:
            c = k + 1
    return c


def mean_score(rows: list[dict[str, Any]], choose: Any) -> tuple[float, list[int]]:
    t = 0.0
    dist = [0, 0, 0, 0, 0]
    for r in rows:
        c = choose(r)
        dist[c] += 1
        if c:
            t += r["score"][c - 1]
    return t / len(rows), dist


def analyse(rows: list[dict[str, Any]], margin: float) -> None:
    rows = sorted(rows, key=lambda r: (r["deal"], r["seat"]))
    for r in rows:
        r["features"] = bid_features(r["hand"])
    train = [r for r in rows if r["deal"] % 2 == 0]
    test = [r for r in rows if r["deal"] % 2 == 1]
    print(f"{len(rows)} hands ({len(train)} to fit, {len(test)} to check)")
    weights = [
        least_squares([r["features"] for r in train], [r["score"][c] for r in train])
        for c in range(4)
    ]
    # Garde sans and garde contre pay only with the strongest hands, where one linear model of
    # all hands underestimates them: fit them again on the hands the garde model rates at
    # +STRONG_GARDE or more (the only ones where the bot considers them).
    strong = [r for r in train if predict(weights[1], r["features"]) >= STRONG_GARDE]
    print(f"garde sans / contre refitted on {len(strong)} strong hands")
    for c in (2, 3):
        weights[c] = least_squares(
            [r["features"] for r in strong], [r["score"][c] for r in strong], ridge=10.0
        )
    print("fitted weights (per-defender score per feature unit):")
    print(f"  {'feature':16s} " + " ".join(f"{n:>9s}" for n in CONTRACTS[1:]))
    for i, name in enumerate(BID_FEATURES):
        print(f"  {name:16s} " + " ".join(f"{weights[c][i]:9.2f}" for c in range(4)))
    for name, part in (("fit half", train), ("check half", test)):
        new, dist_new = mean_score(part, lambda r: decide(weights, r["features"], margin))
        old, dist_old = mean_score(part, lambda r: decide_old(r["old"]))
        print(
            f"  {name}: mean taker score per hand (per defender) fitted rule {new:+.2f},"
            f" previous rule {old:+.2f}, always pass 0"
        )
        print(
            "    bids, fitted:   "
            + ", ".join(f"{CONTRACTS[c]} {dist_new[c]}" for c in range(5))
            + "\n    bids, previous: "
            + ", ".join(f"{CONTRACTS[c]} {dist_old[c]}" for c in range(5))
        )
    # Takes with few trumps under each rule, on the check half.
    for label, choose in (
        ("fitted", lambda r: decide(weights, r["features"], margin)),
        ("previous", lambda r: decide_old(r["old"])),
    ):
        few = [r for r in test if r["trumps"] <= 4 and choose(r)]  # type: ignore[no-untyped-call]
        won = sum(r["won"][choose(r) - 1] for r in few)
        print(
            f"  {label} rule, check half: {len(few)} takes with <= 4 trumps"
            f" ({100 * won / max(1, len(few)):.0f}% made)"
        )
    print("BID_WEIGHTS = (")
    for c in range(4):
        print("    (" + ", ".join(f"{w:.3f}" for w in weights[c]) + f"),  # {CONTRACTS[c + 1]}")
    print(")")
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
    ap.add_argument(
        "--margin",
        type=float,
        default=BID_MARGIN,
        help="bid when the best prediction is above this (per-defender points)",
    )
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
    analyse(rows, args.margin)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

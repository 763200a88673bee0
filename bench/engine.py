"""Rules-engine speed on one core: complete random deals, legal-move generation, rollouts.

    .venv/bin/python bench/engine.py            # about 10 s
    .venv/bin/python bench/engine.py --quick    # about a second (smoke run, noisier)

Everything plays on the one rules core (:class:`server.rules.core.Position`). Every "full
random deal" is: shuffle, bidding, discard (R5.3), chelem decision, poignée declarations,
72 plays with legal-move generation at every step, and scoring; annulled deals (petit sec, all
passed) are counted too, as they happen (about 1 in 25 with random bids).

* kernel: :func:`server.rules.randplay.random_deal_result` (bitmasks, one core position).
* API: the public path a server or a naive AI would use: ``legal_actions()`` at every step,
  a random legal action (``randplay.random_from_legal``), ``apply()``, then ``score()``.
* legal-move generations: ``core.legal_play_mask`` (what every card play calls) and
  ``legal_actions()`` (the public API), on positions taken from real random deals.
* rollouts from the first card of a deal: a copy of the position finished with random cards
  (``randplay.random_playout``), with a trivial Python policy (the cost of calling a function
  per card, not of a smart one), and with the AI's heuristic policy (the strong bot's rollout).
* push/pop: a card pushed and popped again (what an exact search does at every node).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.ai.kernel import Pos, pos_from_state
from server.ai.strong import rollout as heuristic_rollout
from server.rules.core import Position, legal_play_mask
from server.rules.deal import OVER, PLAY, DealState, apply, legal_actions, new_deal
from server.rules.randplay import random_deal_result, random_from_legal, random_playout
from server.rules.scoring import score

TARGET_DEALS_PER_S = 5000


def timed(fn: Callable[[int], object], n: int, repeats: int) -> float:
    """Best rate (items per second) of ``repeats`` runs of ``fn(n)``: the least disturbed run."""
    best = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(n)
        best = max(best, n / (time.perf_counter() - t0))
    return best


def kernel_deals(n: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    for i in range(n):
        random_deal_result(rng, i & 3)


def api_deals(n: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    for i in range(n):
        st = new_deal(rng, i & 3)
        while True:
            legal = legal_actions(st)
            if legal is None:
                break
            st = apply(st, random_from_legal(legal, rng))
        score(st)


def sample_play_states(n: int, seed: int = 2) -> list[DealState]:
    """States at every card of random deals (phase play), to time legal-move generation on."""
    rng = random.Random(seed)
    out: list[DealState] = []
    while len(out) < n:
        st = new_deal(rng, rng.randrange(4))
        while st.phase != OVER:
            legal = legal_actions(st)
            assert legal is not None
            if st.phase == PLAY:
                out.append(st)
            st = apply(st, random_from_legal(legal, rng))
    return out[:n]


def start_positions(n: int, seed: int = 3) -> list[Pos]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        st = new_deal(rng, rng.randrange(4))
        while st.phase not in (PLAY, OVER):
            legal = legal_actions(st)
            assert legal is not None
            st = apply(st, random_from_legal(legal, rng))
        if st.phase == PLAY:
            out.append(pos_from_state(st))
    return out


def lowest_card(_pos: Position, _seat: int, legal: int) -> int:
    return (legal & -legal).bit_length() - 1


def policy_playout(pos: Position) -> None:
    """Finish ``pos`` calling a Python policy function for every card."""
    hands = pos.hands
    while hands[pos.turn]:
        seat = pos.turn
        pos.play(lowest_card(pos, seat, legal_play_mask(hands[seat], pos.lead, pos.hi)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small counts, a few seconds")
    ap.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    args = ap.parse_args(argv)
    q = args.quick
    repeats = 2 if q else 3
    n_kernel = 3000 if q else 20000
    n_api = 400 if q else 3000
    n_states = 2000 if q else 10000
    n_roll = 1000 if q else 5000

    t_start = time.perf_counter()
    print(f"Atout rules engine benchmark ({'quick' if q else 'full'} run), one core")
    print(f"Python {platform.python_version()} on {platform.machine()}, {platform.platform()}")

    kernel = timed(kernel_deals, n_kernel, repeats)
    api = timed(api_deals, n_api, repeats)

    states = sample_play_states(n_states)
    triples = [(st.hands[st.turn], st.lead_suit, st.hi_trump) for st in states]

    def gen_mask(n: int) -> None:
        lpm = legal_play_mask
        for _ in range(n // len(triples)):
            for hand, lead, hi in triples:
                lpm(hand, lead, hi)

    def gen_api(n: int) -> None:
        for _ in range(n // len(states)):
            for st in states:
                legal_actions(st)

    gens_mask = timed(gen_mask, len(triples) * (20 if q else 50), repeats)
    gens_api = timed(gen_api, len(states), repeats)

    positions = start_positions(200)
    rrng = random.Random(4)

    def roll_random(n: int) -> None:
        rnd = rrng.random
        for i in range(n):
            random_playout(positions[i % len(positions)].copy(), rnd)

    def roll_policy(n: int) -> None:
        for i in range(n):
            policy_playout(positions[i % len(positions)].copy())

    def roll_heuristic(n: int) -> None:
        for i in range(n):
            heuristic_rollout(positions[i % len(positions)].copy())

    # Mid-deal positions (a few tricks played), with a legal card of each to push and pop.
    mids = []
    for p in positions:
        m = p.copy()
        for _ in range(4 * (len(mids) % 15) + len(mids) % 4):
            m.play((m.legal() & -m.legal()).bit_length() - 1)
        mids.append((m, m.legal().bit_length() - 1))

    def push_pop(n: int) -> None:
        for _ in range(n // len(mids)):
            for m, card in mids:
                m.push(card)
                m.pop()

    rolls = timed(roll_random, n_roll, repeats)
    rolls_policy = timed(roll_policy, n_roll, repeats)
    rolls_heuristic = timed(roll_heuristic, n_roll // 10, repeats)
    push_pops = timed(push_pop, len(mids) * (100 if q else 500), repeats)

    rows = [
        ("full random deals/s, kernel (randplay.random_deal_result)", kernel),
        ("full random deals/s, public API (legal_actions/apply/score)", api),
        ("legal-move generations/s, core.legal_play_mask", gens_mask),
        ("legal-move generations/s, legal_actions() (play phase)", gens_api),
        ("rollouts/s from the first card, random cards", rolls),
        ("rollouts/s from the first card, Python policy function", rolls_policy),
        ("rollouts/s from the first card, AI heuristic policy", rolls_heuristic),
        ("push + pop pairs/s (mid-deal positions)", push_pops),
    ]
    width = max(len(r[0]) for r in rows)
    print()
    for label, value in rows:
        print(f"  {label:<{width}}  {value:>12,.0f}")
    print()
    print(f"  kernel / API deals:              {kernel / api:6.1f}x")
    print(f"  legal_play_mask / legal_actions: {gens_mask / gens_api:6.1f}x")
    print(f"  random / policy rollouts:        {rolls / rolls_policy:6.1f}x")
    ok = kernel >= TARGET_DEALS_PER_S
    print(
        f"  target {TARGET_DEALS_PER_S:,} kernel deals/s: "
        f"{'met' if ok else 'NOT met'} ({kernel / TARGET_DEALS_PER_S:.1f}x the target)"
    )
    print(f"  (best of {repeats} runs each; total {time.perf_counter() - t_start:.1f} s)")
    if args.json:
        print(
            json.dumps(
                {
                    "kernel_deals_per_s": round(kernel),
                    "api_deals_per_s": round(api),
                    "legal_play_mask_per_s": round(gens_mask),
                    "legal_actions_per_s": round(gens_api),
                    "random_rollouts_per_s": round(rolls),
                    "policy_rollouts_per_s": round(rolls_policy),
                    "heuristic_rollouts_per_s": round(rolls_heuristic),
                    "push_pop_per_s": round(push_pops),
                    "quick": q,
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The AI's bitmask play kernel (server/ai/kernel.py) agrees with the rules engine, and the
exact endgame search and equivalence grouping behave."""

from __future__ import annotations

import random

from server.ai.kernel import legal_mask, new_pos, pos_from_state
from server.ai.policy import choose_card
from server.ai.strong import INF, equivalent_groups, solve
from server.rules import OVER, PLAY, Play, apply, legal_actions, score
from server.rules.actions import GARDE_SANS, MULTIPLIERS
from server.rules.cards import CODES, INDEX, NO_TRUMP, mask_of
from server.rules.deal import POIGNEE_BONUS, legal_play_mask, new_deal
from server.rules.randplay import random_action


def test_legal_mask_matches_engine() -> None:
    rng = random.Random(3)
    for _ in range(5000):
        hand = rng.getrandbits(78)
        lead = rng.choice([-1, 0, 1, 2, 3, 4])
        hi = rng.choice([-1, *range(56, 77)])
        eng_hi = NO_TRUMP if hi < 0 else hi
        assert legal_mask(hand, lead, hi) == legal_play_mask(hand, lead, eng_hi)


def _play_state(rng: random.Random, i: int):
    st = new_deal(rng, dealer=i % 4)
    while st.phase not in (PLAY, OVER):
        st = apply(st, random_action(st, rng, poignee_chance=0.5))
    return st


def test_kernel_policy_playout_scores_like_engine() -> None:
    """Deals finished by the kernel with the heuristic policy, replayed through apply(), give
    the same per-defender score; chelem announces and poignées included."""
    n = 0
    for i in range(600):
        rng = random.Random(i)
        st = _play_state(rng, i)
        if st.phase == OVER:
            continue
        # play a few random cards through the engine first (mid-deal positions)
        for _ in range(rng.randrange(0, 30)):
            st = apply(st, random_action(st, rng, poignee_chance=0.3))
        if st.phase == OVER:
            continue
        p = pos_from_state(st)
        while p.n_tricks < 18:
            seat = p.turn
            c = choose_card(p, seat)
            assert legal_mask(p.hands[seat], p.lead, p.hi) >> c & 1
            p.play(c)
            st = apply(st, Play(seat, CODES[c]))
        assert st.phase == OVER
        sc = score(st)
        assert p.score_half() == sc.per_defender_half
        assert p.taker_half == sc.taker_half
        n += 1
    assert n > 500


def test_kernel_excuse_slam_and_petit_au_bout() -> None:
    """A chelem won by leading the Excuse to the last trick (R8.3), with the Petit in trick
    17 (R10.2): the kernel scores it as the engine does."""
    trumps = [f"T{n}" for n in range(1, 22)]
    taker = ["EX", *trumps[:17]]  # T1..T17 and the Excuse
    rest = [c for c in CODES if c not in taker]
    hands = [mask_of(taker), mask_of(rest[0:18]), mask_of(rest[18:36]), mask_of(rest[36:54])]
    chien = mask_of(rest[54:60])
    p = new_pos(hands, 0, 0, MULTIPLIERS[GARDE_SANS], chien, True, 2 * POIGNEE_BONUS[15])
    # The taker plays T17..T2 (leading), then T1, then the Excuse last.
    order = [INDEX[f"T{n}"] for n in range(17, 0, -1)] + [INDEX["EX"]]
    for c in order:
        assert p.turn == 0
        p.play(c)
        while p.turn != 0 and p.n_tricks < 18:
            p.play(choose_card(p, p.turn))
    assert p.n_tricks == 18 and p.ex_slam and p.taker_tricks == 18
    # petit au bout on trick 17 (index 16) counts: +10 x 4; chelem +400; poignée +40
    base = 2 * (25 + (p.taker_half // 2 - 36)) * 4
    assert p.score_half() == base + 2 * 10 * 4 + 800 + 80


def test_solve_matches_exhaustive_minimax() -> None:
    """Alpha-beta equals a plain minimax on last-three-trick positions."""

    def minimax(p) -> int:
        if p.n_tricks == 18:
            return p.score_half()
        vals = []
        m = p.legal()
        while m:
            low = m & -m
            m ^= low
            q = p.copy()
            q.play(low.bit_length() - 1)
            vals.append(minimax(q))
        return max(vals) if p.turn == p.taker else min(vals)

    checked = 0
    for i in range(200):
        rng = random.Random(900 + i)
        st = _play_state(rng, i)
        if st.phase == OVER:
            continue
        while st.phase == PLAY and len(st.tricks) < 15 + i % 2:
            st = apply(st, random_action(st, rng, poignee_chance=0.3))
        if st.phase != PLAY:
            continue
        p = pos_from_state(st)
        assert solve(p, -INF, INF, "score") == minimax(p)
        checked += 1
        if checked >= 40:
            break
    assert checked >= 40


def test_equivalent_groups() -> None:
    hand = mask_of(["S2", "S3", "S5", "SJ", "SQ", "T4", "T5", "T7", "T21"])
    known = hand | mask_of(["S4", "T6"])
    groups = [[CODES[c] for c in g] for g in equivalent_groups(hand, known)]
    assert groups == [["S2", "S3", "S5"], ["SJ"], ["SQ"], ["T4", "T5", "T7"], ["T21"]]
    # S4 unknown: S2 S3 stay together, S5 apart
    groups = [[CODES[c] for c in g] for g in equivalent_groups(hand, hand)]
    assert groups[:2] == [["S2", "S3"], ["S5"]]


def test_legal_actions_unchanged_by_kernel_play() -> None:
    """pos_from_state rebuilds the same trick state as the engine at every card."""
    rng = random.Random(5)
    for i in range(100):
        st = _play_state(rng, i)
        while st.phase == PLAY:
            p = pos_from_state(st)
            legal = legal_actions(st)
            assert legal is not None
            assert {CODES[c] for c in range(78) if p.legal() >> c & 1} == set(legal.plays)
            assert p.turn == st.turn
            st = apply(st, random_action(st, rng, poignee_chance=0.0))

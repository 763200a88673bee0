"""Bidding and discard by simulation: the ``strong`` bot's decisions before the first card.

**Bidding.** The seat knows its 18 cards and the bids so far. Deals consistent with that are
sampled (the 60 unseen cards dealt to the other three seats and the chien; a deal where an
earlier bidder would not have bid as it did, read with the heuristic's bidding model, is mostly
rejected). In each sampled deal the seat takes the contract and the deal is played out by
rollouts in which every seat plays the heuristic policy on what it would know
(:func:`server.ai.strong.rollout_hidden`): once with the chien taken and the heuristic's
discard (this one play scores both prise and garde), once with the chien aside (garde sans;
garde contre is the same play with the chien counted for the defence). Each contract's mean
simulated score is shrunk towards the heuristic's fitted prediction
(:func:`server.ai.evaluate.bid_values`, worth :data:`PRIOR_WEIGHT` samples), and the seat bids
the best contract above the bids so far whose estimate is positive (passing scores 0).

**Discard.** The taker knows its 24 cards and the chien is known to all. The few best discards
by the heuristic's own ranking (:func:`server.ai.evaluate.discard_candidates`, all legal under
R5.2/R5.3) are each played out over the same sampled defenders' hands; the heuristic's choice
is kept unless another one does better by more than :data:`DISCARD_Z` standard errors of the
paired difference.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from server.rules.actions import MULTIPLIERS
from server.rules.cards import FULL_DECK, OUDLERS_MASK, PETIT_BIT, TRUMP_MASK, half_points
from server.rules.cards import cards_of as _cards
from server.rules.deal import discard_rule

from .evaluate import bid_values, choose_bid, choose_discard, discard_candidates
from .kernel import new_pos
from .rollouts import rollout_hidden

PRIOR_WEIGHT = 12.0  # the fitted prediction counts as this many simulated deals
DISCARD_CANDIDATES = 4
DISCARD_Z = 1.5
MIN_WORLDS = 4


def _petit_sec(hand: int) -> bool:
    return hand & TRUMP_MASK == PETIT_BIT and not hand >> 77 & 1


def _sample_others(
    rng: random.Random, me: int, hand: int, unseen: list[int], sizes: list[int]
) -> list[int] | None:
    """Deal ``unseen`` at random into the other seats' hands (``sizes``) and a rest (returned
    at index 4); None for a deal the rules would have annulled (petit sec, R3.1)."""
    rng.shuffle(unseen)
    out = [0, 0, 0, 0, 0]
    i = 0
    for s in range(4):
        if s == me:
            out[s] = hand
            continue
        m = 0
        for c in unseen[i : i + sizes[s]]:
            m |= 1 << c
        i += sizes[s]
        if _petit_sec(m):
            return None
        out[s] = m
    m = 0
    for c in unseen[i:]:
        m |= 1 << c
    out[4] = m
    return out


def _play_taken(
    hands: list[int], taker: int, leader: int, chien: int, discard: int, mult: int
) -> tuple[int, int]:
    """Roll out a prise/garde after ``discard``: (per-defender score in half points at
    multiplier 1, the same at ``mult``)."""
    hands = hands[:4]
    hands[taker] = (hands[taker] | chien) & ~discard
    p = new_pos(hands, taker, leader, 1, discard)
    forbidden = [0, 0, 0, 0]
    for s in range(4):
        if s != taker:
            forbidden[s] = chien  # the chien was shown and went to the taker
    rollout_hidden(p, forbidden, discard & TRUMP_MASK, discard)
    one = p.score_half()
    # The score reads the contract's multiplier (R10.1, R10.2), not ``p.mult``: setting that
    # alone changed nothing, and garde was scored as prise.
    p.contract = MULTIPLIERS.index(mult)
    return one, p.score_half()


def simulate_bid(
    hand: int,
    me: int,
    dealer: int,
    bids: list[tuple[int, int]],
    rng: random.Random,
    out_of_time: Callable[[], bool],
    max_worlds: int = 200,
    margin: float = 0.0,
    sans_factor: float = 1.0,
) -> tuple[int, list[float], int]:
    """(contract index to bid, estimated per-defender score of contracts 1..4, worlds used).
    The seat bids the best contract whose estimate is above ``margin``; garde sans and garde
    contre need only beat ``sans_factor`` times the garde's estimate (and the prise's)."""
    best = max((c for _, c in bids), default=0)
    prior = bid_values(hand)
    sums = [0.0, 0.0, 0.0, 0.0]
    n = 0
    rejected = 0
    leader = (dealer + 1) % 4
    unseen = [c for c in _cards(FULL_DECK & ~hand)]
    sizes = [18, 18, 18, 18]
    while n < max_worlds and (n < MIN_WORLDS or not out_of_time()):
        dealt = _sample_others(rng, me, hand, unseen, sizes)
        if dealt is None:
            continue
        chien = dealt[4]
        if rejected < 100 and not _bids_fit(dealt, me, bids) and rng.random() >= 0.1:
            rejected += 1
            continue
        full = hand | chien
        required, choices = discard_rule(full)
        discard = choose_discard(full, required, choices)
        v1, v2 = _play_taken(dealt, me, leader, chien, discard, MULTIPLIERS[2])
        p = new_pos(dealt[:4], me, leader, MULTIPLIERS[3], chien)
        rollout_hidden(p, [0, 0, 0, 0], 0, 0)
        v3 = p.score_half()
        p.taker_half -= half_points(chien)
        p.taker_oud &= ~(chien & OUDLERS_MASK)
        p.contract = 4  # garde contre: x6 (setting p.mult alone left it at x4)
        v4 = p.score_half()
        for i, v in enumerate((v1, v2, v3, v4)):
            sums[i] += v / 2
        n += 1
    est = [(PRIOR_WEIGHT * prior[i] + sums[i]) / (PRIOR_WEIGHT + n) for i in range(4)]
    want, want_v = 0, margin
    for c in range(best + 1, 5):
        bar = want_v
        if c >= 3 and want == 2:
            # Garde sans / contre against garde: the garde's estimate counts SANS_FACTOR of
            # itself (but never below the prise's).
            bar = max(margin, est[0] if best < 1 else margin, sans_factor * want_v)
        if est[c - 1] > bar:
            want, want_v = c, est[c - 1]
    return want, est, n


def _bids_fit(dealt: list[int], me: int, bids: list[tuple[int, int]]) -> bool:
    """Would the earlier bidders have bid as they did with these hands (our bidding model)?"""
    best = 0
    for seat, contract in bids:
        if seat != me and choose_bid(dealt[seat], best) != contract:
            return False
        best = max(best, contract)
    return True


def simulate_discard(
    full: int,
    me: int,
    dealer: int,
    chien: int,
    contract: int,
    required: int,
    choices: int,
    rng: random.Random,
    out_of_time: Callable[[], bool],
    max_worlds: int = 200,
) -> tuple[int, dict[str, float]]:
    """The discard (a card mask) for the taker's 24 cards ``full``, and search statistics."""
    cands = discard_candidates(full, required, choices)[:DISCARD_CANDIDATES]
    first = choose_discard(full, required, choices)
    if first not in cands:
        cands.insert(0, first)
    if len(cands) == 1:
        return first, {"worlds": 0, "candidates": 1}
    mult = MULTIPLIERS[contract]
    unseen = [c for c in _cards(FULL_DECK & ~full)]
    sizes = [18, 18, 18, 18]
    sizes[me] = 0
    leader = (dealer + 1) % 4
    values: list[list[float]] = [[] for _ in cands]
    n = 0
    while n < max_worlds and (n < MIN_WORLDS or not out_of_time()):
        dealt = _sample_others(rng, me, 0, unseen, sizes)
        if dealt is None:
            continue
        dealt[me] = full & ~chien  # the seat's 18 dealt cards; the chien is added back
        for i, d in enumerate(cands):
            _, v = _play_taken(dealt, me, leader, chien, d, mult)
            values[i].append(v / 2)
        n += 1
    means = [sum(v) / n for v in values]
    best = max(range(len(cands)), key=means.__getitem__)
    choice = 0  # the heuristic's discard unless another is clearly better
    if best != 0:
        diff = [a - b for a, b in zip(values[best], values[0], strict=True)]
        m = sum(diff) / n
        var = sum((x - m) ** 2 for x in diff) / max(1, n - 1)
        if var == 0 or m > DISCARD_Z * math.sqrt(var / n):
            choice = best
    return cands[choice], {"worlds": n, "candidates": len(cands), "changed": float(choice != 0)}

"""Ratings: openskill's Weng-Lin Bradley-Terry model, one comparison per taker-defender pair.

A scored deal is three games: the taker against each defender, all won by the taker if the
contract was made, all lost otherwise. Defenders are not compared with each other (they play
together). Why not openskill's two-team Plackett-Luce (taker vs a team of three): it sums a
team's μ, so a team of three is predicted to beat a lone taker 99.8 % of the time; each contract
made would then be a huge surprise and each failure no news, and whoever bids most would climb.
Pairwise, a made contract and a failed one move the ratings by the same amount at equal
ratings, and the update is zero-sum (the taker's change is minus the sum of the defenders').
The per-pair updates are those of openskill's ``BradleyTerryFull`` (pairs between defenders
left out), combined as that model combines pairs: μ changes add up, variance reductions add up.

Parameters (docs/RATINGS.md says why): μ₀ = 25, σ₀ = 25/3, β = 25/6, τ = 25/300 per deal,
κ = 0.0001. Shown: the conservative μ − 3σ; a rating is provisional below PROVISIONAL deals.
Several seats with the same rated subject (three AI seats of one level, an account seated twice)
are one player: self-pairs are skipped and its seats' changes add up. Unrated seats (guests, a
seat that changed hands) play with the prior rating and are not updated.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from openskill.models import BradleyTerryFull

MU0 = 25.0
SIGMA0 = 25.0 / 3
BETA = 25.0 / 6
TAU = 25.0 / 300
KAPPA = 0.0001
PROVISIONAL = 20

_MODEL = BradleyTerryFull(mu=MU0, sigma=SIGMA0, beta=BETA, kappa=KAPPA, tau=0.0)


def conservative(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def rate(
    subjects: Sequence[Hashable | None],
    current: dict[Hashable, tuple[float, float]],
    taker: int,
    taker_won: bool,
) -> dict[Hashable, tuple[float, float]]:
    """New (μ, σ) of the rated subjects of one scored deal. ``subjects[s]``: who sat in seat
    ``s`` (None: unrated); ``current``: their (μ, σ) before the deal."""
    # τ: each subject's uncertainty grows once per deal before the update (skill can change).
    before = {k: (mu, math.sqrt(sigma * sigma + TAU * TAU)) for k, (mu, sigma) in current.items()}
    dmu: dict[Hashable, float] = {}
    shrink: dict[Hashable, float] = {}
    t = subjects[taker]
    for s in range(4):
        d = subjects[s]
        if s == taker or (t is None and d is None) or (t is not None and t == d):
            continue
        rt = before[t] if t is not None else (MU0, SIGMA0)
        rd = before[d] if d is not None else (MU0, SIGMA0)
        taker_r = _MODEL.rating(mu=rt[0], sigma=rt[1])
        defender_r = _MODEL.rating(mu=rd[0], sigma=rd[1])
        # The winner first and no ``ranks``: the same figures as ranks [0, 1] (checked on
        # 20,000 random pairs), without the model's reordering of the teams by rank, whose
        # closures left 8 objects per call for the garbage collector (cycles): on the server
        # every review rates on the store's thread, and young collections pause the loop.
        if taker_won:
            (nt,), (nd,) = _MODEL.rate([[taker_r], [defender_r]])
        else:
            (nd,), (nt,) = _MODEL.rate([[defender_r], [taker_r]])
        for who, old, new in ((t, rt, nt), (d, rd, nd)):
            if who is None:
                continue
            dmu[who] = dmu.get(who, 0.0) + new.mu - old[0]
            shrink[who] = shrink.get(who, 0.0) + 1.0 - (new.sigma / old[1]) ** 2
    out: dict[Hashable, tuple[float, float]] = {}
    for who, (mu, sigma) in before.items():
        if who not in dmu:
            continue
        factor = max(1.0 - shrink[who], KAPPA)
        out[who] = (mu + dmu[who], sigma * math.sqrt(factor))
    return out


#: Taker-defender pairs a player is in per played deal, on average: taker (3 pairs) one deal
#: in four, defender (1 pair) three in four.
PAIRS_PER_DEAL = 1.5


def expected_sigma(n: float, pairs: float = PAIRS_PER_DEAL) -> float:
    """The σ docs/RATINGS.md claims after ``n`` rated deals against opponents as uncertain
    as the player, at even odds: each deal adds τ² to σ², then each of its ``pairs``
    comparisons removes the Bradley-Terry share (σ/c)(σ²/c²)p(1−p) of it, with
    c² = 2β² + 2σ² and p = 1/2. So σ falls like 1/√n at first, and levels off where τ's
    growth balances what a deal teaches (about 1.0 with these parameters)."""
    var = SIGMA0 * SIGMA0
    for _ in range(int(n)):
        var += TAU * TAU
        c2 = 2 * BETA * BETA + 2 * var
        delta = pairs * math.sqrt(var / c2) * (var / c2) * 0.25
        var *= max(1.0 - delta, KAPPA)
    return math.sqrt(var)

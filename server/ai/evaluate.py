"""Hand evaluation and the decisions before the first card: bid, discard, chelem, poignée.

Bidding predicts the score of each contract from the hand's features (trump length and
strength, oudlers, the Petit's protection, honours, long suits, voids and singletons) with
weights fitted offline by simulation (``bench/tune_bidding.py``; see ``BID_WEIGHTS``).
"""

from __future__ import annotations

from server.rules.cards import (
    EXCUSE_BIT,
    HALF_POINTS,
    KINGS_MASK,
    PETIT_BIT,
    SUIT_MASKS,
    TRUMP_BASE,
    TRUMP_MASK,
)
from server.rules.cards import cards_of as _cards

MONDE_BIT = 1 << (TRUMP_BASE + 20)

# Bidding: the expected per-defender score of taking each contract is a linear function of the
# hand's features (bid_features), fitted by simulation with bench/tune_bidding.py: every hand of
# many simulated deals is played once per contract with its seat forced to take it and four
# heuristic bots doing the rest, and the realised scores are regressed on the features (least
# squares, one model per contract; fitted on even deals, checked on odd ones). The bot bids the
# contract with the best predicted score when it is positive and beats the bids so far; see
# BID_TUNING for the run and its figures.
BID_FEATURES: tuple[str, ...] = (
    "intercept",
    "trumps",
    "trumps_over_6",
    "trumps_under_5",
    "monde",
    "excuse",
    "petit",
    "petit_unguarded",
    "trumps_16_20",
    "trumps_11_15",
    "kings",
    "queens_with_king",
    "queens_alone",
    "cavaliers",
    "long_cards",
    "long_honours",
    "voids",
    "singletons",
)
# fmt: off
BID_WEIGHTS: tuple[tuple[float, ...], ...] = (
    # prise
    (-91.677, 6.157, 2.222, 2.051, 28.242, 21.120, 16.422, -1.725, 2.544, 0.225, 8.206, 3.163, 2.119, 1.087, 1.687, 0.414, 3.039, 1.613),
    # garde
    (-184.007, 12.429, 4.325, 4.383, 56.475, 42.169, 32.884, -3.455, 5.087, 0.446, 16.371, 6.296, 4.290, 2.158, 3.388, 0.811, 6.084, 3.215),
    # garde_sans
    (-352.762, 8.975, 10.837, -6.149, 103.127, 54.251, 35.812, -26.737, 27.806, -0.161, 35.772, 38.205, 25.688, -3.127, 18.449, -17.595, 69.548, 13.108),
    # garde_contre
    (-867.437, 24.360, 15.446, -2.605, 183.096, 121.382, 81.044, -16.532, 30.940, -0.550, 76.826, 69.108, 54.783, 8.303, 26.103, -23.550, 124.415, 39.263),
)
# fmt: on
BID_TUNING = (
    "bench/tune_bidding.py --deals 12000 --seed 11 (47,916 hands; new heuristic card play):"
    " check half +4.12 per defender per hand against +0.28 for the previous count and"
    " thresholds; takes with <= 4 trumps 389 (69% made) against 1,791 (27% made)"
)
# Garde sans and garde contre are considered only for hands whose garde is predicted at +40 or
# more per defender (their weights were fitted on those hands alone).
STRONG_GARDE = 40.0
# Bid when the best prediction is above this (per defender). Slightly below zero: marginal
# hands bid a prise (measured on the check half: -5 keeps 99% of the gain of 0 and cuts the
# all-pass deals from 60% to 46%).
BID_MARGIN = -5.0
_T16_20 = sum(1 << (TRUMP_BASE + n - 1) for n in range(16, 21))
_T11_15 = sum(1 << (TRUMP_BASE + n - 1) for n in range(11, 16))


def bid_features(hand: int) -> list[float]:
    """The features of an 18-card hand for the bidding model (names in BID_FEATURES)."""
    trumps = hand & TRUMP_MASK
    t = trumps.bit_count()
    petit = 1.0 if hand & PETIT_BIT else 0.0
    kings = queens_k = queens = cavaliers = long_cards = long_honours = voids = singles = 0
    for s in range(4):
        suit = hand & SUIT_MASKS[s]
        n = suit.bit_count()
        base = 14 * s
        king = suit >> (base + 13) & 1
        queen = suit >> (base + 12) & 1
        kings += king
        if queen:
            if king:
                queens_k += 1
            else:
                queens += 1
        cavaliers += suit >> (base + 11) & 1
        if n >= 5:
            long_cards += n - 4
            long_honours += king + queen
        if n == 0:
            voids += 1
        elif n == 1 and not king:
            singles += 1
    return [
        1.0,
        float(t),
        float(max(0, t - 6)),
        float(max(0, 5 - t)),
        1.0 if hand & MONDE_BIT else 0.0,
        1.0 if hand & EXCUSE_BIT else 0.0,
        petit,
        petit * max(0, 6 - t),
        float((trumps & _T16_20).bit_count()),
        float((trumps & _T11_15).bit_count()),
        float(kings),
        float(queens_k),
        float(queens),
        float(cavaliers),
        float(long_cards),
        float(long_honours),
        float(voids),
        float(singles),
    ]


def bid_values(hand: int) -> list[float]:
    """Predicted per-defender score of taking prise, garde, garde sans, garde contre (the last
    two only for hands rated STRONG_GARDE in garde; -1000 otherwise)."""
    x = bid_features(hand)
    out = [sum(w * f for w, f in zip(ws, x, strict=True)) for ws in BID_WEIGHTS[:2]]
    for ws in BID_WEIGHTS[2:]:
        out.append(
            sum(w * f for w, f in zip(ws, x, strict=True)) if out[1] >= STRONG_GARDE else -1000.0
        )
    return out


def choose_bid(hand: int, best: int) -> int:
    """The contract index to bid (0 = pass) given the highest bid so far: the contract above
    ``best`` with the highest predicted score, if that is above BID_MARGIN."""
    want, want_v = 0, BID_MARGIN
    for c, v in enumerate(bid_values(hand), start=1):
        if c > best and v > want_v:
            want, want_v = c, v
    return want


def choose_discard(hand: int, required: int, choices: int) -> int:
    """Six cards to discard from a 24-card hand (R5.2, R5.3): voids in short suits without
    kings, points saved, length and trumps kept. Trumps only when R5.3 forces them (the lowest)."""
    return discard_candidates(hand, required, choices)[0]


def discard_candidates(hand: int, required: int, choices: int) -> list[int]:
    """Legal discards, best first by the heuristic's ranking (see :func:`choose_discard`): one
    per set of king-less suits cleared, the rest filled greedily."""
    if required or not choices & ~TRUMP_MASK:
        out = required
        for c in _cards(choices & TRUMP_MASK):  # lowest trumps first
            if out.bit_count() >= 6:
                break
            out |= 1 << c
        for c in _cards(choices & ~TRUMP_MASK):
            if out.bit_count() >= 6:
                break
            out |= 1 << c
        return [out]
    lengths = [(hand & SUIT_MASKS[s]).bit_count() for s in range(4)]
    longest = max(range(4), key=lambda s: lengths[s])
    found: dict[int, int] = {}
    # Try every set of king-less suits to clear completely (voids), then fill greedily.
    clearable = [s for s in range(4) if lengths[s] > 0 and not hand & SUIT_MASKS[s] & KINGS_MASK]
    for bits in range(1 << len(clearable)):
        voided = [clearable[i] for i in range(len(clearable)) if bits >> i & 1]
        out = 0
        for s in voided:
            out |= hand & SUIT_MASKS[s]
        if out.bit_count() > 6 or out & ~choices:
            continue
        rest = choices & ~out
        left = [lengths[s] for s in range(4)]
        for s in voided:
            left[s] = 0
        while out.bit_count() < 6 and rest:
            pick = -1
            pick_val = -(10**9)
            for c in _cards(rest):
                s = c // 14
                v = 2 * HALF_POINTS[c] + (8 - left[s]) * 2
                if hand & KINGS_MASK & SUIT_MASKS[s]:
                    v -= 6  # small cards guard the king
                if s == longest and left[s] >= 5:
                    v -= 12  # keep length in the long suit
                if v > pick_val:
                    pick_val = v
                    pick = c
            out |= 1 << pick
            rest &= ~(1 << pick)
            left[pick // 14] -= 1
        if out.bit_count() < 6:
            continue
        remaining = hand & ~out
        voids = sum(1 for s in range(4) if not remaining & SUIT_MASKS[s])
        singles = sum(
            1
            for s in range(4)
            if (remaining & SUIT_MASKS[s]).bit_count() == 1
            and not remaining & SUIT_MASKS[s] & KINGS_MASK
        )
        val = 12 * voids + 4 * singles + 2 * sum(HALF_POINTS[c] for c in _cards(out))
        if val > found.get(out, -(10**9)):
            found[out] = val
    # Best value first; among equal values the first found (fewest suits cleared) first.
    order = sorted(found, key=lambda m: -found[m])
    return order


def choose_chelem(hand: int, outside_trumps: int) -> bool:
    """Announce only with an overwhelming hand: the 21, the Excuse, at least 15 trumps, at least
    as many trumps as remain outside plus five, and nothing in the plain suits but kings."""
    trumps = hand & TRUMP_MASK
    if not (hand & MONDE_BIT and hand & EXCUSE_BIT):
        return False
    plain = hand & ~TRUMP_MASK & ~EXCUSE_BIT
    if plain & ~KINGS_MASK:
        return False
    return trumps.bit_count() >= 15 and trumps.bit_count() >= outside_trumps.bit_count() + 5


# Poignée: the bonus goes to the team that wins the contract, so it pays when our side is likely
# to win. Measured by bench/tune_bidding.py (12,000 deals, garde forced): a taker holding 10
# trumps after the discard wins 56% of the time (n=1644), 11 trumps 74% (n=493), 12 trumps 82%
# (n=123); when a defender holds 10 trumps the taker loses 95% (n=360). A shown poignée also
# tells the other side where the trumps are; measured in play (bench/ai_duel.py, heuristic vs
# heuristic_v1, 1,000 deals, seed 1), the taker showing from 10 trumps scored +0.4 per deal
# more than from 11 and +0.6 more than from 13. A defender always shows.
POIGNEE_MIN_TAKER_TRUMPS = 10


def choose_poignee(is_taker: bool, contract: int, n_trumps: int) -> bool:
    if is_taker:
        return n_trumps >= POIGNEE_MIN_TAKER_TRUMPS
    return True

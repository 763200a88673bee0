"""Counting (R8, R9) and scoring (R10) of a finished deal, exact in half points."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import CONTRACTS, GARDE, GARDE_SANS, MULTIPLIERS
from .cards import EXCUSE, EXCUSE_BIT, PETIT, count_oudlers, half_points
from .deal import OVER, POIGNEE_BONUS, DealState

TARGETS_HALF = (112, 102, 82, 72)  # R9.2 targets 56, 51, 41, 36, in half points


def num(halves: int) -> int | float:
    """A half-point amount as a JSON number: an int when whole, else x.5."""
    return halves // 2 if halves % 2 == 0 else halves / 2


@dataclass(frozen=True, slots=True)
class Count:
    """Where the cards went (R8, R9.1), in half points."""

    taker_pile: int  # card mask of the taker's pile (before R8.1 transfers)
    taker_half: int  # taker's card points, half points, R8.1 transfers applied
    taker_tricks: int
    excuse_slam: bool  # R8.3 applied in the last trick


def count(st: DealState) -> Count:
    taker = st.taker
    pile = 0
    adjust = 0
    taker_tricks = 0
    excuse_slam = False
    for i, (leader, cards, winner) in enumerate(st.tricks):
        taker_wins = winner == taker
        taker_tricks += taker_wins
        trick_mask = 0
        ex_seat = -1
        for pos, c in enumerate(cards):
            if c == EXCUSE:
                ex_seat = (leader + pos) % 4
            else:
                trick_mask |= 1 << c
        if taker_wins:
            pile |= trick_mask
        if ex_seat < 0:
            continue
        ex_taker = ex_seat == taker
        if i < 17:
            # R8.1: the Excuse stays with its team; half a point goes to the trick's winners.
            if ex_taker:
                pile |= EXCUSE_BIT
            if ex_taker != taker_wins:
                adjust += 1 if taker_wins else -1
        elif cards[0] == EXCUSE and winner == leader:
            # R8.3: the Excuse led to the last trick won the slam for its team.
            excuse_slam = True
            if ex_taker:
                pile |= EXCUSE_BIT
        elif not ex_taker:
            # R8.2: in the last trick the Excuse goes to the other team.
            pile |= EXCUSE_BIT
    if st.contract <= GARDE:
        pile |= st.discard
    elif st.contract == GARDE_SANS:
        pile |= st.chien
    return Count(pile, half_points(pile) + adjust, taker_tricks, excuse_slam)


@dataclass(frozen=True, slots=True)
class Score:
    """A finished deal's result (deal-record.md), amounts in half points."""

    status: str
    reason: str = ""
    taker: int = -1
    contract: int = 0
    chelem_announced: bool = False
    oudlers: int = 0
    target_half: int = 0
    taker_half: int = 0
    won: bool = False
    base_half: int = 0
    petit_half: int = 0
    poignee_half: int = 0
    chelem_half: int = 0

    @property
    def multiplier(self) -> int:
        return MULTIPLIERS[self.contract]

    @property
    def per_defender_half(self) -> int:
        return self.base_half + self.petit_half + self.poignee_half + self.chelem_half

    def scores_half(self) -> list[int]:
        if self.status != "played":
            return [0, 0, 0, 0]
        pd = self.per_defender_half
        return [3 * pd if s == self.taker else -pd for s in range(4)]

    def to_dict(self) -> dict[str, Any]:
        """The ``result`` object of deal-record.md, keys in the documented order."""
        if self.status != "played":
            return {"status": "annulled", "reason": self.reason, "scores": [0, 0, 0, 0]}
        return {
            "status": "played",
            "taker": self.taker,
            "contract": CONTRACTS[self.contract],
            "multiplier": self.multiplier,
            "chelem_announced": self.chelem_announced,
            "oudlers": self.oudlers,
            "target": num(self.target_half),
            "taker_points": num(self.taker_half),
            "won": self.won,
            "base": num(self.base_half),
            "petit_au_bout": num(self.petit_half),
            "poignee": num(self.poignee_half),
            "chelem": num(self.chelem_half),
            "per_defender": num(self.per_defender_half),
            "scores": [num(x) for x in self.scores_half()],
        }


def score(st: DealState) -> Score:
    """Score a finished deal (R9, R10). Raises ValueError while the deal is still going on."""
    if st.phase != OVER:
        raise ValueError("the deal is not over")
    if st.reason:
        return Score("annulled", reason=st.reason)
    c = count(st)
    taker = st.taker
    mult = MULTIPLIERS[st.contract]
    oudlers = count_oudlers(c.taker_pile)
    target = TARGETS_HALF[oudlers]
    won = c.taker_half >= target
    sign = 1 if won else -1
    # R10.1, in half points: 25 points = 50 halves.
    base = sign * (50 + abs(c.taker_half - target)) * mult
    # R10.2: petit au bout, on trick 17 instead of 18 when the Excuse won the last trick (R8.3).
    petit = 0
    idx = 16 if c.excuse_slam else 17
    _, cards, winner = st.tricks[idx]
    if PETIT in cards:
        petit = (1 if winner == taker else -1) * 20 * mult
    # R10.3: every poignée goes to the team that wins the contract.
    poignee = sign * 2 * sum(POIGNEE_BONUS[p.bit_count()] for p in st.poignees if p)
    # R10.4
    if st.chelem:
        chelem = 800 if c.taker_tricks == 18 else -400
    elif c.taker_tricks == 18:
        chelem = 400
    elif c.taker_tricks == 0:
        chelem = -400
    else:
        chelem = 0
    return Score(
        "played",
        taker=taker,
        contract=st.contract,
        chelem_announced=bool(st.chelem),
        oudlers=oudlers,
        target_half=target,
        taker_half=c.taker_half,
        won=won,
        base_half=base,
        petit_half=petit,
        poignee_half=poignee,
        chelem_half=chelem,
    )


def result_dict(st: DealState) -> dict[str, Any]:
    return score(st).to_dict()

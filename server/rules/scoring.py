"""The result of a finished deal (R9, R10) as the record format gives it, exact in half points.

The counting and the formulas are the core's (:meth:`core.Position.play` counts the taker's
pile as the cards are played, :func:`core.score_parts` applies R10); this module names the
parts and writes them as the ``result`` object of ``atout-deal/1``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .actions import CONTRACTS, MULTIPLIERS
from .core import TARGETS_HALF, Position
from .deal import OVER, DealState

__all__ = ["TARGETS_HALF", "Count", "Score", "count", "num", "result_dict", "score", "score_of"]


def num(halves: int) -> int | float:
    """A half-point amount as a JSON number: an int when whole, else x.5."""
    return halves // 2 if halves % 2 == 0 else halves / 2


class Count(msgspec.Struct, frozen=True):
    """Where the cards went (R8, R9.1), in half points."""

    taker_pile: int  # card mask of the taker's pile (before R8.1 transfers)
    taker_half: int  # taker's card points, half points, R8.1 transfers applied
    taker_tricks: int
    excuse_slam: bool  # R8.3 applied in the last trick


def count(st: DealState) -> Count:
    """The taker's pile so far (the whole deal once it is over), as the core counted it."""
    pos = st.pos
    if pos is None:
        return Count(0, 0, 0, False)
    return Count(pos.taker_pile, pos.taker_half, pos.taker_tricks, pos.ex_slam)


class Score(msgspec.Struct, frozen=True):
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


def score_of(pos: Position) -> Score:
    """The result of a finished card play (R9, R10)."""
    if not pos.over:
        raise ValueError("the deal is not over")
    target, won, base, petit, poignee, chelem = pos.parts()
    return Score(
        "played",
        taker=pos.taker,
        contract=pos.contract,
        chelem_announced=pos.chelem,
        oudlers=pos.oudlers(),
        target_half=target,
        taker_half=pos.taker_half,
        won=won,
        base_half=base,
        petit_half=petit,
        poignee_half=poignee,
        chelem_half=chelem,
    )


def score(st: DealState) -> Score:
    """Score a finished deal (R9, R10). Raises ValueError while the deal is still going on."""
    if st.phase != OVER:
        raise ValueError("the deal is not over")
    if st.reason:
        return Score("annulled", reason=st.reason)
    assert st.pos is not None
    return score_of(st.pos)


def result_dict(st: DealState) -> dict[str, Any]:
    return score(st).to_dict()

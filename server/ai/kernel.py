"""The AI's view of the rules core: :class:`Pos` is a :class:`server.rules.core.Position`.

The bots search on the one play implementation of the rules (``Position.play``/``push``/``pop``,
``copy``); this adapter only adds what is the AI's own: the search objectives (:meth:`Pos.value`)
and the names the bots were written with (:func:`new_pos` from a multiplier, ``taker_oud``).

``Pos.hands`` may also hold *possible* holdings (overlapping sets) when the heuristic policy
reasons about an imperfectly known position; the position is then not played on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.rules.actions import MULTIPLIERS
from server.rules.cards import OUDLERS_MASK
from server.rules.core import TARGETS_HALF, Position, legal_play_mask

if TYPE_CHECKING:
    from server.rules.deal import DealState

OBJECTIVES = ("score", "margin")

# R7.3–R7.6 on masks (``hi`` -1 means no trump in the trick).
legal_mask = legal_play_mask


class Pos(Position):
    """A play-phase position of the rules core, with the AI's objectives."""

    __slots__ = ()

    @property
    def taker_oud(self) -> int:
        """The oudlers in the taker's pile (a mask)."""
        return self.taker_pile & OUDLERS_MASK

    @taker_oud.setter
    def taker_oud(self, oudlers: int) -> None:
        self.taker_pile = (self.taker_pile & ~OUDLERS_MASK) | (oudlers & OUDLERS_MASK)

    def margin_half(self) -> int:
        """Card points above the target (half points), with petit au bout as points."""
        return self.taker_half - TARGETS_HALF[self.oudlers()] + 20 * self.petit_au_bout()

    def value(self, objective: str) -> int:
        """The finished position's value for the taker: the per-defender score (``"score"``)
        or the card margin (``"margin"``)."""
        return self.score_half() if objective == "score" else self.margin_half()


def new_pos(
    hands: list[int],
    taker: int,
    leader: int,
    mult: int,
    taker_pile: int = 0,
    chelem: bool = False,
    poignee_half: int = 0,
) -> Pos:
    """A position at the first card. ``taker_pile`` is what the taker owns before play: the
    discard (prise, garde) or the chien (garde sans); nothing for garde contre."""
    pos: Pos = Pos.start(
        hands,
        taker,
        MULTIPLIERS.index(mult),
        leader,
        stash=taker_pile,
        chelem=chelem,
        poignee_half=poignee_half,
    )
    return pos


def pos_from_state(st: DealState) -> Pos:
    """The position of an engine state in the play phase (full knowledge: tests, benchmarks
    and tuning only; bots never see a DealState)."""
    if st.pos is None:
        raise ValueError(f"no card play yet (phase {st.phase!r})")
    pos: Pos = st.pos.copy(Pos)
    return pos

"""What each seat (or a spectator) may know: the one place that decides visibility.

Every path that tells a client about a deal (snapshot, event, resync, end-of-deal reveal) goes
through :func:`view` or :func:`events`. A seat sees its own hand, the bids, the chien when it is
shown (R5.1), its own discard if it is the taker and otherwise only the discarded trumps (R5.4),
the shown poignées (R6.7) and every card played. Once the deal is over, everything is revealed:
the complete record and its result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from .actions import CONTRACTS, GARDE, GARDE_CONTRE, Action, Bid, Chelem, Discard, Play, Poignee
from .cards import CODES, TRUMP_MASK, codes_of, half_points
from .deal import (
    DISCARD,
    OVER,
    PLAY,
    POIGNEE_LEVELS,
    POIGNEE_SIZES,
    DealState,
    Legal,
    legal_actions,
)
from .records import record_of

SPECTATOR = None

_LEVEL_OF_SIZE = dict(zip(POIGNEE_SIZES, POIGNEE_LEVELS, strict=True))


def chien_visible(st: DealState) -> bool:
    """The chien is shown to all after a prise or garde (R5.1), to nobody for the others (R5.6)."""
    return st.taker >= 0 and st.contract <= GARDE and st.phase != "bidding"


def _trick(leader: int, cards: tuple[int, ...], winner: int | None) -> dict[str, Any]:
    return {"leader": leader, "cards": [CODES[c] for c in cards], "winner": winner}


def _same(m: int) -> int:
    return m


def view(
    st: DealState, seat: int | None, *, masks: bool = False, legal: Legal | None = None
) -> dict[str, Any]:
    """The deal as ``seat`` may see it (``None``: a spectator), as a JSON-ready dict.

    ``masks``: the same view for a bot in this process, with card sets as bitmasks, the tricks
    as the rules' ``(leader, cards, winner)`` tuples of card indices (the trick in progress as
    ``{"leader", "cards"}``), ``legal`` as the rules' ``Legal``, and in the play phase
    ``position``: the play so far on the rules core as this seat may know it
    (:func:`seat_position`). What a bot reads, without turning cards into text and back and
    replaying every card played (most of the cost of an inline AI move). What is seen is
    decided here either way; it is never sent to a client. ``legal``: the deal's
    ``legal_actions(st)`` when the caller has it already (a bot's driver), not computed twice."""
    over = st.phase == OVER
    taker = st.taker if st.taker >= 0 else None
    cards = _same if masks else codes_of
    out: dict[str, Any] = {
        "seat": seat,
        "phase": st.phase,
        "dealer": st.dealer,
        "turn": None if over else st.turn,
        "hand": cards(st.hands[seat]) if seat is not None else None,
        "hand_sizes": [h.bit_count() for h in st.hands],
        "bids": [
            {"seat": (st.dealer + 1 + i) % 4, "contract": CONTRACTS[b]}
            for i, b in enumerate(st.bids)
        ],
        "taker": taker if st.phase != "bidding" else None,
        "contract": CONTRACTS[st.contract] if st.phase != "bidding" and taker is not None else None,
        "chien": cards(st.chien) if (chien_visible(st) or over) else None,
        "discard": cards(st.discard) if (st.discard and (over or seat == st.taker)) else None,
        "discard_trumps": cards(st.discard & TRUMP_MASK),
        "chelem_announced": st.chelem,
        "poignees": [
            {"seat": s, "level": _LEVEL_OF_SIZE[p.bit_count()], "cards": cards(p)}
            for s, p in enumerate(st.poignees)
            if p
        ],
        "tricks": st.tricks if masks else [_trick(ld, cs, w) for ld, cs, w in st.tricks],
        "trick": None,
        "legal": None,
        "result": None,
        "record": None,
    }
    if st.phase == PLAY:
        if masks:
            out["trick"] = {"leader": st.trick_leader, "cards": list(st.trick)}
            if seat is not None:
                out["position"] = seat_position(st, seat)
        else:
            out["trick"] = _trick(st.trick_leader, st.trick, None)
    if not over and seat is not None and seat == st.turn:
        if legal is None:
            legal = legal_actions(st)
        out["legal"] = legal if masks else msgspec.to_builtins(legal)
    if over:
        rec = record_of(st)
        out["result"] = rec["result"]
        out["record"] = rec
    return out


def seat_position(st: DealState, seat: int) -> Any:
    """A copy of the deal's position on the rules core (play phase) holding only what ``seat``
    may know: every hand emptied, no saved states, and the taker's pile before the play (R9.1:
    the discard, or the garde sans chien) replaced by what the seat knows of it: the whole
    discard for the taker, its trumps for the others (R5.4), nothing of a chien never shown
    (R5.6). The rest follows from the cards played: tricks, points and tricks won so far, the
    trick in progress, and the voids and trump ceilings the play revealed. Equal, field by
    field, to replaying the seat's view from the first card (tests/test_ai_masks_view.py)."""
    if st.pos is None:
        raise ValueError("seat_position: the deal is not in its play phase")
    p = st.pos.copy()
    p.hands = [0, 0, 0, 0]
    p._undo = None
    if st.contract == GARDE_CONTRE:
        return p  # nobody's pile before the play
    if st.contract <= GARDE:
        real = st.discard
        known = real if seat == st.taker else real & TRUMP_MASK
    else:
        real, known = st.chien, 0
    p.taker_pile = (p.taker_pile & ~real) | known
    p.taker_half += half_points(known) - half_points(real)
    return p


def prompt(st: DealState, seat: int) -> dict[str, Any]:
    """What the seat to act is told with its turn: ``legal`` and ``hand``, equal to those of
    ``view(st, seat)`` without building the rest of the view (bids, tricks, ...), which costs
    ten times more and is sent with every ``your_turn``."""
    legal = None
    if st.phase != OVER and seat == st.turn:
        legal = msgspec.to_builtins(legal_actions(st))
    return {"legal": legal, "hand": codes_of(st.hands[seat])}


def events(
    prev: DealState, action: Action, new: DealState, seat: int | None
) -> list[dict[str, Any]]:
    """What ``seat`` learns from ``action`` taking ``prev`` to ``new``, as JSON-ready dicts."""
    out: list[dict[str, Any]] = []
    if type(action) is Bid:
        out.append({"type": "bid", "seat": action.seat, "contract": action.contract})
        if new.phase != "bidding" and new.phase != OVER:
            out.append(
                {"type": "contract", "taker": new.taker, "contract": CONTRACTS[new.contract]}
            )
            if new.phase == DISCARD:
                out.append({"type": "chien", "cards": codes_of(new.chien)})
    elif type(action) is Discard:
        ev: dict[str, Any] = {
            "type": "discard",
            "seat": action.seat,
            "trumps": codes_of(new.discard & TRUMP_MASK),
        }
        if seat == new.taker:
            ev["cards"] = codes_of(new.discard)
        out.append(ev)
    elif type(action) is Chelem:
        out.append(
            {"type": "chelem", "seat": action.seat, "announce": action.announce, "leader": new.turn}
        )
    elif type(action) is Poignee:
        p = new.poignees[action.seat]
        out.append(
            {
                "type": "poignee",
                "seat": action.seat,
                "level": _LEVEL_OF_SIZE[p.bit_count()],
                "cards": codes_of(p),
            }
        )
    elif type(action) is Play:
        out.append({"type": "play", "seat": action.seat, "card": action.card})
        if len(new.tricks) > len(prev.tricks):
            leader, cards, winner = new.tricks[-1]
            out.append(
                {"type": "trick", "number": len(new.tricks), **_trick(leader, cards, winner)}
            )
    if new.phase == OVER:
        rec = record_of(new)
        out.append({"type": "deal_over", "result": rec["result"], "record": rec})
    return out


def events_for(
    prev: DealState, action: Action, new: DealState, seats: Sequence[int | None]
) -> list[list[dict[str, Any]]]:
    """``events(prev, action, new, s)`` for each ``s`` of ``seats``, computed once and shared
    (the same list) where the seats learn the same thing: for every action but a discard,
    whose cards only the taker is told (R5.4), what ``events`` says depends on no seat."""
    if type(action) is Discard:
        return [events(prev, action, new, s) for s in seats]
    shared = events(prev, action, new, None)
    return [shared] * len(seats)


def deal_start_event(st: DealState, seat: int | None) -> dict[str, Any]:
    """The first thing a seat learns of a deal: the dealer and its own 18 cards."""
    return {
        "type": "deal_start",
        "dealer": st.dealer,
        "hand": codes_of(st.initial_hands[seat]) if seat is not None else None,
    }

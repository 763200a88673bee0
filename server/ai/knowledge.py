"""What a seat knows, read from its view (``server.rules.views.view``) into bitmasks.

Bots see only their view, so every inference here is one a human at that seat could make:
cards played, the chien when shown, discarded trumps, shown poignées, and what the play reveals
(a seat that fails to follow lacks the suit; one that discards instead of trumping has no trump;
one that plays under the highest trump cannot beat it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.rules.actions import CONTRACT_INDEX, GARDE, GARDE_CONTRE, GARDE_SANS, MULTIPLIERS
from server.rules.cards import (
    EXCUSE_BIT,
    FULL_DECK,
    INDEX,
    KINGS_MASK,
    OUDLERS_MASK,
    PLAIN_SUITS_MASK,
    TRUMP_MASK,
)
from server.rules.deal import POIGNEE_BONUS

from .kernel import Pos, new_pos

PLAIN_NON_KING = PLAIN_SUITS_MASK & ~KINGS_MASK


def mask(codes: list[str] | tuple[str, ...] | int | None) -> int:
    """The bitmask of card codes (or a bitmask already: ``view(..., masks=True)``)."""
    if isinstance(codes, int):
        return codes
    m = 0
    if codes:
        for c in codes:
            m |= 1 << INDEX[c]
    return m


class Knowledge:
    """The play-phase knowledge of ``seat`` (see module doc). All card sets are bitmasks."""

    __slots__ = (
        "_played_by",
        "bids",
        "chelem",
        "chien",
        "contract",
        "dealer",
        "discard_known",
        "forbidden",
        "hand",
        "hand_sizes",
        "hidden_allowed",
        "hidden_count",
        "must_hold",
        "played",
        "poignee_half",
        "poignees",
        "pos",
        "seat",
        "taker",
        "trick",
        "trick_leader",
        "tricks",
        "unseen",
    )

    seat: int
    bids: list[tuple[int, int]]  # (seat, contract index) in speaking order
    taker: int
    contract: int
    dealer: int
    chelem: bool
    hand: int
    hand_sizes: list[int]
    chien: int  # the chien when it was shown, else 0
    discard_known: int  # the taker's discard as this seat knows it (all of it for the taker)
    played: int
    _played_by: list[int] | None
    tricks: Sequence[tuple[int, Sequence[int], int]]  # (leader, cards, winner)
    trick: list[int]
    trick_leader: int
    poignees: list[int]
    poignee_half: int
    forbidden: list[int]  # cards each seat cannot hold now
    must_hold: list[int]  # cards each seat surely holds now (other than this seat)
    unseen: int  # cards whose place this seat does not know
    hidden_count: int  # unseen cards lying in the hidden pile (discard or chien), not in hands
    hidden_allowed: int  # cards that may lie in that pile
    pos: Pos  # the card play so far on the rules core (hands empty): see template_pos

    @property
    def played_by(self) -> list[int]:
        """The cards each seat played. Worked out on first use: only the sampling bots
        (strong, the sampler) read it, and for the inline bots this loop over every card played
        was a quarter of a card decision in a profile of the loaded server."""
        pb = self._played_by
        if pb is None:
            pb = [0, 0, 0, 0]
            for ld, cards, _ in [*self.tricks, (self.trick_leader, self.trick, -1)]:
                for i, c in enumerate(cards):
                    pb[(ld + i) & 3] |= 1 << c
            self._played_by = pb
        return pb


def read_view(view: dict[str, Any]) -> Knowledge:
    k = Knowledge()
    me = view["seat"]
    k.seat = me
    k.dealer = view["dealer"]
    taker = view["taker"]
    k.taker = -1 if taker is None else taker
    k.contract = CONTRACT_INDEX[view["contract"]] if view["contract"] else 0
    k.chelem = bool(view.get("chelem_announced"))
    k.bids = [(b["seat"], CONTRACT_INDEX[b["contract"]]) for b in view["bids"]]
    k.hand = mask(view["hand"])
    k.hand_sizes = list(view["hand_sizes"])
    k.chien = mask(view["chien"]) if view.get("chien") else 0
    disc_trumps = mask(view.get("discard_trumps"))
    own_discard = mask(view["discard"]) if view.get("discard") else 0
    k.discard_known = own_discard if me == k.taker else disc_trumps
    # The cards played, replayed on the rules core from the first trick's leader: it counts
    # the points and tricks won so far and records what the play revealed (voids, trump ceilings).
    indices = type(view["hand"]) is int  # view(..., masks=True): card indices, not codes
    tricks: Sequence[tuple[int, Sequence[int], int]]
    if indices:  # the rules' (leader, cards, winner) tuples, never changed: shared
        tricks = view["tricks"]
    else:
        tricks = [
            (t["leader"], [INDEX[c] for c in t["cards"]], t["winner"]) for t in view["tricks"]
        ]
    cur = view.get("trick")
    if cur:
        k.trick = list(cur["cards"]) if indices else [INDEX[c] for c in cur["cards"]]
        k.trick_leader = cur["leader"]
    else:
        k.trick = []
        k.trick_leader = -1
    k.tricks = tricks
    pile = 0
    if k.contract <= GARDE:
        pile = k.discard_known  # all of it for the taker, the trumps for the others
    elif k.contract == GARDE_SANS and k.chien:
        pile = k.chien
    if tricks:
        leader = tricks[0][0]
    else:
        leader = k.trick_leader if k.trick_leader >= 0 else 0
    given = view.get("position")  # view(..., masks=True): the same, already played
    if given is not None:
        pos = given.copy(Pos)
    else:
        pos = new_pos([FULL_DECK] * 4, k.taker, leader, MULTIPLIERS[k.contract], pile, k.chelem)
    if given is None:
        for _, cards, _ in [*tricks, (k.trick_leader, k.trick, -1)]:
            for c in cards:
                pos.play(c)
    pos.hands = [0, 0, 0, 0]
    k.pos = pos
    forbidden = list(pos.voids)
    k.played = pos.played
    k._played_by = None

    poignees = [0, 0, 0, 0]
    for p in view.get("poignees") or ():
        poignees[p["seat"]] = mask(p["cards"])
    k.poignees = poignees
    k.poignee_half = pos.poignee_half = 2 * sum(POIGNEE_BONUS[p.bit_count()] for p in poignees if p)

    must = [0, 0, 0, 0]
    hidden_allowed = 0
    hidden_count = 0
    unseen = FULL_DECK & ~k.hand & ~k.played & ~k.discard_known
    for s in range(4):
        p = poignees[s]
        if not p:
            continue
        if p & EXCUSE_BIT:
            forbidden[s] |= TRUMP_MASK & ~p  # the Excuse stands in only when every trump is shown
        if s != me:
            must[s] |= p & unseen
    t = k.taker
    if t >= 0 and t != me:
        if k.contract <= GARDE:
            # The taker's 24 cards were his hand and the chien; six went to the discard.
            hidden_count = 6 - disc_trumps.bit_count()
            hidden_allowed = PLAIN_NON_KING
            if disc_trumps:
                forbidden[t] |= PLAIN_NON_KING  # R5.3: every plain card went to the discard
            # Chien cards not played: in the taker's hand, or plain ones possibly in the discard.
            must[t] |= k.chien & unseen & ~PLAIN_NON_KING
            for s in range(4):
                if s != t:
                    forbidden[s] |= k.chien  # the chien went to the taker
        else:
            hidden_count = 6
            hidden_allowed = FULL_DECK
    elif t == me and k.contract >= GARDE_SANS:
        hidden_count = 6
        hidden_allowed = FULL_DECK
    for s in range(4):
        if s != me:
            forbidden[s] &= ~must[s]
    k.forbidden = forbidden
    k.must_hold = must
    k.unseen = unseen
    k.hidden_count = hidden_count
    k.hidden_allowed = hidden_allowed & unseen
    return k


def possible_hands(k: Knowledge) -> list[int]:
    """For each seat, the cards it may hold (this seat: its hand). Overlapping sets."""
    out = []
    known_elsewhere = [0, 0, 0, 0]
    for s in range(4):
        for o in range(4):
            if o != s:
                known_elsewhere[s] |= k.must_hold[o]
    for s in range(4):
        if s == k.seat:
            out.append(k.hand)
        elif k.hand_sizes[s] == 0:
            out.append(0)
        else:
            out.append(k.unseen & ~k.forbidden[s] & ~known_elsewhere[s])
    return out


def template_pos(k: Knowledge) -> Pos:
    """A kernel position with this deal's running totals (points, oudlers, tricks won so far)
    replayed from the view; hands are left empty for the caller to fill. The hidden pile (the
    non-trump discard of another taker, or an unseen chien) is not counted yet."""
    pos: Pos = k.pos.copy()
    return pos


def hidden_counts_for_taker(k: Knowledge) -> bool:
    """Whether the hidden pile's points go to the taker (a discard, or the garde-sans chien)."""
    return k.contract != GARDE_CONTRE


__all__ = [
    "OUDLERS_MASK",
    "Knowledge",
    "hidden_counts_for_taker",
    "mask",
    "possible_hands",
    "read_view",
    "template_pos",
]

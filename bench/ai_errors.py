"""The recurring AI errors of issue 13, counted per seat from a finished deal's record.

Read from the ``atout-deal/1`` record alone (hands, chien, actions, result), so the counts do
not depend on any bot's internals or on the engine's data structures:

- ``take_le4``: the seat took (any contract) holding at most 4 trumps in its 18 dealt cards;
  ``take_le4_won`` when it made the contract.
- ``points_given``: a defender put points (a card worth 1.5 points or more: an honour or the 21)
  on a trick its partner was winning while the taker was still to play after it, the taker then
  won the trick, and the defender had a cheaper legal card.
- ``petit_lost``: the seat played the Petit and the other side won that trick (R9.4: the Petit
  changes sides).
- ``petit_choice``: of those, the Petit played by choice (a legal card other than the Petit and
  the Excuse was there): the avoidable losses.
- ``petit_front``: of those, the Petit played while an opponent was still to play after it: a
  defender in front of the taker (issue 13, error 3), or the taker in front of a defender (the
  way ``strong`` gave it away, error 5).
- ``king_trumped``: the taker led a king of a suit in which it held 5 cards or more and a
  defender won the trick with a trump (error 4).

``count_errors(record)`` returns one dict of counters per seat. The taker's hand during play is
its dealt hand plus the chien minus the discard (prise, garde); for garde sans / contre the
chien stays aside.
"""

from __future__ import annotations

from typing import Any

from server.rules.cards import (
    EXCUSE,
    HALF_POINTS,
    INDEX,
    PETIT,
    SUIT_MASKS,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
)
from server.rules.deal import legal_play_mask

KEYS = (
    "take_le4",
    "take_le4_won",
    "points_given",
    "petit_lost",
    "petit_choice",
    "petit_front",
    "king_trumped",
)
NO_TRUMP = -1


def _mask(codes: list[str]) -> int:
    m = 0
    for c in codes:
        m |= 1 << INDEX[c]
    return m


def _winner_pos(cards: list[int]) -> int:
    """Index in ``cards`` of the card winning the (partial) trick; -1 for a lone Excuse."""
    best = -1
    for i, c in enumerate(cards):
        if c == EXCUSE:
            continue
        if best < 0:
            best = i
            continue
        b = cards[best]
        sb, sc = SUIT_OF[b], SUIT_OF[c]
        if (sc == sb and c > b) or (sc == TRUMP_SUIT and sb != TRUMP_SUIT):
            best = i
    return best


def _lead_hi(trick: list[int]) -> tuple[int, int]:
    """Suit led (-1: none yet) and highest trump so far (NO_TRUMP: none) of a partial trick."""
    lead = -1
    hi = NO_TRUMP
    for c in trick:
        if c == EXCUSE:
            continue
        if lead < 0:
            lead = SUIT_OF[c]
        if SUIT_OF[c] == TRUMP_SUIT and c > hi:
            hi = c
    return lead, hi


def count_errors(record: dict[str, Any]) -> list[dict[str, int]]:
    out = [dict.fromkeys(KEYS, 0) for _ in range(4)]
    res = record.get("result") or {}
    if res.get("status") != "played":
        return out
    taker = res["taker"]
    contract = res["contract"]
    dealt = [_mask(h) for h in record["hands"]]
    hands = dealt[:]
    chien = _mask(record["chien"])
    if (dealt[taker] & TRUMP_MASK).bit_count() <= 4:
        out[taker]["take_le4"] += 1
        out[taker]["take_le4_won"] += 1 if res["won"] else 0
    if contract in ("prise", "garde"):
        hands[taker] |= chien
    trick: list[int] = []
    seats: list[int] = []
    pending: list[tuple[int, str]] = []  # (seat, error key) decided by the trick's winner
    king_lead = False
    for a in record["actions"]:
        kind = a["type"]
        if kind == "discard":
            hands[taker] &= ~_mask(a["cards"])
            continue
        if kind != "play":
            continue
        seat = a["seat"]
        card = INDEX[a["card"]]
        hand = hands[seat]
        if not trick:
            king_lead = False
            if seat == taker and card < 56 and card % 14 == 13:
                suit = SUIT_OF[card]
                king_lead = (hand & SUIT_MASKS[suit]).bit_count() >= 5
        else:
            lead, hi = _lead_hi(trick)
            wp = _winner_pos(trick)
            win_seat = seats[wp] if wp >= 0 else -1
            after = [(seat + i) & 3 for i in range(1, 4 - len(trick))]
            if (
                seat != taker
                and win_seat >= 0
                and win_seat != taker
                and taker in after
                and HALF_POINTS[card] >= 3
                and card != EXCUSE
            ):
                legal = legal_play_mask(hand, lead, hi)
                cheaper = any(
                    legal >> c & 1 and c != EXCUSE and HALF_POINTS[c] < HALF_POINTS[card]
                    for c in range(78)
                )
                if cheaper:
                    pending.append((seat, "points_given"))
        if card == PETIT:
            pending.append((seat, "petit_lost"))
            lead, hi = _lead_hi(trick)
            if legal_play_mask(hand, lead, hi) & ~(1 << PETIT) & ~(1 << EXCUSE):
                pending.append((seat, "petit_choice"))
            after = [(seat + i) & 3 for i in range(1, 4 - len(trick))]
            if (seat != taker and taker in after) or (seat == taker and after):
                pending.append((seat, "petit_front"))
        hands[seat] &= ~(1 << card)
        trick.append(card)
        seats.append(seat)
        if len(trick) == 4:
            winner = seats[_winner_pos(trick)]
            taker_won = winner == taker
            for s, key in pending:
                if key == "points_given":
                    if taker_won:
                        out[s][key] += 1
                elif (winner == taker) != (s == taker):  # the Petit went to the other side
                    out[s][key] += 1
            if king_lead and not taker_won and SUIT_OF[trick[_winner_pos(trick)]] == TRUMP_SUIT:
                out[taker]["king_trumped"] += 1
            trick, seats, pending = [], [], []
    return out

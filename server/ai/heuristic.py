"""The ``heuristic`` bot: club-style rules, well under 5 ms a decision."""

from __future__ import annotations

from typing import Any

from server.rules import Action, Bid, Chelem, Discard, Legal, Play, Poignee
from server.rules.actions import CONTRACT_INDEX, CONTRACTS
from server.rules.cards import CODES, INDEX, TRUMP_MASK, codes_of

from .evaluate import choose_bid, choose_chelem, choose_discard, choose_poignee
from .kernel import Pos
from .knowledge import Knowledge, mask, possible_hands, read_view, template_pos
from .policy import choose_card


def play_pos(k: Knowledge) -> Pos:
    """The current position as the heuristic sees it: other hands are what they may hold."""
    p = template_pos(k)
    p.hands = possible_hands(k)
    return p


def pre_play_action(view: dict[str, Any], legal: Legal) -> Action | None:
    """Bid, discard, chelem and poignée decisions (shared by the heuristic and strong bots);
    None when a card is to be chosen."""
    seat = legal.seat
    if legal.bids:
        hand = mask(view["hand"])
        best = max((CONTRACT_INDEX[b["contract"]] for b in view["bids"]), default=0)
        want = choose_bid(hand, best)
        name = CONTRACTS[want]
        return Bid(seat, name if name in legal.bids else "pass")  # type: ignore[arg-type]
    if legal.discard is not None:
        rule = legal.discard
        hand = mask(view["hand"])
        cards = choose_discard(hand, mask(rule.required), mask(rule.choices))
        return Discard(seat, tuple(codes_of(cards)))
    if legal.chelem:
        hand = mask(view["hand"])
        known = hand | mask(view.get("discard"))
        return Chelem(seat, choose_chelem(hand, TRUMP_MASK & ~known))
    if legal.poignees:
        hand = mask(view["hand"])
        taker = view["taker"]
        contract = CONTRACT_INDEX[view["contract"]]
        if choose_poignee(seat == taker, contract, (hand & TRUMP_MASK).bit_count()):
            opt = legal.poignees[-1]  # the biggest one we qualify for
            return Poignee(seat, opt.default)
    return None


class HeuristicBot:
    """Rule-based play (see :mod:`server.ai.policy` and :mod:`server.ai.evaluate`)."""

    name = "heuristic"
    reads_masks = True  # takes view(..., masks=True) as well as a client's view
    forced_without_view = True  # plays a forced card (one legal, no poignée) without the view

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` is taken like every bot's (``make_bot``) and not used: the heuristic is
        deterministic, and seeding a generator it never read cost each new table's bots."""

    def choose(self, view: dict[str, Any], legal: Legal) -> Action:
        act = pre_play_action(view, legal)
        if act is not None:
            return act
        if len(legal.plays) == 1:
            return Play(legal.seat, legal.plays[0])
        k = read_view(view)
        card = choose_card(play_pos(k), k.seat, k.hand_sizes)
        code = CODES[card]
        if code not in legal.plays:  # defensive: never return an illegal card
            code = legal.plays[0]
        return Play(legal.seat, code)


__all__ = ["INDEX", "HeuristicBot", "play_pos", "pre_play_action"]

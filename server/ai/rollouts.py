"""Rollouts: finishing a deal fast with the heuristic policy for every seat.

:func:`rollout` gives every seat the true hands (perfect information); :func:`rollout_hidden`
lets each seat play on what it would know, as the heuristic bot does in real play.
"""

from __future__ import annotations

from server.rules.cards import ABOVE, EXCUSE, FULL_DECK, SUIT_MASKS, SUIT_OF, TRUMP_MASK, TRUMP_SUIT

from .kernel import Pos
from .policy import choose_card


def rollout(p: Pos) -> None:
    """Finish ``p`` in place with the heuristic policy for every seat (perfect information)."""
    while p.n_tricks < 18:
        p.play(choose_card(p, p.turn))


def observe(forbidden: list[int], p: Pos, card: int) -> None:
    """What every seat learns when ``p.turn`` plays ``card`` now: a failure to follow is a
    void (and no trump when it discards), a trump under the highest one a trump ceiling."""
    lead = p.lead
    if card == EXCUSE or lead < 0:
        return
    seat = p.turn
    s = SUIT_OF[card]
    if lead != TRUMP_SUIT and s != lead:
        forbidden[seat] |= SUIT_MASKS[lead] if s == TRUMP_SUIT else SUIT_MASKS[lead] | TRUMP_MASK
    elif lead == TRUMP_SUIT and s != TRUMP_SUIT:
        forbidden[seat] |= TRUMP_MASK
    if s == TRUMP_SUIT and 0 <= card < p.hi:
        forbidden[seat] |= ABOVE[p.hi]


def rollout_hidden(p: Pos, forbidden: list[int], gone: int, taker_pile: int) -> None:
    """Finish ``p`` in place with every seat playing the heuristic policy on what *it* would
    know (its own hand; for the others the cards not yet seen minus what they have shown they
    lack), not on the sampled world's hands: the rollout then plays like real players who do
    not see each other's cards, which keeps the search from counting on perfect information
    (strategy fusion: a Petit played in front of an opponent looks safe in every world where
    the opponent happens to follow). ``forbidden`` (public inferences per seat, updated here),
    ``gone`` (cards everybody knows are out of play) and ``taker_pile`` (the discard the taker
    knows) come from the root position."""
    real = p.hands
    taker = p.taker
    # Hand sizes kept up to date here rather than counted at every card (the hot loop of the
    # strong bot's search).
    sizes = [real[0].bit_count(), real[1].bit_count(), real[2].bit_count(), real[3].bit_count()]
    outside = FULL_DECK & ~gone
    while p.n_tricks < 18:
        o = p.turn
        mine = real[o]
        unknown = outside & ~p.played & ~mine
        if o == taker:
            unknown &= ~taker_pile
        seen = [unknown & ~forbidden[s] if real[s] else 0 for s in range(4)]
        seen[o] = mine
        p.hands = seen
        c = choose_card(p, o, sizes)
        p.hands = real
        observe(forbidden, p, c)
        p.play(c)
        sizes[o] -= 1

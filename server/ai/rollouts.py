"""Rollouts: finishing a deal fast with the heuristic policy for every seat.

:func:`rollout` gives every seat the true hands (perfect information); :func:`rollout_hidden`
lets each seat play on what it would know, as the heuristic bot does in real play.
"""

from __future__ import annotations

from server.rules.cards import FULL_DECK

from .kernel import Pos, legal_mask
from .policy import choose_among, choose_card


def rollout(p: Pos) -> None:
    """Finish ``p`` in place with the heuristic policy for every seat (perfect information)."""
    while p.n_tricks < 18:
        p.play(choose_card(p, p.turn))


def rollout_hidden(p: Pos, forbidden: list[int], gone: int, taker_pile: int) -> None:
    """Finish ``p`` in place with every seat playing the heuristic policy on what *it* would
    know (its own hand; for the others the cards not yet seen minus what they have shown they
    lack), not on the sampled world's hands: the rollout then plays like real players who do
    not see each other's cards, which keeps the search from counting on perfect information
    (strategy fusion: a Petit played in front of an opponent looks safe in every world where
    the opponent happens to follow). ``forbidden`` (public inferences per seat at the root, not
    changed here), ``gone`` (cards everybody knows are out of play) and ``taker_pile`` (the
    discard the taker knows) come from the root position; what the play reveals from there on
    (voids, trump ceilings) the core records in ``p.voids``."""
    real = p.hands
    voids = p.voids
    taker = p.taker
    # Hand sizes kept up to date here rather than counted at every card (the hot loop of the
    # strong bot's search).
    sizes = [real[0].bit_count(), real[1].bit_count(), real[2].bit_count(), real[3].bit_count()]
    outside = FULL_DECK & ~gone
    while p.n_tricks < 18:
        o = p.turn
        mine = real[o]
        legal = legal_mask(mine, p.lead, p.hi)
        if legal & (legal - 1):
            unknown = outside & ~p.played & ~mine
            if o == taker:
                unknown &= ~taker_pile
            seen = [
                unknown & ~(forbidden[0] | voids[0]) if real[0] else 0,
                unknown & ~(forbidden[1] | voids[1]) if real[1] else 0,
                unknown & ~(forbidden[2] | voids[2]) if real[2] else 0,
                unknown & ~(forbidden[3] | voids[3]) if real[3] else 0,
            ]
            seen[o] = mine
            p.hands = seen
            c = choose_among(p, o, mine, legal, sizes)
            p.hands = real
        else:
            c = legal.bit_length() - 1  # one legal card (what choose_card would answer)
        p.play(c)
        sizes[o] -= 1

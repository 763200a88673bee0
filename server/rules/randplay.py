"""Random legal choices: the baseline player, property tests and benchmarks use these."""

from __future__ import annotations

import random

from .actions import Action, Bid, Chelem, Discard, Play, Poignee
from .deal import DealState, Legal, legal_actions


def random_action(st: DealState, rng: random.Random, *, poignee_chance: float = 0.5) -> Action:
    """A uniformly random legal action (a poignée, when offered, with ``poignee_chance``)."""
    legal = legal_actions(st)
    if legal is None:
        raise ValueError("the deal is over")
    return random_from_legal(legal, rng, poignee_chance=poignee_chance)


def random_from_legal(legal: Legal, rng: random.Random, *, poignee_chance: float = 0.5) -> Action:
    seat = legal.seat
    if legal.plays:
        if legal.poignees and rng.random() < poignee_chance:
            opt = rng.choice(legal.poignees)
            if opt.size < len(opt.eligible) and rng.random() < 0.5:
                # Any valid set, not only the default: a random subset of the trumps.
                trumps = [c for c in opt.eligible if c != "EX"]
                if len(trumps) >= opt.size:
                    return Poignee(seat, tuple(sorted(rng.sample(trumps, opt.size))))
            return Poignee(seat, opt.default)
        return Play(seat, rng.choice(legal.plays))
    if legal.bids:
        return Bid(seat, rng.choice(legal.bids))  # type: ignore[arg-type]
    if legal.discard is not None:
        rule = legal.discard
        rest = rng.sample(rule.choices, rule.count - len(rule.required))
        return Discard(seat, (*rule.required, *rest))
    if legal.chelem:
        return Chelem(seat, rng.random() < 0.05)
    raise ValueError("nothing is legal")


def random_deal(seed: int, dealer: int = 0) -> DealState:
    """A complete deal played with random legal actions."""
    from .deal import OVER, apply, new_deal

    rng = random.Random(seed)
    st = new_deal(rng, dealer)
    while st.phase != OVER:
        st = apply(st, random_action(st, rng))
    return st

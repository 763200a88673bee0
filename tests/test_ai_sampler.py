"""The deal sampler only uses the seat's view and never produces a deal the seat could rule out.

A sampled deal is checked against the true deal's constraints the strictest way: the whole
history (bids, discard, chelem, poignées, every card) is replayed through the rules engine from
the sampled deal, and the seat's view of the result must be exactly its view of the true deal.
Conversely, the true location of every unseen card must be allowed by the sampler (its
inferences are sound).
"""

from __future__ import annotations

import random

from server.ai import make_bot
from server.ai.knowledge import read_view
from server.ai.sampler import HIDDEN, Sampler
from server.ai.strong import StrongBot
from server.rules import OVER, PLAY, Discard, apply, legal_actions
from server.rules.actions import GARDE
from server.rules.cards import TRUMP_MASK, codes_of
from server.rules.deal import DealState, deal_from_masks, new_deal
from server.rules.randplay import random_action
from server.rules.views import view


def _played_by(st: DealState) -> list[int]:
    out = [0, 0, 0, 0]
    for leader, cards, _ in st.tricks:
        for i, c in enumerate(cards):
            out[(leader + i) % 4] |= 1 << c
    for i, c in enumerate(st.trick):
        out[(st.trick_leader + i) % 4] |= 1 << c
    return out


def world_from_sample(st: DealState, seat: int, hands: list[int], hidden: int) -> DealState:
    """Replay ``st``'s history from the sampled deal (raises if any action becomes illegal)."""
    played = _played_by(st)
    dealt = [hands[s] | played[s] for s in range(4)]
    taker = st.taker
    discard = 0
    if st.contract <= GARDE:
        discard = st.discard if seat == taker else (st.discard & TRUMP_MASK) | hidden
        dealt[taker] = (dealt[taker] | discard) & ~st.chien
        chien = st.chien
    else:
        chien = hidden
    w = deal_from_masks(st.dealer, dealt, chien)
    for a in st.action_list():
        if isinstance(a, Discard):
            a = Discard(a.seat, tuple(codes_of(discard)))
        w = apply(w, a)
    return w


def _states(n_deals: int, seed0: int):
    """Play-phase states of varied deals (all contracts, poignées, chelems, voids)."""
    bot = make_bot("heuristic", 0)
    for i in range(n_deals):
        rng = random.Random(seed0 + i)
        st = new_deal(rng, dealer=i % 4)
        while st.phase != OVER:
            legal = legal_actions(st)
            assert legal is not None
            if st.phase == PLAY and rng.random() < 0.12:
                yield st
            if rng.random() < 0.3:
                st = apply(st, random_action(st, rng, poignee_chance=0.6))
            else:
                st = apply(st, bot.choose(view(st, legal.seat), legal))


def test_sampled_deals_are_indistinguishable_from_the_true_one() -> None:
    n_checked = 0
    contracts = set()
    for st in _states(150, 20_000):
        contracts.add(st.contract)
        for seat in range(4):
            v = view(st, seat)
            k = read_view(v)
            sampler = Sampler(k)
            # The truth is allowed: each unseen card may go where it really is.
            true_hidden = st.discard if st.contract <= GARDE else st.chien
            for c, allowed in sampler.allowed_of.items():
                where = next((s for s in range(4) if st.hands[s] >> c & 1), HIDDEN)
                assert where != seat
                assert where == HIDDEN or true_hidden >> c & 1 == 0
                assert allowed >> where & 1, (c, where, allowed)
            rng = random.Random(seat)
            for _ in range(3):
                hands, hidden = sampler.sample(rng)
                assert hands[seat] == st.hands[seat]
                assert [h.bit_count() for h in hands] == [h.bit_count() for h in st.hands]
                w = world_from_sample(st, seat, hands, hidden)
                assert view(w, seat) == v
                n_checked += 1
    assert n_checked > 2000
    assert contracts == {1, 2, 3, 4}


def test_sampler_and_strong_bot_see_only_the_view() -> None:
    """Two deals the seat cannot tell apart give the same samples and the same decision."""
    n = 0
    for st in _states(40, 30_000):
        seat = st.turn
        v = view(st, seat)
        hands, hidden = Sampler(read_view(v)).sample(random.Random(1))
        other = world_from_sample(st, seat, hands, hidden)
        v2 = view(other, seat)
        assert v2 == v
        s1 = Sampler(read_view(v)).sample(random.Random(7))
        s2 = Sampler(read_view(v2)).sample(random.Random(7))
        assert s1 == s2
        legal = legal_actions(st)
        legal2 = legal_actions(other)
        assert legal == legal2
        b1 = StrongBot(3, budget_ms=10_000, max_samples=4, confidence=None)
        b2 = StrongBot(3, budget_ms=10_000, max_samples=4, confidence=None)
        assert b1.choose(v, legal) == b2.choose(v2, legal2)
        n += 1
    assert n > 20


def test_sampler_fallback_is_exact() -> None:
    """The never-failing assignment (used when quick draws keep failing) is also consistent."""
    n = 0
    for st in _states(30, 40_000):
        seat = st.turn
        v = view(st, seat)
        sampler = Sampler(read_view(v))
        rng = random.Random(n)
        hands, hidden = sampler._exact(rng)
        while sampler._petit_sec((hands, hidden)):  # R3.1: sample() redraws these too
            hands, hidden = sampler._exact(rng)
        assert view(world_from_sample(st, seat, hands, hidden), seat) == v
        n += 1
    assert n > 10

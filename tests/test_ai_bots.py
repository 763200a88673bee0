"""Every bot always returns a legal action, in every phase (bidding, discard including forced
trump discards, chelem, poignée decisions, every trick up to the last), over many random deals.

Deals are driven through the engine; a bot only ever receives ``view(state, seat)`` and
``legal_actions(state)``. To reach varied states (every contract, announced chelems, shown
poignées) some actions are random; the bot under test is asked at every decision of its seats.
"""

from __future__ import annotations

import random

import pytest

from server.ai import AI_LEVELS, INLINE_LEVELS, LEVELS, make_bot
from server.ai.heuristic import play_pos
from server.ai.knowledge import read_view
from server.ai.policy import choose_card
from server.ai.strong import StrongBot
from server.rules import OVER, PLAY, Bid, apply, legal_actions
from server.rules.cards import CODES, TRUMP_MASK, codes_of
from server.rules.deal import deal_from_masks, new_deal
from server.rules.randplay import random_action
from server.rules.views import view


def _bot(level: str, seed: int):
    if level == "strong":
        # A tiny budget keeps the test fast; the code paths are those of a full search.
        return StrongBot(seed, budget_ms=2.0, max_samples=3)
    return make_bot(level, seed)


def _drive(st, bots, rng, random_share: float, seen: set[str]) -> None:
    """Play ``st`` to the end; each decision is the bot's (checked legal by apply), and with
    probability ``random_share`` the action actually applied is a random one instead."""
    while st.phase != OVER:
        legal = legal_actions(st)
        assert legal is not None
        act = bots[legal.seat].choose(view(st, legal.seat), legal)
        assert act.seat == legal.seat
        new = apply(st, act)  # raises IllegalAction if the bot broke a rule
        if legal.discard is not None and legal.discard.required:
            seen.add("forced_discard")
        if legal.poignees:
            seen.add("poignee_offered")
            if type(act).__name__ == "Poignee":
                seen.add("poignee_declared")
        if legal.plays and len(st.tricks) == 17:
            seen.add("last_trick")
        if legal.chelem:
            seen.add("chelem")
        if rng.random() < random_share:
            st = apply(st, random_action(st, rng, poignee_chance=0.5))
        else:
            st = new


@pytest.mark.parametrize(
    ("level", "n_deals"), [("random", 1500), ("easy", 300), ("heuristic", 1000), ("strong", 60)]
)
def test_bot_always_legal_on_random_deals(level: str, n_deals: int) -> None:
    assert level in LEVELS
    seen: set[str] = set()
    for i in range(n_deals):
        rng = random.Random(i)
        st = new_deal(rng, dealer=i % 4)
        bots = [_bot(level, i * 4 + s) for s in range(4)]
        _drive(st, bots, rng, 0.25, seen)
    assert {"last_trick", "chelem", "poignee_offered"} <= seen


def _trump_heavy_deal(rng: random.Random, taker_seat: int, n_trumps: int):
    """A deal where ``taker_seat`` holds ``n_trumps`` trumps and several kings, so that after
    taking the chien fewer than six plain cards may remain (R5.3 forces trump discards)."""
    deck = list(range(78))
    trumps = [c for c in deck if TRUMP_MASK >> c & 1]
    kings = [13, 27, 41, 55]
    rng.shuffle(trumps)
    mine = trumps[:n_trumps] + kings[: 18 - n_trumps if n_trumps > 14 else 4]
    rest = [c for c in deck if c not in mine]
    while len(mine) < 18:
        c = rest.pop(rng.randrange(len(rest)))
        mine.append(c)
    rng.shuffle(rest)
    hands = [0, 0, 0, 0]
    hands[taker_seat] = sum(1 << c for c in mine)
    others = [s for s in range(4) if s != taker_seat]
    for j, s in enumerate(others):
        hands[s] = sum(1 << c for c in rest[18 * j : 18 * j + 18])
    chien = sum(1 << c for c in rest[54:60])
    return deal_from_masks(taker_seat - 1 if taker_seat else 3, hands, chien)


@pytest.mark.parametrize("level", ["random", "heuristic", "strong"])
def test_forced_trump_discards_and_poignees(level: str) -> None:
    """Trump-heavy hands: the taker must discard trumps (R5.3) and may show a poignée."""
    seen: set[str] = set()
    for i in range(60 if level != "strong" else 12):
        rng = random.Random(1000 + i)
        seat = i % 4
        st = _trump_heavy_deal(rng, seat, 13 + i % 5)
        if st.phase == OVER:
            continue
        # The first speaker takes a prise or a garde, the others pass, so a discard follows.
        st = apply(st, Bid(st.turn, "garde" if i % 2 else "prise"))
        for _ in range(3):
            st = apply(st, Bid(st.turn, "pass"))
        bots = [_bot(level, i * 4 + s) for s in range(4)]
        _drive(st, bots, rng, 0.0, seen)
    assert "forced_discard" in seen
    assert "poignee_offered" in seen
    if level != "random":
        assert "poignee_declared" in seen


def test_heuristic_policy_card_is_legal_without_fallback() -> None:
    """The heuristic card choice itself is legal (the bots' defensive fallback is never used)."""
    bot = make_bot("heuristic", 0)
    n = 0
    for i in range(400):
        rng = random.Random(50_000 + i)
        st = new_deal(rng, dealer=i % 4)
        while st.phase != OVER:
            legal = legal_actions(st)
            assert legal is not None
            if st.phase == PLAY:
                k = read_view(view(st, legal.seat))
                card = choose_card(play_pos(k), k.seat)
                assert CODES[card] in legal.plays
                n += 1
            act = bot.choose(view(st, legal.seat), legal) if rng.random() < 0.8 else None
            st = apply(st, act if act is not None else random_action(st, rng))
    assert n > 10_000


def test_make_bot_levels() -> None:
    for level in LEVELS:
        assert make_bot(level, 1).name == level
    assert [name for name, _ in AI_LEVELS] == ["easy", "normal", "strong"]
    assert all(desc and len(desc) < 100 for _, desc in AI_LEVELS)
    assert set(LEVELS) - {"strong"} == INLINE_LEVELS
    with pytest.raises(ValueError):
        make_bot("nope")


def test_heuristic_discard_keeps_trumps_and_kings() -> None:
    """Discards never hold a trump unless R5.3 forces it, and voids short king-less suits."""
    bot = make_bot("heuristic", 0)
    for i in range(300):
        rng = random.Random(7_000 + i)
        st = new_deal(rng, dealer=0)
        if st.phase == OVER:
            continue
        st = apply(st, Bid(st.turn, "prise"))
        for _ in range(3):
            st = apply(st, Bid(st.turn, "pass"))
        legal = legal_actions(st)
        assert legal is not None and legal.discard is not None
        act = bot.choose(view(st, legal.seat), legal)
        st2 = apply(st, act)
        if not legal.discard.required:
            assert not st2.discard & TRUMP_MASK, codes_of(st2.discard)

"""Random legal choices: the baseline player, property tests and benchmarks use these."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import NamedTuple

from .actions import CONTRACTS, GARDE, Action, Bid, Chelem, Discard, Play, Poignee
from .cards import CODES, EXCUSE_BIT, N_CARDS, TRUMP_MASK, codes_of
from .core import POIGNEE_BONUS, Position, legal_play_mask
from .deal import (
    POIGNEE_SIZES,
    DealState,
    Legal,
    discard_rule,
    is_petit_sec,
    legal_actions,
    poignee_default,
    trump_discard_exception,
)


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


# ---------------------------------------------------------------------------- fast random deals
#
# The same random choices made on bitmasks, without actions, legal lists or state copies, for
# benchmarks and the tests that need many complete deals: the card play runs on one
# core.Position, like every other user of the rules.

_BIT: tuple[int, ...] = tuple(1 << c for c in range(N_CARDS))
_DECK: list[int] = list(range(N_CARDS))


def random_card(legal: int, rnd: Callable[[], float]) -> int:
    """A card drawn uniformly from the mask ``legal`` (not empty)."""
    n = legal.bit_count()
    if n > 1:
        r = int(rnd() * n)
        while r:
            legal &= legal - 1
            r -= 1
    return (legal & -legal).bit_length() - 1


def random_playout(
    pos: Position, rnd: Callable[[], float], record: list[int] | None = None
) -> None:
    """Finish ``pos`` in place with uniformly random legal cards (``rnd``: ``rng.random``), until
    the seat to play has no card left; ``record``, if given, receives the cards played."""
    hands = pos.hands
    lpm = legal_play_mask
    play = pos.play
    while hands[pos.turn]:
        legal = lpm(hands[pos.turn], pos.lead, pos.hi)
        n = legal.bit_count()
        if n > 1:  # random_card, inlined: this loop is the benchmarks' hot path
            r = int(rnd() * n)
            while r:
                legal &= legal - 1
                r -= 1
        card = (legal & -legal).bit_length() - 1
        if record is not None:
            record.append(card)
        play(card)


class DealResult(NamedTuple):
    """A deal's result in half points, as :class:`scoring.Score` gives it."""

    reason: str  # "" when played, else "petit_sec" or "all_passed" (R3)
    taker: int = -1
    contract: int = 0
    chelem: bool = False
    taker_half: int = 0
    oudlers: int = 0
    taker_tricks: int = 0
    petit: int = 0  # petit au bout: +1 the taker's team, -1 the defence, 0 nobody
    poignee_half: int = 0  # unsigned total of declared poignées
    per_defender_half: int = 0

    def scores_half(self) -> tuple[int, int, int, int]:
        pd = self.per_defender_half
        if self.reason:
            return (0, 0, 0, 0)
        return tuple(3 * pd if s == self.taker else -pd for s in range(4))  # type: ignore[return-value]


class Trace:
    """Filled by :func:`random_deal_result` when given: the deal and its actions, so that it
    can be replayed through :func:`deal.apply` or written as a record."""

    __slots__ = ("actions", "chien", "dealer", "hands")

    def __init__(self) -> None:
        self.dealer = 0
        self.hands: tuple[int, int, int, int] = (0, 0, 0, 0)
        self.chien = 0
        self.actions: list[Action] = []


_ANNULLED_PETIT_SEC = DealResult("petit_sec")
_ANNULLED_ALL_PASSED = DealResult("all_passed")


def _random_bits(mask: int, k: int, rnd: Callable[[], float]) -> int:
    """``k`` distinct cards drawn uniformly from ``mask``."""
    out = 0
    for _ in range(k):
        low = 1 << random_card(mask, rnd)
        out |= low
        mask ^= low
    return out


def _random_poignee(hand: int, extra: int, rnd: Callable[[], float], chance: float) -> int:
    """A random valid poignée for a seat holding ``hand`` (``extra``: discarded trumps it may
    also show under R6.6), or 0. Mirrors :func:`random_from_legal`'s choices."""
    trumps = hand & TRUMP_MASK
    has_ex = bool(hand & EXCUSE_BIT)
    if trumps.bit_count() + (extra & TRUMP_MASK).bit_count() + has_ex < 10:
        return 0
    options = []
    for size in POIGNEE_SIZES:
        pool = trumps | extra if size == 15 else trumps
        default = poignee_default(pool, has_ex, size)
        if default is not None:
            options.append((size, pool, default))
    if not options or rnd() >= chance:
        return 0
    size, pool, default = options[int(rnd() * len(options))]
    n_eligible = pool.bit_count() + (has_ex and pool.bit_count() == size - 1)
    if size < n_eligible and rnd() < 0.5 and pool.bit_count() >= size:
        return _random_bits(pool, size, rnd)
    return default


def random_deal_result(
    rng: random.Random,
    dealer: int = 0,
    *,
    poignee_chance: float = 0.5,
    chelem_chance: float = 0.05,
    trace: Trace | None = None,
) -> DealResult:
    """Deal, bid, discard, decide the chelem, declare poignées and play 72 cards, every choice
    uniformly random among the legal ones (bids, discard, card) or with the given chances, and
    score the deal. ``trace``, if given, receives the deal and its actions (its cost is paid
    only then)."""
    rnd = rng.random
    deck = _DECK[:]
    rng.shuffle(deck)
    bits = _BIT.__getitem__
    hands = [
        sum(map(bits, deck[0:18])),
        sum(map(bits, deck[18:36])),
        sum(map(bits, deck[36:54])),
        sum(map(bits, deck[54:72])),
    ]
    chien = sum(map(bits, deck[72:78]))
    if trace is not None:
        trace.dealer = dealer
        trace.hands = (hands[0], hands[1], hands[2], hands[3])
        trace.chien = chien
        trace.actions = []
    acts = trace.actions if trace is not None else None
    if any(is_petit_sec(h) for h in hands):
        return _ANNULLED_PETIT_SEC

    # R4: one round of bids, each uniformly among pass and the contracts above the best.
    first = (dealer + 1) & 3
    best = 0
    taker = -1
    seat = first
    for _ in range(4):
        r = int(rnd() * (5 - best))
        if r:
            best += r
            taker = seat
        if acts is not None:
            acts.append(Bid(seat, CONTRACTS[best if r else 0]))  # type: ignore[arg-type]
        seat = (seat + 1) & 3
    if taker < 0:
        return _ANNULLED_ALL_PASSED
    contract = best

    # R5: discard (prise, garde); the stash is what counts for the taker at the end (R9.1).
    if contract <= GARDE:
        full = hands[taker] | chien
        required, choices = discard_rule(full)
        discard = required | _random_bits(choices, 6 - required.bit_count(), rnd)
        hands[taker] = full & ~discard
        stash = discard
        if acts is not None:
            acts.append(Discard(taker, tuple(codes_of(discard))))
        # R6.6: discarded trumps the taker may show in a triple poignée.
        extra = discard & TRUMP_MASK if trump_discard_exception(full, discard) else 0
    else:
        stash = chien
        extra = 0

    # R6.1, R6.2
    announce = rnd() < chelem_chance
    if acts is not None:
        acts.append(Chelem(taker, announce))
    leader = taker if announce else first

    # R6.3: poignées, decided up front (a seat's hand does not change before its first card).
    shown = [0, 0, 0, 0]
    poignee_half = 0
    for s in range(4):
        m = _random_poignee(hands[s], extra if s == taker else 0, rnd, poignee_chance)
        if m:
            shown[s] = m
            poignee_half += 2 * POIGNEE_BONUS[m.bit_count()]

    pos = Position.start(
        hands, taker, contract, leader, stash=stash, chelem=announce, poignee_half=poignee_half
    )
    if acts is None:
        random_playout(pos, rnd)
    else:
        plays: list[int] = []
        random_playout(pos, rnd, plays)
        for i, card in enumerate(plays):
            seat = next(s for s in range(4) if hands[s] >> card & 1)
            if i < 4 and shown[seat]:
                # R6.3: declared at the seat's turn in the first trick, before its card.
                acts.append(Poignee(seat, tuple(codes_of(shown[seat]))))
            acts.append(Play(seat, CODES[card]))
    _, _, base, petit, poignee, slam = pos.parts()
    return DealResult(
        "",
        taker,
        contract,
        announce,
        pos.taker_half,
        pos.oudlers(),
        pos.taker_tricks,
        pos.petit_au_bout(),
        poignee_half,
        base + petit + poignee + slam,
    )

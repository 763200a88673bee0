"""A fast playout kernel: complete random deals and card-play rollouts for the AI.

The public engine (:func:`deal.apply`) is built for exactness and clear errors: it copies an
immutable state and validates a typed action at every step. Simulation needs the same rules
a hundred times faster, so this module plays directly on int bitmasks held in local
variables, with no allocation per card. It shares the rules with the engine rather than
restating them: legal cards come from :func:`deal.legal_play_mask`, the discard constraint
from :func:`deal.discard_rule`, poignée sets from :func:`deal.poignee_default` and
:func:`deal.trump_discard_exception`, and the tables from :mod:`cards` and :mod:`scoring`.
``tests/test_playout.py`` checks it against ``apply`` + ``scoring.score`` on thousands of deals.

Two entry points:

* :func:`random_deal_result` plays one complete random deal (shuffle, bidding, discard,
  chelem decision, poignées, 72 cards) and scores it exactly as :func:`scoring.score`.
* :func:`rollout` plays a :class:`Position` (a full-information card-play position, made by
  :func:`position_from_state` or :meth:`Position.start`) to the end, with random cards or a
  ``policy(position, seat, legal_mask) -> card`` callable, and returns an :class:`Outcome`;
  :func:`outcome_score` turns it into the per-defender score of R10.

All points are integer half points (R1.5 Reading), as in :mod:`scoring`.

Typical use by a Monte Carlo player (``st`` the real deal, a sampled world for the hidden
cards, ``rng`` a ``random.Random``)::

    base = position_from_state(st, sampled_hands, stash=sampled_discard)
    for card in candidate_cards:
        p = base.copy()
        play_card(p, card)
        out = rollout(p, rng, inplace=True)           # or policy=heuristic_policy
        value = outcome_score(p, out)                  # per defender, taker's side
        # the taker's team values 3 * value (R10.5); a defender's team values -value each.

Speed on this machine (``bench/engine.py``): about 17,000 complete random deals/s and
25,000 random rollouts/s from the first card, on one core.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import NamedTuple

from .actions import (
    CONTRACTS,
    GARDE,
    GARDE_CONTRE,
    GARDE_SANS,
    MULTIPLIERS,
    Action,
    Bid,
    Chelem,
    Discard,
    Play,
    Poignee,
)
from .cards import (
    CODES,
    EXCUSE,
    EXCUSE_BIT,
    HALF_POINTS,
    N_CARDS,
    NO_TRUMP,
    OUDLERS_MASK,
    PETIT,
    PETIT_BIT,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    codes_of,
    half_points,
)
from .deal import (
    OVER,
    PLAY,
    POIGNEE_BONUS,
    POIGNEE_SIZES,
    DealState,
    discard_rule,
    is_petit_sec,
    legal_play_mask,
    poignee_default,
    trump_discard_exception,
)
from .scoring import TARGETS_HALF, count

__all__ = [
    "DealResult",
    "Outcome",
    "Policy",
    "Position",
    "Trace",
    "outcome_score",
    "per_defender_half",
    "play_card",
    "position_from_state",
    "random_deal_result",
    "rollout",
]

_BIT: tuple[int, ...] = tuple(1 << c for c in range(N_CARDS))
_DECK: list[int] = list(range(N_CARDS))
_EXCUSE_HALF = HALF_POINTS[EXCUSE]
_POIGNEE_HALF = {size: 2 * bonus for size, bonus in POIGNEE_BONUS.items()}


class Position:
    """A full-information card-play position (all four hands known), mutated in place.

    Seats and cards are those of :mod:`cards`; card sets are int masks. The "taker's pile"
    is everything R9.1 counts for the taker: cards of the tricks the taker won, the discard
    (``prise``/``garde``) or the chien (``garde_sans``), and the Excuse when R8 gives it to
    the taker. ``taker_half`` is that pile's value in half points with R8.1's half-point
    transfers applied, so at the end of the deal it is exactly ``Score.taker_half``.

    Attributes a policy may read (do not write them; use :func:`play_card`):

    * ``hands``: list of the four seats' current hands.
    * ``taker``, ``contract`` (1..4, see :data:`actions.CONTRACTS`), ``chelem`` (announced).
    * ``poignee_half``: total value of the declared poignées in half points (R10.3, unsigned:
      it goes to whichever team wins the contract). Rollouts never declare new poignées.
    * ``leader``, ``turn``: who led the trick in progress, who plays next.
    * ``trick``: list of the cards of the trick in progress, in play order from ``leader``.
    * ``lead_suit`` (-1 unset), ``hi_trump`` (:data:`cards.NO_TRUMP` if none): as in DealState.
    * ``win_seat``, ``win_card``: who is winning the trick in progress and with what (-1 if
      nobody yet, i.e. the trick is empty or holds only the Excuse).
    * ``ex_seat``: who played the Excuse into the trick in progress (-1 if nobody).
    * ``n_tricks``: completed tricks (0..18); ``played``: mask of every card played so far,
      including the trick in progress.
    * ``taker_half``, ``taker_pile``, ``taker_tricks``: see above.
    * ``petit_at``, ``petit_sign``: index of the completed trick holding ``T1`` (-1 if not yet)
      and +1/-1 as the taker / the defenders won it (R10.2 needs it).
    * ``excuse_slam``: R8.3 applied to the last trick.
    """

    __slots__ = (
        "chelem",
        "contract",
        "ex_seat",
        "excuse_slam",
        "hands",
        "hi_trump",
        "lead_suit",
        "leader",
        "n_tricks",
        "petit_at",
        "petit_sign",
        "played",
        "poignee_half",
        "taker",
        "taker_half",
        "taker_pile",
        "taker_tricks",
        "trick",
        "turn",
        "win_card",
        "win_seat",
    )

    hands: list[int]
    taker: int
    contract: int
    chelem: bool
    poignee_half: int
    leader: int
    turn: int
    trick: list[int]
    lead_suit: int
    hi_trump: int
    win_seat: int
    win_card: int
    ex_seat: int
    n_tricks: int
    played: int
    taker_half: int
    taker_pile: int
    taker_tricks: int
    petit_at: int
    petit_sign: int
    excuse_slam: bool

    @classmethod
    def start(
        cls,
        hands: Sequence[int],
        taker: int,
        contract: int,
        leader: int,
        *,
        stash: int = 0,
        chelem: bool = False,
        poignee_half: int = 0,
    ) -> Position:
        """The position before the first card. ``hands`` are the four 18-card hands (the
        taker's after the discard); ``stash`` is the discard for ``prise``/``garde`` or the
        chien for ``garde_sans`` (it counts for the taker; ignored for ``garde_contre``);
        ``leader`` is ``(dealer + 1) % 4``, or the taker after a chelem announce (R7.2)."""
        p = cls.__new__(cls)
        p.hands = [hands[0], hands[1], hands[2], hands[3]]
        p.taker = taker
        p.contract = contract
        p.chelem = chelem
        p.poignee_half = poignee_half
        p.leader = p.turn = leader
        p.trick = []
        p.lead_suit = -1
        p.hi_trump = NO_TRUMP
        p.win_seat = p.win_card = p.ex_seat = -1
        p.n_tricks = 0
        p.played = 0
        if contract == GARDE_CONTRE:
            stash = 0
        p.taker_pile = stash
        p.taker_half = half_points(stash)
        p.taker_tricks = 0
        p.petit_at = -1
        p.petit_sign = 0
        p.excuse_slam = False
        return p

    def copy(self) -> Position:
        p = Position.__new__(Position)
        for name in Position.__slots__:
            setattr(p, name, getattr(self, name))
        p.hands = self.hands[:]
        p.trick = self.trick[:]
        return p

    @property
    def over(self) -> bool:
        return self.n_tricks == 18

    def legal(self) -> int:
        """Mask of the cards the seat to play may play (R7.3–R7.6)."""
        return legal_play_mask(self.hands[self.turn], self.lead_suit, self.hi_trump)

    def outcome(self) -> Outcome:
        """The outcome of a finished position."""
        if self.n_tricks != 18:
            raise ValueError("the card play is not over")
        return _outcome(self)

    def __repr__(self) -> str:
        return (
            f"Position(taker={self.taker}, contract={CONTRACTS[self.contract]}, "
            f"tricks={self.n_tricks}, trick={[CODES[c] for c in self.trick]}, turn={self.turn}, "
            f"taker_half={self.taker_half})"
        )


Policy = Callable[[Position, int, int], int]
"""``policy(position, seat, legal_mask) -> card``: chooses one card of ``legal_mask`` for
``seat`` (always ``position.turn``). It must not modify the position."""


class Outcome(NamedTuple):
    """What scoring needs from the card play (R9, R10.2, R10.4), seen from the taker."""

    taker_half: int  # taker's card points in half points (Score.taker_half)
    oudlers: int  # oudlers in the taker's pile (R9.2)
    taker_tricks: int  # 0..18, for the chelem bonus (R10.4)
    petit: int  # petit au bout (R10.2): +1 taker's team, -1 defenders, 0 none


def _outcome(p: Position) -> Outcome:
    idx = 16 if p.excuse_slam else 17
    return Outcome(
        p.taker_half,
        (p.taker_pile & OUDLERS_MASK).bit_count(),
        p.taker_tricks,
        p.petit_sign if p.petit_at == idx else 0,
    )


def per_defender_half(
    contract: int,
    chelem: bool,
    poignee_half: int,
    taker_half: int,
    oudlers: int,
    taker_tricks: int,
    petit: int,
) -> int:
    """R10 per-defender amount, in half points, from the taker's side (Score.per_defender_half)."""
    mult = MULTIPLIERS[contract]
    diff = taker_half - TARGETS_HALF[oudlers]
    if diff >= 0:
        total = (50 + diff) * mult + poignee_half
    else:
        total = (diff - 50) * mult - poignee_half
    total += 20 * mult * petit
    if chelem:
        total += 800 if taker_tricks == 18 else -400
    elif taker_tricks == 18:
        total += 400
    elif taker_tricks == 0:
        total -= 400
    return total


def outcome_score(pos: Position, out: Outcome) -> int:
    """Per-defender score (half points, taker's side) of ``out`` played from ``pos``.
    The taker scores three times it, each defender minus it (R10.5)."""
    return per_defender_half(
        pos.contract,
        pos.chelem,
        pos.poignee_half,
        out.taker_half,
        out.oudlers,
        out.taker_tricks,
        out.petit,
    )


# ---------------------------------------------------------------------------- the kernel


def _advance(
    pos: Position,
    limit: int,
    rnd: Callable[[], float] | None,
    policy: Policy | None,
    rec: list[int] | None,
) -> None:
    """Play ``limit`` cards from ``pos`` (in place): uniformly random legal cards drawn with
    ``rnd`` when ``policy`` is None, else the policy's. Cards played are appended to ``rec``.

    The state lives in local variables while playing and is written back at the end; a policy
    sees an up-to-date ``pos`` (synchronised before each call)."""
    hands = pos.hands
    trick = pos.trick
    taker = pos.taker
    leader = pos.leader
    turn = pos.turn
    lead = pos.lead_suit
    hi = pos.hi_trump
    win_seat = pos.win_seat
    win_card = pos.win_card
    ex_seat = pos.ex_seat
    nt = pos.n_tricks
    played = pos.played
    half = pos.taker_half
    pile = pos.taker_pile
    tt = pos.taker_tricks
    petit_at = pos.petit_at
    petit_sign = pos.petit_sign
    excuse_slam = pos.excuse_slam
    lpm = legal_play_mask
    suit_of = SUIT_OF
    bits = _BIT
    pts_of = HALF_POINTS
    while limit > 0:
        limit -= 1
        hand = hands[turn]
        legal = lpm(hand, lead, hi)
        if policy is None:
            n = legal.bit_count()
            if n > 1:
                r = int(rnd() * n)  # type: ignore[misc]
                while r:
                    legal &= legal - 1
                    r -= 1
            card = (legal & -legal).bit_length() - 1
        else:
            pos.leader = leader
            pos.turn = turn
            pos.lead_suit = lead
            pos.hi_trump = hi
            pos.win_seat = win_seat
            pos.win_card = win_card
            pos.ex_seat = ex_seat
            pos.n_tricks = nt
            pos.played = played
            pos.taker_half = half
            pos.taker_pile = pile
            pos.taker_tricks = tt
            pos.petit_at = petit_at
            pos.petit_sign = petit_sign
            card = policy(pos, turn, legal)
            if not (0 <= card < N_CARDS and legal >> card & 1):
                raise ValueError(f"policy chose an illegal card {card!r} for seat {turn}")
        bit = bits[card]
        hands[turn] = hand ^ bit
        played |= bit
        trick.append(card)
        if rec is not None:
            rec.append(card)
        s = suit_of[card]
        if lead < 0 and s != 5:
            lead = s  # R7.4: the first card that is not the Excuse sets the suit
        if (s == lead or s == TRUMP_SUIT) and card > win_card:  # noqa: SIM109 (no tuple build)
            # Trump indices exceed plain ones, so one comparison covers R7.7.
            win_card = card
            win_seat = turn
            if s == TRUMP_SUIT:
                hi = card
        elif s == 5:
            ex_seat = turn
        if len(trick) < 4:
            turn = (turn + 1) & 3
            continue
        # ---- the trick is complete
        a, b, c, d = trick
        trick.clear()
        pts = pts_of[a] + pts_of[b] + pts_of[c] + pts_of[d]
        tmask = bits[a] | bits[b] | bits[c] | bits[d]
        winner = win_seat
        if ex_seat >= 0:
            ex_taker = ex_seat == taker
            pts -= _EXCUSE_HALF
            tmask ^= EXCUSE_BIT
            if nt < 17:
                # R8.1: the Excuse stays with its team; half a point to the trick's winners.
                if ex_taker:
                    half += _EXCUSE_HALF
                    pile |= EXCUSE_BIT
                if ex_taker != (winner == taker):
                    half += 1 if winner == taker else -1
            elif a == EXCUSE and (tt == 17 if leader == taker else tt == 0):
                # R8.3: a team that won the first 17 tricks leads the Excuse and wins the last.
                winner = leader
                excuse_slam = True
                if ex_taker:
                    half += _EXCUSE_HALF
                    pile |= EXCUSE_BIT
            elif not ex_taker:
                # R8.2: in the last trick the Excuse goes to the other team.
                half += _EXCUSE_HALF
                pile |= EXCUSE_BIT
            ex_seat = -1
        if winner == taker:
            half += pts
            pile |= tmask
            tt += 1
        if petit_at < 0 and played & PETIT_BIT:
            petit_at = nt
            petit_sign = 1 if winner == taker else -1
        nt += 1
        leader = turn = winner
        lead = -1
        hi = NO_TRUMP
        win_seat = win_card = -1
    pos.leader = leader
    pos.turn = turn
    pos.lead_suit = lead
    pos.hi_trump = hi
    pos.win_seat = win_seat
    pos.win_card = win_card
    pos.ex_seat = ex_seat
    pos.n_tricks = nt
    pos.played = played
    pos.taker_half = half
    pos.taker_pile = pile
    pos.taker_tricks = tt
    pos.petit_at = petit_at
    pos.petit_sign = petit_sign
    pos.excuse_slam = excuse_slam


def _remaining(pos: Position) -> int:
    h = pos.hands
    return (h[0] | h[1] | h[2] | h[3]).bit_count()


def rollout(
    pos: Position,
    rng: random.Random | None = None,
    policy: Policy | None = None,
    *,
    inplace: bool = False,
    record: list[int] | None = None,
) -> Outcome:
    """Play ``pos`` to the end of the deal and return its :class:`Outcome`.

    Without ``policy`` every card is uniformly random among the legal ones, drawn from ``rng``
    (required then). With ``policy``, ``policy(position, seat, legal_mask)`` picks every card
    and ``rng`` is unused. ``pos`` is left untouched unless ``inplace`` (saves a copy).
    ``record``, if given, receives the cards played, in order."""
    if policy is None and rng is None:
        raise ValueError("a random rollout needs an rng")
    p = pos if inplace else pos.copy()
    _advance(p, _remaining(p), rng.random if rng is not None else None, policy, record)
    return _outcome(p)


def play_card(pos: Position, card: int) -> None:
    """Play ``card`` for the seat to play, in place. Raises ValueError if it is illegal."""
    if _remaining(pos) == 0:
        raise ValueError("the card play is over")
    _advance(pos, 1, None, lambda _p, _s, _l: card, None)


def position_from_state(
    st: DealState,
    hands: Sequence[int] | None = None,
    *,
    stash: int | None = None,
) -> Position:
    """The :class:`Position` of a deal in its play phase (or over).

    ``hands`` and ``stash`` let a searcher substitute a sampled world for the hidden cards:
    the four current hands, and the discard (``prise``/``garde``) or chien (``garde_sans``)
    that counts for the taker. Everything else (tricks, trick in progress, poignées) is
    public and taken from ``st``. Poignées not yet declared are not anticipated."""
    if st.phase not in (PLAY, OVER) or st.taker < 0:
        raise ValueError(f"no card play in this deal (phase {st.phase!r})")
    c = count(st)
    real_stash = st.discard if st.contract <= GARDE else st.chien
    if st.contract == GARDE_CONTRE:
        real_stash = 0
    pile, half = c.taker_pile, c.taker_half
    if stash is not None and st.contract != GARDE_CONTRE:
        pile = (pile & ~real_stash) | stash
        half += half_points(stash) - half_points(real_stash)
    p = Position.__new__(Position)
    hs = st.hands if hands is None else hands
    p.hands = [hs[0], hs[1], hs[2], hs[3]]
    p.taker = st.taker
    p.contract = st.contract
    p.chelem = bool(st.chelem)
    p.poignee_half = sum(_POIGNEE_HALF[m.bit_count()] for m in st.poignees if m)
    p.leader = st.trick_leader
    p.turn = st.turn
    p.trick = list(st.trick)
    p.lead_suit = st.lead_suit
    p.hi_trump = st.hi_trump
    p.win_seat = p.win_card = p.ex_seat = -1
    for i, card in enumerate(st.trick):
        seat = (st.trick_leader + i) % 4
        s = SUIT_OF[card]
        if card == EXCUSE:
            p.ex_seat = seat
        elif (s == st.lead_suit or s == TRUMP_SUIT) and card > p.win_card:
            p.win_card, p.win_seat = card, seat
    p.n_tricks = len(st.tricks)
    played = 0
    for _, cards, _ in st.tricks:
        for card in cards:
            played |= 1 << card
    for card in st.trick:
        played |= 1 << card
    p.played = played
    p.taker_half = half
    p.taker_pile = pile
    p.taker_tricks = c.taker_tricks
    p.petit_at, p.petit_sign = -1, 0
    for i, (_, cards, winner) in enumerate(st.tricks):
        if PETIT in cards:
            p.petit_at, p.petit_sign = i, (1 if winner == st.taker else -1)
    p.excuse_slam = c.excuse_slam
    return p


# ---------------------------------------------------------------------------- random deals


class DealResult(NamedTuple):
    """A deal's result in half points, as :class:`scoring.Score` gives it."""

    reason: str  # "" when played, else "petit_sec" or "all_passed" (R3)
    taker: int = -1
    contract: int = 0
    chelem: bool = False
    taker_half: int = 0
    oudlers: int = 0
    taker_tricks: int = 0
    petit: int = 0  # +1/-1/0 as in Outcome
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
    n = mask.bit_count()
    for _ in range(k):
        r = int(rnd() * n)
        m = mask
        while r:
            m &= m - 1
            r -= 1
        low = m & -m
        out |= low
        mask ^= low
        n -= 1
    return out


def _random_poignee(hand: int, extra: int, rnd: Callable[[], float], chance: float) -> int:
    """A random valid poignée for a seat holding ``hand`` (``extra``: discarded trumps it may
    also show under R6.6), or 0. Mirrors :func:`randplay.random_from_legal`'s choices."""
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
    uniformly random among the legal ones (bids, discard, card) or with the given chances;
    score the deal exactly as :func:`scoring.score`. ``trace``, if given, receives the deal
    and its actions (its cost is paid only then)."""
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
    if (
        is_petit_sec(hands[0])
        or is_petit_sec(hands[1])
        or is_petit_sec(hands[2])
        or is_petit_sec(hands[3])
    ):
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
    discard = 0
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
        stash = chien if contract == GARDE_SANS else 0
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
            poignee_half += _POIGNEE_HALF[m.bit_count()]

    pos = Position.start(
        hands, taker, contract, leader, stash=stash, chelem=announce, poignee_half=poignee_half
    )
    if acts is None:
        _advance(pos, 72, rnd, None, None)
    else:
        plays: list[int] = []
        _advance(pos, 72, rnd, None, plays)
        for i, card in enumerate(plays):
            seat = next(s for s in range(4) if hands[s] >> card & 1)
            if i < 4 and shown[seat]:
                # R6.3: declared at the seat's turn in the first trick, before its card.
                acts.append(Poignee(seat, tuple(codes_of(shown[seat]))))
            acts.append(Play(seat, CODES[card]))
    out = _outcome(pos)
    return DealResult(
        "",
        taker,
        contract,
        announce,
        out.taker_half,
        out.oudlers,
        out.taker_tricks,
        out.petit,
        poignee_half,
        per_defender_half(
            contract,
            announce,
            poignee_half,
            out.taker_half,
            out.oudlers,
            out.taker_tricks,
            out.petit,
        ),
    )

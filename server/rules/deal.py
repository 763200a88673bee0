"""The deal state machine: dealing, bidding, chien and discard, chelem, poignées, play (R2–R8).

``DealState`` is immutable by convention: :func:`apply` copies it and changes the copy, so an
illegal action leaves the caller's state untouched and old states stay valid (the table's
events, undo, tests). Card sets are int bitmasks (see :mod:`cards`).

The card play itself is not written here: from the chelem decision on, a state holds a
:class:`core.Position` (``pos``), and a card is played by copying that position and playing
the card on the copy (:meth:`core.Position.play`). This module checks the action first and
explains a refusal with its rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from .actions import (
    CONTRACT_INDEX,
    CONTRACTS,
    GARDE,
    PASS,
    Action,
    Bid,
    Chelem,
    Discard,
    IllegalAction,
    Play,
    Poignee,
)
from .cards import (
    ABOVE,
    CODES,
    DISCARDABLE_TRUMPS_MASK,
    EXCUSE_BIT,
    FULL_DECK,
    KINGS_MASK,
    N_CARDS,
    NO_TRUMP,
    OUDLERS_MASK,
    PETIT_BIT,
    PLAIN_SUITS_MASK,
    SUIT_MASKS,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    UnknownCard,
    codes_of,
    mask_of,
    parse,
)
from .core import POIGNEE_BONUS, Position, legal_play_mask

if TYPE_CHECKING:
    import random

BIDDING, DISCARD, CHELEM, PLAY, OVER = "bidding", "discard", "chelem", "play", "over"

POIGNEE_SIZES = (10, 13, 15)
POIGNEE_LEVELS = ("single", "double", "triple")

__all__ = [
    "BIDDING",
    "CHELEM",
    "DISCARD",
    "OVER",
    "PLAY",
    "POIGNEE_BONUS",
    "POIGNEE_LEVELS",
    "POIGNEE_SIZES",
    "DealState",
    "DiscardRule",
    "Legal",
    "PoigneeOption",
    "apply",
    "check_discard",
    "check_poignee",
    "deal_from_codes",
    "deal_from_masks",
    "discard_rule",
    "is_petit_sec",
    "legal_actions",
    "legal_play_mask",
    "new_deal",
    "poignee_default",
    "poignee_options",
    "shuffled_masks",
    "trump_discard_exception",
]


class DealState:
    """One deal at one moment. Treat as immutable; use :func:`apply` to move on.

    ``pos`` is the card play (:class:`core.Position`), from the chelem decision on (None
    before); ``trick``, ``tricks``, ``lead_suit``, ``hi_trump`` and ``trick_leader`` read it.
    ``hands`` and ``turn`` are kept here as well, for every phase."""

    __slots__ = (
        "actions",
        "best",
        "bids",
        "chelem",
        "chien",
        "contract",
        "dealer",
        "discard",
        "hands",
        "initial_hands",
        "n_actions",
        "phase",
        "poignees",
        "pos",
        "reason",
        "taker",
        "turn",
    )

    dealer: int
    initial_hands: tuple[int, int, int, int]
    chien: int
    hands: tuple[int, ...]
    phase: str
    turn: int
    bids: tuple[int, ...]  # contract index spoken by each seat, in speaking order
    best: int  # highest contract index bid so far (0 = none)
    taker: int  # -1 until bidding ends with a taker
    contract: int
    discard: int  # the taker's discard (prise/garde)
    chelem: bool | None  # taker's decision, None until taken
    poignees: tuple[int, int, int, int]  # shown cards per seat, 0 = none
    pos: Position | None  # the card play, from the chelem decision on; never changed in place
    actions: Applied | None  # the applied actions, newest first (a linked list)
    n_actions: int
    reason: str  # annulment reason

    def _copy(self) -> DealState:  # replaced below by a generated, 10x faster version
        new = DealState.__new__(DealState)
        for name in DealState.__slots__:
            object.__setattr__(new, name, getattr(self, name))
        return new

    # -- the card play, read from the position ---------------------------------------------
    @property
    def trick_leader(self) -> int:
        pos = self.pos
        return (self.dealer + 1) % 4 if pos is None else pos.leader

    @property
    def trick(self) -> tuple[int, ...]:
        """Cards of the trick in progress, in play order."""
        pos = self.pos
        return () if pos is None else pos.trick

    @property
    def tricks(self) -> tuple[tuple[int, tuple[int, ...], int], ...]:
        """Completed tricks: ``(leader, cards, winner)``."""
        pos = self.pos
        return () if pos is None else pos.tricks

    @property
    def lead_suit(self) -> int:
        """Suit of the trick in progress, -1 while unset (R7.4)."""
        pos = self.pos
        return -1 if pos is None else pos.lead

    @property
    def hi_trump(self) -> int:
        """Highest trump in the trick in progress, NO_TRUMP when none."""
        pos = self.pos
        return NO_TRUMP if pos is None or pos.hi < 0 else pos.hi

    # -- convenient read-only accessors ---------------------------------------------------
    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def annulled(self) -> bool:
        return self.phase == OVER and self.reason != ""

    def action_list(self) -> list[Action]:
        out: list[Action] = []
        node = self.actions
        while node is not None:
            out.append(node.action)
            node = node.prev
        out.reverse()
        return out

    def hand_codes(self, seat: int) -> list[str]:
        return codes_of(self.hands[seat])

    def has_played_first_trick(self, seat: int) -> bool:
        pos = self.pos
        if pos is None:
            return False
        if pos.n_tricks:
            return True
        return (seat - pos.leader) % 4 < len(pos.trick)

    def __repr__(self) -> str:
        return (
            f"DealState(phase={self.phase!r}, turn={self.turn}, taker={self.taker}, "
            f"contract={CONTRACTS[self.contract]}, tricks={len(self.tricks)}, actions={self.n_actions})"
        )


def _compile_copy() -> Any:
    """A copier with one plain assignment per slot: apply() copies the state at every action,
    and the generic getattr/setattr loop was half of replay's time. Generated from __slots__
    so that it can never miss a field."""
    body = "".join(f"    new.{name} = self.{name}\n" for name in DealState.__slots__)
    src = f"def _copy(self):\n    new = _new(DealState)\n{body}    return new\n"
    namespace: dict[str, Any] = {"_new": DealState.__new__, "DealState": DealState}
    exec(src, namespace)
    return namespace["_copy"]


DealState._copy = _compile_copy()  # type: ignore[method-assign]


# ---------------------------------------------------------------------------- dealing


def is_petit_sec(hand: int) -> bool:
    """R3.1: the Petit as the only trump, and no Excuse."""
    return bool(hand & PETIT_BIT) and (hand & TRUMP_MASK) == PETIT_BIT and not hand & EXCUSE_BIT


def deal_from_masks(dealer: int, hands: Sequence[int], chien: int) -> DealState:
    """Start a deal from explicit card sets (tests, replay). Validates the card set (R1.1, R2.2)."""
    if dealer not in (0, 1, 2, 3) or isinstance(dealer, bool):
        raise ValueError("R2.1: dealer must be a seat 0..3")
    if len(hands) != 4:
        raise ValueError("R2.2: four hands are needed")
    seen = 0
    for s, h in enumerate(hands):
        if h.bit_count() != 18:
            raise ValueError(f"R2.2: hand {s} must hold 18 cards, not {h.bit_count()}")
        if h & seen:
            raise ValueError("R1.1: a card is dealt twice")
        seen |= h
    if chien.bit_count() != 6:
        raise ValueError(f"R2.2: the chien must hold 6 cards, not {chien.bit_count()}")
    if chien & seen or (seen | chien) != FULL_DECK:
        raise ValueError("R1.1: hands and chien must hold the 78 cards, each once")
    st = DealState.__new__(DealState)
    st.dealer = dealer
    st.initial_hands = (hands[0], hands[1], hands[2], hands[3])
    st.chien = chien
    st.hands = st.initial_hands
    st.turn = (dealer + 1) % 4
    st.bids = ()
    st.best = PASS
    st.taker = -1
    st.contract = PASS
    st.discard = 0
    st.chelem = None
    st.poignees = (0, 0, 0, 0)
    st.pos = None
    st.actions = None
    st.n_actions = 0
    st.reason = ""
    st.phase = BIDDING
    if any(is_petit_sec(h) for h in st.hands):
        st.phase = OVER
        st.reason = "petit_sec"
    return st


def deal_from_codes(dealer: int, hands: Sequence[Sequence[str]], chien: Sequence[str]) -> DealState:
    """Start a deal from card codes. Raises ValueError (or UnknownCard) on a bad card set."""
    masks = []
    for h in hands:
        m = mask_of(h)
        if m.bit_count() != len(h):
            raise ValueError("R1.1: a card is dealt twice")
        masks.append(m)
    c = mask_of(chien)
    if c.bit_count() != len(chien):
        raise ValueError("R1.1: a card is dealt twice")
    return deal_from_masks(dealer, masks, c)


def shuffled_masks(rng: random.Random) -> tuple[list[int], int]:
    import random  # here, not at the top: replay never deals (lighter start-up)

    deck = list(range(N_CARDS))
    if isinstance(rng, random.SystemRandom):
        _shuffle_from_bytes(deck, rng.randbytes(8 * (N_CARDS - 1)))
    else:  # a seeded Random: its own shuffle, so that a seed deals what it always dealt
        rng.shuffle(deck)
    hands = []
    for s in range(4):
        m = 0
        for c in deck[18 * s : 18 * s + 18]:
            m |= 1 << c
        hands.append(m)
    chien = 0
    for c in deck[72:]:
        chien |= 1 << c
    return hands, chien


def _shuffle_from_bytes(deck: list[int], data: bytes) -> None:
    """Fisher-Yates with 8 random bytes per swap, all read at once: a server deals with the OS's
    random source, and ``SystemRandom.shuffle`` read it once per card (77 reads, 5 % of the event
    loop's time when many deals start together). Taking 64 random bits modulo at most 78 is
    biased by under 78 / 2**64, far below anything a player could ever observe."""
    for i in range(len(deck) - 1, 0, -1):
        k = 8 * (len(deck) - 1 - i)
        j = int.from_bytes(data[k : k + 8], "little") % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]


def new_deal(seed: int | random.Random | None = None, dealer: int = 0) -> DealState:
    """A shuffled deal. ``seed`` (an int or a Random) makes it reproducible."""
    import random  # here, not at the top: replay never deals (lighter start-up)

    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    hands, chien = shuffled_masks(rng)
    return deal_from_masks(dealer, hands, chien)


# ---------------------------------------------------------------------------- legality


def plain_cards(hand: int) -> int:
    """R5.3 "plain": non-trump cards that are not kings (the Excuse is not plain)."""
    return hand & PLAIN_SUITS_MASK & ~KINGS_MASK


def discard_rule(hand: int) -> tuple[int, int]:
    """(required, choices) for a 24-card hand: the discard holds all of ``required`` and the
    rest from ``choices`` (R5.2, R5.3)."""
    plain = plain_cards(hand)
    if plain.bit_count() >= 6:
        return 0, plain
    return plain, hand & DISCARDABLE_TRUMPS_MASK


def check_discard(hand: int, cards: int, n_given: int) -> None:
    if n_given != 6 or cards.bit_count() != 6:
        raise IllegalAction("R5.1", "the taker must discard exactly six different cards")
    if cards & ~hand:
        raise IllegalAction(
            "R5.1", f"cannot discard {', '.join(codes_of(cards & ~hand))}: not in hand"
        )
    bad = cards & (KINGS_MASK | OUDLERS_MASK)
    if bad:
        raise IllegalAction(
            "R5.2", f"kings and oudlers may never be discarded ({', '.join(codes_of(bad))})"
        )
    required, choices = discard_rule(hand)
    if plain_cards(hand).bit_count() >= 6:  # not `required == 0`: also true with no plain card
        trumps = cards & TRUMP_MASK
        if trumps:
            raise IllegalAction(
                "R5.3",
                f"no trump may be discarded while six plain cards are available ({', '.join(codes_of(trumps))})",
            )
        return
    missing = required & ~cards
    if missing:
        raise IllegalAction(
            "R5.3",
            f"with fewer than six plain cards every plain card must be discarded (missing {', '.join(codes_of(missing))})",
        )
    if cards & ~(required | choices):
        raise IllegalAction("R5.3", "only plain cards and trumps T2..T20 may complete the discard")


def forced_trump_exception(st: DealState) -> bool:
    """R6.6: the taker's 24-card hand held the four kings and at least 15 trumps, and trumps
    had to be discarded."""
    if st.taker < 0:
        return False
    return trump_discard_exception(st.initial_hands[st.taker] | st.chien, st.discard)


def trump_discard_exception(full: int, discard: int) -> bool:
    """R6.6 on card sets: ``full`` is the taker's 24-card hand, ``discard`` the discard."""
    if not (discard & TRUMP_MASK):
        return False
    return (full & KINGS_MASK) == KINGS_MASK and (full & TRUMP_MASK).bit_count() >= 15


def poignee_pool(st: DealState, seat: int, size: int) -> int:
    """Trumps that may be shown by ``seat`` at ``size`` (hand trumps, plus discarded trumps under R6.6)."""
    pool = st.hands[seat] & TRUMP_MASK
    if size == 15 and seat == st.taker and forced_trump_exception(st):
        pool |= st.discard & TRUMP_MASK
    return pool


# Default sets keep the Petit and the 21 hidden when they can: they are the cards worth hiding.
_DEFAULT_ORDER = [56 + n for n in range(1, 20)] + [56, 76]


def poignee_default(pool: int, has_excuse: bool, size: int) -> int | None:
    n = pool.bit_count()
    if n >= size:
        m = 0
        k = 0
        for c in _DEFAULT_ORDER:
            if pool >> c & 1:
                m |= 1 << c
                k += 1
                if k == size:
                    return m
    if n == size - 1 and has_excuse:
        return pool | EXCUSE_BIT
    return None


def check_poignee(st: DealState, seat: int, cards: int, n_given: int) -> int:
    """Validate a poignée (R6.3–R6.6); returns its size."""
    size = cards.bit_count()
    if size != n_given or size not in POIGNEE_SIZES:
        raise IllegalAction("R6.4", "a poignée shows exactly 10, 13 or 15 different cards")
    pool = poignee_pool(st, seat, size)
    hand = st.hands[seat]
    allowed = pool | (hand & EXCUSE_BIT)
    if cards & ~allowed:
        raise IllegalAction(
            "R6.4",
            f"a poignée shows only trumps from the hand ({', '.join(codes_of(cards & ~allowed))})",
        )
    if cards & EXCUSE_BIT and (cards & TRUMP_MASK) != pool:
        raise IllegalAction(
            "R6.4", "the Excuse may stand in for a trump only when every trump is shown"
        )
    return size


class PoigneeOption(msgspec.Struct, frozen=True):
    level: str
    size: int
    bonus: int
    default: tuple[str, ...]
    eligible: tuple[str, ...]  # every card that may be part of a set at this level


class DiscardRule(msgspec.Struct, frozen=True):
    count: int
    required: tuple[str, ...]  # must all be in the discard
    choices: tuple[str, ...]  # the rest of the discard comes from these


class Legal(msgspec.Struct, frozen=True):
    """Everything the seat to act may do now. Exactly one of the groups is non-empty."""

    seat: int
    phase: str
    bids: tuple[str, ...] = ()
    discard: DiscardRule | None = None
    chelem: bool = False  # a chelem decision (announce true or false) is due
    poignees: tuple[PoigneeOption, ...] = ()
    plays: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        return not (self.bids or self.discard or self.chelem or self.poignees or self.plays)


def poignee_options(st: DealState, seat: int) -> tuple[PoigneeOption, ...]:
    if st.phase != PLAY or st.poignees[seat] or st.has_played_first_trick(seat):
        return ()
    opts = []
    has_ex = bool(st.hands[seat] & EXCUSE_BIT)
    for level, size in zip(POIGNEE_LEVELS, POIGNEE_SIZES, strict=True):
        pool = poignee_pool(st, seat, size)
        default = poignee_default(pool, has_ex, size)
        if default is None:
            continue
        eligible = pool | (EXCUSE_BIT if has_ex and pool.bit_count() == size - 1 else 0)
        opts.append(
            PoigneeOption(
                level,
                size,
                POIGNEE_BONUS[size],
                tuple(codes_of(default)),
                tuple(codes_of(eligible)),
            )
        )
    return tuple(opts)


def legal_actions(st: DealState) -> Legal | None:
    """What the seat to act may do now; None once the deal is over."""
    phase = st.phase
    seat = st.turn
    if phase == PLAY:
        pos = st.pos
        assert pos is not None
        mask = legal_play_mask(st.hands[seat], pos.lead, pos.hi)
        return Legal(seat, phase, plays=tuple(codes_of(mask)), poignees=poignee_options(st, seat))
    if phase == BIDDING:
        return Legal(seat, phase, bids=("pass", *CONTRACTS[st.best + 1 :]))
    if phase == DISCARD:
        required, choices = discard_rule(st.hands[seat])
        return Legal(
            seat, phase, discard=DiscardRule(6, tuple(codes_of(required)), tuple(codes_of(choices)))
        )
    if phase == CHELEM:
        return Legal(seat, phase, chelem=True)
    return None


# ---------------------------------------------------------------------------- applying


def _describe_play_error(hand: int, lead: int, hi: int, card: int) -> IllegalAction:
    """Why ``card`` may not be played from ``hand`` into a trick of suit ``lead`` whose highest
    trump is ``hi`` (the card is not in :func:`legal_play_mask`)."""
    code = CODES[card]
    if lead != TRUMP_SUIT and lead >= 0 and hand & SUIT_MASKS[lead]:
        return IllegalAction("R7.5", f"must follow {'SHDC'[lead]} ({code} does not)")
    trumps = hand & TRUMP_MASK
    over = trumps & ABOVE[hi]
    if over and SUIT_OF[card] == TRUMP_SUIT:
        return IllegalAction(
            "R7.6",
            f"must overtrump {CODES[hi]} with {' or '.join(codes_of(over))} (not {code})",
        )
    if lead == TRUMP_SUIT:
        return IllegalAction("R7.5", f"must play a trump ({code} is not one)")
    return IllegalAction(
        "R7.5", f"cannot follow {'SHDC'[lead]}: must play a trump ({code} is not one)"
    )


class Applied(msgspec.Struct, frozen=True, gc=False):
    """A cell of :attr:`DealState.actions`: an applied action and the cell before it.

    Not tracked by the garbage collector (``gc=False``): the cells cannot form a cycle (each
    points to an older one), and they live as long as their deal. As tuples they were the
    largest kind of object in the server's young generation when it was collected (a third of
    75,000 objects at 1,000 tables, bench/load.py), and each survivor counted towards the next
    collection; every collection paused the event loop for 30-80 ms."""

    action: Action
    prev: Applied | None


def _push(st: DealState, action: Action) -> None:
    st.actions = Applied(action, st.actions)
    st.n_actions += 1


def apply(st: DealState, action: Action) -> DealState:
    """The state after ``action``. Raises :class:`IllegalAction` (state unchanged) when the
    rules forbid it. Events for clients are derived from states by :mod:`views`."""
    phase = st.phase
    if phase == OVER:
        raise IllegalAction("R7.1", "the deal is over")
    seat = action.seat
    if seat != st.turn:
        if type(action) is Poignee and phase == PLAY:
            raise IllegalAction(
                "R6.3", f"a poignée is declared at the seat's own turn (seat {st.turn} is to act)"
            )
        raise IllegalAction("R2.3", f"seat {st.turn} is to act, not seat {seat}")
    if type(action) is Play:
        if phase != PLAY:
            raise _phase_error(st, "play")
        return _play(st, action)
    if type(action) is Bid:
        if phase != BIDDING:
            raise _phase_error(st, "bid")
        return _bid(st, action)
    if type(action) is Discard:
        if phase != DISCARD:
            raise _phase_error(st, "discard")
        return _discard(st, action)
    if type(action) is Chelem:
        if phase != CHELEM:
            raise _phase_error(st, "chelem")
        new = st._copy()
        new.chelem = announce = bool(action.announce)
        new.phase = PLAY
        # R6.2 / R7.2: the taker leads after announcing a chelem.
        new.turn = st.taker if announce else (st.dealer + 1) % 4
        # R9.1: the discard (prise, garde) or the chien (garde sans) counts for the taker.
        stash = st.discard if st.contract <= GARDE else st.chien
        new.pos = Position.start(
            st.hands, st.taker, st.contract, new.turn, stash=stash, chelem=announce
        )
        _push(new, action)
        return new
    if type(action) is Poignee:
        if phase != PLAY:
            raise _phase_error(st, "poignee")
        if st.poignees[seat]:
            raise IllegalAction("R6.3", "at most one poignée per player")
        if st.has_played_first_trick(seat):
            raise IllegalAction("R6.3", "a poignée is declared before the player's first card")
        try:
            cards = mask_of(action.cards)
        except UnknownCard as e:
            raise IllegalAction("R1.2", str(e).removeprefix("R1.2: ")) from None
        size = check_poignee(st, seat, cards, len(action.cards))
        new = st._copy()
        p = list(st.poignees)
        p[seat] = cards
        new.poignees = (p[0], p[1], p[2], p[3])
        pos = st.pos.copy()  # type: ignore[union-attr]
        pos.poignee_half += 2 * POIGNEE_BONUS[size]
        new.pos = pos
        _push(new, action)
        return new
    raise IllegalAction("R1.2", f"unknown action {action!r}")


_EXPECTED = {
    BIDDING: "a bid",
    DISCARD: "the taker's discard",
    CHELEM: "the taker's chelem decision",
    PLAY: "a card",
}
_RULE_OF_PHASE = {BIDDING: "R4.1", DISCARD: "R5.1", CHELEM: "R6.1", PLAY: "R7.1"}


def _phase_error(st: DealState, what: str) -> IllegalAction:
    return IllegalAction(
        _RULE_OF_PHASE[st.phase], f"no {what} now: waiting for {_EXPECTED[st.phase]}"
    )


def _bid(st: DealState, action: Bid) -> DealState:
    level = CONTRACT_INDEX.get(action.contract)
    if level is None:
        raise IllegalAction("R4.2", f"unknown contract {action.contract!r}")
    if level != PASS and level <= st.best:
        raise IllegalAction(
            "R4.2", f"a bid must be higher than {CONTRACTS[st.best]} (not {action.contract})"
        )
    new = st._copy()
    new.bids = (*st.bids, level)
    _push(new, action)
    if level != PASS:
        new.best = level
        new.taker = action.seat
    if len(new.bids) < 4:
        new.turn = (st.turn + 1) % 4
        return new
    if new.best == PASS:
        new.phase = OVER
        new.reason = "all_passed"
        return new
    new.contract = new.best
    new.turn = new.taker
    if new.contract <= GARDE:
        hands = list(new.hands)
        hands[new.taker] |= new.chien
        new.hands = tuple(hands)
        new.phase = DISCARD
    else:
        new.phase = CHELEM
    return new


def _discard(st: DealState, action: Discard) -> DealState:
    try:
        cards = mask_of(action.cards)
    except UnknownCard as e:
        raise IllegalAction("R1.2", str(e).removeprefix("R1.2: ")) from None
    hand = st.hands[st.taker]
    check_discard(hand, cards, len(action.cards))
    new = st._copy()
    hands = list(st.hands)
    hands[st.taker] = hand & ~cards
    new.hands = tuple(hands)
    new.discard = cards
    new.phase = CHELEM
    _push(new, action)
    return new


def _play(st: DealState, action: Play) -> DealState:
    try:
        card = parse(action.card)
    except UnknownCard as e:
        raise IllegalAction("R1.2", str(e).removeprefix("R1.2: ")) from None
    seat = st.turn
    hand = st.hands[seat]
    bit = 1 << card
    if not hand & bit:
        raise IllegalAction("R7.1", f"{action.card} is not in seat {seat}'s hand")
    old = st.pos
    assert old is not None
    if not legal_play_mask(hand, old.lead, old.hi) & bit:
        raise _describe_play_error(hand, old.lead, old.hi, card)
    new = st._copy()
    pos = old.copy()
    pos.play(card)
    new.pos = pos
    h = pos.hands
    new.hands = (h[0], h[1], h[2], h[3])
    new.turn = pos.turn
    _push(new, action)
    if pos.n_tricks == 18:
        new.phase = OVER
    return new

"""The one implementation of the card play (R7, R8) and of the scoring (R9, R10).

Modelled on python-chess's ``Board``: one mutable :class:`Position` on int bitmasks that every
user of the rules plays on, with the friendly APIs built on top:

* the public engine (:func:`deal.apply`, immutable ``DealState``) copies the position of a state
  and plays the card on the copy, so old states stay valid;
* replay (:mod:`records`) plays a record's cards on one position, validated on bitmasks;
* the AI (:mod:`server.ai.kernel` is a thin adapter) searches with :meth:`Position.push` and
  :meth:`Position.pop`, or copies and finishes a position with :meth:`Position.play`;
* random deals and rollouts for tests and benchmarks (:mod:`randplay`).

:meth:`Position.play` is the only place where a card is added to a trick and a trick is won,
where the Excuse goes (R8), where the taker's pile and points are counted (R9.1) and where the
petit au bout and the slam are noticed; :func:`score_parts` is the only place where R10 is
written. Points are integer half points (R1.5 Reading).

While it plays, the position also records what the play reveals about the hands (``voids``):
a seat that does not follow lacks the suit, one that neither follows nor trumps has no trump,
one that plays under the highest trump of the trick has none above it (R7.5, R7.6). These are
public facts, which the bots read instead of inferring them in a loop of their own.
"""

from __future__ import annotations

from typing import Any

from .actions import CONTRACTS, GARDE_CONTRE, MULTIPLIERS
from .cards import (
    ABOVE,
    CODES,
    EXCUSE,
    EXCUSE_BIT,
    HALF_POINTS,
    N_CARDS,
    OUDLERS_MASK,
    PETIT_BIT,
    SUIT_MASKS,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
    half_points,
)

__all__ = [
    "POIGNEE_BONUS",
    "TARGETS_HALF",
    "Position",
    "legal_play_mask",
    "score_parts",
]

TARGETS_HALF = (112, 102, 82, 72)  # R9.2: 0..3 oudlers -> 56, 51, 41, 36 points, in half points
POIGNEE_BONUS = {10: 20, 13: 30, 15: 40}  # R6.3, R10.3: cards shown -> points (not multiplied)

_BIT: tuple[int, ...] = tuple(1 << c for c in range(N_CARDS))
_EXCUSE_HALF = HALF_POINTS[EXCUSE]
# What a card that neither follows nor trumps reveals, by led suit: no card of it, no trump.
_NO_FOLLOW = (*(SUIT_MASKS[s] | TRUMP_MASK for s in range(4)), TRUMP_MASK)


def legal_play_mask(hand: int, lead: int, hi: int) -> int:
    """Cards of ``hand`` that may be played into a trick (R7.3–R7.6). ``lead`` is the suit of
    the trick (-1 while unset, R7.4), ``hi`` its highest trump (-1 or ``cards.NO_TRUMP``: none)."""
    if lead < 0:
        return hand
    ex = hand & EXCUSE_BIT
    if lead != TRUMP_SUIT:
        follow = hand & SUIT_MASKS[lead]
        if follow:
            return follow | ex
    trumps = hand & TRUMP_MASK
    if trumps:
        return (trumps & ABOVE[hi] or trumps) | ex
    return hand


def score_parts(
    contract: int,
    chelem: bool,
    poignee_half: int,
    taker_half: int,
    oudlers: int,
    taker_tricks: int,
    petit: int,
) -> tuple[int, bool, int, int, int, int]:
    """R9.2, R9.3 and R10, per defender from the taker's side, in half points:
    ``(target, won, base, petit_au_bout, poignee, chelem)``; the amount is the sum of the last
    four (R10.5). ``poignee_half`` is the unsigned total of the declared poignées; ``petit`` is
    +1 / -1 / 0 as the taker's team, the defence or nobody has the petit au bout."""
    mult = MULTIPLIERS[contract]
    target = TARGETS_HALF[oudlers]
    diff = taker_half - target
    won = diff >= 0
    # R10.1: (25 + |points - target|) x multiplier; 25 points = 50 halves.
    base = (50 + diff) * mult if won else (diff - 50) * mult
    # R10.2: 10 x multiplier to the team that has the petit au bout.
    petit_half = 20 * mult * petit
    # R10.3: every poignée goes to the team that wins the contract.
    poignee = poignee_half if won else -poignee_half
    # R10.4
    if chelem:
        slam = 800 if taker_tricks == 18 else -400
    elif taker_tricks == 18:
        slam = 400
    elif taker_tricks == 0:
        slam = -400
    else:
        slam = 0
    return target, won, base, petit_half, poignee, slam


class Position:
    """The card play of one deal, mutated in place (see the module doc).

    Read freely, change only through :meth:`play`, :meth:`push` and :meth:`pop`:

    * ``hands``: list of the four seats' current hands (card masks). A bot may put *possible*
      holdings there (overlapping sets) to reason on; it then does not play on the position.
    * ``taker``, ``contract`` (1..4, :data:`actions.CONTRACTS`), ``mult`` (its multiplier),
      ``chelem`` (announced), ``poignee_half`` (total of the declared poignées, unsigned).
    * ``leader``, ``turn``: who led the trick in progress, who plays next.
    * ``trick``: the cards of the trick in progress in play order (a tuple); ``lead`` its suit
      (-1 unset, R7.4), ``hi`` its highest trump (-1 none), ``win_card``/``win_pos`` the card
      winning it so far and its place in ``trick`` (-1: none yet, e.g. only the Excuse).
    * ``tricks``: the completed tricks, ``(leader, cards, winner)`` each; ``n_tricks`` their
      number; ``played``: every card played, the trick in progress included.
    * ``taker_pile``: the cards R9.1 counts for the taker so far (discard or chien included),
      ``taker_half`` their points with R8.1's half points applied, ``taker_tricks``.
    * ``petit_trick``/``petit_winner``: the completed trick holding T1 and its winner (-1 before);
      ``ex_slam``: R8.3 applied to the last trick.
    * ``voids``: per seat, cards the play has shown it cannot hold (see the module doc);
      ``taker_led``: bit ``s`` set once the taker has led plain suit ``s``.
    """

    __slots__ = (
        "_undo",
        "chelem",
        "contract",
        "ex_slam",
        "hands",
        "hi",
        "lead",
        "leader",
        "mult",
        "n_tricks",
        "petit_trick",
        "petit_winner",
        "played",
        "poignee_half",
        "taker",
        "taker_half",
        "taker_led",
        "taker_pile",
        "taker_tricks",
        "trick",
        "tricks",
        "turn",
        "voids",
        "win_card",
        "win_pos",
    )

    hands: list[int]
    taker: int
    contract: int
    mult: int
    chelem: bool
    poignee_half: int
    leader: int
    turn: int
    trick: tuple[int, ...]
    lead: int
    hi: int
    win_card: int
    win_pos: int
    tricks: tuple[tuple[int, tuple[int, ...], int], ...]
    n_tricks: int
    played: int
    taker_pile: int
    taker_half: int
    taker_tricks: int
    petit_trick: int
    petit_winner: int
    ex_slam: bool
    voids: list[int]
    taker_led: int
    _undo: Any  # cons list (snapshot, older) of what push() saved, newest first

    @classmethod
    def start(
        cls,
        hands: Any,
        taker: int,
        contract: int,
        leader: int,
        *,
        stash: int = 0,
        chelem: bool = False,
        poignee_half: int = 0,
    ) -> Any:
        """The position before the first card. ``hands``: the four hands (the taker's after the
        discard); ``stash``: the discard (``prise``/``garde``) or the chien (``garde_sans``),
        which count for the taker (R9.1; ignored for ``garde_contre``); ``leader``:
        ``(dealer + 1) % 4``, or the taker after announcing a chelem (R7.2)."""
        p = cls.__new__(cls)
        p.hands = [hands[0], hands[1], hands[2], hands[3]]
        p.taker = taker
        p.contract = contract
        p.mult = MULTIPLIERS[contract]
        p.chelem = chelem
        p.poignee_half = poignee_half
        p.leader = p.turn = leader
        p.trick = ()
        p.lead = p.hi = p.win_card = p.win_pos = -1
        p.tricks = ()
        p.n_tricks = 0
        p.played = 0
        if contract == GARDE_CONTRE:
            stash = 0
        p.taker_pile = stash
        p.taker_half = half_points(stash)
        p.taker_tricks = 0
        p.petit_trick = p.petit_winner = -1
        p.ex_slam = False
        p.voids = [0, 0, 0, 0]
        p.taker_led = 0
        p._undo = None
        return p

    def copy(self, cls: type | None = None) -> Any:  # replaced below by a generated version
        """An independent copy (pushed cards can still be popped from it), of the same class
        unless ``cls`` (a subclass adding no fields) is given."""
        raise NotImplementedError

    # -- playing ---------------------------------------------------------------------------

    def legal(self) -> int:
        """Mask of the cards the seat to play may play (R7.3–R7.6)."""
        return legal_play_mask(self.hands[self.turn], self.lead, self.hi)

    def play(self, card: int) -> None:
        """Play ``card`` for ``turn`` and, with the fourth card, settle the trick (R7.7, R8, R9.1).
        The card is not checked (use :meth:`legal` first): searches play millions of them."""
        seat = self.turn
        self.hands[seat] &= ~_BIT[card]
        self.played |= _BIT[card]
        trick = self.trick
        n = len(trick)
        self.trick = trick = (*trick, card)
        s = SUIT_OF[card]
        if s != 5:  # the Excuse changes nothing in the trick (R7.3, R7.4)
            lead = self.lead
            if lead < 0:
                # R7.4: the first card that is not the Excuse sets the suit, and wins so far.
                self.lead = s
                self.win_card = card
                self.win_pos = n
                if s == TRUMP_SUIT:
                    self.hi = card
                elif n == 0 and seat == self.taker:
                    self.taker_led |= 1 << s
            elif s == TRUMP_SUIT:
                if lead != TRUMP_SUIT:
                    self.voids[seat] |= SUIT_MASKS[lead]  # trumping: cannot follow (R7.5)
                if card > self.hi:
                    # R7.7: the highest trump wins (trump indices are above every plain card).
                    self.hi = self.win_card = card
                    self.win_pos = n
                else:
                    self.voids[seat] |= ABOVE[self.hi]  # could not overtrump (R7.6)
            elif s == lead:
                if card > self.win_card:
                    self.win_card = card
                    self.win_pos = n
            else:
                self.voids[seat] |= _NO_FOLLOW[lead]  # neither followed nor trumped (R7.5)
        if n < 3:
            self.turn = (seat + 1) & 3
            return
        # ---- the trick is complete
        leader = self.leader
        taker = self.taker
        nt = self.n_tricks
        winner = (leader + self.win_pos) & 3
        a, b, c, d = trick
        pts = HALF_POINTS[a] + HALF_POINTS[b] + HALF_POINTS[c] + HALF_POINTS[d]
        cards = _BIT[a] | _BIT[b] | _BIT[c] | _BIT[d]
        if cards & EXCUSE_BIT:
            ex_taker = (leader + trick.index(EXCUSE)) & 3 == taker
            pts -= _EXCUSE_HALF
            cards ^= EXCUSE_BIT
            if nt < 17:
                # R8.1: the Excuse stays with its team; half a point goes to the trick's winners.
                if ex_taker:
                    self.taker_half += _EXCUSE_HALF
                    self.taker_pile |= EXCUSE_BIT
                if ex_taker != (winner == taker):
                    self.taker_half += 1 if winner == taker else -1
            elif a == EXCUSE and self.taker_tricks == (17 if leader == taker else 0):
                # R8.3: a team that won the first 17 tricks leads the Excuse and wins the last.
                winner = leader
                self.ex_slam = True
                if ex_taker:
                    self.taker_half += _EXCUSE_HALF
                    self.taker_pile |= EXCUSE_BIT
            elif not ex_taker:
                # R8.2: in the last trick the Excuse goes to the team opposing its player.
                self.taker_half += _EXCUSE_HALF
                self.taker_pile |= EXCUSE_BIT
        if winner == taker:
            self.taker_half += pts
            self.taker_pile |= cards
            self.taker_tricks += 1
        if cards & PETIT_BIT:
            self.petit_trick = nt
            self.petit_winner = winner
        self.tricks = (*self.tricks, (leader, trick, winner))
        self.n_tricks = nt + 1
        self.trick = ()
        self.lead = self.hi = self.win_card = self.win_pos = -1
        self.leader = self.turn = winner

    def push(self, card: int) -> None:
        """:meth:`play`, undoable by :meth:`pop` (for searches)."""
        seat = self.turn
        self._undo = (
            (
                card,
                seat,
                self.voids[seat],
                self.trick,
                self.lead,
                self.hi,
                self.win_card,
                self.win_pos,
                self.played,
                self.taker_led,
                self.tricks,
                self.leader,
                self.taker_pile,
                self.taker_half,
                self.taker_tricks,
                self.petit_trick,
                self.petit_winner,
                self.ex_slam,
            ),
            self._undo,
        )
        self.play(card)

    def pop(self) -> int:
        """Undo the last :meth:`push` (the position is then exactly as before it); returns the card."""
        if self._undo is None:
            raise IndexError("pop from a position with no pushed card")
        saved, self._undo = self._undo
        (
            card,
            seat,
            self.voids[seat],
            self.trick,
            self.lead,
            self.hi,
            self.win_card,
            self.win_pos,
            self.played,
            self.taker_led,
            self.tricks,
            self.leader,
            self.taker_pile,
            self.taker_half,
            self.taker_tricks,
            self.petit_trick,
            self.petit_winner,
            self.ex_slam,
        ) = saved
        self.hands[seat] |= _BIT[card]
        self.turn = seat
        self.n_tricks = len(self.tricks)
        return card

    # -- results ---------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.n_tricks == 18

    def oudlers(self) -> int:
        """Oudlers in the taker's pile (R9.2)."""
        return (self.taker_pile & OUDLERS_MASK).bit_count()

    def petit_au_bout(self) -> int:
        """R10.2 once the play is over: +1 the taker's team, -1 the defence, 0 nobody. The last
        trick is looked at, or the one before when the Excuse won the last (R8.3)."""
        if self.petit_trick != (16 if self.ex_slam else 17):
            return 0
        return 1 if self.petit_winner == self.taker else -1

    def parts(self) -> tuple[int, bool, int, int, int, int]:
        """:func:`score_parts` of the finished play."""
        return score_parts(
            self.contract,
            self.chelem,
            self.poignee_half,
            self.taker_half,
            self.oudlers(),
            self.taker_tricks,
            self.petit_au_bout(),
        )

    def score_half(self) -> int:
        """Per-defender amount (R10.5), half points, taker's side: the taker scores three times
        it, each defender minus it. Only meaningful once the play is over."""
        _, _, base, petit, poignee, slam = self.parts()
        return base + petit + poignee + slam

    def __eq__(self, other: object) -> bool:
        """Same position: every field equal, whatever was pushed to reach it (the undo history
        is not compared)."""
        if not isinstance(other, Position):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _STATE_FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"Position(taker={self.taker}, contract={CONTRACTS[self.contract]}, "
            f"tricks={self.n_tricks}, trick={[CODES[c] for c in self.trick]}, turn={self.turn}, "
            f"taker_half={self.taker_half})"
        )


_STATE_FIELDS = tuple(f for f in Position.__slots__ if f != "_undo")


def _compile_copy() -> Any:
    """``Position.copy``: one plain assignment per slot (a search copies positions by the
    million), generated from ``__slots__`` so that it can never miss a field. The subclass of
    the copied position is kept (the AI's adapter adds methods, no fields)."""
    lines = []
    for name in Position.__slots__:
        if name in ("hands", "voids"):
            lines.append(f"    new.{name} = self.{name}[:]\n")
        else:
            lines.append(f"    new.{name} = self.{name}\n")
    src = (
        "def copy(self, cls=None):\n"
        "    new = _new(self.__class__ if cls is None else cls)\n"
        + "".join(lines)
        + "    return new\n"
    )
    namespace: dict[str, Any] = {"_new": object.__new__}
    exec(src, namespace)
    fn = namespace["copy"]
    fn.__doc__ = Position.copy.__doc__
    return fn


Position.copy = _compile_copy()  # type: ignore[method-assign]

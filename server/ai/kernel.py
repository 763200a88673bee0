"""A small, fast bitmask play kernel for AI search: the play phase of a deal (R7, R8) and its
scoring (R9, R10) without msgspec actions, strings or history.

``Pos`` is mutable (search copies it with :meth:`Pos.copy`). Card sets are the int bitmasks of
:mod:`server.rules.cards`. The engine stays the authority: tests replay kernel playouts through
:func:`server.rules.apply` and compare the scores.

``Pos.hands`` may also hold *possible* holdings (overlapping sets) when the heuristic policy
reasons about an imperfectly known position; :meth:`Pos.play` is then never called.
"""

from __future__ import annotations

from server.rules.cards import (
    EXCUSE,
    EXCUSE_BIT,
    HALF_POINTS,
    OUDLERS_MASK,
    PETIT,
    SUIT_OF,
    TRUMP_SUIT,
)
from server.rules.deal import legal_play_mask
from server.rules.scoring import TARGETS_HALF

OBJECTIVES = ("score", "margin")


# R7.3–R7.6 on masks: the engine's own function (``hi`` -1 means no trump: ABOVE[-1] is every trump).
legal_mask = legal_play_mask


class Pos:
    """A play-phase position. ``turn`` acts next; the trick in progress is ``trick`` (cards in
    play order from ``leader``); ``win_pos``/``win_card`` its current best card (-1: none yet)."""

    __slots__ = (
        "chelem",
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
        "taker_oud",
        "taker_tricks",
        "trick",
        "trick_half",
        "turn",
        "win_card",
        "win_pos",
    )

    hands: list[int]
    taker: int
    turn: int
    leader: int
    trick: list[int]
    lead: int
    hi: int
    win_card: int
    win_pos: int
    trick_half: int
    played: int
    n_tricks: int
    taker_half: int
    taker_oud: int
    taker_tricks: int
    taker_led: int
    mult: int
    chelem: bool
    poignee_half: int
    petit_trick: int
    petit_winner: int
    ex_slam: bool

    def copy(self) -> Pos:
        new = Pos.__new__(Pos)
        new.hands = self.hands[:]
        new.trick = self.trick[:]
        new.taker = self.taker
        new.turn = self.turn
        new.leader = self.leader
        new.lead = self.lead
        new.hi = self.hi
        new.win_card = self.win_card
        new.win_pos = self.win_pos
        new.trick_half = self.trick_half
        new.played = self.played
        new.n_tricks = self.n_tricks
        new.taker_half = self.taker_half
        new.taker_oud = self.taker_oud
        new.taker_tricks = self.taker_tricks
        new.taker_led = self.taker_led
        new.mult = self.mult
        new.chelem = self.chelem
        new.poignee_half = self.poignee_half
        new.petit_trick = self.petit_trick
        new.petit_winner = self.petit_winner
        new.ex_slam = self.ex_slam
        return new

    def legal(self) -> int:
        return legal_mask(self.hands[self.turn], self.lead, self.hi)

    def play(self, card: int) -> None:
        """Play ``card`` for ``turn`` (assumed legal) and close the trick when it is complete."""
        seat = self.turn
        bit = 1 << card
        self.hands[seat] &= ~bit
        self.played |= bit
        trick = self.trick
        pos = len(trick)
        trick.append(card)
        if card != EXCUSE:
            s = SUIT_OF[card]
            w = self.win_card
            if self.lead < 0:
                self.lead = s
                if pos == 0 and seat == self.taker and s != TRUMP_SUIT:
                    self.taker_led |= 1 << s
            if s == TRUMP_SUIT:
                if card > self.hi:
                    self.hi = card
                if w < 0 or card > w or SUIT_OF[w] != TRUMP_SUIT:
                    self.win_card = card
                    self.win_pos = pos
            elif w < 0 or (s == SUIT_OF[w] and card > w):
                self.win_card = card
                self.win_pos = pos
            self.trick_half += HALF_POINTS[card]
        if pos < 3:
            self.turn = (seat + 1) & 3
            return
        self._close()

    def _close(self) -> None:
        trick = self.trick
        leader = self.leader
        taker = self.taker
        idx = self.n_tricks
        winner = (leader + self.win_pos) & 3
        ex_pos = trick.index(EXCUSE) if EXCUSE in trick else -1
        if idx == 17 and ex_pos == 0:
            lt = leader == taker
            if (lt and self.taker_tricks == 17) or (not lt and self.taker_tricks == 0):
                winner = leader  # R8.3
                self.ex_slam = True
        taker_wins = winner == taker
        cards_mask = 0
        for c in trick:
            if c != EXCUSE:
                cards_mask |= 1 << c
        half = self.trick_half
        if taker_wins:
            self.taker_half += half
            self.taker_oud |= cards_mask & OUDLERS_MASK
            self.taker_tricks += 1
        if ex_pos >= 0:
            ex_taker = (leader + ex_pos) & 3 == taker
            if idx < 17:
                # R8.1: the Excuse stays with its team; half a point goes to the trick's winners.
                if ex_taker:
                    self.taker_half += 9
                    self.taker_oud |= EXCUSE_BIT
                    if not taker_wins:
                        self.taker_half -= 1
                elif taker_wins:
                    self.taker_half += 1
            elif self.ex_slam:
                if ex_taker:
                    self.taker_half += 9
                    self.taker_oud |= EXCUSE_BIT
            elif not ex_taker:
                # R8.2: in the last trick the Excuse goes to the other team.
                self.taker_half += 9
                self.taker_oud |= EXCUSE_BIT
        if cards_mask >> PETIT & 1:
            self.petit_trick = idx
            self.petit_winner = winner
        self.n_tricks = idx + 1
        self.trick = []
        self.lead = -1
        self.hi = -1
        self.win_card = -1
        self.win_pos = -1
        self.trick_half = 0
        self.leader = winner
        self.turn = winner

    # -- results ---------------------------------------------------------------------------
    def score_half(self) -> int:
        """Per-defender amount from the taker's side, in half points (R10.5), once 18 tricks
        are done."""
        target = TARGETS_HALF[self.taker_oud.bit_count()]
        diff = self.taker_half - target
        won = diff >= 0
        mult = self.mult
        total = (50 + (diff if won else -diff)) * mult
        if not won:
            total = -total
        idx = 16 if self.ex_slam else 17
        if self.petit_trick == idx:
            total += 20 * mult if self.petit_winner == self.taker else -20 * mult
        total += self.poignee_half if won else -self.poignee_half
        tt = self.taker_tricks
        if self.chelem:
            total += 800 if tt == 18 else -400
        elif tt == 18:
            total += 400
        elif tt == 0:
            total -= 400
        return total

    def margin_half(self) -> int:
        """Card points above the target (half points), with petit au bout as points."""
        m = self.taker_half - TARGETS_HALF[self.taker_oud.bit_count()]
        idx = 16 if self.ex_slam else 17
        if self.petit_trick == idx:
            m += 20 if self.petit_winner == self.taker else -20
        return m

    def value(self, objective: str) -> int:
        return self.score_half() if objective == "score" else self.margin_half()


def new_pos(
    hands: list[int],
    taker: int,
    leader: int,
    mult: int,
    taker_pile: int = 0,
    chelem: bool = False,
    poignee_half: int = 0,
) -> Pos:
    """A position at the first card. ``taker_pile`` is what the taker owns before play: the
    discard (prise, garde) or the chien (garde sans); nothing for garde contre."""
    p = Pos.__new__(Pos)
    p.hands = list(hands)
    p.taker = taker
    p.turn = leader
    p.leader = leader
    p.trick = []
    p.lead = -1
    p.hi = -1
    p.win_card = -1
    p.win_pos = -1
    p.trick_half = 0
    p.played = 0
    p.n_tricks = 0
    p.taker_half = sum(HALF_POINTS[c] for c in range(78) if taker_pile >> c & 1)
    p.taker_oud = taker_pile & OUDLERS_MASK
    p.taker_tricks = 0
    p.taker_led = 0
    p.mult = mult
    p.chelem = chelem
    p.poignee_half = poignee_half
    p.petit_trick = -1
    p.petit_winner = -1
    p.ex_slam = False
    return p


def pos_from_state(st) -> Pos:  # type: ignore[no-untyped-def]
    """The kernel position of an engine :class:`DealState` in the play phase (full knowledge:
    tests, benchmarks and tuning only; bots never see a DealState)."""
    from server.rules.actions import GARDE, GARDE_SANS, MULTIPLIERS
    from server.rules.deal import POIGNEE_BONUS

    if st.contract <= GARDE:
        pile = st.discard
    elif st.contract == GARDE_SANS:
        pile = st.chien
    else:
        pile = 0
    poig = 2 * sum(POIGNEE_BONUS[p.bit_count()] for p in st.poignees if p)
    start_leader = st.tricks[0][0] if st.tricks else st.trick_leader
    p = new_pos(
        list(st.hands),
        st.taker,
        start_leader,
        MULTIPLIERS[st.contract],
        pile,
        bool(st.chelem),
        poig,
    )
    # Replay the tricks for the running totals, from the hands as they were before play.
    hands = list(st.hands)
    for leader, cards, _ in st.tricks:
        for i, c in enumerate(cards):
            hands[(leader + i) % 4] |= 1 << c
    for i, c in enumerate(st.trick):
        hands[(st.trick_leader + i) % 4] |= 1 << c
    p.hands = hands
    for _, cards, _ in st.tricks:
        for c in cards:
            p.play(c)
    for c in st.trick:
        p.play(c)
    return p

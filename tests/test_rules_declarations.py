"""R6: the chelem decision and poignées."""

from __future__ import annotations

import pytest
from helpers_rules import assert_illegal, cards, deal, run, trumps

from server.rules import CHELEM, PLAY, Bid, Chelem, Discard, Play, Poignee, apply, legal_actions
from server.rules.cards import codes_of, mask_of
from server.rules.views import events, view

PLAIN_LOW = "S1 S2 S3 S4 S5 S6 S7 S8 S9 S10 H1 H2 H3 H4 H5 H6 H7 H8"


def playing(hands: dict[int, str], contract: str = "garde_sans", announce: bool = False):
    """Seat 0 (dealer 3) takes ``contract`` and decides on the chelem; play starts."""
    st = deal({s: cards(h) for s, h in hands.items()})
    st = run(st, f"{contract} pass pass pass")
    if st.phase != CHELEM:
        rule = legal_actions(st).discard
        need = 6 - len(rule.required)
        st = apply(st, Discard(0, (*rule.required, *rule.choices[:need])))
    return run(st, "chelem" if announce else "nochelem")


# ---------------------------------------------------------------------------- R6.1, R6.2


@pytest.mark.parametrize("contract", ["prise", "garde"])
def test_r6_1_chelem_decision_after_discard(contract: str) -> None:
    """R6.1: with prise/garde the decision comes once the discard is done."""
    st = run(deal(), f"{contract} pass pass pass")
    assert_illegal(st, Chelem(0, False), "R5.1")
    rule = legal_actions(st).discard
    st = apply(st, Discard(0, rule.choices[:6]))
    assert st.phase == CHELEM and st.turn == 0
    assert legal_actions(st).chelem is True


@pytest.mark.parametrize("contract", ["garde_sans", "garde_contre"])
def test_r6_1_chelem_decision_right_after_bidding(contract: str) -> None:
    """R6.1: garde sans/contre go straight to the decision; only the taker decides; it is an
    explicit action (no card may be played before it), taken once."""
    st = run(deal(dealer=0), f"pass {contract} pass pass")
    assert st.phase == CHELEM and st.turn == 2 and st.taker == 2
    legal = legal_actions(st)
    assert legal.seat == 2 and legal.chelem and not legal.plays
    assert_illegal(st, Chelem(1, True), "R2.3")
    assert_illegal(st, Chelem(3, False), "R2.3")
    assert_illegal(st, Play(2, st.hand_codes(2)[0]), "R6.1")
    st2 = apply(st, Chelem(2, False))
    assert st2.phase == PLAY and st2.chelem is False
    assert_illegal(st2, Chelem(st2.turn, True), "R7.1")


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_r6_2_announced_chelem_taker_leads(dealer: int) -> None:
    """R6.2 / R7.2: after an announced chelem the taker leads; otherwise (dealer+1) % 4."""
    taker = (dealer + 2) % 4
    script = " ".join("garde_sans" if (dealer + 1 + i) % 4 == taker else "pass" for i in range(4))
    st = run(deal(dealer=dealer), script)
    yes = apply(st, Chelem(taker, True))
    assert yes.chelem is True and yes.turn == taker == yes.trick_leader
    no = apply(st, Chelem(taker, False))
    assert no.chelem is False and no.turn == (dealer + 1) % 4 == no.trick_leader


# ---------------------------------------------------------------------------- R6.3 – R6.5

TEN = " ".join(trumps(2, 11))  # exactly ten trumps


def test_r6_3_single_double_triple_sizes_and_bonus() -> None:
    """R6.3: 10 → 20, 13 → 30, 15 → 40; a player with 15 trumps is offered all three (R6.5)."""
    st = playing({1: " ".join(trumps(2, 16)) + " S1 S2 S3"})
    st = run(st, st.hand_codes(0)[0])  # seat 0 leads
    opts = legal_actions(st).poignees
    assert [(o.level, o.size, o.bonus) for o in opts] == [
        ("single", 10, 20),
        ("double", 13, 30),
        ("triple", 15, 40),
    ]


def test_r6_3_poignee_at_own_turn_before_first_card() -> None:
    """R6.3: declared at the player's turn in the first trick, before its first card; once."""
    st = playing({1: TEN + " S9 S10 H1 H2 H3 H4 H5 H6"})
    # Seat 0 leads; seat 1 may not declare out of turn.
    assert st.turn == 0
    assert_illegal(st, Poignee(1, tuple(trumps(2, 11))), "R6.3")
    st = run(st, st.hand_codes(0)[0])
    assert st.turn == 1
    assert legal_actions(st).poignees
    st2 = apply(st, Poignee(1, tuple(trumps(2, 11))))
    assert st2.turn == 1  # still seat 1's turn to play
    assert not legal_actions(st2).poignees
    assert_illegal(st2, Poignee(1, tuple(trumps(2, 11))), "R6.3")  # at most one
    # Without declaring, after its first card the chance is gone.
    st3 = run(st, legal_actions(st).plays[0])
    while st3.turn != 1:
        st3 = run(st3, legal_actions(st3).plays[0])
    assert st3.tricks and not legal_actions(st3).poignees
    assert_illegal(st3, Poignee(1, tuple(trumps(2, 11))), "R6.3")


def test_r6_3_leader_declares_before_leading() -> None:
    """R6.3: the first leader declares before its first card, and not after it."""
    st = playing({0: TEN + " S9 S10 H1 H2 H3 H4 H5 H6"})
    assert st.turn == 0 and legal_actions(st).poignees
    st2 = apply(st, Poignee(0, tuple(trumps(2, 11))))
    assert st2.poignees[0] == mask_of(trumps(2, 11))
    st3 = run(st, "S9")
    assert_illegal(st3, Poignee(0, tuple(trumps(2, 11))), "R6.3")


def test_r6_3_a_poignee_does_not_end_the_turn_for_the_turn_timer() -> None:
    """R6.3: the poignée is shown before the card of the same turn, so the table's turn timer
    (server.tables.drivers.turn_key) counts it as that turn: showing one buys no time."""
    from server.tables.drivers import turn_key

    st = playing({0: TEN + " S9 S10 H1 H2 H3 H4 H5 H6"})
    st2 = apply(st, Poignee(0, tuple(trumps(2, 11))))
    assert st2 is not st and turn_key(st2) == turn_key(st)
    st3 = run(st2, "S9")  # the card: the next seat's turn, a new one
    assert turn_key(st3) != turn_key(st2)
    st4 = run(st3, legal_actions(st3).plays[0])
    assert len({turn_key(x) for x in (st, st3, st4)}) == 3


def test_r6_3_poignee_only_during_play() -> None:
    """R6.3: no poignée during bidding or before the chelem decision."""
    st = deal({0: TEN + " S9 S10 H1 H2 H3 H4 H5 H6"})
    assert_illegal(st, Poignee(0, tuple(trumps(2, 11))), "R4.1")
    st = run(st, "garde_sans pass pass pass")
    assert_illegal(st, Poignee(0, tuple(trumps(2, 11))), "R6.1")


def test_r6_3_nine_trumps_no_poignee() -> None:
    """R6.3: fewer than ten trumps (and no Excuse) offers nothing and cannot be shown."""
    st = playing({0: " ".join(trumps(2, 10)) + " S9 S10 H1 H2 H3 H4 H5 H6 H7"})
    assert legal_actions(st).poignees == ()
    assert_illegal(st, Poignee(0, (*trumps(2, 10), "S9")), "R6.4")


@pytest.mark.parametrize(
    ("shown", "why"),
    [
        ("T2 T3 T4 T5 T6 T7 T8 T9 T10 S9", "a plain card"),
        ("T2 T3 T4 T5 T6 T7 T8 T9 T10 T12", "a trump not held"),
        ("T2 T3 T4 T5 T6 T7 T8 T9 T10 T11 T12", "eleven cards"),
        ("T2 T3 T4 T5 T6 T7 T8 T9 T10", "nine cards"),
        ("T2 T2 T3 T4 T5 T6 T7 T8 T9 T10", "a repeated card"),
    ],
)
def test_r6_4_shown_cards_are_trumps_of_the_hand(shown: str, why: str) -> None:
    """R6.4: exactly 10/13/15 different trumps from the player's hand."""
    st = playing({0: " ".join(trumps(2, 11)) + " S9 S10 H1 H2 H3 H4 H5 H6"})
    assert_illegal(st, Poignee(0, tuple(cards(shown))), "R6.4")


def test_r6_4_unknown_card_code() -> None:
    st = playing({0: TEN + " S9 S10 H1 H2 H3 H4 H5 H6"})
    assert_illegal(st, Poignee(0, (*trumps(2, 10), "T22")), "R1.2")


def test_r6_4_excuse_stands_in_when_all_trumps_shown() -> None:
    """R6.4: nine trumps and the Excuse make a single, shown all together."""
    st = playing({0: " ".join(trumps(2, 10)) + " EX S9 S10 H1 H2 H3 H4 H5 H6"})
    (opt,) = legal_actions(st).poignees
    assert opt.level == "single"
    assert set(opt.default) == {*trumps(2, 10), "EX"}
    st2 = apply(st, Poignee(0, (*trumps(2, 10), "EX")))
    assert st2.poignees[0] == mask_of([*trumps(2, 10), "EX"])


def test_r6_4_excuse_not_allowed_while_a_trump_is_held_back() -> None:
    """R6.4: with ten trumps and the Excuse, showing nine trumps and the Excuse is refused."""
    st = playing({0: TEN + " EX S9 S10 H1 H2 H3 H4 H5"})
    assert_illegal(st, Poignee(0, (*trumps(2, 10), "EX")), "R6.4")
    (opt,) = legal_actions(st).poignees
    assert "EX" not in opt.default and len(opt.default) == 10
    st2 = apply(st, Poignee(0, tuple(trumps(2, 11))))
    assert st2.poignees[0] == mask_of(trumps(2, 11))


def test_r6_4_excuse_for_a_double() -> None:
    """R6.4: twelve trumps and the Excuse make a double only with every trump shown."""
    twelve = trumps(2, 13)
    st = playing({0: " ".join(twelve) + " EX S9 S10 H1 H2 H3"})
    levels = {o.level: o for o in legal_actions(st).poignees}
    assert set(levels) == {"single", "double"}
    assert set(levels["double"].default) == {*twelve, "EX"}
    assert "EX" not in levels["single"].default
    assert_illegal(st, Poignee(0, (*twelve[:9], "EX")), "R6.4")  # single with the Excuse
    st2 = apply(st, Poignee(0, (*twelve, "EX")))
    assert st2.poignees[0].bit_count() == 13


def test_r6_5_default_sets_and_free_choice() -> None:
    """R6.5: a sorted default per level (keeping T1 and T21 hidden when possible), which the
    player may accept, or any other valid set."""
    hand = ["T1", "T21", *trumps(2, 14), "S9"]  # 15 trumps
    st = playing({0: " ".join(hand)})
    opts = {o.level: o for o in legal_actions(st).poignees}
    assert set(opts) == {"single", "double", "triple"}
    assert list(opts["single"].default) == trumps(2, 11)
    assert list(opts["double"].default) == trumps(2, 14)
    assert list(opts["triple"].default) == ["T1", *trumps(2, 14), "T21"]
    for o in opts.values():
        assert len(o.default) == o.size
        assert list(o.default) == codes_of(mask_of(o.default))  # sorted
    accepted = apply(st, Poignee(0, opts["double"].default))
    assert accepted.poignees[0].bit_count() == 13
    other = ("T1", "T21", *trumps(5, 12))
    chosen = apply(st, Poignee(0, other))
    assert chosen.poignees[0] == mask_of(other)


# ---------------------------------------------------------------------------- R6.6

KINGS = "SK HK DK CK"


def r66_deal():
    """Seat 0's 24 cards: four kings, 17 trumps (T2..T18), three plain cards. It must discard the
    three plain cards and three trumps (R5.3), keeping 14 trumps in hand."""
    st = deal({0: KINGS + " " + " ".join(trumps(2, 15))}, chien="S1 S2 S3 T16 T17 T18")
    return run(st, "garde pass pass pass")


def test_r6_6_triple_counts_discarded_trumps() -> None:
    """R6.6: four kings and at least 15 trumps, trumps discarded publicly: they count for a triple."""
    st = apply(r66_deal(), Discard(0, tuple(cards("S1 S2 S3 T2 T3 T4"))))
    st = run(st, "nochelem")
    assert (st.hands[0] & mask_of(trumps(1, 21))).bit_count() == 14
    assert st.turn == 0  # dealer 3: the taker, seat 0, leads the first trick
    opts = {o.level: o for o in legal_actions(st).poignees}
    assert set(opts) == {"single", "double", "triple"}
    assert {"T2", "T3", "T4"} & set(opts["triple"].eligible) == {"T2", "T3", "T4"}
    # The 14 trumps in hand plus one discarded trump.
    shown = (*trumps(5, 18), "T2")
    st2 = apply(st, Poignee(0, shown))
    assert st2.poignees[0] == mask_of(shown)
    # Default triple is valid too.
    assert apply(st, Poignee(0, opts["triple"].default)).poignees[0].bit_count() == 15
    # The exception is for the triple only: a double may not use a discarded trump.
    assert_illegal(st, Poignee(0, (*trumps(6, 17), "T2")), "R6.4")
    assert not {"T2", "T3", "T4"} & set(opts["double"].eligible)


def test_r6_6_not_without_the_four_kings() -> None:
    """R6.6 needs the four kings: with three kings and the Excuse, discarded trumps never count."""
    # 24 cards: 3 kings, EX, 16 trumps (T2..T17), 4 plain -> discard 4 plain + 2 trumps.
    st = deal({0: "SK HK DK EX " + " ".join(trumps(2, 15))}, chien="S1 S2 S3 H1 T16 T17")
    st = run(st, "garde pass pass pass")
    st = apply(st, Discard(0, tuple(cards("S1 S2 S3 H1 T2 T3"))))
    st = run(st, "nochelem")
    while st.turn != 0:
        st = run(st, legal_actions(st).plays[0])
    # 14 trumps in hand (T4..T17) and the Excuse: a triple only by showing all of them + EX.
    opts = {o.level: o for o in legal_actions(st).poignees}
    assert "T2" not in opts["triple"].eligible
    assert_illegal(st, Poignee(0, (*trumps(4, 17), "T2")), "R6.4")
    assert apply(st, Poignee(0, (*trumps(4, 17), "EX"))).poignees[0].bit_count() == 15


def test_r6_6_not_with_fewer_than_15_trumps() -> None:
    """R6.6 needs at least 15 trumps among the 24 cards (four kings alone are not enough)."""
    # 24 cards: 4 kings, EX, 14 trumps (T2..T15), 5 plain -> discard 5 plain + 1 trump.
    st = deal({0: KINGS + " EX " + " ".join(trumps(2, 14))}, chien="S1 S2 S3 S4 S5 T15")
    st = run(st, "garde pass pass pass")
    st = apply(st, Discard(0, tuple(cards("S1 S2 S3 S4 S5 T2"))))
    st = run(st, "nochelem")
    while st.turn != 0:
        st = run(st, legal_actions(st).plays[0])
    levels = {o.level for o in legal_actions(st).poignees}
    assert levels == {"single", "double"}  # 13 trumps + EX = 14 cards: no triple
    assert_illegal(st, Poignee(0, (*trumps(3, 15), "T2", "EX")), "R6.4")


# ---------------------------------------------------------------------------- R6.7


def test_r6_7_shown_cards_revealed_to_everyone() -> None:
    """R6.7: the poignée's cards are shown to every seat and to spectators."""
    st = playing({0: TEN + " S9 S10 H1 H2 H3 H4 H5 H6"})
    action = Poignee(0, tuple(trumps(2, 11)))
    new = apply(st, action)
    for seat in (0, 1, 2, 3, None):
        (p,) = view(new, seat)["poignees"]
        assert p == {"seat": 0, "level": "single", "cards": trumps(2, 11)}
        (ev,) = events(st, action, new, seat)
        assert ev == {"type": "poignee", "seat": 0, "level": "single", "cards": trumps(2, 11)}


def test_bid_during_play_is_refused() -> None:
    st = playing({})
    assert_illegal(st, Bid(st.turn, "garde_contre"), "R7.1")

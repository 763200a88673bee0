"""R5: the chien and the taker's discard."""

from __future__ import annotations

import pytest
from helpers_rules import assert_illegal, cards, deal, run, trumps

from server.rules import CHELEM, DISCARD, Bid, Chelem, Discard, Play, apply, legal_actions
from server.rules.cards import codes_of, mask_of
from server.rules.views import events, view

# Seat 0 (dealer 3) takes. Its 24 cards: 12 plain + 2 kings + 7 trumps + T21 + EX + 2 more kings.
TAKER = "S1 S2 S3 S4 H1 H2 H3 H4 D1 D2 SK HK T2 T3 T4 T5 T6 T7"
CHIEN = "C1 C2 DK CK T21 EX"


def garde(taker_hand: str = TAKER, chien: str = CHIEN, contract: str = "garde"):
    return run(deal({0: cards(taker_hand)}, chien=cards(chien)), f"{contract} pass pass pass")


def test_r5_1_taker_takes_the_chien() -> None:
    """R5.1: after prise/garde the taker's hand is 24 cards, the chien included."""
    for contract in ("prise", "garde"):
        st = garde(contract=contract)
        assert st.phase == DISCARD and st.turn == 0
        assert st.hands[0].bit_count() == 24
        assert st.hands[0] & st.chien == st.chien


def test_r5_1_chien_is_shown_to_everyone() -> None:
    """R5.1: the chien is turned face up for every seat and spectators."""
    st = garde()
    for seat in (0, 1, 2, 3, None):
        assert view(st, seat)["chien"] == codes_of(mask_of(cards(CHIEN)))
    before = run(deal({0: cards(TAKER)}, chien=cards(CHIEN)), "garde pass pass")
    assert view(before, 1)["chien"] is None  # not during the bidding
    for seat in (0, 1, 2, 3, None):
        evs = events(before, Bid(2, "pass"), st, seat)
        chien_ev = [e for e in evs if e["type"] == "chien"]
        assert chien_ev and chien_ev[0]["cards"] == codes_of(mask_of(cards(CHIEN)))


def test_r5_1_discard_exactly_six_cards() -> None:
    """R5.1: exactly six different cards of the taker's hand; then the hand is 18 again."""
    st = garde()
    assert_illegal(st, Discard(0, tuple(cards("S1 S2 S3 S4 H1"))), "R5.1")
    assert_illegal(st, Discard(0, tuple(cards("S1 S2 S3 S4 H1 H2 H3"))), "R5.1")
    assert_illegal(st, Discard(0, tuple(cards("S1 S1 S2 S3 S4 H1"))), "R5.1")
    assert_illegal(st, Discard(0, tuple(cards("S1 S2 S3 S4 H1 S5"))), "R5.1")  # S5 not held
    assert_illegal(st, Discard(1, tuple(cards("S1 S2 S3 S4 H1 H2"))), "R2.3")
    assert_illegal(st, Play(0, "S1"), "R5.1")
    assert_illegal(st, Chelem(0, False), "R5.1")
    st = apply(st, Discard(0, tuple(cards("S1 S2 S3 S4 H1 C2"))))
    assert st.phase == CHELEM
    assert st.hands[0].bit_count() == 18
    assert st.discard == mask_of(cards("S1 S2 S3 S4 H1 C2"))


def test_r5_1_unknown_card_in_discard() -> None:
    """R1.2: a discard naming no real card is refused."""
    st = garde()
    assert_illegal(st, Discard(0, tuple(cards("S1 S2 S3 S4 H1 X9"))), "R1.2")


@pytest.mark.parametrize("bad", ["SK", "HK", "DK", "CK", "T21", "EX"])
def test_r5_2_no_kings_or_oudlers_in_discard(bad: str) -> None:
    """R5.2: kings and oudlers may never be discarded."""
    st = garde()
    assert_illegal(st, Discard(0, (*cards("S1 S2 S3 S4 H1"), bad)), "R5.2")


def test_r5_2_petit_may_never_be_discarded() -> None:
    """R5.2: the Petit is an oudler, even when trumps must be discarded."""
    st = garde("SK HK DK CK T1 " + " ".join(trumps(2, 14)), "S1 S2 S3 T15 T16 T17")
    assert_illegal(st, Discard(0, tuple(cards("S1 S2 S3 T1 T2 T3"))), "R5.2")


def test_r5_3_no_trump_while_six_plain_cards() -> None:
    """R5.3: with six or more plain cards, all six discarded cards are plain."""
    st = garde()
    assert_illegal(st, Discard(0, tuple(cards("S1 S2 S3 S4 H1 T2"))), "R5.3")
    rule = legal_actions(st).discard
    assert rule is not None and rule.count == 6 and rule.required == ()
    assert set(rule.choices) == set(cards("S1 S2 S3 S4 H1 H2 H3 H4 D1 D2 C1 C2"))


def test_r5_3_queens_and_plain_honours_may_be_discarded() -> None:
    """R5.3: "plain" is every non-trump non-king card, honours included."""
    st = garde("SQ SC SJ H1 H2 H3 H4 D1 D2 SK HK T2 T3 T4 T5 T6 T7 S1", CHIEN)
    st = apply(st, Discard(0, tuple(cards("SQ SC SJ H1 H2 H3"))))
    assert st.phase == CHELEM


def test_r5_3_forced_trump_discard() -> None:
    """R5.3: fewer than six plain cards: all of them plus trumps from T2..T20."""
    # 24 cards: 4 plain (S1 S2 S3 H1), 3 kings, 16 trumps, the Excuse.
    st = garde("SK HK DK EX " + " ".join(trumps(2, 15)), "S1 S2 S3 H1 T16 T17")
    rule = legal_actions(st).discard
    assert rule is not None
    assert set(rule.required) == {"S1", "S2", "S3", "H1"}
    assert set(rule.choices) == set(trumps(2, 17))
    # A plain card missing: refused even if the rest are trumps.
    assert_illegal(st, Discard(0, tuple(cards("S1 S2 S3 T2 T3 T4"))), "R5.3")
    # T21 is an oudler (R5.2); kings likewise.
    assert_illegal(st, Discard(0, tuple(cards("S1 S2 S3 H1 SK T2"))), "R5.2")
    st2 = apply(st, Discard(0, tuple(cards("S1 S2 S3 H1 T9 T17"))))
    assert st2.discard == mask_of(cards("S1 S2 S3 H1 T9 T17"))
    assert st2.phase == CHELEM


def test_r5_3_no_plain_card_at_all() -> None:
    """R5.3: with no plain card (fewer than six: zero), the discard is six trumps from T2..T20.
    The engine once read "nothing required" as "six plain cards available" here, refused every
    trump discard, and the table could not go on."""
    # 24 cards: T1..T18 in hand; T19, T20, T21, the Excuse and two kings in the chien.
    st = garde(" ".join(trumps(1, 18)), "T19 T20 T21 EX SK HK", contract="prise")
    rule = legal_actions(st).discard
    assert rule is not None and rule.required == ()
    assert set(rule.choices) == set(trumps(2, 20))
    assert_illegal(st, Discard(0, tuple(cards("T1 T2 T3 T4 T5 T6"))), "R5.2")  # the Petit
    st2 = apply(st, Discard(0, tuple(cards("T2 T3 T4 T5 T6 T20"))))
    assert st2.discard == mask_of(cards("T2 T3 T4 T5 T6 T20"))


def test_r5_3_exactly_six_plain_cards() -> None:
    """R5.3: exactly six plain cards: they are the discard, no trump."""
    st = garde("SK HK DK CK EX " + " ".join(trumps(2, 14)), "S1 S2 S3 H1 H2 H3")
    rule = legal_actions(st).discard
    assert rule is not None and rule.required == ()
    assert set(rule.choices) == set(cards("S1 S2 S3 H1 H2 H3"))
    assert_illegal(st, Discard(0, tuple(cards("S1 S2 S3 H1 H2 T2"))), "R5.3")


def test_r5_4_discarded_trumps_are_shown_others_hidden() -> None:
    """R5.4: the discard's trumps are public, its other cards stay hidden until the end."""
    before = garde("SK HK DK EX " + " ".join(trumps(2, 15)), "S1 S2 S3 H1 T16 T17")
    action = Discard(0, tuple(cards("S1 S2 S3 H1 T9 T17")))
    st = apply(before, action)
    for seat in (1, 2, 3, None):
        v = view(st, seat)
        assert v["discard"] is None
        assert v["discard_trumps"] == ["T9", "T17"]
        (ev,) = events(before, action, st, seat)
        assert ev["trumps"] == ["T9", "T17"]
        assert "cards" not in ev
        assert "S1" not in repr(ev) and "H1" not in repr(v["discard_trumps"])
    v0 = view(st, 0)
    assert v0["discard"] == codes_of(mask_of(action.cards))
    (ev0,) = events(before, action, st, 0)
    assert ev0["cards"] == codes_of(mask_of(action.cards))


def test_r5_4_no_trump_discard_shows_nothing() -> None:
    """R5.4: a plain discard is entirely hidden from the defenders."""
    before = garde()
    action = Discard(0, tuple(cards("S1 S2 S3 S4 H1 C2")))
    st = apply(before, action)
    for seat in (1, 2, 3, None):
        assert view(st, seat)["discard"] is None
        assert view(st, seat)["discard_trumps"] == []
        (ev,) = events(before, action, st, seat)
        assert ev["trumps"] == [] and "cards" not in ev


@pytest.mark.parametrize("contract", ["garde_sans", "garde_contre"])
def test_r5_6_chien_untouched_and_unseen(contract: str) -> None:
    """R5.6: garde sans / contre: nobody sees or takes the chien; no discard phase."""
    st = garde(contract=contract)
    assert st.phase == CHELEM
    assert st.hands[0].bit_count() == 18
    assert st.hands[0] & st.chien == 0
    assert_illegal(st, Discard(0, tuple(cards("S1 S2 S3 S4 H1 H2"))), "R6.1")
    for seat in (0, 1, 2, 3, None):
        assert view(st, seat)["chien"] is None
    before = run(deal({0: cards(TAKER)}, chien=cards(CHIEN)), f"{contract} pass pass")
    for seat in (0, 1, 2, 3, None):
        evs = events(before, Bid(2, "pass"), st, seat)
        assert not [e for e in evs if e["type"] == "chien"]
        assert "T21" not in repr(evs)
    st = run(st, "nochelem")
    for seat in (0, 1, 2, 3, None):
        assert view(st, seat)["chien"] is None

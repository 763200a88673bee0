"""R1–R4: cards, seats and dealing, annulled deals, bidding."""

from __future__ import annotations

import pytest
from helpers_rules import ALL_CODES, assert_illegal, deal, points, run, snapshot

from server.rules import (
    BIDDING,
    CHELEM,
    DISCARD,
    OVER,
    Bid,
    Chelem,
    IllegalAction,
    Play,
    apply,
    deal_from_codes,
    legal_actions,
    new_deal,
    result_dict,
    score,
)
from server.rules.cards import CODES, parse
from server.rules.records import record_of, replay_line

# ---------------------------------------------------------------------------- R1, R2


def test_r1_deck_codes_and_points() -> None:
    """R1.1, R1.2, R1.5: 78 distinct codes, the documented examples, 91 points."""
    assert len(CODES) == 78 == len(set(CODES))
    for code in ("S1", "H10", "DJ", "CC", "HQ", "SK", "T1", "T21", "EX"):
        assert CODES[parse(code)] == code
    assert points(ALL_CODES) == 91
    assert points(["T1", "T21", "EX", "SK"]) == 18
    assert points(["HQ", "DC", "CJ", "S10", "T5"]) == 3.5 + 2.5 + 1.5 + 0.5 + 0.5


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_r2_3_first_to_act_is_right_of_dealer(dealer: int) -> None:
    """R2.3: all actions of a deal start with (dealer + 1) % 4."""
    st = deal(dealer=dealer)
    assert st.phase == BIDDING
    assert st.turn == (dealer + 1) % 4
    assert legal_actions(st).seat == (dealer + 1) % 4


def test_r2_3_acting_out_of_turn_is_illegal() -> None:
    """R2.3: a seat that is not to act is refused, state unchanged."""
    st = deal(dealer=0)
    assert_illegal(st, Bid(0, "prise"), "R2.3")
    assert_illegal(st, Bid(2, "pass"), "R2.3")


def test_r2_2_hands_of_18_and_chien_of_6() -> None:
    """R2.2: each seat 18 cards, chien 6; a shuffled deal holds the 78 cards once."""
    st = new_deal(7)
    assert [h.bit_count() for h in st.hands] == [18, 18, 18, 18]
    assert st.chien.bit_count() == 6
    union = st.chien
    for h in st.hands:
        assert not union & h
        union |= h
    assert union == (1 << 78) - 1


def test_r2_2_bad_card_sets_are_rejected() -> None:
    """R1.1, R2.2: wrong hand sizes, duplicated or unknown cards cannot start a deal."""
    good = deal()
    hands = [good.hand_codes(s) for s in range(4)]
    from server.rules.cards import codes_of

    chien = codes_of(good.chien)
    with pytest.raises(ValueError):
        deal_from_codes(0, [hands[0][:-1], hands[1], hands[2], hands[3]], chien)
    with pytest.raises(ValueError):
        deal_from_codes(0, [[*hands[0][:-1], hands[1][0]], hands[1], hands[2], hands[3]], chien)
    with pytest.raises(ValueError):
        deal_from_codes(0, [[*hands[0][:-1], "Z9"], hands[1], hands[2], hands[3]], chien)
    with pytest.raises(ValueError):
        deal_from_codes(0, hands, chien[:-1])


# ---------------------------------------------------------------------------- R3


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_r3_1_petit_sec_annuls_the_deal(seat: int) -> None:
    """R3.1: T1 as the only trump and no Excuse annuls the deal right after dealing."""
    plain = [c for c in ALL_CODES if c[0] in "SHDC"][:17]
    st = deal({seat: ["T1", *plain]})
    assert st.phase == OVER
    assert st.reason == "petit_sec"
    assert legal_actions(st) is None
    assert_illegal(st, Bid(st.turn, "prise"), "R7.1")
    assert result_dict(st) == {"status": "annulled", "reason": "petit_sec", "scores": [0, 0, 0, 0]}


@pytest.mark.parametrize(
    "extra",
    [["EX"], ["T2"], ["T21"]],
    ids=["with-excuse", "with-T2", "with-T21"],
)
def test_r3_1_petit_with_excuse_or_another_trump_is_not_sec(extra: list[str]) -> None:
    """R3.1: T1 with the Excuse or with any other trump is a normal deal."""
    plain = [c for c in ALL_CODES if c[0] in "SHDC"][: 17 - len(extra)]
    st = deal({1: ["T1", *extra, *plain]})
    assert st.phase == BIDDING
    assert st.reason == ""


def test_r3_1_petit_in_the_chien_is_not_sec() -> None:
    """R3.1 looks at the players' 18 cards only: T1 alone in the chien annuls nothing."""
    st = deal(chien=["T1", "S1", "S2", "S3", "S4", "S5"])
    assert st.phase == BIDDING


def test_r3_2_all_passed_annuls_the_deal() -> None:
    """R3.2: four passes annul the deal with no score."""
    st = run(deal(dealer=2), "pass pass pass pass")
    assert st.phase == OVER
    assert st.reason == "all_passed"
    assert legal_actions(st) is None
    assert score(st).scores_half() == [0, 0, 0, 0]
    assert result_dict(st) == {
        "status": "annulled",
        "reason": "all_passed",
        "scores": [0, 0, 0, 0],
    }
    assert_illegal(st, Bid(st.turn, "garde"), "R7.1")


@pytest.mark.parametrize("reason", ["petit_sec", "all_passed"])
def test_r3_3_annulled_deals_are_recorded_with_reason(reason: str) -> None:
    """R3.3: an annulled deal still has a record carrying its reason, and that record replays."""
    if reason == "petit_sec":
        plain = [c for c in ALL_CODES if c[0] in "SHDC"][:17]
        st = deal({0: ["T1", *plain]})
        n_actions = 0
    else:
        st = run(deal(), "pass pass pass pass")
        n_actions = 4
    rec = record_of(st)
    assert rec["format"] == "atout-deal/1"
    assert len(rec["actions"]) == n_actions
    assert rec["result"] == {"status": "annulled", "reason": reason, "scores": [0, 0, 0, 0]}
    import json

    ok, res = replay_line(json.dumps(rec))
    assert ok and res == rec["result"]


# ---------------------------------------------------------------------------- R4


def test_r4_1_each_seat_speaks_once_in_order() -> None:
    """R4.1: one round from (dealer+1) % 4; everyone speaks even after a high bid."""
    st = deal(dealer=1)
    seats = []
    for contract in ("pass", "garde", "pass", "pass"):
        seats.append(st.turn)
        assert st.phase == BIDDING
        st = apply(st, Bid(st.turn, contract))
    assert seats == [2, 3, 0, 1]
    assert st.phase == DISCARD
    assert st.taker == 3


def test_r4_1_no_second_round() -> None:
    """R4.1: after the fourth bid, nobody may bid again (not even to raise)."""
    st = run(deal(dealer=3), "prise pass pass pass")
    assert st.phase == DISCARD
    assert_illegal(st, Bid(0, "garde"), "R5.1")
    st = run(deal(dealer=3), "pass pass pass garde_sans")
    assert st.phase == CHELEM
    assert_illegal(st, Bid(3, "garde_contre"), "R6.1")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("prise", "prise"),
        ("garde", "prise"),
        ("garde", "garde"),
        ("garde_sans", "garde"),
        ("garde_contre", "garde_sans"),
        ("garde_contre", "garde_contre"),
    ],
)
def test_r4_2_bid_must_be_strictly_higher(first: str, second: str) -> None:
    """R4.2: a bid equal to or lower than the highest so far is refused."""
    st = run(deal(dealer=3), f"{first}")
    assert_illegal(st, Bid(1, second), "R4.2")  # type: ignore[arg-type]


def test_r4_2_legal_bids_and_pass_always_allowed() -> None:
    """R4.2: the offered bids are pass and every contract above the highest bid."""
    st = deal(dealer=3)
    assert legal_actions(st).bids == ("pass", "prise", "garde", "garde_sans", "garde_contre")
    st = run(st, "garde")
    assert legal_actions(st).bids == ("pass", "garde_sans", "garde_contre")
    st = run(st, "garde_contre")
    assert legal_actions(st).bids == ("pass",)
    st = run(st, "pass")
    assert st.turn == 3


def test_r4_2_unknown_contract() -> None:
    """R4.2: only the four contracts (and pass) exist."""
    st = deal(dealer=3)
    assert_illegal(st, Bid(0, "petite"), "R4.2")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("script", "taker", "contract", "phase"),
    [
        ("prise pass pass pass", 0, 1, DISCARD),
        ("prise garde pass pass", 1, 2, DISCARD),
        ("pass prise garde_sans pass", 2, 3, CHELEM),
        ("prise garde pass garde_contre", 3, 4, CHELEM),
        ("pass pass pass prise", 3, 1, DISCARD),
    ],
)
def test_r4_3_highest_bid_wins(script: str, taker: int, contract: int, phase: str) -> None:
    """R4.3: the highest bidder is the taker, the others defend; the taker acts next."""
    st = run(deal(dealer=3), script)
    assert (st.taker, st.contract, st.phase, st.turn) == (taker, contract, phase, taker)


def test_r4_wrong_action_kind_during_bidding() -> None:
    """R4.1: during the bidding only bids are accepted."""
    st = deal(dealer=3)
    card = st.hand_codes(0)[0]
    assert_illegal(st, Play(0, card), "R4.1")
    assert_illegal(st, Chelem(0, False), "R4.1")


def test_illegal_action_is_a_value_error_with_rule() -> None:
    """IllegalAction carries the rule number and a readable message."""
    st = deal(dealer=3)
    with pytest.raises(IllegalAction) as ei:
        apply(st, Bid(2, "prise"))
    assert ei.value.rule == "R2.3"
    assert str(ei.value).startswith("R2.3: ")
    assert snapshot(st) == snapshot(deal(dealer=3))

"""R7: playing tricks (following, trumping, overtrumping, the Excuse's play, trick winners)."""

from __future__ import annotations

import pytest
from helpers_rules import BASE, assert_illegal, cards, deal, deal_from_tricks, run

from server.rules import OVER, PLAY, Bid, Play, apply, legal_actions
from server.rules.cards import parse
from server.rules.deal import DealState

# A fixed table for trick-level scenarios. Dealer 3, so seat 0 leads; seat 0 takes garde sans.
#   seat 0: spades, hearts HK H2 H3, a few low cards, trumps T21 T15 T12 T8 T3 T2
#   seat 1: void in hearts; trumps T20 T11 T9 and the Excuse
#   seat 2: void in hearts; trumps T19 T13 T7
#   seat 3: hearts, no diamonds, no clubs; trumps T1 T4 T5 T6 T10 T14
HANDS = {
    0: "SK SQ S2 S3 S4 HK H2 H3 D2 D3 C2 C3 T21 T15 T12 T8 T3 T2",
    1: "S5 S6 D4 D5 D6 D7 D8 D9 D10 DJ DC C4 C5 C6 T20 T11 T9 EX",
    2: "S7 S8 S9 S10 DQ DK D1 C7 C8 C9 C10 CJ CC CQ CK T19 T13 T7",
    3: "SJ SC H4 H5 H6 H7 H8 H9 H10 HJ HC HQ T1 T4 T5 T6 T10 T14",
}
CHIEN = "S1 H1 C1 T16 T17 T18"


def table() -> DealState:
    st = deal({s: cards(h) for s, h in HANDS.items()}, chien=cards(CHIEN))
    st = run(st, "garde_sans pass pass pass nochelem")
    assert st.phase == PLAY and st.turn == 0
    return st


def plays(st: DealState) -> set[str]:
    return set(legal_actions(st).plays)


# ---------------------------------------------------------------------------- R7.1, R7.2


def test_r7_1_turn_order_and_winner_leads() -> None:
    """R7.1: the leader, then each seat in turn; the trick's winner leads the next."""
    st = table()
    seats = []
    for card in ("HK", "T20", "T13", "H4"):
        seats.append(st.turn)
        st = apply(st, Play(st.turn, card))
    assert seats == [0, 1, 2, 3]
    (leader, trick, winner) = st.tricks[0]
    assert leader == 0 and winner == 1
    assert trick == tuple(parse(c) for c in ("HK", "T20", "T13", "H4"))
    assert st.turn == 1 == st.trick_leader
    assert st.trick == ()


def test_r7_1_card_must_be_in_hand_and_in_turn() -> None:
    """R7.1: only a card of one's own hand; R2.3: only at one's turn."""
    st = table()
    assert_illegal(st, Play(0, "S5"), "R7.1")  # seat 1's card
    assert_illegal(st, Play(0, "XX"), "R1.2")
    assert_illegal(st, Play(1, "S5"), "R2.3")


def test_r7_1_eighteen_tricks_then_over() -> None:
    """R7.1: 18 tricks end the deal; nothing more can be played."""
    plan = deal_from_tricks(BASE, contract="garde_sans", taker=0)
    st = plan.final()
    assert st.phase == OVER and len(st.tricks) == 18
    assert all(h == 0 for h in st.hands)
    assert legal_actions(st) is None
    assert_illegal(st, Play(0, "T21"), "R7.1")
    assert_illegal(st, Bid(0, "pass"), "R7.1")


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_r7_2_first_trick_led_right_of_dealer(dealer: int) -> None:
    """R7.2: without an announced chelem the first trick is led by (dealer + 1) % 4."""
    taker = (dealer + 3) % 4  # the last to speak takes, so the leader is a defender
    script = " ".join("garde_sans" if (dealer + 1 + i) % 4 == taker else "pass" for i in range(4))
    st = run(deal(dealer=dealer), script + " nochelem")
    assert st.turn == (dealer + 1) % 4 != taker
    card = legal_actions(st).plays[0]
    st = apply(st, Play((dealer + 1) % 4, card))
    assert st.trick_leader == (dealer + 1) % 4


# ---------------------------------------------------------------------------- R7.3 – R7.6


def test_r7_3_excuse_always_playable() -> None:
    """R7.3: the Excuse may be played instead of following, trumping or overtrumping."""
    st = table()
    after_spade = run(st, "SK")
    assert "EX" in plays(after_spade)  # could follow spades
    after_heart = run(st, "HK")
    assert "EX" in plays(after_heart)  # must otherwise trump
    after_trump = run(st, "T12")
    assert plays(after_trump) == {"T20", "EX"}  # must otherwise overtrump
    for s in (after_spade, after_heart, after_trump):
        assert apply(s, Play(1, "EX")).trick[-1] == parse("EX")


def test_r7_4_excuse_led_next_card_sets_the_suit() -> None:
    """R7.4: after the Excuse is led the next player may play anything; that card sets the suit."""
    st = run(table(), "HK T20 T13 H4")  # seat 1 wins with T20 and leads
    assert st.turn == 1
    st = run(st, "EX")
    assert plays(st) == set(cards(HANDS[2])) - {"T13"}  # anything left in seat 2's hand
    # Seat 2 plays a trump while holding spades, diamonds and clubs: trumps are now led.
    trump_led = run(st, "T7")
    assert trump_led.lead_suit == 4
    assert plays(trump_led) == {"T10", "T14"}  # seat 3 must play a trump over T7
    assert_illegal(trump_led, Play(3, "H5"), "R7.5")
    assert_illegal(trump_led, Play(3, "T6"), "R7.6")
    # Or seat 2 plays a spade: seat 3 must follow spades.
    spade_led = run(st, "S7")
    assert plays(spade_led) == {"SJ", "SC"}
    assert_illegal(spade_led, Play(3, "T14"), "R7.5")
    # The Excuse led never wins (R7.7): the spade suit decides.
    done = run(spade_led, "SJ S2")
    assert done.tricks[-1][2] == 3


def test_r7_5_must_follow_suit() -> None:
    """R7.5: a player holding the suit led must play it (a trump or another suit is refused)."""
    st = run(table(), "SK")
    assert plays(st) == {"S5", "S6", "EX"}
    assert_illegal(st, Play(1, "D4"), "R7.5")
    assert_illegal(st, Play(1, "T9"), "R7.5")
    st = run(table(), "HK T20")
    # Seat 3 holds hearts: even its high trump is refused.
    st = run(st, "T19")
    assert_illegal(st, Play(3, "T14"), "R7.5")
    assert plays(st) == set(cards("H4 H5 H6 H7 H8 H9 H10 HJ HC HQ"))


def test_r7_5_must_trump_when_void() -> None:
    """R7.5: void in the suit led, a player holding trumps must play one."""
    st = run(table(), "HK")
    assert plays(st) == {"T20", "T11", "T9", "EX"}
    assert_illegal(st, Play(1, "D4"), "R7.5")
    assert_illegal(st, Play(1, "S5"), "R7.5")
    # Seat 3, void in diamonds, must trump a diamond lead (any trump: none played yet).
    st = run(table(), "D2 D4 D1")
    assert plays(st) == set(cards("T1 T4 T5 T6 T10 T14"))
    assert_illegal(st, Play(3, "H4"), "R7.5")


def test_r7_5_neither_suit_nor_trump_plays_anything() -> None:
    """R7.5: with neither the suit led nor a trump, any card may be played."""
    hands = {
        0: "H2 S1 S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SC SQ SK D1 D2 T2",
        1: "DK CK C1 C2 C3 C4 C5 C6 C7 C8 C9 C10 CJ CC CQ D3 D4 D5",
        2: "H3 H5 H6 H7 H8 H9 H10 HJ HC HQ HK T3 T4 T5 T6 T7 T8 T9",
        3: "H4 H1 D6 D7 D8 D9 D10 DJ DC DQ T10 T11 T12 T13 T14 T15 T16 T17",
    }
    st = deal({s: cards(h) for s, h in hands.items()}, chien="T18 T19 T20 T21 T1 EX")
    st = run(st, "garde_sans pass pass pass nochelem H2")
    assert plays(st) == set(cards(hands[1]))
    st = run(st, "DK")  # a king of another suit, discarded
    st = run(st, "H3 H4")
    assert st.tricks[0][2] == 3  # R7.7: the off-suit king does not win; the best heart does


def test_r7_6_overtrump_when_trumps_led() -> None:
    """R7.6: on a trump lead each player must beat the highest trump if able."""
    st = run(table(), "T12")
    assert_illegal(st, Play(1, "T9"), "R7.6")
    assert_illegal(st, Play(1, "T11"), "R7.6")
    assert_illegal(st, Play(1, "D4"), "R7.5")
    st = run(st, "T20")
    # Seat 2 cannot beat T20: any trump, but still a trump.
    assert plays(st) == {"T19", "T13", "T7"}
    assert_illegal(st, Play(2, "S7"), "R7.5")
    st = run(st, "T7")
    assert plays(st) == set(cards("T1 T4 T5 T6 T10 T14"))


def test_r7_6_undertrump_only_when_unable_to_beat() -> None:
    """R7.6: nobody can beat T21, so any trump is legal, but a trump it must be."""
    st = run(table(), "T21")
    assert plays(st) == {"T20", "T11", "T9", "EX"}
    assert_illegal(st, Play(1, "S5"), "R7.5")


def test_r7_6_overtrumping_a_partner() -> None:
    """R7.6: a defender must overtrump even its partner's trump when able."""
    st = run(table(), "HK T9")  # seat 1 (defender) trumps with T9
    assert plays(st) == {"T13", "T19"}
    assert_illegal(st, Play(2, "T7"), "R7.6")
    assert_illegal(st, Play(2, "C7"), "R7.5")
    st = run(st, "T13 H4")
    assert st.tricks[0][2] == 2


def test_r7_6_cannot_overtrump_must_still_trump() -> None:
    """R7.5/R7.6: void, unable to beat the trump played, a player still plays a (lower) trump."""
    st = run(table(), "HK T20")
    assert plays(st) == {"T19", "T13", "T7"}
    assert_illegal(st, Play(2, "C7"), "R7.5")
    assert apply(st, Play(2, "T7")).trick[-1] == parse("T7")


# ---------------------------------------------------------------------------- R7.7


@pytest.mark.parametrize(
    ("script", "winner"),
    [
        ("SK S5 S7 SJ", 0),  # no trump: the highest spade
        ("S2 S5 S7 SJ", 3),
        ("HK T9 T13 H4", 2),  # the highest trump
        ("HK T20 T19 H4", 1),
        ("D2 D4 DK T1", 3),  # the Petit beats the king of the suit led
        ("T12 T20 T7 T14", 1),
        ("C2 C4 CK T4", 3),
    ],
)
def test_r7_7_trick_winner(script: str, winner: int) -> None:
    """R7.7: highest trump wins; without trumps the highest card of the suit led."""
    st = run(table(), script)
    assert st.tricks[0][2] == winner
    assert st.turn == winner


def test_r7_7_excuse_never_wins() -> None:
    """R7.7: the Excuse played on a trick does not win it, even as the only 'high' card."""
    st = run(table(), "S2 EX S7 SJ")
    assert st.tricks[0][2] == 3


def test_the_log_of_applied_actions_is_kept_in_order_and_out_of_the_collector() -> None:
    """Every state keeps the actions that led to it, oldest first, sharing them with the states
    before it; the cells are never tracked by the garbage collector (they cannot form a cycle,
    and as tracked tuples they were most of what a young collection of a loaded server had to
    scan: server/rules/deal.py ``Applied``)."""
    import gc

    st = table()
    before = st.action_list()
    first = legal_actions(st).plays[0]
    after = apply(st, Play(0, first))
    assert after.action_list() == [*before, Play(0, first)]
    assert st.action_list() == before  # the earlier state is unchanged
    assert after.actions is not None and after.actions.prev is st.actions
    node = after.actions
    while node is not None:
        assert not gc.is_tracked(node)
        node = node.prev

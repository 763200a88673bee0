"""R8–R10: the Excuse, counting and scoring, on complete deals played through the engine.

Every deal here is written trick by trick (see helpers_rules.deal_from_tricks and the BASE, PLAIN
and TRUMPS templates); the engine must accept every action, and the expected numbers are worked
out by hand in each docstring (card points per R1.5, exact halves). Each test also recounts the
taker's pile and the whole result without the engine (helpers_rules.count_record and
recount_result).
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from helpers_rules import (
    BASE,
    PLAIN,
    R10_6_ROWS,
    TRUMPS,
    TRUMPS_POIGNEE,
    Plan,
    count_record,
    deal_from_tricks,
    points,
    recount_result,
    trumps,
    variant,
)

from server.rules import score
from server.rules.cards import EXCUSE_BIT, FULL_DECK, codes_of, mask_of
from server.rules.records import replay_line
from server.rules.scoring import count, result_dict

MULT = {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}
TARGET = {0: 56, 1: 51, 2: 41, 3: 36}


def expected(
    *,
    taker: int = 0,
    contract: str,
    oudlers: int,
    taker_points: float,
    base: float,
    petit: int = 0,
    poignee: int = 0,
    chelem: int = 0,
    announced: bool = False,
) -> dict[str, Any]:
    """The full result object, from the hand-computed parts (R9.2 target, R10.5 totals)."""
    target = TARGET[oudlers]
    won = taker_points >= target
    per = base + petit + poignee + chelem
    per = int(per) if float(per).is_integer() else per
    return {
        "status": "played",
        "taker": taker,
        "contract": contract,
        "multiplier": MULT[contract],
        "chelem_announced": announced,
        "oudlers": oudlers,
        "target": target,
        "taker_points": taker_points,
        "won": won,
        "base": base,
        "petit_au_bout": petit,
        "poignee": poignee,
        "chelem": chelem,
        "per_defender": per,
        "scores": [3 * per if s == taker else -per for s in range(4)],
    }


def check(plan: Plan, want: dict[str, Any]) -> dict[str, Any]:
    """The deal ends, scores as ``want`` (also through its record), and the independent recount
    agrees on the taker's points, the defence's points and the oudlers."""
    st = plan.final()
    assert st.phase == "over"
    assert [w for _, _, w in st.tricks] == plan.winners
    got = result_dict(st)
    assert got == want
    assert sum(got["scores"]) == 0
    assert (
        got["base"]
        == (1 if want["won"] else -1)
        * (25 + abs(Fraction(str(want["taker_points"])) - want["target"]))
        * want["multiplier"]
    )
    rec = plan.record()
    recount = count_record(rec)
    assert recount_result(rec) == want  # the RULES.md formulas, written apart from the engine
    assert recount.taker == Fraction(str(want["taker_points"]))
    assert recount.taker + recount.defence == 91
    assert recount.taker_oudlers == want["oudlers"]
    ok, again = replay_line(json.dumps(rec))
    assert ok and again == want
    return got


# ---------------------------------------------------------------------------- R8.1, R8.4, R9.1


def test_r8_1_defenders_excuse_in_a_taker_trick_gives_half_a_point() -> None:
    """R8.1, R9.1, R10.4: BASE, garde sans. A defender plays the Excuse in trick 5, won by the
    taker: the Excuse stays with the defence (4.5) and 0.5 passes to the taker, who takes every
    other card and the chien: 91 - 4.5 + 0.5 = 87. Oudlers T21 and the captured Petit (R9.2: 2,
    target 41). Base (25 + 46) x 4 = 284; the taker won all 18 tricks unannounced: +200."""
    plan = deal_from_tricks(BASE, contract="garde_sans", taker=0)
    got = check(
        plan,
        expected(contract="garde_sans", oudlers=2, taker_points=87, base=284, chelem=200),
    )
    assert got["per_defender"] == 484
    assert count_record(plan.record()).defence == 4


def test_r8_1_takers_excuse_in_a_lost_trick_costs_half_a_point() -> None:
    """R8.1, R8.4: the taker leads the Excuse in trick 5; seat 3's T17 wins. The taker keeps the
    Excuse but pays 0.5: 91 - (T10 T5 T17 = 1.5) - 0.5 = 89, three oudlers (target 36). That trick
    belongs to the defence, so the taker wins 17 tricks and no chelem. (25 + 53) x 4 = 312."""
    plan = deal_from_tricks(variant(BASE, {5: "EX T10 T5 T17"}), contract="garde_sans", taker=0)
    assert plan.winners[4] == 3
    check(plan, expected(contract="garde_sans", oudlers=3, taker_points=89, base=312))


def test_r8_1_excuse_in_a_trick_won_by_its_own_team_moves_nothing() -> None:
    """R8.1: seat 3 plays the Excuse in trick 7, won by its partner seat 1 (SQ): no half point.
    The taker loses that trick (S6 SQ S7 = 4.5) and the Excuse: 91 - 4.5 - 4.5 = 82 exactly.
    (25 + 41) x 4 = 264, 17 tricks: no chelem."""
    rows = variant(BASE, {5: "T17 T10 T5 S8", 7: "S6 SQ S7 EX"})
    plan = deal_from_tricks(rows, contract="garde_sans", taker=0)
    assert plan.winners[6] == 1
    check(plan, expected(contract="garde_sans", oudlers=2, taker_points=82, base=264))
    assert count_record(plan.record()).defence == 9


def test_r8_4_taker_playing_the_excuse_cannot_win_all_tricks() -> None:
    """R8.4: the taker wins every trick but the one where it played the Excuse: 17 tricks, so
    neither +200 nor an announced chelem is made."""
    rows = variant(BASE, {5: "EX T10 T5 T4", 1: "T21 T14 T9 T17"})
    plan = deal_from_tricks(rows, contract="garde_sans", taker=0, announce=True)
    st = plan.final()
    assert sum(w == 0 for _, _, w in st.tricks) == 17
    assert score(st).chelem_half == -400  # announced, not made: -200
    assert result_dict(st)["chelem"] == -200


# ---------------------------------------------------------------------------- R5.5, R5.6, R9.1


def test_r5_5_the_discard_counts_for_the_taker() -> None:
    """R5.5, R9.1: prise; the taker leads S1 in trick 7 (lost to seat 3's S8) and keeps SQ in
    the discard S2 H1 H2 D1 D2 SQ, which counts for it: 91 - 4.5 + 0.5 - 2 = 85 (the discard
    brings 6 of them). (25 + 44) x 1 = 69."""
    plan = deal_from_tricks(variant(BASE, {7: "S1 S6 S7 S8"}), contract="prise", taker=0)
    assert sorted(plan.discard) == sorted(["S2", "H1", "H2", "D1", "D2", "SQ"])
    assert plan.final().discard.bit_count() == 6
    check(plan, expected(contract="prise", oudlers=2, taker_points=85, base=69))
    assert points(plan.discard) == 6


def test_r5_5_chien_differs_from_discard() -> None:
    """R5.5: the discard, not the chien, is what counts: the chien is S2 H1 H2 D1 D2 T15, the
    taker keeps T15 (played in trick 18) and buries SQ from its own hand instead: 85 again,
    garde: (25 + 44) x 2 = 138."""
    rows = variant(BASE, {7: "S1 S6 S7 S8"})
    plan = deal_from_tricks(rows, contract="garde", taker=0, chien="S2 H1 H2 D1 D2 T15")
    st = plan.final()
    assert st.chien != st.discard
    check(plan, expected(contract="garde", oudlers=2, taker_points=85, base=138))


def test_r5_6_garde_sans_chien_counts_for_the_taker() -> None:
    """R5.6, R9.1: BASE again; its chien (S1 S2 H1 H2 D1 D2, 3 points) is the taker's: 87."""
    plan = deal_from_tricks(BASE, contract="garde_sans", taker=0)
    st = plan.final()
    assert st.discard == 0
    assert result_dict(st)["taker_points"] == 87


def test_r5_6_garde_contre_chien_counts_for_the_defence() -> None:
    """R5.6, R9.1: BASE as garde contre: the chien's 3 points go to the defence: 84.
    (25 + 43) x 6 = 408, +200 for the taker's 18 tricks."""
    plan = deal_from_tricks(BASE, contract="garde_contre", taker=0)
    check(plan, expected(contract="garde_contre", oudlers=2, taker_points=84, base=408, chelem=200))


# ---------------------------------------------------------------------------- R8.2, R8.3


def test_r8_2_defenders_excuse_in_last_trick_goes_to_the_taker() -> None:
    """R8.2: PLAIN, garde sans: seat 3 plays the Excuse in the last trick, won by the taker; it
    goes to the taker: 91 points, three oudlers (target 36). (25 + 55) x 4 = 320, +200."""
    plan = deal_from_tricks(PLAIN, contract="garde_sans", taker=0)
    check(plan, expected(contract="garde_sans", oudlers=3, taker_points=91, base=320, chelem=200))


def test_r8_2_excuse_goes_to_opponents_even_when_own_team_wins() -> None:
    """R8.2: the last trick C10 DJ CJ EX is won by seat 2 (CJ), partner of seat 3 who played the
    Excuse; the Excuse still goes to the taker, and no half point moves. The defence gets
    C10 DJ CJ = 3.5; the taker 87.5, a half (R8.2), three oudlers: (25 + 51.5) x 4 = 306."""
    plan = deal_from_tricks(variant(PLAIN, {18: "C10 DJ CJ EX"}), contract="garde_sans", taker=0)
    assert plan.winners[17] == 2
    got = check(plan, expected(contract="garde_sans", oudlers=3, taker_points=87.5, base=306))
    assert got["taker_points"] == 87.5
    assert json.dumps(got).count("87.5") == 1


def test_r8_2_takers_excuse_in_last_trick_goes_to_the_defence() -> None:
    """R8.2: seat 1 wins trick 17 (CC) and leads DJ to the last; the taker plays the Excuse there:
    it goes to the defence. The taker loses tricks 17 (4) and 18 (DJ C10 CJ, 3.5) and the
    Excuse: 91 - 4 - 3.5 - 4.5 = 79, oudlers T21 and T1 (41). (25 + 38) x 4 = 252."""
    rows = variant(PLAIN, {17: "C7 CC C8 C9", 18: "EX DJ C10 CJ"})
    plan = deal_from_tricks(rows, contract="garde_sans", taker=0)
    assert plan.leaders[17] == 1 and plan.winners[17] == 1
    check(plan, expected(contract="garde_sans", oudlers=2, taker_points=79, base=252))


def test_r8_3_taker_slam_excuse_led_last_and_petit_au_bout_on_trick_17() -> None:
    """R8.3, R10.2, R10.4: announced chelem; the taker wins 17 tricks, the Petit (led) wins
    trick 17, then it leads the Excuse to the last trick: the Excuse wins it and stays with the
    taker. 91 points, three oudlers: (25 + 55) x 4 = 320; petit au bout looked for on trick 17:
    +40; announced chelem made: +400. Total 760."""
    rows = variant(PLAIN, {4: "T18 T11 T6 T15", 17: "T1 C7 C8 C9", 18: "EX DJ C10 CJ"})
    plan = deal_from_tricks(rows, contract="garde_sans", taker=0, announce=True)
    assert plan.winners == [0] * 18
    st = plan.final()
    assert st.tricks[17][0] == 0 and st.tricks[17][2] == 0
    check(
        plan,
        expected(
            contract="garde_sans",
            oudlers=3,
            taker_points=91,
            base=320,
            petit=40,
            chelem=400,
            announced=True,
        ),
    )


def test_r10_2_petit_in_last_trick_ignored_after_excuse_slam() -> None:
    """R10.2: in an R8.3 slam the last trick is not looked at: seat 3's Petit, forced on the
    Excuse lead (void in diamonds), falls in trick 18 and earns nobody anything. 760 - 40 = 720."""
    rows = variant(PLAIN, {4: "T18 T11 T6 T15", 18: "EX DJ C10 T1"})
    plan = deal_from_tricks(rows, contract="garde_sans", taker=0, announce=True)
    check(
        plan,
        expected(
            contract="garde_sans",
            oudlers=3,
            taker_points=91,
            base=320,
            chelem=400,
            announced=True,
        ),
    )


def test_r8_3_excuse_led_last_without_slam_loses() -> None:
    """R8.3 only after 17 won tricks: seat 1 won trick 6 (SK), so the taker's Excuse led to the
    last trick does not win (seat 1's DJ does) and goes to the defence (R8.2).
    91 - 6 - 3.5 - 4.5 = 77, oudlers T21 T1: (25 + 36) x 4 = 244."""
    rows = variant(PLAIN, {6: "S3 SK S4 S5", 18: "EX DJ C10 CJ"})
    plan = deal_from_tricks(rows, contract="garde_sans", taker=0)
    assert plan.winners[17] == 1
    check(plan, expected(contract="garde_sans", oudlers=2, taker_points=77, base=244))


@pytest.mark.parametrize("announce", [False, True])
def test_r8_3_defenders_slam_with_excuse_led_last(announce: bool) -> None:
    """R8.3, R10.4: seat 1 takes a garde contre; the defence (seat 0) wins the first 17 tricks and
    leads the Excuse to the last, which it wins. The taker has nothing: 0 points, 0 oudlers,
    target 56: -(25 + 56) x 6 = -486; the defenders' slam -200, announced or not. -686 per
    defender, taker -2058 (the federation example)."""
    # Seat 3 plays T16 in trick 1: after an announced chelem seat 1 leads T14 there, and T16
    # must overtrump it (R7.6).
    rows = variant(PLAIN, {1: "T21 T14 T9 T16", 5: "T17 T10 T5 T4", 18: "EX DJ C10 CJ"})
    plan = deal_from_tricks(rows, contract="garde_contre", taker=1, announce=announce)
    assert plan.leaders[0] == (1 if announce else 0)
    assert all(w in (0, 2) for w in plan.winners)
    got = check(
        plan,
        expected(
            taker=1,
            contract="garde_contre",
            oudlers=0,
            taker_points=0,
            base=-486,
            chelem=-200,
            announced=announce,
        ),
    )
    assert got["scores"] == [686, -2058, 686, 686]


# ---------------------------------------------------------------------------- R9.2, R9.3


def test_r9_3_exactly_on_target_is_won() -> None:
    """R9.3: garde contre; the defence wins the spade, heart and diamond tricks (16 + 16 + 15)
    and the club-queen trick (5), and the chien (3): the taker has 91 - 55 = 36 with three
    oudlers, exactly the target: won, base 25 x 6 = 150."""
    plan = deal_from_tricks(variant(PLAIN, EXACT_TARGET), contract="garde_contre", taker=0)
    got = check(plan, expected(contract="garde_contre", oudlers=3, taker_points=36, base=150))
    assert got["won"] is True


def test_r9_2_oudlers_counted_at_the_end_not_at_the_start() -> None:
    """R9.2: the taker starts with T21 and the Excuse, captures the Petit, and loses the Excuse
    in the last trick (R8.3 negative): it ends with two oudlers, target 41."""
    rows = variant(PLAIN, {6: "S3 SK S4 S5", 18: "EX DJ C10 CJ"})
    plan = deal_from_tricks(rows, contract="garde_sans", taker=0)
    start = plan.start.initial_hands[0]
    from server.rules.cards import EXCUSE_BIT, PETIT_BIT

    assert start & EXCUSE_BIT and not start & PETIT_BIT
    assert result_dict(plan.final())["oudlers"] == 2


# ---------------------------------------------------------------------------- R10.2 – R10.4


def test_r10_2_petit_au_bout_for_the_defence() -> None:
    """R10.2: the taker plays the Petit to the last trick and seat 1 overtrumps it with T15
    (kept since trick 4): the defence earns 10 x 4. The Excuse (seat 3, last trick) goes to the
    taker; the defence gets T1 T15 C10 = 5.5: the taker 85.5 with T21 and the Excuse (41).
    (25 + 44.5) x 4 = 278; -40. Per defender 238."""
    rows = variant(
        PLAIN,
        {
            4: "T18 T11 T6 T16",
            5: "T17 T10 T5 DJ",
            18: "T1 T15 C10 EX",
        },
    )
    plan = deal_from_tricks(rows, contract="garde_sans", taker=0)
    assert plan.winners[17] == 1
    check(
        plan,
        expected(contract="garde_sans", oudlers=2, taker_points=85.5, base=278, petit=-40),
    )


def test_r10_4_announced_chelem_missed_by_one_trick() -> None:
    """R10.4: TRUMPS, garde with an announced chelem, single poignée; seat 1 wins trick 6 (SQ, 8
    points): 87 - 8 = 79, (25 + 38) x 2 = 126, petit au bout +20, poignée +20, chelem -200."""
    rows = variant(TRUMPS, {6: "S8 SQ SC SJ"})
    plan = deal_from_tricks(
        rows, contract="garde", taker=0, announce=True, poignees={0: TRUMPS_POIGNEE}
    )
    check(
        plan,
        expected(
            contract="garde",
            oudlers=2,
            taker_points=79,
            base=126,
            petit=20,
            poignee=20,
            chelem=-200,
            announced=True,
        ),
    )


# ---------------------------------------------------------------------------- the federation examples

# Seat 1 holds ten trumps (T2..T11, a single poignée); the taker T12..T21. Trumps are led ten
# times; seats 2 and 3 (the Petit falls at once, the Excuse in trick 2) discard low cards. In
# tricks 11-18 the taker wins the spade trick (12) and the club king trick (9), 21 points.
# Discard: S1 S2 S3 H1 H2 H3.
DEFENDER_POIGNEE = [
    "T21 T11 T1 H5",
    "T20 T10 EX H6",
    "T19 T9 S4 H7",
    "T18 T8 S5 H8",
    "T17 T7 S6 H9",
    "T16 T6 S7 H10",
    "T15 T5 S8 D1",
    "T14 T4 S9 D2",
    "T13 T3 S10 D3",
    "T12 T2 H4 D4",
    "SK SQ SC SJ",
    "HJ HK HQ HC",
    "D5 DK D8 D9",
    "D6 DQ D10 DJ",
    "CK CQ C1 C2",
    "C3 CC C5 C6",
    "C4 CJ C7 C8",
    "D7 C9 C10 DC",
]


def test_fft_garde_two_oudlers_49_poignee_petit_au_bout() -> None:
    """FFT: garde won with 2 oudlers and 49 points, the taker's single poignée and petit au bout:
    (25 + 8) x 2 + 20 + 20 = +106 per defender, taker +318. TRUMPS with the defence winning the
    four queen tricks (8 each) and the diamond king trick (6): 87 - 38 = 49."""
    rows = variant(
        TRUMPS,
        {
            6: "S8 SQ SC SJ",
            8: "H8 HQ HC HJ",
            9: "D7 DK D9 D10",
            10: "D8 DQ DC DJ",
            12: "C10 CQ CJ CC",
        },
    )
    plan = deal_from_tricks(rows, contract="garde", taker=0, poignees={0: TRUMPS_POIGNEE})
    got = check(
        plan,
        expected(contract="garde", oudlers=2, taker_points=49, base=66, petit=20, poignee=20),
    )
    assert got["per_defender"] == 106 and got["scores"][0] == 318


def test_fft_garde_sans_won_by_4_defence_petit_au_bout() -> None:
    """FFT: garde sans won by 4 with the defence taking the petit au bout: (25 + 4) x 4 - 40 = +76.
    Seat 3 keeps the Petit and ruffs the last club with it; the Excuse falls in trick 5 (the taker
    gets 0.5) and the defence wins the four king tricks (24). The taker: 91 - 4.5 + 0.5 - 24 - 8
    = 55 with T21 alone: target 51."""
    rows = variant(
        PLAIN,
        {
            4: "T18 T11 T6 T15",
            5: "T17 T10 T5 EX",
            6: "S3 SK S4 S5",
            9: "H3 HK H4 H5",
            12: "D2 DK D3 D4",
            15: "C1 CK C2 C3",
            18: "CJ DJ C10 T1",
        },
    )
    plan = deal_from_tricks(rows, contract="garde_sans", taker=0)
    assert plan.winners[17] == 3
    got = check(
        plan, expected(contract="garde_sans", oudlers=1, taker_points=55, base=116, petit=-40)
    )
    assert got["per_defender"] == 76


def test_fft_prise_lost_by_7_with_poignee_and_petit_au_bout() -> None:
    """FFT: prise lost by 7 with the taker's single poignée and petit au bout:
    -(25 + 7) - 20 + 10 = -42, taker -126 (the poignée goes to the defence, R10.3; the petit au
    bout to the taker, R10.2). The defence wins every plain trick but CJ C7 C8 C9 (3):
    31 + 3 = 34, target 41."""
    rows = variant(
        TRUMPS,
        {
            5: "S7 SK S9 S10",
            6: "S8 SQ SC SJ",
            7: "H7 HK H9 H10",
            8: "H8 HQ HC HJ",
            9: "D7 DK D9 D10",
            10: "D8 DQ DC DJ",
            11: "C10 CK CQ CC",
            12: "CJ C7 C8 C9",
        },
    )
    plan = deal_from_tricks(rows, contract="prise", taker=0, poignees={0: TRUMPS_POIGNEE})
    got = check(
        plan,
        expected(contract="prise", oudlers=2, taker_points=34, base=-32, petit=10, poignee=-20),
    )
    assert got["per_defender"] == -42 and got["scores"][0] == -126


def test_fft_garde_won_by_11_with_defenders_poignee() -> None:
    """FFT: garde won by 11 with a defender's poignée: (25 + 11) x 2 + 20 = +92 (R10.3: the
    poignée goes to the team that wins the contract, whoever declared it). Taker: trick 1
    (T21 T11 T1 H5, 10), trick 2 (T20 T10 H6 and 0.5 for the Excuse, 2), tricks 3-10 (16),
    discard (3), spade trick (12) and club king trick (9): 52, target 41."""
    plan = deal_from_tricks(
        DEFENDER_POIGNEE,
        contract="garde",
        taker=0,
        discard="S1 S2 S3 H1 H2 H3",
        poignees={1: trumps(2, 11)},
    )
    got = check(
        plan,
        expected(contract="garde", oudlers=2, taker_points=52, base=72, poignee=20),
    )
    assert got["per_defender"] == 92


def test_r10_3_both_poignees_count_for_the_contract_winner() -> None:
    """R10.3: the taker's and a defender's single poignées both go to the taker who wins: +40."""
    plan = deal_from_tricks(
        DEFENDER_POIGNEE,
        contract="garde",
        taker=0,
        poignees={0: trumps(12, 21), 1: trumps(2, 11)},
    )
    check(plan, expected(contract="garde", oudlers=2, taker_points=52, base=72, poignee=40))


def test_fft_garde_announced_chelem_made_poignee_petit() -> None:
    """FFT: garde, announced chelem made, poignée and petit au bout, 87 points with 2 oudlers:
    (25 + 46) x 2 + 20 + 20 + 400 = +582, taker +1746. TRUMPS as played: the defence keeps only
    the Excuse (4.5 - 0.5)."""
    plan = deal_from_tricks(
        TRUMPS, contract="garde", taker=0, announce=True, poignees={0: TRUMPS_POIGNEE}
    )
    got = check(
        plan,
        expected(
            contract="garde",
            oudlers=2,
            taker_points=87,
            base=142,
            petit=20,
            poignee=20,
            chelem=400,
            announced=True,
        ),
    )
    assert got["per_defender"] == 582 and got["scores"][0] == 1746


def test_r10_5_scores_sum_to_zero_and_taker_three_times() -> None:
    """R10.5: each defender -x, the taker 3x."""
    st = deal_from_tricks(BASE, contract="garde", taker=0).final()
    s = score(st)
    pd = s.per_defender_half
    assert pd == s.base_half + s.petit_half + s.poignee_half + s.chelem_half
    assert s.scores_half() == [3 * pd, -pd, -pd, -pd]


def test_score_refuses_an_unfinished_deal() -> None:
    plan = deal_from_tricks(BASE, contract="garde", taker=0)
    with pytest.raises(ValueError):
        score(plan.start)


# ---------------------------------------------------------------------------- R9.1, R9.2, R10.1, R10.6

EXACT_TARGET = {
    6: "S3 SK S4 S5",
    7: "S6 SQ S7 S8",
    8: "S9 SC S10 SJ",
    9: "H3 HK H4 H5",
    10: "H6 HQ H7 H8",
    11: "H9 HC H10 HJ",
    12: "D2 DK D3 D4",
    13: "D5 DQ D6 D7",
    14: "D8 DC D9 D10",
    16: "C4 CQ C5 C6",
}


@pytest.mark.parametrize(
    ("contract", "pile"),
    [
        ("prise", FULL_DECK & ~EXCUSE_BIT),  # tricks + discard; the Excuse stays with the defence
        ("garde", FULL_DECK & ~EXCUSE_BIT),
        ("garde_sans", FULL_DECK & ~EXCUSE_BIT),  # the chien instead of a discard
        ("garde_contre", FULL_DECK & ~EXCUSE_BIT & ~mask_of(["S1", "S2", "H1", "H2", "D1", "D2"])),
    ],
)
def test_r9_1_takers_pile(contract: str, pile: int) -> None:
    """R9.1: BASE, the taker wins every trick: its pile is every trick card, plus the discard
    (prise, garde) or the chien (garde sans), not the chien on a garde contre; the defender's
    Excuse stays out, and R8.1's half point is added to the points."""
    st = deal_from_tricks(BASE, contract=contract, taker=0).final()
    c = count(st)
    assert c.taker_pile == pile
    assert c.taker_half == 2 * points(codes_of(pile)) + 1  # + the Excuse's half point


@pytest.mark.parametrize(
    ("name", "oudlers", "target"),
    [("defenders_slam", 0, 56), ("petit_defended", 1, 51), ("base", 2, 41), ("plain", 3, 36)],
)
def test_r9_2_target_by_oudlers(name: str, oudlers: int, target: int) -> None:
    """R9.2: 0 oudlers -> 56, 1 -> 51, 2 -> 41, 3 -> 36."""
    plans = {
        "defenders_slam": lambda: deal_from_tricks(
            variant(PLAIN, {1: "T21 T14 T9 T16", 5: "T17 T10 T5 T4", 18: "EX DJ C10 CJ"}),
            contract="garde_contre",
            taker=1,
        ),
        "petit_defended": lambda: deal_from_tricks(
            variant(PLAIN, {4: "T18 T11 T6 T15", 5: "T17 T10 T5 EX", 18: "CJ DJ C10 T1"}),
            contract="garde_sans",
            taker=0,
        ),
        "base": lambda: deal_from_tricks(BASE, contract="garde", taker=0),
        "plain": lambda: deal_from_tricks(PLAIN, contract="garde_sans", taker=0),
    }
    res = result_dict(plans[name]().final())
    assert (res["oudlers"], res["target"]) == (oudlers, target)


def test_r10_1_lost_contract_is_negative_with_halves() -> None:
    """R10.1: the exactly-on-target deal, but seat 2 wins the last trick (C10 DJ CJ EX, 3.5, the
    Excuse still the taker's by R8.2): 32.5 against 36, lost by 3.5: -(25 + 3.5) x 6 = -171."""
    rows = variant(PLAIN, {**EXACT_TARGET, 18: "C10 DJ CJ EX"})
    plan = deal_from_tricks(rows, contract="garde_contre", taker=0)
    got = check(plan, expected(contract="garde_contre", oudlers=3, taker_points=32.5, base=-171))
    assert got["won"] is False


def test_r10_1_won_contract_is_positive() -> None:
    """R10.1: won by 46 on a garde: (25 + 46) x 2 = +142 (BASE, with the +200 of R10.4)."""
    plan = deal_from_tricks(BASE, contract="garde", taker=0)
    check(plan, expected(contract="garde", oudlers=2, taker_points=87, base=142, chelem=200))


def test_r10_6_worked_example() -> None:
    """R10.6: garde, the taker (seat 2) ends with 2 oudlers and 45 points, no bonus:
    (25 + 4) x 2 = 58 per defender; each defender -58, the taker +174 (tests/data has the
    record)."""
    plan = deal_from_tricks(R10_6_ROWS, contract="garde", taker=2, dealer=1)
    got = check(plan, expected(taker=2, contract="garde", oudlers=2, taker_points=45, base=58))
    assert got["scores"] == [-58, -58, 174, -58]

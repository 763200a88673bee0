"""The rules core (server/rules/core.py): the one implementation of the card play and scoring.

The public engine, replay, the AI and the random deals all play on ``core.Position``, so the
core is checked here against what does not come from it: results worked out by hand (R8, R10),
the tests' own recount of a record with the RULES.md formulas (``helpers_rules.recount_result``),
an independent legality oracle (``helpers_rules.oracle_plays``) and the published deals. Then
``push``/``pop``/``copy``, and the hidden-information properties: what the position infers about
the hands from the play (voids) is always true, and is exactly what each seat's view gives a bot.
"""

from __future__ import annotations

import json
import random

import pytest
from helpers_rules import (
    corpus_lines,
    deal,
    oracle_plays,
    position_fields,
    recount_result,
    run,
)

from server.ai.knowledge import read_view
from server.rules import IllegalAction
from server.rules.actions import GARDE, GARDE_CONTRE, GARDE_SANS, PRISE, Play
from server.rules.cards import CODES, INDEX, NO_TRUMP, codes_of, half_points, mask_of
from server.rules.core import Position, legal_play_mask
from server.rules.deal import OVER, PLAY, DealState, apply, deal_from_masks, new_deal
from server.rules.randplay import Trace, random_action, random_deal_result, random_playout
from server.rules.records import decode_record, record_of, replay_record
from server.rules.scoring import count, result_dict, score, score_of
from server.rules.views import view


def _replay_trace(tr: Trace) -> DealState:
    st = deal_from_masks(tr.dealer, tr.hands, tr.chien)
    for a in tr.actions:
        st = apply(st, a)
    return st


def _fields(pos: Position) -> dict[str, object]:
    return position_fields(pos)


@pytest.mark.parametrize(
    ("poignee_chance", "chelem_chance", "n", "seed0"),
    [(0.5, 0.05, 1500, 0), (1.0, 0.5, 1000, 100_000)],
)
def test_random_deals_replay_and_recount_exactly(
    poignee_chance: float, chelem_chance: float, n: int, seed0: int
) -> None:
    """Every traced random deal (randplay.random_deal_result) replays through apply(), and its
    result is the independent recount of its record (R3–R10)."""
    seen_contracts = set()
    seen_poignee = seen_chelem = seen_petit = 0
    for i in range(seed0, seed0 + n):
        tr = Trace()
        res = random_deal_result(
            random.Random(i),
            i % 4,
            poignee_chance=poignee_chance,
            chelem_chance=chelem_chance,
            trace=tr,
        )
        st = _replay_trace(tr)
        assert st.phase == OVER, i
        want = recount_result(record_of(st))
        assert result_dict(st) == want, i
        if res.reason:
            assert (want["status"], want["reason"]) == ("annulled", res.reason), i
            assert res.scores_half() == (0, 0, 0, 0)
            continue
        got = (
            res.taker,
            CONTRACTS_BY_INDEX[res.contract],
            res.chelem,
            res.taker_half,
            res.oudlers,
            res.per_defender_half,
            list(res.scores_half()),
        )
        expect = (
            want["taker"],
            want["contract"],
            want["chelem_announced"],
            round(2 * want["taker_points"]),
            want["oudlers"],
            round(2 * want["per_defender"]),
            [round(2 * x) for x in want["scores"]],
        )
        assert got == expect, i
        assert res.poignee_half == abs(2 * want["poignee"])
        assert res.petit * 10 * want["multiplier"] == want["petit_au_bout"]
        assert res.taker_tricks == count(st).taker_tricks
        seen_contracts.add(res.contract)
        seen_poignee += res.poignee_half > 0
        seen_chelem += res.chelem
        seen_petit += res.petit != 0
    # The sample really exercises the optional paths.
    assert seen_contracts == {1, 2, 3, 4}
    assert seen_poignee and seen_chelem and seen_petit


CONTRACTS_BY_INDEX = ("pass", "prise", "garde", "garde_sans", "garde_contre")


def test_trace_does_not_change_the_random_choices() -> None:
    for i in range(300):
        with_trace = random_deal_result(random.Random(i), 2, trace=Trace())
        assert random_deal_result(random.Random(i), 2) == with_trace


def _random_play_state(seed: int) -> DealState:
    """A deal played with the public API up to a random point of its card play."""
    rng = random.Random(seed)
    while True:
        st = _api_start(rng)
        if st is None:
            continue
        cut = rng.randrange(0, 73)
        plays = 0
        while st.phase != OVER and plays < cut:
            a = random_action(st, rng, poignee_chance=0.8)
            plays += type(a) is Play
            st = apply(st, a)
        if st.phase == PLAY:
            return st


def _api_start(rng: random.Random) -> DealState | None:
    st = new_deal(rng, rng.randrange(4))
    while st.phase not in (PLAY, OVER):
        st = apply(st, random_action(st, rng))
    return st if st.phase == PLAY else None


def test_random_playouts_from_mid_deal_are_legal_and_recount() -> None:
    """A copy of a state's position finished with random cards: the state is untouched, apply()
    accepts every card, and the result is the independent recount."""
    rng = random.Random(7)
    for seed in range(300):
        st = _random_play_state(seed)
        assert st.pos is not None
        before = _fields(st.pos)
        pos = st.pos.copy()
        played: list[int] = []
        random_playout(pos, rng.random, played)
        assert _fields(st.pos) == before, "a copy must not share state with its original"
        end = st
        for card in played:
            end = apply(end, Play(end.turn, CODES[card]))
        assert end.phase == OVER and pos.over
        assert _fields(pos) == _fields(end.pos)  # type: ignore[arg-type]
        assert score_of(pos) == score(end)
        assert result_dict(end) == recount_result(record_of(end)), seed


def test_push_and_pop_restore_every_field() -> None:
    """At every card of random deals: push gives the position apply() gives, pop gives back
    exactly the position before; popping the whole play returns to the first card."""
    for seed in range(120):
        st = _random_play_state(3000 + seed)
        assert st.pos is not None
        pos = st.pos.copy()
        start = _fields(pos)
        rng = random.Random(seed)
        n = 0
        while st.phase == PLAY:
            legal = pos.legal()
            for card in [c for c in range(78) if legal >> c & 1][:3]:
                before = _fields(pos)
                pos.push(card)
                after = apply(st, Play(st.turn, CODES[card])).pos
                assert after is not None
                want = _fields(after)
                got = _fields(pos)
                del want["_undo"], got["_undo"]
                assert got == want
                assert pos.pop() == card
                assert _fields(pos) == before
            card = rng.choice([c for c in range(78) if legal >> c & 1])
            pos.push(card)
            st = apply(st, Play(st.turn, CODES[card]))
            n += 1
        for _ in range(n):
            pos.pop()
        assert _fields(pos) == start
        with pytest.raises(IndexError):
            pos.pop()


def test_legal_cards_are_the_oracles_and_apply_refuses_the_others() -> None:
    """R7.3–R7.6: Position.legal() is the independent oracle's set at every card; apply()
    refuses every other card of the hand with R7.5 or R7.6 and changes nothing."""
    for seed in range(80):
        st = _random_play_state(5000 + seed)
        rng = random.Random(seed)
        while st.phase == PLAY:
            pos = st.pos
            assert pos is not None
            legal = pos.legal()
            hand = st.hands[st.turn]
            assert set(codes_of(legal)) == oracle_plays(
                codes_of(hand), [CODES[c] for c in pos.trick]
            )
            for bad in [c for c in range(78) if (hand & ~legal) >> c & 1]:
                before = _fields(pos)
                with pytest.raises(IllegalAction) as e:
                    apply(st, Play(st.turn, CODES[bad]))
                assert e.value.rule in ("R7.5", "R7.6")
                assert _fields(pos) == before
            cards = [c for c in range(78) if legal >> c & 1]
            st = apply(st, Play(st.turn, CODES[rng.choice(cards)]))


def test_the_stash_counts_for_the_taker_except_in_garde_contre() -> None:
    """R9.1: the discard (prise, garde) or the chien (garde sans) is the taker's from the
    start; in garde contre the chien is the defence's whatever is passed."""
    hands = [mask_of([c]) for c in ("S2", "S3", "S4", "S5")]
    stash = mask_of(["T21", "SK", "S1"])
    for contract in (PRISE, GARDE, GARDE_SANS):
        pos = Position.start(hands, 0, contract, 0, stash=stash)
        assert pos.taker_pile == stash and pos.taker_half == 9 + 9 + 1 and pos.oudlers() == 1
    pos = Position.start(hands, 0, GARDE_CONTRE, 0, stash=stash)
    assert pos.taker_pile == 0 and pos.taker_half == 0


# ------------------------------------------------------------- hand-built last tricks (R8, R10.2)


def _last_trick(
    hands: list[str], *, taker_tricks: int, petit_trick: int = -1, petit_winner: int = -1
) -> Position:
    """Seat 0 takes, plays garde sans, announced a chelem and leads the 18th trick with one
    card per hand; the 17 tricks before are summed up by the counters."""
    pos = Position.start([mask_of([h]) for h in hands], 0, GARDE_SANS, 0, chelem=True)
    pos.n_tricks = 17
    pos.taker_tricks = taker_tricks
    pos.petit_trick, pos.petit_winner = petit_trick, petit_winner
    return pos


def test_excuse_led_to_the_last_trick_after_17_won_tricks_wins_it() -> None:
    """R8.3: the slam is complete, the Excuse stays with the taker; R10.2 looks at trick 17."""
    pos = _last_trick(["EX", "S2", "S3", "S4"], taker_tricks=17, petit_trick=16, petit_winner=0)
    random_playout(pos, random.Random(0).random)
    assert (pos.taker_half, pos.oudlers(), pos.taker_tricks, pos.ex_slam) == (9 + 3, 1, 18, True)
    assert pos.tricks[-1] == (0, (77, 1, 2, 3), 0)
    assert pos.petit_au_bout() == 1
    # 6 points and 1 oudler (target 51): lost by 45 at ×4; petit au bout ×4; chelem made.
    assert pos.score_half() == -(50 + (102 - 12)) * 4 + 20 * 4 + 800


def test_excuse_in_the_last_trick_without_the_slam_goes_to_the_defenders() -> None:
    """R8.2 and R8.4: the Excuse led by the taker loses the last trick and changes sides."""
    pos = _last_trick(["EX", "S2", "S3", "S4"], taker_tricks=16, petit_trick=16, petit_winner=0)
    random_playout(pos, random.Random(0).random)
    assert (pos.taker_half, pos.oudlers(), pos.taker_tricks, pos.ex_slam) == (0, 0, 16, False)
    assert pos.tricks[-1][2] == 3  # S4 wins
    assert pos.petit_au_bout() == 0  # no excuse slam: R10.2 looks at the 18th trick, without T1


def test_defenders_slam_with_the_excuse_led_last() -> None:
    """R8.3 holds for the defenders too: the Excuse wins and stays with them; R10.4 −200."""
    pos = _last_trick(["S2", "S3", "T1", "EX"], taker_tricks=0)
    pos.leader = pos.turn = 3
    pos.chelem = False
    random_playout(pos, random.Random(0).random)
    assert (pos.taker_half, pos.oudlers(), pos.taker_tricks, pos.ex_slam) == (0, 0, 0, True)
    assert pos.petit_au_bout() == 0  # T1 in the last trick, but the trick before is looked at
    assert pos.score_half() == -(50 + 112) * 4 - 400


def test_defender_excuse_in_the_last_trick_goes_to_the_taker() -> None:
    """R8.2: even when the defender's team wins the last trick; R10.2 for the defence."""
    pos = _last_trick(["S2", "EX", "S3", "T1"], taker_tricks=10)
    random_playout(pos, random.Random(0).random)
    assert (pos.taker_half, pos.oudlers(), pos.taker_tricks) == (9, 1, 10)
    assert pos.petit_au_bout() == -1


def test_position_start_and_basic_accessors() -> None:
    hands = [mask_of([c]) for c in ("S2", "S3", "SK", "EX")]
    pos = Position.start(hands, 2, PRISE, 0, stash=mask_of(["T21"]))
    assert pos.taker_half == 9 and pos.hi == -1 and not pos.over
    assert pos.legal() == mask_of(["S2"])
    assert legal_play_mask(hands[1], -1, NO_TRUMP) == hands[1]
    copy = pos.copy()
    random_playout(copy, random.Random(1).random)
    assert pos.n_tricks == 0 and copy.n_tricks == 1  # the original is untouched
    # SK wins the trick for the taker; the defender's Excuse stays with the defenders and
    # half a point passes to the taker (R8.1, not the last trick).
    assert (copy.taker_half, copy.oudlers(), copy.taker_tricks) == (9 + 1 + 1 + 9 + 1, 1, 1)
    assert repr(pos).startswith("Position(taker=2, contract=prise")


def test_pop_without_push_is_an_error() -> None:
    pos = Position.start([1, 2, 4, 8], 0, PRISE, 0)
    with pytest.raises(IndexError):
        pos.pop()
    pos.play(0)  # play() is not undoable
    with pytest.raises(IndexError):
        pos.pop()


def test_apply_refuses_a_card_outside_legal_and_keeps_the_position() -> None:
    """R7.5: a heart on a spade lead by a seat holding a spade; the position stays as it was."""
    st = run(deal({0: "S2 H2", 1: "S1 H1"}), "garde_sans pass pass pass nochelem S2")
    assert st.pos is not None and not st.pos.legal() & mask_of(["H1"])
    before = _fields(st.pos)
    with pytest.raises(IllegalAction) as e:
        apply(st, Play(1, "H1"))
    assert e.value.rule == "R7.5"
    assert _fields(st.pos) == before
    assert apply(st, Play(1, "S1")).pos is not st.pos


# ------------------------------------------------------------------------- published deals


def test_published_deals_scored_from_every_card() -> None:
    """Slams with the Excuse led last, petit au bout on trick 17...: from each card of each
    published deal, pushing the rest gives the published per-defender amount, and popping it
    all gives back the position."""
    checked = played_deals = 0
    for line in corpus_lines():
        entry = json.loads(line)
        expected = entry["expected"]
        if expected["status"] != "played":
            continue
        played_deals += 1
        final = replay_record(decode_record(json.dumps(entry["record"])))
        st = deal_from_masks(final.dealer, final.initial_hands, final.chien)
        plays = [INDEX[a.card] for a in final.action_list() if type(a) is Play]
        k = 0
        for a in final.action_list():
            st = apply(st, a)
            k += type(a) is Play
            if st.pos is None or (k < 4 and any(final.poignees)):
                continue  # a poignée may still be declared in the first trick
            pos = st.pos.copy()
            before = _fields(pos)
            for card in plays[k:]:
                assert pos.legal() >> card & 1
                pos.push(card)
            assert pos.score_half() == round(expected["per_defender"] * 2), (entry["source"], k)
            for _ in plays[k:]:
                pos.pop()
            assert _fields(pos) == before
            checked += 1
    assert played_deals >= 15 and checked >= 69 * played_deals


# ------------------------------------------------------------------------- hidden information


def test_voids_are_true_and_are_what_each_seat_is_told() -> None:
    """What the play reveals (voids, trump ceilings) never contradicts a real hand; and the
    position a bot rebuilds from its own view (server.ai.knowledge, on the core) is the real
    one except for the hands and the cards that seat cannot see in the taker's pile."""
    for seed in range(60):
        rng = random.Random(seed)
        st = _api_start(rng)
        if st is None:
            continue
        while st.phase == PLAY:
            pos = st.pos
            assert pos is not None
            for s in range(4):
                assert not pos.voids[s] & pos.hands[s], (seed, s)
                k = read_view(view(st, s))
                mine = _fields(k.pos)
                real = _fields(pos)
                # The stash counts for the taker from the start: what this seat cannot see of
                # it is the difference (the taker's own discard is known to the taker).
                if st.contract <= GARDE:
                    stash, known = st.discard, k.discard_known
                else:
                    stash = st.chien if st.contract == GARDE_SANS else 0
                    known = k.chien
                unseen = stash & ~known
                assert mine.pop("taker_pile") | unseen == real.pop("taker_pile")
                assert mine.pop("taker_half") + half_points(unseen) == real.pop("taker_half")
                for f in ("hands", "_undo"):
                    del mine[f], real[f]
                assert mine == real, (seed, s)
                for o in range(4):
                    if o != s:
                        assert not k.forbidden[o] & st.hands[o], (seed, s, o)
                        assert not k.must_hold[o] & ~st.hands[o], (seed, s, o)
            st = apply(st, random_action(st, rng, poignee_chance=0.5))

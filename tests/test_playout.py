"""The fast playout kernel (server/rules/playout.py) agrees exactly with the reference engine.

The kernel restates no rule table, but it plays the trick mechanics (R7.7, R8, R9, R10) in
its own inlined loop, so every path is checked against ``deal.apply`` + ``scoring.score``:
complete random deals are traced and replayed action by action, and rollouts from mid-deal
positions are replayed card by card.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from server.rules.actions import GARDE, GARDE_CONTRE, GARDE_SANS, Play
from server.rules.cards import CODES, INDEX, NO_TRUMP, mask_of
from server.rules.deal import OVER, PLAY, DealState, apply, deal_from_masks, legal_play_mask
from server.rules.playout import (
    Outcome,
    Position,
    Trace,
    outcome_score,
    play_card,
    position_from_state,
    random_deal_result,
    rollout,
)
from server.rules.randplay import random_action
from server.rules.records import decode_record, replay_record
from server.rules.scoring import count, score


def _replay_trace(tr: Trace) -> DealState:
    st = deal_from_masks(tr.dealer, tr.hands, tr.chien)
    for a in tr.actions:
        st = apply(st, a)
    return st


@pytest.mark.parametrize(
    ("poignee_chance", "chelem_chance", "n", "seed0"),
    [(0.5, 0.05, 2500, 0), (1.0, 0.5, 1500, 100_000)],
)
def test_random_deals_score_exactly_as_apply_and_score(
    poignee_chance: float, chelem_chance: float, n: int, seed0: int
) -> None:
    """Every traced kernel deal replays through apply() and scores identically (R3–R10)."""
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
        sc = score(st)
        if res.reason:
            assert (sc.status, sc.reason) == ("annulled", res.reason), i
            assert res.scores_half() == (0, 0, 0, 0)
            continue
        got = (
            res.taker,
            res.contract,
            res.chelem,
            res.taker_half,
            res.oudlers,
            res.per_defender_half,
            list(res.scores_half()),
        )
        want = (
            sc.taker,
            sc.contract,
            sc.chelem_announced,
            sc.taker_half,
            sc.oudlers,
            sc.per_defender_half,
            sc.scores_half(),
        )
        assert got == want, i
        assert res.poignee_half == abs(sc.poignee_half)
        assert res.petit * 20 * sc.multiplier == sc.petit_half
        assert res.taker_tricks == count(st).taker_tricks
        seen_contracts.add(res.contract)
        seen_poignee += res.poignee_half > 0
        seen_chelem += res.chelem
        seen_petit += res.petit != 0
    # The sample really exercises the optional paths.
    assert seen_contracts == {1, 2, 3, 4}
    assert seen_poignee and seen_chelem and seen_petit


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
    from server.rules.deal import new_deal

    st = new_deal(rng, rng.randrange(4))
    while st.phase not in (PLAY, OVER):
        st = apply(st, random_action(st, rng))
    return st if st.phase == PLAY else None


def _finish_with(st: DealState, cards: list[int]) -> DealState:
    for card in cards:
        st = apply(st, Play(st.turn, CODES[card]))
    return st


def _outcome_of(st: DealState) -> Outcome:
    sc = score(st)
    c = count(st)
    return Outcome(sc.taker_half, sc.oudlers, c.taker_tricks, sc.petit_half // (20 * sc.multiplier))


def test_random_rollouts_from_mid_deal_match_the_reference() -> None:
    rng = random.Random(7)
    for seed in range(400):
        st = _random_play_state(seed)
        pos = position_from_state(st)
        before = pos.copy()
        played: list[int] = []
        out = rollout(pos, rng, record=played)
        assert _same(pos, before), "rollout must not touch its position unless inplace"
        end = _finish_with(st, played)
        assert end.phase == OVER
        assert out == _outcome_of(end), seed
        assert outcome_score(pos, out) == score(end).per_defender_half, seed


def _same(a: Position, b: Position) -> bool:
    return all(getattr(a, n) == getattr(b, n) for n in Position.__slots__)


def _fields(p: Position) -> dict[str, object]:
    return {n: getattr(p, n) for n in Position.__slots__}


def test_policy_sees_an_up_to_date_position_at_every_card() -> None:
    """A policy gets the same Position as position_from_state() of the reference state."""
    for seed in range(150):
        st = _random_play_state(1000 + seed)
        ref = [st]
        pick = random.Random(seed)

        def policy(
            pos: Position, seat: int, legal: int, ref: list[DealState] = ref, pick=pick
        ) -> int:
            cur = ref[0]
            assert seat == cur.turn == pos.turn
            assert legal == legal_play_mask(cur.hands[seat], cur.lead_suit, cur.hi_trump)
            assert _fields(pos) == _fields(position_from_state(cur))
            cards = [c for c in range(78) if legal >> c & 1]
            card = pick.choice(cards)
            ref[0] = apply(cur, Play(seat, CODES[card]))
            return card

        pos = position_from_state(st)
        out = rollout(pos, policy=policy, inplace=True)
        assert ref[0].phase == OVER
        assert out == _outcome_of(ref[0])
        assert pos.over and _fields(pos) == _fields(position_from_state(ref[0]))


def test_play_card_steps_like_apply_and_rejects_illegal_cards() -> None:
    for seed in range(100):
        st = _random_play_state(5000 + seed)
        pos = position_from_state(st)
        rng = random.Random(seed)
        while st.phase == PLAY:
            legal = pos.legal()
            illegal = st.hands[st.turn] & ~legal
            if illegal:
                before = _fields(pos)
                bad = (illegal & -illegal).bit_length() - 1
                with pytest.raises(ValueError):
                    play_card(pos, bad)
                assert _fields(pos) == before
            cards = [c for c in range(78) if legal >> c & 1]
            card = rng.choice(cards)
            play_card(pos, card)
            st = apply(st, Play(st.turn, CODES[card]))
            assert _fields(pos) == _fields(position_from_state(st))
        with pytest.raises(ValueError):
            play_card(pos, 0)


def test_sampled_hands_and_stash_substitute_hidden_cards() -> None:
    """position_from_state(st, hands, stash=...) scores the substituted world."""
    for seed in range(200):
        st = _random_play_state(9000 + seed)
        if st.contract == GARDE_CONTRE:
            continue
        real = st.discard if st.contract <= GARDE else st.chien
        pos = position_from_state(st, list(st.hands), stash=real)
        assert _fields(pos) == _fields(position_from_state(st))
        other = position_from_state(st, stash=0)
        assert other.taker_half == pos.taker_half - _half(real)
    # garde contre: the chien never counts for the taker, whatever stash is given.
    for seed in range(400):
        st = _random_play_state(9500 + seed)
        if st.contract == GARDE_CONTRE:
            base = position_from_state(st)
            assert _fields(position_from_state(st, stash=st.chien)) == _fields(base)
            break


def _half(mask: int) -> int:
    from server.rules.cards import half_points

    return half_points(mask)


# ------------------------------------------------------------- hand-built last tricks (R8, R10.2)


def _last_trick(
    hands: list[str], *, taker_tricks: int, petit_at: int = -1, petit_sign: int = 0
) -> Position:
    """Seat 0 takes, plays garde sans and leads the 18th trick with one card per hand."""
    pos = Position.start(
        [mask_of([h]) for h in hands], taker=0, contract=GARDE_SANS, leader=0, chelem=True
    )
    pos.n_tricks = 17
    pos.taker_tricks = taker_tricks
    pos.petit_at, pos.petit_sign = petit_at, petit_sign
    return pos


def test_excuse_led_to_the_last_trick_after_17_won_tricks_wins_it() -> None:
    """R8.3: the slam is complete, the Excuse stays with the taker; R10.2 looks at trick 17."""
    pos = _last_trick(["EX", "S2", "S3", "S4"], taker_tricks=17, petit_at=16, petit_sign=1)
    out = rollout(pos, random.Random(0))
    assert out == Outcome(taker_half=9 + 3, oudlers=1, taker_tricks=18, petit=1)
    # 6 points and 1 oudler (target 51): lost by 45 at ×4; petit au bout ×4; chelem made.
    assert outcome_score(pos, out) == -(50 + (102 - 12)) * 4 + 20 * 4 + 800


def test_excuse_in_the_last_trick_without_the_slam_goes_to_the_defenders() -> None:
    """R8.2 and R8.4: the Excuse led by the taker loses the last trick and changes sides."""
    pos = _last_trick(["EX", "S2", "S3", "S4"], taker_tricks=16, petit_at=16, petit_sign=1)
    out = rollout(pos, random.Random(0))
    assert out.taker_half == 0 and out.oudlers == 0 and out.taker_tricks == 16
    assert out.petit == 0  # no excuse slam: R10.2 looks at the 18th trick, without T1


def test_defenders_slam_with_the_excuse_led_last() -> None:
    """R8.3 holds for the defenders too: the Excuse wins and stays with them; R10.4 −200."""
    pos = _last_trick(["S2", "S3", "T1", "EX"], taker_tricks=0)
    pos.leader = pos.turn = 3
    pos.chelem = False
    out = rollout(pos, random.Random(0))
    assert out == Outcome(taker_half=0, oudlers=0, taker_tricks=0, petit=0)
    assert outcome_score(pos, out) == -(50 + 112) * 4 - 400


def test_defender_excuse_in_the_last_trick_goes_to_the_taker() -> None:
    """R8.2: even when the defender's team wins the last trick."""
    pos = _last_trick(["S2", "EX", "S3", "T1"], taker_tricks=10)
    out = rollout(pos, random.Random(0))
    assert out == Outcome(taker_half=9, oudlers=1, taker_tricks=10, petit=-1)


def test_position_start_and_basic_accessors() -> None:
    hands = [mask_of([c]) for c in ("S2", "S3", "SK", "EX")]
    pos = Position.start(hands, taker=2, contract=1, leader=0, stash=mask_of(["T21"]))
    assert pos.taker_half == 9 and pos.hi_trump == NO_TRUMP and not pos.over
    assert pos.legal() == mask_of(["S2"])
    out = rollout(pos, random.Random(1))
    assert pos.n_tricks == 0  # untouched
    # SK wins the trick for the taker; the defender's Excuse stays with the defenders and
    # half a point passes to the taker (R8.1, not the last trick).
    assert out == Outcome(taker_half=9 + 1 + 1 + 9 + 1, oudlers=1, taker_tricks=1, petit=0)


def test_rollout_needs_rng_or_policy() -> None:
    pos = Position.start([1, 2, 4, 8], taker=0, contract=1, leader=0)
    with pytest.raises(ValueError):
        rollout(pos)


def test_policy_choosing_an_illegal_card_is_an_error() -> None:
    hands = [mask_of([f"S{r}", f"H{r}"]) for r in (2, 1, 3, 4)]
    pos = Position.start(hands, taker=0, contract=1, leader=1)
    with pytest.raises(ValueError):
        rollout(pos, policy=lambda p, s, legal: 77)


# ------------------------------------------------------------------------- published deals

_CONFORMANCE = [
    Path(__file__).parent.parent.parent / "shared" / "conformance" / "published-deals.jsonl",
    Path(__file__).parent / "data" / "conformance" / "published-deals.jsonl",
]


def _conformance_lines() -> list[str]:
    for path in _CONFORMANCE:
        if path.exists():
            return [line for line in path.read_text().splitlines() if line.strip()]
    return []


@pytest.mark.skipif(not _conformance_lines(), reason="no published-deals.jsonl available")
def test_published_deals_replayed_through_positions_from_every_trick() -> None:
    """Slams with the Excuse led last, petit au bout on trick 17... from each trick boundary."""
    for line in _conformance_lines():
        entry = json.loads(line)
        rec = decode_record(json.dumps(entry["record"]))
        final = replay_record(rec)
        expected = entry["expected"]
        if expected["status"] != "played":
            continue
        st = deal_from_masks(final.dealer, final.initial_hands, final.chien)
        plays: list[int] = []
        positions = []
        for a in final.action_list():
            if type(a) is Play:
                # Before the first trick is over a later poignée may still come: skip those.
                if len(plays) >= 4 or not any(final.poignees):
                    positions.append((position_from_state(st), len(plays)))
                plays.append(INDEX[a.card])
            st = apply(st, a)
        for pos, k in positions:
            rest = iter(plays[k:])
            out = rollout(pos, policy=lambda p, s, legal, rest=rest: next(rest))
            want = round(expected["per_defender"] * 2)
            assert outcome_score(pos, out) == want, (entry["source"], k)

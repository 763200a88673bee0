"""Property tests over random deals played with random legal actions (server.rules.randplay).

Deals come from a seed, optionally "rigged" to give one seat many trumps (and sometimes the four
kings) so that poignées, forced trump discards and R6.6 happen often. Hypothesis is derandomized
so that CI runs the same examples every time.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from helpers_rules import count_record, oracle_plays, recount_result, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules import IllegalAction, apply, legal_actions, score
from server.rules.actions import CONTRACTS, Bid, Chelem, Discard, Play, Poignee
from server.rules.cards import (
    CODES,
    EXCUSE_BIT,
    FULL_DECK,
    KINGS_MASK,
    OUDLERS_MASK,
    TRUMP_MASK,
    codes_of,
)
from server.rules.deal import (
    BIDDING,
    CHELEM,
    DISCARD,
    OVER,
    PLAY,
    DealState,
    deal_from_masks,
)
from server.rules.randplay import random_from_legal
from server.rules.records import record_of, replay_line
from server.rules.scoring import result_dict
from server.rules.views import chien_visible, deal_start_event, events, events_for, view

SETTINGS = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)

CODE_SET = frozenset(CODES)
TRUMPS = [56 + n for n in range(21)]
KINGS = [14 * s + 13 for s in range(4)]


# ---------------------------------------------------------------------------- deals


@st.composite
def deal_specs(draw: st.DrawFn) -> tuple[int, int, int | None, int, bool]:
    seed = draw(st.integers(0, 2**32 - 1))
    dealer = draw(st.integers(0, 3))
    rigged = draw(st.booleans())
    seat = draw(st.integers(0, 3)) if rigged else None
    n_trumps = draw(st.integers(9, 16))
    kings = draw(st.booleans())
    return seed, dealer, seat, n_trumps, kings


def make_deal(spec: tuple[int, int, int | None, int, bool]) -> tuple[DealState, random.Random]:
    seed, dealer, seat, n_trumps, kings = spec
    rng = random.Random(seed)
    deck = list(range(78))
    rng.shuffle(deck)
    if seat is not None:
        # Swap trumps (and kings) into the seat's slice of the deck.
        lo, hi = 18 * seat, 18 * seat + 18
        wanted = list(TRUMPS)
        rng.shuffle(wanted)
        goal = wanted[:n_trumps] + (KINGS if kings and n_trumps <= 14 else [])
        for card in goal:
            pos = deck.index(card)
            if lo <= pos < hi:
                continue
            victim = next(i for i in range(lo, hi) if deck[i] not in goal)
            deck[pos], deck[victim] = deck[victim], deck[pos]
    masks = [sum(1 << c for c in deck[18 * s : 18 * s + 18]) for s in range(4)]
    chien = sum(1 << c for c in deck[72:])
    return deal_from_masks(dealer, masks, chien), rng


def choose(state: DealState, rng: random.Random, favourite: int | None = None) -> Any:
    """A random legal action. In the bidding, ``favourite`` (the rigged seat) likes prise and
    garde and the others often pass, so that discards (forced ones too) are common. Checks the
    offered plays and poignée levels against independent oracles first."""
    legal = legal_actions(state)
    assert legal is not None and not legal.is_empty()
    assert legal.seat == state.turn and legal.phase == state.phase
    if legal.phase == PLAY:
        hand = codes_of(state.hands[state.turn])
        assert set(legal.plays) == oracle_plays(hand, [CODES[c] for c in state.trick])
        assert {o.level for o in legal.poignees} == oracle_poignee_levels(state)
    if legal.bids and rng.random() < 0.8:
        if state.turn == favourite:
            low = [b for b in legal.bids if b in ("prise", "garde")]
            if low:
                return Bid(state.turn, rng.choice(low))  # type: ignore[arg-type]
        elif favourite is not None:
            return Bid(state.turn, "pass")
    return random_from_legal(legal, rng, poignee_chance=0.7)


# ---------------------------------------------------------------------------- invariants


def places(state: DealState) -> list[int]:
    """Every place a card can be: hands, current trick, finished tricks, discard, chien."""
    out = list(state.hands)
    out.append(sum(1 << c for c in state.trick))
    out.append(sum(1 << c for _, cards, _ in state.tricks for c in cards))
    out.append(state.discard)
    chien_taken = state.taker >= 0 and state.contract <= 2 and state.phase not in (BIDDING,)
    if not (chien_taken and state.reason == ""):
        out.append(state.chien)
    return out


def check_cards_in_one_place(state: DealState) -> None:
    seen = 0
    total = 0
    for m in places(state):
        assert not seen & m, "a card is in two places"
        seen |= m
        total += m.bit_count()
    assert seen == FULL_DECK and total == 78


def codes_in(obj: Any) -> set[str]:
    found: set[str] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if x in CODE_SET:
                found.add(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list | tuple):
            stack.extend(x)
    return found


def secrets_for(state: DealState, seat: int | None) -> set[str]:
    """Cards ``seat`` must not see now: other hands (less what was shown: poignées, the chien
    after a prise/garde), the chien of a garde sans/contre, the non-trump discard."""
    if state.phase == OVER:
        return set()
    public = 0
    for p in state.poignees:
        public |= p
    if chien_visible(state):
        public |= state.chien
    hidden = 0
    for s in range(4):
        if s != seat:
            hidden |= state.hands[s]
    hidden &= ~public
    if not chien_visible(state):
        hidden |= state.chien & ~(state.hands[seat] if seat is not None else 0)
    if seat != state.taker:
        # Discarded cards that came from the shown chien were seen by all anyway (R5.1).
        hidden |= state.discard & ~TRUMP_MASK & ~public
    return set(codes_of(hidden))


def check_views(prev: DealState | None, action: Any, state: DealState) -> None:
    for seat in (0, 1, 2, 3, None):
        v = view(state, seat)
        secret = secrets_for(state, seat)
        leak = codes_in(v) & secret
        assert not leak, f"view for {seat} leaks {sorted(leak)}"
        if seat is not None and state.phase != OVER:
            assert v["hand"] == codes_of(state.hands[seat])
        if state.discard and state.phase != OVER:
            if seat == state.taker:
                assert v["discard"] == codes_of(state.discard)
            else:
                assert v["discard"] is None
            assert v["discard_trumps"] == codes_of(state.discard & TRUMP_MASK)
        if prev is not None:
            evs = events(prev, action, state, seat)
            if state.phase != OVER:
                leak = codes_in(evs) & secret
                assert not leak, f"events for {seat} leak {sorted(leak)}"
            else:
                assert evs[-1]["type"] == "deal_over"
        if seat is not None and prev is None:
            assert codes_in(deal_start_event(state, seat)) == set(codes_of(state.hands[seat]))
    if prev is not None:  # the shared events of a broadcast are each seat's own
        seats = (None, 0, 1, 2, 3)
        assert events_for(prev, action, state, seats) == [
            events(prev, action, state, s) for s in seats
        ]


def oracle_poignee_levels(state: DealState) -> set[str]:
    """R6.3-R6.6: levels a seat may declare now (before its first card, once)."""
    seat = state.turn
    if state.poignees[seat] or state.has_played_first_trick(seat):
        return set()
    hand = state.hands[seat]
    n = (hand & TRUMP_MASK).bit_count()
    ex = bool(hand & EXCUSE_BIT)
    out = {
        level
        for level, size in (("single", 10), ("double", 13), ("triple", 15))
        if n >= size or (ex and n == size - 1)
    }
    if seat == state.taker and state.discard & TRUMP_MASK:
        full = state.initial_hands[seat] | state.chien
        if (full & KINGS_MASK) == KINGS_MASK and (full & TRUMP_MASK).bit_count() >= 15:
            m = n + (state.discard & TRUMP_MASK).bit_count()
            if m >= 15 or (ex and m == 14):
                out.add("triple")
    return out


# ---------------------------------------------------------------------------- wrong actions


def wrong_actions(state: DealState, rng: random.Random) -> list[tuple[Any, str | None]]:
    """Actions that must be refused now, each with the rule expected (None: any rule)."""
    legal = legal_actions(state)
    assert legal is not None
    seat = state.turn
    hand = state.hands[seat]
    out: list[tuple[Any, str | None]] = []
    a = random_from_legal(legal, rng, poignee_chance=0.0)
    other = (seat + rng.randint(1, 3)) % 4
    out.append((type(a)(other, *[getattr(a, f) for f in a.__struct_fields__[1:]]), None))
    phase = state.phase
    if phase == BIDDING and state.best > 0:
        out.append((Bid(seat, CONTRACTS[rng.randint(1, state.best)]), "R4.2"))  # type: ignore[arg-type]
    if phase in (BIDDING, DISCARD, CHELEM):
        out.append((Play(seat, codes_of(hand)[0]), None))
    if phase == DISCARD:
        rule = legal.discard
        assert rule is not None
        choice = list(rule.required) + list(rule.choices[: 6 - len(rule.required)])
        out.append((Discard(seat, tuple(choice[:5])), "R5.1"))
        bad = hand & (KINGS_MASK | OUDLERS_MASK)
        if bad:
            out.append((Discard(seat, (*choice[:5], rng.choice(codes_of(bad)))), "R5.2"))
        if not rule.required:
            tr = hand & TRUMP_MASK & ~OUDLERS_MASK
            if tr:
                out.append((Discard(seat, (*choice[:5], rng.choice(codes_of(tr)))), "R5.3"))
        else:
            rest = [c for c in rule.choices if c not in choice]
            if rest:
                out.append((Discard(seat, (*choice[1:], rest[0])), "R5.3"))
        out.append((Chelem(seat, False), "R5.1"))
    if phase == CHELEM:
        out.append((Chelem(other, True), "R2.3"))
    if phase == PLAY:
        not_held = FULL_DECK & ~hand
        out.append((Play(seat, rng.choice(codes_of(not_held))), "R7.1"))
        illegal = set(codes_of(hand)) - set(legal.plays)
        if illegal:
            out.append((Play(seat, rng.choice(sorted(illegal))), None))
        out.append((Bid(seat, "garde"), "R7.1"))
        trumps = codes_of(hand & TRUMP_MASK)
        if legal.poignees:
            wrong_size = 11 if len(trumps) >= 11 else 9
            out.append((Poignee(seat, tuple(trumps[:wrong_size])), "R6.4"))
            plain = codes_of(hand & ~TRUMP_MASK & ~EXCUSE_BIT)
            if plain and len(trumps) >= 9:
                out.append((Poignee(seat, (*trumps[:9], plain[0])), "R6.4"))
            if hand & EXCUSE_BIT and len(trumps) >= 10:
                out.append((Poignee(seat, (*trumps[:9], "EX")), "R6.4"))
        elif state.poignees[seat] or state.has_played_first_trick(seat):
            out.append((Poignee(seat, tuple(trumps[:10])), "R6.3"))
    return out


def check_rejected(state: DealState, action: Any, rule: str | None) -> None:
    before = snapshot(state)
    try:
        apply(state, action)
    except IllegalAction as e:
        if rule is not None:
            assert e.rule == rule, (action, e)
    else:
        raise AssertionError(f"accepted {action!r}")
    assert snapshot(state) == before


# ---------------------------------------------------------------------------- end of deal


def check_finished(state: DealState) -> dict[str, Any]:
    assert state.phase == OVER
    assert legal_actions(state) is None
    rec = record_of(state)
    res = result_dict(state)
    assert rec["result"] == res
    # The whole result recounted from the record with RULES.md's own formulas (R3, R9, R10),
    # apart from the engine: card points, target, base, petit au bout, poignées, chelem.
    assert res == recount_result(rec)
    assert sum(res["scores"]) == 0
    ok, again = replay_line(json.dumps(rec))
    assert ok and again == res
    if res["status"] == "annulled":
        assert res["scores"] == [0, 0, 0, 0]
        assert res["reason"] in ("petit_sec", "all_passed")
        return res
    assert len(state.tricks) == 18 and all(len(c) == 4 for _, c, _ in state.tricks)
    assert all(h == 0 for h in state.hands)
    s = score(state)
    assert s.per_defender_half == s.base_half + s.petit_half + s.poignee_half + s.chelem_half
    assert res["per_defender"] == sum(
        res[k] for k in ("base", "petit_au_bout", "poignee", "chelem")
    )
    pd = res["per_defender"]
    assert res["scores"] == [3 * pd if x == res["taker"] else -pd for x in range(4)]
    recount = count_record(rec)
    assert recount.winners == tuple(w for _, _, w in state.tricks)
    assert recount.taker == res["taker_points"]
    assert res["taker_points"] + recount.defence == 91
    assert recount.taker_oudlers == res["oudlers"]
    assert res["won"] == (res["taker_points"] >= res["target"])
    return res


# ---------------------------------------------------------------------------- properties


@SETTINGS
@given(deal_specs())
def test_random_deals_keep_every_invariant(spec: tuple[int, int, int | None, int, bool]) -> None:
    """At every step: each card in exactly one place, a non-empty legal set, wrong actions
    refused without change, no view or event leaking a hidden card. At the end: 18 tricks,
    91 points between the teams, zero-sum scores, a record that replays to the same result."""
    state, rng = make_deal(spec)
    check_cards_in_one_place(state)
    check_views(None, None, state)
    steps = 0
    while state.phase != OVER:
        for action, rule in wrong_actions(state, rng):
            check_rejected(state, action, rule)
        action = choose(state, rng, spec[2])
        prev = state
        state = apply(state, action)
        assert state.n_actions == prev.n_actions + 1
        check_cards_in_one_place(state)
        check_views(prev, action, state)
        steps += 1
        assert steps < 200
    check_finished(state)


@settings(max_examples=600, derandomize=True, deadline=None, database=None)
@given(deal_specs())
def test_random_deals_score_consistently(spec: tuple[int, int, int | None, int, bool]) -> None:
    """Cheaper, more examples: only the end-of-deal properties."""
    state, rng = make_deal(spec)
    while state.phase != OVER:
        state = apply(state, choose(state, rng, spec[2]))
    check_finished(state)


# ---------------------------------------------------------------------------- slams

EXCUSE = 77
PETIT = 56


SLAM_CASES = [
    (i, contract, announce, excuse_with_taker, excuse_trick, petit_trick)
    for i, (contract, announce, (excuse_with_taker, excuse_trick), petit_trick) in enumerate(
        (c, a, e, p)
        for c in ("prise", "garde", "garde_sans", "garde_contre")
        for a in (False, True)
        for e in ((True, 17), (True, 6), (False, -1))
        for p in (16, 17, 4)
    )
]


def slam_deal(seed: int, dealer: int, excuse_with_taker: bool) -> tuple[DealState, int]:
    """The first bidder holds T1 and T6..T21 (and the Excuse, or a plain card while a defender
    has it); the chien holds T2..T5: the defenders have no trump, and a taker who leads every
    trick wins them all."""
    rng = random.Random(seed)
    taker = (dealer + 1) % 4
    plain = list(range(56))
    rng.shuffle(plain)
    hand = [PETIT, *TRUMPS[5:]] + ([EXCUSE] if excuse_with_taker else [plain.pop()])
    chien = [*TRUMPS[1:5], plain.pop(), plain.pop()]
    rest = plain + ([] if excuse_with_taker else [EXCUSE])
    rng.shuffle(rest)
    masks = []
    for s in range(4):
        cards = hand if s == taker else [rest.pop() for _ in range(18)]
        masks.append(sum(1 << c for c in cards))
    return deal_from_masks(dealer, masks, sum(1 << c for c in chien)), taker


@pytest.mark.parametrize(
    ("seed", "contract", "announce", "excuse_with_taker", "excuse_trick", "petit_trick"),
    SLAM_CASES,
)
def test_slams_score_as_the_rules_say(
    seed: int,
    contract: str,
    announce: bool,
    excuse_with_taker: bool,
    excuse_trick: int,
    petit_trick: int,
) -> None:
    """Deals the taker can win trick by trick, announced or not (R6.1, R6.2), with the Excuse
    led to the last trick (R8.3) or played earlier (R8.4: that trick is lost) or held by a
    defender, the Petit in trick 17 or 18 or earlier (R10.2: trick 17 counts after an Excuse
    slam), poignées (R10.3), every contract: every step checked as in the property tests
    (random choices otherwise), the result recounted with the RULES.md formulas (R10.4). Not
    left to hypothesis: each of these cases must run every time."""
    state, taker = slam_deal(seed, seed % 4, excuse_with_taker)
    rng = random.Random(seed)
    state = apply(state, Bid(taker, contract))  # type: ignore[arg-type]
    while state.phase == BIDDING:
        state = apply(state, Bid(state.turn, "pass"))
    if state.phase == DISCARD:
        state = apply(state, choose(state, rng))
    state = apply(state, Chelem(taker, announce))
    while state.phase != OVER:
        for action, rule in wrong_actions(state, rng):
            check_rejected(state, action, rule)
        action = choose(state, rng)
        if state.turn == taker and type(action) is Play:
            # The taker's plan: the Excuse and the Petit at their tricks, else any other card.
            legal = legal_actions(state)
            assert legal is not None
            n = len(state.tricks)
            cards = set(legal.plays)
            if n == excuse_trick and "EX" in cards:
                action = Play(taker, "EX")
            elif n == petit_trick and "T1" in cards:
                action = Play(taker, "T1")
            elif cards - {"EX", "T1"}:
                action = Play(taker, rng.choice(sorted(cards - {"EX", "T1"})))
        prev = state
        state = apply(state, action)
        check_cards_in_one_place(state)
        check_views(prev, action, state)
    res = check_finished(state)
    takers = sum(w == taker for _, _, w in state.tricks)
    if excuse_with_taker and excuse_trick < 17:
        assert takers < 18  # R8.4: the trick of the Excuse is lost
    if excuse_with_taker and excuse_trick == 17 and petit_trick < 17:
        assert takers == 18  # R8.3: the Excuse led to the last trick wins it
        assert res["petit_au_bout"] == (10 * res["multiplier"] if petit_trick == 16 else 0)
    if takers == 18:
        assert res["chelem"] == (400 if announce else 200)
    elif announce:
        assert res["chelem"] == -200


def r66_boundary_deal(seed: int, trumps_in_24: int) -> tuple[DealState, int]:
    """A deal whose first bidder's 24 cards (hand and chien) are the four kings, exactly
    ``trumps_in_24`` trumps from T2 up and plain cards: with 15 trumps there are five plain
    cards, so one trump must be discarded (R5.3) and R6.6 applies at its boundary; with 14
    the six plain cards are discarded and no trump is."""
    rng = random.Random(seed)
    dealer = seed % 4
    taker = (dealer + 1) % 4
    hand = KINGS + TRUMPS[1:15]  # T2..T15
    chien = [TRUMPS[15]] if trumps_in_24 == 15 else []  # T16
    plain = [c for c in range(56) if c not in KINGS]
    rng.shuffle(plain)
    chien += plain[: 6 - len(chien)]
    rest = [c for c in range(78) if c not in hand and c not in chien]
    rng.shuffle(rest)
    masks = []
    for s in range(4):
        cards = hand if s == taker else [rest.pop() for _ in range(18)]
        masks.append(sum(1 << c for c in cards))
    return deal_from_masks(dealer, masks, sum(1 << c for c in chien)), taker


@pytest.mark.parametrize("trumps_in_24", [15, 14])
@pytest.mark.parametrize("seed", range(6))
def test_r6_6_boundary_exactly_15_trumps(seed: int, trumps_in_24: int) -> None:
    """R6.6 with exactly 15 trumps and the four kings: the publicly discarded trump counts
    in a triple poignée (and the 40 points reach the score); with 14 there is no triple.
    Every step is checked as in the property tests, the end with the independent recount."""
    state, taker = r66_boundary_deal(seed, trumps_in_24)
    rng = random.Random(seed)
    state = apply(state, Bid(taker, "garde"))
    while state.phase == BIDDING:
        state = apply(state, Bid(state.turn, "pass"))
    legal = legal_actions(state)
    assert legal is not None and legal.discard is not None
    forced = trumps_in_24 == 15
    assert len(legal.discard.required) == (5 if forced else 0)
    state = apply(state, choose(state, rng))  # a random valid discard
    assert (state.discard & TRUMP_MASK).bit_count() == (1 if forced else 0)
    state = apply(state, Chelem(taker, False))
    declared = False
    while state.phase != OVER:
        for action, rule in wrong_actions(state, rng):
            check_rejected(state, action, rule)
        legal = legal_actions(state)
        assert legal is not None
        levels = {o.level for o in legal.poignees}
        if state.turn == taker and not declared and state.phase == PLAY:
            declared = True
            assert ("triple" in levels) == forced
            assert "double" in levels
            if forced:
                (triple,) = [o for o in legal.poignees if o.level == "triple"]
                shown = (state.hands[taker] | state.discard) & TRUMP_MASK
                assert set(triple.eligible) == set(codes_of(shown))
                action: Any = Poignee(taker, tuple(codes_of(shown)))
            else:
                action = choose(state, rng)
        else:
            action = choose(state, rng)
        prev = state
        state = apply(state, action)
        check_cards_in_one_place(state)
        check_views(prev, action, state)
    res = check_finished(state)
    if forced:
        assert state.poignees[taker].bit_count() == 15
        assert abs(res["poignee"]) >= 40


def test_rigged_deals_reach_interesting_situations() -> None:
    """The generator really produces poignées, forced trump discards and every contract."""
    seen: set[str] = set()
    for seed in range(400):
        state, rng = make_deal((seed, seed % 4, seed % 4, 10 + seed % 6, seed % 3 == 0))
        while state.phase != OVER:
            if state.phase == DISCARD and legal_actions(state).discard.required:
                seen.add("forced")
            state = apply(state, choose(state, rng, seed % 4))
        if any(state.poignees):
            seen.add("poignee")
        if state.reason:
            seen.add(state.reason)
        else:
            seen.add(CONTRACTS[state.contract])
    assert {"poignee", "forced", "prise", "garde", "garde_sans", "garde_contre"} <= seen


# ---------------------------------------------------------------------------- replay never crashes

_GOOD: dict[str, Any] = {}


def _good() -> dict[str, Any]:
    if not _GOOD:
        from helpers_rules import good_record

        _GOOD.update(good_record())
    return _GOOD


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
    | st.sampled_from(["S1", "EX", "T21", "garde", "play", "bid", "pass"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(
    path=st.lists(st.integers(0, 100), min_size=1, max_size=4),
    value=json_values,
    mode=st.sampled_from(["set", "delete", "truncate"]),
    cut=st.integers(0, 20000),
)
def test_replay_line_never_crashes(path: list[int], value: Any, mode: str, cut: int) -> None:
    """Whatever a record is mutated into, replay_line answers a result or an error object whose
    index is -1 or a real action index, and never raises."""
    import copy

    rec = copy.deepcopy(_good())
    if mode == "truncate":
        data = json.dumps(rec)[: cut % (len(json.dumps(rec)) + 1)]
    else:
        node: Any = rec
        for i, step in enumerate(path):
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            if not keys:
                break
            key = keys[step % len(keys)]
            last = i == len(path) - 1 or not isinstance(node[key], dict | list)
            if last:
                if mode == "delete":
                    del node[key]
                else:
                    node[key] = value
                break
            node = node[key]
        data = json.dumps(rec)
    ok, res = replay_line(data)
    if ok:
        assert res["status"] in ("played", "annulled")
        assert sum(res["scores"]) == 0
    else:
        err = res["error"]
        acts = rec.get("actions")
        n_actions = len(acts) if isinstance(acts, list) else 0
        assert err["action_index"] == -1 or 0 <= err["action_index"] < max(n_actions, 1)
        assert isinstance(err["reason"], str)


@given(st.integers(min_value=0, max_value=(1 << 78) - 1))
def test_r1_5_half_points_of_any_set_of_cards_is_the_sum_of_its_cards(mask: int) -> None:
    # half_points counts a set by rank class (bit counts); the table of card values decides.
    from server.rules.cards import HALF_POINTS, half_points

    assert half_points(mask) == sum(HALF_POINTS[i] for i in range(78) if mask >> i & 1)

"""``view(st, seat, masks=True)``, what in-process bots are given (server/tables/drivers.py):
the same view as a client's, with card sets as bitmasks and trick cards as indices; a bot reads
the same knowledge from it and makes the same decisions, in every phase (R4-R7)."""

from __future__ import annotations

import random
from typing import Any

import msgspec

from server.ai import make_bot
from server.ai.knowledge import Knowledge, read_view
from server.rules import OVER, Bid, apply, legal_actions, new_deal
from server.rules.cards import CODES, codes_of
from server.rules.randplay import random_from_legal
from server.rules.views import view

_SETS = ("hand", "chien", "discard", "discard_trumps")


def as_codes(v: dict[str, Any]) -> dict[str, Any]:
    """A masks view written as a client's view."""
    out = dict(v)
    for key in _SETS:
        if out[key] is not None:
            out[key] = codes_of(out[key])
    out["poignees"] = [{**p, "cards": codes_of(p["cards"])} for p in v["poignees"]]
    out.pop("position", None)  # a bot's shortcut, checked against a replay below
    out["tricks"] = [
        {"leader": ld, "cards": [CODES[c] for c in cs], "winner": w} for ld, cs, w in v["tricks"]
    ]
    if v["trick"] is not None:
        out["trick"] = {**v["trick"], "cards": [CODES[c] for c in v["trick"]["cards"]]}
        out["trick"]["winner"] = None
    if v["legal"] is not None:
        out["legal"] = msgspec.to_builtins(v["legal"])
    return out


def _knowledge(k: Knowledge) -> dict[str, Any]:
    # Every field by its public name (played_by is worked out on first read), tricks as lists.
    names = [n.lstrip("_") for n in Knowledge.__slots__ if n != "pos"]
    out = {n: getattr(k, n) for n in names}
    out["tricks"] = [(ld, list(cs), w) for ld, cs, w in k.tricks]
    slots = {n for c in type(k.pos).__mro__ for n in getattr(c, "__slots__", ())} - {"_undo"}
    out["pos"] = {n: getattr(k.pos, n) for n in sorted(slots)}
    return out


def _states(seed: int, deals: int) -> list[Any]:
    """Every state of ``deals`` random deals, all contracts (mostly passes in the bidding),
    poignées shown now and then (random_from_legal's poignee_chance)."""
    rng = random.Random(seed)
    out = []
    for _ in range(deals):
        st = new_deal(rng, rng.randrange(4))
        while st.phase != OVER:
            out.append(st)
            legal = legal_actions(st)
            assert legal is not None
            if legal.bids:
                bid = rng.choice(legal.bids) if rng.random() < 0.3 else "pass"
                st = apply(st, Bid(legal.seat, bid if bid in legal.bids else legal.bids[0]))
            else:
                st = apply(st, random_from_legal(legal, rng, poignee_chance=0.5))
        out.append(st)
    return out


def test_the_masks_view_shows_what_the_client_view_shows() -> None:
    states = _states(1, 30)
    phases = {st.phase for st in states}
    assert {"bidding", "discard", "play", OVER} <= phases
    assert any(any(st.poignees) for st in states)
    for st in states:
        for seat in (0, 1, 2, 3, None):
            assert as_codes(view(st, seat, masks=True)) == view(st, seat)


def test_a_bot_reads_the_same_from_both_and_decides_the_same() -> None:
    bot = make_bot("heuristic", 0)
    assert bot.reads_masks  # type: ignore[attr-defined]
    decisions = 0
    contracts: set[str] = set()
    for st in _states(2, 40):
        legal = legal_actions(st)
        if legal is None:
            continue
        masks, codes = view(st, legal.seat, masks=True), view(st, legal.seat)
        if st.phase == "play":
            # the position given with the masks view holds no hidden card nor saved state...
            pos = masks["position"]
            assert pos.hands == [0, 0, 0, 0] and pos._undo is None
            contracts.add(masks["contract"])
            # ...and is what a replay of the client's view from the first card gives
            assert _knowledge(read_view(masks)) == _knowledge(read_view(codes))
        assert bot.choose(masks, legal) == bot.choose(codes, legal)
        decisions += 1
    assert decisions > 1000
    assert contracts == {"prise", "garde", "garde_sans", "garde_contre"}


def test_a_forced_card_is_played_the_same_without_the_view() -> None:
    # server/tables/drivers.py gives the bots that say ``forced_without_view`` an empty dict
    # for a forced card (one legal card, no poignée): they must play it all the same (R7).
    forced = 0
    for level in ("heuristic", "normal", "easy"):
        bot = make_bot(level, 3)
        assert bot.forced_without_view  # type: ignore[attr-defined]
        for st in _states(4, 15):
            legal = legal_actions(st)
            if legal is None or len(legal.plays) != 1 or legal.poignees:
                continue
            assert bot.choose({}, legal) == bot.choose(view(st, legal.seat, masks=True), legal)
            forced += 1
    assert forced > 100
    assert not getattr(make_bot("random", 0), "forced_without_view", False)


def test_defenders_see_the_discarded_trumps_and_no_other_discarded_card() -> None:
    """R5.4: a taker with fewer than six plain cards besides kings discards trumps, shown to
    all; the rest of the discard stays the taker's. Seat 1 takes a garde holding 15 trumps and 3
    plain cards, with 2 more plain cards in the chien."""
    from server.rules.cards import INDEX, TRUMP_MASK
    from server.rules.deal import deal_from_masks

    def m(*codes: str) -> int:
        return sum(1 << INDEX[c] for c in codes)

    taker = m(*(f"T{i}" for i in range(2, 17)), "S1", "S2", "S3")
    chien = m("T17", "T18", "H1", "H2", "SK", "HK")
    rest = [c for c in range(78) if not (taker | chien) >> c & 1]
    others = [sum(1 << c for c in rest[18 * k : 18 * k + 18]) for k in range(3)]
    st = deal_from_masks(0, [others[0], taker, others[1], others[2]], chien)
    for bid in ("garde", "pass", "pass", "pass"):
        legal = legal_actions(st)
        assert legal is not None
        st = apply(st, Bid(legal.seat, bid))
    bot = make_bot("heuristic", 0)
    shown = 0
    while st.phase != OVER:
        legal = legal_actions(st)
        assert legal is not None
        for seat in (0, 1, 2, 3, None):
            assert as_codes(view(st, seat, masks=True)) == view(st, seat)
        if st.phase == "play":
            masks, codes = view(st, legal.seat, masks=True), view(st, legal.seat)
            assert _knowledge(read_view(masks)) == _knowledge(read_view(codes))
            if legal.seat != 1:
                assert st.discard & TRUMP_MASK and masks["discard"] is None
                assert masks["discard_trumps"] == st.discard & TRUMP_MASK
                shown += 1
        st = apply(st, bot.choose(view(st, legal.seat, masks=True), legal))
    assert shown > 10

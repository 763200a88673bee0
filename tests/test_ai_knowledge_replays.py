"""``read_view`` keeps the replay of the complete tricks (server/ai/knowledge.py) and starts the
next one from it: what it reads must be exactly what a replay from the first card gives, for
every seat, every contract, and with many tables' deals interleaved (the cache is shared)."""

from __future__ import annotations

import random
from typing import Any

from server.ai import knowledge
from server.ai.kernel import new_pos
from server.ai.knowledge import Knowledge, clear_replays, read_view
from server.rules import OVER, Bid, apply, legal_actions, new_deal
from server.rules.actions import GARDE, GARDE_SANS, MULTIPLIERS
from server.rules.cards import FULL_DECK
from server.rules.randplay import random_from_legal
from server.rules.views import view


def _fields_of_pos(pos: Any) -> dict[str, Any]:
    slots = {n for cls in type(pos).__mro__ for n in getattr(cls, "__slots__", ())} - {"_undo"}
    assert {"taker_pile", "voids", "tricks", "played"} <= slots
    return {name: getattr(pos, name) for name in sorted(slots)}


def _fields(k: Knowledge) -> dict[str, Any]:
    out = {name: getattr(k, name) for name in Knowledge.__slots__ if name != "pos"}
    out["pos"] = _fields_of_pos(k.pos)
    return out


def _reference(k: Knowledge) -> tuple[dict[str, Any], list[int]]:
    """The position and who played what, replayed from the first card as read_view did
    before it kept replays."""
    tricks = k.tricks
    leader = tricks[0][0] if tricks else (k.trick_leader if k.trick_leader >= 0 else 0)
    pile = 0  # what the taker owns before the play, as this seat knows it
    if k.contract <= GARDE:
        pile = k.discard_known
    elif k.contract == GARDE_SANS:
        pile = k.chien
    pos = new_pos([FULL_DECK] * 4, k.taker, leader, MULTIPLIERS[k.contract], pile, k.chelem)
    by = [0, 0, 0, 0]
    for ld, cards, _ in [*tricks, (k.trick_leader, k.trick, -1)]:
        for i, c in enumerate(cards):
            by[(ld + i) & 3] |= 1 << c
            pos.play(c)
    pos.hands = [0, 0, 0, 0]
    pos.poignee_half = k.poignee_half
    return _fields_of_pos(pos), by


def _decisions(seed: int, deals: int) -> list[list[dict[str, Any]]]:
    """The play-phase views of the seat to act, deal by deal."""
    rng = random.Random(seed)
    out = []
    while len(out) < deals:
        st = new_deal(rng, rng.randrange(4))
        views = []
        while st.phase != OVER:
            legal = legal_actions(st)
            assert legal is not None
            if st.phase == "play":
                views.append(view(st, legal.seat))
            if legal.bids:  # mostly passes, so that every contract is played
                bid = rng.choice(legal.bids) if rng.random() < 0.3 else "pass"
                st = apply(st, Bid(legal.seat, bid if bid in legal.bids else legal.bids[0]))
                continue
            st = apply(st, random_from_legal(legal, rng))
        if views:
            out.append(views)
    return out


def test_kept_replays_read_what_a_full_replay_reads() -> None:
    deals = _decisions(7, 40)
    contracts = {v["contract"] for views in deals for v in views}
    # the taker's pile differs by contract
    assert contracts == {"prise", "garde", "garde_sans", "garde_contre"}
    # Interleave the deals, as tables do on one server, and read every view twice: cached,
    # and from an empty cache.
    cached, fresh = [], []
    turns = max(len(v) for v in deals)
    for i in range(turns):
        for views in deals:
            if i < len(views):
                k = read_view(views[i])
                assert (_fields_of_pos(k.pos), k.played_by) == _reference(k)
                cached.append(_fields(k))
                saved = dict(knowledge._replays)
                clear_replays()
                fresh.append(_fields(read_view(views[i])))
                knowledge._replays.clear()
                knowledge._replays.update(saved)
    assert cached == fresh


def test_a_reader_cannot_change_a_kept_replay() -> None:
    views = _decisions(3, 1)[0]
    clear_replays()
    late = views[-1]
    k = read_view(late)
    before = _fields(read_view(late))
    k.pos.play(next(c for c in range(78) if not k.pos.played >> c & 1))
    k.played_by[0] = -1
    assert _fields(read_view(late)) == before


def test_the_kept_replays_are_bounded() -> None:
    clear_replays()
    for views in _decisions(11, 300):
        for v in views:
            read_view(v)
    assert 0 < len(knowledge._replays) <= knowledge.REPLAYS_KEPT

"""Deal records ``atout-deal/1`` (docs/deal-record.md): reading, writing and replaying."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from .actions import Action, Discard, IllegalAction, Play, Poignee
from .cards import INDEX, codes_of
from .core import legal_play_mask
from .deal import OVER, PLAY, DealState, apply, deal_from_codes
from .scoring import Score, result_dict, score, score_of

FORMAT = "atout-deal/1"


class Record(msgspec.Struct, kw_only=True):
    """A deal record. Unknown top-level keys are tolerated (readers of later writers)."""

    format: str
    dealer: int
    hands: list[list[str]]
    chien: list[str]
    actions: list[Action]
    result: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None


class MalformedRecord(ValueError):
    """The record itself is not a valid ``atout-deal/1`` deal (action_index -1)."""


class RecordError(ValueError):
    """Replay stopped: ``index`` is the first illegal action, or -1 for a malformed record."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(reason)
        self.index = index
        self.reason = reason


_decoder = msgspec.json.Decoder(Record)
_encoder = msgspec.json.Encoder()


def _check_codes(codes: Iterable[str], where: str) -> None:
    for c in codes:
        if c not in INDEX:
            raise MalformedRecord(f"R1.2: unknown card code {c!r} in {where}")


def start_state(rec: Record) -> DealState:
    """The deal as dealt. Raises MalformedRecord for a bad format, dealer or card set."""
    if rec.format != FORMAT:
        raise MalformedRecord(f"format must be {FORMAT!r}, not {rec.format!r}")
    if rec.dealer not in (0, 1, 2, 3):
        raise MalformedRecord(f"R2.1: dealer must be a seat 0..3, not {rec.dealer}")
    if len(rec.hands) != 4:
        raise MalformedRecord("R2.2: hands must list four hands")
    for s, h in enumerate(rec.hands):
        _check_codes(h, f"hands[{s}]")
    _check_codes(rec.chien, "chien")
    for k, a in enumerate(rec.actions):
        if type(a) is Play:
            if a.card not in INDEX:  # test first: building the label for every card was costly
                _check_codes((a.card,), f"actions[{k}]")
        elif type(a) is Discard or type(a) is Poignee:
            _check_codes(a.cards, f"actions[{k}]")
    try:
        return deal_from_codes(rec.dealer, rec.hands, rec.chien)
    except ValueError as e:
        raise MalformedRecord(str(e)) from None


def replay_record(rec: Record) -> DealState:
    """Apply every action of ``rec``; raises RecordError at the first problem."""
    try:
        st = start_state(rec)
    except MalformedRecord as e:
        raise RecordError(-1, str(e)) from None
    for k, action in enumerate(rec.actions):
        if st.phase == OVER:
            raise RecordError(-1, f"action {k} comes after the deal is over")
        try:
            st = apply(st, action)
        except IllegalAction as e:
            raise RecordError(k, str(e)) from None
    if st.phase != OVER:
        raise RecordError(
            -1, f"the deal is not finished (waiting in phase {st.phase!r} for seat {st.turn})"
        )
    return st


def replay_result(rec: Record) -> Score:
    """The result of ``rec`` (what :func:`replay_record` then :func:`scoring.score` give),
    raising RecordError at the first problem, as :func:`replay_record` does."""
    result = _replay_fast(rec)
    if result is None:
        return score(replay_record(rec))  # raises the exact RecordError
    return result


def _replay_fast(rec: Record) -> Score | None:
    """The result of a legal, complete record, or None at the first anything else.

    The deal is dealt, and the bids, the discard and the chelem decision applied, by
    :func:`deal.apply`; then the cards are played on one core position, each checked on
    bitmasks as ``apply`` checks it (the seat to play, a known card, legal from its hand,
    R7.1-R7.6). An illegal or unknown card, a wrong seat, a poignée (rare: it is checked by
    ``apply``) or any other action, an action after the end, an unfinished deal: None, and
    :func:`replay_record` replays the record from the start to find and word the error."""
    if rec.format != FORMAT or len(rec.hands) != 4:
        return None
    try:
        st = deal_from_codes(rec.dealer, rec.hands, rec.chien)
    except ValueError:
        return None
    actions = rec.actions
    n = len(actions)
    k = 0
    try:
        while st.phase != PLAY:
            if st.phase == OVER:  # annulled (R3)
                return score(st) if k == n else None
            if k == n:
                return None
            st = apply(st, actions[k])
            k += 1
    except IllegalAction:
        return None
    assert st.pos is not None
    if n - k != 72:  # 72 cards exactly, nothing after them (a poignée goes the slow way)
        return None
    pos = st.pos.copy()
    hands = pos.hands
    index = INDEX
    lpm = legal_play_mask
    play = pos.play
    for a in actions[k:]:
        if type(a) is not Play:
            return None
        seat = a.seat
        card = index.get(a.card, -1)
        if seat != pos.turn or card < 0 or not lpm(hands[seat], pos.lead, pos.hi) >> card & 1:
            return None
        play(card)
    return score_of(pos)


def decode_record(data: bytes | str) -> Record:
    """Strictly decode one record. Raises RecordError(-1) on bad JSON or a bad shape."""
    try:
        return _decoder.decode(data)
    except msgspec.DecodeError as e:
        raise RecordError(-1, f"malformed record: {e}") from None
    except RecursionError:  # msgspec's limit on nesting: a line of 1,000 `{"a":` is JSON
        raise RecordError(-1, "malformed record: nested too deeply") from None


def replay_line(data: bytes | str) -> tuple[bool, dict[str, Any]]:
    """Replay one JSON record: (ok, result object or error object)."""
    try:
        result = replay_result(decode_record(data))
    except RecordError as e:
        return False, {"error": {"action_index": e.index, "reason": e.reason}}
    return True, result.to_dict()


def _action_dict(a: Action) -> dict[str, Any]:
    # Lists, not tuples, so that a record equals the same record decoded from JSON.
    d: dict[str, Any] = msgspec.to_builtins(a)
    if "cards" in d:
        d["cards"] = list(d["cards"])
    return d


def record_of(
    st: DealState, *, with_result: bool = True, meta: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The ``atout-deal/1`` record of a deal (complete or not) as a JSON-ready dict."""
    rec: dict[str, Any] = {
        "format": FORMAT,
        "dealer": st.dealer,
        "hands": [codes_of(h) for h in st.initial_hands],
        "chien": codes_of(st.chien),
        "actions": [_action_dict(a) for a in st.action_list()],
    }
    if with_result and st.phase == OVER:
        rec["result"] = result_dict(st)
    if meta:
        rec["meta"] = meta
    return rec


def encode(obj: Any) -> bytes:
    return _encoder.encode(obj)


def iter_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Non-blank lines of a JSON Lines stream."""
    for line in chunks:
        if line.strip():
            yield line

"""Helpers for the rules-engine tests: build deals card by card and play scripted actions.

Two ways to build a deal:

- :func:`deal` fixes some cards of some seats (and of the chien) and fills the rest of the deck
  deterministically, for tests about a single situation (a bid, a discard, one trick);
- :func:`deal_from_tricks` takes a complete deal written as its 18 tricks, each a 4-tuple indexed
  by *seat* (``trick[s]`` is the card seat ``s`` plays), and derives the hands, bids, discard and
  actions from it. Leaders and trick winners are computed here independently of the engine
  (:func:`plan_winner`); the engine must then accept every action.

Scripts (:func:`run`) are whitespace-separated tokens, each applied for the seat whose turn it is:
contract names (``pass``, ``prise``, ``garde``, ``garde_sans``, ``garde_contre``) bid,
``discard:C2,C5,...`` discards, ``chelem``/``nochelem`` decide the chelem, ``poignee:T2,T3,...``
declares a poignée, and any card code plays that card.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec

from server.rules.actions import CONTRACTS, Action, Bid, Chelem, Discard, Play, Poignee
from server.rules.cards import CODES, HALF_POINTS, INDEX
from server.rules.core import Position
from server.rules.deal import OVER, DealState, apply, deal_from_codes
from server.rules.records import record_of

ALL_CODES: tuple[str, ...] = CODES
TRUMPS = tuple(f"T{n}" for n in range(1, 22))
OUDLERS = frozenset({"T1", "T21", "EX"})
CONTRACT_NAMES = frozenset(CONTRACTS)


def cards(text: str | Iterable[str]) -> list[str]:
    """``"S1 H2,T3"`` -> ``["S1", "H2", "T3"]`` (spaces or commas)."""
    if isinstance(text, str):
        return text.replace(",", " ").split()
    return list(text)


def trumps(lo: int, hi: int) -> list[str]:
    """Trumps ``T{lo}``..``T{hi}`` inclusive."""
    return [f"T{n}" for n in range(lo, hi + 1)]


def points(codes: Iterable[str]) -> Fraction:
    """Card points (R1.5), computed from the card codes, independently of the engine's table."""
    total = Fraction(0)
    for c in codes:
        if c in OUDLERS or c.endswith("K"):
            total += Fraction(9, 2)
        elif c[0] in "SHDC" and c[1:] == "Q":
            total += Fraction(7, 2)
        elif c[0] in "SHDC" and c[1:] == "C":
            total += Fraction(5, 2)
        elif c[0] in "SHDC" and c[1:] == "J":
            total += Fraction(3, 2)
        else:
            total += Fraction(1, 2)
    return total


assert points(ALL_CODES) == 91
assert sum(HALF_POINTS) == 2 * points(ALL_CODES)


# ---------------------------------------------------------------------------- partial deals

# Filler order: low plain cards first, so that filled hands rarely change what a test is about.
_FILL_ORDER = (
    sorted(
        (c for c in ALL_CODES if c[0] in "SHDC"),
        key=lambda c: (INDEX[c] % 14, INDEX[c] // 14),
    )
    + [f"T{n}" for n in range(2, 21)]
    + ["T21", "T1", "EX"]
)


def deal(
    hands: dict[int, str | Iterable[str]] | None = None,
    chien: str | Iterable[str] | None = None,
    dealer: int = 3,
) -> DealState:
    """A fresh deal where ``hands[s]`` (and ``chien``) hold at least the given cards; the rest of
    the deck fills the hands in seat order (low plain cards first, then trumps, T21, T1, EX)."""
    fixed: dict[int, list[str]] = {s: cards(h) for s, h in (hands or {}).items()}
    fixed_chien = cards(chien) if chien is not None else []
    used = [c for h in fixed.values() for c in h] + fixed_chien
    if len(set(used)) != len(used):
        raise ValueError(f"a card is fixed twice: {used}")
    pool = [c for c in _FILL_ORDER if c not in set(used)]
    out: list[list[str]] = []
    for s in range(4):
        h = list(fixed.get(s, []))
        while len(h) < 18:
            h.append(pool.pop(0))
        out.append(h)
    ch = list(fixed_chien)
    while len(ch) < 6:
        ch.append(pool.pop(0))
    assert not pool
    return deal_from_codes(dealer, out, ch)


# ---------------------------------------------------------------------------- scripts


def parse_token(seat: int, token: str) -> Action:
    if token in CONTRACT_NAMES:
        return Bid(seat, token)  # type: ignore[arg-type]
    if token == "chelem":
        return Chelem(seat, True)
    if token == "nochelem":
        return Chelem(seat, False)
    if token.startswith("discard:"):
        return Discard(seat, tuple(cards(token[8:])))
    if token.startswith("poignee:"):
        return Poignee(seat, tuple(cards(token[8:])))
    return Play(seat, token)


def run(st: DealState, script: str | Sequence[str]) -> DealState:
    """Apply a script (see the module docstring), each token for the seat whose turn it is."""
    tokens = script.split() if isinstance(script, str) else list(script)
    for tok in tokens:
        st = apply(st, parse_token(st.turn, tok))
    return st


def play_actions(st: DealState, actions: Iterable[Action]) -> DealState:
    for a in actions:
        st = apply(st, a)
    return st


# ---------------------------------------------------------------------------- state comparison


def snapshot(st: DealState) -> tuple[Any, ...]:
    """Every field of a state (its card play position's too), for "an illegal action changed
    nothing" checks."""
    out: list[Any] = []
    for name in DealState.__slots__:
        if name == "actions":
            out.append(tuple(st.action_list()))
        elif name == "pos":
            out.append(position_fields(st.pos) if st.pos is not None else None)
        else:
            out.append(getattr(st, name))
    return tuple(out)


def position_fields(pos: Position) -> dict[str, Any]:
    """Every field of a core position, lists as tuples (comparable, and immune to later
    changes of the position)."""
    out = {}
    for name in Position.__slots__:
        v = getattr(pos, name)
        out[name] = tuple(v) if isinstance(v, list) else v
    return out


# ---------------------------------------------------------------------------- deals as tricks

_RANK = {
    r: i
    for i, r in enumerate(("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"))
}


def _suit(code: str) -> str:
    return "EX" if code == "EX" else ("T" if code[0] == "T" else code[0])


def _strength(code: str, lead: str | None) -> int:
    if code == "EX":
        return -1
    if code[0] == "T":
        return 100 + int(code[1:])
    if code[0] == lead:
        return _RANK[code[1:]]
    return -1


def plan_winner(leader: int, by_seat: Sequence[str], *, last: bool, slam_so_far: bool) -> int:
    """Winner of a trick given as a seat-indexed tuple (R7.4, R7.7, R8.3), written independently
    of the engine. ``slam_so_far``: the leader's team won every earlier trick."""
    order = [(leader + i) % 4 for i in range(4)]
    played = [by_seat[s] for s in order]
    if last and played[0] == "EX" and slam_so_far:
        return leader
    lead = next((_suit(c) for c in played if c != "EX"), None)
    best = max(range(4), key=lambda i: _strength(played[i], lead))
    return order[best]


@dataclass
class Plan:
    """A complete played deal built by :func:`deal_from_tricks`."""

    start: DealState
    actions: list[Action]
    leaders: list[int]
    winners: list[int]
    discard: list[str] = field(default_factory=list)

    def final(self) -> DealState:
        return play_actions(self.start, self.actions)

    def record(self) -> dict[str, Any]:
        return record_of(self.final())


def deal_from_tricks(
    tricks: Sequence[Sequence[str] | str],
    *,
    contract: str,
    taker: int,
    dealer: int = 3,
    discard: str | Iterable[str] | None = None,
    chien: str | Iterable[str] | None = None,
    announce: bool = False,
    poignees: dict[int, str | Iterable[str]] | None = None,
    bids: Sequence[str] | None = None,
) -> Plan:
    """Build a full deal from its 18 tricks (each ``(card of seat 0, seat 1, seat 2, seat 3)``).

    ``prise``/``garde``: the taker's six unplayed cards are the discard; the chien defaults to the
    discard (the taker put the chien straight back), or is any six of the taker's cards.
    ``garde_sans``/``garde_contre``: the six unplayed cards are the chien. Bids default to the
    taker bidding ``contract`` and everyone else passing. Poignées are declared right before the
    declaring seat's first card.
    """
    rows = [cards(t) for t in tricks]
    if len(rows) != 18 or any(len(r) != 4 for r in rows):
        raise ValueError("18 tricks of 4 cards are needed")
    played: list[list[str]] = [[r[s] for r in rows] for s in range(4)]
    flat = [c for r in rows for c in r]
    if len(set(flat)) != 72:
        raise ValueError("a card is played twice")
    unplayed = [c for c in ALL_CODES if c not in set(flat)]
    hands = [list(p) for p in played]
    big = contract in ("prise", "garde")
    disc: list[str] = []
    if big:
        disc = cards(discard) if discard is not None else unplayed
        if sorted(disc) != sorted(unplayed):
            raise ValueError(f"the discard must be the unplayed cards {unplayed}")
        full = played[taker] + disc
        ch = cards(chien) if chien is not None else list(disc)
        if not set(ch) <= set(full):
            raise ValueError("the chien must be among the taker's 24 cards")
        hands[taker] = [c for c in full if c not in set(ch)]
    else:
        ch = unplayed
    start = deal_from_codes(dealer, hands, ch)

    first = (dealer + 1) % 4
    actions: list[Action] = []
    speak = (
        list(bids)
        if bids is not None
        else [contract if (first + i) % 4 == taker else "pass" for i in range(4)]
    )
    for i, b in enumerate(speak):
        actions.append(Bid((first + i) % 4, b))  # type: ignore[arg-type]
    if big:
        actions.append(Discard(taker, tuple(disc)))
    actions.append(Chelem(taker, announce))
    pg = {s: tuple(cards(c)) for s, c in (poignees or {}).items()}

    leader = taker if announce else first
    leaders, winners = [], []
    for n, row in enumerate(rows):
        leaders.append(leader)
        team_all = all((w == taker) == (leader == taker) for w in winners)
        w = plan_winner(leader, row, last=n == 17, slam_so_far=team_all)
        for i in range(4):
            s = (leader + i) % 4
            if n == 0 and s in pg:
                actions.append(Poignee(s, pg[s]))
            actions.append(Play(s, row[s]))
        winners.append(w)
        leader = w
    return Plan(start, actions, leaders, winners, disc)


# ---------------------------------------------------------------------------- records


def dump_record(rec: dict[str, Any]) -> str:
    return json.dumps(rec, separators=(",", ":"))


def actions_json(actions: Iterable[Action]) -> list[dict[str, Any]]:
    return [msgspec.to_builtins(a) for a in actions]


@dataclass(frozen=True)
class TeamCount:
    """Card points of both teams recomputed from a record (R8, R9.1), without the engine."""

    taker: Fraction
    defence: Fraction
    taker_tricks: int
    taker_oudlers: int
    winners: tuple[int, ...] = ()


def count_record(rec: dict[str, Any]) -> TeamCount:
    """Recount a finished, played record from its actions alone."""
    acts = rec["actions"]
    bids = [a for a in acts if a["type"] == "bid"]
    taker = -1
    contract = "pass"
    for b in bids:
        if b["contract"] != "pass":
            taker, contract = b["seat"], b["contract"]
    assert taker >= 0
    discard = next((a["cards"] for a in acts if a["type"] == "discard"), [])
    plays = [(a["seat"], a["card"]) for a in acts if a["type"] == "play"]
    assert len(plays) == 72
    pile_t: list[str] = []
    pile_d: list[str] = []
    adjust = Fraction(0)
    taker_tricks = 0
    won_by_taker: list[bool] = []
    winners: list[int] = []
    for n in range(18):
        trick = plays[4 * n : 4 * n + 4]
        leader = trick[0][0]
        by_seat = ["?"] * 4
        for s, c in trick:
            by_seat[s] = c
        slam = all(w == (leader == taker) for w in won_by_taker)
        w = plan_winner(leader, by_seat, last=n == 17, slam_so_far=slam)
        winners.append(w)
        t_wins = w == taker
        won_by_taker.append(t_wins)
        taker_tricks += t_wins
        for s, c in trick:
            if c != "EX":
                (pile_t if t_wins else pile_d).append(c)
                continue
            ex_taker = s == taker
            if n < 17:
                (pile_t if ex_taker else pile_d).append(c)
                if ex_taker != t_wins:
                    adjust += Fraction(1, 2) if t_wins else Fraction(-1, 2)
            elif trick[0][1] == "EX" and w == leader and slam:
                (pile_t if ex_taker else pile_d).append(c)
            else:
                (pile_d if ex_taker else pile_t).append(c)
    if contract in ("prise", "garde"):
        pile_t += discard
    elif contract == "garde_sans":
        pile_t += rec["chien"]
    else:
        pile_d += rec["chien"]
    assert len(pile_t) + len(pile_d) == 78
    return TeamCount(
        points(pile_t) + adjust,
        points(pile_d) - adjust,
        taker_tricks,
        sum(c in OUDLERS for c in pile_t),
        tuple(winners),
    )


# RULES.md numbers, written out here apart from the engine's tables.
_MULTIPLIER = {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}  # R4.2
_TARGET = {0: 56, 1: 51, 2: 41, 3: 36}  # R9.2
_POIGNEE_VALUE = {10: 20, 13: 30, 15: 40}  # R6.3, R10.3


def _number(x: Fraction | int) -> int | float:
    x = Fraction(x)
    return int(x) if x.denominator == 1 else float(x)


def recount_result(rec: dict[str, Any]) -> dict[str, Any]:
    """The ``result`` object of a finished record, recomputed from its hands and actions alone
    with the formulas of RULES.md R3, R9 and R10 (card points by :func:`count_record`)."""
    for hand in rec["hands"]:
        trumps_held = [c for c in hand if c.startswith("T")]
        if trumps_held == ["T1"] and "EX" not in hand:
            return {"status": "annulled", "reason": "petit_sec", "scores": [0, 0, 0, 0]}  # R3.1
    acts = rec["actions"]
    bids = [a["contract"] for a in acts if a["type"] == "bid"]
    if all(b == "pass" for b in bids):
        return {"status": "annulled", "reason": "all_passed", "scores": [0, 0, 0, 0]}  # R3.2
    c = count_record(rec)
    taker = next(a["seat"] for a in acts if a["type"] == "chelem")
    contract = [b for b in bids if b != "pass"][-1]
    mult = _MULTIPLIER[contract]
    announced = next(a["announce"] for a in acts if a["type"] == "chelem")
    target = _TARGET[c.taker_oudlers]
    won = c.taker >= target
    sign = 1 if won else -1
    base = sign * (25 + abs(c.taker - target)) * mult  # R10.1
    # R10.2: T1 in the last trick; after a slam completed by the Excuse led to the last trick
    # (R8.3), the trick before it instead.
    plays = [a for a in acts if a["type"] == "play"]
    last = plays[68:72]
    excuse_slam = last[0]["card"] == "EX" and c.winners[17] == last[0]["seat"]
    looked_at = 16 if excuse_slam else 17
    petit = 0
    if "T1" in {a["card"] for a in plays[4 * looked_at : 4 * looked_at + 4]}:
        petit = (10 if c.winners[looked_at] == taker else -10) * mult
    # R10.3: every declared poignée to the team that wins the contract.
    poignee = sign * sum(_POIGNEE_VALUE[len(a["cards"])] for a in acts if a["type"] == "poignee")
    # R10.4
    if announced:
        chelem = 400 if c.taker_tricks == 18 else -200
    elif c.taker_tricks == 18:
        chelem = 200
    elif c.taker_tricks == 0:
        chelem = -200
    else:
        chelem = 0
    per_defender = base + petit + poignee + chelem  # R10.5
    return {
        "status": "played",
        "taker": taker,
        "contract": contract,
        "multiplier": mult,
        "chelem_announced": announced,
        "oudlers": c.taker_oudlers,
        "target": target,
        "taker_points": _number(c.taker),
        "won": won,
        "base": _number(base),
        "petit_au_bout": petit,
        "poignee": poignee,
        "chelem": chelem,
        "per_defender": _number(per_defender),
        "scores": [_number(3 * per_defender if s == taker else -per_defender) for s in range(4)],
    }


def oracle_plays(hand: Iterable[str], trick: Sequence[str]) -> set[str]:
    """Cards that may be played (R7.3-R7.6), from codes, written apart from the engine."""
    hand = set(hand)
    lead = next((_suit(c) for c in trick if c != "EX"), None)
    if lead is None:
        return hand
    ex = hand & {"EX"}
    if lead != "T":
        follow = {c for c in hand if _suit(c) == lead}
        if follow:
            return follow | ex
    trumps_held = {c for c in hand if _suit(c) == "T"}
    if trumps_held:
        high = max((int(c[1:]) for c in trick if _suit(c) == "T"), default=0)
        over = {c for c in trumps_held if int(c[1:]) > high}
        return (over or trumps_held) | ex
    return hand


# ---------------------------------------------------------------------------- illegal actions


def assert_illegal(st: DealState, action: Action, rule: str) -> str:
    """``action`` must be refused citing ``rule``, leave ``st`` exactly as it was, and ``st`` must
    still accept a legal action afterwards. Returns the error message."""
    from server.rules.actions import IllegalAction
    from server.rules.deal import legal_actions
    from server.rules.randplay import random_from_legal

    before = snapshot(st)
    legal_before = legal_actions(st)
    try:
        apply(st, action)
    except IllegalAction as e:
        assert e.rule == rule, f"expected {rule}, got {e.rule}: {e}"
        msg = str(e)
    else:
        raise AssertionError(f"{action!r} was accepted; {rule} should forbid it")
    assert snapshot(st) == before, "an illegal action changed the state"
    assert legal_actions(st) == legal_before
    if legal_before is not None:
        import random

        nxt = random_from_legal(legal_before, random.Random(0), poignee_chance=0.0)
        after = apply(st, nxt)
        assert after.n_actions == st.n_actions + 1
    return msg


def is_over(st: DealState) -> bool:
    return st.phase == OVER


# ---------------------------------------------------------------------------- deal templates
#
# Complete deals written as tricks (seat 0, seat 1, seat 2, seat 3). Dealer 3, so seat 0 leads
# the first trick; seat 0 is the taker in every template. Tests derive variants with
# :func:`variant`, replacing whole tricks (1-based numbers, as in the rules' "trick 17").

# BASE: the taker pulls the trumps (tricks 1-5, the defence's Petit falls in trick 4 and a
# defender plays the Excuse in trick 5), then cashes kings, queens and cavaliers, and ruffs the
# last two club tricks. Chien (unplayed): S1 S2 H1 H2 D1 D2.
BASE: tuple[str, ...] = (
    "T21 T14 T9 T4",
    "T20 T13 T8 T3",
    "T19 T12 T7 T2",
    "T18 T11 T6 T1",
    "T17 T10 T5 EX",
    "SK S3 S4 S5",
    "SQ S6 S7 S8",
    "SC S9 S10 SJ",
    "HK H3 H4 H5",
    "HQ H6 H7 H8",
    "HC H9 H10 HJ",
    "DK D3 D4 D5",
    "DQ D6 D7 D8",
    "DC D9 D10 DJ",
    "CK C1 C2 C3",
    "CQ C4 C5 C6",
    "T16 C7 C8 C9",
    "T15 C10 CJ CC",
)

# PLAIN: five trump tricks pull every trump (T15 stays in the chien), then everybody follows suit
# until the last trick, where seat 1 (void in clubs) discards DJ and seat 3 plays the Excuse.
# Chien: S1 S2 H1 H2 D1 T15.
PLAIN: tuple[str, ...] = (
    "T21 T14 T9 T4",
    "T20 T13 T8 T3",
    "T19 T12 T7 T2",
    "T18 T11 T6 T1",
    "T17 T10 T5 T16",
    "SK S3 S4 S5",
    "SQ S6 S7 S8",
    "SC S9 S10 SJ",
    "HK H3 H4 H5",
    "HQ H6 H7 H8",
    "HC H9 H10 HJ",
    "DK D2 D3 D4",
    "DQ D5 D6 D7",
    "DC D8 D9 D10",
    "CK C1 C2 C3",
    "CQ C4 C5 C6",
    "CC C7 C8 C9",
    "CJ DJ C10 EX",
)

# TRUMPS: the taker holds ten trumps (T13..T21 and the Petit: a single poignée), draws the
# defence's trumps in four tricks (the Excuse falls in trick 4), cashes its eight plain honours
# and ends with five trump leads, the Petit last, on which the defenders discard.
# Chien/discard: S1 S2 H1 H2 D1 D2.
TRUMPS: tuple[str, ...] = (
    "T21 T12 T8 T4",
    "T20 T11 T7 T3",
    "T19 T10 T6 T2",
    "T18 T9 T5 EX",
    "SK S7 S9 S10",
    "SQ S8 SC SJ",
    "HK H7 H9 H10",
    "HQ H8 HC HJ",
    "DK D7 D9 D10",
    "DQ D8 DC DJ",
    "CK C7 C8 C9",
    "CQ C10 CJ CC",
    "T17 S3 S5 S6",
    "T16 S4 H4 H6",
    "T15 H3 H5 D5",
    "T14 D3 D4 D6",
    "T13 C1 C3 C5",
    "T1 C2 C4 C6",
)
TRUMPS_POIGNEE = ("T1", "T13", "T14", "T15", "T16", "T17", "T18", "T19", "T20", "T21")


def variant(rows: Sequence[str], changes: dict[int, str]) -> list[str]:
    """``rows`` with the tricks numbered (1-based) in ``changes`` replaced."""
    out = list(rows)
    for n, trick in changes.items():
        out[n - 1] = trick
    return out


# ---------------------------------------------------------------------------- files and processes

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


CORPUS_NAME = Path("conformance") / "published-deals.jsonl"
# The repository keeps a copy of the published deals, so that a lone clone runs them too.
REPO_CORPUS = DATA / CORPUS_NAME


def corpus_candidates() -> list[Path]:
    """Where the published deals may be, in order: ``$ATOUT_SHARED``, ``../shared`` beside the
    clone, ``shared/`` inside it, then the repository's own copy (``tests/data``)."""
    env = os.environ.get("ATOUT_SHARED")
    roots = ([Path(env)] if env else []) + [REPO.parent / "shared", REPO / "shared"]
    return [r / CORPUS_NAME for r in roots] + [REPO_CORPUS]


def corpus_path() -> Path:
    """The first location that holds the published deals. Raises FileNotFoundError (the
    conformance tests then fail, never skip) when none does."""
    for path in corpus_candidates():
        if path.is_file():
            return path
    raise FileNotFoundError(
        "published-deals.jsonl not found in any of: "
        + ", ".join(str(p) for p in corpus_candidates())
    )


def corpus_lines() -> list[str]:
    return [line for line in corpus_path().read_text().splitlines() if line.strip()]


def run_replay(path: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """``atout-server replay PATH`` as a real process, from this interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "replay", path],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        timeout=60,
    )


# ---------------------------------------------------------------------------- sample bad records


def good_record() -> dict[str, Any]:
    """A legal, finished record: BASE played as a garde by seat 0."""
    return deal_from_tricks(BASE, contract="garde", taker=0).record()


def bad_records() -> list[tuple[str, str, int]]:
    """(name, JSON line, expected action_index) for records that must not replay."""
    g = good_record()
    out: list[tuple[str, str, int]] = []

    def add(name: str, rec: Any, index: int) -> None:
        out.append((name, rec if isinstance(rec, str) else json.dumps(rec), index))

    add("bad json", '{"format": "atout-deal/1", "dealer": 0,', -1)
    add("not an object", "[1, 2, 3]", -1)
    # JSON, but nested past the decoder's limit (the replay command crashed on it)
    add("nested objects", '{"a":' * 2000 + "1" + "}" * 2000, -1)
    add(
        "nested arrays in a field",
        '{"format": "atout-deal/1", "x": ' + "[" * 5000 + "]" * 5000 + "}",
        -1,
    )
    r = copy.deepcopy(g)
    r["format"] = "atout-deal/2"
    add("wrong format", r, -1)
    for key in ("format", "dealer", "hands", "chien", "actions"):
        r = copy.deepcopy(g)
        del r[key]
        add(f"missing {key}", r, -1)
    r = copy.deepcopy(g)
    r["dealer"] = "3"
    add("dealer as a string", r, -1)
    r = copy.deepcopy(g)
    r["dealer"] = 4
    add("dealer out of range", r, -1)
    r = copy.deepcopy(g)
    r["hands"] = "S1 S2"
    add("hands not a list", r, -1)
    r = copy.deepcopy(g)
    r["actions"][0]["seat"] = "0"
    add("seat as a string", r, -1)
    r = copy.deepcopy(g)
    r["actions"][0] = {"seat": 0, "type": "shout", "contract": "garde"}
    add("unknown action type", r, -1)
    r = copy.deepcopy(g)
    del r["actions"][6]["card"]
    add("action missing a field", r, -1)
    r = copy.deepcopy(g)
    r["hands"][1][0] = r["hands"][2][0]
    add("duplicate card", r, -1)
    r = copy.deepcopy(g)
    r["hands"][1][0] = "Z7"
    add("unknown card code in a hand", r, -1)
    r = copy.deepcopy(g)
    r["chien"] = r["chien"][:5]
    add("short chien", r, -1)
    r = copy.deepcopy(g)
    r["hands"] = r["hands"][:3]
    add("three hands", r, -1)
    r = copy.deepcopy(g)
    r["hands"][0] = [*r["hands"][0], r["chien"][0]]
    r["chien"] = r["chien"][1:]
    add("19-card hand", r, -1)
    r = copy.deepcopy(g)
    first_play = next(i for i, a in enumerate(r["actions"]) if a["type"] == "play")
    r["actions"][first_play]["card"] = "Q9"
    add("unknown card code in an action", r, -1)
    r = copy.deepcopy(g)
    r["actions"] = r["actions"][:-1]
    add("deal not finished", r, -1)
    r = copy.deepcopy(g)
    r["actions"].append({"seat": 0, "type": "play", "card": "T21"})
    add("action after the deal is over", r, -1)
    r = record_of(run(deal(), "pass pass pass pass"))
    r["actions"].append({"seat": 0, "type": "bid", "contract": "prise"})
    add("bid after all passed", r, -1)
    # Illegal actions: the first one's index.
    r = copy.deepcopy(g)
    r["actions"][0]["seat"] = 2
    add("first bid out of turn", r, 0)
    r = copy.deepcopy(g)
    r["actions"][2]["contract"] = "prise"  # after seat 0's garde
    add("bid not higher", r, 2)
    r = copy.deepcopy(g)
    disc = next(i for i, a in enumerate(r["actions"]) if a["type"] == "discard")
    r["actions"][disc]["cards"][0] = "SK"
    add("king discarded", r, disc)
    r = copy.deepcopy(g)
    # Trick 6 of BASE: seat 1 answers SK with S3; playing a heart instead is a revoke (R7.5).
    k = next(i for i, a in enumerate(r["actions"]) if a.get("card") == "S3")
    r["actions"][k]["card"] = "H3"
    add("revoke", r, k)
    return out


def rotate(rows: Sequence[str], k: int) -> list[str]:
    """The same deal with every seat moved ``k`` places on (seat s plays what seat s-k played)."""
    out = []
    for r in rows:
        c = cards(r)
        out.append(" ".join(c[(s - k) % 4] for s in range(4)))
    return out


# R10.6: garde, the taker (seat 2) ends with 2 oudlers and 45 points, no bonus: +58 per defender.
# TRUMPS turned two seats on; the defence wins the spade, heart and diamond tricks (42 points) and
# the Petit is led early so that it is not in the last trick.
R10_6_ROWS = rotate(
    variant(
        TRUMPS,
        {
            5: "S7 SK S9 S10",
            6: "S8 SQ SC SJ",
            7: "H7 HK H9 H10",
            8: "H8 HQ HC HJ",
            9: "D7 DK D9 D10",
            10: "D8 DQ DC DJ",
            13: "T1 S3 S5 S6",
            18: "T17 C2 C4 C6",
        },
    ),
    2,
)


#: Issue 13, error 1: five small trumps, the 21 and one king. The old hand count bid garde
#: with it (-366 in the deal observed); the AI tests check that the bots pass.
ISSUE_13_HAND = [
    "S1",
    "S4",
    "S6",
    "S10",
    "SK",
    "H1",
    "H4",
    "CQ",
    "D3",
    "D4",
    "DJ",
    "DC",
    "DQ",
    "T2",
    "T3",
    "T4",
    "T9",
    "T21",
]

"""A readable reference replayer for ``atout-deal/1`` records, written from RULES.md alone.

    python bench/reference_engine.py PATH      # PATH: a .json record, a .jsonl file, or -

It prints what ``atout-server replay`` prints (one JSON line per record: the result object, or
``{"error": {"action_index": K, "reason": "..."}}``) and exits 0 or 2 the same way. It does not
import ``server``: cards are plain strings such as ``"H10"``, hands are lists, and every rule is
spelt out the way the rule text says it, with no bitmasks and no precomputed tables. It is
deliberately unoptimised; ``bench/replay.py`` times the real server against it and checks
that both print the same results for the same records.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from typing import Any

# ---------------------------------------------------------------------------- R1: cards

PLAIN_SUITS = ["S", "H", "D", "C"]
PLAIN_RANKS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"]  # low→high
DECK = (
    [suit + rank for suit in PLAIN_SUITS for rank in PLAIN_RANKS]
    + [f"T{n}" for n in range(1, 22)]
    + ["EX"]
)
OUDLERS = ["T1", "T21", "EX"]
KINGS = ["SK", "HK", "DK", "CK"]
CONTRACTS = ["pass", "prise", "garde", "garde_sans", "garde_contre"]  # lowest first
MULTIPLIER = {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}
POIGNEE_BONUS = {10: 20, 13: 30, 15: 40}
TARGET = {0: 56, 1: 51, 2: 41, 3: 36}


def is_trump(card: str) -> bool:
    return card.startswith("T")


def suit_of(card: str) -> str:
    """ "S", "H", "D", "C", "trump" or "excuse"."""
    if card == "EX":
        return "excuse"
    if is_trump(card):
        return "trump"
    return card[0]


def rank_of(card: str) -> int:
    """Higher is stronger inside a suit (R1.3)."""
    if is_trump(card):
        return int(card[1:])
    return PLAIN_RANKS.index(card[1:])


def points(card: str) -> Fraction:
    """R1.5."""
    if card in OUDLERS or card in KINGS:
        return Fraction(9, 2)
    if not is_trump(card) and card != "EX":
        rank = card[1:]
        if rank == "Q":
            return Fraction(7, 2)
        if rank == "C":
            return Fraction(5, 2)
        if rank == "J":
            return Fraction(3, 2)
    return Fraction(1, 2)


def is_plain(card: str) -> bool:
    """R5.3: a non-trump card that is not a king (the Excuse is not plain)."""
    return card != "EX" and not is_trump(card) and card not in KINGS


def number(x: Fraction | int) -> int | float:
    """Points as JSON numbers: whole numbers as integers, halves as x.5."""
    x = Fraction(x)
    return int(x) if x.denominator == 1 else float(x)


# ---------------------------------------------------------------------------- errors


class Malformed(Exception):
    """The record itself is wrong (action_index -1)."""


class Illegal(Exception):
    """Action ``index`` breaks a rule."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(reason)
        self.index = index


# ---------------------------------------------------------------------------- record shape


def is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_card_list(x: Any, where: str) -> list[str]:
    if not isinstance(x, list) or not all(isinstance(c, str) for c in x):
        raise Malformed(f"{where} must be a list of card codes")
    for c in x:
        if c not in DECK:
            raise Malformed(f"R1.2: unknown card code {c!r} in {where}")
    return x


def check_shape(rec: Any) -> None:
    """Everything that makes a record malformed rather than illegal (spec: action_index -1)."""
    if not isinstance(rec, dict):
        raise Malformed("a record is a JSON object")
    for key in ("format", "dealer", "hands", "chien", "actions"):
        if key not in rec:
            raise Malformed(f"missing field {key!r}")
    if rec["format"] != "atout-deal/1":
        raise Malformed(f"unknown format {rec['format']!r}")
    if not is_int(rec["dealer"]) or rec["dealer"] not in (0, 1, 2, 3):
        raise Malformed("R2.1: dealer must be a seat 0..3")
    hands = rec["hands"]
    if not isinstance(hands, list) or len(hands) != 4:
        raise Malformed("R2.2: four hands are needed")
    for s, hand in enumerate(hands):
        check_card_list(hand, f"hands[{s}]")
    check_card_list(rec["chien"], "chien")
    for key in ("result", "meta"):
        if rec.get(key) is not None and not isinstance(rec[key], dict):
            raise Malformed(f"{key} must be an object")
    if not isinstance(rec["actions"], list):
        raise Malformed("actions must be a list")
    fields = {
        "bid": {"contract": str},
        "discard": {"cards": list},
        "chelem": {"announce": bool},
        "poignee": {"cards": list},
        "play": {"card": str},
    }
    for k, a in enumerate(rec["actions"]):
        if not isinstance(a, dict) or a.get("type") not in fields:
            raise Malformed(f"action {k} has no known type")
        if not is_int(a.get("seat")):
            raise Malformed(f"action {k} needs an integer seat")
        for name, kind in fields[a["type"]].items():
            if not isinstance(a.get(name), kind):
                raise Malformed(f"action {k} needs {name!r}")
        if a["type"] == "bid" and a["contract"] not in CONTRACTS:
            raise Malformed(f"action {k}: unknown contract {a['contract']!r}")
        if a["type"] == "play":
            check_card_list([a["card"]], f"actions[{k}]")
        if a["type"] in ("discard", "poignee"):
            check_card_list(a["cards"], f"actions[{k}]")
    # R1.1, R2.2: 18 cards a hand, 6 in the chien, the 78 cards once each.
    for s, hand in enumerate(hands):
        if len(hand) != 18:
            raise Malformed(f"R2.2: hand {s} must hold 18 cards")
    if len(rec["chien"]) != 6:
        raise Malformed("R2.2: the chien must hold 6 cards")
    dealt = [c for hand in hands for c in hand] + rec["chien"]
    if sorted(dealt) != sorted(DECK):
        raise Malformed("R1.1: hands and chien must hold the 78 cards, each once")


# ---------------------------------------------------------------------------- the deal


def petit_sec(hand: list[str]) -> bool:
    """R3.1: the Petit, no other trump, no Excuse."""
    trumps = [c for c in hand if is_trump(c)]
    return trumps == ["T1"] and "EX" not in hand


def legal_cards(hand: list[str], trick: list[str]) -> list[str]:
    """R7.3–R7.6: the cards of ``hand`` that may be played onto ``trick``."""
    led = [suit_of(c) for c in trick if c != "EX"]
    if not led:
        return list(hand)  # first card, or only the Excuse so far (R7.4)
    lead = led[0]
    excuse = [c for c in hand if c == "EX"]  # R7.3: always allowed
    if lead != "trump":
        followers = [c for c in hand if suit_of(c) == lead]
        if followers:
            return followers + excuse
    trumps = [c for c in hand if is_trump(c)]
    if not trumps:
        return list(hand)
    in_trick = [rank_of(c) for c in trick if is_trump(c)]
    highest = max(in_trick) if in_trick else 0
    higher = [c for c in trumps if rank_of(c) > highest]
    return (higher or trumps) + excuse


def trick_winner(plays: list[tuple[int, str]]) -> int:
    """R7.7: the seat with the highest trump, else with the highest card of the led suit."""
    trumps = [(rank_of(c), seat) for seat, c in plays if is_trump(c)]
    if trumps:
        return max(trumps)[1]
    lead = next(suit_of(c) for _, c in plays if c != "EX")
    return max((rank_of(c), seat) for seat, c in plays if suit_of(c) == lead)[1]


def valid_discard(full_hand: list[str], cards: list[str]) -> str | None:
    """The broken rule, or None (R5.1–R5.3)."""
    if len(cards) != 6 or len(set(cards)) != 6:
        return "R5.1: the discard is six different cards"
    if any(c not in full_hand for c in cards):
        return "R5.1: only cards of the hand can be discarded"
    if any(c in KINGS or c in OUDLERS for c in cards):
        return "R5.2: no king or oudler in the discard"
    plain = [c for c in full_hand if is_plain(c)]
    if len(plain) >= 6:
        if any(not is_plain(c) for c in cards):
            return "R5.3: with six plain cards the discard is all plain"
        return None
    if any(c not in cards for c in plain):
        return "R5.3: every plain card must be discarded"
    if any(not is_plain(c) and not is_trump(c) for c in cards):
        return "R5.3: only trumps may complete the discard"
    return None


def valid_poignee(
    cards: list[str], hand: list[str], discarded_trumps_allowed: list[str]
) -> str | None:
    """R6.3–R6.6. ``discarded_trumps_allowed``: trumps the taker discarded that R6.6 lets
    them show in a triple."""
    size = len(cards)
    if size not in POIGNEE_BONUS or len(set(cards)) != size:
        return "R6.4: a poignée is 10, 13 or 15 different cards"
    held = [c for c in hand if is_trump(c)]
    if size == 15:
        held = held + discarded_trumps_allowed
    for c in cards:
        if c == "EX":
            if c not in hand:
                return "R6.4: the Excuse is not in the hand"
        elif c not in held:
            return f"R6.4: {c} is not one of the player's trumps"
    if "EX" in cards and sorted(c for c in cards if c != "EX") != sorted(held):
        return "R6.4: the Excuse stands in only when every trump is shown"
    return None


class Deal:
    """One deal being replayed, phase by phase, as the rules describe it."""

    def __init__(self, rec: dict[str, Any]) -> None:
        self.dealer: int = rec["dealer"]
        self.hands: list[list[str]] = [list(h) for h in rec["hands"]]
        self.chien: list[str] = list(rec["chien"])
        self.actions: list[dict[str, Any]] = rec["actions"]
        self.first = (self.dealer + 1) % 4  # R2.3
        self.taker = -1
        self.contract = "pass"
        self.discard: list[str] = []
        self.chelem = False
        self.poignees: list[list[str]] = []
        self.tricks: list[tuple[list[tuple[int, str]], int]] = []  # (plays, winner)
        self.k = 0  # index of the next action

    # -- reading actions

    def next_action(self, seat: int, allowed: tuple[str, ...]) -> dict[str, Any]:
        if self.k >= len(self.actions):
            raise Malformed(f"the deal is not finished (seat {seat} must act)")
        a = self.actions[self.k]
        if a["seat"] != seat:
            raise Illegal(self.k, f"R2.3: seat {seat} is to act, not seat {a['seat']}")
        if a["type"] not in allowed:
            raise Illegal(self.k, f"expected {' or '.join(allowed)}, not {a['type']}")
        self.k += 1
        return a

    # -- the phases

    def run(self) -> dict[str, Any]:
        if any(petit_sec(h) for h in self.hands):
            return self.annulled("petit_sec")
        self.bidding()
        if self.taker < 0:
            return self.annulled("all_passed")
        if self.contract in ("prise", "garde"):
            self.take_chien()
        a = self.next_action(self.taker, ("chelem",))
        self.chelem = a["announce"]
        leader = self.taker if self.chelem else self.first  # R6.2, R7.2
        for trick_no in range(18):
            leader = self.play_trick(trick_no, leader)
        if self.k < len(self.actions):
            raise Malformed(f"action {self.k} comes after the deal is over")
        return self.score()

    def annulled(self, reason: str) -> dict[str, Any]:
        if self.k < len(self.actions):
            raise Malformed(f"action {self.k} comes after the deal is over")
        return {"status": "annulled", "reason": reason, "scores": [0, 0, 0, 0]}

    def bidding(self) -> None:
        best = 0
        for i in range(4):  # R4.1
            seat = (self.first + i) % 4
            a = self.next_action(seat, ("bid",))
            level = CONTRACTS.index(a["contract"])
            if level == 0:
                continue
            if level <= best:
                raise Illegal(self.k - 1, f"R4.2: {a['contract']} does not beat the last bid")
            best = level
            self.taker = seat
            self.contract = a["contract"]

    def take_chien(self) -> None:
        hand = self.hands[self.taker] + self.chien  # R5.1
        a = self.next_action(self.taker, ("discard",))
        problem = valid_discard(hand, a["cards"])
        if problem:
            raise Illegal(self.k - 1, problem)
        self.discard = list(a["cards"])
        self.hands[self.taker] = [c for c in hand if c not in self.discard]

    def r66_trumps(self, seat: int) -> list[str]:
        """R6.6: the discarded trumps a taker with four kings and 15+ trumps may show."""
        if seat != self.taker or not self.discard:
            return []
        full = self.hands[self.taker] + self.discard  # unchanged before the first card
        forced = [c for c in self.discard if is_trump(c)]
        four_kings = all(k in full for k in KINGS)
        many_trumps = len([c for c in full if is_trump(c)]) >= 15
        return forced if forced and four_kings and many_trumps else []

    def play_trick(self, trick_no: int, leader: int) -> int:
        plays: list[tuple[int, str]] = []
        for i in range(4):
            seat = (leader + i) % 4
            hand = self.hands[seat]
            allowed: tuple[str, ...] = ("play",)
            if trick_no == 0:
                allowed = ("play", "poignee")  # R6.3 Reading: before the seat's first card
            a = self.next_action(seat, allowed)
            if a["type"] == "poignee":
                problem = valid_poignee(a["cards"], hand, self.r66_trumps(seat))
                if problem:
                    raise Illegal(self.k - 1, problem)
                self.poignees.append(list(a["cards"]))
                a = self.next_action(seat, ("play",))
            card = a["card"]
            if card not in hand:
                raise Illegal(self.k - 1, f"R7.1: {card} is not in seat {seat}'s hand")
            if card not in legal_cards(hand, [c for _, c in plays]):
                raise Illegal(self.k - 1, f"R7.5/R7.6: {card} may not be played now")
            hand.remove(card)
            plays.append((seat, card))
        winner = trick_winner(plays)
        if trick_no == 17 and plays[0][1] == "EX" and self.won_all(leader):
            winner = leader  # R8.3
        self.tricks.append((plays, winner))
        return winner

    def won_all(self, seat: int) -> bool:
        """Did ``seat``'s team win every trick so far?"""
        team = seat == self.taker
        return all((winner == self.taker) == team for _, winner in self.tricks)

    # -- R8, R9, R10

    def score(self) -> dict[str, Any]:
        taker = self.taker
        pile: list[str] = []
        transfer = Fraction(0)
        excuse_wins_last = False
        for no, (plays, winner) in enumerate(self.tricks):
            taker_won = winner == taker
            for seat, card in plays:
                if card != "EX":
                    if taker_won:
                        pile.append(card)
                    continue
                excuse_team_is_taker = seat == taker
                if no < 17:  # R8.1
                    if excuse_team_is_taker:
                        pile.append("EX")
                    if excuse_team_is_taker and not taker_won:
                        transfer -= Fraction(1, 2)
                    if not excuse_team_is_taker and taker_won:
                        transfer += Fraction(1, 2)
                elif plays[0][1] == "EX" and winner == seat:  # R8.3
                    excuse_wins_last = True
                    if excuse_team_is_taker:
                        pile.append("EX")
                elif not excuse_team_is_taker:  # R8.2
                    pile.append("EX")
        if self.contract in ("prise", "garde"):
            pile += self.discard  # R5.5
        elif self.contract == "garde_sans":
            pile += self.chien  # R5.6
        taker_points = sum((points(c) for c in pile), Fraction(0)) + transfer
        oudlers = len([c for c in pile if c in OUDLERS])
        target = TARGET[oudlers]
        won = taker_points >= target
        sign = 1 if won else -1
        mult = MULTIPLIER[self.contract]
        base = sign * (25 + abs(taker_points - target)) * mult  # R10.1
        # R10.2, looking at trick 17 when the Excuse won the last trick.
        plays, winner = self.tricks[16] if excuse_wins_last else self.tricks[17]
        petit = 0
        if any(card == "T1" for _, card in plays):
            petit = (10 if winner == taker else -10) * mult
        poignee = sign * sum(POIGNEE_BONUS[len(p)] for p in self.poignees)  # R10.3
        taker_tricks = len([1 for _, w in self.tricks if w == taker])
        if self.chelem:  # R10.4
            chelem = 400 if taker_tricks == 18 else -200
        elif taker_tricks == 18:
            chelem = 200
        elif taker_tricks == 0:
            chelem = -200
        else:
            chelem = 0
        per_defender = base + petit + poignee + chelem  # R10.5
        return {
            "status": "played",
            "taker": taker,
            "contract": self.contract,
            "multiplier": mult,
            "chelem_announced": self.chelem,
            "oudlers": oudlers,
            "target": target,
            "taker_points": number(taker_points),
            "won": won,
            "base": number(base),
            "petit_au_bout": number(petit),
            "poignee": number(poignee),
            "chelem": number(chelem),
            "per_defender": number(per_defender),
            "scores": [number(3 * per_defender if s == taker else -per_defender) for s in range(4)],
        }


# ---------------------------------------------------------------------------- the command


def replay_text(text: str) -> tuple[bool, dict[str, Any]]:
    try:
        rec = json.loads(text)
        check_shape(rec)
        return True, Deal(rec).run()
    except (ValueError, Malformed) as e:  # json.JSONDecodeError is a ValueError
        return False, {"error": {"action_index": -1, "reason": str(e)}}
    except Illegal as e:
        return False, {"error": {"action_index": e.index, "reason": str(e)}}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: reference_engine.py PATH (.json, .jsonl or -)", file=sys.stderr)
        return 2
    path = argv[0]
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        print(f"reference_engine: cannot read {path}: {e}", file=sys.stderr)
        return 2
    if path == "-" or path.endswith(".jsonl"):
        chunks = [line for line in data.splitlines() if line.strip()]
    else:
        chunks = [data]
    all_ok = True
    out = sys.stdout
    for chunk in chunks:
        try:
            ok, obj = replay_text(chunk.decode("utf-8"))
        except UnicodeDecodeError as e:
            ok, obj = False, {"error": {"action_index": -1, "reason": f"not UTF-8: {e}"}}
        all_ok = all_ok and ok
        out.write(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n")
    out.flush()
    return 0 if all_ok else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

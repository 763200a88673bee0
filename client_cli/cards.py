"""Card codes as the client sees them (RULES.md R1.2): parsing, sorting, points, display pieces.

The client knows cards only through their protocol codes (``H10``, ``T21``, ``EX``); this module
is its own small card table so that it never needs the server's rules engine.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "SHDC"
RANKS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K")
SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
TRUMP = "T"
EXCUSE = "EX"
OUDLERS = frozenset({"T1", "T21", "EX"})

ALL_CODES: tuple[str, ...] = (
    *(s + r for s in SUITS for r in RANKS),
    *(f"T{n}" for n in range(1, 22)),
    EXCUSE,
)
_CODE_SET = frozenset(ALL_CODES)

# Display order (same as the server's): spades, hearts, clubs, diamonds (alternating colours),
# then trumps, then the Excuse; ascending inside each group.
GROUP_ORDER = ("S", "H", "C", "D", "T", "EX")


def suit(code: str) -> str:
    """``S``/``H``/``D``/``C`` for plain cards, ``T`` for trumps, ``EX`` for the Excuse."""
    if code == EXCUSE:
        return EXCUSE
    return code[0]


def rank(code: str) -> str:
    """The rank part of a plain card (``10``, ``K``) or the number of a trump (``21``)."""
    return "" if code == EXCUSE else code[1:]


def rank_value(code: str) -> int:
    """Order inside a group: 1..14 for plain ranks, 1..21 for trumps, 0 for the Excuse."""
    s = suit(code)
    if s == EXCUSE:
        return 0
    if s == TRUMP:
        return int(code[1:])
    return RANKS.index(code[1:]) + 1


def is_trump(code: str) -> bool:
    return suit(code) == TRUMP


def sort_key(code: str) -> tuple[int, int]:
    return (GROUP_ORDER.index(suit(code)), rank_value(code))


def sort_cards(codes: Iterable[str]) -> list[str]:
    return sorted(codes, key=sort_key)


def half_points(code: str) -> int:
    """Card points in half points (R1.5): oudlers and kings 9, Q 7, C 5, J 3, others 1."""
    if code in OUDLERS:
        return 9
    if is_trump(code):
        return 1
    return {"K": 9, "Q": 7, "C": 5, "J": 3}.get(code[1:], 1)


def points(codes: Iterable[str]) -> float:
    return sum(half_points(c) for c in codes) / 2


# French players write the ranks Roi, Dame, Cavalier, Valet: R, D, C, V (RULES.md codes keep
# K, Q, C, J on the wire).
FRENCH_RANKS = {"K": "R", "Q": "D", "C": "C", "J": "V"}
_FROM_FRENCH = {"R": "K", "D": "Q", "V": "J"}


def trick_winner(cards: list[str], leader: int, *, excuse_wins: bool = False) -> int:
    """The seat that wins a trick (R7.7): the highest trump, else the highest card of the
    suit of its first card that is not the Excuse. The Excuse never wins, except when led to
    the last trick by a side that won the 17 others (R8.3: ``excuse_wins``)."""
    if excuse_wins and cards and cards[0] == EXCUSE:
        return leader
    trumps = [(rank_value(c), i) for i, c in enumerate(cards) if is_trump(c)]
    if trumps:
        return (leader + max(trumps)[1]) % 4
    lead = next((suit(c) for c in cards if c != EXCUSE), None)
    best = max((rank_value(c), i) for i, c in enumerate(cards) if suit(c) == lead)
    return (leader + best[1]) % 4


_SYMBOL_TO_LETTER = {v: k for k, v in SYMBOLS.items()}
# Also accept the usual outline symbols some keyboards / fonts produce.
_SYMBOL_TO_LETTER.update({"♤": "S", "♡": "H", "♢": "D", "♧": "C"})


def normalize(text: str, french: bool = False) -> str | None:
    """The card code a player typed (case-insensitive; ``♥10`` or ``10♥`` also work), or None.
    With ``french``, the French ranks R, D, V (``♥R``, ``HR``, ``SD``) are read as K, Q, J."""
    t = text.strip().upper()
    if not t:
        return None
    if french and len(t) >= 2:
        sym = next((s for s in _SYMBOL_TO_LETTER if s in t), None)
        if sym is not None:
            rest = t.replace(sym, "")
            if rest in _FROM_FRENCH:
                return _SYMBOL_TO_LETTER[sym] + _FROM_FRENCH[rest]
        elif len(t) == 2 and t[0] in SUITS and t[1] in _FROM_FRENCH:
            return t[0] + _FROM_FRENCH[t[1]]
    if t in ("EX", "EXC", "EXCUSE", "E"):
        return EXCUSE
    for sym, letter in _SYMBOL_TO_LETTER.items():
        if sym in t:
            rest = t.replace(sym, "")
            t = letter + rest
            break
    if t.startswith("T") and t[1:].isdigit():
        t = f"T{int(t[1:])}"
    elif len(t) >= 2 and t[0] in SUITS and t[1:] == "0":
        return None
    elif len(t) >= 2 and t[0] in SUITS and t[1:].isdigit():
        t = f"{t[0]}{int(t[1:])}"
    elif len(t) >= 2 and t[-1] in SUITS and t[0] not in SUITS and t[0] != "T":
        # "10H" style: rank first (but "CC" etc. stays suit-first).
        t = t[-1] + t[:-1]
    return t if t in _CODE_SET else None

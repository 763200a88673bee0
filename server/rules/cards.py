"""Cards, their text codes (R1.2) and integer bitmask sets.

A card is an index 0..77; a set of cards is an int bitmask. Plain suits occupy
14 consecutive bits each (rank 1..K upwards), trumps T1..T21 bits 56..76 and the
Excuse bit 77, so "cards of a suit" and "trumps above T14" are single ANDs.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_CODES = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K")

SPADES, HEARTS, DIAMONDS, CLUBS = 0, 1, 2, 3
TRUMP_SUIT = 4  # "suit" number used for trumps in trick bookkeeping

N_CARDS = 78
TRUMP_BASE = 56
PETIT = TRUMP_BASE  # T1
MONDE = TRUMP_BASE + 20  # T21
EXCUSE = 77

FULL_DECK = (1 << N_CARDS) - 1
SUIT_MASKS = tuple(((1 << 14) - 1) << (14 * s) for s in range(4))
TRUMP_MASK = ((1 << 21) - 1) << TRUMP_BASE
EXCUSE_BIT = 1 << EXCUSE
PETIT_BIT = 1 << PETIT
OUDLERS_MASK = PETIT_BIT | (1 << MONDE) | EXCUSE_BIT
KINGS_MASK = sum(1 << (14 * s + 13) for s in range(4))
PLAIN_SUITS_MASK = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2] | SUIT_MASKS[3]
# Trumps that a taker may be forced to discard (R5.3): T2..T20.
DISCARDABLE_TRUMPS_MASK = TRUMP_MASK & ~PETIT_BIT & ~(1 << MONDE)

# ABOVE[t] = trumps strictly higher than trump index t; ABOVE[-1] (index 78 here) = every trump.
_ABOVE = [0] * (N_CARDS + 1)
for _t in range(TRUMP_BASE, TRUMP_BASE + 21):
    _ABOVE[_t] = TRUMP_MASK & ~((1 << (_t + 1)) - 1)
_ABOVE[N_CARDS] = TRUMP_MASK
ABOVE: tuple[int, ...] = tuple(_ABOVE)
NO_TRUMP = N_CARDS  # sentinel index meaning "no trump in the trick yet"


def _code(i: int) -> str:
    if i == EXCUSE:
        return "EX"
    if i >= TRUMP_BASE:
        return f"T{i - TRUMP_BASE + 1}"
    return SUITS[i // 14] + RANK_CODES[i % 14]


CODES: tuple[str, ...] = tuple(_code(i) for i in range(N_CARDS))
INDEX: dict[str, int] = {c: i for i, c in enumerate(CODES)}

# Card points in half points (R1.5): oudlers and kings 9, queens 7, cavaliers 5, jacks 3, others 1.
_HALF = []
for _i in range(N_CARDS):
    if (1 << _i) & (OUDLERS_MASK | KINGS_MASK):
        _HALF.append(9)
    elif _i < TRUMP_BASE and _i % 14 == 12:
        _HALF.append(7)
    elif _i < TRUMP_BASE and _i % 14 == 11:
        _HALF.append(5)
    elif _i < TRUMP_BASE and _i % 14 == 10:
        _HALF.append(3)
    else:
        _HALF.append(1)
HALF_POINTS: tuple[int, ...] = tuple(_HALF)
assert sum(HALF_POINTS) == 182

# Per-card suit number: 0..3 plain, 4 trump, 5 Excuse.
SUIT_OF: tuple[int, ...] = tuple(
    5 if i == EXCUSE else (TRUMP_SUIT if i >= TRUMP_BASE else i // 14) for i in range(N_CARDS)
)


class UnknownCard(ValueError):
    """A text that is not one of the 78 card codes of R1.2."""


def parse(code: str) -> int:
    """Card index of a code such as ``"H10"``, ``"T21"`` or ``"EX"`` (exact, case-sensitive)."""
    try:
        return INDEX[code]
    except (KeyError, TypeError):
        raise UnknownCard(f"R1.2: unknown card code {code!r}") from None


def mask_of(codes: Iterable[str]) -> int:
    """The set of the cards ``codes`` (raises UnknownCard on a text that is not a card code)."""
    m = 0
    index = INDEX
    for c in codes:
        try:
            m |= 1 << index[c]
        except (KeyError, TypeError):
            raise UnknownCard(f"R1.2: unknown card code {c!r}") from None
    return m


def cards_of(mask: int) -> list[int]:
    """Indices of the set bits, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def codes_of(mask: int) -> list[str]:
    """Codes of a card set in display order (see :func:`sort_key`).

    The hottest function of the server (every hand, chien and legal list a client sees): the
    mask is rearranged so that bit order is display order (clubs and diamonds swap places),
    then read a bit at a time for a few cards, else a byte at a time from precomputed tables;
    no sorting, no key function (6x faster for a hand than sorting with ``sort_key``)."""
    d = (mask & _DISPLAY_SAME) | ((mask & _CLUBS) >> 14) | ((mask & _DIAMONDS) << 14)
    out: list[str] = []
    if d.bit_count() <= 4:
        codes = _DISPLAY_CODES
        while d:
            low = d & -d
            out.append(codes[low.bit_length() - 1])
            d ^= low
        return out
    tables = _BYTE_CODES or _byte_codes()
    i = 0
    while d:
        b = d & 0xFF
        if b:
            out.extend(tables[i][b])
        d >>= 8
        i += 1
    return out


# The cards worth at least 3, 5, 7 and 9 half points: half_points counts a set by them.
_HALF_AT_LEAST = tuple(
    sum(1 << i for i in range(N_CARDS) if HALF_POINTS[i] >= h) for h in (3, 5, 7, 9)
)


def half_points(mask: int) -> int:
    """The card points of a set of cards (R1.5), in half points. Counted by rank class, each
    card 1 and 2 more per class it reaches (a jack 3, a queen 7, a king 9): four bit counts,
    rather than a loop over the cards."""
    m3, m5, m7, m9 = _HALF_AT_LEAST
    return mask.bit_count() + 2 * (
        (mask & m3).bit_count()
        + (mask & m5).bit_count()
        + (mask & m7).bit_count()
        + (mask & m9).bit_count()
    )


# Display order: spades, hearts, clubs, diamonds (alternating colours), each ascending, then
# trumps ascending, then the Excuse. Stable and documented so that clients agree.
_DISPLAY_SUIT_ORDER = {SPADES: 0, HEARTS: 1, CLUBS: 2, DIAMONDS: 3, 4: 4, 5: 5}


def sort_key(code: str) -> tuple[int, int]:
    i = parse(code)
    s = SUIT_OF[i]
    rank = i - TRUMP_BASE if s == TRUMP_SUIT else (0 if s == 5 else i % 14)
    return (_DISPLAY_SUIT_ORDER[s], rank)


# codes_of's tables: in the display-order mask, diamonds (bits 28..41) and clubs (42..55) have
# swapped places; _BYTE_CODES[k][b] = the codes of the set bits of byte value b at byte k.
_CLUBS = SUIT_MASKS[CLUBS]
_DIAMONDS = SUIT_MASKS[DIAMONDS]
_DISPLAY_SAME = FULL_DECK & ~_CLUBS & ~_DIAMONDS
_DISPLAY_CODES = tuple(sorted(CODES, key=sort_key))  # display-order bit k holds this card
_BYTE_CODES: tuple[tuple[tuple[str, ...], ...], ...] = ()


def _byte_codes() -> tuple[tuple[tuple[str, ...], ...], ...]:
    """Build codes_of's tables at its first long call (not at import: ``replay`` needs none)."""
    global _BYTE_CODES
    out = []
    for k in range((N_CARDS + 7) // 8):
        codes = _DISPLAY_CODES[8 * k : 8 * k + 8]
        table: list[tuple[str, ...]] = [()] * 256
        for b in range(1, 256):
            high = b.bit_length() - 1
            rest = table[b ^ (1 << high)]
            table[b] = (*rest, codes[high]) if high < len(codes) else rest
        out.append(tuple(table))
    _BYTE_CODES = tuple(out)
    return _BYTE_CODES


def sort_codes(codes: Iterable[str]) -> list[str]:
    return sorted(codes, key=sort_key)


def is_trump(code: str) -> bool:
    return SUIT_OF[parse(code)] == TRUMP_SUIT


def count_oudlers(mask: int) -> int:
    return (mask & OUDLERS_MASK).bit_count()

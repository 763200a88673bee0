"""Account names: what is shown, and what is compared so that two accounts never look alike.

Two names are the same account name when their *keys* are equal: Unicode NFKC (full-width
letters, ligatures and compatibility forms fold to the plain ones), case-folded, with every
space-like character (no-break, ideographic, thin, ...) made one plain space, runs of spaces
collapsed and the ends trimmed, and every invisible character removed (zero-width spaces and
joiners, bidirectional marks and embeddings, soft hyphens, variation selectors: Unicode's
default-ignorable code points). The shown name is the NFKC form with the same space and
invisible-character clean-up, case kept. Control characters are refused.
"""

from __future__ import annotations

import unicodedata

MAX_LEN = 32


def _ignorable(ch: str) -> bool:
    o = ord(ch)
    return (
        unicodedata.category(ch) == "Cf"  # format: ZWSP..ZWJ, LRM/RLM, bidi controls, BOM, SHY
        or 0xFE00 <= o <= 0xFE0F  # variation selectors
        or 0xE0100 <= o <= 0xE01EF
        or o in (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0)  # fillers
        or 0x180B <= o <= 0x180F  # Mongolian free variation selectors and vowel separator
    )


def _space(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch) in ("Zs", "Zl", "Zp")


class BadName(ValueError):
    pass


def display_name(raw: str) -> str:
    """The name as shown (raises BadName when nothing printable is left, or it is too long)."""
    text = unicodedata.normalize("NFKC", raw)
    out: list[str] = []
    for ch in text:
        if _ignorable(ch):
            continue
        if _space(ch):
            if out and out[-1] != " ":
                out.append(" ")
            continue
        if unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn"):
            raise BadName("a name may not contain control or unassigned characters")
        out.append(ch)
    name = "".join(out).strip()
    if not name:
        raise BadName("a name needs at least one visible character")
    if len(name) > MAX_LEN:
        raise BadName(f"a name has at most {MAX_LEN} characters")
    return name


def name_key(raw: str) -> str:
    """What account names are compared by (see the module doc)."""
    return unicodedata.normalize("NFKC", display_name(raw).casefold())

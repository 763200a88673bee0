"""Text from other people (player and table names), as the protocol accepts it and as a terminal
may print it.

Names may not contain control characters: C0 (U+0000-U+001F), DEL and C1 (U+007F-U+009F, which
terminals also obey: U+009B is a one-character CSI), line and paragraph separators, and the
invisible bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) that
make text read in another order than it is written. A name must also show something: not only
spaces or invisible characters (:func:`shows_something`, checked by the server beside the
pattern, which cannot tell them in JSON Schema's regular expressions).

Whatever else reaches a terminal (a record, a message, a name stored by an older server) goes
through :func:`printable`, which spells out every such character instead of sending it.
"""

from __future__ import annotations

import re
import unicodedata

#: Characters no name may hold, and that :func:`printable` spells out.
CONTROL_CLASS = r"\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
#: The JSON Schema / msgspec pattern of a name: no control, not only spaces (the server also
#: refuses names that show nothing: :func:`shows_something`).
NAME_PATTERN = rf"^(?=[^{CONTROL_CLASS}]*[^\s{CONTROL_CLASS}])[^{CONTROL_CLASS}]+$"

_CONTROL = re.compile(f"[{CONTROL_CLASS}]")


_CONTROL_BUT_NEWLINE = re.compile(f"(?!\n)[{CONTROL_CLASS}]")


def _spell(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group(0)):04x}"


def printable(text: object, *, lines: bool = False) -> str:
    """``text`` safe to print to a terminal: each control character spelled ``\\u001b``,
    everything else as it is (``lines``: newlines too). The spelling is also a JSON escape of the
    same character, so JSON text (whose own newlines are kept with ``lines``) stays JSON and
    means the same through it."""
    return (_CONTROL_BUT_NEWLINE if lines else _CONTROL).sub(_spell, str(text))


def invisible(ch: str) -> bool:
    """``ch`` shows nothing: a format character (zero-width spaces and joiners, bidirectional
    marks, the byte order mark, the soft hyphen, tags), a variation selector or a filler."""
    o = ord(ch)
    return (
        unicodedata.category(ch) == "Cf"
        or 0xFE00 <= o <= 0xFE0F  # variation selectors
        or 0xE0100 <= o <= 0xE01EF
        or o in (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0)  # fillers
        or 0x180B <= o <= 0x180F  # Mongolian free variation selectors and vowel separator
    )


def shows_something(text: str) -> bool:
    """``text`` has a character that is neither a space nor :func:`invisible` (the braille
    blank U+2800, which looks like a space, counted as one)."""
    return any(not (ch.isspace() or ch == "\u2800" or invisible(ch)) for ch in text)

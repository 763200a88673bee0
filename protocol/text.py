"""Text from other people (player and table names), as the protocol accepts it and as a terminal
may print it.

Names may not contain control characters: C0 (U+0000-U+001F), DEL and C1 (U+007F-U+009F, which
terminals also obey: U+009B is a one-character CSI), line and paragraph separators, and the
invisible bidirectional controls (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) that make text
read in another order than it is written. A name must also show something: not only spaces.

Whatever else reaches a terminal (a record, a message, a name stored by an older server) goes
through :func:`printable`, which spells out every such character instead of sending it.
"""

from __future__ import annotations

import re

#: Characters no name may hold, and that :func:`printable` spells out.
CONTROL_CLASS = r"\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069"
#: The JSON Schema / msgspec pattern of a name: at least one visible character, no control.
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

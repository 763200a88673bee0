"""What the player is told when a name cannot be used, and when the server refuses a request.

Names are checked here before anything is sent (or a password asked for), by the protocol's
own rules (:mod:`protocol.text`: 1..32 characters for a player, 1..64 for a table, no control
character, something to show). A refusal is told from its stable ``code`` and, for
``invalid_field``, from ``details.path`` (the field at fault): the server's English
``message`` only for a code this client does not know.
"""

from __future__ import annotations

import re
from typing import Any

from protocol.text import CONTROL_CLASS, NAME_PATTERN, shows_something

from .hints import default_name
from .i18n import Tr
from .render import safe_line

NAME_MAX = 32  # a player's name (protocol: Name)
TABLE_NAME_MAX = 64  # a table's name (protocol: TableName)
_CONTROL = re.compile(f"[{CONTROL_CLASS}]")
_NAME = re.compile(NAME_PATTERN)


def name_problem(name: str, limit: int = NAME_MAX) -> str | None:
    """Why the server would refuse ``name`` (an ``name.why_*`` key), or None."""
    if not name:
        return "name.why_empty"
    if _CONTROL.search(name):
        return "name.why_control"
    if len(name) > limit:
        return "name.why_long"
    if not _NAME.match(name) or not shows_something(name):
        return "name.why_blank"
    return None


def name_error(tr: Tr, name: str, *, table: bool = False) -> str | None:
    """The sentence that says why ``name`` (a player's, or with ``table`` a table's) cannot
    be used, or None when it can."""
    limit = TABLE_NAME_MAX if table else NAME_MAX
    why = name_problem(name, limit)
    if why is None:
        return None
    return tr(
        "name.bad_table" if table else "name.bad",
        name=safe_line(name),
        why=tr(why, n=len(name), max=limit),
    )


def player_name(args: Any) -> str:
    """The name to play under: ``--name`` (checked before connecting), else the login name
    when the server would take it, else ``player``."""
    if args.name is not None:
        return str(args.name)
    name = default_name()
    return name if name_problem(name) is None else "player"


#: ``details.path`` of an ``invalid_field`` refusal -> the text that names the field; a
#: request type before the path when the same field means another thing there.
_FIELD_KEYS = {
    "$.name": "field.name",
    "create_table $.name": "field.table_name",
    "$.ai": "field.ai",
    "$.password": "field.password",
    "$.table": "field.table",
    "$.seat": "field.seat",
    "$.deals": "field.deals",
    "$.target_score": "field.target_score",
    "$.think_delay": "field.think_delay",
    "$.deal_pause": "field.deal_pause",
    "$.turn_timer": "field.turn_timer",
}


def field_path(msg: dict[str, Any]) -> str:
    """``details.path`` of a refusal ("" when it names none)."""
    details = msg.get("details")
    path = details.get("path") if isinstance(details, dict) else None
    return path if isinstance(path, str) else ""


def refusal(tr: Tr, msg: dict[str, Any], request: str | None = None) -> str:
    """A refusal (an ``error`` message) in the player's language."""
    code = str(msg.get("code") or "")
    if code == "invalid_field":
        path = field_path(msg)
        key = _FIELD_KEYS.get(f"{request} {path}") or _FIELD_KEYS.get(path)
        if key is not None:
            return tr(key)
        if path:
            field = path[2:] if path.startswith("$.") else path
            return tr("field.other", field=safe_line(field))
    key = f"code.{code}"
    if code and key in tr.table:
        return tr(key)
    return tr("err.server", message=safe_line(str(msg.get("message", ""))))

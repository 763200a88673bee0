"""Seat tokens kept on disk, so that `atout join TABLE` takes back a seat after Ctrl-C or a
crash (within the server's grace period) instead of taking another one.

One entry per server, table and seat, with the player's name: two terminals of one login
playing two seats of a table (under two names) keep a token each. Next to the token, the
client keeps where the deal stood when it left (version, deal number, its own moves), to tell
the player what happened while away.

The file is ``$ATOUT_STATE_DIR/seats.json`` (default ``$XDG_STATE_HOME/atout`` or
``~/.local/state/atout``), readable by its owner only. Losing it only loses that convenience.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

MAX_AGE = 7 * 24 * 3600  # forget entries older than a week: their tokens expired long ago


def state_dir() -> Path:
    explicit = os.environ.get("ATOUT_STATE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "atout"


def _path() -> Path:
    return state_dir() / "seats.json"


def _load() -> dict[str, Any]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    now = time.time()
    return {
        k: v
        for k, v in data.items()
        if isinstance(v, dict)
        and isinstance(v.get("token"), str)
        and isinstance(v.get("seat"), int)
        and now - float(v.get("at", 0)) < MAX_AGE
    }


def _store(data: dict[str, Any]) -> None:
    path = _path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home only costs the resume-after-restart convenience


def _prefix(server: str, table: str) -> str:
    return f"{server.rstrip('/')} {table} "


def _key(server: str, table: str, seat: int) -> str:
    return f"{_prefix(server, table)}{seat}"


def lookup(
    server: str, table: str, name: str | None = None, seat: int | None = None
) -> list[dict[str, Any]]:
    """The seats kept for ``table`` on ``server`` (of player ``name``, at ``seat``), lowest
    seat first."""
    prefix = _prefix(server, table)
    out = [
        v
        for k, v in _load().items()
        if k.startswith(prefix)
        and (name is None or v.get("name") == name)
        and (seat is None or v.get("seat") == seat)
    ]
    return sorted(out, key=lambda v: int(v["seat"]))


def remember(server: str, table: str, token: str, seat: int, name: str, **extra: Any) -> None:
    data = _load()
    data[_key(server, table, seat)] = {
        "token": token,
        "seat": seat,
        "name": name,
        "at": time.time(),
        **extra,
    }
    _store(data)


def update(server: str, table: str, seat: int, **extra: Any) -> None:
    """Add ``extra`` to a kept seat (where the deal stood when the player left)."""
    data = _load()
    entry = data.get(_key(server, table, seat))
    if entry is not None:
        entry.update(extra, at=time.time())
        _store(data)


def forget(server: str, table: str, seat: int | None = None) -> None:
    """Forget one kept seat, or every seat of the table (``seat`` None)."""
    data = _load()
    prefix = _prefix(server, table)
    gone = [
        k for k, v in data.items() if k.startswith(prefix) and (seat is None or v["seat"] == seat)
    ]
    for k in gone:
        del data[k]
    if gone:
        _store(data)

"""Seat tokens kept on disk, so that `atout join TABLE` takes back a seat after Ctrl-C or a
crash (within the server's grace period) instead of taking another one.

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
    return {k: v for k, v in data.items() if isinstance(v, dict) and now - v.get("at", 0) < MAX_AGE}


def _store(data: dict[str, Any]) -> None:
    path = _path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home only costs the resume-after-restart convenience


def _key(server: str, table: str) -> str:
    return f"{server.rstrip('/')} {table}"


def lookup(server: str, table: str) -> dict[str, Any] | None:
    return _load().get(_key(server, table))


def remember(server: str, table: str, token: str, seat: int, name: str) -> None:
    data = _load()
    data[_key(server, table)] = {"token": token, "seat": seat, "name": name, "at": time.time()}
    _store(data)


def forget(server: str, table: str) -> None:
    data = _load()
    if data.pop(_key(server, table), None) is not None:
        _store(data)

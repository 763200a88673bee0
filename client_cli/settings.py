"""Settings a player may change during a game (``set ...`` at any prompt), remembered between
runs in ``settings.json`` beside ``seats.json`` (see :mod:`client_cli.seats`).

- ``lang``: ``en``, ``fr`` or ``cs`` (``--lang`` wins for one run).
- ``speed``: seconds the client leaves at least between two moves of the other players as it
  shows them (0 to 5; the words ``fast``, ``normal``, ``slow`` are 0.3, 0.8 and 1.5).
- ``pause``: after each deal, wait for Enter (``enter``) or go on by itself after that many
  seconds (0 to 60).
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from typing import Any

from .seats import state_dir

SPEEDS = {"fast": 0.3, "normal": 0.8, "slow": 1.5}
LANGS = ("en", "fr", "cs")


@dataclass
class Settings:
    lang: str | None = None  # None: from the locale
    speed: float = 0.8
    pause: float | None = None  # None: wait for Enter

    @classmethod
    def load(cls) -> Settings:
        try:
            data = json.loads((state_dir() / "settings.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        s = cls()
        if not isinstance(data, dict):
            return s
        for key, value in data.items():
            with contextlib.suppress(ValueError):  # damaged or older: keep that default
                s.set(key, "enter" if value is None and key == "pause" else str(value))
        return s

    def save(self) -> None:
        path = state_dir() / "settings.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(asdict(self)), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            pass

    def set(self, key: str, value: str) -> Any:
        """Change one setting from what a player typed; raises ValueError when it is not a
        valid value. Returns the new value."""
        v = value.strip().lower()
        if key == "lang":
            if v not in LANGS:
                raise ValueError(key)
            self.lang = v
            return v
        if key == "speed":
            x = SPEEDS.get(v)
            if x is None:
                x = float(v.replace(",", "."))
            if not 0 <= x <= 5:
                raise ValueError(key)
            self.speed = x
            return x
        if key == "pause":
            if v in ("enter", "entrée", "entree", "none", ""):
                self.pause = None
                return None
            x = float(v.replace(",", "."))
            if not 0 <= x <= 60:
                raise ValueError(key)
            self.pause = x
            return x
        raise ValueError(key)

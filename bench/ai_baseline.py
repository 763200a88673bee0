"""Frozen AI baselines for the duel benchmark: today's bots cannot change the yardstick.

``heuristic_v1`` and ``strong_v1`` are the bots of git revision ``BASELINE_REV`` (the one
issue 13 was written against). Their code (``server/ai`` and the ``server/rules`` engine they
were written on) is taken from git with ``git archive`` into a cache folder and imported under
another package name (``atout_v1``), so that later changes to the engine, the kernel or the
bots cannot change the baseline. The frozen bot gets its own copies of the view and of the
legal actions (converted into its own engine's types) and its action is converted back.

    from bench.ai_baseline import make_frozen
    bot = make_frozen("heuristic_v1", seed=1)

A level ``NAME@REV`` (e.g. ``heuristic@3245940``) freezes any other revision the same way.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from typing import Any

import msgspec

from server.rules import Action

BASELINE_REV = "3245940"
FROZEN = {"heuristic_v1": ("heuristic", BASELINE_REV), "strong_v1": ("strong", BASELINE_REV)}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("ATOUT_FROZEN_CACHE", os.path.join(tempfile.gettempdir(), "atout-frozen"))
_IMPORT = re.compile(r"^(\s*)(from|import) server(\.|\s)", re.M)


def split_level(level: str) -> tuple[str, str] | None:
    """(level, revision) of a frozen level name, None for a live one."""
    if level in FROZEN:
        return FROZEN[level]
    if "@" in level:
        name, _, rev = level.partition("@")
        return name, rev
    return None


def _package(rev: str) -> str:
    """Extract ``server/ai`` and ``server/rules`` of ``rev`` as package ``atout_<rev>`` (cached)
    and return the package name."""
    full = subprocess.run(
        ["git", "-C", ROOT, "rev-parse", "--verify", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if full.returncode != 0:
        raise RuntimeError(
            f"frozen baseline: git revision {rev} is not in this clone ({full.stderr.strip()});"
            " fetch the full history (git fetch --unshallow) to measure against it"
        )
    sha = full.stdout.strip()[:12]
    pkg = f"atout_{sha}"
    base = os.path.join(CACHE, sha)
    if not os.path.exists(os.path.join(base, pkg, ".complete")):
        tmp = tempfile.mkdtemp(prefix="extract-", dir=_ensure(CACHE))
        blob = subprocess.run(
            ["git", "-C", ROOT, "archive", sha, "server/__init__.py", "server/ai", "server/rules"],
            capture_output=True,
            check=True,
        ).stdout
        tar_path = os.path.join(tmp, "src.tar")
        with open(tar_path, "wb") as fh:
            fh.write(blob)
        with tarfile.open(tar_path) as tar:
            tar.extractall(tmp, filter="data")
        os.remove(tar_path)
        src = os.path.join(tmp, "server")
        for dirpath, _dirs, files in os.walk(src):
            for f in files:
                if f.endswith(".py"):
                    p = os.path.join(dirpath, f)
                    with open(p) as fh:
                        text = fh.read()
                    with open(p, "w") as fh:
                        fh.write(_IMPORT.sub(rf"\1\2 {pkg}\3", text))
        with open(os.path.join(src, ".complete"), "w") as fh:
            fh.write(sha + "\n")
        os.makedirs(base, exist_ok=True)
        with contextlib.suppress(OSError):  # another process extracted it first
            os.rename(src, os.path.join(base, pkg))
    if base not in sys.path:
        sys.path.insert(0, base)
    return pkg


def _ensure(path: str) -> str:
    os.makedirs(path, exist_ok=True)
    return path


_ACTION = msgspec.json.Decoder(Action)  # type: ignore[var-annotated]


class FrozenBot:
    """A bot of another revision, behind the live interface ``choose(view, legal)``."""

    def __init__(self, name: str, level: str, rev: str, seed: int | None, **opts: Any) -> None:
        pkg = _package(rev)
        ai = importlib.import_module(f"{pkg}.ai")
        self._legal_t = importlib.import_module(f"{pkg}.rules").Legal
        if level == "strong" and opts:
            self.bot = importlib.import_module(f"{pkg}.ai.strong").StrongBot(seed, **opts)
        else:
            self.bot = ai.make_bot(level, seed)
        self.name = name
        self._enc = msgspec.json.Encoder()

    @property
    def last_stats(self) -> dict[str, Any]:
        return getattr(self.bot, "last_stats", {})

    def choose(self, view: dict[str, Any], legal: Any) -> Action:
        old_legal = msgspec.convert(msgspec.to_builtins(legal), self._legal_t)
        act = self.bot.choose(view, old_legal)
        return _ACTION.decode(self._enc.encode(act))


def make_frozen(name: str, seed: int | None = None, **opts: Any) -> FrozenBot:
    spec = split_level(name)
    if spec is None:
        raise ValueError(f"{name!r} is not a frozen level")
    return FrozenBot(name, spec[0], spec[1], seed, **opts)

"""AI seat drivers. One interface (DESIGN.md): ``bot.choose(view, legal) -> action``.

``view`` is what :func:`server.rules.views.view` gives the seat (never more); ``legal`` is the
seat's :class:`server.rules.Legal`. Bots never see another seat's hidden cards.

Levels (``make_bot(level, seed)``):

- ``random``: uniformly random legal actions (tests, baselines).
- ``heuristic``: club-style rules, well under 5 ms a decision (:mod:`.heuristic`,
  :mod:`.evaluate` for bids, discard, chelem and poignée, :mod:`.policy` for card play).
- ``strong``: Perfect Information Monte Carlo card play over deals sampled from what the seat
  knows (:mod:`.strong`, :mod:`.sampler`, :mod:`.knowledge`), with heuristic rollouts on a
  bitmask kernel (:mod:`.kernel`) and exact search for the last tricks; 100 ms per decision by
  default. The table server runs it through :mod:`.runner` (worker processes, deadlines).

Strength and speed are measured by ``bench/ai_duel.py`` (duplicate deals, paired differences).
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from server.rules import Action, Legal
from server.rules.randplay import random_from_legal

LEVELS = ("random", "heuristic", "strong")


class Bot(Protocol):
    name: str

    def choose(self, view: dict[str, Any], legal: Legal) -> Action: ...


class RandomBot:
    """Uniformly random legal actions: the baseline."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any], legal: Legal) -> Action:
        return random_from_legal(legal, self.rng, poignee_chance=0.2)


def make_bot(level: str = "random", seed: int | None = None) -> Bot:
    """A bot of the given level (see LEVELS)."""
    if level == "random":
        return RandomBot(seed)
    if level == "heuristic":
        from .heuristic import HeuristicBot

        return HeuristicBot(seed)
    if level == "strong":
        from .strong import StrongBot

        return StrongBot(seed)
    raise ValueError(f"unknown AI level {level!r}; known: {', '.join(LEVELS)}")

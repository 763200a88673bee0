"""AI seat drivers. One interface (DESIGN.md): ``bot.choose(view, legal) -> action``.

``view`` is what :func:`server.rules.views.view` gives the seat (never more); ``legal`` is the
seat's :class:`server.rules.Legal`. Bots never see another seat's hidden cards. A bot whose
``choose`` never reads ``view`` says so with ``reads_view = False``: the table then passes an
empty dict instead of building the view (the largest cost of an AI move at a busy server).
A bot that runs in the server's process and takes ``view(st, seat, masks=True)`` (card sets as
bitmasks, the same visibility) says so with ``reads_masks = True``; one that plays a forced
card (a single legal card, no poignée to declare) without reading ``view`` says so with
``forced_without_view = True``, and is then given an empty dict for such a card.

Levels (``make_bot(level, seed)``), in the order players are offered them (:data:`AI_LEVELS`):

- ``easy``: the ``normal`` bot that often plays a careless card (a random legal card one time
  in three), for beginners.
- ``normal``: club-style rules, well under a millisecond a decision (:mod:`.heuristic`;
  :mod:`.evaluate` for bids, discard, chelem and poignée, fitted offline by simulation with
  ``bench/tune_bidding.py``; :mod:`.policy` for card play). Also accepted as ``heuristic``.
- ``strong``: Monte Carlo card play over deals sampled from what the seat knows, whose rollouts
  let every seat play on its own information (:mod:`.strong`, :mod:`.sampler`,
  :mod:`.knowledge`), exact search for the last tricks; 100 ms per decision by default (up to
  2.5 times that for a card whose best choice is not clear yet). The
  table server runs it through :mod:`.runner` (worker processes, deadlines).
- ``random``: uniformly random legal actions (tests, baselines).

Strength and speed are measured by ``bench/ai_duel.py`` (duplicate deals, paired differences).
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from server.rules import Action, Legal
from server.rules.randplay import random_from_legal

#: (level, description) in display order: what clients offer a player.
AI_LEVELS: tuple[tuple[str, str], ...] = (
    ("easy", "Plays by the rules and simple habits, and often misses the best card."),
    ("normal", "Bids, discards and plays like a club player; answers at once."),
    ("strong", "Thinks ahead by simulating the hidden cards; the hardest opponent."),
)
#: Every accepted level: the offered ones, then ``heuristic`` (the same bot as ``normal``) and
#: ``random`` (uniformly random legal actions) for tests and benchmarks.
LEVELS = (*(name for name, _ in AI_LEVELS), "heuristic", "random")
#: Levels that answer in well under a millisecond: run inline, on the caller's thread.
INLINE_LEVELS = frozenset({"easy", "normal", "heuristic", "random"})
EASY_CARELESS = 1 / 3  # share of the easy bot's card decisions played at random


class Bot(Protocol):
    name: str

    def choose(self, view: dict[str, Any], legal: Legal) -> Action: ...


class RandomBot:
    """Uniformly random legal actions: the baseline."""

    name = "random"
    reads_view = False  # choose() looks at legal only

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any], legal: Legal) -> Action:
        return random_from_legal(legal, self.rng, poignee_chance=0.2)


class EasyBot:
    """The ``normal`` bot with careless moments: a random legal card now and then."""

    name = "easy"
    reads_masks = True  # its inner HeuristicBot does
    forced_without_view = True  # and so does this: one legal card is never a careless one

    def __init__(self, seed: int | None = None, careless: float = EASY_CARELESS) -> None:
        from .heuristic import HeuristicBot

        self.rng = random.Random(seed)
        self.careless = careless
        self.inner = HeuristicBot(seed)

    def choose(self, view: dict[str, Any], legal: Legal) -> Action:
        if len(legal.plays) > 1 and self.rng.random() < self.careless:
            from server.rules import Play

            return Play(legal.seat, self.rng.choice(legal.plays))
        return self.inner.choose(view, legal)


def make_bot(level: str = "random", seed: int | None = None, **options: Any) -> Bot:
    """A bot of the given level (see LEVELS); ``options`` go to the strong bot."""
    if level == "random":
        return RandomBot(seed)
    if level in ("heuristic", "normal"):
        from .heuristic import HeuristicBot

        bot = HeuristicBot(seed)
        bot.name = level
        return bot
    if level == "easy":
        return EasyBot(seed)
    if level == "strong":
        from .strong import StrongBot

        return StrongBot(seed, **options)
    raise ValueError(f"unknown AI level {level!r}; known: {', '.join(LEVELS)}")

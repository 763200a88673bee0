"""Running bot decisions without stalling the event loop.

The table server calls :func:`decide` (or :meth:`Runner.decide`) for any AI seat:

    action = await decide("strong", view, legal, deadline_s=2.0)

Cheap bots (``random``, ``heuristic``: well under a millisecond) run inline. ``strong``
decisions run in a pool of worker processes (one per core by default), never on the event
loop. Each decision has a deadline: the worker is told the wall-clock time by which it must
answer and thinks until then at most (its own budget permitting), so a decision that waited in
the queue thinks less. If the answer still does not arrive in time (pool saturated, worker
crashed), the heuristic move is played instead; the result is always a legal action.
"""

from __future__ import annotations

import asyncio
import os
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from server.rules import Action, Legal

from . import make_bot
from .heuristic import pre_play_action

INLINE_LEVELS = ("random", "heuristic")
# Time kept for the answer to travel back from the worker, and the least thinking time worth
# sending a decision to a worker for.
RETURN_MARGIN_S = 0.015
MIN_THINK_S = 0.005

_worker_bots: dict[tuple[str, float | None], Any] = {}


def _worker_decide(
    level: str, view: dict[str, Any], legal: Legal, wall_deadline: float, budget_ms: float | None
) -> tuple[Action, dict[str, Any]]:
    """Runs in a worker process: think until ``wall_deadline`` (a ``time.time()`` value) at
    most. Returns the action and the search statistics."""
    key = (level, budget_ms)
    bot = _worker_bots.get(key)
    if bot is None:
        if level == "strong" and budget_ms is not None:
            from .strong import StrongBot

            bot = StrongBot(os.getpid(), budget_ms=budget_ms)
        else:
            bot = make_bot(level, os.getpid())
        _worker_bots[key] = bot
    remaining_ms = (wall_deadline - time.time() - RETURN_MARGIN_S) * 1000.0
    if level == "strong":
        budget = min(bot.budget_ms, max(0.0, remaining_ms))
        act = bot.choose(view, legal, budget_ms=budget)
        return act, dict(bot.last_stats)
    return bot.choose(view, legal), {}


def _warm(_: int = 0) -> int:
    """Import the search code in a worker ahead of the first decision."""
    from . import strong  # noqa: F401

    return os.getpid()


class Runner:
    """A pool of worker processes for AI decisions (see module doc)."""

    def __init__(self, workers: int | None = None, strong_budget_ms: float | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.strong_budget_ms = strong_budget_ms
        self._pool: ProcessPoolExecutor | None = None
        self._inline = {level: make_bot(level, 0) for level in INLINE_LEVELS}
        self.fallbacks = 0
        self.decisions = 0
        self.last_stats: dict[str, Any] = {}

    @property
    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers)
        return self._pool

    def warm_up(self) -> None:
        """Start the worker processes now (blocking), not at the first decision."""
        list(self.pool.map(_warm, range(self.workers)))

    def fallback(self, view: dict[str, Any], legal: Legal) -> Action:
        return self._inline["heuristic"].choose(view, legal)

    async def decide(
        self,
        level: str,
        view: dict[str, Any],
        legal: Legal,
        deadline_s: float = 2.0,
        *,
        budget_ms: float | None = None,
    ) -> Action:
        """The action of an AI of ``level`` for the seat whose ``view`` and ``legal`` are
        given, within ``deadline_s`` seconds."""
        self.decisions += 1
        if level in INLINE_LEVELS:
            return self._inline[level].choose(view, legal)
        pre = pre_play_action(view, legal)
        if pre is not None:
            return pre  # bids, discard, chelem and poignées are the heuristic's decisions
        if len(legal.plays) == 1 or deadline_s < MIN_THINK_S + RETURN_MARGIN_S:
            return self.fallback(view, legal)
        start = time.time()
        fut: Future[tuple[Action, dict[str, Any]]] = self.pool.submit(
            _worker_decide,
            level,
            view,
            legal,
            start + deadline_s,
            budget_ms if budget_ms is not None else self.strong_budget_ms,
        )
        try:
            act, stats = await asyncio.wait_for(asyncio.wrap_future(fut), timeout=deadline_s)
        except BrokenProcessPool:
            self._pool = None  # a worker died: start a fresh pool for the next decisions
            self.fallbacks += 1
            return self.fallback(view, legal)
        except Exception:
            # Deadline passed (pool saturated) or the worker failed: play the heuristic move.
            self.fallbacks += 1
            return self.fallback(view, legal)
        finally:
            fut.cancel()  # no effect once it ran; drops it from the queue otherwise
        self.last_stats = stats
        return act

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


_default: Runner | None = None


def default_runner() -> Runner:
    global _default
    if _default is None:
        _default = Runner()
    return _default


def configure(workers: int | None = None, strong_budget_ms: float | None = None) -> Runner:
    """Replace the default runner (call before the first decision, e.g. at server start)."""
    global _default
    if _default is not None:
        _default.shutdown()
    _default = Runner(workers, strong_budget_ms)
    return _default


async def decide(
    bot_level: str, view: dict[str, Any], legal: Legal, deadline_s: float = 2.0
) -> Action:
    """The AI action for a seat, never blocking the event loop (see module doc)."""
    return await default_runner().decide(bot_level, view, legal, deadline_s)


def shutdown() -> None:
    global _default
    if _default is not None:
        _default.shutdown()
        _default = None

"""Running bot decisions without stalling the event loop.

The table server calls :meth:`Runner.decide` for any AI seat:

    action = await runner.decide("strong", view, legal, deadline_s=2.0, deal=3)

Cheap bots (``easy``, ``normal``, ``heuristic``, ``random``: well under a millisecond) run
inline. ``strong`` decisions run in a pool of worker processes, never on the event loop (by
default one process per core but one, which stays with the loop): its bids, free discards and
cards are searched by simulation; chelem and poignée decisions (and forced discards) are the
heuristic's, made inline. Each searched decision has a deadline: the worker is told the
wall-clock time by which it must answer and thinks until then at most, so a decision that
waited in the queue thinks less; under load (more decisions in flight than workers) every
decision also thinks proportionally less, so waiting stays about one budget long. If no answer
arrives in time (pool saturated, worker crashed) or the search fails, the heuristic move is
played instead; the result is always a legal action. Every such fallback is counted by reason
(:attr:`Runner.fallback_counts`: ``timeout``, ``error``, ``crash``; the server's ``/metrics``
shows them) and an error of the search is logged with its traceback, seat and deal: it is a
bug, and the tests fail on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from server.rules import Action, Legal

from . import INLINE_LEVELS, make_bot
from .heuristic import pre_play_action
from .strong import DEFAULT_BUDGET_MS

log = logging.getLogger("atout.ai")

# Time kept for the answer to travel back from the worker, and the least thinking time worth
# sending a decision to a worker for.
RETURN_MARGIN_S = 0.015
MIN_THINK_S = 0.005
FALLBACK_REASONS = ("timeout", "error", "crash")

_worker_bots: dict[tuple[str, tuple[tuple[str, Any], ...]], Any] = {}


def _worker_decide(
    level: str,
    view: dict[str, Any],
    legal: Legal,
    wall_deadline: float,
    budget_ms: float,
    options: tuple[tuple[str, Any], ...] = (),
    queued: bool = False,
) -> tuple[Action, dict[str, Any]]:
    """Runs in a worker process: think for ``budget_ms`` at most, and answer by
    ``wall_deadline`` (a ``time.time()`` value). Returns the action and search statistics.
    ``queued``: more decisions are waiting than there are workers, so an open card decision
    does not take its extension (``StrongBot.extend``)."""
    key = (level, options)
    bot: Any = _worker_bots.get(key)
    if bot is None:
        bot = _worker_bots[key] = make_bot(level, os.getpid(), **dict(options))
    remaining_ms = (wall_deadline - time.time() - RETURN_MARGIN_S) * 1000.0
    if level == "strong":
        # An open card decision may take bot.extend budgets: keep that within the deadline.
        extend = 1.0 if queued else max(1.0, getattr(bot, "extend", 1.0))
        room = remaining_ms / extend
        act = bot.choose(view, legal, budget_ms=max(0.0, min(budget_ms, room)), extend=extend)
        return act, dict(bot.last_stats)
    return bot.choose(view, legal), {}


def _exit_with_parent(
    parent: int,
    nice: int = 0,
    every_s: float = 0.5,
    setup: Callable[[], None] | None = None,
) -> None:
    """Pool initializer: a watchdog thread ends this worker once its parent is gone. A worker
    blocks reading its call queue, whose write end it holds itself, so it would never see
    EOF: a SIGKILLed server left it running (ppid 1) with the server's stdout and stderr open,
    and the resource tracker behind it. ``nice``: lower the worker's scheduling priority by
    that much (background work). ``setup``: called first (the server's logging, given by the
    layer that knows it: server.ops.logs.setup_worker)."""
    import threading

    if setup is not None:
        setup()
    if nice:
        with contextlib.suppress(OSError, AttributeError):  # not everywhere; never fatal
            os.nice(nice)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        os._exit(0)

    threading.Thread(target=watch, name="atout-parent-watch", daemon=True).start()


_TRACKER_LOCK = threading.Lock()


def spawn_pool(
    workers: int, *, nice: int = 0, setup: Callable[[], None] | None = None
) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes that end themselves with their parent;
    ``setup`` (picklable) runs first in each (see :func:`_exit_with_parent`).

    "spawn": a fork of a server process that runs threads (SQLite, executors) could inherit a
    held lock; spawned workers start clean. The pool's queues hold semaphores, which
    multiprocessing's resource tracker (a process of its own, sharing the server's standard
    error) removes once the server is gone: after a SIGKILL it then warns that they "leaked",
    a line of plain text in the server's JSON log. That removal is the expected end of a killed
    server, so the tracker is started (once per server process) with that warning ignored."""
    from multiprocessing import resource_tracker

    # The review thread and the event loop (the strong AI) may both start a pool: one of them
    # starts the tracker, with the environment changed only while it does.
    with _TRACKER_LOCK:
        if getattr(resource_tracker._resource_tracker, "_pid", None) is None:
            quiet = "ignore:resource_tracker:UserWarning"
            before = os.environ.get("PYTHONWARNINGS")
            os.environ["PYTHONWARNINGS"] = f"{before},{quiet}" if before else quiet
            try:
                resource_tracker.ensure_running()
            finally:
                if before is None:
                    os.environ.pop("PYTHONWARNINGS", None)
                else:
                    os.environ["PYTHONWARNINGS"] = before
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_exit_with_parent,
        initargs=(os.getpid(), nice, 0.5, setup),
    )


def _warm(_: int = 0) -> int:
    """Start a worker (imports done) ahead of the first decision."""
    return os.getpid()


class Runner:
    """A pool of worker processes for AI decisions (see module doc)."""

    def __init__(
        self,
        workers: int | None = None,
        strong_budget_ms: float | None = None,
        share_load: bool = True,
        bot_options: dict[str, Any] | None = None,
        worker_setup: Callable[[], None] | None = None,
    ) -> None:
        # What each worker process runs first (picklable): the server's logging.
        self.worker_setup = worker_setup
        # One core stays with the event loop (views, rules, I/O): on 2 cores, 1 worker gave a
        # lower loop lag and more decisions per second than 2 (bench/ai_loop_lag.py).
        self.workers = workers or max(1, (os.cpu_count() or 2) - 1)
        self.strong_budget_ms = strong_budget_ms or DEFAULT_BUDGET_MS
        # Under load (more decisions in flight than workers) each decision thinks less, so
        # that waiting stays about one budget long instead of growing with the queue.
        self.share_load = share_load
        # Extra StrongBot parameters for the workers (benchmarks, tests).
        self.bot_options = tuple(sorted((bot_options or {}).items()))
        self.pending = 0
        self._pool: ProcessPoolExecutor | None = None
        self._inline = {level: make_bot(level, 0) for level in INLINE_LEVELS}
        # Heuristic moves played instead of a worker's answer, by reason: "timeout" (no answer
        # by the deadline: pool saturated), "error" (the search raised: a bug), "crash" (a
        # worker process died).
        self.fallback_counts: dict[str, int] = dict.fromkeys(FALLBACK_REASONS, 0)
        self.decisions = 0
        self.last_stats: dict[str, Any] = {}

    @property
    def fallbacks(self) -> int:
        return sum(self.fallback_counts.values())

    @property
    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = spawn_pool(self.workers, setup=self.worker_setup)
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
        deal: object = None,
    ) -> Action:
        """The action of an AI of ``level`` for the seat whose ``view`` and ``legal`` are
        given, within ``deadline_s`` seconds. ``deal`` names the deal in the log should the
        search fail (the table id comes from the logging context)."""
        self.decisions += 1
        if level in INLINE_LEVELS:
            return self._inline[level].choose(view, legal)
        searched = legal.bids or (legal.discard is not None and not legal.discard.required)
        if not searched:
            pre = pre_play_action(view, legal)
            if pre is not None:
                return pre  # chelem and poignées are the heuristic's decisions
            if len(legal.plays) == 1:
                return self.fallback(view, legal)
        if deadline_s < MIN_THINK_S + RETURN_MARGIN_S:
            return self.fallback(view, legal)
        start = time.time()
        think_ms = budget_ms if budget_ms is not None else self.strong_budget_ms
        self.pending += 1
        queued = self.share_load and self.pending > self.workers
        if queued:  # and no extension: a saturated pool answered half as many decisions
            think_ms *= self.workers / self.pending
        fut: Future[tuple[Action, dict[str, Any]]] = self.pool.submit(
            _worker_decide,
            level,
            view,
            legal,
            start + deadline_s,
            think_ms,
            self.bot_options,
            queued,
        )
        try:
            act, stats = await asyncio.wait_for(asyncio.wrap_future(fut), timeout=deadline_s)
        except TimeoutError:
            # Deadline passed (pool saturated): play the heuristic move.
            self.fallback_counts["timeout"] += 1
            return self.fallback(view, legal)
        except BrokenProcessPool:
            self._pool = None  # a worker died: start a fresh pool for the next decisions
            self.fallback_counts["crash"] += 1
            log.error(
                "AI %s: worker process died deciding for seat %s (deal %s); heuristic move played",
                level,
                legal.seat,
                deal,
            )
            return self.fallback(view, legal)
        except Exception:
            self.fallback_counts["error"] += 1
            log.exception(
                "AI %s failed deciding for seat %s (deal %s, trick %d); heuristic move played",
                level,
                legal.seat,
                deal,
                len(view.get("tricks") or ()) + 1,
            )
            return self.fallback(view, legal)
        finally:
            self.pending -= 1
            fut.cancel()  # no effect once it ran; drops it from the queue otherwise
        self.last_stats = stats
        return act

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

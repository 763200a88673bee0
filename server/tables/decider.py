"""Where bots think: the seam between tables and the AI runner."""

from __future__ import annotations

import asyncio
from typing import Any

from server.ops.logs import worker_logs
from server.rules import (
    Action,
    Legal,
)


class Decider:
    """The one place where bots think (the seam between tables and the AI runner).

    Cheap levels run inline with the seat's own bot; the others go to
    :mod:`server.ai.runner` (a process pool with a deadline per decision), so the event loop
    never computes a search."""

    def __init__(self, deadline: float = 2.0, runner: Any = None) -> None:
        self.deadline = deadline
        self._runner = runner

    def choose_now(self, bot: Any, seat_view: dict[str, Any], legal: Legal) -> Action:
        """A cheap level's decision (``server.ai.INLINE_LEVELS``), on the caller's thread."""
        return bot.choose(seat_view, legal)

    async def decide(
        self, level: str, bot: Any, seat_view: dict[str, Any], legal: Legal, deal: object = None
    ) -> Action:
        if bot is not None:
            return self.choose_now(bot, seat_view, legal)
        if self._runner is None:
            from server.ai.runner import Runner

            self._runner = Runner(worker_setup=worker_logs("ai"))
        return await self._runner.decide(level, seat_view, legal, self.deadline, deal=deal)

    def fallback_counts(self) -> dict[str, int]:
        """Heuristic moves played instead of a search's answer, by reason (for /metrics)."""
        from server.ai.runner import FALLBACK_REASONS

        counts = getattr(self._runner, "fallback_counts", None) or {}
        return {r: counts.get(r, 0) for r in FALLBACK_REASONS}

    async def shutdown(self) -> None:
        if self._runner is not None:
            await asyncio.to_thread(self._runner.shutdown)

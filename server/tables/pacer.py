"""Fair shares of AI time between the people who run tables nobody plays at.

A table with a connected human is paced by that human (and by the connection's rate limit). A
table of bots only (created with no human, or whose humans are gone) would run as fast as the CPU
allows at think delay 0: twenty of them from one connection took 95 % of a core from everybody
else. So the AI moves of such tables are charged to their *owner* (the address of the
connection that created the table): each owner has a budget of AI time per second, and an AI
move of an owner that has used it up waits its turn. Moves are served in the order they ask,
per owner, and an owner's waiting never delays another owner's tables.

The charge of a move is the time the bot took to decide (measured), plus a fixed cost for
applying and broadcasting it, so cheap bots make many moves and a searching bot few.
"""

from __future__ import annotations

import asyncio
import time

#: What applying and broadcasting one move costs beyond the decision (seconds, measured order).
MOVE_COST = 0.0002


class AiPacer:
    """Per-owner budgets of AI seconds per second (a virtual-time scheduler, GCRA style)."""

    def __init__(self, share: float, burst: float = 1.0) -> None:
        self.share = share  # seconds of AI work per second per owner; <= 0: no limit
        self.burst = burst  # seconds of AI work an idle owner may spend at once
        self._due: dict[str, float] = {}  # owner -> the virtual time its budget is spent to

    async def wait(self, owner: str) -> None:
        """Wait until ``owner`` may make one more AI move (its place is taken at once: the
        owner's moves go in the order they asked)."""
        if self.share <= 0:
            return
        now = time.monotonic()
        due = max(self._due.get(owner, now), now)
        self._due[owner] = due + MOVE_COST / self.share
        if len(self._due) > 4096:  # forget owners idle for longer than their burst
            self._due = {o: d for o, d in self._due.items() if d > now - self.burst}
        start = due - self.burst
        if start > now:
            await asyncio.sleep(start - now)

    def charge(self, owner: str, seconds: float) -> None:
        """Count the ``seconds`` one of ``owner``'s bots took to decide a move."""
        if self.share <= 0:
            return
        now = time.monotonic()
        self._due[owner] = max(self._due.get(owner, now), now) + seconds / self.share

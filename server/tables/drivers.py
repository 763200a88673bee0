"""Who acts next and when: prompting a present human, the AI seat drivers, turn timers.

Anything that waits (think delay, turn timer, AI thinking, the pause between deals) runs in a
driver task that posts its outcome back to the actor's inbox with a ticket; a stale ticket is
ignored, so nothing waits inside the actor."""

from __future__ import annotations

import asyncio
import logging

from server.ai import INLINE_LEVELS, make_bot
from server.rules import (
    legal_actions,
)
from server.rules.randplay import random_from_legal
from server.rules.views import prompt, view
from server.tables.broadcast import Broadcasting

log = logging.getLogger("atout.table")


class Driving(Broadcasting):
    # -- turns, AI and timers ------------------------------------------------------------

    def _cancel_driver(self) -> None:
        self.ticket += 1
        d = self.driver
        if d is not None and not d.done():
            d.cancel()
        self.driver = None

    def _schedule(self) -> None:
        """Make the seat to act act: prompt a present human (and arm its timer), or start the
        AI after its think delay (or, for an absent human, after the turn timer or a short
        wait the first time)."""
        turn = self._turn()
        if turn is None:
            self._cancel_driver()
            return
        seat = self.seats[turn]
        timer = self.opts.turn_timer
        if seat.kind == "human" and seat.session is not None:
            self._cancel_driver()
            vw = prompt(self.deal, turn)  # the view's legal and hand, without the rest
            seat.session.send_obj(
                {
                    "type": "your_turn",
                    "table": self.id,
                    "v": self.v,
                    "seat": turn,
                    "legal": vw["legal"],
                    "hand": vw["hand"],
                    "timer": timer,
                }
            )
            if timer is not None:
                self._start_ai(turn, timer)
            return
        if seat.kind == "human" and not seat.took_over:
            delay = self.cfg.absent_wait if timer is None else min(timer, self.cfg.absent_wait)
        else:
            delay = self.opts.think_delay
        self._start_ai(turn, delay)

    def _start_ai(self, seat: int, delay: float) -> None:
        self._cancel_driver()
        ticket = self.ticket
        self.driver = asyncio.get_running_loop().create_task(self._drive(ticket, seat, delay))

    async def _drive(self, ticket: int, seat_no: int, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        if ticket != self.ticket:
            return
        st = self.deal
        seat = self.seats[seat_no]
        legal = legal_actions(st)
        if legal is None:
            return
        try:
            if seat.bot is None and seat.ai in INLINE_LEVELS:
                seat.bot = make_bot(seat.ai, self.rng.getrandbits(64))
            action = await self.lobby.decider.decide(
                seat.ai, seat.bot, view(st, seat_no), legal, deal=self.deal_no
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception(
                "table %s: AI %s failed at seat %d; playing at random", self.id, seat.ai, seat_no
            )
            action = random_from_legal(legal, self.rng)
        self.inbox.put_nowait(("move", ticket, action))

    async def _next_deal_after(self, ticket: int, delay: float | None = None) -> None:
        delay = self.opts.deal_pause if delay is None else delay
        if delay > 0:
            await asyncio.sleep(delay)
        self.inbox.put_nowait(("next", ticket))

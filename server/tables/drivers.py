"""Who acts next and when: prompting a present human, the AI seat drivers, turn timers.

Anything that waits (think delay, turn timer, AI thinking, the pause between deals) runs in a
driver task that posts its outcome back to the actor's inbox with a ticket; a stale ticket is
ignored, so nothing waits inside the actor."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from server.ai import INLINE_LEVELS, make_bot
from server.rules import (
    Action,
    Legal,
    legal_actions,
)
from server.rules.randplay import random_from_legal
from server.rules.views import prompt, view
from server.tables.broadcast import Broadcasting

log = logging.getLogger("atout.table")


def turn_key(st: Any) -> tuple[int, int]:
    """What tells one turn of a deal from another: the actions taken so far, a poignée not
    counted (it is shown before the card of the same turn, R6.3: the turn goes on), and the
    seat to act."""
    return (st.n_actions - sum(1 for p in st.poignees if p), st.turn)


class Driving(Broadcasting):
    # -- turns, AI and timers ------------------------------------------------------------

    def _cancel_driver(self) -> None:
        """Stop whatever was to act next. The alarm itself stays armed (see :meth:`_start_ai`);
        with ``driver_due`` cleared it finds nothing to do when it rings."""
        self.ticket += 1
        self.driver_due = None
        d = self.driver
        if d is not None and not d.done():
            d.cancel()
        self.driver = None

    def _turn_limit(self) -> float | None:
        """Seconds a present human has to act before the AI plays for them: the table's turn
        timer, else the server-wide limit, so that no seat can hold a table forever."""
        timer = self.opts.turn_timer
        if timer is not None:
            return timer
        return self.cfg.turn_limit if self.cfg.turn_limit > 0 else None

    def _bots_only(self) -> bool:
        """No connected human sits here: the table's AI moves are paced (server.tables.pacer)."""
        # a loop, not all() over a generator: asked three times a move
        for s in self.seats:  # noqa: SIM110
            if s.kind == "human" and s.session is not None:
                return False
        return True

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
        left = self._time_left()
        if seat.kind == "human" and seat.session is not None:
            self._cancel_driver()
            limit = shown = self._turn_limit()
            if limit is not None:
                if left is None:
                    now = asyncio.get_running_loop().time()
                    key = (self.deal_no, *turn_key(self.deal))
                    self.turn_deadline = (key, seat.token_hash, now + limit)
                else:  # this turn was prompted before: what is left of its time, not a new one
                    limit, shown = left, round(left, 2)
            vw = prompt(self.deal, turn)  # the view's legal and hand, without the rest
            seat.session.send_obj(
                {
                    "type": "your_turn",
                    "table": self.id,
                    "v": self.v,
                    "seat": turn,
                    "legal": vw["legal"],
                    "hand": vw["hand"],
                    "timer": shown,
                }
            )
            if limit is not None:
                self._start_ai(turn, limit, timeout=True)
            return
        if seat.kind == "human" and not seat.took_over:
            delay = self.cfg.absent_wait if timer is None else min(timer, self.cfg.absent_wait)
            if left is not None:  # gone during its turn: no later than its timer said
                delay = min(delay, left)
        else:
            delay = self.opts.think_delay
        self._start_ai(turn, delay)

    def _time_left(self) -> float | None:
        """Seconds left of the turn timer a present human was given for the current turn, or
        None when this turn was given none."""
        d = self.turn_deadline
        if d is None or d[1] != self.seats[self.deal.turn].token_hash:
            return None
        if d[0] != (self.deal_no, *turn_key(self.deal)):
            return None
        return max(0.0, d[2] - asyncio.get_running_loop().time())

    def _start_ai(self, seat: int, delay: float, *, timeout: bool = False) -> None:
        """The AI acts for ``seat`` after ``delay``; ``timeout``: a present human ran out of
        time (counted: repeated timeouts release the seat)."""
        self._cancel_driver()
        ticket = self.ticket
        if delay <= 0:
            self._drive_now(ticket, seat, timeout)
            return
        # One alarm per table, re-armed only when it would ring too late: nearly every turn
        # timer (a minute) is made moot by the player's move within a second, and a timer
        # armed and cancelled per prompt was a handle, a context and its arguments per move,
        # kept in the loop's heap until cleaned up: about a fifth of what each young
        # collection of the collector walked at 1,000 players (docs/SCALING.md).
        loop = asyncio.get_running_loop()
        when = loop.time() + delay
        self.driver_due = (ticket, seat, timeout, when)
        alarm = self.driver_timer
        if alarm is not None and alarm.when() <= when:
            return  # it rings first, and re-arms itself for this due time
        if alarm is not None:
            alarm.cancel()
        self.driver_timer = loop.call_at(when, self._ring)

    def _ring(self) -> None:
        """The table's alarm: drive the seat that is due, or wait again for a later due time."""
        self.driver_timer = None
        due = self.driver_due
        if due is None:
            return
        ticket, seat, timeout, when = due
        if ticket != self.ticket:
            self.driver_due = None
            return
        loop = asyncio.get_running_loop()
        if when > loop.time() + 0.001:  # armed for an earlier due time: wait again (within
            # a millisecond is on time: asyncio itself rings up to its clock resolution early)
            self.driver_timer = loop.call_at(when, self._ring)
            return
        self.driver_due = None
        self._drive_now(ticket, seat, timeout)

    def _stop_alarm(self) -> None:
        """The table closes: its alarm must not keep it alive."""
        self._cancel_driver()
        alarm = self.driver_timer
        if alarm is not None:
            alarm.cancel()
            self.driver_timer = None

    def _drive_now(self, ticket: int, seat: int, timeout: bool) -> None:
        if ticket != self.ticket:
            return
        if self.seats[seat].ai in INLINE_LEVELS and not self._bots_only():
            # A bot that answers in well under a millisecond, at a table paced by a human:
            # decided now (in the actor's turn, or the timer's callback) rather than in a task
            # of its own, which cost more than the decision. The move still goes through the
            # inbox, so it is applied like any other, after what the actor is doing.
            action = self._decide_inline(seat)
            if action is not None:
                self.inbox.put_nowait(("move", ticket, action, timeout))
            return
        self.driver = asyncio.get_running_loop().create_task(self._drive(ticket, seat, timeout))

    def _bot_inputs(self, seat_no: int, st: Any = None) -> tuple[Any, dict[str, Any], Legal] | None:
        """The seat's bot (made on first use for the inline levels), its view and its legal
        actions in ``st`` (default: the table's deal); None when the seat has nothing to do."""
        if st is None:
            st = self.deal
        seat = self.seats[seat_no]
        legal = legal_actions(st)
        if legal is None:
            return None
        bot = seat.bot
        if bot is None and seat.ai in INLINE_LEVELS:
            bot = seat.bot = make_bot(seat.ai, self.rng.getrandbits(64))
        # A bot that decides from ``legal`` alone is not given a view: building one is most
        # of the cost of its move (bots run through the runner always read it).
        # One that reads bitmasks is given them: turning the cards into text and back was half
        # of an inline move.
        # Nor is one whose card is forced (one legal card and nothing to declare) when it
        # plays a forced card without looking: a fifth of the play's decisions, the last
        # trick's among them.
        forced = (
            len(legal.plays) == 1
            and not legal.poignees
            and getattr(bot, "forced_without_view", False)
        )
        seat_view = (
            view(st, seat_no, masks=getattr(bot, "reads_masks", False), legal=legal)
            if getattr(bot, "reads_view", True) and not forced
            else {}
        )
        return bot, seat_view, legal

    def _decide_inline(self, seat_no: int, st: Any = None) -> Action | None:
        inputs = self._bot_inputs(seat_no, st)
        if inputs is None:
            return None
        bot, seat_view, legal = inputs
        try:
            return self.lobby.decider.choose_now(bot, seat_view, legal)
        except Exception:
            self.metrics.ai_failures["error"] += 1
            ai = self.seats[seat_no].ai
            log.exception(
                "table %s: AI %s failed at seat %d; playing at random", self.id, ai, seat_no
            )
            return random_from_legal(legal, self.rng)

    def _acts_at_once(self, st: Any) -> bool:
        """The seat to act in ``st`` is an AI seat whose move :meth:`_schedule` would decide
        at once, in the actor's turn: an inline level, no think delay, a human present (a
        table of bots only is paced)."""
        seat = self.seats[st.turn]
        return (
            seat.kind == "ai"
            and seat.ai in INLINE_LEVELS
            and self.opts.think_delay <= 0
            and not self._bots_only()
        )

    async def _drive(self, ticket: int, seat_no: int, timeout: bool) -> None:
        if ticket != self.ticket:
            return
        pacer = self.lobby.pacer if self._bots_only() else None
        if pacer is not None:
            await pacer.wait(self.owner)
            if ticket != self.ticket:
                return
        seat = self.seats[seat_no]
        inputs = self._bot_inputs(seat_no)
        if inputs is None:
            return
        bot, seat_view, legal = inputs
        started = time.perf_counter()
        try:
            action = await self.lobby.decider.decide(
                seat.ai, bot, seat_view, legal, deal=self.deal_no
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            self.metrics.ai_failures["error"] += 1
            log.exception(
                "table %s: AI %s failed at seat %d; playing at random", self.id, seat.ai, seat_no
            )
            action = random_from_legal(legal, self.rng)
        if pacer is not None:
            pacer.charge(self.owner, time.perf_counter() - started)
        self.inbox.put_nowait(("move", ticket, action, timeout))

    async def _next_deal_after(self, ticket: int, delay: float | None = None) -> None:
        delay = self.opts.deal_pause if delay is None else delay
        if delay > 0:
            await asyncio.sleep(delay)
        self.inbox.put_nowait(("next", ticket))

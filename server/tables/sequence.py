"""The deal sequence: series and deals, applying actions (a human's or the AI's), scores.

Crash safety: an action is appended to its deal's log before its events go out, and a deal's cards
are stored before its ``deal_start``; a write that cannot be made refuses the human's action
(``storage_unavailable``) or makes the AI, or the next deal, try again a little later."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import protocol.messages as P
from protocol.errors import ErrorCode
from server.rules import (
    OVER,
    Action,
    Bid,
    Chelem,
    Discard,
    IllegalAction,
    Play,
    Poignee,
    apply,
    legal_actions,
    new_deal,
)
from server.rules.cards import codes_of
from server.rules.randplay import random_from_legal
from server.rules.records import record_of
from server.rules.views import deal_start_event, view
from server.store.journal import Op, op
from server.tables.drivers import Driving
from server.tables.seats import Connection

_PHASE_OF: dict[type, str] = {
    P.Bid: "bidding",
    P.Discard: "discard",
    P.Chelem: "chelem",
    P.Poignee: "play",
}
_PHASE_OF[P.Play] = "play"

log = logging.getLogger("atout.table")

#: At most this many AI moves made ahead with an action (:meth:`DealSequence._moves_at_once`);
#: the turn order reaches a human or the deal's end well before, this is only a bound.
_AT_ONCE_MAX = 16


def engine_action(msg: Any, seat: int) -> Action:
    """The rules engine's action for a protocol action request."""
    t = type(msg)
    if t is P.Play:
        return Play(seat, msg.card)
    if t is P.Bid:
        return Bid(seat, msg.contract)
    if t is P.Discard:
        return Discard(seat, tuple(msg.cards))
    if t is P.Chelem:
        return Chelem(seat, msg.announce)
    return Poignee(seat, tuple(msg.cards))


class DealSequence(Driving):
    def _timed_out(self, idx: int) -> None:
        """A present human at ``idx`` let the AI play for them once more (the move is
        applied); :class:`server.tables.seating.Seating` releases the seat when it happens
        too often."""

    async def _on_move(self, ticket: int, action: Action, timeout: bool = False) -> None:
        if ticket != self.ticket or self._turn() != action.seat:
            return
        seat = self.seats[action.seat]
        if seat.kind == "human" and seat.session is None:
            seat.took_over = True
        prev = self.deal
        try:
            new = apply(prev, action)
        except IllegalAction as e:
            self.metrics.ai_failures["illegal"] += 1
            log.error("table %s: AI %s chose an illegal action %r: %s", self.id, seat.ai, action, e)
            legal = legal_actions(prev)
            if legal is None:
                return
            action = random_from_legal(legal, self.rng)
            new = apply(prev, action)
        # A timed-out human may lose the seat right after this move: nothing is chained to it.
        steps = [(prev, action, new), *([] if timeout else self._moves_at_once(new))]

        def stored() -> None:
            self._apply_steps(steps)
            if timeout and seat.kind == "human" and seat.session is not None:
                seat.timeouts += 1
                self.metrics.turn_timeouts += 1
                self._timed_out(action.seat)

        err = await self._commit([self._log_op(p, a) for p, a, _ in steps], stored)
        if err is not None:
            delay = self._retry_delay()
            log.warning(
                "table %s: cannot store seat %d's move (%s); trying again in %.2fs",
                self.id,
                action.seat,
                err,
                delay,
            )
            self._start_ai(action.seat, delay, timeout=timeout)

    def _moves_at_once(self, st: Any) -> list[tuple[Any, Action, Any]]:
        """The moves the AI seats make at once after ``st`` (:meth:`_acts_at_once`: no think
        delay, an inline level), as (state, action, next state), up to the next seat that
        waits (a human, a delay) or the end of the deal.

        They are what the table would do anyway, one inbox item each, the same bots deciding
        on the same views; made ahead, their writes join the action's in one group (all
        stored, or none) and their events go out with its events, once all are stored: one
        commit and one socket write per connection instead of one per move. Nothing is
        applied here: the caller applies them once the writes are in the database."""
        out: list[tuple[Any, Action, Any]] = []
        while len(out) < _AT_ONCE_MAX and st.phase != OVER and self._acts_at_once(st):
            seat_no = st.turn
            action = self._decide_inline(seat_no, st)
            if action is None:
                break
            try:
                new = apply(st, action)
            except IllegalAction as e:
                self.metrics.ai_failures["illegal"] += 1
                ai = self.seats[seat_no].ai
                log.error("table %s: AI %s chose an illegal action %r: %s", self.id, ai, action, e)
                legal = legal_actions(st)
                if legal is None:
                    break
                action = random_from_legal(legal, self.rng)
                new = apply(st, action)
            out.append((st, action, new))
            st = new
        return out

    def _apply_steps(self, steps: list[tuple[Any, Action, Any]]) -> None:
        """Apply stored moves in order; the turn that follows the last is scheduled."""
        last = len(steps) - 1
        for i, (prev, action, new) in enumerate(steps):
            self._applied(prev, action, new, schedule=i == last)

    # -- the deal sequence ---------------------------------------------------------------

    def _log_op(self, prev: Any, action: Action) -> Op:
        """The write that makes ``action`` (applied to ``prev``) durable."""
        return op("append_action", self.id, self.deal_no, prev.n_actions, action)

    def _applied(self, prev: Any, action: Action, new: Any, *, schedule: bool = True) -> None:
        self.deal = new
        self.metrics.actions_applied += 1
        events = self._emit_action(prev, action, new)
        if new.phase == OVER:
            # the deal_over event's record (server.rules.views.events) is the one to store:
            # built once, it is the largest thing a deal's end makes
            self._deal_over(events[-1]["record"])
        elif schedule:
            self._schedule()

    async def _start_series(self) -> None:
        for seat in self.seats:
            if seat.kind == "empty":
                seat.kind = "ai"
                self._seat_event(seat)
        self.state = "playing"
        self.scores = [0, 0, 0, 0]
        self.series_deals = 0
        self.series_dealt = 0
        self.series_first = self.deal_no + 1
        self._table_state_event()
        log.info("table %s: series %d starts", self.id, self.series)
        await self._new_deal()

    async def _new_deal(self) -> None:
        dealer = self.rng.randrange(4) if self.dealer < 0 else (self.dealer + 1) % 4  # R2.4
        st = new_deal(self.rng, dealer)
        no = self.deal_no + 1
        # The cards are stored before anybody sees them.
        players = [s.name if s.kind == "human" else None for s in self.seats]
        hands = [codes_of(h) for h in st.initial_hands]
        err = await self._commit(
            [op("start_deal", self.id, no, dealer, hands, codes_of(st.chien), players=players)]
        )
        if err is not None:
            delay = self._retry_delay()
            log.warning(
                "table %s: cannot store deal %d (%s); again in %.2fs", self.id, no, err, delay
            )
            self._cancel_driver()
            loop = asyncio.get_running_loop()
            self.driver = loop.create_task(self._next_deal_after(self.ticket, delay))
            return
        self.dealer = dealer
        self.deal_no = no
        self.series_dealt += 1
        self.deal = st
        for seat in self.seats:
            seat.holder = seat.who()
        log.debug("table %s: deal %d dealt by seat %d", self.id, no, dealer)
        self._emit(lambda s: [{**deal_start_event(st, s), "deal_no": no}])
        if st.phase == OVER:  # petit sec (R3.1): the deal ends before any action
            self._emit(lambda s: [_deal_over_event(st, s)])
            self._deal_over()
        else:
            self._schedule()

    def _series_done(self) -> bool:
        """`deals` counts scored deals: an annulled one (R3) is dealt again by the next dealer
        (R2.4). A target score ends the series, or 1000 deals dealt without reaching it."""
        o = self.opts
        return (o.deals is not None and self.series_deals >= o.deals) or (
            o.target_score is not None
            and (max(self.scores) >= o.target_score or self.series_dealt >= 1000)
        )

    def _record_deal(
        self, st: Any, players: list[str | None], rec: dict[str, Any] | None = None
    ) -> list[Any]:
        """Count a finished deal and queue its record (``rec``, else built here: the log of
        its actions is durable)."""
        if rec is None:
            rec = record_of(st)
        deal_scores = rec["result"]["scores"]
        if self.deal_no >= self.series_first:
            self.scores = [a + b for a, b in zip(self.scores, deal_scores, strict=True)]
            if rec["result"]["status"] == "played":
                self.series_deals += 1
        seats = [s.seat_record() for s in self.seats]
        self._pending.append(
            op("record_deal", self.id, self.deal_no, rec, players, list(deal_scores), seats=seats)
        )
        tid, no = self.id, self.deal_no
        self._after_commit.append(lambda: self.lobby.deal_recorded(tid, no))
        return deal_scores

    def _deal_over(self, record: dict[str, Any] | None = None) -> None:
        """The deal is over: count it, queue its record (``record``, if already built, must
        be ``record_of(self.deal)``) and go on to the next deal or end the series."""
        players = [s.name if s.kind == "human" else None for s in self.seats]
        deal_scores = self._record_deal(self.deal, players, record)
        self.metrics.deals_finished += 1
        self._emit_public(
            {"type": "scores", "deal_no": self.deal_no, "deal": deal_scores, "total": self.scores}
        )
        self._cancel_driver()
        log.debug("table %s: deal %d over, scores %s", self.id, self.deal_no, deal_scores)
        if self._series_done():
            self.state = "finished"
            log.info("table %s: series %d finished, scores %s", self.id, self.series, self.scores)
            self._table_state_event()
            self._pending.append(op("finish_table", self.id, "finished"))
        else:
            self.driver = asyncio.get_running_loop().create_task(self._next_deal_after(self.ticket))

    async def _on_start(self, sess: Connection, msg: P.Start) -> None:
        if not self._may_manage(sess):
            sess.error(msg.id, ErrorCode.NOT_ALLOWED, "only the creator or a player may start")
            return
        if self.state != "waiting":
            sess.error(msg.id, ErrorCode.WRONG_STATE, f"the table is {self.state}, not waiting")
            return
        limit = self.cfg.max_bot_tables
        if self._bots_only() and self.lobby.bot_tables(self.owner) >= limit:
            sess.error(
                msg.id,
                ErrorCode.LIMIT_REACHED,
                f"at most {limit} tables of bots only may play at once per address; sit at "
                "this table, or close one",
            )
            return
        sess.send_obj({"type": "ok", "id": msg.id})
        await self._start_series()

    async def _on_restart(self, sess: Connection, msg: P.Restart) -> None:
        if not self._may_manage(sess):
            sess.error(msg.id, ErrorCode.NOT_ALLOWED, "only the creator or a player may restart")
            return
        if self.state != "finished":
            sess.error(msg.id, ErrorCode.WRONG_STATE, f"the table is {self.state}, not finished")
            return
        sess.send_obj({"type": "ok", "id": msg.id})
        self.series += 1
        self._pending.append(op("set_table_status", self.id, "open"))
        await self._start_series()

    async def _on_action(self, sess: Connection, msg: Any) -> None:
        idx = self._seat_of(sess)
        if idx is None:
            sess.error(msg.id, ErrorCode.NOT_SEATED, f"you hold no seat at table {self.id}")
            return
        if msg.seat is not None and msg.seat != idx:
            sess.error(msg.id, ErrorCode.NOT_YOUR_SEAT, f"you sit at seat {idx}, not {msg.seat}")
            return
        st = self.deal
        if self.state != "playing" or st is None or st.phase == OVER:
            sess.error(msg.id, ErrorCode.WRONG_PHASE, "no deal is in progress")
            return
        if st.turn != idx:
            sess.error(msg.id, ErrorCode.NOT_YOUR_TURN, f"seat {st.turn} is to act, not you")
            return
        action = engine_action(msg, idx)
        try:
            prev = st
            new = apply(prev, action)
        except IllegalAction as e:
            code = (
                ErrorCode.WRONG_PHASE
                if _PHASE_OF[type(msg)] != st.phase
                else ErrorCode.ILLEGAL_ACTION
            )
            sess.error(msg.id, code, e.detail, rule=e.rule)
            return
        steps = [(prev, action, new), *self._moves_at_once(new)]

        def stored() -> None:
            self.seats[idx].timeouts = 0
            sess.send_obj({"type": "ok", "id": msg.id})
            self._apply_steps(steps)

        err = await self._commit([self._log_op(p, a) for p, a, _ in steps], stored)
        if err is not None:  # refused: nothing changed, the player may send it again
            log.warning("table %s: action of seat %d refused: %s", self.id, idx, err)
            self._refuse(sess, msg.id, err)


def _deal_over_event(st: Any, seat: int | None) -> dict[str, Any]:
    """The end-of-deal reveal for a deal that ended without an action (petit sec)."""
    vw = view(st, seat)
    return {"type": "deal_over", "result": vw["result"], "record": vw["record"]}

"""The table actor: four seats, a deal sequence, AI seat drivers, timers and the event log.

Every change to a table happens inside :meth:`Table.run`, one inbox item at a time: client
requests, AI and timer moves, disconnections, grace expiries. Handlers are synchronous and short;
anything that waits (think delay, turn timer, AI thinking, the pause between deals) runs in a
separate *driver* task that posts its outcome back to the inbox with a ticket, and a stale ticket
is ignored. So actions are applied strictly one at a time and nothing waits inside the actor.

What a seat or spectator learns always comes from :mod:`server.rules.views` (``view``, ``events``,
``deal_start_event``): this module never decides visibility itself. Events are numbered by one
per-table counter ``v``; each is encoded once per distinct content (usually once for everybody)
and kept in a bounded log per seat so that a reconnecting player gets what it missed.

Crash safety: what a client is told is already in the database. An action is appended to its
deal's log (:mod:`server.store.journal`) before its events go out, and a deal's cards are stored before
its ``deal_start``; the table itself (options, seats with their tokens' SHA-256, series, version)
is saved whenever it changes. A write that cannot be made refuses the human's action
(``storage_unavailable``) or makes the AI, or the next deal, try again a little later: the state
never moves ahead of the database. :meth:`Table.rebuilt` makes a table again from what was
stored, replaying its deal in progress through the rules engine.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, fields
from random import Random
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

import protocol.messages as P
from protocol.errors import CloseCode, ErrorCode
from server.ai import make_bot
from server.ops.logs import table_context
from server.rules import (
    OVER,
    Action,
    Bid,
    Chelem,
    Discard,
    IllegalAction,
    Legal,
    Play,
    Poignee,
    apply,
    legal_actions,
    new_deal,
)
from server.rules.cards import codes_of
from server.rules.randplay import random_from_legal
from server.rules.records import decode_record, record_of, replay_record, start_state
from server.rules.views import deal_start_event, events, prompt, view
from server.store.journal import Op, op
from server.store.sqlite import StoreError

if TYPE_CHECKING:
    from server.net.session import Session
    from server.tables.lobby import Lobby

log = logging.getLogger("atout.table")

_encode = msgspec.json.Encoder().encode

SPECTATORS = 4  # index of the spectators' visibility class (seats are 0..3)
_HIDDEN: dict[str, Any] = {"type": "hidden"}

# Levels whose bots answer in microseconds run inline; others go through the executor.
INLINE_LEVELS = frozenset({"random", "heuristic"})

_PHASE_OF: dict[type, str] = {
    P.Bid: "bidding",
    P.Discard: "discard",
    P.Chelem: "chelem",
    P.Poignee: "play",
}
_PHASE_OF[P.Play] = "play"

#: After a restart a table's version jumps ahead by this much, so that no client ever sees ``v``
#: go back: the saved version lags the last one sent by at most one deal's events (about 130).
RESTART_V_GAP = 1000
#: Waits (s) before trying a write again while the storage fails (doubling up to the last).
STORE_RETRY = (0.25, 0.5, 1.0, 2.0, 5.0)


def token_hash(token: str) -> str:
    """What the server keeps of a seat token: its SHA-256 (the token itself is never stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


class Decider:
    """The one place where bots think (the seam between tables and the AI runner).

    Cheap levels run inline with the seat's own bot; the others go to
    :mod:`server.ai.runner` (a process pool with a deadline per decision), so the event loop
    never computes a search."""

    def __init__(self, deadline: float = 2.0, runner: Any = None) -> None:
        self.deadline = deadline
        self._runner = runner

    async def decide(self, level: str, bot: Any, seat_view: dict[str, Any], legal: Legal) -> Action:
        if bot is not None:
            return bot.choose(seat_view, legal)  # type: ignore[no-any-return]
        if self._runner is None:
            from server.ai.runner import Runner

            self._runner = Runner()
        return await self._runner.decide(level, seat_view, legal, self.deadline)  # type: ignore[no-any-return]

    async def shutdown(self) -> None:
        if self._runner is not None:
            await asyncio.to_thread(self._runner.shutdown)


@dataclass
class TableOptions:
    name: str
    public: bool
    deals: int | None
    target_score: int | None
    ai: list[str]
    turn_timer: float | None
    think_delay: float
    deal_pause: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "public": self.public,
            "deals": self.deals,
            "target_score": self.target_score,
            "ai": self.ai,
            "turn_timer": self.turn_timer,
            "think_delay": self.think_delay,
            "deal_pause": self.deal_pause,
        }


class Seat:
    __slots__ = (
        "ai",
        "bot",
        "grace",
        "index",
        "kind",
        "name",
        "session",
        "token_hash",
        "took_over",
    )

    def __init__(self, index: int, ai: str) -> None:
        self.index = index
        self.kind = "empty"  # empty | human | ai
        self.name: str | None = None
        self.token_hash: str | None = None  # token_hash() of the seat token (held by a human)
        self.session: Session | None = None  # the connection holding it, None while away
        self.ai = ai  # level of the AI that plays it (AI seat, or stand-in for an absent human)
        self.bot: Any = None
        self.grace: asyncio.TimerHandle | None = None
        self.took_over = False  # the AI has played for this absent human: no more waiting

    def info(self) -> dict[str, Any]:
        human = self.kind == "human"
        return {
            "seat": self.index,
            "kind": self.kind,
            "name": self.name,
            "connected": human and self.session is not None,
            "ai": None if human and self.session is not None else self.ai,
        }

    def saved(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "token": self.token_hash, "ai": self.ai}


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


class Table:
    """One table and its actor task. Create through :class:`server.tables.lobby.Lobby`."""

    def __init__(
        self, tid: str, opts: TableOptions, lobby: Lobby, creator: str, rng: Random
    ) -> None:
        self.id = tid
        self.opts = opts
        self.lobby = lobby
        self.cfg = lobby.cfg
        self.metrics = lobby.metrics
        self.creator = creator  # session id of the creating connection
        self.rng = rng
        self.state = "waiting"  # waiting | playing | finished | closed
        self.closed = False
        self.seats = [Seat(i, opts.ai[i]) for i in range(4)]
        self.spectators: set[Session] = set()
        self.deal: Any = None  # DealState of the current (or last finished) deal
        self.deal_no = 0
        self.series = 1
        self.series_deals = 0
        self.dealer = -1
        self.series_first = 1  # deal_no of the current series' first deal
        self.scores: list[float] = [0, 0, 0, 0]
        self.v = 0
        # writes not made yet (kept in order) and whether the table itself needs saving
        self._pending: list[Op] = []
        self._dirty = False
        self._failures = 0  # store failures in a row (retry pacing)
        self._flush_timer: asyncio.TimerHandle | None = None
        self.logs: list[deque[tuple[int, bytes]]] = [
            deque(maxlen=self.cfg.event_log) for _ in range(4)
        ]
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.ticket = 0
        self.driver: asyncio.Task[None] | None = None
        self.task: asyncio.Task[None] | None = None

    # -- outside interface ---------------------------------------------------------------

    def start_actor(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.id}")
        # the lobby waits for every actor at shutdown, closed ones too (their last writes)
        self.lobby.actors.add(self.task)
        self.task.add_done_callback(self.lobby.actors.discard)

    def post(self, item: tuple[Any, ...]) -> bool:
        """Queue an item for the actor; False once the table is closed."""
        if self.closed:
            return False
        self.inbox.put_nowait(item)
        return True

    def info(self) -> dict[str, Any]:
        o = self.opts
        return {
            "table": self.id,
            "name": o.name,
            "public": o.public,
            "state": self.state,
            "seats": [s.info() for s in self.seats],
            "deals": o.deals,
            "target_score": o.target_score,
            "deal_no": self.deal_no,
            "series": self.series,
            "scores": self.scores,
            "turn_timer": o.turn_timer,
            "think_delay": o.think_delay,
            "deal_pause": o.deal_pause,
            "spectators": len(self.spectators),
        }

    # -- the actor -----------------------------------------------------------------------

    async def run(self) -> None:
        table_context(self.id)  # this task's log records name the table
        inbox = self.inbox
        while not self.closed:
            item = await inbox.get()
            try:
                pending = self._dispatch(item)
                if pending is not None:
                    await pending
            except Exception:
                log.exception("table %s: error handling %s", self.id, item[0])
                if item[0] in ("req", "hello"):
                    item[1].error(item[2].id, ErrorCode.INTERNAL, "internal server error")
            if self._dirty or self._pending:
                await self._flush()
        self._cancel_driver()
        while not inbox.empty():  # requests that raced with closing still get their answer
            item = inbox.get_nowait()
            if item[0] in ("req", "hello"):
                sess: Session = item[1]
                if item[0] == "hello":
                    sess.hello_pending = False
                sess.error(item[2].id, ErrorCode.NO_SUCH_TABLE, f"table {self.id} is closed")

    def _dispatch(self, item: tuple[Any, ...]) -> Any:
        """Handle one inbox item; returns a coroutine to await when it must wait for a write."""
        kind = item[0]
        if kind == "req":
            sess, msg = item[1], item[2]
            handler = self._handlers.get(type(msg))
            if handler is None:
                return self._on_action(sess, msg)
            return handler(self, sess, msg)
        if kind == "move":
            return self._on_move(item[1], item[2])
        if kind == "next":
            if item[1] == self.ticket and self.state == "playing":
                return self._new_deal()
        elif kind == "gone":
            self._on_gone(item[1])
        elif kind == "grace":
            self._on_grace(item[1], item[2])
        elif kind == "hello":
            self._on_hello(item[1], item[2], item[3])
        elif kind == "restored":
            self._on_restored()
        elif kind == "stop":
            self._stop()
        # "flush": nothing to do but the flush that follows every item
        return None

    # -- the database ----------------------------------------------------------------------

    def saved(self) -> dict[str, Any]:
        """What is stored of the table beside its deals (``options.live`` of its row)."""
        return {
            "state": self.state,
            "series": self.series,
            "series_first": self.series_first,
            "deal_no": self.deal_no,
            "dealer": self.dealer,
            "scores": self.scores,  # for people reading it: a rebuild sums the stored deals
            "v": self.v,
            "seats": [s.saved() for s in self.seats],
        }

    def _save_op(self) -> Op:
        return op(
            "create_table", self.id, self.opts.name, {**self.opts.to_dict(), "live": self.saved()}
        )

    async def _commit(self, ops: list[Op]) -> BaseException | None:
        """Write the table's pending writes, its row if it changed, then ``ops``, in this order
        and all or nothing; None once they are in the database, else the error (then the
        pending writes and the row stay to do, and ``ops`` are dropped: the caller decides)."""
        journal = self.lobby.journal
        save = self._dirty
        pending = self._pending
        self._pending = []
        self._dirty = False
        if journal is None:
            return None
        head = [*pending, self._save_op()] if save else pending
        err = await journal.write(head + ops if head else ops)
        if err is None:
            self._failures = 0
            return None
        self._failures += 1
        self._pending = [*pending, *self._pending]
        self._dirty = self._dirty or save
        return err

    def _retry_delay(self) -> float:
        return STORE_RETRY[min(self._failures, len(STORE_RETRY)) - 1] if self._failures else 0.0

    async def _flush(self) -> None:
        """Make what changed durable (end of every inbox item); retried later on failure."""
        try:
            err = await self._commit([])
        except Exception:
            log.exception("table %s: flushing its writes failed", self.id)
            return
        if err is None:
            return
        if self.closed:
            self.lobby.metrics.store_failures += 1
            log.error(
                "table %s: writes lost at closing: %s; payload: %s",
                self.id,
                err,
                [(m, a) for m, a, _ in self._pending],
            )
            return
        delay = self._retry_delay()
        log.warning("table %s: cannot save (%s); trying again in %.2fs", self.id, err, delay)
        if self._flush_timer is None or self._flush_timer.cancelled():
            loop = asyncio.get_running_loop()
            self._flush_timer = loop.call_later(delay, self._flush_due)

    def _flush_due(self) -> None:
        self._flush_timer = None
        self.post(("flush",))

    def _refuse(self, sess: Session, rid: Any, err: BaseException) -> None:
        if isinstance(err, StoreError):
            sess.error(
                rid,
                ErrorCode.STORAGE_UNAVAILABLE,
                "the server cannot store this right now; nothing changed, try again shortly",
                details={"reason": err.code},
            )
        else:
            sess.error(rid, ErrorCode.INTERNAL, "internal server error")

    # -- events --------------------------------------------------------------------------

    def _turn(self) -> int | None:
        st = self.deal
        if self.state != "playing" or st is None or st.phase == OVER:
            return None
        return st.turn  # type: ignore[no-any-return]

    def _emit(self, make: Callable[[int | None], list[dict[str, Any]]]) -> None:
        """Broadcast what each visibility class learns; ``make(seat)`` asks the views module.

        Only classes with someone to tell (or to tell later, on resume) are computed; the
        spectators' class is always computed since it fixes how many versions are used."""
        lists: list[tuple[int, list[dict[str, Any]]]] = [(SPECTATORS, make(None))]
        for s in self.seats:
            if s.kind == "human":
                lists.append((s.index, make(s.index)))
        self._broadcast(lists)

    def _emit_public(self, ev: dict[str, Any]) -> None:
        """A table event everybody sees identically (seats, table state, scores): the table
        changed, so it is saved (with its version) after the current item."""
        self._dirty = True
        evs = [ev]
        lists = [(SPECTATORS, evs)]
        lists.extend((s.index, evs) for s in self.seats if s.kind == "human")
        self._broadcast(lists)

    def _broadcast(self, lists: list[tuple[int, list[dict[str, Any]]]]) -> None:
        n = max(len(evs) for _, evs in lists)
        turn = self._turn()
        tid = self.id
        for i in range(n):
            self.v += 1
            v = self.v
            encoded: list[tuple[dict[str, Any], bytes]] = []
            for cls, evs in lists:
                ev = evs[i] if i < len(evs) else _HIDDEN
                data = None
                for prev_ev, prev_data in encoded:
                    if prev_ev is ev or prev_ev == ev:
                        data = prev_data
                        break
                if data is None:
                    data = _encode(
                        {"type": "event", "table": tid, "v": v, "turn": turn, "event": ev}
                    )
                    encoded.append((ev, data))
                if cls == SPECTATORS:
                    for sp in self.spectators:
                        sp.send(data)
                else:
                    self.logs[cls].append((v, data))
                    sess = self.seats[cls].session
                    if sess is not None:
                        sess.send(data)

    def _seat_event(self, seat: Seat) -> None:
        self._emit_public({"type": "seat", **seat.info()})

    def _table_state_event(self, reason: str | None = None) -> None:
        ev = {
            "type": "table_state",
            "state": self.state,
            "series": self.series,
            "deal_no": self.deal_no,
            "scores": self.scores,
        }
        if reason is not None:
            ev["reason"] = reason
        self._emit_public(ev)

    def _snapshot(self, sess: Session, seat: int | None) -> None:
        deal = view(self.deal, seat) if self.deal is not None else None
        sess.send_obj(
            {
                "type": "snapshot",
                "table": self.id,
                "v": self.v,
                "seat": seat,
                "info": self.info(),
                "deal": deal,
            }
        )

    def _catch_up(self, sess: Session, seat: int, v: int | None) -> None:
        """Send the events after ``v`` from the seat's log, or a snapshot when they are gone."""
        entries = self.logs[seat]
        if v is not None and v <= self.v and (v == self.v or (entries and entries[0][0] <= v + 1)):
            for ev_v, data in entries:
                if ev_v > v:
                    sess.send(data)
        else:
            self._snapshot(sess, seat)

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
            action = await self.lobby.decider.decide(seat.ai, seat.bot, view(st, seat_no), legal)
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

    async def _on_move(self, ticket: int, action: Action) -> None:
        if ticket != self.ticket or self._turn() != action.seat:
            return
        seat = self.seats[action.seat]
        if seat.kind == "human" and seat.session is None:
            seat.took_over = True
        prev = self.deal
        try:
            new = apply(prev, action)
        except IllegalAction as e:
            log.error("table %s: AI %s chose an illegal action %r: %s", self.id, seat.ai, action, e)
            legal = legal_actions(prev)
            if legal is None:
                return
            action = random_from_legal(legal, self.rng)
            new = apply(prev, action)
        err = await self._commit([self._log_op(prev, action)])
        if err is not None:
            delay = self._retry_delay()
            log.warning(
                "table %s: cannot store seat %d's move (%s); trying again in %.2fs",
                self.id,
                action.seat,
                err,
                delay,
            )
            self._start_ai(action.seat, delay)
            return
        self._applied(prev, action, new)

    # -- the deal sequence ---------------------------------------------------------------

    def _log_op(self, prev: Any, action: Action) -> Op:
        """The write that makes ``action`` (applied to ``prev``) durable."""
        return op("append_action", self.id, self.deal_no, prev.n_actions, action)

    def _applied(self, prev: Any, action: Action, new: Any) -> None:
        self.deal = new
        self.metrics.actions_applied += 1
        self._emit(lambda s: events(prev, action, new, s))
        if new.phase == OVER:
            self._deal_over()
        else:
            self._schedule()

    async def _start_series(self) -> None:
        for seat in self.seats:
            if seat.kind == "empty":
                seat.kind = "ai"
                self._seat_event(seat)
        self.state = "playing"
        self.scores = [0, 0, 0, 0]
        self.series_deals = 0
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
        self.series_deals += 1
        self.deal = st
        log.debug("table %s: deal %d dealt by seat %d", self.id, no, dealer)
        self._emit(lambda s: [{**deal_start_event(st, s), "deal_no": no}])
        if st.phase == OVER:  # petit sec (R3.1): the deal ends before any action
            self._emit(lambda s: [_deal_over_event(st, s)])
            self._deal_over()
        else:
            self._schedule()

    def _series_done(self) -> bool:
        o = self.opts
        return (o.deals is not None and self.series_deals >= o.deals) or (
            o.target_score is not None
            and (max(self.scores) >= o.target_score or self.series_deals >= 1000)
        )

    def _record_deal(self, st: Any, players: list[str | None]) -> list[Any]:
        """Count a finished deal and queue its record (the log of its actions is durable)."""
        rec = record_of(st)
        deal_scores = rec["result"]["scores"]
        if self.deal_no >= self.series_first:
            self.scores = [a + b for a, b in zip(self.scores, deal_scores, strict=True)]
        self._pending.append(
            op("record_deal", self.id, self.deal_no, rec, players, list(deal_scores))
        )
        return deal_scores  # type: ignore[no-any-return]

    def _deal_over(self) -> None:
        players = [s.name if s.kind == "human" else None for s in self.seats]
        deal_scores = self._record_deal(self.deal, players)
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

    # -- requests ------------------------------------------------------------------------

    def _seat_of(self, sess: Session) -> int | None:
        idx = sess.seats.get(self.id)
        if idx is not None and self.seats[idx].session is sess:
            return idx
        return None

    def _may_manage(self, sess: Session) -> bool:
        return sess.id == self.creator or self._seat_of(sess) is not None

    async def _on_join(self, sess: Session, msg: P.Join) -> None:
        if self._seat_of(sess) is not None:
            sess.error(msg.id, ErrorCode.ALREADY_SEATED, f"you already sit at table {self.id}")
            return
        if self.lobby.shutting_down:
            sess.error(msg.id, ErrorCode.SHUTTING_DOWN, "the server is shutting down")
            return
        free = [s for s in self.seats if s.kind != "human"]
        if not free:
            sess.error(msg.id, ErrorCode.TABLE_FULL, f"table {self.id} has four players")
            return
        if msg.seat is not None:
            seat = self.seats[msg.seat]
            if seat.kind == "human":
                sess.error(msg.id, ErrorCode.SEAT_TAKEN, f"seat {msg.seat} is taken")
                return
        else:
            seat = min(free, key=lambda s: (s.kind != "empty", s.index))
        # The seat (with its token's hash) is stored before the token is handed out, so that
        # it resumes the seat even after a restart.
        token = secrets.token_urlsafe(24)
        hashed = token_hash(token)
        before = (seat.kind, seat.name, seat.token_hash, seat.took_over)
        seat.kind = "human"
        seat.name = sess.name
        seat.token_hash = hashed
        seat.took_over = False
        self._dirty = True
        err = await self._commit([])
        if err is not None:
            seat.kind, seat.name, seat.token_hash, seat.took_over = before
            self._dirty = True
            self._refuse(sess, msg.id, err)
            return
        self.logs[seat.index].clear()
        self.lobby.tokens[hashed] = self
        sess.send_obj(
            {"type": "joined", "id": msg.id, "table": self.id, "seat": seat.index, "token": token}
        )
        self._unwatch(sess)
        # The event goes out before the newcomer is attached (its snapshot already includes it),
        # so it says what the seat is about to be: connected, not driven by the AI.
        self._emit_public({"type": "seat", **seat.info(), "connected": True, "ai": None})
        seat.session = sess
        sess.seats[self.id] = seat.index
        self._snapshot(sess, seat.index)
        if self.state == "waiting" and all(s.kind == "human" for s in self.seats):
            await self._start_series()
        elif self._turn() == seat.index:
            self._schedule()

    def _on_resume(self, sess: Session, msg: P.Resume) -> None:
        idx = self._token_seat(msg.token)
        if idx is None:
            sess.error(msg.id, ErrorCode.BAD_TOKEN, "this seat token is not valid (any more)")
            return
        held = self._seat_of(sess)
        if held is not None and held != idx:  # one seat per connection and table
            sess.error(msg.id, ErrorCode.ALREADY_SEATED, f"you already sit at seat {held} here")
            return
        self._resume(sess, idx, msg.v, msg.id, msg.token)

    def _on_hello(self, sess: Session, msg: P.Hello, welcome: dict[str, Any]) -> None:
        sess.hello_pending = False
        idx = self._token_seat(msg.token or "")
        if idx is None:
            sess.error(msg.id, ErrorCode.BAD_TOKEN, "this seat token is not valid (any more)")
            return
        sess.greeted = True
        sess.send_obj({**welcome, "resumed": {"table": self.id, "seat": idx}})
        self._resume(sess, idx, msg.v, None, None)

    def _token_seat(self, token: str) -> int | None:
        hashed = token_hash(token)
        for s in self.seats:
            held = s.token_hash
            if held is not None and s.kind == "human" and secrets.compare_digest(held, hashed):
                return s.index
        return None

    def _resume(self, sess: Session, idx: int, v: int | None, rid: Any, token: str | None) -> None:
        seat = self.seats[idx]
        old = seat.session
        if old is not None and old is not sess:
            old.seats.pop(self.id, None)
            old.abort(CloseCode.REPLACED, "seat resumed by another connection")
        was_away = old is None
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        seat.took_over = False
        self._unwatch(sess)
        seat.session = sess
        sess.seats[self.id] = idx
        if rid is not None:
            sess.send_obj(
                {"type": "joined", "id": rid, "table": self.id, "seat": idx, "token": token}
            )
        self._catch_up(sess, idx, v)
        if was_away:
            self._seat_event(seat)
        if self._turn() == idx:
            self._schedule()

    def _on_watch(self, sess: Session, msg: P.Watch) -> None:
        if self._seat_of(sess) is not None:
            sess.error(msg.id, ErrorCode.ALREADY_SEATED, "you sit at this table")
            return
        sess.send_obj({"type": "watching", "id": msg.id, "table": self.id})
        self.spectators.add(sess)
        sess.watching.add(self.id)
        self._snapshot(sess, None)

    def _unwatch(self, sess: Session) -> None:
        self.spectators.discard(sess)
        sess.watching.discard(self.id)

    def _on_unwatch(self, sess: Session, msg: P.Unwatch) -> None:
        self._unwatch(sess)
        sess.send_obj({"type": "ok", "id": msg.id})
        self._maybe_abandon()

    def _on_leave(self, sess: Session, msg: P.Leave) -> None:
        idx = self._seat_of(sess)
        if idx is None:
            sess.error(msg.id, ErrorCode.NOT_SEATED, f"you hold no seat at table {self.id}")
            return
        sess.seats.pop(self.id, None)
        sess.send_obj({"type": "ok", "id": msg.id})
        self._release(idx)

    async def _on_start(self, sess: Session, msg: P.Start) -> None:
        if not self._may_manage(sess):
            sess.error(msg.id, ErrorCode.NOT_ALLOWED, "only the creator or a player may start")
            return
        if self.state != "waiting":
            sess.error(msg.id, ErrorCode.WRONG_STATE, f"the table is {self.state}, not waiting")
            return
        sess.send_obj({"type": "ok", "id": msg.id})
        await self._start_series()

    async def _on_restart(self, sess: Session, msg: P.Restart) -> None:
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

    def _on_close(self, sess: Session, msg: P.Close) -> None:
        if not self._may_manage(sess):
            sess.error(msg.id, ErrorCode.NOT_ALLOWED, "only the creator or a player may close")
            return
        if self.state == "playing":
            sess.error(msg.id, ErrorCode.WRONG_STATE, "a playing table cannot be closed")
            return
        sess.send_obj({"type": "ok", "id": msg.id})
        self._close("closed")

    async def _on_action(self, sess: Session, msg: Any) -> None:
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
        err = await self._commit([self._log_op(prev, action)])
        if err is not None:  # refused: nothing changed, the player may send it again
            log.warning("table %s: action of seat %d refused: %s", self.id, idx, err)
            self._refuse(sess, msg.id, err)
            return
        sess.send_obj({"type": "ok", "id": msg.id})
        self._applied(prev, action, new)

    _handlers: ClassVar[dict[type, Callable[[Table, Session, Any], Any]]] = {
        P.Join: _on_join,
        P.Resume: _on_resume,
        P.Watch: _on_watch,
        P.Unwatch: _on_unwatch,
        P.Leave: _on_leave,
        P.Start: _on_start,
        P.Restart: _on_restart,
        P.Close: _on_close,
    }

    # -- connections coming and going ----------------------------------------------------

    def _on_gone(self, sess: Session) -> None:
        self.spectators.discard(sess)
        for seat in self.seats:
            if seat.session is sess:
                seat.session = None
                token = seat.token_hash
                seat.grace = asyncio.get_running_loop().call_later(
                    self.cfg.grace, self.post, ("grace", seat.index, token)
                )
                self._seat_event(seat)
                if self._turn() == seat.index:
                    self._schedule()
        self._maybe_abandon()

    def _on_grace(self, idx: int, token: str | None) -> None:
        seat = self.seats[idx]
        if seat.token_hash == token and seat.session is None and seat.kind == "human":
            log.info("table %s: seat %d released after the grace period", self.id, idx)
            self._release(idx)

    def _release(self, idx: int) -> None:
        """The human at ``idx`` is gone for good: revoke the token; an AI (or nobody) sits."""
        seat = self.seats[idx]
        if seat.token_hash is not None:
            self.lobby.tokens.pop(seat.token_hash, None)
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        seat.token_hash = None
        seat.session = None
        seat.name = None
        seat.took_over = False
        seat.kind = "ai" if self.state == "playing" else "empty"
        self.logs[idx].clear()
        self._seat_event(seat)
        if self._turn() == idx:
            self._schedule()
        self._maybe_abandon()

    def _maybe_abandon(self) -> None:
        """Close a table nobody plays at, watches or created from a live connection."""
        if self.closed or self.spectators or any(s.kind == "human" for s in self.seats):
            return
        if self.creator in self.lobby.sessions:
            return
        self._close("abandoned")

    def _close(self, reason: str, *, announce: bool = True) -> None:
        if self.closed:
            return
        was = self.state
        self.state = "closed"
        self._cancel_driver()
        if announce:
            self._table_state_event(reason)
        self.closed = True
        for seat in self.seats:
            if seat.grace is not None:
                seat.grace.cancel()
            if seat.token_hash is not None:
                self.lobby.tokens.pop(seat.token_hash, None)
            if seat.session is not None:
                seat.session.seats.pop(self.id, None)
        for sp in self.spectators:
            sp.watching.discard(self.id)
        self.spectators.clear()
        self.lobby.forget(self)
        if was != "finished":
            self._pending.append(op("finish_table", self.id, reason))
        log.info("table %s closed (%s)", self.id, reason)

    def _stop(self) -> None:
        """The server stops: the table stays open in the database, to be rebuilt at the next
        start; its players resume their seats there."""
        self._cancel_driver()
        for seat in self.seats:
            if seat.grace is not None:
                seat.grace.cancel()
                seat.grace = None
        if self._flush_timer is not None:
            self._flush_timer.cancel()
        self.closed = True

    # -- rebuilding after a restart ------------------------------------------------------

    @classmethod
    def rebuilt(
        cls,
        lobby: Lobby,
        row: dict[str, Any],
        finished: list[dict[str, Any]],
        unfinished: list[dict[str, Any]],
        rng: Random,
    ) -> Table:
        """The table as stored: ``row`` from ``Store.table``, its finished deal records (with
        ``meta``) and its deals in progress (``Store.unfinished_deals`` entries). A deal in
        progress is replayed; one whose last action was stored but not its record is finished
        here. The version jumps ahead by RESTART_V_GAP. Call :meth:`restore_writes` then post
        ``("restored",)`` once the actor runs."""
        options = row["options"]
        live = options["live"]
        names = {f.name for f in fields(TableOptions)}
        opts = TableOptions(**{k: v for k, v in options.items() if k in names})
        t = cls(row["id"], opts, lobby, "", rng)
        t.state = live["state"]
        t.series = live["series"]
        t.series_first = live["series_first"]
        for seat, saved in zip(t.seats, live["seats"], strict=True):
            seat.kind = saved["kind"]
            seat.name = saved["name"]
            seat.token_hash = saved["token"]
            seat.ai = saved["ai"]
            if seat.kind == "human" and seat.token_hash:
                lobby.tokens[seat.token_hash] = t
        t.deal_no = live["deal_no"]
        last: dict[str, Any] | None = None
        for rec in sorted(finished, key=lambda r: r["meta"]["deal_no"]):
            no = rec["meta"]["deal_no"]
            if no >= t.series_first:
                t.scores = [a + b for a, b in zip(t.scores, rec["result"]["scores"], strict=True)]
                t.series_deals += 1
            last = rec
        if last is not None:
            t.deal = replay_record(decode_record(_encode(last)))
            t.dealer = t.deal.dealer
            t.deal_no = max(t.deal_no, last["meta"]["deal_no"])
        for entry in sorted(unfinished, key=lambda e: e["deal_no"]):
            logged = decode_record(_encode(entry["record"]))
            st = start_state(logged)
            for action in logged.actions:
                st = apply(st, action)
            t.deal = st
            t.dealer = st.dealer
            t.deal_no = entry["deal_no"]
            if t.deal_no >= t.series_first:
                t.series_deals += 1
            if st.phase == OVER:  # crashed between its last action and its record
                t._record_deal(st, list(entry["players"]))
                t.metrics.deals_finished += 1
        if t.state == "playing" and (t.deal is None or t.deal.phase == OVER) and t._series_done():
            t.state = "finished"
        if t.state == "finished":  # its row may not say so yet (a crash right at the end)
            t._pending.append(op("finish_table", t.id, "finished"))
        t.v = int(live["v"]) + RESTART_V_GAP
        t._dirty = True
        return t

    async def restore_writes(self) -> BaseException | None:
        """Store what rebuilding changed (the new version first of all)."""
        return await self._commit([])

    def _on_restored(self) -> None:
        """First item of a rebuilt table: its humans are away (grace starts now), the AI and
        timers take up the deal where it was, or the next deal comes."""
        loop = asyncio.get_running_loop()
        for seat in self.seats:
            if seat.kind == "human":
                seat.grace = loop.call_later(
                    self.cfg.grace, self.post, ("grace", seat.index, seat.token_hash)
                )
        if self.state == "playing":
            if self.deal is not None and self.deal.phase != OVER:
                self._schedule()
            else:
                self._cancel_driver()
                self.driver = loop.create_task(self._next_deal_after(self.ticket))
        self._maybe_abandon()


def _deal_over_event(st: Any, seat: int | None) -> dict[str, Any]:
    """The end-of-deal reveal for a deal that ended without an action (petit sec)."""
    vw = view(st, seat)
    return {"type": "deal_over", "result": vw["result"], "record": vw["record"]}

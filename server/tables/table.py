"""The table actor: four seats, a deal sequence, AI seat drivers, timers and the event log.

Every change to a table happens inside :meth:`Table.run`, one inbox item at a time: client
requests, AI and timer moves, disconnections, grace expiries. Handlers are synchronous and short;
anything that waits (think delay, turn timer, AI thinking, the pause between deals) runs in a
separate *driver* task that posts its outcome back to the inbox with a ticket, and a stale ticket
is ignored. So actions are applied strictly one at a time and nothing waits inside the actor. (Once
an action's writes are stored, applying it and sending its events runs as the journal delivers
them, a turn of the loop before the actor's task resumes: still within that item, while the task
waits for it.)

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
import logging
from collections.abc import Callable
from dataclasses import fields
from random import Random
from typing import Any, ClassVar

import msgspec

import protocol.messages as P
from protocol.errors import ErrorCode
from server.ops.logs import table_context
from server.rules import (
    OVER,
    apply,
)
from server.rules.records import decode_record, replay_record, start_state
from server.store.journal import op
from server.tables.base import RESTART_V_GAP, TableHost
from server.tables.seating import Seating
from server.tables.seats import Connection, TableOptions
from server.tables.sequence import DealSequence

log = logging.getLogger("atout.table")

_encode = msgspec.json.Encoder().encode
#: Inbox items a connection posted (it is their second element): it may have closed since.
_FROM_A_CONNECTION = frozenset({"req", "hello", "created"})


class Table(Seating):
    """One table and its actor task. Create through :class:`server.tables.lobby.Lobby`."""

    def start_actor(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.id}")
        # the lobby waits for every actor at shutdown, closed ones too (their last writes)
        self.lobby.actors.add(self.task)
        self.task.add_done_callback(self.lobby.actors.discard)

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
            self.lobby.flush_output()  # its events go out now, not a loop turn later
            if item[0] in _FROM_A_CONNECTION and item[1].id not in self.lobby.sessions:
                # It closed before this was handled (a join stores its seat first): the lobby
                # told the tables it held then, not this one. Without this its new seat kept a
                # dead connection, and no grace period ever ran.
                self._on_gone(item[1])
            if self._dirty or self._pending:
                await self._flush()
        self._stop_alarm()
        while not inbox.empty():  # requests that raced with closing still get their answer
            item = inbox.get_nowait()
            if item[0] in ("req", "hello", "created"):
                sess: Connection = item[1]
                if item[0] == "hello":
                    sess.hello_pending = False
                sess.error(item[2].id, ErrorCode.NO_SUCH_TABLE, f"table {self.id} is closed")
        await self._last_writes()

    async def _last_writes(self) -> None:
        """A closed (or stopped) table's writes still to make (its closing among them) are
        retried like any other until the storage takes them; at shutdown, once more."""
        while self._dirty or self._pending:
            err = await self._commit([])
            if err is None:
                return
            if self.lobby.shutting_down:
                self.metrics.store_failures += 1
                log.error(
                    "table %s: writes lost at shutdown: %s; payload: %s",
                    self.id,
                    err,
                    [(m, a) for m, a, _ in self._pending],
                )
                return
            delay = self._retry_delay()
            log.warning("table %s: cannot save (%s); trying again in %.2fs", self.id, err, delay)
            await asyncio.sleep(delay)

    async def _on_created(
        self, sess: Connection, msg: P.CreateTable, extra: dict[str, Any]
    ) -> None:
        """Answer ``create_table`` once the table's row is stored; if it cannot be, the table
        is dropped (it was never announced) and the request refused."""
        err = await self._commit([])
        if err is not None:
            self._refuse(sess, msg.id, err)
            self._close("closed", announce=False)
            self._pending.clear()  # nothing of it is stored: nothing to close there either
            self._dirty = False
            return
        sess.send_obj(
            {
                "type": "table_created",
                "id": msg.id,
                "table": {**self.info(), **extra},
                "ai_levels": self.lobby.ai_levels,
            }
        )

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
            return self._on_move(item[1], item[2], item[3])
        if kind == "created":
            return self._on_created(item[1], item[2], item[3])
        if kind == "next":
            # Not while the server stops (its connections closing can take seconds): the
            # table is rebuilt between the two deals, and the next one comes at the next start.
            if item[1] == self.ticket and self.state == "playing" and not self.lobby.shutting_down:
                return self._new_deal()
        elif kind == "gone":
            self._on_gone(item[1])
        elif kind == "grace":
            self._on_grace(item[1], item[2])
        elif kind == "hello":
            self._on_hello(item[1], item[2], item[3])
        elif kind == "review":  # a deal's par and ratings (server/players/service.py)
            self._emit_public(item[1])
        elif kind == "restored":
            self._on_restored()
        elif kind == "stop":
            self._stop()
        elif kind == "lost":
            self._lost()
        # "flush": nothing to do but the flush that follows every item
        return None

    _handlers: ClassVar[dict[type, Callable[[Table, Connection, Any], Any]]] = {
        P.Join: Seating._on_join,
        P.Resume: Seating._on_resume,
        P.Watch: Seating._on_watch,
        P.Unwatch: Seating._on_unwatch,
        P.Leave: Seating._on_leave,
        P.Start: DealSequence._on_start,
        P.Restart: DealSequence._on_restart,
        P.Close: Seating._on_close,
    }

    # -- rebuilding after a restart ------------------------------------------------------

    @classmethod
    def rebuilt(
        cls,
        lobby: TableHost,
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
        t = cls(row["id"], opts, lobby, "", rng, live.get("owner", ""))
        t.state = live["state"]
        t.creator_token = live.get("creator_token")  # None in rows saved before it
        t.series = live["series"]
        t.series_first = live["series_first"]
        for seat, saved in zip(t.seats, live["seats"], strict=True):
            seat.kind = saved["kind"]
            seat.name = saved["name"]
            seat.token_hash = saved["token"]
            seat.ai = saved["ai"]
            seat.account = saved.get("account")
            seat.identity = saved.get("identity") or ("guest" if seat.kind == "human" else None)
            if seat.kind == "human" and seat.token_hash:
                lobby.tokens[seat.token_hash] = t
        t.deal_no = live["deal_no"]
        last: dict[str, Any] | None = None
        for rec in sorted(finished, key=lambda r: r["meta"]["deal_no"]):
            no = rec["meta"]["deal_no"]
            if no >= t.series_first:
                t.scores = [a + b for a, b in zip(t.scores, rec["result"]["scores"], strict=True)]
                t.series_dealt += 1
                t.series_deals += rec["result"]["status"] == "played"
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
                t.series_dealt += 1
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

"""Seats and connections: joining, resuming with a seat token, watching, leaving, a dropped
connection's grace period, releasing a seat, and closing the table."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

import protocol.messages as P
from protocol.errors import CloseCode, ErrorCode
from server.config import token_hash
from server.store.journal import op
from server.tables.seats import Connection
from server.tables.sequence import DealSequence

log = logging.getLogger("atout.table")


class Seating(DealSequence):
    # -- requests ------------------------------------------------------------------------

    async def _on_join(self, sess: Connection, msg: P.Join) -> None:
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
        before = (
            seat.kind,
            seat.name,
            seat.token_hash,
            seat.took_over,
            seat.account,
            seat.identity,
        )
        creator_token = self.creator_token
        seat.kind = "human"
        seat.name = sess.name
        seat.token_hash = hashed
        seat.took_over = False
        seat.sit(getattr(sess, "account", None))
        if sess.id == self.creator:  # the seat's token carries the creator role from now on
            self.creator_token = hashed
        self._dirty = True
        err = await self._commit([])
        if err is not None:
            seat.kind, seat.name, seat.token_hash, seat.took_over = before[:4]
            seat.account, seat.identity = before[4:]
            self.creator_token = creator_token
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

    def _on_resume(self, sess: Connection, msg: P.Resume) -> None:
        idx = self._token_seat(msg.token)
        if idx is None:
            sess.error(msg.id, ErrorCode.BAD_TOKEN, "this seat token is not valid (any more)")
            return
        held = self._seat_of(sess)
        if held is not None and held != idx:  # one seat per connection and table
            sess.error(msg.id, ErrorCode.ALREADY_SEATED, f"you already sit at seat {held} here")
            return
        self._resume(sess, idx, msg.v, msg.id, msg.token)

    def _on_hello(self, sess: Connection, msg: P.Hello, welcome: dict[str, Any]) -> None:
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

    def _resume(
        self, sess: Connection, idx: int, v: int | None, rid: Any, token: str | None
    ) -> None:
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
        if seat.token_hash == self.creator_token and sess.id != self.creator:
            self.lobby.hand_creator(self, sess)  # the creator's seat, resumed
        self._unwatch(sess)
        if was_away:
            # Before the seat is attached, saying what it is about to be: so that the events
            # or the snapshot sent below are the table exactly as of their `v`.
            self._emit_public({"type": "seat", **seat.info(), "connected": True, "ai": None})
        seat.session = sess
        sess.seats[self.id] = idx
        if rid is not None:
            sess.send_obj(
                {"type": "joined", "id": rid, "table": self.id, "seat": idx, "token": token}
            )
        self._catch_up(sess, idx, v)
        if self._turn() == idx:
            self._schedule()

    def _on_watch(self, sess: Connection, msg: P.Watch) -> None:
        if self._seat_of(sess) is not None:
            sess.error(msg.id, ErrorCode.ALREADY_SEATED, "you sit at this table")
            return
        sess.send_obj({"type": "watching", "id": msg.id, "table": self.id})
        self.spectators.add(sess)
        sess.watching.add(self.id)
        self._snapshot(sess, None)

    def _unwatch(self, sess: Connection) -> None:
        self.spectators.discard(sess)
        sess.watching.discard(self.id)

    def _on_unwatch(self, sess: Connection, msg: P.Unwatch) -> None:
        self._unwatch(sess)
        sess.send_obj({"type": "ok", "id": msg.id})
        self._maybe_abandon()

    def _on_leave(self, sess: Connection, msg: P.Leave) -> None:
        idx = self._seat_of(sess)
        if idx is None:
            sess.error(msg.id, ErrorCode.NOT_SEATED, f"you hold no seat at table {self.id}")
            return
        sess.seats.pop(self.id, None)
        sess.send_obj({"type": "ok", "id": msg.id})
        self._release(idx)

    def _on_close(self, sess: Connection, msg: P.Close) -> None:
        # A table in play may be closed by its creator (or an admin) only: a stranger who took a
        # free seat must not be able to end everybody's game.
        if self.state == "playing":
            if not (sess.admin or sess.id == self.creator):
                sess.error(
                    msg.id,
                    ErrorCode.NOT_ALLOWED,
                    "only the creator (or an admin) may close a table in play",
                )
                return
        elif not self._may_manage(sess):
            sess.error(msg.id, ErrorCode.NOT_ALLOWED, "only the creator or a player may close")
            return
        sess.send_obj({"type": "ok", "id": msg.id})
        self._close("closed")

    # -- connections coming and going ----------------------------------------------------

    def _on_gone(self, sess: Connection) -> None:
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

    def _timed_out(self, idx: int) -> None:
        limit = self.cfg.max_timeouts
        if limit > 0 and self.seats[idx].timeouts >= limit:
            log.info("table %s: seat %d released after %d timeouts in a row", self.id, idx, limit)
            self._release(idx, reason="timeouts")

    def _release(self, idx: int, reason: str | None = None) -> None:
        """The human at ``idx`` is gone for good: revoke the token; an AI (or nobody) sits.
        A connection still holding the seat (released for its timeouts) watches the table from
        then on, told so by the seat event; it may join again."""
        seat = self.seats[idx]
        held = seat.session
        if held is not None:  # `leave` detached it already; a timeout did not
            held.seats.pop(self.id, None)
            if reason == "timeouts":
                self.spectators.add(held)
                held.watching.add(self.id)
        if seat.token_hash is not None:
            self.lobby.tokens.pop(seat.token_hash, None)
            if seat.token_hash == self.creator_token:  # the role stays with the connection
                self.creator_token = None
                self._dirty = True
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        seat.token_hash = None
        seat.session = None
        seat.name = None
        seat.account = seat.identity = None
        seat.took_over = False
        seat.timeouts = 0
        seat.kind = "ai" if self.state == "playing" else "empty"
        self.logs[idx].clear()
        self._seat_event(seat, reason=reason)
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
        self._stop_alarm()
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

    def _lost(self) -> None:
        """Another worker adopted this table (this one was paused or cut off past its lease):
        stop serving it at once and write nothing more (its writes would be fenced anyway).
        The connections at it are closed with 1001 so that their clients reconnect; their seat
        tokens are then redirected (``wrong_worker``) to the adopter, which resumes them."""
        if self.closed:
            return
        self._stop()
        self._pending.clear()
        self._dirty = False
        sessions = {s.session for s in self.seats if s.session is not None} | self.spectators
        for seat in self.seats:
            if seat.token_hash is not None and self.lobby.tokens.get(seat.token_hash) is self:
                self.lobby.tokens.pop(seat.token_hash, None)
            if seat.session is not None:
                seat.session.seats.pop(self.id, None)
                seat.session = None
        for sp in self.spectators:
            sp.watching.discard(self.id)
        self.spectators.clear()
        self.lobby.unlist(self)
        for sess in sessions:
            sess.close_after_flush(1001, "this table moved to another worker: reconnect")
        log.warning("table %s: dropped, another worker serves it now", self.id)

    def _stop(self) -> None:
        """The server stops: the table stays open in the database, to be rebuilt at the next
        start; its players resume their seats there."""
        self._stop_alarm()
        for seat in self.seats:
            if seat.grace is not None:
                seat.grace.cancel()
                seat.grace = None
        if self._flush_timer is not None:
            self._flush_timer.cancel()
        self.closed = True

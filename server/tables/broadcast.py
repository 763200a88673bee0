"""Events out of a table: version numbering, per-seat logs for resuming, snapshots.

What a seat or spectator learns always comes from :mod:`server.rules.views`; this module only
numbers, encodes (once per distinct content) and delivers it."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import msgspec

from server.rules import Action
from server.rules.views import events_for, view
from server.tables.base import SPECTATORS, TableBase
from server.tables.seats import Connection, Seat

_encode = msgspec.json.Encoder().encode
_HIDDEN: dict[str, Any] = {"type": "hidden"}


class Broadcasting(TableBase):
    def _emit(self, make: Callable[[int | None], list[dict[str, Any]]]) -> None:
        """Broadcast what each visibility class learns; ``make(seat)`` asks the views module.

        Only classes with someone to tell (or to tell later, on resume) are computed; the
        spectators' class is always computed since it fixes how many versions are used."""
        lists: list[tuple[int, list[dict[str, Any]]]] = [(SPECTATORS, make(None))]
        for s in self.seats:
            if s.kind == "human":
                lists.append((s.index, make(s.index)))
        self._broadcast(lists)

    def _emit_action(self, prev: Any, action: Action, new: Any) -> list[dict[str, Any]]:
        """Broadcast an action's events (:func:`server.rules.views.events_for`: computed once
        for the seats that learn the same, and so encoded once); returns the spectators'."""
        classes = [SPECTATORS, *(s.index for s in self.seats if s.kind == "human")]
        seats = [None if c == SPECTATORS else c for c in classes]
        lists = events_for(prev, action, new, seats)
        self._broadcast(list(zip(classes, lists, strict=True)))
        return lists[0]

    def _emit_public(self, ev: dict[str, Any]) -> None:
        """A table event everybody sees identically (seats, table state, scores): the table
        changed, so it is saved (with its version) after the current item."""
        self._dirty = True
        evs = [ev]
        lists = [(SPECTATORS, evs)]
        lists.extend((s.index, evs) for s in self.seats if s.kind == "human")
        self._broadcast(lists)

    def _broadcast(self, lists: list[tuple[int, list[dict[str, Any]]]]) -> None:
        n = 0
        for _, evs in lists:  # not max() over a generator: several times per action
            if len(evs) > n:
                n = len(evs)
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
                    self.logs[cls].append(data)
                    sess = self.seats[cls].session
                    if sess is not None:
                        sess.send(data)

    def _seat_event(self, seat: Seat, reason: str | None = None) -> None:
        ev = {"type": "seat", **seat.info()}
        if reason is not None:  # why a seat was released: "timeouts"
            ev["reason"] = reason
        self._emit_public(ev)

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

    def _snapshot(self, sess: Connection, seat: int | None) -> None:
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

    def _catch_up(self, sess: Connection, seat: int, v: int | None) -> None:
        """Send the events after ``v`` from the seat's log, or a snapshot when they are gone."""
        entries = self.logs[seat]  # versions self.v - len + 1 .. self.v (TableBase.__init__)
        if v is not None and self.v - len(entries) <= v <= self.v:
            for data in itertools.islice(entries, len(entries) - (self.v - v), None):
                sess.send(data)
        else:
            self._snapshot(sess, seat)

"""A table's seats and options: who sits where, seat tokens (kept only as their SHA-256), and
what a table needs of a client connection."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

from protocol.errors import ErrorCode


class Connection(Protocol):
    """What a table needs of a client connection (:class:`server.net.session.Session` is one):
    tables never see a socket, only these."""

    id: str
    name: str
    address: str  # the client's IP address (the owner of the tables it creates)
    admin: bool  # proved the server's admin token: may close any table
    greeted: bool
    hello_pending: bool
    seats: dict[str, int]  # table id -> seat held by this connection
    watching: set[str]  # table ids followed as a spectator
    account: dict[str, Any] | None  # the player's account (id, name, kind), None for a guest

    def send(self, data: bytes) -> None: ...

    def send_obj(self, obj: Any) -> None: ...

    def error(
        self,
        rid: Any,
        code: ErrorCode,
        message: str,
        *,
        rule: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None: ...

    def abort(self, code: int, reason: str) -> None: ...

    def close_after_flush(self, code: int, reason: str) -> None: ...


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
        "account",
        "ai",
        "bot",
        "grace",
        "holder",
        "identity",
        "index",
        "kind",
        "name",
        "session",
        "timeouts",
        "token_hash",
        "took_over",
    )

    def __init__(self, index: int, ai: str) -> None:
        self.index = index
        self.kind = "empty"  # empty | human | ai
        self.name: str | None = None
        self.token_hash: str | None = None  # token_hash() of the seat token (held by a human)
        self.session: Connection | None = None  # the connection holding it, None while away
        self.ai = ai  # level of the AI that plays it (AI seat, or stand-in for an absent human)
        self.bot: Any = None
        self.grace: asyncio.TimerHandle | None = None
        self.took_over = False  # the AI has played for this absent human: no more waiting
        self.timeouts = 0  # moves in a row the AI played for this present human (turn limit)
        # The human's account (issue 12): its id, and "registered" or "bot"; "guest" without.
        self.account: int | None = None
        self.identity: str | None = None
        self.holder: tuple[Any, ...] | None = None  # who() at the start of the current deal

    def who(self) -> tuple[Any, ...]:
        """Who plays this seat, for a deal's record: a human (account or guest) or an AI."""
        if self.kind == "human":
            return ("human", self.account, None if self.account is not None else self.name)
        return ("ai", self.ai)

    def seat_record(self) -> dict[str, Any]:
        """``record_deal``'s ``seats`` entry: who played this deal (partial: not throughout)."""
        who = self.who()
        out: dict[str, Any] = {"partial": self.holder is not None and self.holder != who}
        if who[0] == "human":
            out["account"], out["guest"] = who[1], who[2]
        else:
            out["ai"] = who[1]
        return out

    def sit(self, account: dict[str, Any] | None) -> None:
        self.account = None if account is None else account["id"]
        self.identity = "guest" if account is None else account["kind"]

    def info(self) -> dict[str, Any]:
        human = self.kind == "human"
        return {
            "seat": self.index,
            "kind": self.kind,
            "name": self.name,
            "connected": human and self.session is not None,
            "ai": None if human and self.session is not None else self.ai,
            "identity": self.identity if human else None,
        }

    def saved(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "token": self.token_hash,
            "ai": self.ai,
            "account": self.account,
            "identity": self.identity,
        }

"""The table's state and its persistence: what every other part of the table builds on.

The table is built in layers, each a class in its own module deriving from the one below:
``TableBase`` (state, database) -> ``Broadcasting`` (events and snapshots) -> ``Driving`` (turns,
AI and timers) -> ``DealSequence`` (deals, series, scores, actions) -> ``Seating`` (seats, tokens,
connections coming and going) -> ``Table`` (the actor: one inbox item at a time; rebuilding)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import deque
from collections.abc import Callable, Mapping, MutableMapping
from random import Random
from typing import Any, Protocol

from protocol.errors import ErrorCode
from server.config import Config
from server.ops.metrics import Metrics
from server.rules import (
    OVER,
)
from server.store.base import StoreError, StoreFenced
from server.store.journal import Journal, Op, op
from server.tables.decider import Decider
from server.tables.pacer import AiPacer
from server.tables.seats import Connection, Seat, TableOptions

log = logging.getLogger("atout.table")

SPECTATORS = 4  # index of the spectators' visibility class (seats are 0..3)

#: After a restart a table's version jumps ahead by this much, so that no client ever sees ``v``
#: go back: the saved version lags the last one sent by at most one deal's events (about 130).
RESTART_V_GAP = 1000
#: Waits (s) before trying a write again while the storage fails (doubling up to the last).
STORE_RETRY = (0.25, 0.5, 1.0, 2.0, 5.0)


class TableHost(Protocol):
    """What a table needs of the lobby that holds it (:class:`server.tables.lobby.Lobby`)."""

    cfg: Config
    metrics: Metrics
    journal: Journal | None
    decider: Decider
    actors: set[asyncio.Task[None]]  # every table's actor task still running
    shutting_down: bool
    ai_levels: list[dict[str, str]]  # what `table_created` offers (server.ai.AI_LEVELS)

    @property
    def tokens(self) -> MutableMapping[str, Any]:  # token_hash -> the table holding that seat
        ...

    @property
    def sessions(self) -> Mapping[str, Connection]:  # live connections by id
        ...

    @property
    def tables(self) -> MutableMapping[str, Any]:  # the tables it serves, by id
        ...
    def forget(self, table: Any) -> None: ...
    def unlist(self, table: Any) -> bool: ...  # stop serving it here (no cluster bookkeeping)
    def lost(self, table: Any) -> None: ...  # another worker adopted it (a write was fenced)
    def hand_creator(self, table: Any, sess: Connection) -> None: ...  # sess is its creator now

    def bot_tables(self, owner: str) -> int:  # tables of bots only ``owner`` has playing
        ...

    @property
    def pacer(self) -> AiPacer: ...

    def deal_recorded(self, table_id: str, deal_no: int) -> None: ...  # its record is stored

    def flush_output(self) -> None: ...  # write what the connections queued, now


class TableBase:
    """One table's state and its durable writes."""

    def __init__(
        self,
        tid: str,
        opts: TableOptions,
        lobby: TableHost,
        creator: str,
        rng: Random,
        owner: str = "",
    ) -> None:
        self.id = tid
        self.opts = opts
        self.lobby = lobby
        self.cfg = lobby.cfg
        self.metrics = lobby.metrics
        self.creator = creator  # session id of the connection holding the creator role
        # The seat token (its hash) of the seat the creating connection took here, if it took
        # one: whoever resumes that seat is the creator from then on (a reload, a new
        # connection, a restart of the server), and nobody else.
        self.creator_token: str | None = None
        self.owner = owner  # its client address: whose AI budget this table's bots use
        self.rng = rng
        self.state = "waiting"  # waiting | playing | finished | closed
        self.closed = False
        self.seats = [Seat(i, opts.ai[i]) for i in range(4)]
        self.spectators: set[Connection] = set()
        self.deal: Any = None  # DealState of the current (or last finished) deal
        self.deal_no = 0
        self.series = 1
        self.series_deals = 0  # scored deals of the current series (annulled ones do not count)
        self.series_dealt = 0  # deals dealt in the current series, annulled ones included
        self.dealer = -1
        self.series_first = 1  # deal_no of the current series' first deal
        self.scores: list[float] = [0, 0, 0, 0]
        self.v = 0
        # writes not made yet (kept in order) and whether the table itself needs saving
        self._pending: list[Op] = []
        self._after_commit: list[Any] = []  # called once the pending writes are committed
        self._dirty = False
        self._failures = 0  # store failures in a row (retry pacing)
        self._flush_timer: asyncio.TimerHandle | None = None
        # Each human seat's last events, encoded, for resuming. Every event goes to every
        # human seat's log and a seat's log is emptied whenever it changes hands, so a log
        # holds versions v - len + 1 .. v. Bytes alone, not (version, bytes) pairs: a thousand
        # tables' pairs were a quarter of the objects every young collection walked.
        self.logs: list[deque[bytes]] = [deque(maxlen=self.cfg.event_log) for _ in range(4)]
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.ticket = 0
        self.driver: asyncio.Task[None] | None = None
        # The table's alarm (server.tables.drivers: one at a time, it rings for the earliest
        # due time) and what is due: (ticket, seat, timeout, loop time) of the AI's next move
        # after a delay (think delay, absent wait, turn timer), or None.
        self.driver_timer: asyncio.TimerHandle | None = None
        self.driver_due: tuple[int, int, bool, float] | None = None
        # The turn a present human was given a turn timer for (the deal and its turn_key in
        # server.tables.drivers), the seat's token, and when that timer runs out (loop time):
        # prompting the same player for the same turn again (a resume, a reload, a second tab,
        # the card after a poignée) keeps the deadline rather than starting a new one, so that
        # neither reconnecting nor a poignée buys time.
        self.turn_deadline: tuple[tuple[int, ...], str | None, float] | None = None
        self.task: asyncio.Task[None] | None = None

    # -- outside interface ---------------------------------------------------------------

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
            "scored": self.series_deals,
            "series": self.series,
            "scores": self.scores,
            "turn_timer": o.turn_timer,
            "think_delay": o.think_delay,
            "deal_pause": o.deal_pause,
            "spectators": len(self.spectators),
        }

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
            "owner": self.owner,
            "creator_token": self.creator_token,
            "seats": [s.saved() for s in self.seats],
        }

    def _save_op(self) -> Op:
        return op(
            "create_table", self.id, self.opts.name, {**self.opts.to_dict(), "live": self.saved()}
        )

    async def _commit(
        self, ops: list[Op], then: Callable[[], None] | None = None
    ) -> BaseException | None:
        """Write the table's pending writes, its row if it changed, then ``ops``, in this order
        and all or nothing; None once they are in the database, else the error (then the
        pending writes and the row stay to do, and ``ops`` are dropped: the caller decides).

        ``then``, and the callbacks queued for after the commit, run once the writes are stored,
        as the journal delivers its batch: a turn of a busy loop before this task resumes
        (milliseconds each under load, in every action's latency). It is what the task would do
        first on resuming, so nothing else of the table runs in between. If it raises, the
        exception is raised here."""
        journal = self.lobby.journal
        save = self._dirty
        pending = self._pending
        after = self._after_commit
        self._pending = []
        self._after_commit = []
        self._dirty = False
        if journal is None:
            if then is not None:
                then()
            return None
        head = [*pending, self._save_op()] if save else pending

        def finish() -> None:
            self._failures = 0
            for fn in after:
                fn()
            if then is not None:
                then()

        raised: list[BaseException] = []
        # the task's context: log records, and tasks started by ``then``, name the table
        ctx = contextvars.copy_context()

        def stored(err: BaseException | None) -> None:
            if err is None:
                try:
                    ctx.run(finish)
                except Exception as e:  # raised in the task, as if it had happened there
                    raised.append(e)

        err = await journal.write(head + ops if head else ops, self.id, stored)
        if err is None:
            if raised:
                raise raised[0]
            return None
        if isinstance(err, StoreFenced):  # not ours any more: never retried, dropped here
            self._pending = []
            self._dirty = False
            self.lobby.lost(self)
            return err
        self._failures += 1
        self._after_commit = [*after, *self._after_commit]
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
        if err is None or self.closed:  # a closed table retries in Table._last_writes
            return
        delay = self._retry_delay()
        log.warning("table %s: cannot save (%s); trying again in %.2fs", self.id, err, delay)
        if self._flush_timer is None or self._flush_timer.cancelled():
            loop = asyncio.get_running_loop()
            self._flush_timer = loop.call_later(delay, self._flush_due)

    def _flush_due(self) -> None:
        self._flush_timer = None
        self.post(("flush",))

    def _refuse(self, sess: Connection, rid: Any, err: BaseException) -> None:
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
        return st.turn

    def _seat_of(self, sess: Connection) -> int | None:
        idx = sess.seats.get(self.id)
        if idx is not None and self.seats[idx].session is sess:
            return idx
        return None

    def _may_manage(self, sess: Connection) -> bool:
        return sess.admin or sess.id == self.creator or self._seat_of(sess) is not None

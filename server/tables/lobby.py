"""The lobby: the open tables, seat tokens, and store writes in flight."""

from __future__ import annotations

import asyncio
import bisect
import logging
import random
import re
import secrets
from collections.abc import Callable
from typing import Any

import protocol.messages as P
from protocol.errors import ErrorCode
from server.ai import AI_LEVELS, make_bot
from server.config import Config, token_hash
from server.ops.metrics import Metrics
from server.store.journal import Journal
from server.tables.decider import Decider
from server.tables.pacer import AiPacer
from server.tables.seats import Connection, TableOptions
from server.tables.table import Table

log = logging.getLogger("atout.lobby")

_STATE_ORDER = {"waiting": 0, "playing": 1, "finished": 2}
# The AI of a new table's empty seats when `create_table` names none: a real opponent that
# answers at once ("strong" costs a worker process 100 ms per card: a host's choice, not a default).
DEFAULT_AI = "normal"
AI_LEVEL_LIST: list[dict[str, str]] = [
    {"level": name, "description": text} for name, text in AI_LEVELS
]

#: How tables are listed: waiting first, then playing, then finished; by id within a state.
ListKey = tuple[int, str]


#: A cursor as :func:`paginate` gives them: a state's rank (list_key), ":", a table id (12
#: characters of ``token_urlsafe(9)``, after its worker's prefix in a cluster). A cursor is a
#: position, so a well-formed one is taken even if no table has that id now.
_CURSOR = re.compile(r"([0-3]):((?:w\d{1,6}-)?[A-Za-z0-9_-]{12})")


def list_key(state: str, table_id: str) -> ListKey:
    return (_STATE_ORDER.get(state, 3), table_id)


def paginate(
    entries: list[tuple[ListKey, Any]], cursor: str | None, limit: int
) -> tuple[list[Any], str | None]:
    """One page of ``entries`` (any order) after ``cursor``: its items and the next page's
    cursor (None on the last page). Raises ValueError for a cursor this server never gave."""
    entries.sort(key=lambda e: e[0])
    start = 0
    if cursor is not None:
        m = _CURSOR.fullmatch(cursor)
        if m is None:
            raise ValueError("not a cursor from a `tables` answer")
        after = (int(m.group(1)), m.group(2))
        start = bisect.bisect_right([e[0] for e in entries], after)
    chosen = entries[start : start + limit]
    more = start + limit < len(entries)
    nxt = f"{chosen[-1][0][0]}:{chosen[-1][0][1]}" if more and chosen else None
    return [item for _, item in chosen], nxt


class LobbyError(Exception):
    """A refused lobby request; ``path``: the field at fault (an ``invalid_field``'s
    ``details.path``)."""

    def __init__(self, code: ErrorCode, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path


class Lobby:
    def __init__(self, cfg: Config, store: Any, metrics: Metrics, decider: Decider) -> None:
        self.cfg = cfg
        self.store = store
        self.metrics = metrics
        self.decider = decider
        self.pacer = AiPacer(cfg.ai_share)  # fair AI time for tables of bots only
        self.tables: dict[str, Table] = {}
        # id of the connection holding the creator role -> the ids of its tables still served
        # here (Lobby.hand_creator moves one when its creator's seat is resumed): what a closed
        # connection or a new table's per-connection limit looks up, without a scan of every
        # table (a thousand clients leaving at once made a million steps)
        self.by_creator: dict[str, set[str]] = {}
        # token_hash(seat token) -> its table (the table checks the seat); raw tokens are not kept
        self.tokens: dict[str, Table] = {}
        self.sessions: dict[str, Connection] = {}  # live connections by id
        self.shutting_down = False
        self.cluster: Any = None  # server.cluster.worker.Cluster when this is a worker of several
        self.ai_levels = AI_LEVEL_LIST  # what `welcome` and `table_created` offer
        self.reviews: Any = None  # server.players.service.Reviews: par and ratings of each deal
        self.actors: set[asyncio.Task[None]] = set()  # every table's actor task still running
        # Writes what the connections queued (the server's Flusher.flush_now); None: nothing to do.
        self.output_flusher: Callable[[], None] | None = None
        # Tables' durable writes (server/store/journal.py); None without a store (some tests).
        self.journal = Journal(store) if hasattr(store, "run") else None
        if self.journal is not None:
            # what the tables sent on hearing their writes are stored goes out at once
            self.journal.after_delivery = self.flush_output
        # Deals must be unpredictable: tables shuffle with the OS generator.
        self._rng = random.SystemRandom() if cfg.seed is None else random.Random(cfg.seed)

    # -- tables ------------------------------------------------------------------------------

    def create(self, sess: Connection, msg: P.CreateTable) -> Table:
        if self.shutting_down:
            raise LobbyError(ErrorCode.SHUTTING_DOWN, "the server is shutting down")
        if len(self.tables) >= self.cfg.max_tables:
            raise LobbyError(ErrorCode.LIMIT_REACHED, "too many open tables on this server")
        mine = len(self.by_creator.get(sess.id, ()))
        if mine >= self.cfg.max_tables_per_session:
            raise LobbyError(
                ErrorCode.LIMIT_REACHED,
                f"a connection may have at most {self.cfg.max_tables_per_session} open tables",
            )
        if msg.deals is not None and msg.target_score is not None:
            raise LobbyError(
                ErrorCode.INVALID_FIELD,
                "give `deals` or `target_score`, not both",
                path="$.target_score",
            )
        ai = DEFAULT_AI if msg.ai is None else msg.ai
        levels = [ai] * 4 if isinstance(ai, str) else list(ai)
        for level in dict.fromkeys(levels):
            try:
                make_bot(level, 0)
            except ValueError as e:
                path = "$.ai" if isinstance(ai, str) else f"$.ai[{levels.index(level)}]"
                raise LobbyError(ErrorCode.INVALID_FIELD, f"ai: {e}", path=path) from None
        opts = TableOptions(
            name=msg.name or f"{sess.name}'s table"[:64],
            public=msg.public is not False,
            deals=msg.deals if msg.deals is not None or msg.target_score is not None else 4,
            target_score=msg.target_score,
            ai=levels,
            turn_timer=None if msg.turn_timer is None else float(msg.turn_timer),
            think_delay=max(
                self.cfg.min_think_delay,
                float(self.cfg.think_delay if msg.think_delay is None else msg.think_delay),
            ),
            deal_pause=float(self.cfg.deal_pause if msg.deal_pause is None else msg.deal_pause),
        )
        # Unguessable (a private table's id is its invitation), and never starting with "-",
        # which command lines would take for an option.
        tid = secrets.token_urlsafe(9)
        while tid[0] == "-":
            tid = secrets.token_urlsafe(9)
        if self.cluster is not None:  # worker prefix, ownership recorded (server/cluster/worker.py)
            tid = self.cluster.claim(tid)
        rng = self._rng if self.cfg.seed is None else random.Random(self._rng.getrandbits(64))
        table = Table(tid, opts, self, sess.id, rng, sess.address)
        self._serve(table)
        table.start_actor()
        table._dirty = True  # its row is written by its actor, in order with its other writes
        log.info(  # its options as JSON (a JSON field in JSON logs), not a Python dict's repr
            "table %s created by %s", tid, sess.id, extra={"fields": {"options": opts.to_dict()}}
        )
        return table

    def table_for_token(self, token: str) -> Table | None:
        """The table where a seat token (as sent by a client) holds a seat, if any."""
        return self.tokens.get(token_hash(token))

    async def restore(self, owned: Callable[[str], bool] | None = None) -> int:
        """Rebuild every open table stored in the database (``owned(table_id)`` filters them)
        and start their actors; returns how many. Their new versions are stored before this
        returns, so call it before accepting connections. A table stored without its state
        (written by an older server) cannot be resumed and is closed as abandoned."""
        if self.journal is None:
            return 0
        stored = await self.store.open_tables(owned)
        rebuilt: list[Table] = []
        for row, finished, unfinished in stored:
            tid = row["id"]
            if "live" not in row["options"]:
                log.warning("table %s has no stored state; closing it as abandoned", tid)
                await self.store.finish_table(tid, "abandoned")
                continue
            rng = self._rng if self.cfg.seed is None else random.Random(self._rng.getrandbits(64))
            try:
                table = Table.rebuilt(self, row, finished, unfinished, rng)
            except Exception:
                log.exception("table %s cannot be rebuilt; closing it as abandoned", tid)
                await self.store.finish_table(tid, "abandoned")
                continue
            rebuilt.append(table)
        results = await asyncio.gather(*(t.restore_writes() for t in rebuilt))
        for err in results:
            if err is not None:
                raise err
        for table in rebuilt:
            self._serve(table)
            table.start_actor()
            table.post(("restored",))
            log.info(
                "table %s rebuilt: %s, deal %d%s, version %d",
                table.id,
                table.state,
                table.deal_no,
                f" at action {table.deal.n_actions}" if table.deal is not None else "",
                table.v,
                extra={"table": table.id},
            )
        return len(rebuilt)

    def bot_tables(self, owner: str) -> int:
        """Tables of bots only (no connected human) that ``owner`` has playing."""
        return sum(
            1
            for t in self.tables.values()
            if t.owner == owner and t.state == "playing" and not t.closed and t._bots_only()
        )

    def _serve(self, table: Table) -> None:
        self.tables[table.id] = table
        self.by_creator.setdefault(table.creator, set()).add(table.id)

    def _uncredit(self, table: Table) -> None:
        """``table`` no longer counts as its creator's (by_creator)."""
        ids = self.by_creator.get(table.creator)
        if ids is not None:
            ids.discard(table.id)
            if not ids:
                del self.by_creator[table.creator]

    def hand_creator(self, table: Table, sess: Connection) -> None:
        """``sess`` resumed the seat of ``table``'s creator: it is the creator now (its
        table counts as that connection's, and a connection that had the role loses it)."""
        self._uncredit(table)
        table.creator = sess.id
        self.by_creator.setdefault(sess.id, set()).add(table.id)

    def unlist(self, table: Table) -> bool:
        """Stop serving ``table`` here (its actor ends on its own); False if it was not served
        (unlisted already, or another object serves its id now: adopted again)."""
        if self.tables.get(table.id) is not table:
            return False
        del self.tables[table.id]
        self._uncredit(table)
        return True

    def forget(self, table: Table) -> None:
        # a table no longer served here is not this worker's to release either
        if self.unlist(table) and self.cluster is not None:
            self.cluster.released(table.id)

    def lost(self, table: Table) -> None:
        """A write of ``table`` was fenced: another worker owns it now (cluster adoption)."""
        if self.cluster is not None:
            self.cluster.fenced(table.id)
        else:
            table.post(("lost",))

    def public(self) -> list[tuple[ListKey, Table]]:
        """This lobby's public open tables with their listing keys (nothing else computed)."""
        return [
            (list_key(t.state, t.id), t)
            for t in self.tables.values()
            if t.opts.public and not t.closed
        ]

    def flush_output(self) -> None:
        """Write what the connections queued now, not at the next turn of the loop."""
        if self.output_flusher is not None:
            self.output_flusher()

    def deal_recorded(self, table_id: str, deal_no: int) -> None:
        """A finished deal's record is stored: review it (par, ratings)."""
        if self.reviews is not None:
            self.reviews.deal_recorded(table_id, deal_no)

    def announce(self, table_id: str, event: dict[str, Any]) -> bool:
        """Hand a table an event from outside it (a deal's par); False if it is not open."""
        table = self.tables.get(table_id)
        return table is not None and table.post(("review", event))

    def listing(self) -> list[dict[str, Any]]:
        """The public open tables in listing order, at most ``cfg.list_limit`` of them (what a
        cluster worker publishes to the others)."""
        page, _ = paginate(self.public(), None, self.cfg.list_limit)
        return [t.info() for t in page]

    def page(self, cursor: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None, int]:
        """A page of the listing: infos, next cursor, total. Only the page's tables are
        described, so a large lobby costs a sort of keys, not thousands of infos."""
        entries = self.public()
        page, nxt = paginate(entries, cursor, limit)
        return [t.info() for t in page], nxt, len(entries)

    def by_state(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self.tables.values():
            out[t.state] = out.get(t.state, 0) + 1
        return out

    # -- connections ---------------------------------------------------------------------------

    def gone(self, sess: Connection) -> None:
        """A connection closed: tell every table it touched."""
        self.sessions.pop(sess.id, None)
        tids = set(sess.seats) | sess.watching
        tids.update(self.by_creator.get(sess.id, ()))
        for tid in tids:
            t = self.tables.get(tid)
            if t is not None:
                t.post(("gone", sess))

    async def shutdown(self) -> None:
        """Stop every table (each stays open in the database, its deal in progress too, and is
        rebuilt at the next start), then flush the writes."""
        self.shutting_down = True
        tables = list(self.tables.values())
        for t in tables:
            t.post(("stop",))
        if self.actors:  # closed tables too: their last writes are still being made
            await asyncio.wait(list(self.actors), timeout=5)

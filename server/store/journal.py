"""Durable table writes, grouped per event-loop tick: what makes a table survive a crash.

A table never sends the events of an action before the action is in the database, so the
database always holds at least what any client has seen. Tables hand their writes to the
:class:`Journal` as *groups* (one table's writes, in order) and await them. Every group handed
in while a batch is being written waits for a later one (the next, unless held back: below); a
batch goes to the store's thread in one hop (``AsyncStore.run``) and is written in ONE
transaction (``Store.write_batch``), each group all or nothing (on SQLite the groups share one
savepoint, and get one each if one of them fails; on PostgreSQL one each). Under load many
tables' actions share one hop and one commit, which is where the time went (a hop and a commit
cost more than the insert).

Actions come first, and a batch holds about 5 ms of other writes: it takes every queued group
of actions, then other groups oldest first by their cost (:data:`OP_COST`, in tenths of a
millisecond of the store's thread, measured under load) up to :data:`BATCH_COST`: the cheap ones
(a table's row, a new deal's cards: what a table waits for before it can go on) with up to half
of it, the deal records and closings with the rest; each kind always moves by one group at
least. A deal record took the store's thread about 1.8 ms under load: when a thousand tables
finished their deals within a second, a batch taking sixteen records ran for 20-30 ms, every
action in the server waited behind two such batches, and a table whose row was to be saved
waited behind all the records queued before it, for up to a second (its players' moves waiting
in its inbox). A table's later groups wait for the next batch after its queued one (see
:class:`_Pending`), so each table's writes still reach the database in the order it asked for.

A group is all or nothing: if one of its writes fails, the group's savepoint is rolled back and
the other groups are kept. A transient failure (locked database, full disk, I/O) fails the whole
transaction: it is tried again a few times, quickly, then every group of the batch fails with
the StoreError. The table then refuses the action (``storage_unavailable``) or tries again later;
nothing is half-applied, and a table's writes reach the database in the order it asked for,
which is what recovery relies on.

The writes are the Store's write methods themselves (``append_action``, ``start_deal``,
``record_deal``, ...), with their checks, run by the backend's ``write_batch`` inside the batch's
transaction. In a cluster each group carries its table's fence (owner and ownership epoch),
checked in the same transaction: a worker that lost a table to another never writes it again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from server.store.base import Fence, Op, Store, StoreError

log = logging.getLogger("atout.journal")

#: What each write costs the store's thread, in tenths of a millisecond: figures measured in
#: the ``ai`` mode of bench/load.py at 1,000 clients (wall time of the Store method inside a
#: batch), rounded. Actions cost nothing here: a batch takes them all, in one statement.
OP_COST = {
    "append_action": 0,
    "create_table": 1,  # a table's row (also its saves)
    "set_table_status": 1,
    "start_deal": 3,
    "finish_table": 6,
    "record_deal": 18,
}
#: The cost of a write this table does not know.
OTHER_COST = 6
#: Groups up to this cost are cheap: a table waits for them to go on (its row, its next deal).
LIGHT_COST = 4
#: The other writes one batch takes (see the module's doc): about 5 ms.
BATCH_COST = 50

__all__ = ["Journal", "Op", "op"]


def op(method: str, *args: Any, **kw: Any) -> Op:
    return (method, args, kw)


class Journal:
    """Batches table writes onto the store's thread. ``store`` is an AsyncStore.

    One batch is written at a time. Its groups' futures are resolved straight from the store's
    thread (``call_soon_threadsafe``) as soon as the transaction ends, and the next batch (the
    groups queued meanwhile) is handed over at that moment: each layer of futures between a
    thread and a task costs a turn of the event loop, and a busy loop's turns are long. For the
    same reason a group may come with ``then``, what its table does once it is stored (apply
    the moves, send their events): it runs as the batch is delivered, a turn before the
    table's task would resume, and ``after_delivery`` (the server's output flush) sends what
    they queued at once.

    Measured (bench/load.py, 1,000 players, AI seats at the 0.5 s pace, 5 repeats in turns with
    the tree before, two runs): an action's median latency x0.80 and x0.77, its p99 x0.77 and
    x0.80. Two other ways of saving a turn did worse, and are not here: the store's thread
    taking the next batch itself (p99 x1.3 on 2 December, x1.58 on 7 December, worse in 5
    pairs of 5: smaller batches, more commits and GIL hops), and a table beginning an action
    in the connection's callback rather than in its task (p99 x1.8 against ``then`` alone).
    """

    def __init__(self, store: Any, *, attempts: int = 3, pause: float = 0.02) -> None:
        self.store = store
        #: table id -> who may write it (set by the cluster: the ownership epoch), or None
        self.fence: Callable[[str], Fence | None] | None = None
        #: called on the loop once a batch's groups have run their ``then`` (the output flush)
        self.after_delivery: Callable[[], None] | None = None
        self.attempts = attempts
        self.pause = pause
        self._queue = _Pending()
        self._inflight = False
        self._scheduled = False
        self._tasks: set[asyncio.Task[None]] = set()
        # figures (bench and tests)
        self.batches = 0
        self.groups = 0
        self.ops = 0

    def write(
        self,
        ops: Sequence[Op],
        table: str | None = None,
        then: Callable[[BaseException | None], None] | None = None,
    ) -> asyncio.Future[BaseException | None]:
        """Queue one group (the writes of ``table``); the future gives None once it is
        committed, or the error (then none of its writes was made). In a cluster the group is
        written only while this worker owns ``table`` (its fence), else StoreFenced.

        ``then(result)``, if given, is called on the loop with the same result as the batch is
        delivered, before the future is resolved, unless it was cancelled (its task gave up
        waiting). It should not raise: an exception is logged and the other groups go on."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[BaseException | None] = loop.create_future()
        fence = self.fence(table) if self.fence is not None and table is not None else None
        self._queue.put((list(ops), fence, fut, table, then))
        if not self._inflight and not self._scheduled:
            # Not now: let the other tables woken in this turn of the loop add theirs first.
            self._scheduled = True
            loop.call_soon(self._submit)
        return fut

    def _submit(self) -> None:
        self._scheduled = False
        if self._inflight or not self._queue:
            return
        batch = self._queue.take(BATCH_COST)
        self._inflight = True
        self.batches += 1
        self.groups += len(batch)
        self.ops += sum(len(q[0]) for q in batch)
        groups = [q[0] for q in batch]
        fences = [q[1] for q in batch]
        fenced = fences if any(f is not None for f in fences) else None
        delivered = [False]  # the first of the thread and _run to deliver wins
        loop = asyncio.get_running_loop()
        attempts, pause = self.attempts, self.pause

        def work(store: Store) -> None:  # on the store's thread
            try:
                results = _run_batch(store, groups, fenced, attempts, pause)
            except BaseException as e:  # a bug in the batch itself: every group fails
                results = [e] * len(groups)
            loop.call_soon_threadsafe(self._deliver, batch, results, delivered)

        submit = getattr(self.store, "submit", None)
        if submit is None:  # a store without it (tests): through run and a task
            task = loop.create_task(self._run(work, batch, delivered))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return

        def failed(e: BaseException) -> None:  # the work did not run, or raised
            self._deliver(batch, [e] * len(batch), delivered)

        try:
            submit(work, failed)
        except Exception as e:  # the store is closed
            failed(e)

    async def _run(self, work: Any, batch: list[Any], delivered: list[bool]) -> None:
        try:
            await self.store.run(work)
        except BaseException as e:  # the work did not run (the store is closed)
            self._deliver(batch, [e] * len(batch), delivered)
            if not isinstance(e, Exception):
                raise

    def _deliver(
        self, batch: list[Any], results: list[BaseException | None], delivered: list[bool]
    ) -> None:
        if delivered[0]:
            return
        delivered[0] = True
        ran = False
        for (_, _, fut, table, then), res in zip(batch, results, strict=True):
            if then is not None and not fut.cancelled():
                ran = True
                try:
                    then(res)
                except Exception:  # a bug of the caller's: the other groups go on
                    log.exception("table %s: handling its stored writes failed", table)
        if ran and self.after_delivery is not None:
            try:
                self.after_delivery()
            except Exception:
                log.exception("journal: the hook after a delivery failed")
        for (_, _, fut, _, _), res in zip(batch, results, strict=True):
            if not fut.done():
                fut.set_result(res)
        self._inflight = False
        if self._queue:
            self._submit()


#: A queued group: its writes, its fence, its future, its table (None: no table), its ``then``.
_Queued = tuple[
    list[Op],
    Fence | None,
    asyncio.Future[BaseException | None],
    str | None,
    Callable[[BaseException | None], None] | None,
]


def cost(ops: Sequence[Op]) -> int:
    """What a group costs the store's thread (:data:`OP_COST`)."""
    return sum(OP_COST.get(o[0], OTHER_COST) for o in ops)


class _Pending:
    """The queued groups, in three queues: groups of actions only, cheap groups, costly groups
    (by :func:`cost`). A table has at most one group in the last two; its groups queued after
    that one wait in ``behind`` and are queued, in order, once it is taken (groups without a
    table count as one table). So a batch never holds two groups of a table one of which is not
    of actions only, and the actions it holds were queued before the other group: the store
    writes them first (``Store.write_batch``), in the order they were asked for."""

    __slots__ = ("actions", "behind", "costly", "light")

    def __init__(self) -> None:
        self.actions: list[_Queued] = []
        # table -> its queued group, oldest first (dicts keep their insertion order)
        self.light: dict[str | None, _Queued] = {}
        self.costly: dict[str | None, _Queued] = {}
        self.behind: dict[str | None, deque[_Queued]] = {}

    def __bool__(self) -> bool:
        return bool(self.actions or self.light or self.costly)

    def put(self, item: _Queued) -> None:
        table = item[3]
        if table in self.light or table in self.costly:
            self.behind.setdefault(table, deque()).append(item)
        else:
            self._place(item)

    def _place(self, item: _Queued) -> bool:
        """Queue ``item``; True if it is not of actions only (then the table's later groups
        wait behind it)."""
        c = cost(item[0])
        if not c:
            self.actions.append(item)
            return False
        (self.light if c <= LIGHT_COST else self.costly)[item[3]] = item
        return True

    def take(self, budget: int) -> list[_Queued]:
        """The next batch: every group of actions, then cheap groups oldest first with up to
        half of ``budget``, then costly ones with the rest (each kind one group at least)."""
        batch, self.actions = self.actions, []
        freed: list[str | None] = []
        spent = _oldest(self.light, budget // 2, batch, freed)
        _oldest(self.costly, budget - spent, batch, freed)
        for table in freed:  # the tables' next groups: for the next batch
            q = self.behind.get(table)
            while q:
                if self._place(q.popleft()):
                    break
            if not q:
                self.behind.pop(table, None)
        return batch


def _oldest(
    queue: dict[str | None, _Queued], budget: int, batch: list[_Queued], freed: list[str | None]
) -> int:
    """Move the oldest groups of ``queue`` to ``batch`` while their cost fits in ``budget``
    (the first one always); their tables go to ``freed``. Returns the cost taken."""
    spent = 0
    taken = []
    for table, item in queue.items():
        c = cost(item[0])
        if spent and spent + c > budget:
            break
        spent += c
        taken.append(table)
        batch.append(item)
    for table in taken:
        del queue[table]
    freed.extend(taken)
    return spent


def _run_batch(
    store: Store,
    groups: list[list[Op]],
    fences: list[Fence | None] | None,
    attempts: int,
    pause: float,
) -> list[BaseException | None]:
    """On the store's thread: all groups in one transaction, retried on transient failures."""
    delay = pause
    for n in range(1, attempts + 1):
        try:
            return store.write_batch(groups, fences)
        except StoreError as e:
            if not e.transient or n == attempts:
                log.warning(
                    "store: %d write group(s) failed after %d attempt(s): %s [%s]",
                    len(groups),
                    n,
                    e,
                    e.code,
                )
                return [e] * len(groups)
            time.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")

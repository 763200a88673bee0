"""Durable table writes, grouped per event-loop tick: what makes a table survive a crash.

A table never sends the events of an action before the action is in the database, so the
database always holds at least what any client has seen. Tables hand their writes to the
:class:`Journal` as *groups* (one table's writes, in order) and await them. Every group handed
in while a batch is being written waits for a later one (the next, unless held back: below); a
batch goes to the store's thread in one hop (``AsyncStore.run``) and is written in ONE
transaction (``Store.write_batch``), each group inside its own savepoint. Under load many
tables' actions share one hop and one commit, which is where the time went (a hop and a commit
cost more than the insert).

Actions come first: a batch takes every queued group of actions but at most
:data:`SLOW_OPS_PER_BATCH` other writes (a deal's record, a new deal's cards, a table's row,
also when it rides with an action), oldest first as far as they fit, and leaves the rest, with
any later group of the same tables, to the next batches. A deal record costs a hundred times an
action (its log is deleted, its seats and scores written): when a thousand tables finish their
deals within a second, a batch taking all of them ran for 20-30 ms and every action in the
server waited behind two such batches.

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
from collections.abc import Callable, Sequence
from typing import Any

from server.store.base import Fence, Op, Store, StoreError

log = logging.getLogger("atout.journal")

#: Writes other than actions that one batch takes at most (see the module's doc). About 5 ms of
#: deal records on a loaded 2-core machine; a batch always takes at least the oldest group.
SLOW_OPS_PER_BATCH = 16

__all__ = ["Journal", "Op", "op"]


def op(method: str, *args: Any, **kw: Any) -> Op:
    return (method, args, kw)


class Journal:
    """Batches table writes onto the store's thread. ``store`` is an AsyncStore.

    One batch is written at a time. Its groups' futures are resolved straight from the store's
    thread (``call_soon_threadsafe``) as soon as the transaction ends, and the next batch (the
    groups queued meanwhile) is handed over at that moment: each layer of futures between a
    thread and a task costs a turn of the event loop, and a busy loop's turns are long.
    """

    def __init__(self, store: Any, *, attempts: int = 3, pause: float = 0.02) -> None:
        self.store = store
        #: table id -> who may write it (set by the cluster: the ownership epoch), or None
        self.fence: Callable[[str], Fence | None] | None = None
        self.attempts = attempts
        self.pause = pause
        self._queue: list[_Queued] = []
        self._inflight = False
        self._scheduled = False
        self._tasks: set[asyncio.Task[None]] = set()
        # figures (bench and tests)
        self.batches = 0
        self.groups = 0
        self.ops = 0

    def write(
        self, ops: Sequence[Op], table: str | None = None
    ) -> asyncio.Future[BaseException | None]:
        """Queue one group (the writes of ``table``); the future gives None once it is
        committed, or the error (then none of its writes was made). In a cluster the group is
        written only while this worker owns ``table`` (its fence), else StoreFenced."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[BaseException | None] = loop.create_future()
        fence = self.fence(table) if self.fence is not None and table is not None else None
        self._queue.append((list(ops), fence, fut, table))
        if not self._inflight and not self._scheduled:
            # Not now: let the other tables woken in this turn of the loop add theirs first.
            self._scheduled = True
            loop.call_soon(self._submit)
        return fut

    def _submit(self) -> None:
        self._scheduled = False
        if self._inflight or not self._queue:
            return
        batch, self._queue = _take(self._queue, SLOW_OPS_PER_BATCH)
        self._inflight = True
        self.batches += 1
        self.groups += len(batch)
        self.ops += sum(len(ops) for ops, _, _, _ in batch)
        groups = [ops for ops, _, _, _ in batch]
        fences = [f for _, f, _, _ in batch]
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
        for (_, _, fut, _), res in zip(batch, results, strict=True):
            if not fut.done():
                fut.set_result(res)
        self._inflight = False
        if self._queue:
            self._submit()


#: A queued group: its writes, its fence, its future, its table (None: no table).
_Queued = tuple[list[Op], Fence | None, asyncio.Future[BaseException | None], str | None]


def _take(queue: list[_Queued], slow_max: int) -> tuple[list[_Queued], list[_Queued]]:
    """The next batch and what stays queued, both in queue order: every group of actions only,
    other writes up to ``slow_max`` (at least one group). A table whose group stays keeps all
    its later groups too, so that its writes still reach the database in order (groups
    without a table count as one table)."""
    batch: list[_Queued] = []
    rest: list[_Queued] = []
    held: set[str | None] = set()
    slow = 0
    for item in queue:
        table = item[3]
        if table in held:
            rest.append(item)
            continue
        n = sum(1 for o in item[0] if o[0] != "append_action")
        if n and slow and slow + n > slow_max:
            held.add(table)
            rest.append(item)
            continue
        slow += n
        batch.append(item)
    return batch, rest


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

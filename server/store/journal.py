"""Durable table writes, grouped per event-loop tick: what makes a table survive a crash.

A table never sends the events of an action before the action is in the database, so the
database always holds at least what any client has seen. Tables hand their writes to the
:class:`Journal` as *groups* (one table's writes, in order) and await them. Every group handed in
while a batch is being written waits for the next batch; a batch goes to the store's thread in
one hop (``AsyncStore.run``) and is written in ONE SQLite transaction, each group inside its own
savepoint. Under load many tables' actions share one hop and one commit, which is where the time
went (a hop and a commit cost more than the insert).

A group is all or nothing: if one of its writes fails, the group's savepoint is rolled back and
the other groups are kept. A transient failure (locked database, full disk, I/O) fails the whole
transaction: it is tried again a few times, quickly, then every group of the batch fails with
the StoreError. The table then refuses the action (``storage_unavailable``) or tries again later;
nothing is half-applied, and a table's writes reach the database in the order it asked for,
which is what recovery relies on.

The writes are the :class:`server.store.sqlite.Store` methods themselves (``append_action``,
``start_deal``, ``record_deal``, ...), with their checks: for the length of a batch the store's
private ``_tx`` (one write transaction per call) is replaced by "run inside the current
savepoint". A public ``Store.batch()`` would be the cleaner seam.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

import msgspec

from server.store.sqlite import Store, StoreError, now, store_error

log = logging.getLogger("atout.journal")

_encode = msgspec.json.Encoder().encode

#: One write: the name of a :class:`server.store.sqlite.Store` method, its arguments, its keywords.
Op = tuple[str, tuple[Any, ...], dict[str, Any]]


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
        self.attempts = attempts
        self.pause = pause
        self._queue: list[tuple[list[Op], asyncio.Future[BaseException | None]]] = []
        self._inflight = False
        self._scheduled = False
        self._tasks: set[asyncio.Task[None]] = set()
        # figures (bench and tests)
        self.batches = 0
        self.groups = 0
        self.ops = 0

    def write(self, ops: Sequence[Op]) -> asyncio.Future[BaseException | None]:
        """Queue one group; the future gives None once it is committed, or the error (then
        none of its writes was made)."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[BaseException | None] = loop.create_future()
        self._queue.append((list(ops), fut))
        if not self._inflight and not self._scheduled:
            # Not now: let the other tables woken in this turn of the loop add theirs first.
            self._scheduled = True
            loop.call_soon(self._submit)
        return fut

    def _submit(self) -> None:
        self._scheduled = False
        if self._inflight or not self._queue:
            return
        batch, self._queue = self._queue, []
        self._inflight = True
        self.batches += 1
        self.groups += len(batch)
        self.ops += sum(len(ops) for ops, _ in batch)
        groups = [ops for ops, _ in batch]
        delivered = [False]  # the first of the thread and _run to deliver wins
        loop = asyncio.get_running_loop()
        attempts, pause = self.attempts, self.pause

        def work(store: Store) -> None:  # on the store's thread
            try:
                results = _run_batch(store, groups, attempts, pause)
            except BaseException as e:  # a bug in the batch itself: every group fails
                results = [e] * len(groups)
            loop.call_soon_threadsafe(self._deliver, batch, results, delivered)

        task = loop.create_task(self._run(work, batch, delivered))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
        for (_, fut), res in zip(batch, results, strict=True):
            if not fut.done():
                fut.set_result(res)
        self._inflight = False
        if self._queue:
            self._submit()


def _run_batch(
    store: Store, groups: list[list[Op]], attempts: int, pause: float
) -> list[BaseException | None]:
    """On the store's thread: all groups in one transaction, retried on transient failures."""
    delay = pause
    for n in range(1, attempts + 1):
        try:
            return _one_transaction(store, groups)
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


_INSERT_ACTION = (
    "INSERT INTO actions (table_id, deal_no, idx, action, created_at) VALUES (?, ?, ?, ?, ?)"
)


def _fast_actions(
    conn: sqlite3.Connection, groups: list[list[Op]], results: list[BaseException | bool | None]
) -> None:
    """The common case, one action per group: one ``executemany`` for all of them, without
    ``Store.append_action``'s checks (its status and gap queries and JSON round trip) that a
    table makes true by construction; the keys still refuse a duplicate or an unknown deal.
    On an error nothing of it is kept, and the groups go the slow way (checks, one savepoint
    each) to find out which one failed."""
    idx = [i for i, ops in enumerate(groups) if len(ops) == 1 and ops[0][0] == "append_action"]
    if not idx:
        return
    at = now()
    rows = []
    for i in idx:
        table_id, deal_no, n, action = groups[i][0][1]
        rows.append((table_id, deal_no, n, _encode(action).decode(), at))
    alone = len(idx) == len(groups)  # then the transaction itself is the savepoint
    if not alone:
        conn.execute("SAVEPOINT atout_fast")
    try:
        conn.executemany(_INSERT_ACTION, rows)
    except sqlite3.Error as e:
        err = store_error(e)
        if err.transient:
            raise err from e
        if alone:
            conn.execute("ROLLBACK")
            conn.execute("BEGIN IMMEDIATE")
        else:
            conn.execute("ROLLBACK TO atout_fast")
            conn.execute("RELEASE atout_fast")
        return
    if not alone:
        conn.execute("RELEASE atout_fast")
    for i in idx:
        results[i] = None


def _one_transaction(store: Store, groups: list[list[Op]]) -> list[BaseException | None]:
    conn = store.conn
    # True: to do; None: done; an exception: that group failed (nothing of it was written)
    results: list[BaseException | bool | None] = [True] * len(groups)
    try:
        conn.execute("BEGIN IMMEDIATE")
        _fast_actions(conn, groups, results)
        if True in results:
            _slow_groups(store, groups, results)
        conn.execute("COMMIT")
    except BaseException as e:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(e, sqlite3.Error | OSError):
            raise store_error(e) from e
        raise
    return [None if r is True else r for r in results]  # type: ignore[misc]


def _slow_groups(
    store: Store, groups: list[list[Op]], results: list[BaseException | bool | None]
) -> None:
    """Each remaining group through the Store's own methods, inside its own savepoint."""
    conn = store.conn
    store._tx = lambda fn: fn(conn)  # type: ignore[method-assign]
    try:
        for k, ops in enumerate(groups):
            if results[k] is not True:
                continue
            conn.execute("SAVEPOINT atout_group")
            try:
                for method, args, kw in ops:
                    getattr(store, method)(*args, **kw)
            except Exception as e:
                err = store_error(e) if isinstance(e, sqlite3.Error | OSError) else e
                if isinstance(err, StoreError) and err.transient:
                    raise err from e  # the storage itself: the whole batch is retried
                if isinstance(err, StoreError):
                    log.error("store write refused: %s; payload: %s", err, _payload(ops))
                else:
                    log.exception("store write failed; payload: %s", _payload(ops))
                conn.execute("ROLLBACK TO atout_group")
                results[k] = err
            else:
                results[k] = None
            conn.execute("RELEASE atout_group")
    finally:
        del store._tx


def _payload(ops: list[Op]) -> str:
    """A failed group's writes, for the log (seat tokens are never among them: only hashes)."""
    try:
        return _encode([[m, list(a), kw] for m, a, kw in ops]).decode()
    except (TypeError, msgspec.EncodeError):
        return repr(ops)

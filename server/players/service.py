"""The review of every scored deal, off the event loop, one deal at a time in finishing order.

After a deal's record is in the database its table calls :meth:`Reviews.deal_recorded`. One
task takes the deals in order: the par replay and the seat figures
(:func:`server.players.par.review_deal`: a few ms of CPU per deal, bench/par_cost.py) run in a
worker process of their own, then the ratings are updated and everything is stored in one store
transaction (``Store.apply_review``; openskill's arithmetic for one deal is ~0.3 ms, done on the
store's thread inside that transaction so that a rating is read and written atomically), and
the table, if it is still open, announces the ``par`` event. Deals recorded while the server was
down (or before an upgrade) are found at start (``deals.review = 'pending'``) and reviewed the
same way.

Why a process and not a thread: a thread computing par holds the GIL in turn with the event
loop. When many deals end together (1,000 tables that started together finish their deals
within a second or two), the par thread took about half of the GIL from the loop for seconds,
and every table's actions waited (bench/load.py, AI seats at the 0.5 s pace: p99
action-to-event latency 125-160 ms with the thread, docs/SCALING.md section 5). The worker is
spawned (a fork of a server running threads could inherit a held lock) at the first review,
ends itself when the server is gone (``server.ai.runner``'s watchdog), and is started again if it
dies or hangs (:data:`REVIEW_TIMEOUT`). A deal that kills or hangs :data:`PROCESS_FAILURES`
workers in a row is given up (it stays pending, logged and counted, and is tried again in a
worker at the next start), never reviewed in a thread: the thread would die or hang on it the
same way, and a thread cannot be killed. When :data:`GIVEN_UP_IN_A_ROW` deals in a row are given
up (the worker dies whatever it reviews), or where no process can be started at all, the next
reviews run in a thread for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from server.players import ratings
from server.players.par import REFERENCE_LEVELS, review_deal

log = logging.getLogger("atout.players")

#: Worker processes that died or hung in a row on one deal before the deal is given up.
PROCESS_FAILURES = 3
#: Deals given up in a row (no review done between them) before the reviews fall back to a
#: thread for good: the worker process, not the deals, is then at fault.
GIVEN_UP_IN_A_ROW = 2
#: Seconds a review may take in the worker before it is taken for hung and the worker killed
#: (a par takes a few milliseconds).
REVIEW_TIMEOUT = 60.0
#: How much lower than the server's the review worker's scheduling priority is: its pars are
#: background work (a few ms of CPU per deal, a burst of seconds when many deals end together)
#: and should take a core from the event loop, the store's thread or the players' own
#: processes only when they leave it idle.
REVIEW_NICE = 10


class _CannotSpawn(Exception):
    """The review worker process could not be started (the reviews then run in a thread)."""


class GivenUp(Exception):
    """A deal killed or hung every worker process that reviewed it: it is left pending."""


def rating_view(r: dict[str, Any] | None) -> dict[str, Any] | None:
    """A rating as the protocol shows it."""
    if r is None or r.get("mu") is None:
        return None
    out = {
        "rating": round(ratings.conservative(r["mu"], r["sigma"]), 2),
        "mu": round(r["mu"], 3),
        "sigma": round(r["sigma"], 3),
        "deals": r["deals"],
        "provisional": r["deals"] < ratings.PROVISIONAL,
    }
    if r.get("delta") is not None:
        out["delta"] = round(r["delta"], 2)
    return out


class Reviews:
    """Par and ratings after each scored deal. ``store``: an AsyncStore; ``announce(table_id,
    event)`` hands a ``par`` event to the table (False when the table is gone);
    ``worker_setup``: what the worker process runs first (the server's logging)."""

    def __init__(
        self,
        store: Any,
        level: str = "heuristic",
        announce: Callable[[str, dict[str, Any]], Any] | None = None,
        owned: Callable[[str], bool] | None = None,
        worker_setup: Callable[[], None] | None = None,
    ) -> None:
        if level not in REFERENCE_LEVELS:
            raise ValueError(f"par level {level!r}: one of {', '.join(REFERENCE_LEVELS)}")
        self.store = store
        self.level = level
        self.announce = announce
        self.owned = owned
        self.worker_setup = worker_setup  # run first in the worker process (the logging)
        self._queue: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        self._queued: set[tuple[str, int]] = set()
        self._task: asyncio.Task[None] | None = None
        self._pool: ThreadPoolExecutor | None = None  # the review thread
        self._procs: ProcessPoolExecutor | None = None  # its worker process (see the module doc)
        # Reviews in a worker process (see the module doc); False once that was given up.
        self.process = True
        self._given_up_in_a_row = 0
        self._given_up: set[tuple[str, int]] = set()  # pending until the next start
        self._stopped = False
        self._idle = asyncio.Event()
        self._idle.set()
        # counters for /metrics (server/ops/metrics.py)
        self.reviewed = 0
        self.failures = 0  # reviews that failed (given up included); the deal stays pending
        self.given_up = 0  # deals given up because they killed or hung the worker
        self.cpu_ms = 0.0  # par CPU time, summed (the reviewing thread's, par.par_of)

    def counts(self) -> dict[str, float]:
        """What ``GET /metrics`` shows of the reviews."""
        return {
            "reviewed": self.reviewed,
            "failures": self.failures,
            "given_up": self.given_up,
            "backlog": len(self._queued),  # queued or in progress
            "par_cpu_seconds": round(self.cpu_ms / 1000, 3),
            "in_process": int(self.process),
        }

    # -- lifecycle --

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="reviews")

    async def stop(self) -> None:
        self._stopped = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        # The worker first: the review thread may be waiting for it. A review it had in
        # progress stays pending in the database and is made again at the next start.
        self._kill_procs()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)

    async def idle(self, timeout: float = 60.0) -> None:
        """Wait until every played deal in the store (of the tables this server owns) is
        reviewed or given up (tests). A deal's record is committed a moment after its table's
        last event, and only then queued, so the store is asked, not only the queue."""
        async with asyncio.timeout(timeout):
            while True:
                await asyncio.sleep(0)
                while not (self._idle.is_set() and self._queue.empty()):
                    await self._idle.wait()
                    await asyncio.sleep(0.01)
                pending = await self.store.players("pending_reviews", 1000)
                left = [
                    p
                    for p in pending
                    if (self.owned is None or self.owned(p[0])) and tuple(p) not in self._given_up
                ]
                if not left:
                    return
                await asyncio.sleep(0.05)

    # -- work --

    def deal_recorded(self, table_id: str, deal_no: int) -> None:
        key = (table_id, deal_no)
        if key not in self._queued and key not in self._given_up:
            self._queued.add(key)
            self._idle.clear()
            self._queue.put_nowait(key)

    async def _backlog(self) -> None:
        pending = await self.store.players("pending_reviews", 100_000)
        for tid, no in pending:
            if self.owned is None or self.owned(tid):
                self.deal_recorded(tid, no)
        if pending:
            log.info("reviewing %d deal(s) left from before the start", len(pending))

    async def _run(self) -> None:
        try:
            await self._backlog()
        except Exception:
            log.exception("reviews: cannot read the deals waiting for review")
        while True:
            if self._queue.empty():
                self._idle.set()
            key = await self._queue.get()
            self._idle.clear()
            try:
                await self._review(*key)
            except asyncio.CancelledError:
                raise
            except GivenUp as e:
                self.failures += 1
                self.given_up += 1
                self._given_up.add(key)
                log.error(
                    "review of deal %s/%s given up: %s; it stays pending until the next start",
                    *key,
                    e,
                )
            except Exception:
                self.failures += 1
                log.exception("review of deal %s/%s failed; it stays pending", *key)
            finally:
                self._queued.discard(key)

    def _executor(self) -> ThreadPoolExecutor:
        if self._stopped:
            raise RuntimeError("the reviews are stopped")
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="atout-review")
        return self._pool

    def _in_process(self, record: dict[str, Any] | str) -> dict[str, Any]:
        """On the review thread: hand the deal to the worker process and wait for it. Starting
        the process and writing to it happen here, not on the event loop: spawning blocks
        until the child has read its start-up data (about 0.2 s), and the executor's wake-up
        pipe can block a writer while its feeder is busy."""
        if self._stopped:  # the server stopped while this deal waited for the thread
            raise RuntimeError("the reviews are stopped")
        try:
            if self._procs is None:
                from server.ai.runner import spawn_pool

                self._procs = spawn_pool(1, nice=REVIEW_NICE, setup=self.worker_setup)
            fut = self._procs.submit(review_deal, record, self.level)
        except BrokenProcessPool:
            raise
        except Exception as e:  # no process can be started here (a sandbox, no /dev/shm)
            raise _CannotSpawn(e) from e
        try:
            out: dict[str, Any] = fut.result(timeout=REVIEW_TIMEOUT)
        except TimeoutError:
            log.error(
                "reviews: the worker took over %.0f s on one deal; killing it", REVIEW_TIMEOUT
            )
            self._kill_procs()
            raise BrokenProcessPool("the review worker hung") from None
        return out

    def _drop_procs(self) -> None:
        procs, self._procs = self._procs, None
        if procs is not None:
            procs.shutdown(wait=False, cancel_futures=True)

    def _kill_procs(self) -> None:
        """End the worker processes now (a hung review, or the server stopping): shutting the
        pool down waits for the review in progress, which a hung worker never ends."""
        procs = self._procs
        for proc in list(getattr(procs, "_processes", {}).values()):
            with contextlib.suppress(Exception):
                proc.kill()
        self._drop_procs()

    async def _compute(self, record: dict[str, Any] | str) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deaths = 0  # of workers on this deal
        while self.process:
            try:
                out = await loop.run_in_executor(self._executor(), self._in_process, record)
            except _CannotSpawn as e:
                self.process = False
                self._drop_procs()
                log.error("reviews: cannot start a worker process (%s); reviewing in a thread", e)
                break
            except BrokenProcessPool:
                # The worker died (killed, out of memory): a new one takes the same deal.
                self._drop_procs()
                deaths += 1
                if deaths < PROCESS_FAILURES:
                    log.warning("reviews: the worker process died; starting another")
                    continue
                # The deal itself, most likely: the next one gets a new worker.
                self._given_up_in_a_row += 1
                if self._given_up_in_a_row >= GIVEN_UP_IN_A_ROW:
                    self.process = False
                    log.error(
                        "reviews: the worker process died on %d deals in a row; reviewing in "
                        "a thread of the server from now on",
                        self._given_up_in_a_row,
                    )
                raise GivenUp(f"{deaths} worker processes in a row died or hung on it") from None
            self._given_up_in_a_row = 0
            return out
        return await loop.run_in_executor(self._executor(), review_deal, record, self.level)

    async def _review(self, table_id: str, deal_no: int) -> None:
        got = await self.store.players("review_input", table_id, deal_no)
        if got is None:
            return  # reviewed already (another worker, or twice queued)
        review = await self._compute(got["record"])  # its JSON text: decoded by the worker
        if review["par"] is not None:
            self.cpu_ms += review["par"]["cpu_ms"]
        applied = await self.store.players("apply_review", table_id, deal_no, review, ratings.rate)
        if applied is None:
            return
        self.reviewed += 1
        if self.announce is not None:
            self.announce(table_id, par_event(deal_no, applied))


def par_event(deal_no: int, applied: dict[str, Any]) -> dict[str, Any]:
    """The table event telling a deal's par (and the ratings after it)."""
    par = applied["par"]
    real = applied["scores"]
    return {
        "type": "par",
        "deal_no": deal_no,
        "level": None if par is None else par["level"],
        "scores": real,
        "par": None if par is None else par["scores"],
        "over_par": None
        if par is None
        else [_n(a - b) for a, b in zip(real, par["scores"], strict=True)],
        "ratings": [rating_view(r) for r in applied["ratings"]],
    }


def _n(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x

"""The store off the event loop: :class:`AsyncStore` runs any backend (``server.store.base.
Store``) on one dedicated thread, in order, retrying transient failures.

Both backends are synchronous (SQLite's module; psycopg 3 for PostgreSQL, chosen by measurement:
docs/SCALING.md section 5), so the event loop only hands a call over and gets a future back.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec

from server.store.base import (
    OpenTable,
    PlayerStore,
    Store,
    StoreClosed,
    StoreError,
    now,
    shown_args,
    shown_ops,
)

log = logging.getLogger("atout.store")

T = TypeVar("T")
_encode = msgspec.json.Encoder().encode


class AsyncStore:
    """A Store (``path``: a SQLite file or a ``postgresql://`` URL, see
    :func:`server.store.open_store`) on one dedicated thread, for the asyncio server.

    Every call runs on the same worker thread, in the order it was made, so writes are ordered
    and the event loop never touches SQLite. A write that fails for a transient reason (locked
    database, full disk, I/O) is logged and retried with exponential backoff (``retry_initial``
    doubling up to ``retry_max`` seconds) until it succeeds; later calls wait behind it, which
    keeps the order. A write that cannot succeed (a conflict, a bug) is logged with its payload
    and raised to its caller. Cancelling the awaiting task does not cancel the write.

    Opening (migrations) happens in ``__init__`` on the worker thread, which blocks the caller
    for that short start-up step and raises its StoreError right away.
    """

    def __init__(
        self,
        path: str,
        *,
        retry_initial: float = 0.05,
        retry_max: float = 2.0,
        **store_options: Any,
    ) -> None:
        self.path = path
        self._retry_initial = retry_initial
        self._retry_max = retry_max
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="atout-store"
        )
        self._give_up = threading.Event()
        self._lock = threading.Lock()
        self._pending = 0
        self._failing = False
        self._closed = False
        try:
            self._store: Store = self._executor.submit(
                lambda: _opened(open_store(path, **store_options))
            ).result()
        except BaseException:
            self._executor.shutdown(wait=False)
            raise

    # -- figures for /healthz and /metrics --

    @property
    def pending(self) -> int:
        """Calls submitted and not finished (including one being retried)."""
        return self._pending

    @property
    def failing(self) -> bool:
        """Whether the last write attempt failed and is being retried."""
        return self._failing

    # -- the machinery --

    def _run(self, fn: Callable[..., T], args: tuple, retry: bool, attempts: int | None) -> T:
        """On the worker thread: call ``fn(*args)``, retrying transient failures."""
        name = getattr(fn, "__name__", "call")
        delay = self._retry_initial
        n = 0
        try:
            while True:
                n += 1
                try:
                    result = fn(*args)
                except StoreError as e:
                    last = (
                        not e.transient
                        or not retry
                        or (attempts is not None and n >= attempts)
                        or self._give_up.is_set()
                    )
                    if last:
                        if retry:
                            self._failing = e.transient
                            log.error(
                                "store %s failed for good after %d attempt(s): %s [%s]; "
                                "payload: %s",
                                name,
                                n,
                                e,
                                e.code,
                                _payload(name, args),
                            )
                        raise
                    self._failing = True
                    log.warning(
                        "store %s failed (attempt %d), retrying in %.2fs: %s [%s]",
                        name,
                        n,
                        delay,
                        e,
                        e.code,
                    )
                    self._give_up.wait(delay)
                    delay = min(delay * 2, self._retry_max)
                    continue
                except Exception:
                    log.exception("store %s failed; payload: %s", name, _payload(name, args))
                    raise
                if n > 1:
                    log.info("store %s succeeded after %d attempts", name, n)
                if retry:
                    self._failing = False
                return result
        finally:
            with self._lock:
                self._pending -= 1

    async def _call(
        self,
        fn: Callable[..., T],
        *args: Any,
        retry: bool = True,
        attempts: int | None = None,
    ) -> T:
        if self._closed:
            raise StoreClosed("the store is closed")
        with self._lock:
            self._pending += 1
        cf = self._executor.submit(self._run, fn, args, retry, attempts)
        fut = asyncio.wrap_future(cf)
        # If the caller is cancelled the write still happens (shield), and its outcome has
        # already been logged by _run, so nobody needs to retrieve it.
        fut.add_done_callback(_consume)
        return await asyncio.shield(fut)

    def submit(
        self, fn: Callable[[Store], object], failed: Callable[[BaseException], None]
    ) -> None:
        """Run ``fn(store)`` on the worker thread, in order with the other calls (no retry),
        with no asyncio future: ``fn`` reports its outcome itself (the journal resolves its
        groups with ``call_soon_threadsafe``). ``failed(exc)`` is called on the event loop if
        ``fn`` raised or could not run (the store closed); raises StoreClosed if it is already.

        For the journal's batches, one per commit: ``run``'s future, its wrapper, the shield
        and the task awaiting them cost the loop two wake-ups and more than the batch's own
        callbacks."""
        if self._closed:
            raise StoreClosed("the store is closed")
        loop = asyncio.get_running_loop()
        with self._lock:
            self._pending += 1
        try:
            cf = self._executor.submit(self._run, fn, (self._store,), False, None)
        except RuntimeError as e:  # the executor is shut down
            with self._lock:
                self._pending -= 1
            raise StoreClosed("the store is closed") from e

        def done(f: concurrent.futures.Future[Any]) -> None:  # on the thread that ends f
            if f.cancelled():
                with self._lock:
                    self._pending -= 1  # _run never ran
                exc: BaseException | None = StoreClosed("the store is closed")
            else:
                exc = f.exception()
            if exc is not None:
                with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                    loop.call_soon_threadsafe(failed, exc)

        cf.add_done_callback(done)

    async def run(self, fn: Callable[[Store], T]) -> T:
        """Run ``fn(store)`` on the worker thread, in order with the other calls (no retry).
        For the journal and tests: the server's code calls the named methods."""
        return await self._call(fn, self._store, retry=False)

    # -- the interface --

    async def create_table(self, table_id: str, name: str, options: dict[str, Any]) -> None:
        await self._call(self._store.create_table, table_id, name, options)

    async def set_table_status(self, table_id: str, status: str) -> None:
        await self._call(self._store.set_table_status, table_id, status)

    async def finish_table(self, table_id: str, status: str = "finished") -> None:
        await self._call(self._store.finish_table, table_id, status)

    async def record_deal(
        self,
        table_id: str,
        deal_no: int,
        record: dict[str, Any],
        players: Sequence[str | None],
        scores: Sequence[float],
        finished_at: str | None = None,
        *,
        seats: Sequence[dict[str, Any]] | None = None,
    ) -> None:
        # The finish time is taken now, not when a retried write finally lands.
        await self._call(
            _record_deal_with,
            self._store,
            table_id,
            deal_no,
            record,
            list(players),
            list(scores),
            finished_at or now(),
            seats,
        )

    async def start_deal(
        self,
        table_id: str,
        deal_no: int,
        dealer: int,
        hands: Sequence[Sequence[str]],
        chien: Sequence[str],
        players: Sequence[str | None] | None = None,
        *,
        attempts: int | None = 3,
    ) -> None:
        await self._call(
            _start_deal_at,
            self._store,
            table_id,
            deal_no,
            dealer,
            hands,
            chien,
            players,
            now(),
            attempts=attempts,
        )

    async def append_action(
        self, table_id: str, deal_no: int, idx: int, action: Any, *, attempts: int | None = 3
    ) -> None:
        """Log an action before its events go out. By default a few quick attempts only, then
        StoreError: the server refuses the action and the table carries on when storage
        recovers (``attempts=None`` retries until it succeeds)."""
        await self._call(
            self._store.append_action, table_id, deal_no, idx, action, attempts=attempts
        )

    async def writable(self, timeout: float = 1.0) -> bool:
        """For /healthz: False at once while a write is being retried, else a real write."""
        if self._closed or self._failing:
            return False
        try:
            return await asyncio.wait_for(
                self._call(self._store.writable, min(timeout, 0.5), retry=False), timeout
            )
        except (TimeoutError, StoreError):
            return False

    async def table_scores(self, table_id: str) -> list[int | float]:
        return await self._call(self._store.table_scores, table_id, attempts=3)

    async def standings(self, table_id: str | None = None) -> list[dict[str, Any]]:
        return await self._call(self._store.standings, table_id, attempts=3)

    async def unfinished_deals(self) -> list[dict[str, Any]]:
        return await self._call(self._store.unfinished_deals, attempts=3)

    async def open_tables(self, owned: Callable[[str], bool] | None = None) -> list[OpenTable]:
        """Every open table (those ``owned(table_id)`` accepts) with its deals, to rebuild."""
        return await self._call(self._store.open_tables, owned, attempts=3)

    # -- the players (server.store.base.PlayerStore; issue 12) --

    @property
    def keeps_players(self) -> bool:
        return bool(getattr(self._store, "keeps_players", False))

    async def players(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call the PlayerStore method ``method`` (a few quick attempts on a transient failure,
        then StoreError: the request is answered ``storage_unavailable``)."""
        if method not in PLAYER_METHODS:
            raise AttributeError(f"{method} is not a PlayerStore method")
        fn = getattr(self._store, method)

        def call() -> Any:  # no arguments to log on a failure: they may hold key hashes
            return fn(*args, **kwargs)

        call.__name__ = method
        return await self._call(call, attempts=3)

    async def close(self, timeout: float | None = None) -> None:
        """Flush every pending write, then close. After ``timeout`` seconds, writes still being
        retried stop retrying: each is logged at ERROR with its payload and fails its caller."""
        if self._closed:
            return
        self._closed = True
        cf = self._executor.submit(self._store.close)
        fut = asyncio.wrap_future(cf)
        try:
            if timeout is None:
                await asyncio.shield(fut)
            else:
                try:
                    await asyncio.wait_for(asyncio.shield(fut), timeout)
                except TimeoutError:
                    self._give_up.set()
                    await asyncio.shield(fut)
        finally:
            self._executor.shutdown(wait=False)


def _start_deal_at(
    store: Store,
    table_id: str,
    deal_no: int,
    dealer: int,
    hands: Sequence[Sequence[str]],
    chien: Sequence[str],
    players: Sequence[str | None] | None,
    at: str,
) -> None:
    store.start_deal(table_id, deal_no, dealer, hands, chien, players=players, started_at=at)


_start_deal_at.__name__ = "start_deal"


def _record_deal_with(
    store: Store,
    table_id: str,
    deal_no: int,
    record: dict[str, Any],
    players: Sequence[str | None],
    scores: Sequence[float],
    finished_at: str,
    seats: Sequence[dict[str, Any]] | None,
) -> None:
    store.record_deal(table_id, deal_no, record, players, scores, finished_at, seats=seats)


_record_deal_with.__name__ = "record_deal"


#: The methods :meth:`AsyncStore.players` runs: those of ``PlayerStore``.
PLAYER_METHODS = frozenset(
    n for n in vars(PlayerStore) if not n.startswith("_") and callable(getattr(PlayerStore, n))
)


def _payload(name: str, args: tuple) -> str:
    """Arguments of a failed call as JSON, so an operator can recover what was not written
    (without the cards nobody may see yet: :func:`server.store.base.shown_args`)."""
    shown: list[Any] = [a for a in args if not hasattr(a, "write_batch")]
    if name == "write_batch" and shown and isinstance(shown[0], list):
        shown[0] = [shown_ops(group) for group in shown[0]]
    else:
        shown = shown_args(name, shown)
    try:
        return _encode(shown).decode()
    except (TypeError, msgspec.EncodeError):
        return repr(shown)


def _consume(fut: asyncio.Future) -> None:
    if not fut.cancelled():
        fut.exception()


def _opened(store: Store) -> Store:
    """The server's store: a SQLite one checkpoints its WAL off the writes' path."""
    background = getattr(store, "checkpoint_in_background", None)
    if background is not None:
        background()
    return store


def open_store(path: str, **options: Any) -> Store:
    from server.store import open_store as _open

    return _open(path, **options)

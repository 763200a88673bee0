"""AsyncStore: SQLite off the event loop, ordered writes, retries, nothing lost on close."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from server.rules.randplay import random_deal
from server.rules.records import record_of
from server.store.aio import AsyncStore
from server.store.sqlite import (
    Store,
    StoreClosed,
    StoreConflict,
    StoreError,
    StoreFull,
    StoreLocked,
)

PLAYERS = ["ann", None, "bob", None]
RECS = [record_of(random_deal(i, dealer=i % 4)) for i in range(6)]


def scores(rec: dict[str, Any]) -> list:
    return rec["result"]["scores"]


def total(recs: list[dict[str, Any]]) -> list:
    return [sum(scores(r)[s] for r in recs) for s in range(4)]


@pytest.fixture
def path(tmp_path: Path) -> str:
    return str(tmp_path / "atout.db")


def stored_deals(path: str) -> list[tuple[str, int]]:
    s = Store(path, readonly=True)
    try:
        return [(d["meta"]["table_id"], d["meta"]["deal_no"]) for d in s.deals()]
    finally:
        s.close()


class Lock:
    """Another connection holding the write lock until released."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("BEGIN EXCLUSIVE")

    def release(self) -> None:
        self.conn.execute("ROLLBACK")
        self.conn.close()


async def test_writes_run_on_one_worker_thread_off_the_loop(path: str, monkeypatch) -> None:
    threads: list[int] = []
    original = Store.record_deal

    def spy(self: Store, *args: Any, **kw: Any) -> None:
        threads.append(threading.get_ident())
        original(self, *args, **kw)

    monkeypatch.setattr(Store, "record_deal", spy)
    store = AsyncStore(path)
    await store.create_table("t1", "First", {"deals": 3})
    for i, rec in enumerate(RECS[:3]):
        await store.record_deal("t1", i + 1, rec, PLAYERS, scores(rec))
    assert await store.table_scores("t1") == total(RECS[:3])
    loop_thread = threading.get_ident()
    assert len(threads) == 3 and len(set(threads)) == 1 and threads[0] != loop_thread
    # The connection belongs to the worker: the loop thread could not even use it.
    with pytest.raises(sqlite3.ProgrammingError):
        store._store.conn.execute("SELECT 1")
    assert await store.run(lambda s: threading.get_ident()) == threads[0]
    await store.close()


async def test_a_failing_write_is_retried_and_the_loop_stays_free(path: str, caplog) -> None:
    caplog.set_level(logging.INFO, logger="atout.store")
    store = AsyncStore(path, busy_timeout=0.02, retry_initial=0.02, retry_max=0.1)
    await store.create_table("t1", "First", {})
    lock = Lock(path)
    write = asyncio.create_task(store.record_deal("t1", 1, RECS[0], PLAYERS, scores(RECS[0])))
    ticks = 0
    for _ in range(20):  # the loop keeps running while the write waits and retries
        await asyncio.sleep(0.01)
        ticks += 1
    assert ticks == 20 and not write.done()
    assert store.failing and store.pending == 1
    assert await store.writable() is False  # /healthz answers at once, not behind the write
    lock.release()
    await asyncio.wait_for(write, 5)
    assert not store.failing and store.pending == 0
    assert await store.writable() is True
    assert await store.table_scores("t1") == scores(RECS[0])  # counted once
    await store.close()
    retries = [r for r in caplog.records if "retrying" in r.getMessage()]
    assert retries and all(r.levelno == logging.WARNING for r in retries)
    assert "storage_locked" in retries[0].getMessage()
    assert any("succeeded after" in r.getMessage() for r in caplog.records)
    assert stored_deals(path) == [("t1", 1)]


async def test_a_full_disk_is_retried_until_space_comes_back(path: str, monkeypatch) -> None:
    attempts = []
    original = Store.record_deal

    def full_twice(self: Store, *args: Any, **kw: Any) -> None:
        attempts.append(args[1])
        if len(attempts) <= 2:
            raise StoreFull("database or disk is full (SQLITE_FULL)")
        original(self, *args, **kw)

    monkeypatch.setattr(Store, "record_deal", full_twice)
    store = AsyncStore(path, retry_initial=0.01)
    first = asyncio.create_task(store.record_deal("t1", 1, RECS[0], PLAYERS, scores(RECS[0])))
    second = asyncio.create_task(store.record_deal("t1", 2, RECS[1], PLAYERS, scores(RECS[1])))
    await asyncio.gather(first, second)
    assert attempts == [1, 1, 1, 2]  # the second write waited behind the retried first
    assert await store.table_scores("t1") == total(RECS[:2])
    await store.close()


async def test_writes_keep_their_order(path: str) -> None:
    store = AsyncStore(path)
    calls = [store.create_table("t1", "First", {})]
    calls += [
        store.record_deal("t1", i + 1, rec, PLAYERS, scores(rec)) for i, rec in enumerate(RECS)
    ]
    calls.append(store.finish_table("t1", "finished"))
    await asyncio.gather(*calls)
    rows = await store.run(
        lambda s: s.conn.execute("SELECT deal_no FROM deals ORDER BY rowid").fetchall()
    )
    assert [r[0] for r in rows] == list(range(1, len(RECS) + 1))
    table = await store.run(lambda s: s.table("t1"))
    assert table["status"] == "finished" and table["deals"] == len(RECS)
    await store.close()


async def test_cancelling_the_caller_does_not_lose_the_write(path: str) -> None:
    store = AsyncStore(path, busy_timeout=0.02, retry_initial=0.02, retry_max=0.05)
    lock = Lock(path)
    first = asyncio.create_task(store.record_deal("t1", 1, RECS[0], PLAYERS, scores(RECS[0])))
    queued = asyncio.create_task(store.record_deal("t1", 2, RECS[1], PLAYERS, scores(RECS[1])))
    await asyncio.sleep(0.05)
    first.cancel()
    queued.cancel()  # not even started yet: it must still run
    await asyncio.sleep(0)
    lock.release()
    await store.close()
    assert first.cancelled() and queued.cancelled()
    assert stored_deals(path) == [("t1", 1), ("t1", 2)]


async def test_close_flushes_pending_writes(path: str) -> None:
    store = AsyncStore(path)
    tasks = [
        asyncio.create_task(store.record_deal("t1", i + 1, rec, PLAYERS, scores(rec)))
        for i, rec in enumerate(RECS)
    ]
    await asyncio.sleep(0)  # submitted, not awaited
    await store.close()
    await asyncio.gather(*tasks)
    assert stored_deals(path) == [("t1", i + 1) for i in range(len(RECS))]
    with pytest.raises(StoreClosed):
        await store.table_scores("t1")
    assert await store.writable() is False


async def test_close_with_a_timeout_gives_up_loudly(path: str, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="atout.store")
    store = AsyncStore(path, busy_timeout=0.02, retry_initial=0.02, retry_max=0.05)
    lock = Lock(path)
    try:
        write = asyncio.create_task(store.record_deal("t9", 7, RECS[0], PLAYERS, scores(RECS[0])))
        deadline = time.monotonic() + 10
        while not store.failing:  # the write met the lock and is being retried
            assert time.monotonic() < deadline, "the write never met the lock"
            await asyncio.sleep(0.01)
        await store.close(timeout=0.2)
        with pytest.raises(StoreLocked):
            await write
    finally:
        lock.release()
    (final,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    message = final.getMessage()
    assert "failed for good" in message and '"t9",7' in message  # the payload, recoverable
    assert '"format":"atout-deal/1"' in message


async def test_permanent_errors_are_not_retried(path: str, caplog) -> None:
    store = AsyncStore(path, retry_initial=0.01)
    await store.record_deal("t1", 1, RECS[0], PLAYERS, scores(RECS[0]))
    with pytest.raises(StoreConflict):
        await store.record_deal("t1", 1, RECS[1], PLAYERS, scores(RECS[1]))
    with pytest.raises(ValueError):
        await store.record_deal("t1", 2, RECS[1], PLAYERS, [0, 0, 0, 1])
    assert not store.failing
    assert await store.table_scores("t1") == scores(RECS[0])
    await store.close()


async def test_the_action_log_fails_fast_so_the_action_can_be_refused(path: str) -> None:
    store = AsyncStore(path, busy_timeout=0.02, retry_initial=0.01)
    rec = RECS[0]
    await store.start_deal("t1", 1, rec["dealer"], rec["hands"], rec["chien"], PLAYERS)
    await store.append_action("t1", 1, 0, rec["actions"][0])
    lock = Lock(path)
    with pytest.raises(StoreLocked):
        await store.append_action("t1", 1, 1, rec["actions"][1])  # 3 quick attempts, then no
    lock.release()
    await store.append_action("t1", 1, 1, rec["actions"][1])  # storage is back: carry on
    (entry,) = await store.unfinished_deals()
    assert entry["record"]["actions"] == rec["actions"][:2]
    assert entry["players"] == PLAYERS
    await store.close()


def test_opening_errors_surface_at_once(tmp_path: Path) -> None:
    with pytest.raises(StoreError):
        AsyncStore(str(tmp_path / "no" / "such" / "dir" / "atout.db"))

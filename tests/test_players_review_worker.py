"""The par of every scored deal is computed in a worker process of the server, not in a thread
that takes the GIL from the event loop (server/players/service.py): the same review as the
pure function gives, a worker that dies is replaced, and after repeated deaths the reviews
carry on in a thread."""

from __future__ import annotations

import os
import random
import signal
import time
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

from server.players import service
from server.players.par import review_deal
from server.players.service import Reviews
from server.rules import OVER, apply, legal_actions, new_deal
from server.rules.randplay import random_from_legal
from server.rules.records import record_of
from server.store.base import pid_alive


def _played_record(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    while True:
        st = new_deal(rng, rng.randrange(4))
        while st.phase != OVER:
            legal = legal_actions(st)
            assert legal is not None
            st = apply(st, random_from_legal(legal, rng))
        rec = record_of(st)
        if rec["result"]["status"] == "played":
            return rec


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal but for the CPU time each run measured."""
    a = {**a, "par": {**a["par"], "cpu_ms": 0}}
    b = {**b, "par": {**b["par"], "cpu_ms": 0}}
    return a == b


def _worker_pids(reviews: Reviews) -> list[int]:
    procs = reviews._procs
    assert procs is not None, "no worker process was started"
    return list(procs._processes)  # type: ignore[attr-defined]


async def test_the_par_is_computed_in_a_worker_process() -> None:
    reviews = Reviews(store=None)
    try:
        rec = _played_record(1)
        got = await reviews._compute(rec)
        assert _same(got, review_deal(rec, "heuristic"))
        (pid,) = _worker_pids(reviews)
        assert pid != os.getpid()
        with open(f"/proc/{pid}/stat", "rb") as f:
            ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        assert ppid == os.getpid()
        # background work: it runs at a lower priority than the server (the nice value is the
        # 19th field of stat)
        assert service.REVIEW_NICE > 0
        with open(f"/proc/{pid}/stat", "rb") as f:
            nice = int(f.read().rsplit(b")", 1)[1].split()[16])
        assert nice == min(19, os.nice(0) + service.REVIEW_NICE)
    finally:
        await reviews.stop()


async def test_a_killed_worker_is_replaced_and_the_deal_still_reviewed() -> None:
    reviews = Reviews(store=None)
    try:
        first = _played_record(2)
        await reviews._compute(first)
        (pid,) = _worker_pids(reviews)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        rec = _played_record(3)
        got = await reviews._compute(rec)
        assert _same(got, review_deal(rec, "heuristic"))
        (new_pid,) = _worker_pids(reviews)
        assert new_pid != pid
        assert reviews.process and reviews._process_failures == 0
    finally:
        await reviews.stop()


async def _reviewed_in_the_thread(seed: int) -> None:
    """A deal's review comes out right, from the thread: the worker process was given up."""
    reviews = Reviews(store=None)
    try:
        rec = _played_record(seed)
        got = await reviews._compute(rec)
        assert not reviews.process and reviews._procs is None
        assert _same(got, review_deal(rec, "heuristic"))
    finally:
        await reviews.stop()


async def test_reviews_fall_back_to_a_thread_after_repeated_deaths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []

    def dies(self: Reviews, record: dict[str, Any]) -> dict[str, Any]:
        calls.append(record)
        raise BrokenProcessPool("killed")

    monkeypatch.setattr(Reviews, "_in_process", dies)
    await _reviewed_in_the_thread(4)
    assert len(calls) == service.PROCESS_FAILURES


async def test_reviews_run_in_a_thread_where_no_process_can_be_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import server.ai.runner as runner

    def no_processes(workers: int) -> Any:
        raise PermissionError("semaphores are not available")

    monkeypatch.setattr(runner, "spawn_pool", no_processes)
    await _reviewed_in_the_thread(5)


def _hangs_in_a_worker(record: dict[str, Any], level: str) -> dict[str, Any]:
    """review_deal, except in a worker process, where it never ends (a hung review)."""
    if os.getpid() != int(os.environ["ATOUT_TEST_SERVER_PID"]):
        time.sleep(600)
    return review_deal(record, level)


async def test_a_hung_worker_is_killed_and_the_server_still_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio

    monkeypatch.setenv("ATOUT_TEST_SERVER_PID", str(os.getpid()))
    monkeypatch.setattr(service, "review_deal", _hangs_in_a_worker)
    monkeypatch.setattr(service, "REVIEW_TIMEOUT", 0.5)
    reviews = Reviews(store=None)
    try:
        rec = _played_record(6)
        # each worker hangs and is killed after the timeout; then the thread reviews the deal
        got = await asyncio.wait_for(reviews._compute(rec), 60)
        assert not reviews.process
        assert _same(got, review_deal(rec, "heuristic"))
    finally:
        await reviews.stop()
    # stopping while a worker hangs (the timeout far away) does not wait for it
    monkeypatch.setattr(service, "REVIEW_TIMEOUT", 600.0)
    reviews = Reviews(store=None)
    task = asyncio.ensure_future(reviews._compute(_played_record(7)))
    deadline = time.monotonic() + 30
    while reviews._procs is None or not reviews._procs._processes:  # type: ignore[attr-defined]
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    (pid,) = _worker_pids(reviews)
    task.cancel()  # as Reviews.stop cancels its task before anything else
    await asyncio.wait_for(reviews.stop(), 10)
    with pytest.raises(RuntimeError):  # nothing starts again once stopped
        await reviews._compute(_played_record(8))
    deadline = time.monotonic() + 10
    while pid_alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not pid_alive(pid)

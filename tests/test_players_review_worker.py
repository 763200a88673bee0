"""The par of every scored deal is computed in a worker process of the server, not in a thread
that takes the GIL from the event loop (server/players/service.py): the same review as the
pure function gives, a worker that dies is replaced, a deal that kills every worker is given up
(not the process, and never tried in a thread), and once deals are given up in a row the next
reviews carry on in a thread."""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import signal
import time
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import msgspec
import pytest

from server.players import service
from server.players.par import review_deal
from server.players.service import GivenUp, Reviews
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
        assert reviews.process and reviews._given_up_in_a_row == 0
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


class _Store:
    """The three store calls the reviews make, over deals held in memory as the real store
    holds them (the record's JSON text)."""

    def __init__(self, records: dict[tuple[str, int], dict[str, Any]]) -> None:
        self.pending = {k: msgspec.json.encode(r).decode() for k, r in records.items()}
        self.applied: dict[tuple[str, int], dict[str, Any]] = {}

    async def players(self, call: str, *args: Any) -> Any:
        if call == "pending_reviews":
            return sorted(self.pending)
        if call == "review_input":
            text = self.pending.get(args)
            return None if text is None else {"record": text}
        assert call == "apply_review"
        table_id, deal_no, review, _rate = args
        del self.pending[table_id, deal_no]
        self.applied[table_id, deal_no] = review
        return review


def _poisoned(record: str, level: str) -> dict[str, Any]:
    """review_deal, except in a worker process given the poisoned deal: it dies there."""
    poisoned = hashlib.sha1(record.encode()).hexdigest() == os.environ["ATOUT_TEST_POISON"]
    if poisoned and os.getpid() != int(os.environ["ATOUT_TEST_SERVER_PID"]):
        os._exit(3)
    return review_deal(record, level)


async def _until(check: Any, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_a_deal_that_kills_every_worker_is_given_up_not_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    records = {("t", n): _played_record(20 + n) for n in (1, 2, 3)}
    store = _Store(records)
    poison = hashlib.sha1(store.pending["t", 2].encode()).hexdigest()
    monkeypatch.setenv("ATOUT_TEST_POISON", poison)
    monkeypatch.setenv("ATOUT_TEST_SERVER_PID", str(os.getpid()))
    monkeypatch.setattr(service, "review_deal", _poisoned)
    reviews = Reviews(store)
    reviews.start()
    try:
        await _until(lambda: len(store.applied) == 2 and reviews.given_up == 1)
        # the poisoned deal stays pending (tried again at the next start); the others were
        # reviewed by a worker process, which the reviews keep
        assert sorted(store.pending) == [("t", 2)]
        for k in [("t", 1), ("t", 3)]:
            assert _same(store.applied[k], review_deal(records[k], "heuristic"))
        assert reviews.process and reviews._given_up_in_a_row == 0
        counts = reviews.counts()
        assert counts["reviewed"] == 2 and counts["failures"] == 1 and counts["backlog"] == 0
        assert counts["in_process"] == 1
    finally:
        await reviews.stop()


async def test_reviews_fall_back_to_a_thread_when_workers_die_on_every_deal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []

    def dies(self: Reviews, record: str) -> dict[str, Any]:
        calls.append(record)
        raise BrokenProcessPool("killed")

    monkeypatch.setattr(Reviews, "_in_process", dies)
    records = {("t", n): _played_record(30 + n) for n in (1, 2, 3, 4)}
    store = _Store(records)
    reviews = Reviews(store)
    reviews.start()
    try:
        # the first two deals are given up after three deaths each: the process is at fault,
        # and the thread reviews the next deals; the two given up stay pending (a thread is
        # never given a deal that killed workers)
        await _until(lambda: len(store.applied) == 2)
        assert len(calls) == service.PROCESS_FAILURES * service.GIVEN_UP_IN_A_ROW
        assert not reviews.process and reviews.given_up == 2
        assert sorted(store.pending) == [("t", 1), ("t", 2)]
        for k in [("t", 3), ("t", 4)]:
            assert _same(store.applied[k], review_deal(records[k], "heuristic"))
        assert reviews.counts()["in_process"] == 0 and reviews.counts()["backlog"] == 0
        reviews.deal_recorded("t", 1)  # a deal given up is not queued again before a restart
        assert reviews.counts()["backlog"] == 0
        await reviews.idle(10)  # what is left pending was given up
    finally:
        await reviews.stop()


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
    monkeypatch.setenv("ATOUT_TEST_SERVER_PID", str(os.getpid()))
    monkeypatch.setattr(service, "review_deal", _hangs_in_a_worker)
    monkeypatch.setattr(service, "REVIEW_TIMEOUT", 0.5)
    reviews = Reviews(store=None)
    try:
        rec = _played_record(6)
        # each worker hangs and is killed after the timeout; then the deal is given up (a
        # thread would hang on it for good), and the reviews keep their worker process
        with pytest.raises(GivenUp):
            await asyncio.wait_for(reviews._compute(rec), 60)
        assert reviews.process
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


def test_the_par_counts_its_own_cpu_time_not_the_servers() -> None:
    """``cpu_ms`` (atout_review_par_cpu_seconds_total) is the reviewing thread's CPU: where the
    reviews fell back to a thread, the rest of the server (here a thread that keeps the CPU
    busy) is not counted as par."""
    import threading

    from server.players.par import par_of

    rec = _played_record(9)
    window = threading.Event()  # set: inside the measured window
    closed = threading.Event()  # the busy thread has read its clock at the window's end
    busy_ms = 0.0
    rounds = 0  # the busy thread's loops in the window: ~10 µs of CPU each

    def busy() -> None:
        nonlocal busy_ms, rounds
        window.wait()
        t0 = time.thread_time()
        while window.is_set():
            sum(range(1000))
            rounds += 1
        busy_ms = (time.thread_time() - t0) * 1000
        closed.set()

    other = threading.Thread(target=busy)
    other.start()
    pars = []
    p0 = time.process_time()
    window.set()  # after p0: the busy thread's time in the window is inside the process's
    try:
        # enough pars for the busy thread to have had the GIL a good while (they share it)
        deadline = time.monotonic() + 30
        while len(pars) < 10 or (rounds < 1000 and time.monotonic() < deadline):
            pars.append(par_of(rec))
    finally:
        window.clear()
        closed.wait()
        other.join()
    process_ms = (time.process_time() - p0) * 1000
    par_ms = sum(p["cpu_ms"] for p in pars)
    assert par_ms > 0 and busy_ms > 2.0
    # the par's time and the busy thread's are disjoint parts of the process's: were the par
    # the process's CPU, it would include the busy thread's too
    assert par_ms + busy_ms <= process_ms + 1.0

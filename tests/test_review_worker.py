"""The reviews' worker process (server/players/review_worker.py): it reviews a deal exactly as
``review_deal`` does in the server, survives a deal it cannot review, is started again when it
dies (the deal going to a thread meanwhile), and exits when its input ends, which is what a
server's death does to it."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from typing import Any

import pytest

from server.players.par import review_deal
from server.players.review_worker import ReviewError, ReviewWorker
from server.players.service import Reviews
from server.rules import OVER, apply, legal_actions, new_deal
from server.rules.randplay import random_from_legal
from server.rules.records import record_of

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def played_record(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    while True:
        st = new_deal(rng, seed % 4)
        while st.phase != OVER:
            legal = legal_actions(st)
            assert legal is not None
            st = apply(st, random_from_legal(legal, rng))
        rec = record_of(st)
        if rec["result"]["status"] == "played":
            return rec


def without_clock(review: dict[str, Any]) -> dict[str, Any]:
    out = dict(review)
    if out.get("par") is not None:
        out["par"] = {k: v for k, v in out["par"].items() if k != "cpu_ms"}
    return out


async def test_the_worker_reviews_a_deal_as_review_deal_does() -> None:
    worker = ReviewWorker()
    try:
        for seed in range(3):
            rec = played_record(seed)
            got = await worker.review(rec, "heuristic")
            assert without_clock(got) == without_clock(review_deal(rec, "heuristic"))
        assert worker.started == 1  # one process for every deal
    finally:
        await worker.close()


async def test_a_deal_it_cannot_review_is_an_error_and_the_worker_goes_on() -> None:
    worker = ReviewWorker()
    try:
        with pytest.raises(ReviewError, match="reference bot"):
            await worker.review(played_record(1), "strong")
        pid = worker.pid
        assert (await worker.review(played_record(2), "heuristic"))["par"] is not None
        assert worker.pid == pid
    finally:
        await worker.close()


class _Store:
    """What Reviews asks of the store, for one deal."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record
        self.applied: list[dict[str, Any]] = []

    async def players(self, method: str, *args: Any) -> Any:
        if method == "pending_reviews":
            return []
        if method == "review_input":
            return {"record": self.record}
        assert method == "apply_review"
        self.applied.append(args[2])
        return None


async def test_a_killed_worker_is_replaced_and_no_deal_is_lost() -> None:
    store = _Store(played_record(3))
    reviews = Reviews(store, "heuristic")
    try:
        assert reviews.worker is not None
        await reviews._review("t", 1)
        first = reviews.worker.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        for _ in range(200):  # reaped: the next deal starts a new process
            if reviews.worker._proc is not None and reviews.worker._proc.returncode is not None:
                break
            await asyncio.sleep(0.01)
        await reviews._review("t", 2)
        await reviews._review("t", 3)
        assert len(store.applied) == 3
        assert all(r["par"] is not None for r in store.applied)
        assert reviews.worker is not None and reviews.worker.pid not in (None, first)
    finally:
        await reviews.stop()


def test_the_worker_exits_when_its_input_ends() -> None:
    """A server that dies, even by SIGKILL, closes the child's input: the child exits."""
    env = {**os.environ, "PYTHONPATH": ROOT}
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.players.review_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.read(9) == b"\x00\x00\x00\x05ready"
    proc.stdin.close()
    assert proc.wait(timeout=20) == 0

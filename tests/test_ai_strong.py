"""The strong bot respects its deadline; the runner never blocks the event loop and always
answers with a legal action in time (falling back to the heuristic move)."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from server.ai import make_bot
from server.ai.runner import Runner
from server.ai.strong import StrongBot
from server.rules import OVER, PLAY, apply, legal_actions
from server.rules.deal import new_deal
from server.rules.views import view

# Timing slack for a loaded 2-core machine (other processes may run during the tests).
SLACK_S = 0.12


def _positions(n: int, seed: int, min_plays: int = 2, min_tricks: int = 0):
    """(state, legal) play decisions with at least ``min_plays`` legal cards."""
    bot = make_bot("heuristic", 0)
    out = []
    i = 0
    while len(out) < n:
        rng = random.Random(seed + i)
        st = new_deal(rng, dealer=i % 4)
        i += 1
        while st.phase != OVER:
            legal = legal_actions(st)
            assert legal is not None
            if (
                st.phase == PLAY
                and len(legal.plays) >= min_plays
                and len(st.tricks) >= min_tricks
                and rng.random() < 0.15
            ):
                out.append((st, legal))
            st = apply(st, bot.choose(view(st, legal.seat), legal))
    return out[:n]


def test_strong_decision_respects_its_deadline() -> None:
    for budget_ms in (20.0, 60.0):
        bot = StrongBot(1, budget_ms=budget_ms, confidence=None, max_samples=10_000)
        worst = 0.0
        for st, legal in _positions(12, 77, min_plays=6):
            t = time.perf_counter()
            act = bot.choose(view(st, legal.seat), legal)
            dt = time.perf_counter() - t
            apply(st, act)
            worst = max(worst, dt)
            assert bot.last_stats["stop"] == "deadline"
        assert worst < budget_ms / 1000 + SLACK_S, worst


def test_strong_stops_early_when_the_best_card_is_clear() -> None:
    bot = StrongBot(2, budget_ms=300, max_samples=200)
    stops = set()
    for st, legal in _positions(12, 5):
        apply(st, bot.choose(view(st, legal.seat), legal))
        stops.add(bot.last_stats.get("stop"))
    assert "clear" in stops


def test_strong_searches_the_last_tricks_exactly() -> None:
    bot = StrongBot(2, budget_ms=100, exact_tricks=3)
    for st, legal in _positions(8, 6, min_tricks=15):
        apply(st, bot.choose(view(st, legal.seat), legal))
        if bot.last_stats.get("samples"):
            assert bot.last_stats["exact"] is True


async def test_runner_decides_legal_actions_for_every_level() -> None:
    runner = Runner(workers=1, strong_budget_ms=20)
    try:
        for level in ("random", "heuristic", "strong"):
            rng = random.Random(1)
            st = new_deal(rng, dealer=0)
            while st.phase != OVER:
                legal = legal_actions(st)
                assert legal is not None
                act = await runner.decide(level, view(st, legal.seat), legal, 2.0)
                st = apply(st, act)
        assert runner.fallbacks == 0
    finally:
        runner.shutdown()


async def test_runner_answers_in_time_when_the_pool_is_saturated() -> None:
    """Twenty strong decisions at once on one worker with a 150 ms deadline each: every one
    answers in time with a legal action (queued decisions think less, or not at all)."""
    runner = Runner(workers=1, strong_budget_ms=100)
    runner.warm_up()
    try:
        positions = _positions(20, 11)

        async def one(st, legal):
            t = time.perf_counter()
            act = await runner.decide("strong", view(st, legal.seat), legal, 0.15)
            apply(st, act)
            return time.perf_counter() - t

        times = await asyncio.gather(*(one(st, lg) for st, lg in positions))
        assert max(times) < 0.15 + SLACK_S
    finally:
        runner.shutdown()


async def test_runner_falls_back_to_the_heuristic_when_no_worker_answers() -> None:
    """A decision stuck behind a long search gets the heuristic move at its deadline."""
    runner = Runner(workers=1, strong_budget_ms=400)
    runner.warm_up()
    try:
        ((st2, lg2),) = _positions(1, 13, min_plays=6)
        # Occupy the only worker for certain (a real search may stop early on a clear best card).
        busy = runner.pool.submit(time.sleep, 1.0)
        t = time.perf_counter()
        act = await runner.decide("strong", view(st2, lg2.seat), lg2, 0.05)
        assert time.perf_counter() - t < 0.05 + SLACK_S
        apply(st2, act)
        assert runner.fallbacks == 1
        busy.result()
    finally:
        runner.shutdown()


async def test_event_loop_stays_free_during_strong_decisions() -> None:
    runner = Runner(workers=2, strong_budget_ms=150)
    runner.warm_up()
    lags: list[float] = []
    stop = False

    async def probe() -> None:
        while not stop:
            t = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append(time.perf_counter() - t - 0.005)

    try:
        task = asyncio.create_task(probe())
        positions = _positions(6, 23, min_plays=5)
        await asyncio.gather(
            *(runner.decide("strong", view(st, lg.seat), lg, 2.0) for st, lg in positions)
        )
        stop = True
        await task
    finally:
        runner.shutdown()
    assert len(lags) > 20
    assert max(lags) < 0.05  # a search on the loop would stall it for 150 ms


@pytest.mark.parametrize("objective", ["score", "margin"])
def test_strong_objectives(objective: str) -> None:
    bot = StrongBot(4, budget_ms=30, objective=objective)
    for st, legal in _positions(5, 99):
        apply(st, bot.choose(view(st, legal.seat), legal))

"""Process metrics, rendered in the Prometheus text exposition format for ``GET /metrics``.

Counters are plain ints bumped on the hot path (no locks: everything runs on the event loop);
gauges that are cheap to compute (tables by state, open connections) are read at scrape time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable

log = logging.getLogger("atout.metrics")


class Metrics:
    def __init__(self) -> None:
        self.started = time.time()
        self.connections_open = 0
        self.connections_total = 0
        self.messages_in = 0
        self.messages_out = 0
        self.bytes_out = 0
        self.deals_finished = 0
        self.actions_applied = 0
        self.errors: Counter[str] = Counter()
        self.closes: Counter[int] = Counter()
        self.loop_lag = 0.0  # seconds, worst lag seen over the last sampling window
        self.loop_lag_max = 0.0
        self.store_failures = 0
        self.turn_timeouts = 0  # moves the AI played for a present player out of time
        # moves played at random because an AI seat's bot raised ("error") or chose an illegal
        # action ("illegal"): a bug, each logged with its table and seat
        self.ai_failures: dict[str, int] = {"error": 0, "illegal": 0}
        self.gc_pause_max = 0.0  # seconds, longest garbage-collector pause since start
        self._gc_start = 0.0
        # set by the app: () -> {state: count}, () -> pending store writes
        self.tables_by_state: Callable[[], dict[str, int]] = dict
        self.store_pending: Callable[[], int] = lambda: 0
        # set by the app: () -> {reason: count} of heuristic moves played for a strong AI
        self.ai_fallbacks: Callable[[], dict[str, int]] = dict
        # set by the app when deals are reviewed: Reviews.counts (server/players/service.py)
        self.reviews: Callable[[], dict[str, float]] | None = None
        # set by a cluster worker's app: () -> (tables adopted, tables lost to another worker)
        self.cluster_tables: Callable[[], tuple[int, int]] | None = None

    def render(self) -> str:
        lines: list[str] = []

        def metric(name: str, kind: str, help_: str, samples: list[tuple[str, float]]) -> None:
            lines.append(f"# HELP {name} {help_}")
            lines.append(f"# TYPE {name} {kind}")
            for labels, value in samples:
                # exact integers (a counter of bytes passes a million soon; :g would round it)
                text = str(value) if type(value) is int else repr(float(value))
                lines.append(f"{name}{labels} {text}")

        metric("atout_up_seconds", "gauge", "Seconds since the server started.",
               [("", round(time.time() - self.started, 3))])  # fmt: skip
        metric("atout_connections_open", "gauge", "Open WebSocket connections.",
               [("", self.connections_open)])  # fmt: skip
        metric("atout_connections_total", "counter", "WebSocket connections accepted.",
               [("", self.connections_total)])  # fmt: skip
        by_state = self.tables_by_state()
        metric("atout_tables", "gauge", "Open tables by state.",
               [(f'{{state="{s}"}}', by_state.get(s, 0))
                for s in ("waiting", "playing", "finished")])  # fmt: skip
        metric("atout_deals_finished_total", "counter", "Deals finished (played or annulled).",
               [("", self.deals_finished)])  # fmt: skip
        metric("atout_actions_total", "counter", "Deal actions applied (humans and AI).",
               [("", self.actions_applied)])  # fmt: skip
        metric("atout_messages_in_total", "counter", "Frames received from clients.",
               [("", self.messages_in)])  # fmt: skip
        metric("atout_messages_out_total", "counter", "Messages queued to clients.",
               [("", self.messages_out)])  # fmt: skip
        metric("atout_bytes_out_total", "counter", "Bytes queued to clients.",
               [("", self.bytes_out)])  # fmt: skip
        metric("atout_errors_total", "counter", "Error messages sent, by code.",
               [(f'{{code="{c}"}}', n) for c, n in sorted(self.errors.items())])  # fmt: skip
        metric("atout_closes_total", "counter", "Connections closed by the server, by close code.",
               [(f'{{code="{c}"}}', n) for c, n in sorted(self.closes.items())])  # fmt: skip
        metric("atout_turn_timeouts_total", "counter",
               "Moves the AI played for a present player whose time ran out.",
               [("", self.turn_timeouts)])  # fmt: skip
        metric("atout_event_loop_lag_seconds", "gauge",
               "Worst event-loop lag over the last sampling window.",
               [("", round(self.loop_lag, 6))])  # fmt: skip
        metric("atout_event_loop_lag_max_seconds", "gauge", "Worst event-loop lag since start.",
               [("", round(self.loop_lag_max, 6))])  # fmt: skip
        metric("atout_gc_pause_max_seconds", "gauge", "Longest garbage-collector pause since start.",
               [("", round(self.gc_pause_max, 6))])  # fmt: skip
        metric("atout_store_pending_writes", "gauge", "Store calls submitted and not finished.",
               [("", self.store_pending())])  # fmt: skip
        metric("atout_store_failures_total", "counter", "Store writes that failed for good.",
               [("", self.store_failures)])  # fmt: skip
        metric("atout_ai_failures_total", "counter",
               "AI moves played at random because the bot raised or chose an illegal action.",
               [(f'{{reason="{r}"}}', n) for r, n in sorted(self.ai_failures.items())])  # fmt: skip
        metric("atout_ai_fallbacks_total", "counter",
               "Heuristic moves played instead of the strong AI's, by reason (timeout, error, crash).",
               [(f'{{reason="{r}"}}', n) for r, n in sorted(self.ai_fallbacks().items())])  # fmt: skip
        if self.reviews is not None:  # par and ratings after each deal
            r = self.reviews()
            metric("atout_reviews_total", "counter", "Deals reviewed (par and ratings stored).",
                   [("", r["reviewed"])])  # fmt: skip
            metric("atout_review_failures_total", "counter",
                   "Reviews that failed (the deal stays pending; logged).",
                   [("", r["failures"])])  # fmt: skip
            metric("atout_reviews_given_up_total", "counter",
                   "Deals given up: their review killed or hung the review worker three times.",
                   [("", r["given_up"])])  # fmt: skip
            metric("atout_review_backlog", "gauge", "Deals queued for review or in review.",
                   [("", r["backlog"])])  # fmt: skip
            metric("atout_review_par_cpu_seconds_total", "counter",
                   "CPU time the par computations took.",
                   [("", r["par_cpu_seconds"])])  # fmt: skip
            metric("atout_review_worker_process", "gauge",
                   "1 while reviews run in their worker process, 0 once they fell back to a thread.",
                   [("", r["in_process"])])  # fmt: skip
        if self.cluster_tables is not None:  # a worker of a cluster (SCALING.md)
            adopted, lost = self.cluster_tables()
            metric("atout_cluster_tables_adopted_total", "counter",
                   "Tables this worker took over from a worker whose lease ran out.",
                   [("", adopted)])  # fmt: skip
            metric("atout_cluster_tables_lost_total", "counter",
                   "Tables this worker stopped serving because another worker adopted them.",
                   [("", lost)])  # fmt: skip
        return "\n".join(lines) + "\n"

    def gc_callback(self, phase: str, info: dict[str, int]) -> None:
        """For gc.callbacks: record the longest collection pause (a source of loop lag)."""
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            pause = time.perf_counter() - self._gc_start
            self.gc_pause_max = max(self.gc_pause_max, pause)
            if pause > 0.05:
                log.info(
                    "garbage collection (generation %s) paused %.0f ms",
                    info.get("generation"),
                    pause * 1000,
                )

    async def watch_loop_lag(self, interval: float = 0.25, window: int = 20) -> None:
        """Sleep ``interval`` again and again; the overshoot is the loop's lag. Keeps the worst
        of the last ``window`` samples (5 s by default) so a scrape sees recent spikes."""
        loop = asyncio.get_running_loop()
        recent: list[float] = []
        while True:
            t0 = loop.time()
            await asyncio.sleep(interval)
            lag = max(0.0, loop.time() - t0 - interval)
            recent.append(lag)
            if len(recent) > window:
                del recent[0]
            self.loop_lag = max(recent)
            self.loop_lag_max = max(self.loop_lag_max, lag)

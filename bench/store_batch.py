"""One journal batch on SQLite as the loaded server makes it: its time on the store's thread,
alone and beside a busy event loop.

The server writes every table's moves through one thread (server/store/journal.py), and a
table sends an action's events only once its batch is committed, so the batch's wall time is
part of every move's latency. The sqlite3 module lets go of the GIL around each statement's
step and must win it back from the event loop's thread: a batch pays one such wait per row
written with ``executemany``, one per statement with the store's own ``write_batch`` (all of a
batch's actions in one ``INSERT ... SELECT FROM json_each``). Here a thread stands in for the
event loop (pure Python for ``--busy-us`` microseconds, then a system call that lets the GIL
go, as a loop does between callbacks), and the same batches are written both ways: the row by
row insert of the server before 2 December 2026 (``executemany``, reproduced here) and the
store's ``write_batch``. The database holds ``--tables`` deals in progress with their actions,
so that a batch's rows land on pages all over the index, as in the server.

It then times batches of ``--ends`` deal ends (a table's record, its row, its next deal: one
group each, as a table hands them in), alone and beside the busy loop, in the same database:
each deal's log (the warm-up's actions and one whole deal more, so longer than a real deal's)
lies among the other tables'. The figures of the tree before (its log in rowid order, a
savepoint per group) come from running this script from a checkout of that tree, which it
imports (docs/SCALING.md section 5, 4 December 2026).

    .venv/bin/python bench/store_batch.py [--tables 1000] [--rows 60] [--batches 200] [--ends 3]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from server.net.app import SWITCH_INTERVAL  # noqa: E402
from server.rules.randplay import random_deal  # noqa: E402
from server.rules.records import record_of  # noqa: E402
from server.store import open_store  # noqa: E402
from server.store.base import now  # noqa: E402
from server.store.journal import op  # noqa: E402

_encode = msgspec.json.Encoder().encode
ROW_BY_ROW = (
    "INSERT INTO actions (table_id, deal_no, idx, action, created_at) VALUES (?, ?, ?, ?, ?)"
)


class Busy:
    """A thread that holds the GIL like a busy event loop: ``busy_us`` of Python, then a
    ``select`` with no timeout (a loop's poll), again and again."""

    def __init__(self, busy_us: float) -> None:
        self.busy = busy_us / 1e6
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import select

        while not self.stop.is_set():
            end = time.perf_counter() + self.busy
            x = 0
            while time.perf_counter() < end:
                x += 1
            select.select([], [], [], 0)

    def __enter__(self) -> Busy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


def setup(path: str, tables: int) -> tuple[Any, list[str], dict[str, int], list[Any]]:
    store = open_store(path)
    store.checkpoint_in_background()
    actions = record_of(random_deal(1, 0))["actions"]
    ids = [f"{random.getrandbits(64):016x}" for _ in range(tables)]
    for i, tid in enumerate(ids):
        rec = record_of(random_deal(i, i % 4))
        store.start_deal(tid, 1, rec["dealer"], [list(h) for h in rec["hands"]], rec["chien"])
    n = dict.fromkeys(ids, 0)
    return store, ids, n, actions


def measure(fn: Callable[[], None], batches: int) -> tuple[float, float]:
    """Mean wall and CPU (this thread) milliseconds per call of ``fn``."""
    t, c = time.perf_counter(), time.thread_time()
    for _ in range(batches):
        fn()
    return (time.perf_counter() - t) / batches * 1e3, (time.thread_time() - c) / batches * 1e3


def main() -> None:
    sys.setswitchinterval(SWITCH_INTERVAL)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=1000, help="deals in progress")
    ap.add_argument("--rows", type=int, default=60, help="actions per batch")
    ap.add_argument("--batches", type=int, default=200, help="batches per figure")
    ap.add_argument("--busy-us", type=float, default=1000.0, help="the loop's stretch of Python")
    ap.add_argument("--ends", type=int, default=3, help="deal ends per batch")
    args = ap.parse_args()
    if args.ends < 1 or args.rows < 1 or args.batches < 1:
        ap.error("--ends, --rows and --batches must be at least 1")
    random.seed(1)
    with tempfile.TemporaryDirectory() as tmp:
        store, ids, n, actions = setup(os.path.join(tmp, "bench.db"), args.tables)

        def picks() -> list[tuple[str, int, Any]]:
            out = []
            for tid in random.sample(ids, args.rows):
                out.append((tid, n[tid], actions[n[tid] % len(actions)]))
                n[tid] += 1
            return out

        def store_batch() -> None:
            groups = [[op("append_action", tid, 1, k, a)] for tid, k, a in picks()]
            assert store.write_batch(groups) == [None] * len(groups)

        def row_by_row() -> None:
            at = now()
            rows = [(tid, 1, k, _encode(a).decode(), at) for tid, k, a in picks()]
            conn = store.conn
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(ROW_BY_ROW, rows)
            conn.execute("COMMIT")

        for _ in range(args.batches):  # the index grows to its working size first
            store_batch()
        print(
            f"SQLite batch of {args.rows} actions of {args.tables} deals in progress, "
            f"{args.batches} batches per figure (ms per batch: wall / store thread CPU)"
        )
        figures: dict[str, tuple[float, float]] = {}
        for busy in (False, True):
            for name, fn in (
                ("row by row (executemany)", row_by_row),
                ("write_batch", store_batch),
            ):
                if busy:
                    with Busy(args.busy_us):
                        figures[f"{name}, busy loop"] = measure(fn, args.batches)
                else:
                    figures[name] = measure(fn, args.batches)
        for name, (wall, cpu) in figures.items():
            print(f"  {name:<40} {wall:8.2f} / {cpu:6.2f}")
        old = figures["row by row (executemany), busy loop"][0]
        new = figures["write_batch, busy loop"][0]
        print(f"  beside a busy loop, write_batch / row by row: wall x{new / old:.3f}")

        # Deal ends: every table's deal gets its whole log first, interleaved with the others'
        # as tables playing at once write them, then its record, row and next deal.
        for k in range(len(actions)):
            store.write_batch(
                [[op("append_action", tid, 1, n[tid] + k, actions[k])] for tid in ids]
            )
        seats = [{"guest": "bench"}, {"ai": "normal"}, {"ai": "normal"}, {"ai": "normal"}]
        rec = record_of(random_deal(1, 0))
        rec = msgspec.json.decode(msgspec.json.encode(rec))
        players = ["bench", None, None, None]
        left = list(ids)
        random.shuffle(left)

        def deal_ends() -> None:
            groups = []
            for _ in range(args.ends):
                tid = left.pop()
                groups.append(
                    [
                        op("record_deal", tid, 1, rec, players, rec["result"]["scores"],
                           seats=seats),
                        op("create_table", tid, "bench", {"deals": 5}),
                        op("start_deal", tid, 2, 1, rec["hands"], rec["chien"],
                           players=players),
                    ]
                )  # fmt: skip
            assert store.write_batch(groups) == [None] * len(groups)

        rounds = min(args.batches, len(ids) // (2 * args.ends))
        print(f"Batches of {args.ends} deal ends, {rounds} batches per figure (ms per batch)")
        quiet = measure(deal_ends, rounds)
        with Busy(args.busy_us):
            busy = measure(deal_ends, rounds)
        print(f"  {'write_batch':<40} {quiet[0]:8.2f} / {quiet[1]:6.2f}")
        print(f"  {'write_batch, busy loop':<40} {busy[0]:8.2f} / {busy[1]:6.2f}")
        store.close()


if __name__ == "__main__":
    main()

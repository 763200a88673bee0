"""The action log's write rate on each backend: how many accepted actions per second the store
can make durable, and the commit latency a table waits for before it may send an action's
events.

Each writer is a process with its own store doing what the server's journal does at low load:
one transaction per action (``Store.write_batch`` with one single-action group), back to back;
``--writers 2`` runs two processes at once (two workers sharing the database). SQLite in WAL
mode with ``synchronous=NORMAL`` (the server's settings: durable across a process crash), and
PostgreSQL with its defaults (``synchronous_commit=on``: durable across a power loss), and
PostgreSQL with ``synchronous_commit=off`` (set in the URL; an Atout crash loses nothing, a
database server crash the last few hundred milliseconds: the durability class of SQLite's
NORMAL), in the same run.

    flock /tmp/atout-bench.lock .venv/bin/python bench/action_log.py [--seconds 5] [--writers 2]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

ACTION = {"type": "play", "seat": 2, "card": "T21"}


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def writer(db: str, k: int, seconds: float, start: float, out: Any) -> None:
    from server.store import open_store

    store = open_store(db, busy_timeout=5.0)
    tid = f"bench-{os.getpid()}-{k}"
    store.start_deal(tid, 1, 0, [[], [], [], []], [])
    lat: list[float] = []
    while time.time() < start:
        time.sleep(0.001)
    end = start + seconds
    idx = 0
    while time.time() < end:
        t = time.perf_counter()
        (err,) = store.write_batch([[("append_action", (tid, 1, idx, ACTION), {})]])
        lat.append(time.perf_counter() - t)
        assert err is None, err
        idx += 1
    store.close()
    out.send((idx, lat))


def measure(db: str, writers: int, seconds: float) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    start = time.time() + 2.0  # every writer connected and ready
    pipes, procs = [], []
    for k in range(writers):
        a, b = ctx.Pipe()
        p = ctx.Process(target=writer, args=(db, k, seconds, start, b))
        p.start()
        pipes.append(a)
        procs.append(p)
    results = [a.recv() for a in pipes]
    for p in procs:
        p.join()
    n = sum(r[0] for r in results)
    lat = [x for r in results for x in r[1]]
    return {
        "writers": writers,
        "actions_per_s": round(n / seconds),
        "p50_ms": round(1000 * pct(lat, 0.5), 3),
        "p99_ms": round(1000 * pct(lat, 0.99), 3),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from helpers_pg import HOW_TO_GET_IT, PgServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        print(HOW_TO_GET_IT, file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="atout-log-")
    pg = PgServer(bindir, durable=True).start()
    rows = []
    try:
        from server.store import open_store

        sqlite_db = os.path.join(tmp, "bench.db")
        open_store(sqlite_db).close()
        open_store(pg.url()).close()
        for writers in (1, 2):
            nosync = pg.url() + "?options=-c%20synchronous_commit%3Doff"
            for name, db in (
                ("sqlite", sqlite_db),
                ("postgresql", pg.url()),
                ("pg-nosync", nosync),
            ):
                r = measure(db, writers, args.seconds)
                r["backend"] = name
                rows.append(r)
    finally:
        pg.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(rows))
    print(f"{'backend':11} {'writers':>7} {'actions/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
    for r in rows:
        print(f"{r['backend']:11} {r['writers']:>7} {r['actions_per_s']:>10} {r['p50_ms']:>8}"
              f" {r['p99_ms']:>8}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

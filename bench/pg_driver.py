"""Which PostgreSQL driver for the store: psycopg 3 (+ psycopg_pool) or asyncpg, measured.

The store's hot path is the action log: a table may not send an action's events before the
action is committed, so what matters is (1) commits per second for small transactions, (2) the
latency of one commit (p50, p99), and above all (3) the CPU the **event loop** spends per commit,
since one worker's loop on one core runs every table of that worker.

Three ways, same PostgreSQL server, same run, same transactions (an ``INSERT`` of one action as
``jsonb`` and ``COMMIT``; then batches of 32 inserts in one transaction, as the journal makes
under load):

- ``psycopg-thread``: a synchronous psycopg connection on one dedicated thread (the store's
  current architecture: the loop only hands the call over and gets a future back);
- ``psycopg-async``: psycopg's ``AsyncConnection`` on the loop;
- ``asyncpg``: asyncpg on the loop.

    flock /tmp/atout-bench.lock .venv/bin/python bench/pg_driver.py [--n 3000] [--url URL]

Without ``--url`` it starts a throw-away durable server (``fsync`` and ``synchronous_commit``
on, as in production) with ``tests/helpers_pg.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

SCHEMA = """
DROP TABLE IF EXISTS bench_actions;
CREATE TABLE bench_actions (table_id text, deal_no int, idx int, action jsonb NOT NULL,
    created_at text NOT NULL, PRIMARY KEY (table_id, deal_no, idx));
"""
ACTION = json.dumps({"type": "play", "seat": 2, "card": "T21"})
INSERT_PCT = "INSERT INTO bench_actions VALUES (%s, %s, %s, %s, %s)"
INSERT_DOLLAR = "INSERT INTO bench_actions VALUES ($1, $2, $3, $4::jsonb, $5)"
# A batch as one statement: one array per column (one JSON parameter)
UNNEST_PCT = (
    "INSERT INTO bench_actions SELECT * FROM jsonb_to_recordset(%s::jsonb)"
    " AS x(table_id text, deal_no int, idx int, action jsonb, created_at text)"
)
UNNEST_DOLLAR = (
    "INSERT INTO bench_actions SELECT * FROM jsonb_to_recordset($1::text::jsonb)"
    " AS x(table_id text, deal_no int, idx int, action jsonb, created_at text)"
)


_KEYS = ("table_id", "deal_no", "idx", "action", "created_at")


def columns(rs: list[tuple[Any, ...]]) -> list[str]:
    """A batch as one JSON array of row objects (one parameter, encoded once)."""
    import msgspec

    docs = [dict(zip(_KEYS, (*r[:3], msgspec.json.decode(r[3]), r[4]), strict=True)) for r in rs]
    return [msgspec.json.encode(docs).decode()]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def measure(
    name: str, one: Callable[[int, int], Awaitable[None]], n: int, batch: int
) -> dict[str, Any]:
    """``n`` transactions of ``batch`` inserts each, one after the other, from the loop."""
    RUN[0] += 1
    lat: list[float] = []
    loop_cpu0, cpu0, t0 = time.thread_time(), time.process_time(), time.perf_counter()
    for i in range(n):
        s = time.perf_counter()
        await one(i, batch)
        lat.append(time.perf_counter() - s)
    wall = time.perf_counter() - t0
    loop_cpu = time.thread_time() - loop_cpu0
    cpu = time.process_time() - cpu0
    return {
        "driver": name,
        "batch": f"{batch}{'u' if UNNEST[0] and batch > 1 else ''}",
        "tx_per_s": n / wall,
        "actions_per_s": n * batch / wall,
        "p50_ms": 1000 * statistics.median(lat),
        "p99_ms": 1000 * pct(lat, 0.99),
        "loop_cpu_us_per_tx": 1e6 * loop_cpu / n,
        "process_cpu_us_per_tx": 1e6 * cpu / n,
    }


UNNEST = [False]  # batches as one INSERT ... SELECT FROM unnest(arrays), not executemany
RUN = [0]  # bumped per measurement, so that no round meets another's keys


def rows(tag: str, i: int, batch: int) -> list[tuple[Any, ...]]:
    tid = f"{tag}-{RUN[0]}-{i}"
    return [(tid, 1, k, ACTION, "2026-07-01T12:00:00.000Z") for k in range(batch)]


async def psycopg_thread(url: str, n: int, batch: int) -> dict[str, Any]:
    import psycopg

    ex = concurrent.futures.ThreadPoolExecutor(1)
    conn = await asyncio.wrap_future(ex.submit(psycopg.connect, url))
    loop = asyncio.get_running_loop()

    def tx(i: int, b: int) -> None:
        with conn.transaction(), conn.cursor() as cur:
            if b == 1:
                cur.execute(INSERT_PCT, rows("pt", i, 1)[0])
            elif UNNEST[0]:
                cur.execute(UNNEST_PCT, columns(rows(f"pt{b}-", i, b)))
            else:
                cur.executemany(INSERT_PCT, rows(f"pt{b}-", i, b))

    async def one(i: int, b: int) -> None:
        fut = loop.create_future()

        def work() -> None:
            try:
                tx(i, b)
                loop.call_soon_threadsafe(fut.set_result, None)
            except BaseException as e:
                loop.call_soon_threadsafe(fut.set_exception, e)

        ex.submit(work)
        await fut

    try:
        return await measure("psycopg-thread", one, n, batch)
    finally:
        await asyncio.wrap_future(ex.submit(conn.close))
        ex.shutdown()


async def psycopg_async(url: str, n: int, batch: int) -> dict[str, Any]:
    import psycopg

    conn = await psycopg.AsyncConnection.connect(url)

    async def one(i: int, b: int) -> None:
        async with conn.transaction(), conn.cursor() as cur:
            if b == 1:
                await cur.execute(INSERT_PCT, rows("pa", i, 1)[0])
            elif UNNEST[0]:
                await cur.execute(UNNEST_PCT, columns(rows(f"pa{b}-", i, b)))
            else:
                await cur.executemany(INSERT_PCT, rows(f"pa{b}-", i, b))

    try:
        return await measure("psycopg-async", one, n, batch)
    finally:
        await conn.close()


async def asyncpg_loop(url: str, n: int, batch: int) -> dict[str, Any]:
    import asyncpg

    conn = await asyncpg.connect(url)

    async def one(i: int, b: int) -> None:
        async with conn.transaction():
            if b == 1:
                await conn.execute(INSERT_DOLLAR, *rows("ap", i, 1)[0])
            elif UNNEST[0]:
                await conn.execute(UNNEST_DOLLAR, *columns(rows(f"ap{b}-", i, b)))
            else:
                await conn.executemany(INSERT_DOLLAR, rows(f"ap{b}-", i, b))

    try:
        return await measure("asyncpg", one, n, batch)
    finally:
        await conn.close()


async def main_async(url: str, n: int) -> list[dict[str, Any]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        c.execute(SCHEMA)
    out = []
    ways = (psycopg_thread, psycopg_async, asyncpg_loop)
    for batch, count, unnest in ((1, n, False), (32, max(50, n // 8), False),
                                 (32, max(50, n // 8), True)):  # fmt: skip
        UNNEST[0] = unnest
        for rnd in range(2):  # interleaved twice: the machine is noisy
            for way in ways if rnd == 0 else reversed(ways):
                r = await way(url, count, batch)
                r["round"] = rnd
                out.append(r)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="an existing PostgreSQL database (default: a throw-away one)")
    ap.add_argument("--n", type=int, default=3000, help="transactions per driver and round")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    server = None
    url = args.url
    if url is None:
        from helpers_pg import HOW_TO_GET_IT, PgServer, find_bindir

        bindir = find_bindir()
        if bindir is None:
            print(HOW_TO_GET_IT, file=sys.stderr)
            return 2
        server = PgServer(bindir, durable=True).start()
        url = server.url()
    try:
        results = asyncio.run(main_async(url, args.n))
    finally:
        if server is not None:
            server.stop()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'driver':16} {'batch':>5} {'tx/s':>8} {'actions/s':>10} {'p50 ms':>7} {'p99 ms':>7}"
          f" {'loop CPU us/tx':>15} {'process CPU us/tx':>18}")  # fmt: skip
    for r in results:
        print(
            f"{r['driver']:16} {r['batch']:>5} {r['tx_per_s']:>8.0f} {r['actions_per_s']:>10.0f}"
            f" {r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f} {r['loop_cpu_us_per_tx']:>15.0f}"
            f" {r['process_cpu_us_per_tx']:>18.0f}"
        )
    _ = threading  # (thread_time measures the loop's own thread)
    return 0


if __name__ == "__main__":
    sys.exit(main())

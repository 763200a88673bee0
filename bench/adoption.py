"""Adoption time: how long a table is without a server after its worker dies.

Two worker processes with different host names share one database (SQLite, then PostgreSQL,
same run); a player plays at a table of the first with three AI; the first is killed with
SIGKILL; the player reconnects to the second with the seat token until it resumes the seat,
then plays on. Measured per run: SIGKILL to the seat resumed on the adopter, SIGKILL to the
first action accepted there, and the same minus the lease (``--heartbeat 0.2``: a lease of
3 s, the shortest), i.e. what adoption itself costs once the lease has run out (within one
heartbeat: the lease runs from the dead worker's last heartbeat, up to 0.2 s before the kill).

    flock /tmp/atout-bench.lock .venv/bin/python bench/adoption.py [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

LEASE = 3.0


async def one_run(db: str, tmp: Path) -> dict[str, float]:
    from helpers_server import is_event
    from test_cluster_adopt import _set_up

    one, two, ann = await _set_up(db, tmp)
    try:
        n0 = len(ann.accepted)
        killed = time.monotonic()
        one.signal(signal.SIGKILL)
        await ann.resume_somewhere([two.url], timeout=LEASE + 30)
        resumed = time.monotonic()
        if not await ann.play(lambda m: len(ann.accepted) > n0, timeout=30):
            raise RuntimeError("no action accepted after the resume")
        first = time.monotonic()
        assert await ann.play(is_event("deal_over"), timeout=60)
    finally:
        await one.stop()
        await two.stop()
        for c in ann.clients:
            await c.close()
    return {
        "kill_to_resumed_s": resumed - killed,
        "kill_to_first_action_s": first - killed,
        "after_lease_s": first - killed - LEASE,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from helpers_pg import HOW_TO_GET_IT, PgServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        print(HOW_TO_GET_IT, file=sys.stderr)
        return 2
    pg = PgServer(bindir, durable=True).start()
    tmp = Path(tempfile.mkdtemp(prefix="atout-adopt-"))
    results: dict[str, list[dict[str, float]]] = {"sqlite": [], "postgresql": []}
    try:
        import psycopg

        for k in range(args.runs):
            for backend in ("sqlite", "postgresql"):  # interleaved: the machine is noisy
                run_dir = tmp / f"{backend}-{k}"
                run_dir.mkdir()
                if backend == "sqlite":
                    db = str(run_dir / "atout.db")
                else:
                    name = f"adopt{k}"
                    with psycopg.connect(pg.url(), autocommit=True) as c:
                        c.execute(f"CREATE DATABASE {name}")
                    db = pg.url(name)
                results[backend].append(asyncio.run(one_run(db, run_dir)))
    finally:
        pg.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(results))
    print(f"lease {LEASE:g} s (--heartbeat 0.2); median of {args.runs} runs (min-max)")
    for backend, rows in results.items():
        parts = []
        for key in ("kill_to_resumed_s", "kill_to_first_action_s", "after_lease_s"):
            xs = [r[key] for r in rows]
            parts.append(f"{key} {statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})")
        print(f"{backend:11} " + ", ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What a journal batch of actions costs SQLite in each layout of the action log: SQLite's own
work, not a figure of the server (a prototype server with the append-only log did no better
at the AI pace of bench/load.py: docs/SCALING.md section 5, 7 December).

The server's log (SQLite migration 0004) is clustered on (table, deal, index), WITHOUT ROWID,
with a foreign key to its deal: a finished deal's actions are one range to delete, but a batch
of actions from many tables dirties one leaf page per table. This script writes what the
journal writes at 1,000 tables (batches of ``--groups`` tables' four actions each, one
``INSERT ... SELECT FROM json_each`` and its commit, WAL, ``synchronous=NORMAL``, as
``SqliteStore.write_batch`` does), ending deals as they reach 78 actions (their log deleted in
a transaction of their own, as ``record_deal`` does), in three layouts:

* ``clustered``: the server's table;
* ``clustered_nofk``: the same without the foreign key;
* ``append``: a rowid table in arrival order, nothing deleted at a deal's end (an append-only
  log would remove finished deals in bulk later: not counted here).

It prints the CPU of the writing thread per batch (the statement and its commit, a checkpoint
every 500 batches) and per deal-end transaction, each layout run ``--repeat`` times in turns,
medians, and the ratios to ``clustered``.

    .venv/bin/python bench/action_log_layout.py              # ~30 s
    .venv/bin/python bench/action_log_layout.py --page-size 1024
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import tempfile
import time

LAYOUTS = ("clustered", "clustered_nofk", "append")
INSERT = (
    "INSERT INTO actions (table_id, deal_no, idx, action, created_at)"
    " SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'),"
    " json_extract(value, '$[2]'), json_extract(value, '$[3]'), ? FROM json_each(?)"
)


def run(layout: str, args: argparse.Namespace) -> tuple[float, float]:
    """CPU ms per batch, CPU ms of deal ends per batch."""
    tmp = tempfile.mkdtemp(prefix="atout-log-layout-")
    try:
        c = sqlite3.connect(os.path.join(tmp, "x.db"), isolation_level=None)
        c.execute(f"PRAGMA page_size={args.page_size}")
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=NORMAL")
        c.execute("PRAGMA foreign_keys=ON")
        c.execute("PRAGMA cache_size=-65536")
        c.execute("PRAGMA wal_autocheckpoint=0")
        c.execute(
            "CREATE TABLE deals (table_id TEXT NOT NULL, deal_no INTEGER NOT NULL, x TEXT,"
            " PRIMARY KEY (table_id, deal_no))"
        )
        cols = (
            "table_id TEXT NOT NULL, deal_no INTEGER NOT NULL, idx INTEGER NOT NULL,"
            " action TEXT NOT NULL, created_at TEXT NOT NULL"
        )
        if layout == "append":
            c.execute(f"CREATE TABLE actions (seq INTEGER PRIMARY KEY, {cols})")
        else:
            fk = (
                ", FOREIGN KEY (table_id, deal_no) REFERENCES deals(table_id, deal_no)"
                if layout == "clustered"
                else ""
            )
            c.execute(
                f"CREATE TABLE actions ({cols}{fk}, PRIMARY KEY (table_id, deal_no, idx))"
                " WITHOUT ROWID"
            )
        rng = random.Random(args.seed)
        tables = [f"w0-{rng.getrandbits(64):016x}" for _ in range(args.tables)]
        deal = dict.fromkeys(tables, 1)
        n = dict.fromkeys(tables, 0)
        for t in tables:
            c.execute("INSERT INTO deals VALUES (?, 1, 'x')", (t,))
        action = json.dumps({"type": "play", "seat": 2, "card": "T21"})
        cpu = ends = 0.0
        for b in range(args.batches):
            rows = []
            for t in rng.sample(tables, args.groups):
                for _ in range(4):  # the human's action and three AI answers
                    rows.append((t, deal[t], n[t], action))
                    n[t] += 1
            payload = json.dumps(rows)
            t0 = time.thread_time()
            c.execute(INSERT, ("2026-12-07T00:00:00Z", payload))
            cpu += time.thread_time() - t0
            done = [t for t in tables if n[t] >= 78]
            if done:
                t0 = time.thread_time()
                c.execute("BEGIN IMMEDIATE")
                for t in done:
                    if layout != "append":
                        c.execute(
                            "DELETE FROM actions WHERE table_id = ? AND deal_no = ?", (t, deal[t])
                        )
                    deal[t] += 1
                    n[t] = 0
                    c.execute("INSERT INTO deals VALUES (?, ?, 'x')", (t, deal[t]))
                c.execute("COMMIT")
                ends += time.thread_time() - t0
            if b % 500 == 499:
                t0 = time.thread_time()
                c.execute("PRAGMA wal_checkpoint(PASSIVE)")
                cpu += time.thread_time() - t0
        c.close()
        return cpu / args.batches * 1e3, ends / args.batches * 1e3
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--groups", type=int, default=15, help="tables with actions in a batch")
    ap.add_argument("--batches", type=int, default=3000)
    ap.add_argument("--page-size", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(
        f"action_log_layout: {args.tables} tables, batches of {args.groups} tables x 4 actions, "
        f"{args.batches} batches, page size {args.page_size}; CPU ms of the writing thread"
    )
    figs: dict[str, list[tuple[float, float]]] = {lay: [] for lay in LAYOUTS}
    for _ in range(args.repeat):
        for lay in LAYOUTS:
            figs[lay].append(run(lay, args))
    base = statistics.median(b for b, _ in figs["clustered"])
    for lay in LAYOUTS:
        batch = statistics.median(b for b, _ in figs[lay])
        ends = statistics.median(e for _, e in figs[lay])
        print(
            f"  {lay:15} {batch:6.3f} ms per batch (x{batch / base:.2f}), "
            f"deal ends {ends:6.3f} ms per batch"
        )


if __name__ == "__main__":
    main()

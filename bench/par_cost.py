"""CPU time per deal of computing par (the reference bot replaying a deal's cards), against a
baseline measured in the same run: replaying the real deal's record through the rules engine.

    .venv/bin/python bench/par_cost.py --deals 300
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import msgspec

from server.players.par import par_of, review_deal
from server.rules import OVER, apply, legal_actions
from server.rules.deal import new_deal
from server.rules.randplay import random_from_legal
from server.rules.records import decode_record, record_of, replay_record


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=300)
    a = ap.parse_args()
    rng = random.Random(1)
    records = []
    for i in range(a.deals):
        st = new_deal(i, dealer=i % 4)
        while st.phase != OVER:
            st = apply(st, random_from_legal(legal_actions(st), rng))
        records.append(record_of(st))
    t = time.process_time()
    for r in records:
        replay_record(decode_record(msgspec.json.encode(r)))
    base = (time.process_time() - t) / len(records) * 1000
    t = time.process_time()
    for r in records:
        par_of(r, "heuristic")
    par = (time.process_time() - t) / len(records) * 1000
    t = time.process_time()
    for r in records:
        review_deal(r, "heuristic")
    review = (time.process_time() - t) / len(records) * 1000
    print(
        f"{len(records)} deals: replaying a record {base:.2f} ms CPU (baseline); "
        f"par (heuristic) {par:.2f} ms = {par / base:.1f}x; whole review {review:.2f} ms "
        f"= {review / base:.1f}x"
    )


if __name__ == "__main__":
    main()

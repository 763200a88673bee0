"""CPU time a deal's review costs the server's own threads (the GIL the event loop waits for),
against a baseline measured in the same run.

A review crosses the server's threads twice around the worker process that computes it
(server/players/service.py): the record is read from the store and sent to the worker, and
the answer is received and applied (ratings, par, figures) in one store transaction. Only those
server-side steps are timed here, not the worker's par. Two hand-offs, taking turns:

- ``dicts`` (the baseline, the hand-off before 6 December 2026): the record decoded on
  the store's thread, pickled as a dict, the par's record pickled back as a dict and encoded
  again to be stored;
- ``json`` (the server's): the record's stored JSON text passed on as it is and decoded in the
  worker, the par's record sent back as JSON (``msgspec.Raw``) and stored as it is.

    .venv/bin/python bench/review_cost.py --deals 300 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import msgspec

from server.players import ratings
from server.players.par import review_deal
from server.rules import OVER, apply, legal_actions, new_deal
from server.rules.cards import codes_of
from server.rules.randplay import random_from_legal
from server.rules.records import record_of
from server.store.sqlite import SqliteStore

SEATS = [{"guest": "gus"}, {"ai": "heuristic"}, {"ai": "heuristic"}, {"ai": "heuristic"}]


def _record_deals(store: SqliteStore, n: int, prefix: str, rng: random.Random) -> list[str]:
    """``n`` played deals stored and pending review, as the tables store them."""
    keys = []
    while len(keys) < n:
        tid = f"{prefix}{len(keys)}-{rng.randrange(10**9)}"
        store.create_table(tid, tid, {})
        st = new_deal(rng, rng.randrange(4))
        hands = [codes_of(h) for h in st.initial_hands]
        store.start_deal(tid, 1, st.dealer, hands, codes_of(st.chien), players=["gus"] + [None] * 3)
        n_actions = 0
        while st.phase != OVER:
            action = random_from_legal(legal_actions(st), rng)
            store.append_action(tid, 1, n_actions, action)
            n_actions += 1
            st = apply(st, action)
        rec = record_of(st)
        if rec["result"]["status"] != "played":
            continue
        scores = list(rec["result"]["scores"])
        store.record_deal(tid, 1, rec, ["gus"] + [None] * 3, scores, seats=SEATS)
        keys.append(tid)
    return keys


def _worker_answer(record: Any, as_dicts: bool) -> bytes:
    """What the worker process sends back (pickled), computed outside the timed part."""
    got = review_deal(record, "heuristic")
    if as_dicts and got["par"] is not None:
        got["par"]["record"] = msgspec.json.decode(bytes(got["par"]["record"]))
    return pickle.dumps(got)


def _server_side(store: SqliteStore, keys: list[str], as_dicts: bool) -> float:
    """The server threads' CPU per review, µs: reading and sending, receiving and applying."""
    spent = 0.0
    for tid in keys:
        t0 = time.thread_time()
        text = store.review_input(tid, 1)["record"]  # type: ignore[index]
        record = msgspec.json.decode(text) if as_dicts else text
        sent = pickle.dumps((record, "heuristic"))
        spent += time.thread_time() - t0
        answer = _worker_answer(pickle.loads(sent)[0], as_dicts)  # the worker's part
        t0 = time.thread_time()
        review = pickle.loads(answer)
        store.apply_review(tid, 1, review, ratings.rate)
        spent += time.thread_time() - t0
    return spent / len(keys) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=300, help="deals reviewed per round and mode")
    ap.add_argument("--rounds", type=int, default=3, help="rounds, the two modes taking turns")
    a = ap.parse_args()
    if a.deals < 1 or a.rounds < 1:
        ap.error("--deals and --rounds must be at least 1")
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(os.path.join(tmp, "review.db"))
        try:
            figures: dict[str, list[float]] = {"dicts": [], "json": []}
            for r in range(a.rounds):
                for mode in ("dicts", "json"):
                    keys = _record_deals(store, a.deals, f"{mode}{r}-", rng)
                    figures[mode].append(_server_side(store, keys, mode == "dicts"))
        finally:
            store.close()
    base = statistics.median(figures["dicts"])
    new = statistics.median(figures["json"])
    print(
        f"{a.deals} deals x {a.rounds} rounds, server threads' CPU per review (median): "
        f"dicts {base:.0f} µs (baseline), json {new:.0f} µs = x{new / base:.2f}"
    )
    print("  rounds, dicts:", ", ".join(f"{x:.0f}" for x in figures["dicts"]),
          "| json:", ", ".join(f"{x:.0f}" for x in figures["json"]))  # fmt: skip


if __name__ == "__main__":
    main()

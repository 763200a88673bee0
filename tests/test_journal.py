"""The journal's batching (server/store/journal.py): which queued groups a batch takes.

Actions go first: a batch takes every group of actions but at most SLOW_OPS_PER_BATCH other
writes, and a table whose group waits keeps its later groups waiting too (its writes reach the
database in order). The writes themselves are tested on real databases in tests/test_store.py;
here a recording store shows what each transaction held."""

from __future__ import annotations

import asyncio
from typing import Any

from server.store.journal import SLOW_OPS_PER_BATCH, Journal, _take, op


def action(table: str, n: int) -> Any:
    return op("append_action", table, 1, n, {"type": "play", "card": "C1"})


def record(table: str) -> Any:
    return op("record_deal", table, 1, {}, [None] * 4, [0, 0, 0, 0])


def queued(ops: list[Any], table: str | None) -> Any:
    return (ops, None, None, table)


def test_a_batch_takes_every_action_and_at_most_the_cap_of_other_writes() -> None:
    queue = [queued([record(f"r{i}")], f"r{i}") for i in range(40)]
    queue += [queued([action(f"a{i}", 0)], f"a{i}") for i in range(30)]
    batch, rest = _take(queue, 16)
    assert [g[3] for g in batch] == [f"r{i}" for i in range(16)] + [f"a{i}" for i in range(30)]
    assert [g[3] for g in rest] == [f"r{i}" for i in range(16, 40)]


def test_a_held_table_keeps_its_later_groups_in_order() -> None:
    # t's deal record waits, so its next deal's first action must wait behind it.
    queue = [queued([record("x")], "x"), queued([record("t")], "t")]
    queue += [queued([action("t", 0)], "t"), queued([action("u", 0)], "u")]
    queue += [queued([op("start_deal", "v", 2, 0, [], [])], "v")]
    batch, rest = _take(queue, 1)
    assert [g[3] for g in batch] == ["x", "u"]
    assert [(g[3], g[0][0][0]) for g in rest] == [
        ("t", "record_deal"),
        ("t", "append_action"),
        ("v", "start_deal"),
    ]


def test_a_group_larger_than_the_cap_still_goes_alone() -> None:
    big = queued([record("t")] * 40, "t")
    batch, rest = _take([big, queued([record("u")], "u")], 16)
    assert batch == [big] and len(rest) == 1
    batch, rest = _take(rest, 16)
    assert len(batch) == 1 and rest == []


def test_groups_of_actions_and_a_record_in_one_group_count_the_record() -> None:
    # A table's turn may append its last action and record the deal in one group.
    mixed = [queued([action(f"t{i}", 77), record(f"t{i}")], f"t{i}") for i in range(20)]
    batch, rest = _take(mixed, 16)
    assert len(batch) == 16 and len(rest) == 4


class RecordingStore:
    """A store whose transactions only record their groups; run() executes on the loop."""

    def __init__(self) -> None:
        self.batches: list[list[list[Any]]] = []

    def write_batch(self, groups: list[list[Any]], fences: Any = None) -> list[None]:
        self.batches.append(groups)
        return [None] * len(groups)

    async def run(self, fn: Any) -> Any:
        await asyncio.sleep(0)
        return fn(self)


async def test_the_journal_writes_actions_first_and_each_table_in_order() -> None:
    store = RecordingStore()
    journal = Journal(store)
    futs = []
    for i in range(3 * SLOW_OPS_PER_BATCH):  # many deals ending at once
        futs.append(journal.write([record(f"t{i}")], f"t{i}"))
        futs.append(journal.write([op("start_deal", f"t{i}", 2, 0, [], [])], f"t{i}"))
    for i in range(50):
        futs.append(journal.write([action(f"a{i}", 0)], f"a{i}"))
    assert await asyncio.gather(*futs) == [None] * len(futs)

    first = store.batches[0]
    assert sum(g[0][0] == "append_action" for g in first) == 50  # not behind the records
    for groups in store.batches:
        assert sum(1 for g in groups for o in g if o[0] != "append_action") <= SLOW_OPS_PER_BATCH
    written = [o for groups in store.batches for g in groups for o in g]
    assert len(written) == 6 * SLOW_OPS_PER_BATCH + 50
    for i in range(3 * SLOW_OPS_PER_BATCH):  # each table: its record, then its next deal
        mine = [o[0] for o in written if o[1][0] == f"t{i}"]
        assert mine == ["record_deal", "start_deal"]
    assert journal.batches == len(store.batches) >= 6

"""The journal's batching (server/store/journal.py): which queued groups a batch takes.

Actions go first: a batch takes every group of actions, then cheap groups (a table's row, a
new deal) with up to half of BATCH_COST, then deal records with the rest, oldest first, each
kind at least one group; a table whose group waits keeps its later groups waiting too (its
writes reach the database in order). The writes themselves are tested on real databases in
tests/test_store.py; here a recording store shows what each transaction held."""

from __future__ import annotations

import asyncio
from typing import Any

from server.store.journal import BATCH_COST, OP_COST, Journal, _Pending, cost, op


def action(table: str, n: int) -> Any:
    return op("append_action", table, 1, n, {"type": "play", "card": "C1"})


def record(table: str) -> Any:
    return op("record_deal", table, 1, {}, [None] * 4, [0, 0, 0, 0])


def save(table: str) -> Any:
    return op("create_table", table, table, {})


def deal(table: str) -> Any:
    return op("start_deal", table, 2, 0, [], [])


def queued(ops: list[Any], table: str | None) -> Any:
    return (ops, None, None, table)


def pending(*groups: Any) -> _Pending:
    p = _Pending()
    for g in groups:
        p.put(g)
    return p


def names(batch: list[Any]) -> list[tuple[str | None, str]]:
    return [(g[3], g[0][0][0]) for g in batch]


def test_a_batch_takes_every_action_then_cheap_writes_then_records_by_cost() -> None:
    rec, cheap = OP_COST["record_deal"], OP_COST["create_table"]
    q = pending(*(queued([record(f"r{i}")], f"r{i}") for i in range(40)))
    for i in range(30):
        q.put(queued([action(f"a{i}", 0)], f"a{i}"))
    for i in range(10):
        q.put(queued([save(f"s{i}")], f"s{i}"))
    batch = q.take(BATCH_COST)
    n_records = (BATCH_COST - 10 * cheap) // rec
    assert 10 * cheap <= BATCH_COST // 2 and n_records >= 1
    assert [g[3] for g in batch] == (
        [f"a{i}" for i in range(30)]
        + [f"s{i}" for i in range(10)]
        + [f"r{i}" for i in range(n_records)]
    )
    assert sum(cost(g[0]) for g in batch) <= BATCH_COST
    left = [g[3] for g in q.costly.values()]
    assert left == [f"r{i}" for i in range(n_records, 40)] and not q.light and not q.actions


def test_cheap_writes_do_not_wait_behind_a_wave_of_records() -> None:
    # A thousand deals end at once; a table then saves its row (a par was announced): its
    # players' moves wait in its inbox until it is stored, so it goes in the next batch.
    q = pending(*(queued([record(f"r{i}")], f"r{i}") for i in range(1000)))
    q.put(queued([save("t")], "t"))
    assert ("t", "create_table") in names(q.take(BATCH_COST))


def test_records_still_move_when_cheap_writes_keep_coming() -> None:
    q = pending(queued([record("r")], "r"))
    for i in range(500):
        q.put(queued([deal(f"d{i}")], f"d{i}"))
    batch = q.take(BATCH_COST)
    assert ("r", "record_deal") in names(batch)
    assert (
        sum(g[0][0][0] == "start_deal" for g in batch) == BATCH_COST // 2 // OP_COST["start_deal"]
    )


def test_a_held_table_keeps_its_later_groups_in_order() -> None:
    # t's deal record waits, so its next deal (and anything after it) must wait behind it.
    q = pending(queued([record("x")], "x"), queued([record("t")], "t"))
    q.put(queued([action("t", 77)], "t"))
    q.put(queued([deal("t")], "t"))
    q.put(queued([action("t", 0)], "t"))
    q.put(queued([action("u", 0)], "u"))
    assert names(q.take(OP_COST["record_deal"])) == [("u", "append_action"), ("x", "record_deal")]
    assert names(q.take(OP_COST["record_deal"])) == [("t", "record_deal")]
    # t's groups behind its record are queued once it is taken, up to its next non-action one
    assert names(q.take(BATCH_COST)) == [("t", "append_action"), ("t", "start_deal")]
    assert names(q.take(BATCH_COST)) == [("t", "append_action")]
    assert not q and not q.behind


def test_a_group_costlier_than_the_budget_still_goes_alone() -> None:
    big = queued([record("t")] * 40, "t")
    q = pending(big, queued([record("u")], "u"))
    assert q.take(BATCH_COST) == [big]
    assert names(q.take(BATCH_COST)) == [("u", "record_deal")]
    assert not q


def test_groups_without_a_table_count_as_one_table() -> None:
    q = pending(
        queued([record("a")], None), queued([save("b")], None), queued([action("c", 0)], None)
    )
    assert names(q.take(BATCH_COST)) == [(None, "record_deal")]
    assert names(q.take(BATCH_COST)) == [(None, "create_table")]
    assert names(q.take(BATCH_COST)) == [(None, "append_action")]


def test_an_action_and_a_record_in_one_group_count_the_record() -> None:
    # A table's turn may append its last action and record the deal in one group.
    mixed = [queued([action(f"t{i}", 77), record(f"t{i}")], f"t{i}") for i in range(20)]
    q = pending(*mixed)
    batch = q.take(BATCH_COST)
    assert len(batch) == BATCH_COST // (OP_COST["record_deal"]) and len(q.costly) == 20 - len(batch)


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
    for i in range(40):  # many deals ending at once
        futs.append(journal.write([record(f"t{i}")], f"t{i}"))
        futs.append(journal.write([deal(f"t{i}")], f"t{i}"))
    for i in range(50):
        futs.append(journal.write([action(f"a{i}", 0)], f"a{i}"))
    assert await asyncio.gather(*futs) == [None] * len(futs)

    first = store.batches[0]
    assert sum(g[0][0] == "append_action" for g in first) == 50  # not behind the records
    for groups in store.batches:
        assert sum(cost(g) for g in groups) <= BATCH_COST
    written = [o for groups in store.batches for g in groups for o in g]
    assert len(written) == 2 * 40 + 50
    for i in range(40):  # each table: its record, then its next deal
        mine = [o[0] for o in written if o[1][0] == f"t{i}"]
        assert mine == ["record_deal", "start_deal"]
    assert journal.batches == len(store.batches) >= 40 * OP_COST["record_deal"] // BATCH_COST


class ThreadStore(RecordingStore):
    """A recording store whose batches are written on another thread, as AsyncStore does."""

    def __init__(self, fail: BaseException | None = None) -> None:
        super().__init__()
        self.fail = fail

    def write_batch(self, groups: list[list[Any]], fences: Any = None) -> list[Any]:
        super().write_batch(groups, fences)
        return [self.fail] * len(groups)

    async def run(self, fn: Any) -> Any:
        return await asyncio.to_thread(fn, self)


async def test_then_runs_as_the_batch_is_delivered_before_its_future_resolves() -> None:
    # What a table does once its writes are stored (apply the moves, send the events) must
    # not wait for its task to resume a turn of the loop later.
    store = ThreadStore()
    journal = Journal(store)
    seen: list[tuple[str, Any, bool]] = []
    flushed: list[list[str]] = []
    journal.after_delivery = lambda: flushed.append([s[0] for s in seen])
    futs: dict[str, asyncio.Future[Any]] = {}

    def then(name: str) -> Any:
        def run(res: Any) -> None:
            seen.append((name, res, futs[name].done()))
            if name == "b":
                raise RuntimeError("a bug in what table b does next")

        return run

    for name in ("a", "b", "c"):
        futs[name] = journal.write([action(name, 0)], name, then(name))
    futs["d"] = journal.write([action("d", 0)], "d")  # no then: as before
    assert await asyncio.gather(*futs.values()) == [None] * 4
    # each then ran before its future was resolved, b's error did not stop c's,
    # and the output was flushed once, after all of them
    assert seen == [("a", None, False), ("b", None, False), ("c", None, False)]
    assert flushed == [["a", "b", "c"]]
    assert len(store.batches) == 1


async def test_then_gets_the_error_and_is_skipped_for_a_cancelled_wait() -> None:
    err = RuntimeError("disk full")
    journal = Journal(ThreadStore(fail=err))
    got: list[Any] = []
    first = journal.write([action("a", 0)], "a", got.append)
    gone = journal.write([action("b", 0)], "b", lambda res: got.append(("b", res)))
    gone.cancel()  # its task stopped waiting: nothing to do on its behalf
    assert await first is err
    assert got == [err]

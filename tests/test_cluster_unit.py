"""Cluster mode inside one test process: two worker Servers on free ports sharing one database
(SQLite, then PostgreSQL), to check the routing rules one by one (the real multi-process runs
are test_cluster.py and test_cluster_adopt.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fixtures_pg import database_bytes
from helpers_server import TIMEOUT, Client, create_table
from websockets.asyncio.client import connect

from server.cluster.worker import ClusterError, public_url, token_hash, worker_of
from server.config import Config
from server.net.app import Server
from server.store import is_postgres, open_registry
from server.store.aio import AsyncStore


@asynccontextmanager
async def worker(db: Path, n: int, **overrides: Any) -> AsyncIterator[Server]:
    settings: dict[str, Any] = {
        "port": 0,
        "think_delay": 0.0,
        "deal_pause": 0.0,
        "db": str(db),
        "worker_id": n,
        "heartbeat": 0.05,
        # None of these tests is about adoption (test_cluster_adopt.py is): on a loaded
        # machine a 3 s lease let the other worker adopt a table mid-test.
        "lease": 60.0,
    }
    settings.update(overrides)
    server = Server(Config(**settings), AsyncStore(str(db)))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def connect_url(url: str, name: str, *, hello: bool = True) -> Client:
    ws = await connect(url, subprotocols=["atout.v1"], max_size=None, open_timeout=TIMEOUT)  # type: ignore[list-item]
    c = Client(ws, name)
    if hello:
        w = await c.request({"type": "hello", "version": 1, "name": name})
        assert w["type"] == "welcome", w
    return c


async def eventually(check: Any, timeout: float = 5.0) -> Any:
    """Poll the async ``check`` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        got = await check()
        if got:
            return got
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


async def now(value: Any) -> Any:
    """``value`` as an awaitable, for :func:`eventually` over a synchronous check."""
    return value


async def not_(check: Any) -> bool:
    return not await check


def rows(db: Path | str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """A query (``?`` placeholders) on the shared database, SQLite or PostgreSQL."""
    if is_postgres(str(db)):
        import psycopg

        with psycopg.connect(str(db), autocommit=True) as c:
            cur = c.execute(sql.replace("?", "%s"), args)
            return [tuple(r) for r in cur.fetchall()] if cur.description else []
    conn = sqlite3.connect(db)
    try:
        out = conn.execute(sql, args).fetchall()
        conn.commit()
        return out
    finally:
        conn.close()


def test_helpers() -> None:
    assert worker_of("w12-abc") == 12
    assert worker_of("abc") is None and worker_of("w-abc") is None
    assert public_url(None, 3, "127.0.0.1", 9000) == "ws://127.0.0.1:9000/"
    assert public_url(None, 3, "::1", 9000) == "ws://[::1]:9000/"
    assert public_url("wss://t.example/w/{worker}", 3, "0.0.0.0", 9000) == "wss://t.example/w/3"
    assert len(token_hash("x")) == 64


async def test_routing_between_two_workers(db: str) -> None:
    async with worker(db, 0) as a, worker(db, 1) as b:
        url_a = f"ws://127.0.0.1:{a.port}/"
        assert a.cluster is not None and a.cluster.url == url_a
        ca = await Client.connect(a.port, "Ada")
        cb = await Client.connect(b.port, "Bob")
        created = await ca.request({"type": "create_table", "name": "A's", "deals": 1})
        info = created["table"]
        tid = info["table"]
        assert tid.startswith("w0-") and info["url"] == url_a
        await eventually(lambda: now(rows(db, "SELECT worker, closed_at FROM table_owner")))
        assert rows(db, "SELECT table_id, worker, closed_at FROM table_owner") == [(tid, 0, None)]

        # Every request about A's table, sent to B, names A's URL.
        redirect = {"url": url_a, "worker": 0, "table": tid}
        for req in (
            {"type": "join", "table": tid, "seat": 1},
            {"type": "watch", "table": tid},
            {"type": "start", "table": tid},
            {"type": "play", "table": tid, "card": "EX"},
        ):
            e = await cb.request(req)
            assert e["type"] == "error" and e["code"] == "wrong_worker", e
            assert e["details"] == redirect and url_a in e["message"]
        e = await cb.request({"type": "join", "table": "w1-nothere"})
        assert e["code"] == "no_such_table"

        # B lists A's table (as of A's last heartbeat) with A's URL; A lists it too.
        async def listed_on_b() -> list[dict[str, Any]]:
            r = await cb.request({"type": "list_tables"})
            return [t for t in r["tables"] if t["table"] == tid]

        (on_b,) = await eventually(listed_on_b)
        assert on_b["url"] == url_a and on_b["name"] == "A's"
        on_a = (await ca.request({"type": "list_tables"}))["tables"]
        assert [t["url"] for t in on_a if t["table"] == tid] == [url_a]

        # Seat tokens: redirected by resume and by hello, stored only as a hash.
        joined = await ca.join(tid, 0)
        token = joined["token"]
        await eventually(
            lambda: now(
                rows(db, "SELECT 1 FROM token_owner WHERE token_hash = ?", token_hash(token))
            )
        )
        assert token.encode() not in database_bytes(db)
        e = await cb.request({"type": "resume", "token": token})
        assert e["code"] == "wrong_worker" and e["details"] == redirect
        fresh = await Client.connect(b.port, "Ada", hello=False)
        e = await fresh.request({"type": "hello", "version": 1, "name": "Ada", "token": token})
        assert e["code"] == "wrong_worker" and e["details"] == redirect
        w = await fresh.request({"type": "hello", "version": 1, "name": "Ada"})
        assert w["type"] == "welcome"  # the connection carries on after the redirect
        e = await cb.request({"type": "resume", "token": "not-a-token"})
        assert e["code"] == "bad_token"

        # Following the redirect works: the resumed seat is there.
        follow = await connect_url(url_a, "Ada", hello=False)
        w = await follow.request({"type": "hello", "version": 1, "name": "Ada", "token": token})
        assert w["type"] == "welcome" and w["resumed"] == {"table": tid, "seat": 0}

        await eventually(lambda: now(ca.is_closed))
        assert ca.closed_code == 4009  # its seat was resumed through the redirect

        # A left seat revokes the token everywhere.
        assert (await follow.request({"type": "leave", "table": tid}))["type"] == "ok"
        await eventually(
            lambda: now(
                not rows(db, "SELECT 1 FROM token_owner WHERE token_hash = ?", token_hash(token))
            )
        )
        e = await cb.request({"type": "resume", "token": token})
        assert e["code"] == "bad_token"

        # A closed table is gone for every worker, without a detour. (Resuming the creator's
        # seat made `follow` the creator: the table is abandoned once it has gone too.)
        await follow.close()
        await eventually(
            lambda: now(rows(db, "SELECT closed_at FROM table_owner WHERE table_id = ?", tid)[0][0])
        )
        e = await cb.request({"type": "join", "table": tid})
        assert e["code"] == "no_such_table"
        # and its last writes were made (not refused by its own fence)
        # (the row exists as "open" from the start: wait for the abandoning write itself)
        status = [("abandoned",)]
        await eventually(
            lambda: now(rows(db, "SELECT status FROM tables WHERE id = ?", tid) == status)
        )
        for c in (cb, fresh):
            await c.close()


async def test_stale_and_missing_registrations(db: str) -> None:
    async with worker(db, 0) as a, worker(db, 1) as b:
        ca = await Client.connect(a.port, "Ada")
        cb = await Client.connect(b.port, "Bob")
        tid = await create_table(ca, name="A's")

        async def listed_on_b() -> bool:
            r = await cb.request({"type": "list_tables"})
            return any(t["table"] == tid for t in r["tables"])

        await eventually(listed_on_b)
        # The prefix answers while the ownership row is not there (yet).
        rows(db, "DELETE FROM table_owner WHERE table_id = ?", tid)
        e = await cb.request({"type": "join", "table": tid})
        assert e["code"] == "wrong_worker" and e["details"]["worker"] == 0

        # A worker whose heartbeat stopped is ignored: not a redirect target, not listed.
        assert a.cluster is not None and a.cluster._beat is not None
        a.cluster._beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await a.cluster._beat
        await a.cluster._call("workers")  # a beat already handed to the registry thread
        # (one thread, in order) has landed once this read has run
        rows(db, "UPDATE workers SET heartbeat_at = heartbeat_at - 3600 WHERE worker = 0")
        e = await cb.request({"type": "join", "table": tid})
        assert e["code"] == "no_such_table"
        await eventually(lambda: not_(listed_on_b()))  # from B's next heartbeat on
        for c in (ca, cb):
            await c.close()


async def _stop_beating(server: Server) -> None:
    """Cancel a worker's heartbeat task (its lease then runs out; no beat of its own adopts)."""
    assert server.cluster is not None and server.cluster._beat is not None
    server.cluster._beat.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await server.cluster._beat
    await server.cluster._call("workers")  # a beat handed to the registry thread has landed


async def test_a_table_between_workers_is_moving_and_its_token_stays_good(db: str) -> None:
    async with worker(db, 0) as a, worker(db, 1) as b:
        ca = await Client.connect(a.port, "Ada")
        tid = await create_table(ca, name="A's", deals=1)
        token = (await ca.join(tid, 0))["token"]
        assert (await ca.request({"type": "start", "table": tid}))["type"] == "ok"
        key = token_hash(token)
        await eventually(
            lambda: now(rows(db, "SELECT 1 FROM token_owner WHERE token_hash = ?", key))
        )
        # A stops answering and its lease runs out; B has not adopted yet (its beats stopped).
        await _stop_beating(b)
        await _stop_beating(a)
        rows(db, "UPDATE workers SET heartbeat_at = heartbeat_at - 3600 WHERE worker = 0")
        assert b.cluster is not None
        b.cluster._wake.clear()

        cb = await Client.connect(b.port, "Bob")
        e = await cb.request({"type": "watch", "table": tid})
        assert e["code"] == "table_moving", e
        assert e["details"]["table"] == tid and e["details"]["retry_after"] > 0
        fresh = await Client.connect(b.port, "Ada", hello=False)
        e = await fresh.request({"type": "hello", "version": 1, "name": "Ada", "token": token})
        assert e["code"] == "table_moving" and e["details"]["table"] == tid, e
        e = await cb.request({"type": "resume", "token": token})
        assert e["code"] == "table_moving", e
        assert b.cluster._wake.is_set()  # B's heartbeat is woken to adopt at once

        # B's next beat adopts the table; the same token, sent again, resumes the seat there.
        await b.cluster._beat_once()
        assert b.cluster.adopted == 1 and tid in b.lobby.tables
        w = await fresh.request({"type": "hello", "version": 1, "name": "Ada", "token": token})
        assert w["type"] == "welcome" and w["resumed"] == {"table": tid, "seat": 0}, w
        assert rows(db, "SELECT worker FROM table_owner WHERE table_id = ?", tid) == [(1,)]
        for c in (ca, cb, fresh):
            await c.close()


async def test_a_worker_id_is_held_once(db: str) -> None:
    async with worker(db, 0) as a:
        twin = Server(Config(port=0, db=str(db), worker_id=0, heartbeat=0.05), AsyncStore(str(db)))
        assert twin.cluster is not None
        twin.cluster.pid = os.getppid()  # as if another live process (the same one is allowed)
        with pytest.raises(ClusterError, match="already registered"):
            await twin.start()
        with pytest.raises(OSError):  # the twin does not keep its port open
            await Client.connect(twin.port, "x")
        await twin.stop()
        assert rows(db, "SELECT worker, pid FROM workers") == [(0, a.cluster.pid)]  # type: ignore[union-attr]
    assert rows(db, "SELECT * FROM workers WHERE NOT stopped") == []  # deregistered on stop
    # A registration left by a dead process does not block the id.
    reg = open_registry(db)
    reg.register(0, "ws://gone/", 2**22 + 12345, "elsewhere", time.time() - 60, 3.0)
    reg.close()
    # its lease ran out an hour ago (PostgreSQL times leases by its own clock)
    rows(db, "UPDATE workers SET heartbeat_at = heartbeat_at - 3600 WHERE worker = 0")
    async with worker(db, 0):
        pass


async def test_without_worker_id_nothing_changes(db: str) -> None:
    settings = {"port": 0, "think_delay": 0.0, "deal_pause": 0.0, "db": str(db)}
    server = Server(Config(**settings), AsyncStore(str(db)))  # type: ignore[arg-type]
    assert server.cluster is None
    await server.start()
    try:
        c = await Client.connect(server.port, "Ada")
        r = await c.request({"type": "create_table"})
        assert "url" not in r["table"] and worker_of(r["table"]["table"]) is None
        await c.close()
    finally:
        await server.stop()
    if not is_postgres(db):  # (on PostgreSQL the registry comes with the store's migrations)
        tables = {r[0] for r in rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "workers" not in tables


async def test_another_hosts_new_table_is_listed_within_a_second(pg_url: str) -> None:
    """PostgreSQL pushes listing changes (LISTEN/NOTIFY): with heartbeats 10 s apart, a table
    created on one host is listed by another at once, not at its next heartbeat."""
    async with (
        worker(pg_url, 0, heartbeat=10.0, host_name="h1") as a,
        worker(pg_url, 1, heartbeat=10.0, host_name="h2") as b,
    ):
        assert a.cluster is not None and b.cluster is not None
        ca = await Client.connect(a.port, "Ada")
        cb = await Client.connect(b.port, "Bob")
        # both listeners listen (a NOTIFY before that is only seen at the next heartbeat)
        await eventually(lambda: now(a.cluster.listening.is_set() and b.cluster.listening.is_set()))
        tid = await create_table(ca, name="pushed")
        t0 = time.monotonic()

        async def listed_on_b() -> bool:
            r = await cb.request({"type": "list_tables"})
            return any(t["table"] == tid for t in r["tables"])

        await eventually(listed_on_b, timeout=5)
        assert time.monotonic() - t0 < 1.0
        for c in (ca, cb):
            await c.close()


async def test_tables_created_during_a_heartbeat_are_kept(db: str) -> None:
    """A table created while a heartbeat's ownership query is on its way is not taken for one
    another worker adopted (found by bench/load.py on a cluster: 'join: no_such_table')."""
    async with worker(db, 0, heartbeat=0.05) as a, worker(db, 1, heartbeat=0.05):
        assert a.cluster is not None and a.cluster._reg is not None
        reg = a.cluster._reg
        owned = reg.owned_tables

        def slow_owned(w: int) -> dict[str, int]:  # a slow database: a wide window
            time.sleep(0.05)
            return owned(w)

        reg.owned_tables = slow_owned  # type: ignore[method-assign]
        clients = [await Client.connect(a.port, f"p{k}") for k in range(4)]

        async def create_and_join(c: Client, k: int) -> None:
            for _ in range(15):
                tid = await create_table(c, name=f"t{k}", public=False)
                r = await c.request({"type": "join", "table": tid, "seat": 0})
                assert r["type"] == "joined", r
                assert (await c.request({"type": "leave", "table": tid}))["type"] == "ok"

        await asyncio.gather(*(create_and_join(c, k) for k, c in enumerate(clients)))
        assert a.cluster.lost == 0
        for c in clients:
            await c.close()


def test_the_lease_comes_from_the_options(tmp_path: Path) -> None:
    """``--lease`` (ATOUT_LEASE) sets how long a silent worker keeps its tables; without it the
    lease is five heartbeats, never under 3 s nor under two heartbeats."""
    from server.cli import build_parser

    def lease(*argv: str) -> float:
        args = build_parser().parse_args(["serve", "--db", str(tmp_path / "a.db"), *argv])
        server = Server(Config.from_args(args), AsyncStore(str(tmp_path / "a.db")))
        assert server.cluster is not None
        return server.cluster.stale_after

    assert lease("--worker-id", "0") == 10.0  # 5 x the default 2 s heartbeat
    assert lease("--worker-id", "0", "--heartbeat", "0.2") == 3.0
    assert lease("--worker-id", "0", "--heartbeat", "0.2", "--lease", "45") == 45.0
    assert lease("--worker-id", "0", "--heartbeat", "4", "--lease", "5") == 8.0


async def test_a_worker_stops_when_its_heartbeat_is_woken_as_it_is_cancelled(db: str) -> None:
    """stop() cancels the heartbeat task; when a wake-up lands in the same turn (another
    worker's notify, a table to adopt), Python 3.11's ``asyncio.wait_for`` returned the woken
    wait and swallowed the cancel, the heartbeat went on beating and stop() awaited it forever:
    the hang once seen in this file. Each way the wake-up can line up with the cancel."""
    for turns in range(4):
        async with worker(db, 0) as a:
            cluster = a.cluster
            assert cluster is not None
            for _ in range(1000):  # until the heartbeat waits to be woken
                if cluster._wake._waiters:  # type: ignore[attr-defined]
                    break
                await asyncio.sleep(0.005)
            assert cluster._wake._waiters  # type: ignore[attr-defined]
            cluster._wake.set()
            for _ in range(turns):
                await asyncio.sleep(0)
            stopping = asyncio.ensure_future(cluster.stop())
            done, _ = await asyncio.wait([stopping], timeout=5)
            if not done:  # cancel the heartbeat again, so that the test ends and fails
                assert cluster._beat is not None
                cluster._beat.cancel()
                await stopping
            assert done, f"stop() still waits for the heartbeat ({turns} turns after the wake)"

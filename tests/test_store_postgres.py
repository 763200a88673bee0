"""The PostgreSQL store's own behaviour, against a real server: its migrations and the
"written by a newer Atout" refusal, and its error mapping for real failures (a connection cut
by the server, the server down and back, a read-only server, a row lock held elsewhere, a full
disk reported by the server), each a typed, transient StoreError after which the store carries
on; backups with pg_dump. The behaviour both backends share is tested on both in
tests/test_store.py."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import psycopg
import pytest
from fixtures_pg import drop_database, new_database
from helpers_pg import PgServer, find_bindir

from server.rules.randplay import random_deal
from server.rules.records import record_of
from server.store import open_store
from server.store.aio import AsyncStore
from server.store.base import (
    StoreConflict,
    StoreDisconnected,
    StoreError,
    StoreFenced,
    StoreFull,
    StoreLocked,
    StoreReadOnly,
)
from server.store.postgres import MIGRATION_NAMES, PostgresStore, pg_error

PLAYERS = ["ann", None, "bob", None]


def played(seed: int, dealer: int = 0) -> dict[str, Any]:
    return msgspec.json.decode(msgspec.json.encode(record_of(random_deal(seed, dealer))))


def record(store: Any, table: str, deal_no: int, rec: dict[str, Any]) -> None:
    store.record_deal(table, deal_no, rec, PLAYERS, rec["result"]["scores"])


def admin(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True, options="-c default_transaction_read_only=off") as c:
        cur = c.execute(sql)
        return cur.fetchall() if cur.description else []


def test_migrations_and_a_newer_database(pg_server: PgServer) -> None:
    url = new_database(pg_server, migrated=False)
    try:
        s = PostgresStore(url)
        assert s.schema_version() == MIGRATION_NAMES
        s.close()
        s = PostgresStore(url)  # nothing applied twice
        assert s.schema_version() == MIGRATION_NAMES
        s.close()
        types = dict(
            admin(
                url,
                "SELECT table_name || '.' || column_name, data_type FROM information_schema.columns"
                " WHERE table_schema = 'public'"
                " AND column_name IN ('record', 'options', 'action', 'dealt', 'scores')",
            )
        )
        assert set(types.values()) == {"jsonb"}, types  # JSON as jsonb
        admin(url, "INSERT INTO atout_migrations VALUES (99, '9999_future', 'x')")
        with pytest.raises(StoreError, match="newer"):
            PostgresStore(url)
        ro = PostgresStore(url, readonly=True)  # reading stays possible (export, backup)
        assert ro.schema_version()[-1] == "9999_future"
        ro.close()
    finally:
        drop_database(pg_server, url)


def test_an_empty_database_is_not_an_atout_database_for_the_admin_commands(
    pg_server: PgServer,
) -> None:
    url = new_database(pg_server, migrated=False)
    try:
        with pytest.raises(StoreError, match="not an Atout database"):
            PostgresStore(url, readonly=True)
        assert admin(url, "SELECT to_regclass('deals')") == [(None,)]  # nothing created
    finally:
        drop_database(pg_server, url)


def test_a_password_never_shows(pg_server: PgServer) -> None:
    from server.store import describe

    assert describe("postgresql://u:s3cret@h:5/db") == "postgresql://u:***@h:5/db"
    with pytest.raises(StoreDisconnected) as err:
        PostgresStore(f"postgresql://atout:s3cret@127.0.0.1:{_closed_port()}/x", connect_timeout=1)
    assert "s3cret" not in str(err.value)


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_cut_connection_is_typed_and_the_store_reconnects(pg_url: str) -> None:
    s = PostgresStore(pg_url)
    record(s, "t1", 1, played(1))
    admin(pg_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
          " WHERE application_name = 'atout'")  # fmt: skip
    with pytest.raises(StoreDisconnected) as err:
        record(s, "t1", 2, played(2))
    assert err.value.transient and err.value.code == "storage_disconnected"
    record(s, "t1", 2, played(2))  # a new connection: the retried write goes through
    assert [d["meta"]["deal_no"] for d in s.deals()] == [1, 2]
    s.close()


def test_a_read_only_server_refuses_writes_then_recovers(pg_url: str) -> None:
    s = PostgresStore(pg_url)
    name = pg_url.rsplit("/", 1)[1]
    admin(pg_url, f"ALTER DATABASE {name} SET default_transaction_read_only = on")
    admin(pg_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
          " WHERE application_name = 'atout'")  # fmt: skip
    with pytest.raises(StoreError):
        s.create_table("t0", "x", {})  # the cut connection
    with pytest.raises(StoreReadOnly) as err:  # as a standby would answer
        s.create_table("t1", "x", {})
    assert err.value.transient and err.value.code == "storage_read_only"
    assert s.writable() is False
    assert s.table_scores("t1") == [0, 0, 0, 0]  # reads still work
    admin(pg_url, f"ALTER DATABASE {name} SET default_transaction_read_only = off")
    admin(pg_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
          " WHERE application_name = 'atout'")  # fmt: skip
    with pytest.raises(StoreDisconnected):
        s.create_table("t1", "x", {})
    s.create_table("t1", "x", {})
    assert s.writable() is True
    s.close()


def test_a_row_lock_held_elsewhere_times_out_as_locked(pg_url: str) -> None:
    s = PostgresStore(pg_url, busy_timeout=0.1)
    rec = played(1)
    s.start_deal("t1", 1, rec["dealer"], rec["hands"], rec["chien"])
    other = psycopg.connect(pg_url)
    other.execute("SELECT * FROM deals WHERE table_id = 't1' FOR UPDATE")
    try:
        with pytest.raises(StoreLocked) as err:
            s.append_action("t1", 1, 0, rec["actions"][0])
        assert err.value.transient and err.value.code == "storage_locked"
    finally:
        other.rollback()
        other.close()
    s.append_action("t1", 1, 0, rec["actions"][0])
    assert len(s.unfinished_deals()[0]["record"]["actions"]) == 1
    s.close()


def test_a_full_disk_and_a_serialization_failure_are_typed(pg_url: str) -> None:
    """The server's own errors (as it raises them when its disk is full, or when a
    serializable transaction loses), through the driver to the typed error."""
    s = PostgresStore(pg_url)
    admin(
        pg_url,
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
        " RAISE EXCEPTION 'could not extend file' USING ERRCODE = TG_ARGV[0]; END $$;"
        " CREATE TRIGGER disk BEFORE INSERT ON deals FOR EACH ROW"
        " EXECUTE FUNCTION refuse('disk_full')",
    )
    with pytest.raises(StoreFull) as full:
        record(s, "t1", 1, played(1))
    assert full.value.transient and full.value.code == "storage_full"
    admin(pg_url, "DROP TRIGGER disk ON deals; CREATE TRIGGER ser BEFORE INSERT ON deals"
          " FOR EACH ROW EXECUTE FUNCTION refuse('serialization_failure')")  # fmt: skip
    with pytest.raises(StoreLocked):
        record(s, "t1", 1, played(1))
    admin(pg_url, "DROP TRIGGER ser ON deals")
    record(s, "t1", 1, played(1))  # nothing half-written before: the deal counts once
    assert s.table_scores("t1") == played(1)["result"]["scores"]
    s.close()


def test_error_mapping_by_sqlstate() -> None:
    assert isinstance(pg_error(psycopg.errors.UniqueViolation("dup")), StoreConflict)
    assert isinstance(pg_error(psycopg.errors.DeadlockDetected("d")), StoreLocked)
    assert isinstance(pg_error(psycopg.errors.AdminShutdown("bye")), StoreDisconnected)
    assert isinstance(pg_error(psycopg.OperationalError("connection refused")), StoreDisconnected)


async def test_the_server_down_and_back(tmp_path: Path) -> None:
    """A write while the PostgreSQL server is stopped fails as storage_disconnected (quickly:
    the action log's few attempts); once it is back the same AsyncStore carries on."""
    bindir = find_bindir()
    assert bindir is not None
    server = PgServer(bindir).start()
    try:
        store = AsyncStore(server.url(), retry_initial=0.02, retry_max=0.1)
        rec = played(3)
        await store.create_table("t1", "x", {})
        await store.start_deal("t1", 1, rec["dealer"], rec["hands"], rec["chien"])
        await store.append_action("t1", 1, 0, rec["actions"][0])
        server.stop_server()
        with pytest.raises(StoreDisconnected):
            await store.append_action("t1", 1, 1, rec["actions"][1])
        assert await store.writable() is False
        server.start_server()
        await store.append_action("t1", 1, 1, rec["actions"][1])
        assert await store.writable() is True
        (entry,) = await store.unfinished_deals()
        assert entry["record"]["actions"] == rec["actions"][:2]
        await store.close()
    finally:
        server.stop()


def test_backup_with_pg_dump(pg_url: str, tmp_path: Path) -> None:
    s = open_store(pg_url)
    for i in range(3):
        record(s, "t1", i + 1, played(i))
    dest = tmp_path / "atout.dump"
    umask = os.umask(0o022)  # others could read a file created with it
    try:
        s.backup(str(dest))
    finally:
        os.umask(umask)
    with pytest.raises(StoreError, match="exists"):
        s.backup(str(dest))
    s.close()
    listing = subprocess.run(
        [str(find_bindir() / "pg_restore"), "--list", str(dest)],  # type: ignore[operator]
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "TABLE DATA public deals" in listing and "TABLE DATA public actions" in listing
    assert [p.name for p in tmp_path.iterdir()] == ["atout.dump"]  # no temporary left
    assert dest.stat().st_mode & 0o777 == 0o600  # it holds the password hashes


def test_fences_refuse_a_stale_owner(pg_url: str) -> None:
    s = PostgresStore(pg_url)
    rec = played(1)
    ops = [("start_deal", ("t1", 1, rec["dealer"], rec["hands"], rec["chien"]), {})]
    # a new table's first write claims it at epoch 1
    assert s.write_batch([ops], [("t1", 7, 1)]) == [None]
    assert admin(pg_url, "SELECT worker, epoch FROM table_owner") == [(7, 1)]
    admin(pg_url, "UPDATE table_owner SET worker = 8, epoch = 2")  # adopted by worker 8
    act = [("append_action", ("t1", 1, 0, rec["actions"][0]), {})]
    (err,) = s.write_batch([act], [("t1", 7, 1)])
    assert isinstance(err, StoreFenced)
    assert s.unfinished_deals()[0]["record"]["actions"] == []  # nothing written
    assert s.write_batch([act], [("t1", 8, 2)]) == [None]
    s.close()


def test_the_async_store_runs_postgres_off_the_loop(pg_url: str) -> None:
    async def main() -> None:
        store = AsyncStore(pg_url)
        await store.create_table("t1", "x", {})
        assert await store.table_scores("t1") == [0, 0, 0, 0]
        await store.close()

    asyncio.run(main())


def test_session_settings_in_the_url_are_kept(pg_url: str) -> None:
    s = PostgresStore(pg_url + "?options=-c%20synchronous_commit%3Doff", busy_timeout=0.25)
    with s._connection().cursor() as cur:
        cur.execute("SHOW synchronous_commit")
        assert cur.fetchone() == ("off",)  # the host's choice
        cur.execute("SHOW lock_timeout")
        assert cur.fetchone() == ("250ms",)  # and Atout's own
    s.close()

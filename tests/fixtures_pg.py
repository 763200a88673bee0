"""The storage backends as fixtures: one real PostgreSQL server for the whole session
(tests/helpers_pg.py), a fresh database for each test that asks for one (a copy of a migrated
template: cheap), and ``db``, which runs a test once on SQLite and once on PostgreSQL.

Without PostgreSQL the PostgreSQL variants skip, saying how to get it; with
``ATOUT_REQUIRE_POSTGRES=1`` (set by .ci/run) they fail instead.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_pg import HOW_TO_GET_IT, PgServer, find_bindir

TEMPLATE = "atout_template"
_names = itertools.count(1)


def _no_postgres() -> None:
    if os.environ.get("ATOUT_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"ATOUT_REQUIRE_POSTGRES=1: {HOW_TO_GET_IT}", pytrace=False)
    pytest.skip(HOW_TO_GET_IT)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    bindir = find_bindir()
    if bindir is None:
        _no_postgres()
        raise AssertionError("unreachable")
    server = PgServer(bindir).start()
    try:
        import psycopg

        from server.store.postgres import PostgresStore

        with psycopg.connect(server.url(), autocommit=True) as c:
            c.execute(f"CREATE DATABASE {TEMPLATE}")
        PostgresStore(server.url(TEMPLATE)).close()  # migrated once; tests copy it
        yield server
    finally:
        server.stop()


def new_database(server: PgServer, *, migrated: bool = True) -> str:
    """A fresh database on ``server`` (a copy of the migrated template); its URL."""
    import psycopg

    name = f"t{os.getpid()}_{next(_names)}"
    with psycopg.connect(server.url(), autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {TEMPLATE}" if migrated else ""))
    return server.url(name)


def drop_database(server: PgServer, url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(server.url(), autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database for this test."""
    url = new_database(pg_server)
    yield url
    drop_database(pg_server, url)


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The ``--db`` of this test's store: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "atout.db")
    return str(request.getfixturevalue("pg_url"))


def database_bytes(db: str) -> bytes:
    """Everything a database holds, as bytes: the SQLite file and its WAL, or every row of
    every table of a PostgreSQL database as text (to check that a secret is nowhere)."""
    from server.store import is_postgres

    if not is_postgres(db):
        files = [Path(db), Path(f"{db}-wal")]
        return b"".join(f.read_bytes() for f in files if f.exists())
    import psycopg

    out = []
    with psycopg.connect(db, autocommit=True) as c:
        names = [
            r[0]
            for r in c.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            )
        ]
        for name in names:
            out += [str(r[0]) for r in c.execute(f'SELECT t::text FROM "{name}" t')]
    return "\n".join(out).encode()

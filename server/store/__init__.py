"""Persistence: the store interface and its two backends, the journal, the cluster registry.

- ``base``: the ``Store`` and ``Registry`` interfaces (``typing.Protocol``), typed errors,
  shared helpers;
- ``sqlite``: the embedded default (one file, WAL); ``postgres``: PostgreSQL, for several hosts
  (psycopg 3, chosen by measurement: docs/SCALING.md section 5);
- ``aio``: ``AsyncStore``, any backend off the event loop on one thread;
- ``journal``: batches the tables' durable writes into one transaction per loop turn;
- ``sqlite_registry`` / ``pg_registry``: the cluster's registry on each backend;
- ``copy``: ``atout-server migrate-db`` (a whole database from one backend to another).

:func:`open_store` and :func:`open_registry` choose the backend by the ``--db`` value: a path
(SQLite) or a ``postgresql://`` URL.

May import: ``server.rules``.
"""

from __future__ import annotations

from typing import Any

from server.store.base import Registry, Store, describe, is_postgres

__all__ = ["describe", "is_postgres", "open_registry", "open_store"]


def open_store(db: str, **options: Any) -> Store:
    """The store at ``db``: a SQLite path, or a ``postgresql://`` URL.

    Options: ``create=False`` (never create a missing SQLite file), ``readonly=True`` (no
    write, no migration: the admin commands), ``busy_timeout`` (seconds a write waits for a
    lock), and SQLite's ``synchronous``."""
    if is_postgres(db):
        from server.store.postgres import PostgresStore

        options.pop("synchronous", None)
        return PostgresStore(db, **options)
    from server.store.sqlite import SqliteStore

    return SqliteStore(db, **options)


def open_registry(db: str, **options: Any) -> Registry:
    """The cluster registry in the same database as the store."""
    if is_postgres(db):
        from server.store.pg_registry import PostgresRegistry

        return PostgresRegistry(db, **options)
    from server.store.sqlite_registry import SqliteRegistry

    return SqliteRegistry(db, **options)

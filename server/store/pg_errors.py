"""PostgreSQL errors as the store's typed errors (by SQLSTATE): used by the PostgreSQL store,
its registry and the players' adapter."""

from __future__ import annotations

import psycopg

from server.store.base import (
    StoreConflict,
    StoreDisconnected,
    StoreError,
    StoreFull,
    StoreIOError,
    StoreLocked,
    StoreReadOnly,
)

_BY_CLASS: dict[str, type[StoreError]] = {
    "08": StoreDisconnected,  # connection exception
    "53": StoreIOError,  # insufficient resources (53100 disk full: below)
    "58": StoreIOError,  # system error (I/O)
    "40": StoreLocked,  # transaction rollback: serialization failure, deadlock
    "23": StoreConflict,  # integrity constraint violation
}
_BY_STATE: dict[str, type[StoreError]] = {
    "53100": StoreFull,  # disk_full
    "25006": StoreReadOnly,  # read_only_sql_transaction (a standby, or read-only settings)
    "55P03": StoreLocked,  # lock_not_available (lock_timeout)
    "57014": StoreLocked,  # query_canceled (statement_timeout)
    "57P01": StoreDisconnected,  # admin_shutdown
    "57P02": StoreDisconnected,  # crash_shutdown
    "57P03": StoreDisconnected,  # cannot_connect_now (starting up, shutting down)
    "57P05": StoreDisconnected,  # idle_session_timeout
    "25P03": StoreDisconnected,  # idle_in_transaction_session_timeout
    "XX001": StoreIOError,  # data_corrupted
    "XX002": StoreIOError,  # index_corrupted
}


def pg_error(e: BaseException) -> StoreError:
    """The typed StoreError for a psycopg (or OS) error."""
    if isinstance(e, StoreError):
        return e
    if isinstance(e, psycopg.Error):
        state = e.sqlstate or ""
        cls = _BY_STATE.get(state) or _BY_CLASS.get(state[:2])
        if cls is None:
            # no SQLSTATE: the connection itself failed (refused, reset, closed)
            cls = StoreDisconnected if isinstance(e, psycopg.OperationalError) else StoreError
        text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return cls(f"{text} ({state or type(e).__name__})")
    if isinstance(e, OSError):
        return StoreIOError(str(e))
    return StoreError(str(e))

"""Server logs: human-readable text (the default) or one JSON object per line.

``atout-server serve --log-format json`` (or ``ATOUT_LOG_FORMAT=json``) writes lines like::

    {"ts": "2026-07-01T12:00:00.123Z", "level": "info", "logger": "atout.table",
     "msg": "table K4aBxlNChcs1 closed (abandoned)", "table": "K4aBxlNChcs1"}

``table`` and ``conn`` (the connection's session id) are added when known: each table's actor
task and each connection's handler task set them in a context variable, so every record logged
from there carries them without naming them; ``extra={"table": ..., "conn": ...}`` overrides.
A traceback goes in ``exc``.

Secrets: the server never logs a seat token (it keeps only their SHA-256 anyway), and the
``websockets`` library, which logs every frame at DEBUG (a ``hello`` carries a token), is kept at
INFO or above whatever ``--log-level`` says.
"""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

import msgspec

FORMATS = ("text", "json")

_table: ContextVar[str | None] = ContextVar("atout_log_table", default=None)
_conn: ContextVar[str | None] = ContextVar("atout_log_conn", default=None)
_encode = msgspec.json.Encoder(enc_hook=str).encode


def table_context(table_id: str | None) -> None:
    """Records logged from the current task (and the tasks it starts) name this table."""
    _table.set(table_id)
    _conn.set(None)


def connection_context(conn_id: str | None) -> None:
    """Records logged from the current task name this connection."""
    _conn.set(conn_id)


class ContextFilter(logging.Filter):
    """Adds ``table`` and ``conn`` to every record (None when unknown)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "table", None) is None:
            record.table = _table.get()
        if getattr(record, "conn", None) is None:
            record.conn = _conn.get()
        return True


def _ts(created: float) -> str:
    dt = datetime.fromtimestamp(created, UTC)
    return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        obj: dict[str, Any] = {
            "ts": _ts(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        table = getattr(record, "table", None)
        if table is not None:
            obj["table"] = table
        conn = getattr(record, "conn", None)
        if conn is not None:
            obj["conn"] = conn
        if record.exc_info:
            obj["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            obj["stack"] = self.formatStack(record.stack_info)
        return _encode(obj).decode()


class TextFormatter(logging.Formatter):
    """``TIME LEVEL LOGGER: MESSAGE [table=ID conn=ID]``."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        ids = [
            f"{k}={v}"
            for k in ("table", "conn")
            if (v := getattr(record, k, None)) is not None and f"{v}" not in record.getMessage()
        ]
        if not ids:
            return text
        head, nl, rest = text.partition("\n")  # after the message, before any traceback
        return f"{head} [{' '.join(ids)}]{nl}{rest}"


def setup(level: str = "info", fmt: str = "text", stream: TextIO | None = None) -> None:
    """Configure the root logger for the server (replacing its handlers)."""
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    numeric = getattr(logging, str(level).upper(), None)
    if not isinstance(numeric, int):
        numeric = logging.INFO
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(numeric)
    logging.getLogger("websockets").setLevel(max(numeric, logging.INFO))

"""Server logs: human-readable text (the default) or one JSON object per line.

``atout-server serve --log-format json`` (or ``ATOUT_LOG_FORMAT=json``) writes lines like::

    {"ts": "2026-07-01T12:00:00.123Z", "level": "info", "logger": "atout.table",
     "msg": "table K4aBxlNChcs1 closed (abandoned)", "table": "K4aBxlNChcs1"}

``table`` and ``conn`` (the connection's session id) are added when known: each table's actor
task and each connection's handler task set them in a context variable, so every record logged
from there carries them without naming them; ``extra={"table": ..., "conn": ...}`` overrides.
A traceback goes in ``exc``. Structured data goes in ``extra={"fields": {KEY: value}}``: each
a field of its own in JSON, ``KEY=<JSON>`` after the message in text (never a Python repr).

Secrets: the server never logs a seat token (it keeps only their SHA-256 anyway), and the
``websockets`` library, which logs every frame at DEBUG (a ``hello`` carries a token), is kept at
INFO or above whatever ``--log-level`` says (WARNING unless the level is debug).

Worker processes (the strong AI's pool, the review worker: ``server.ai.runner.spawn_pool``) log
the same way: they run :func:`worker_logs` first, with the server's settings, so their
records, Python warnings and anything written to their ``sys.stderr`` reach the server's
standard error (which they share) as records of the same format, each naming the worker
(``"worker": "review 12345"``). Only what a child prints before that (multiprocessing's own
start-up, docs/OPERATIONS.md section 8) or below Python (a crash of the interpreter) stays
plain text.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import threading
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

import msgspec

from protocol.text import printable

FORMATS = ("text", "json")

_table: ContextVar[str | None] = ContextVar("atout_log_table", default=None)
_conn: ContextVar[str | None] = ContextVar("atout_log_conn", default=None)
_encode = msgspec.json.Encoder(enc_hook=str).encode
#: (level, format) of the last :func:`setup` in this process: what its worker processes use.
_current: tuple[str, str] | None = None


def table_context(table_id: str | None) -> None:
    """Records logged from the current task (and the tasks it starts) name this table."""
    _table.set(table_id)
    _conn.set(None)


def connection_context(conn_id: str | None) -> None:
    """Records logged from the current task name this connection."""
    _conn.set(conn_id)


class ContextFilter(logging.Filter):
    """Adds ``table`` and ``conn`` to every record (None when unknown), and ``worker`` in a
    worker process."""

    def __init__(self, worker: str | None = None) -> None:
        super().__init__()
        self.worker = worker

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "table", None) is None:
            record.table = _table.get()
        if getattr(record, "conn", None) is None:
            record.conn = _conn.get()
        if self.worker is not None:
            record.worker = self.worker
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
        worker = getattr(record, "worker", None)
        if worker is not None:
            obj["worker"] = worker
        for k, v in (getattr(record, "fields", None) or {}).items():
            obj.setdefault(k, v)  # structured data (extra={"fields": ...}), never a Python repr
        if record.exc_info:
            obj["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            obj["stack"] = self.formatStack(record.stack_info)
        return _encode(obj).decode()


class TextFormatter(logging.Formatter):
    """``TIME LEVEL LOGGER: MESSAGE [table=ID conn=ID]``."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        # A message may carry what a client sent (a request's path, a table's name): control
        # characters spelled out, newlines too, so that nothing reaches an operator's terminal
        # raw and a record is one line. A traceback, added after this, keeps its lines.
        return printable(super().formatMessage(record))

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        fields = getattr(record, "fields", None)
        if fields:  # as JSON after the message: KEY={...}
            head, nl, rest = text.partition("\n")
            data = " ".join(f"{k}={_encode(v).decode()}" for k, v in fields.items())
            text = f"{head} {data}{nl}{rest}"
        ids = [
            f"{k}={v}"
            for k in ("table", "conn", "worker")
            if (v := getattr(record, k, None)) is not None and f"{v}" not in record.getMessage()
        ]
        if not ids:
            return text
        head, nl, rest = text.partition("\n")  # after the message, before any traceback
        return f"{head} [{' '.join(ids)}]{nl}{rest}"


def setup(
    level: str = "info", fmt: str = "text", stream: TextIO | None = None, worker: str | None = None
) -> None:
    """Configure the root logger for the server (replacing its handlers); ``worker``: this is a
    worker process of the server, named so in every record (see :func:`setup_worker`)."""
    global _current
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    numeric = getattr(logging, str(level).upper(), None)
    if not isinstance(numeric, int):
        numeric = logging.INFO
    _current = (str(level), fmt)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(ContextFilter(worker))
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(numeric)
    # The library's own lines (a connection opened, closed; each HTTP answer, health checks
    # included: two lines a probe) only at debug level: atout.server says the same at info,
    # with the client's address and the connection's id, and the HTTP requests at debug.
    logging.getLogger("websockets").setLevel(
        logging.INFO if numeric <= logging.DEBUG else max(numeric, logging.WARNING)
    )


def current() -> tuple[str, str] | None:
    """The (level, format) this process's logs were set up with (None: never set up here)."""
    return _current


class _StderrRecords:
    """A worker's ``sys.stderr`` in JSON mode: each line written becomes a record of the
    ``atout.worker`` logger (level warning), so that a library's or a stray ``print`` to
    standard error does not put plain text into the server's JSON log."""

    encoding = "utf-8"
    errors = "backslashreplace"

    def __init__(self, real: TextIO) -> None:
        self._log = logging.getLogger("atout.worker")
        self._real = real
        self._buf = ""
        self._lock = threading.Lock()
        self._inside = threading.local()

    def _emit(self, lines: list[str]) -> None:
        if getattr(self._inside, "busy", False):
            # Written while logging (logging's own "--- Logging error ---" report when the
            # stream fails): straight to the stream, or a failing stream would loop forever.
            with contextlib.suppress(Exception):
                self._real.write("".join(f"{x}\n" for x in lines))
            return
        self._inside.busy = True
        try:
            for line in lines:
                if line.strip():
                    self._log.warning("%s", line.rstrip())
        finally:
            self._inside.busy = False

    def write(self, text: str) -> int:
        with self._lock:
            self._buf += text
            *lines, self._buf = self._buf.split("\n")
        if lines:
            self._emit(lines)
        return len(text)

    def flush(self) -> None:
        with self._lock:
            line, self._buf = self._buf, ""
        if line:
            self._emit([line])

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True


def setup_worker(settings: tuple[str, str] | None, role: str) -> None:
    """In a worker process spawned by the server (its pool initializer): log like the server
    (``settings``: the server's :func:`current`; None leaves logging as it is), each record
    naming the worker (``role`` and its process id). Python warnings and uncaught exceptions of
    its threads go through the log; in JSON format so does anything written to ``sys.stderr``."""
    if settings is None:
        return
    level, fmt = settings
    name = f"{role} {os.getpid()}"
    setup(level, fmt, stream=sys.stderr, worker=name)
    logging.captureWarnings(True)
    worker_log = logging.getLogger("atout.worker")

    def thread_failed(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        thread = args.thread.name if args.thread is not None else "?"
        worker_log.error(
            "uncaught exception in thread %s",
            thread,
            exc_info=args.exc_value,
        )

    threading.excepthook = thread_failed
    if fmt == "json":
        # The handler keeps the real stream; only other writers see the wrapper.
        sys.stderr = _StderrRecords(sys.stderr)


def worker_logs(role: str) -> Callable[[], None]:
    """What a worker process of this server runs first (picklable: ``server.ai.runner``'s
    pools take it): :func:`setup_worker` with this process's settings, taken now."""
    return functools.partial(setup_worker, current(), role)

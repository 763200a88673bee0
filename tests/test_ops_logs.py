"""Structured logs: ``--log-format json`` (or ATOUT_LOG_FORMAT) gives one JSON object per line
with ts, level, logger, msg, and the table and connection ids where known; the default stays
human-readable text; no seat token ever reaches the logs, even at debug level."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_server import Client, autoplay, create_table, is_event, running_server, table_finished

from server.cli import build_parser
from server.ops.logs import connection_context, setup, table_context

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    ws_level = logging.getLogger("websockets").level
    yield
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)
    logging.getLogger("websockets").setLevel(ws_level)


def test_the_option_and_its_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATOUT_LOG_FORMAT", raising=False)
    assert build_parser(with_admin=False).parse_args(["serve"]).log_format == "text"
    args = build_parser(with_admin=False).parse_args(["serve", "--log-format", "json"])
    assert args.log_format == "json"
    monkeypatch.setenv("ATOUT_LOG_FORMAT", "json")
    assert build_parser(with_admin=False).parse_args(["serve"]).log_format == "json"
    # A bad variable is refused by the parser, naming it (argparse checks no default against
    # its choices: this one reached the server, which failed on it).
    monkeypatch.setenv("ATOUT_LOG_FORMAT", "jsn")
    with pytest.raises(SystemExit):
        build_parser(with_admin=False).parse_args(["serve"])
    with pytest.raises(SystemExit):
        build_parser(with_admin=False).parse_args(["serve", "--log-format", "xml"])


async def test_json_lines_carry_the_table_and_connection(restore_logging: None) -> None:
    out = io.StringIO()
    setup("info", "json", out)
    log = logging.getLogger("atout.test")

    async def a_table() -> None:
        table_context("T1")
        log.info("in the table's task")

    async def a_connection() -> None:
        connection_context("c0ffee")
        log.warning("in the connection's task: %d", 42)
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("it failed")

    await asyncio.gather(asyncio.create_task(a_table()), asyncio.create_task(a_connection()))
    log.info("outside", extra={"table": "T2"})
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(x["level"], x["msg"], x.get("table"), x.get("conn")) for x in lines] == [
        ("info", "in the table's task", "T1", None),
        ("warning", "in the connection's task: 42", None, "c0ffee"),
        ("error", "it failed", None, "c0ffee"),
        ("info", "outside", "T2", None),
    ]
    assert all(x["logger"] == "atout.test" and x["ts"].endswith("Z") for x in lines)
    assert "ValueError: boom" in lines[2]["exc"]


async def test_text_is_the_default_and_names_the_table(restore_logging: None) -> None:
    out = io.StringIO()
    setup("info", "text", out)

    async def a_table() -> None:
        table_context("T1")
        logging.getLogger("atout.test").info("dealt")

    await asyncio.create_task(a_table())
    (line,) = out.getvalue().splitlines()
    assert line.endswith(" INFO atout.test: dealt [table=T1]")


def test_text_logs_spell_out_what_a_client_sent(restore_logging: None) -> None:
    """A request's path or a table's name reaches the log as sent: control characters (a
    terminal's escapes) and newlines (a forged second record) are spelled out in the text
    format (review); a traceback keeps its lines."""
    out = io.StringIO()
    setup("debug", "text", out)
    log = logging.getLogger("atout.test")
    log.debug("HTTP GET %s from %s", "/\x1b]0;owned\x07\x1b[2J", "1.2.3.4\nFAKE INFO line")
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("table %s failed", "T\x1b[31m1")
    lines = out.getvalue().splitlines()
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
    assert lines[0].endswith(
        "HTTP GET /\\u001b]0;owned\\u0007\\u001b[2J from 1.2.3.4\\u000aFAKE INFO line"
    )
    assert "T\\u001b[31m1" in lines[1] and lines[2].startswith("Traceback")


async def test_a_debug_run_never_logs_a_token(restore_logging: None) -> None:
    out = io.StringIO()
    setup("debug", "json", out)
    assert logging.getLogger("websockets").getEffectiveLevel() == logging.INFO  # frames stay out
    async with running_server(absent_wait=30.0, grace=30.0) as srv:
        c = await Client.connect(srv.port, "ann")
        tid = await create_table(c, deals=1)
        await c.join(tid, seat=1)
        await c.request({"type": "start", "table": tid})
        await autoplay(c, tid, random.Random(8), is_event("trick", number=2))
        token = c.token
        assert token is not None
        await c.close()
        # back with the token, in a hello and in a resume; and a wrong token
        c2 = await Client.connect(srv.port, "ann", hello=False)
        hello = {"type": "hello", "version": 1, "name": "ann", "token": token}
        assert (await c2.request(hello))["type"] == "welcome"
        c4 = await Client.connect(srv.port, "eve")
        assert (await c4.request({"type": "resume", "token": token + "x"}))["code"] == "bad_token"
        c3 = await Client.connect(srv.port, "ann")
        assert (await c3.request({"type": "resume", "token": token}))["type"] == "joined"
        await autoplay(c3, tid, random.Random(9), table_finished)
    text = out.getvalue()
    lines = [json.loads(line) for line in text.splitlines()]
    assert len(lines) > 10 and {x["level"] for x in lines} >= {"debug", "info"}
    assert any(x.get("table") == tid for x in lines)
    assert any(x.get("conn") for x in lines)
    assert token not in text


async def test_connections_are_logged_once_each_and_health_checks_not_at_all(
    restore_logging: None,
) -> None:
    """At info level a connection is one line when it opens (with the client's address) and one
    when it closes (who closed it, the code), both naming it; a health check or a scrape
    writes nothing (the library wrote two lines each, with neither path nor address). At debug
    level the HTTP requests are there, with their path, the browser client's files included."""
    import urllib.request

    for level in ("info", "debug"):
        out = io.StringIO()
        setup(level, "json", out)
        async with running_server() as srv:
            for path in ("/healthz", "/metrics", "/", "/js/app.js"):
                url = f"http://127.0.0.1:{srv.port}{path}"
                await asyncio.to_thread(lambda u=url: urllib.request.urlopen(u, timeout=5).read())
            c = await Client.connect(srv.port, "ann")
            await c.close()
            deadline = asyncio.get_running_loop().time() + 10
            while "connection closed" not in out.getvalue():
                assert asyncio.get_running_loop().time() < deadline, out.getvalue()
                await asyncio.sleep(0.02)
        lines = [json.loads(x) for x in out.getvalue().splitlines()]
        opened = [x for x in lines if x["msg"] == "connection from 127.0.0.1 opened"]
        closed = [x for x in lines if x["msg"] == "connection closed by the client (1000)"]
        assert len(opened) == len(closed) == 1, lines
        assert opened[0]["conn"] == closed[0]["conn"] and opened[0]["logger"] == "atout.server"
        http = [x["msg"] for x in lines if x["logger"] == "atout.server" and "HTTP" in x["msg"]]
        library = [x for x in lines if x["logger"].startswith("websockets")]
        if level == "info":
            assert http == [] and library == [], lines
        else:
            # the browser client's files too: they returned before the line was written
            assert http == [
                "HTTP GET /healthz from 127.0.0.1: 200",
                "HTTP GET /metrics from 127.0.0.1: 200",
                "HTTP GET / from 127.0.0.1: 200",
                "HTTP GET /js/app.js from 127.0.0.1: 200",
            ], http


# -- worker processes ---------------------------------------------------------------------

_WORKER_TASK = '''
import logging, sys, threading, warnings


def noisy() -> int:
    """What a worker may write: a record, a Python warning, a stray line on standard error,
    a thread dying of an exception."""
    import os

    logging.getLogger("atout.ai").warning("a record from the worker")
    warnings.warn("a warning in the worker", RuntimeWarning, stacklevel=1)
    print("a stray line", file=sys.stderr)
    sys.stderr.write("two lines\\nin one write\\n")

    def fail() -> None:
        raise ValueError("boom in a thread")

    t = threading.Thread(target=fail, name="doomed")
    t.start()
    t.join()
    sys.stderr.flush()
    return os.getpid()
'''

_WORKER_MAIN = """
import sys

from server.ai.runner import spawn_pool
from server.ops.logs import setup, worker_logs

if __name__ == "__main__":
    sys.path.insert(0, sys.argv[2])
    import task

    setup("info", sys.argv[1])
    pool = spawn_pool(1, setup=worker_logs("review"))
    print(pool.submit(task.noisy).result(timeout=60))
    pool.shutdown()
"""


def _run_worker(tmp_path: Path, fmt: str) -> tuple[int, list[str]]:
    """A process that logs in ``fmt`` and spawns a worker that writes every kind of thing to
    standard error (which it shares with its parent, as in the server); the worker's pid and
    the lines of standard error."""
    (tmp_path / "task.py").write_text(_WORKER_TASK)
    main = tmp_path / "main.py"
    main.write_text(_WORKER_MAIN)
    proc = subprocess.run(
        [sys.executable, str(main), fmt, str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return int(proc.stdout.strip()), proc.stderr.splitlines()


def test_a_worker_process_logs_json_like_the_server(tmp_path: Path) -> None:
    """Everything a review or AI worker writes reaches the server's JSON log as records that
    name the worker: its records, Python warnings, stray lines, a thread's traceback."""
    pid, lines = _run_worker(tmp_path, "json")
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            pytest.fail(f"a line of standard error is not JSON: {line!r}\n" + "\n".join(lines))
    assert all(r["worker"] == f"review {pid}" for r in records), records
    got = {(r["level"], r["logger"], r["msg"]) for r in records}
    assert ("warning", "atout.ai", "a record from the worker") in got
    assert ("warning", "atout.worker", "a stray line") in got
    assert ("warning", "atout.worker", "two lines") in got
    assert ("warning", "atout.worker", "in one write") in got
    (warned,) = [r for r in records if r["logger"] == "py.warnings"]
    assert "RuntimeWarning: a warning in the worker" in warned["msg"]
    (died,) = [r for r in records if r["level"] == "error"]
    assert died["msg"] == "uncaught exception in thread doomed"
    assert "ValueError: boom in a thread" in died["exc"]


def test_a_worker_process_logs_text_like_the_server(tmp_path: Path) -> None:
    """In the text format a worker's records carry its name; stray lines stay as written."""
    pid, lines = _run_worker(tmp_path, "text")
    (rec,) = [x for x in lines if "a record from the worker" in x]
    assert rec.endswith(f" WARNING atout.ai: a record from the worker [worker=review {pid}]")
    assert "a stray line" in lines
    assert any(
        f"ERROR atout.worker: uncaught exception in thread doomed [worker=review {pid}]" in x
        for x in lines
    )


@pytest.mark.parametrize("fmt", ["json", "text"])
async def test_a_created_table_logs_its_options_as_json(restore_logging: None, fmt: str) -> None:
    """The line held a Python dict's repr ({'public': False, 'turn_timer': None}), which a
    log collector cannot parse, inside the JSON `msg`."""
    out = io.StringIO()
    setup("info", fmt, out)
    async with running_server() as srv:
        c = await Client.connect(srv.port, "ann")
        tid = await create_table(c, deals=2, name="doc client")
        await c.close()
    (line,) = [x for x in out.getvalue().splitlines() if "created by" in x]
    if fmt == "json":
        rec = json.loads(line)
        assert rec["msg"].startswith(f"table {tid} created by ") and "{" not in rec["msg"]
        options = rec["options"]
    else:
        text = line.partition(" options=")[2].rpartition(" [")[0] or line.partition(" options=")[2]
        options = json.loads(text)
    assert options["name"] == "doc client" and options["deals"] == 2
    assert "public" in options and "False" not in line and "None" not in line

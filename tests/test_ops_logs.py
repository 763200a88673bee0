"""Structured logs: ``--log-format json`` (or ATOUT_LOG_FORMAT) gives one JSON object per line
with ts, level, logger, msg, and the table and connection ids where known; the default stays
human-readable text; no seat token ever reaches the logs, even at debug level."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
from collections.abc import Iterator

import pytest
from helpers_server import Client, autoplay, create_table, is_event, running_server, table_finished

from server.cli import build_parser
from server.ops.logs import connection_context, setup, table_context


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

"""Nothing about accounts leaks (issue 12, section 5): player keys, passwords and password
hashes never appear in logs (at debug level), listings, snapshots and events, errors, metrics,
admin exports and scores, or the database (only hashes of keys are stored); a key appears only
in the `account` answer that hands it out."""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_server import Client, autoplay, create_table, running_server, table_finished


async def _http(port: int, path: str) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    return data.decode(errors="replace")


async def test_keys_and_passwords_never_leak(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    # as the server's logging setup does (server/ops/logs.py): the library logs frames at DEBUG
    caplog.set_level(logging.INFO, logger="websockets")
    db = tmp_path / "leak.db"
    password = "hunter2-is-long"
    secrets_seen: list[str] = []
    async with running_server(db) as srv:
        a = await Client.connect(srv.port, "a")
        r = await a.request({"type": "register", "name": "Leaky", "password": password})
        secrets_seen.append(r["key"])
        b = await Client.connect(srv.port, "b")
        r = await b.request({"type": "login", "name": "leaky", "password": password})
        secrets_seen.append(r["key"])
        r = await b.request({"type": "rotate_key"})
        secrets_seen.append(r["key"])
        bad = await b.request({"type": "login", "name": "leaky", "password": password + "x"})
        assert bad["code"] == "login_failed"
        c = await Client.connect(srv.port, "c", hello=False)
        await c.request({"type": "hello", "version": 1, "name": "c", "key": secrets_seen[2]})
        tid = await create_table(c, deals=2)
        await c.join(tid, 0)
        await c.request({"type": "start", "table": tid})
        await autoplay(c, tid, random.Random(3), table_finished)
        await srv.reviews.idle()
        for req in (
            {"type": "player", "name": "Leaky"},
            {"type": "history"},
            {"type": "leaderboard", "by": "total"},
            {"type": "list_tables"},
            {"type": "logout", "key": secrets_seen[0]},
            {"type": "logout", "key": secrets_seen[0]},  # an error naming nothing secret
        ):
            await c.request(req)
        metrics = await _http(srv.port, "/metrics")
        for cl in (a, b, c):
            await cl.close()
    hashes = [
        r[0]
        for r in sqlite3.connect(db).execute(
            "SELECT password FROM accounts WHERE password IS NOT NULL"
        )
    ]
    assert hashes and all(h.startswith("scrypt$") for h in hashes)
    forbidden = [*secrets_seen, password, *hashes, *(h.split("$")[-1] for h in hashes)]
    # frames: a key only in the `account` answer that hands it out
    for cl in (a, b, c):
        for frame, m in zip(cl.frames, cl.msgs, strict=True):
            allowed = {m.get("key")} if m["type"] == "account" else set()
            for s in forbidden:
                if s not in allowed:
                    assert s not in frame, (cl.name, frame[:200])
    logs = "\n".join(
        f"{rec.getMessage()} {rec.args!r} {getattr(rec, '__dict__', {})!r}"
        for rec in caplog.records
    )
    assert "registered account" in logs  # the logs do talk about accounts, without secrets
    outputs = {"logs": logs, "metrics": metrics}
    for cmd in (["export"], ["scores", "--json"], ["scores", "--by", "rating", "--json"]):
        run = subprocess.run(
            [sys.executable, "-m", "server.cli", *cmd, "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        outputs[" ".join(cmd)] = run.stdout + run.stderr
    raw = db.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("leak.db-*"))
    for s in forbidden:
        for where, text in outputs.items():
            assert s not in text, (where, s[:6])
    for k in (*secrets_seen, password):
        assert k.encode() not in raw  # only hashes of keys, no password is ever stored

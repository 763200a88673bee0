"""HTTP on the WebSocket port (/healthz, /metrics), the `serve` command, and shutdown."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from helpers_server import Client, autoplay, create_table, is_event, running_server, table_finished
from websockets.asyncio.client import connect

from protocol import CloseCode
from server.config import Config
from server.net.app import Server


def _get(port: int, path: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


async def test_healthz_and_metrics(tmp_path: Path) -> None:
    async with running_server(tmp_path / "h.db") as srv:
        status, _, body = await asyncio.to_thread(_get, srv.port, "/healthz")
        assert (status, body) == (200, "ok\n")
        c = await Client.connect(srv.port, "m")
        tid = await create_table(c, deals=2)
        await c.join(tid)
        await c.request({"type": "start", "table": tid})
        await autoplay(c, tid, random.Random(1), table_finished)
        # the two played deals' reviews (par, ratings) come in their own time: once their
        # `par` events are in, nothing more is sent unasked, and the byte count holds still
        i = 0
        for _ in range(2):
            i, _ = await c.wait_for(is_event("par"), i)
            i += 1
        await c.send_raw("not json")
        await c.wait_for(lambda m: m.get("code") == "bad_json")
        status, ctype, text = await asyncio.to_thread(_get, srv.port, "/metrics")
        assert status == 200 and ctype.startswith("text/plain; version=0.0.4")
        values = dict(re.findall(r"^(atout_[a-z_]+(?:\{[^}]*\})?) (\S+)$", text, re.M))
        assert values["atout_connections_open"] == "1"
        assert values["atout_deals_finished_total"] == "2"
        assert values['atout_tables{state="finished"}'] == "1"
        assert values['atout_errors_total{code="bad_json"}'] == "1"
        assert int(values["atout_messages_in_total"]) > 20
        assert int(values["atout_messages_out_total"]) > 100
        assert float(values["atout_event_loop_lag_seconds"]) >= 0
        # counters are exact: the bytes sent pass a million and were printed 1.23457e+06
        assert int(values["atout_bytes_out_total"]) == srv.metrics.bytes_out
        for line in text.splitlines():  # Prometheus text format: HELP, TYPE or a sample
            assert line.startswith("# HELP ") or line.startswith("# TYPE ") or " " in line
        await c.close()
        srv.metrics.bytes_out = 1_234_567_891
        assert "\natout_bytes_out_total 1234567891\n" in srv.metrics.render()


class _BrokenStore:
    async def writable(self) -> bool:
        return False

    async def close(self) -> None:
        pass


async def test_healthz_is_503_when_the_store_cannot_write() -> None:
    srv = Server(Config(port=0), _BrokenStore())
    port = await srv.start()
    try:
        status, _, body = await asyncio.to_thread(_get, port, "/healthz")
        assert status == 503 and "not writable" in body
    finally:
        await srv.stop()


async def test_stop_closes_connections_with_going_away() -> None:
    async with running_server() as srv:
        c = await Client.connect(srv.port, "bye")
        tid = await create_table(c, deals=1)
        await c.join(tid)
        await srv.stop()
        await asyncio.wait_for(c._reader, 5)
        assert c.closed_code == CloseCode.GOING_AWAY


@pytest.mark.parametrize("loop", ["auto", "asyncio", "uvloop"])
async def test_serve_command_logs_how_to_connect_and_exits_0_on_sigterm(
    tmp_path: Path, loop: str
) -> None:
    """A deal played through ``atout-server serve`` on each event loop (``--loop``): asyncio
    always; uvloop (not a dependency) where it is installed, and ``auto`` picks it there."""
    try:
        import uvloop  # noqa: F401
    except ImportError:
        if loop == "uvloop":
            pytest.skip("uvloop is not installed (pip install uvloop)")
        uvloop_here = False
    else:
        uvloop_here = True
    env = {**os.environ, "ATOUT_PORT": "0", "ATOUT_DB": str(tmp_path / "cli.db")}
    env["ATOUT_LOOP"] = loop
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--think-delay", "0", "--deal-pause", "0"],
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert proc.stderr is not None
        port = None
        log = []
        for _ in range(20):
            line = await asyncio.to_thread(proc.stderr.readline)
            log.append(line)
            m = re.search(r"listening on ws://127\.0\.0\.1:(\d+)", line)
            if m:
                port = int(m.group(1))
                break
        assert port, log
        used = "uvloop" if loop == "uvloop" or (loop == "auto" and uvloop_here) else "asyncio"
        assert any(f"event loop: {used}" in x for x in log), log
        line = await asyncio.to_thread(proc.stderr.readline)
        assert '"type": "hello"' in line and "PROTOCOL.md" in line  # how to connect
        line = await asyncio.to_thread(proc.stderr.readline)  # the README's first address
        assert f"players open http://127.0.0.1:{port}/ in a browser" in line, line
        line = await asyncio.to_thread(proc.stderr.readline)
        assert f"atout --server ws://127.0.0.1:{port}" in line and "make" not in line, line
        async with connect(f"ws://127.0.0.1:{port}", subprotocols=["atout.v1"]) as ws:  # type: ignore[list-item]
            c = Client(ws, "cli")
            await c.request({"type": "hello", "version": 1, "name": "cli"})
            tid = await create_table(c, deals=1)
            await c.join(tid)
            await c.request({"type": "start", "table": tid})
            await autoplay(c, tid, random.Random(1), table_finished)
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(c._reader, 10)
            assert c.closed_code == CloseCode.GOING_AWAY
        rc = await asyncio.to_thread(proc.wait, 10)
        assert rc == 0
        assert (tmp_path / "cli.db").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_closes_counts_only_what_the_server_closed(tmp_path: Path) -> None:
    """`atout_closes_total` is the connections the server closed: a client's own close (and
    the server's echo of it) is not one of them."""
    async with running_server(tmp_path / "c.db") as srv:
        for _ in range(3):
            c = await Client.connect(srv.port, "leaver")
            await c.close()  # 1000, from the client
        old = await Client.connect(srv.port, "old", hello=False)
        answer = await old.request({"type": "hello", "version": 2, "name": "old"})
        assert answer["code"] == "unsupported_version"
        await asyncio.wait_for(old._reader, 10)  # then the server closes it
        assert old.closed_code == CloseCode.UNSUPPORTED_VERSION
        deadline = asyncio.get_running_loop().time() + 10
        while srv.metrics.connections_open and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
        text = srv.metrics.render()
        assert f'atout_closes_total{{code="{int(CloseCode.UNSUPPORTED_VERSION)}"}} 1' in text
        assert 'code="1000"' not in text, text


def _serving(env: dict[str, str], nohup: bool = False) -> tuple[subprocess.Popen[str], int]:
    """`atout-server serve` on a free port; returns once it listens. ``nohup``: started with
    SIGHUP ignored, as `nohup` does."""
    ignore = "import signal; signal.signal(signal.SIGHUP, signal.SIG_IGN); "
    run = "import sys, runpy; sys.argv[0] = 'atout-server'; runpy.run_module('server.cli', run_name='__main__')"
    proc = subprocess.Popen(
        [sys.executable, "-c", ignore + run, "serve", "--port", "0"]
        if nohup
        else [sys.executable, "-m", "server.cli", "serve", "--port", "0"],
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert proc.stderr is not None
    log: list[str] = []
    found: list[int] = []

    def read() -> None:  # in a thread: a server that hangs before listening fails the test
        assert proc.stderr is not None
        for line in proc.stderr:
            log.append(line)
            m = re.search(r"listening on ws://127\.0\.0\.1:(\d+)", line)
            if m:
                found.append(int(m.group(1)))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(60)
    if not found:
        proc.kill()
        raise AssertionError(log)
    return proc, found[0]


def _second_serve(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`atout-server serve` run to its end (refused: it stops at once)."""
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_second_server_on_the_same_database_is_refused(tmp_path: Path) -> None:
    """Two servers on one SQLite file both ran, rebuilt the same tables and dealt the same
    deals (the second's writes refused one by one): the second now stops at once, naming the
    first; the first is not disturbed; once it is gone the database may be served again."""
    db = tmp_path / "one.db"
    env = {**os.environ, "ATOUT_DB": str(db)}
    first, port = _serving(env)
    try:
        second = _second_serve(env)
        assert second.returncode == 1, second.stderr
        assert f"another Atout server (pid {first.pid}) is serving {db}" in second.stderr
        assert _get(port, "/healthz")[:1] == (200,)
        # The lock itself: held (another process cannot take it) while the first one runs.
        code = (
            "import sys; from server.cli import _hold_database; "
            "sys.exit(0 if _hold_database(sys.argv[1]) is None else 3)"
        )
        assert subprocess.run([sys.executable, "-c", code, str(db)], env=env).returncode == 0
    finally:
        first.send_signal(signal.SIGTERM)
        assert first.wait(20) == 0
    again, _ = _serving(env)  # a stopped server's lock went with it (a killed one's too)
    again.kill()
    again.wait()
    third, _ = _serving(env)
    third.send_signal(signal.SIGTERM)
    assert third.wait(20) == 0


def test_a_second_lone_server_on_one_postgresql_database_is_refused(pg_url: str) -> None:
    """Two lone servers on one PostgreSQL database both ran: the second rebuilt and played the
    first's open tables, its writes refused. A lone server now holds an advisory lock that a
    second one, or a cluster's process, is refused (naming the holder); the processes of a
    cluster share it, and refuse a lone server in turn."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    env["ATOUT_DB"] = pg_url
    first, port = _serving(env)
    try:
        second = _second_serve(env)
        assert second.returncode == 1, second.stderr
        assert "another Atout server is serving it" in second.stderr
        assert f"Held by: lone {socket.gethostname()} pid {first.pid}" in second.stderr
        assert _get(port, "/healthz")[:1] == (200,)
        # a cluster's process (a supervisor or a worker takes it shared) is refused too
        code = (
            "import sys; from server.cli import _hold_postgres; "
            "sys.exit(0 if _hold_postgres(sys.argv[1], shared=True) is None else 3)"
        )
        shared = subprocess.run(
            [sys.executable, "-c", code, pg_url], env=env, capture_output=True, text=True
        )
        assert shared.returncode == 0, shared.stderr
        assert "a lone Atout server (started without --workers) is serving it" in shared.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        assert first.wait(20) == 0
    # The processes of a cluster share it, and keep a lone server out while they run.
    from server.cli import _hold_postgres

    a, b = _hold_postgres(pg_url, shared=True), _hold_postgres(pg_url, shared=True)
    assert a not in (None, True) and b not in (None, True)
    try:
        lone = _second_serve(env)
        assert lone.returncode == 1 and "another Atout server is serving it" in lone.stderr
        assert f"cluster {socket.gethostname()} pid {os.getpid()}" in lone.stderr
    finally:
        a.close()  # type: ignore[union-attr]
        b.close()  # type: ignore[union-attr]
    again, _ = _serving(env)  # the locks went with their connections
    again.send_signal(signal.SIGTERM)
    assert again.wait(20) == 0


def test_loop_option_names_the_loop_or_refuses() -> None:
    from server.net.app import loop_factory

    assert loop_factory("asyncio") == ("asyncio", None)
    with pytest.raises(ValueError, match="auto, uvloop or asyncio"):
        loop_factory("trio")
    try:
        import uvloop  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="not installed"):
            loop_factory("uvloop")
        assert loop_factory("auto") == ("asyncio", None)
        return
    name, factory = loop_factory("uvloop")
    assert name.startswith("uvloop") and factory is not None
    loop = factory()
    try:
        assert type(loop).__module__.startswith("uvloop")
    finally:
        loop.close()
    assert loop_factory("auto")[0].startswith("uvloop")


def _ipv6_loopback() -> bool:
    import socket

    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return socket.has_dualstack_ipv6()
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback or no dual-stack sockets")
async def test_host_double_colon_listens_on_ipv4_and_ipv6() -> None:
    """docs/OPERATIONS.md: `::` is every interface. asyncio alone bound an IPv6-only socket
    (IPV6_V6ONLY): http://127.0.0.1:PORT/ was refused, and so were the example proxies.
    (This test binds [::] on a free port for a moment.)"""
    srv = Server(Config(host="::", port=0, max_connections_per_address=1), None)
    port = await srv.start()
    try:
        assert await asyncio.to_thread(_get, port, "/healthz") == (200, _ok_type(), "ok\n")

        def get6() -> str:
            with urllib.request.urlopen(f"http://[::1]:{port}/healthz", timeout=5) as r:
                return str(r.read().decode())

        assert await asyncio.to_thread(get6) == "ok\n"
        # an IPv4 client counts as its IPv4 address, not ::ffff:127.0.0.1
        c = await Client.connect(port, "v4")
        assert set(srv._per_address) == {"127.0.0.1"}
        await c.close()
    finally:
        await srv.stop()


def _ok_type() -> str:
    return "text/plain; charset=utf-8"


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP here")
def test_sighup_stops_the_server_cleanly(tmp_path: Path) -> None:
    """Closing the terminal (or ssh session) of a foreground server sends SIGHUP: it killed
    the server at once (exit 129, no `stopped`, -wal and -shm left as after a crash)."""
    db = tmp_path / "hup.db"
    proc, port = _serving({**os.environ, "ATOUT_DB": str(db)})
    try:
        assert _get(port, "/healthz")[:1] == (200,)
        proc.send_signal(signal.SIGHUP)
        assert proc.wait(20) == 0
        assert proc.stderr is not None
        rest = proc.stderr.read()
        assert "shutting down" in rest and "stopped" in rest, rest
        assert not Path(f"{db}-wal").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # Started under `nohup` (SIGHUP ignored), it outlives its terminal, as before (review).
    proc, port = _serving({**os.environ, "ATOUT_DB": str(db)}, nohup=True)
    try:
        proc.send_signal(signal.SIGHUP)
        time.sleep(0.5)  # a stop would begin at once; nothing to poll for but its absence
        assert proc.poll() is None and _get(port, "/healthz")[:1] == (200,)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

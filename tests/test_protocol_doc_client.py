"""The client written from docs/PROTOCOL.md alone plays against the real server.

Starts `server.cli serve` as a subprocess on a free port, waits for GET /healthz, runs
examples/doc_client.py against it (one default deal, then a multi-deal table with the
heuristic AI, so that passes, annulled deals, discards and chelem decisions happen), then
stops the server with SIGTERM and checks that it exits cleanly.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "examples" / "doc_client.py"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGTERM")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(port: int, server: subprocess.Popen, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    url = f"http://127.0.0.1:{port}/healthz"
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"server exited early with {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200 and response.read().strip() == b"ok":
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)
    raise AssertionError("server did not become healthy")


def run_client(port: int, *args: str) -> tuple[str, list[dict]]:
    proc = subprocess.run(
        [sys.executable, str(CLIENT), f"ws://127.0.0.1:{port}", *args, "--timeout", "20"],
        capture_output=True,
        text=True,
        timeout=25,
        cwd=ROOT,
    )
    assert proc.returncode == 0, f"doc client failed:\n{proc.stdout}\n{proc.stderr}"
    results = [
        json.loads(line.split("RESULT ", 1)[1])
        for line in proc.stdout.splitlines()
        if line.strip().startswith("RESULT ")
    ]
    assert "FINAL" in proc.stdout
    return proc.stdout, results


def check_results(results: list[dict], deals: int) -> None:
    # `deals` counts scored deals; annulled ones (R3) are dealt again (docs/PROTOCOL.md, 4)
    assert [r["status"] for r in results].count("played") == deals
    assert results[-1]["status"] == "played"
    for result in results:
        assert result["status"] in ("played", "annulled")
        assert len(result["scores"]) == 4
        assert sum(result["scores"]) == 0


def test_doc_client_plays_against_real_server(tmp_path: Path) -> None:
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable, "-m", "server.cli", "serve",
            "--host", "127.0.0.1", "--port", str(port), "--db", str(tmp_path / "t.db"),
            "--think-delay", "0", "--deal-pause", "0",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    try:
        wait_healthy(port, server)

        out, results = run_client(port)
        check_results(results, 1)
        assert "table closed" in out

        out, results = run_client(port, "--deals", "12", "--ai", "heuristic", "--seed", "7")
        check_results(results, 12)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        try:
            log, _ = server.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            log, _ = server.communicate()
            raise AssertionError(f"server did not stop on SIGTERM:\n{log}") from None
    assert server.returncode == 0, f"server exited with {server.returncode}:\n{log}"
    assert "Traceback" not in log, log

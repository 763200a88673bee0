"""bench/load.py must keep working: a tiny run of every mode against real server processes."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_load_benchmark_quick_runs_every_mode_without_errors() -> None:
    cmd = [sys.executable, "bench/load.py", "--quick", "--clients", "8", "--duration", "1"]
    cmd += ["--warmup", "0.5", "--settle", "0.2", "--json", "--timeline"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["errors"] == 0
    phases = report["phases"]
    assert set(phases) == {"idle_atout", "idle_echo", "ai", "echo_ai", "humans", "echo_humans"}
    for name in ("ai", "humans", "echo_ai", "echo_humans"):
        ph = phases[name]
        assert ph["requests_per_s"] > 0, name
        assert ph["lat_event_ms"]["p50"] is not None, name
        assert ph["server_cpu_percent"] >= 0, name
        # second by second: the same actions, within the window
        timeline = ph["timeline"]
        assert timeline and all(0 <= sec <= 1 and n > 0 for sec, n, *_ in timeline), name  # 1 s
        assert all(p50 <= p99 <= mx <= ph["lat_event_ms"]["max"] for *_, p50, p99, mx in timeline)
        assert max(mx for *_, mx in timeline) == ph["lat_event_ms"]["max"], name
    # The AI play for the lone human: several engine actions per request.
    assert phases["ai"]["engine_actions_per_s"] > phases["ai"]["requests_per_s"]
    assert isinstance(phases["idle_atout"]["kib_per_connection"], float)
    assert report["atout_peak_rss_kib"] > 0
    assert set(report["ratios"]) == {"ai", "humans"}
    assert "second  actions" in proc.stdout  # --timeline printed the table


def test_the_echo_server_answers_round_a_group_as_a_table_does() -> None:
    """The humans' echo: a request's K frames go round the four connections of its group,
    from the requester on (as a table's events go to its four players); ungrouped, all to
    the requester. A fifth member is refused."""
    from websockets.sync.client import ClientConnection, connect

    proc = subprocess.Popen(
        [sys.executable, "bench/echo_server.py", "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = f"ws://127.0.0.1:{int(proc.stdout.readline().split()[1])}/"
        with contextlib.ExitStack() as stack:

            def conn() -> ClientConnection:
                return stack.enter_context(connect(url, subprotocols=["atout.v1"]))  # type: ignore[list-item]

            seats = [conn() for _ in range(4)]
            alone = conn()
            for ws in seats:
                ws.send("@table-1")
                assert ws.recv(timeout=10) == "@"  # in the group
            fifth = conn()
            fifth.send("@table-1")
            assert fifth.recv(timeout=10) == "!full"  # a table has four seats
            fifth.send("2 4|")  # it stays on its own: its frames come back to it alone
            assert [fifth.recv(timeout=10) for _ in range(2)] == ["xxxx"] * 2
            seats[1].send("7 10|padding")
            # Frames to seats 1, 2, 3, 0, 1, 2, 3: two each, one for seat 0, and nothing more.
            for i, n in enumerate([1, 2, 2, 2]):
                assert [seats[i].recv(timeout=10) for _ in range(n)] == ["x" * 10] * n, i
            for ws in seats:
                with contextlib.suppress(TimeoutError):
                    raise AssertionError(f"one frame too many: {ws.recv(timeout=0.2)!r}")
            alone.send("3 5|")
            assert [alone.recv(timeout=10) for _ in range(3)] == ["xxxxx"] * 3
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_table_cpu_benchmark_runs_both_modes_against_a_baseline() -> None:
    # bench/table_cpu.py: in-process tables; a request refused would make it exit non-zero.
    for extra in ([], ["--humans"]):
        cmd = [sys.executable, "bench/table_cpu.py", "--tables", "6", "--actions", "300"]
        cmd += ["--warmup", "30", "--repeat", "1", "--baseline", str(ROOT), *extra]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=180)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        lines = proc.stdout.splitlines()
        assert any(line.startswith("median this:") for line in lines), proc.stdout
        (ratio,) = [line for line in lines if line.startswith("this / base: x")]
        assert 0.3 < float(ratio.split("x")[1].split()[0]) < 3.0  # the same tree, twice


def test_action_log_layout_benchmark_runs() -> None:
    cmd = [sys.executable, "bench/action_log_layout.py", "--tables", "40", "--groups", "5"]
    cmd += ["--batches", "60", "--repeat", "1"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [line.split() for line in proc.stdout.splitlines()[1:]]
    assert [w[0] for w in lines] == ["clustered", "clustered_nofk", "append"]
    assert lines[0][5] == "(x1.00),"  # clustered, against itself

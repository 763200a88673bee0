"""bench/load.py must keep working: a tiny run of every mode against real server processes."""

from __future__ import annotations

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

"""bench/ai_duel.py keeps working: the error counters on hand-built tricks, the frozen baseline
loaded from git, and a tiny duel end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ai_baseline import BASELINE_REV  # noqa: E402
from bench.ai_errors import count_errors  # noqa: E402

# Four 18-card hands and a chien; seat 1 takes a garde. Only the first trick is played: the
# counters read tricks as they come, the record need not be complete.
HANDS = [
    # seat 0 (defender): diamonds king and 4, spades, the Petit
    "DK D4 S1 S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SC SQ SK T1 T7",
    # seat 1 (taker): no diamond, no club, trumps
    "T2 T3 T4 T5 T6 T8 T9 T10 T11 T12 H1 H2 H3 H4 H5 H6 H7 H8",
    # seat 2 (defender)
    "DC D5 D6 D7 D8 C1 C2 C3 C4 C5 C6 C7 C8 C9 C10 CJ CC CQ",
    # seat 3 (defender): leads
    "DQ D9 D10 DJ D1 D2 CK H9 H10 HJ HC HQ HK T13 T14 T15 T16 T17",
]
CHIEN = "D3 T18 T19 T20 T21 EX"


def _record(plays: list[tuple[int, str]], taker: int = 1, won: bool = False) -> dict:
    actions = [{"seat": s, "type": "play", "card": c} for s, c in plays]
    return {
        "format": "atout-deal/1",
        "dealer": 0,
        "hands": [h.split() for h in HANDS],
        "chien": CHIEN.split(),
        "actions": [{"seat": taker, "type": "discard", "cards": []}, *actions],
        "result": {"status": "played", "taker": taker, "contract": "garde_sans", "won": won},
    }


def test_points_on_partners_trick_before_the_taker_trumps() -> None:
    # Issue 13, error 2: DQ led by 3, 0 puts DK on it (it held D4), 1 (taker) trumps, 2 follows.
    errs = count_errors(_record([(3, "DQ"), (0, "DK"), (1, "T5"), (2, "DC")]))
    assert errs[0]["points_given"] == 1
    assert sum(e["points_given"] for e in errs) == 1
    # The same card after the taker (taker already trumped) is not the error.
    errs = count_errors(_record([(0, "D4"), (1, "T5"), (2, "DC"), (3, "DQ")]))
    assert sum(e["points_given"] for e in errs) == 0


def test_petit_lost_and_played_in_front_of_the_taker() -> None:
    # Issue 13, error 3: 2 leads a club, 3 plays CK, 0 (no club) trumps with the Petit in
    # front of the taker, who overtrumps.
    errs = count_errors(_record([(2, "C1"), (3, "CK"), (0, "T1"), (1, "T2")]))
    assert errs[0]["petit_lost"] == 1 and errs[0]["petit_front"] == 1
    assert sum(e["petit_lost"] for e in errs) == 1
    # Played last, after the taker, the Petit wins the trick: not lost.
    errs = count_errors(_record([(1, "H1"), (2, "C1"), (3, "H9"), (0, "T1")]))
    assert sum(e["petit_lost"] + e["petit_front"] for e in errs) == 0


def test_king_of_a_long_suit_trumped() -> None:
    # Seat 3 as taker: 6 hearts (H9 H10 HJ HC HQ HK), leads HK; seat 0 has no heart, trumps.
    rec = _record([(3, "HK"), (0, "T7"), (1, "H1"), (2, "C1")], taker=3)
    assert count_errors(rec)[3]["king_trumped"] == 1
    rec = _record([(3, "CK"), (0, "T7"), (1, "H1"), (2, "C1")], taker=3)  # a singleton king
    assert count_errors(rec)[3]["king_trumped"] == 0


def test_takes_with_few_trumps() -> None:
    # Seat 2 holds no trump at all.
    errs = count_errors(_record([], taker=2, won=True))
    assert errs[2]["take_le4"] == 1 and errs[2]["take_le4_won"] == 1
    assert count_errors(_record([], taker=1))[1]["take_le4"] == 0


def _have_baseline() -> bool:
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{BASELINE_REV}^{{commit}}"],
        capture_output=True,
    )
    return proc.returncode == 0


def test_duel_against_the_frozen_baseline(tmp_path: Path) -> None:
    if not _have_baseline():
        pytest.skip(f"git revision {BASELINE_REV} (the frozen AI baseline) is not in this clone")
    cmd = [sys.executable, "bench/ai_duel.py", "--a", "heuristic_v1", "--b", "heuristic_v1"]
    cmd += ["--deals", "3", "--jobs", "1", "--json"]
    env = {"ATOUT_FROZEN_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    s = json.loads(proc.stdout.strip().splitlines()[-1])
    # The same frozen bot on both sides: every paired difference is exactly zero.
    assert s["diff_per_deal"][0] == 0
    assert s["A"]["seat_deals"] == 12 and s["B"]["seat_deals"] == 12
    assert set(s["A"]["errors_per_1000"]) >= {"take_le4", "points_given", "petit_lost"}
    # The frozen code lives under its own package name, not as the live server.ai.
    assert any(p.name.startswith("atout_") for p in tmp_path.rglob("atout_*"))

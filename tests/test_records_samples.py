"""The sample records in tests/data/ (made by tests/data/make_samples.py) replay to their stored
results, and those results are the numbers worked out by hand."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers_rules import DATA, count_record, run_replay

from server.rules.records import replay_line

NAMES = [
    "r10_6_worked_example",
    "petit_sec",
    "all_passed",
    "chelem_excuse_led_last",
    "poignee_petit_au_bout",
    "half_point_excuse_last",
    "defenders_slam",
]

# Hand-checked: per defender (R10.5) and the parts that tell the story of each deal.
EXPECTED: dict[str, dict[str, Any]] = {
    # R10.6 exactly as the rule card and spec/deal-record.md give it.
    "r10_6_worked_example": {
        "status": "played",
        "taker": 2,
        "contract": "garde",
        "multiplier": 2,
        "chelem_announced": False,
        "oudlers": 2,
        "target": 41,
        "taker_points": 45,
        "won": True,
        "base": 58,
        "petit_au_bout": 0,
        "poignee": 0,
        "chelem": 0,
        "per_defender": 58,
        "scores": [-58, -58, 174, -58],
    },
    "petit_sec": {"status": "annulled", "reason": "petit_sec", "scores": [0, 0, 0, 0]},
    "all_passed": {"status": "annulled", "reason": "all_passed", "scores": [0, 0, 0, 0]},
    # R8.3: announced chelem, the Excuse led to trick 18, the Petit won in trick 17 (R10.2):
    # (25 + 55) x 4 + 40 + 400.
    "chelem_excuse_led_last": {
        "taker_points": 91,
        "oudlers": 3,
        "petit_au_bout": 40,
        "chelem": 400,
        "chelem_announced": True,
        "per_defender": 760,
    },
    # The federation's garde: 49 points, 2 oudlers, poignée, petit au bout: 66 + 20 + 20.
    "poignee_petit_au_bout": {
        "taker_points": 49,
        "oudlers": 2,
        "poignee": 20,
        "petit_au_bout": 20,
        "per_defender": 106,
        "scores": [318, -106, -106, -106],
    },
    # R8.2: the Excuse goes to the taker from a last trick the defence wins: 87.5 points.
    "half_point_excuse_last": {"taker_points": 87.5, "base": 306, "per_defender": 306},
    # R8.3/R10.4 for the defence on a garde contre: -486 - 200.
    "defenders_slam": {
        "taker": 1,
        "taker_points": 0,
        "oudlers": 0,
        "chelem": -200,
        "per_defender": -686,
        "scores": [686, -2058, 686, 686],
    },
}


def load(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.json").read_text())


@pytest.mark.parametrize("name", NAMES)
def test_sample_replays_to_stored_result(name: str) -> None:
    rec = load(name)
    assert rec["format"] == "atout-deal/1"
    ok, res = replay_line(json.dumps(rec))
    assert ok, res
    assert res == rec["result"]
    for key, value in EXPECTED[name].items():
        assert res[key] == value, key
    if res["status"] == "played":
        recount = count_record(rec)
        assert recount.taker == res["taker_points"]
        assert recount.taker + recount.defence == 91


def test_petit_sec_sample_has_no_actions() -> None:
    rec = load("petit_sec")
    assert rec["actions"] == []
    sec = [h for h in rec["hands"] if "T1" in h]
    assert sec and not [c for c in sec[0] if c.startswith("T") and c != "T1"]
    assert "EX" not in sec[0]


def test_samples_jsonl_holds_every_sample_in_order() -> None:
    lines = (DATA / "samples.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in lines] == [load(n) for n in NAMES]


def test_cli_replays_samples_jsonl() -> None:
    proc = run_replay(str(DATA / "samples.jsonl"))
    assert proc.returncode == 0, proc.stderr.decode()
    got = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    assert got == [load(n)["result"] for n in NAMES]


def test_cli_replays_the_worked_example_file() -> None:
    proc = run_replay(str(DATA / "r10_6_worked_example.json"))
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == EXPECTED["r10_6_worked_example"]


def test_generator_reproduces_the_files() -> None:
    """tests/data/make_samples.py and the stored files agree (no hand edits drifted)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_samples", DATA / "make_samples.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    made = mod.samples()
    assert list(made) == NAMES
    for name in NAMES:
        assert made[name] == load(name)

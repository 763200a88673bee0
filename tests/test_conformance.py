"""The published deals (shared/conformance/published-deals.jsonl) replay to exactly `expected`,
in-process and through the real `atout-server replay` process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers_rules import REPO_CORPUS, corpus_path, recount_result, run_replay

from server.rules.records import replay_line

# The first location that has the corpus (shared/ when beside the clone, else the repo's copy);
# none at all is an error at collection, never a silent skip.
CORPUS = corpus_path()
DEALS: list[dict[str, Any]] = [
    json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()
]
IDS = [d["source"] for d in DEALS]


def test_repo_copy_matches_shared() -> None:
    """The repository's copy is the shared corpus, byte for byte (when shared/ is there)."""
    assert REPO_CORPUS.is_file(), "tests/data/conformance/published-deals.jsonl is missing"
    if CORPUS != REPO_CORPUS:
        assert REPO_CORPUS.read_bytes() == CORPUS.read_bytes(), (
            "refresh tests/data/conformance from shared/"
        )


def test_corpus_is_not_empty() -> None:
    assert len(DEALS) >= 19


@pytest.mark.parametrize("item", DEALS, ids=IDS)
def test_independent_recount_gives_expected(item: dict[str, Any]) -> None:
    """The tests' own recount (RULES.md formulas, no engine) agrees with every published deal:
    the oracle of the property tests is itself checked against the corpus."""
    assert recount_result(item["record"]) == item["expected"]


@pytest.mark.parametrize("item", DEALS, ids=IDS)
def test_replay_line_gives_expected(item: dict[str, Any]) -> None:
    ok, result = replay_line(json.dumps(item["record"]))
    assert ok, result
    assert result == item["expected"]


@pytest.mark.parametrize("item", DEALS, ids=IDS)
def test_expected_agrees_with_published_numbers(item: dict[str, Any]) -> None:
    """Every number the source printed equals ours, except those a `source_error` explains."""
    exp = item["expected"]
    wrong = {f.split(":")[0] for f in item.get("source_error", {}).get("fields", [])}
    derived = {
        "taker_score": exp["scores"][exp["taker"]],
        "margin": exp["taker_points"] - exp["target"],
    }
    for key, value in item["published"].items():
        if key in wrong:
            continue
        got = derived[key] if key in derived else exp[key]
        assert got == value, f"{key}: published {value}, expected {got}"


def test_cli_replays_the_corpus(tmp_path: Path) -> None:
    """The real process on a .jsonl file: one line per record, in order, exit 0."""
    path = tmp_path / "published.jsonl"
    path.write_text("".join(json.dumps(d["record"]) + "\n" for d in DEALS))
    proc = run_replay(str(path))
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b""
    lines = proc.stdout.decode().splitlines()
    assert [json.loads(x) for x in lines] == [d["expected"] for d in DEALS]


@pytest.mark.parametrize(
    "source",
    [
        "tarotclub:played_deals/maximum_points.json",
        "tarotclub:played_deals/slam_announced_failure.json",
        "tarotclub:played_deals/slam_not_announed_by_defense.json",
    ],
)
def test_cli_replays_single_json_files(tmp_path: Path, source: str) -> None:
    """The federation's extreme examples, each as a .json file through the real process:
    garde contre, announced chelem with the Excuse led last, triple poignée, petit au bout on
    trick 17: +962; garde sans, announced chelem missed: +120; the defenders' slam on a garde
    contre: -686."""
    (item,) = [d for d in DEALS if d["source"] == source]
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(item["record"], indent=2))
    proc = run_replay(str(path))
    assert proc.returncode == 0, proc.stderr.decode()
    (line,) = proc.stdout.decode().splitlines()
    assert json.loads(line) == item["expected"]
    per = {
        "tarotclub:played_deals/maximum_points.json": 962,
        "tarotclub:played_deals/slam_announced_failure.json": 120,
        "tarotclub:played_deals/slam_not_announed_by_defense.json": -686,
    }[source]
    assert item["expected"]["per_defender"] == per


def test_maximum_points_deal_details() -> None:
    """The +962 deal is what the federation describes: Excuse led to trick 18 by the taker,
    Petit in trick 17, a triple poignée."""
    (item,) = [d for d in DEALS if d["source"].endswith("maximum_points.json")]
    rec = item["record"]
    plays = [a for a in rec["actions"] if a["type"] == "play"]
    taker = item["expected"]["taker"]
    assert plays[68] == {"seat": taker, "type": "play", "card": "EX"}
    assert "T1" in {a["card"] for a in plays[64:68]}
    (pg,) = [a for a in rec["actions"] if a["type"] == "poignee"]
    assert len(pg["cards"]) == 15
    assert item["expected"]["taker_points"] == 88 and item["expected"]["oudlers"] == 3

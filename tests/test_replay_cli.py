"""`atout-server replay` as a real process: inputs, output lines, errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from helpers_rules import (
    BASE,
    PLAIN,
    bad_records,
    deal_from_tricks,
    good_record,
    run_replay,
    variant,
)

BAD = bad_records()


def _lines(out: bytes) -> list[dict]:
    return [json.loads(x) for x in out.decode().splitlines()]


def _no_traceback(proc) -> None:
    assert b"Traceback" not in proc.stderr
    assert b"Traceback" not in proc.stdout


def test_single_json_file(tmp_path: Path) -> None:
    rec = good_record()
    path = tmp_path / "one.json"
    path.write_text(json.dumps(rec, indent=1))  # multi-line JSON is one record
    proc = run_replay(str(path))
    assert proc.returncode == 0
    assert _lines(proc.stdout) == [rec["result"]]
    assert proc.stderr == b""


def test_jsonl_file_one_line_per_record(tmp_path: Path) -> None:
    recs = [
        good_record(),
        deal_from_tricks(PLAIN, contract="garde_sans", taker=0).record(),
        deal_from_tricks(BASE, contract="prise", taker=0).record(),
    ]
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    proc = run_replay(str(path))
    assert proc.returncode == 0
    assert _lines(proc.stdout) == [r["result"] for r in recs]


def test_stdin(tmp_path: Path) -> None:
    recs = [good_record(), deal_from_tricks(PLAIN, contract="garde_contre", taker=0).record()]
    data = "".join(json.dumps(r) + "\n" for r in recs).encode()
    proc = run_replay("-", stdin=data)
    assert proc.returncode == 0
    assert _lines(proc.stdout) == [r["result"] for r in recs]


def test_every_bad_record_reported_in_order(tmp_path: Path) -> None:
    """Each malformed or illegal record yields its error line (index -1 or the first illegal
    action), good records their result, in input order; exit 2; no traceback."""
    good = good_record()
    lines = [json.dumps(good)] + [line for _, line, _ in BAD] + [json.dumps(good)]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    proc = run_replay(str(path))
    assert proc.returncode == 2
    _no_traceback(proc)
    out = _lines(proc.stdout)
    assert len(out) == len(lines)
    assert out[0] == good["result"] and out[-1] == good["result"]
    for (name, _, index), got in zip(BAD, out[1:-1], strict=True):
        assert set(got) == {"error"}, name
        assert got["error"]["action_index"] == index, name
        assert isinstance(got["error"]["reason"], str) and got["error"]["reason"], name


def test_bad_single_json_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{ this is not json")
    proc = run_replay(str(path))
    assert proc.returncode == 2
    _no_traceback(proc)
    (res,) = _lines(proc.stdout)
    assert res["error"]["action_index"] == -1


def test_illegal_action_index_via_stdin() -> None:
    rec = good_record()
    k = next(i for i, a in enumerate(rec["actions"]) if a.get("card") == "S3")
    rec["actions"][k]["card"] = "H3"  # a revoke (R7.5)
    proc = run_replay("-", stdin=(json.dumps(rec) + "\n").encode())
    assert proc.returncode == 2
    (res,) = _lines(proc.stdout)
    assert res["error"]["action_index"] == k
    assert res["error"]["reason"].startswith("R7.5")


def test_stored_result_ignored(tmp_path: Path) -> None:
    rec = good_record()
    real = rec["result"]
    rec["result"] = {"status": "played", "per_defender": -1}
    path = tmp_path / "lie.json"
    path.write_text(json.dumps(rec))
    proc = run_replay(str(path))
    assert proc.returncode == 0
    assert _lines(proc.stdout) == [real]


def test_points_printed_as_int_or_half(tmp_path: Path) -> None:
    """45 (not 45.0) when whole, 87.5 when not."""
    half = deal_from_tricks(variant(PLAIN, {18: "C10 DJ CJ EX"}), contract="garde_sans", taker=0)
    whole = deal_from_tricks(BASE, contract="garde", taker=0)
    path = tmp_path / "pts.jsonl"
    path.write_text(json.dumps(half.record()) + "\n" + json.dumps(whole.record()) + "\n")
    proc = run_replay(str(path))
    assert proc.returncode == 0
    first, second = proc.stdout.decode().splitlines()
    assert '"taker_points":87.5' in first.replace(" ", "")
    assert '"taker_points":87,' in second.replace(" ", "")
    assert ".0," not in second and ".0]" not in second and ".0}" not in second


def test_missing_file_exit_2_without_traceback(tmp_path: Path) -> None:
    proc = run_replay(str(tmp_path / "nope.jsonl"))
    assert proc.returncode == 2
    _no_traceback(proc)
    assert proc.stderr


def test_empty_input_is_fine() -> None:
    proc = run_replay("-", stdin=b"")
    assert proc.returncode == 0
    assert proc.stdout == b""


def test_binary_garbage_on_stdin() -> None:
    proc = run_replay("-", stdin=b"\xff\xfe\x00garbage\n{}\n")
    assert proc.returncode == 2
    _no_traceback(proc)
    out = _lines(proc.stdout)
    assert len(out) == 2
    assert all(o["error"]["action_index"] == -1 for o in out)


def test_standard_error_names_each_failing_record(tmp_path: Path) -> None:
    """Standard output stays as the spec has it (one result or error a record); standard
    error says which record failed: its number, line, and table and deal from `meta`."""
    good = good_record()
    unfinished = {**good, "actions": good["actions"][:-1]}  # the deal is not over
    named = {**unfinished, "meta": {"table_id": "T9", "deal_no": 4}}
    lines = [json.dumps(good), "", "not json", json.dumps(named)]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    proc = run_replay(str(path))
    assert proc.returncode == 2
    _no_traceback(proc)
    assert len(_lines(proc.stdout)) == 3  # the blank line is no record
    err = proc.stderr.decode().splitlines()
    assert len(err) == 2, err
    assert err[0].startswith("atout-server replay: record 2 (line 3): refused: malformed")
    assert err[1].startswith("atout-server replay: record 3 (line 4), table T9 deal 4: refused")


def test_json_lines_under_another_name_get_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "deals.txt"
    path.write_text(json.dumps(good_record()) + "\n" + json.dumps(good_record()) + "\n")
    proc = run_replay(str(path))
    assert proc.returncode == 2
    assert len(_lines(proc.stdout)) == 1  # one document, as the spec reads a non-.jsonl PATH
    assert b"named .jsonl" in proc.stderr


def test_no_record_at_all_is_said() -> None:
    proc = run_replay("-", stdin=b"\n\n")
    assert (proc.returncode, proc.stdout) == (0, b"")  # no record failed (an empty export)
    assert proc.stderr.decode().strip() == "atout-server replay: no record in standard input"

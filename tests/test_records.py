"""Deal records (docs/deal-record.md): writing, decoding and replaying in-process."""

from __future__ import annotations

import json

import pytest
from helpers_rules import (
    BASE,
    PLAIN,
    bad_records,
    deal,
    deal_from_tricks,
    good_record,
    run,
    variant,
)

from server.rules.records import decode_record, record_of, replay_line, replay_record
from server.rules.scoring import result_dict

BAD = bad_records()


def test_record_shape() -> None:
    """A finished record carries the dealer, 4 x 18 cards, the chien, every action and the result."""
    plan = deal_from_tricks(BASE, contract="garde", taker=0)
    rec = plan.record()
    assert rec["format"] == "atout-deal/1"
    assert rec["dealer"] == 3
    assert [len(h) for h in rec["hands"]] == [18, 18, 18, 18] and len(rec["chien"]) == 6
    assert len({c for h in rec["hands"] for c in h} | set(rec["chien"])) == 78
    types = [a["type"] for a in rec["actions"]]
    assert types[:6] == ["bid"] * 4 + ["discard", "chelem"]
    assert types[6:] == ["play"] * 72
    assert rec["actions"][0] == {"seat": 0, "type": "bid", "contract": "garde"}
    assert rec["actions"][5] == {"seat": 0, "type": "chelem", "announce": False}
    assert rec["result"] == result_dict(plan.final())
    assert json.loads(json.dumps(rec)) == rec


def test_record_with_poignee_places_it_before_the_first_card() -> None:
    """The poignée sits right before the declaring seat's first play."""
    from helpers_rules import TRUMPS, TRUMPS_POIGNEE

    rec = deal_from_tricks(TRUMPS, contract="garde", taker=0, poignees={0: TRUMPS_POIGNEE}).record()
    i = next(i for i, a in enumerate(rec["actions"]) if a["type"] == "poignee")
    assert rec["actions"][i]["seat"] == 0
    assert rec["actions"][i + 1] == {"seat": 0, "type": "play", "card": "T21"}
    assert isinstance(rec["actions"][i]["cards"], list)


def test_record_of_unfinished_deal_has_no_result() -> None:
    st = run(deal(), "prise pass")
    rec = record_of(st)
    assert "result" not in rec
    assert len(rec["actions"]) == 2
    ok, res = replay_line(json.dumps(rec))
    assert not ok and res["error"]["action_index"] == -1
    assert "not finished" in res["error"]["reason"]


def test_replay_round_trip() -> None:
    """Replaying a record recomputes exactly its result; the state matches the original."""
    plan = deal_from_tricks(variant(PLAIN, {18: "C10 DJ CJ EX"}), contract="garde_sans", taker=0)
    rec = plan.record()
    st = replay_record(decode_record(json.dumps(rec)))
    assert st.tricks == plan.final().tricks
    assert replay_line(json.dumps(rec).encode()) == (True, rec["result"])


def test_stored_result_is_ignored() -> None:
    rec = good_record()
    real = rec["result"]
    rec["result"] = {"status": "played", "per_defender": 9999, "scores": [1, 2, 3, 4]}
    assert replay_line(json.dumps(rec)) == (True, real)
    del rec["result"]
    assert replay_line(json.dumps(rec)) == (True, real)


def test_meta_and_unknown_keys_are_tolerated() -> None:
    rec = good_record()
    rec["meta"] = {"table": "t1", "players": ["a", "b", "c", "d"]}
    rec["exported_by"] = "someone"
    ok, res = replay_line(json.dumps(rec))
    assert ok and res == good_record()["result"]


@pytest.mark.parametrize(("name", "line", "index"), BAD, ids=[b[0] for b in BAD])
def test_bad_records_report_the_right_index(name: str, line: str, index: int) -> None:
    ok, res = replay_line(line)
    assert ok is False
    assert set(res) == {"error"}
    assert res["error"]["action_index"] == index
    assert isinstance(res["error"]["reason"], str) and res["error"]["reason"]


def test_illegal_action_reason_cites_the_rule() -> None:
    reasons = {name: replay_line(line)[1]["error"]["reason"] for name, line, _ in BAD}
    assert reasons["first bid out of turn"].startswith("R2.3")
    assert reasons["bid not higher"].startswith("R4.2")
    assert reasons["king discarded"].startswith("R5.2")
    assert reasons["revoke"].startswith("R7.5")


def test_annulled_records_replay() -> None:
    """R3.3: petit sec (no actions) and all-passed records replay to their annulled results."""
    from helpers_rules import ALL_CODES

    plain = [c for c in ALL_CODES if c[0] in "SHDC"][:17]
    sec = record_of(deal({2: ["T1", *plain]}))
    assert sec["actions"] == []
    assert replay_line(json.dumps(sec)) == (
        True,
        {"status": "annulled", "reason": "petit_sec", "scores": [0, 0, 0, 0]},
    )
    sec["actions"] = [{"seat": 0, "type": "bid", "contract": "prise"}]
    assert replay_line(json.dumps(sec))[1]["error"]["action_index"] == -1


def _slow_line(data: str) -> tuple[bool, dict]:
    """replay_line without the fast path: every action through apply()."""
    from server.rules.records import RecordError

    try:
        st = replay_record(decode_record(data))
    except RecordError as e:
        return False, {"error": {"action_index": e.index, "reason": e.reason}}
    return True, result_dict(st)


def _mutants(rec: dict, rng) -> list[dict]:  # type: ignore[no-untyped-def]
    """Broken variants of a record, one per way a fast path could go wrong."""
    import copy

    out = []
    acts = rec["actions"]
    plays = [k for k, a in enumerate(acts) if a["type"] == "play"]
    for _ in range(6):
        r = copy.deepcopy(rec)
        k = rng.choice(plays)
        seat = r["actions"][k]["seat"]
        r["actions"][k]["card"] = rng.choice(r["hands"][seat] + r["chien"] + ["Z1", "EX"])
        out.append(r)
        r = copy.deepcopy(rec)
        r["actions"][rng.choice(plays)]["seat"] = rng.randrange(4)
        out.append(r)
    for cut in (1, 4, 30, 72):
        r = copy.deepcopy(rec)
        del r["actions"][-cut:]
        out.append(r)
    r = copy.deepcopy(rec)
    r["actions"].append(dict(acts[-1]))
    out.append(r)
    r = copy.deepcopy(rec)
    r["actions"].insert(
        plays[10], {"type": "poignee", "seat": acts[plays[10]]["seat"], "cards": []}
    )
    out.append(r)
    r = copy.deepcopy(rec)
    r["actions"].insert(
        plays[40], {"type": "bid", "seat": acts[plays[40]]["seat"], "contract": "pass"}
    )
    out.append(r)
    r = copy.deepcopy(rec)
    r["actions"][plays[0]], r["actions"][plays[1]] = r["actions"][plays[1]], r["actions"][plays[0]]
    out.append(r)
    return out


def test_fast_replay_answers_exactly_as_apply() -> None:
    """replay_line plays the cards on one core position, validated on bitmasks, and falls back
    to apply() at the first doubt: for legal records (poignées, chelems, annulled deals
    included) and for every kind of broken one, its answer is exactly apply()'s, error index
    and reason included."""
    import random

    from server.rules.randplay import random_deal

    rng = random.Random(5)
    seen_ok = seen_err = 0
    for seed in range(150):
        rec = record_of(random_deal(seed, seed % 4))
        for r in [rec, *(_mutants(rec, rng) if len(rec["actions"]) > 72 else [])]:
            line = json.dumps(r)
            got = replay_line(line)
            assert got == _slow_line(line), (seed, r["actions"][-3:])
            seen_ok += got[0]
            seen_err += not got[0]
    assert seen_ok > 150 and seen_err > 1500

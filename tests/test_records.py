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

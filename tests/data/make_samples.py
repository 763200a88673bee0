"""Regenerate the sample records in this directory: ``python tests/data/make_samples.py``.

Each sample is a real deal written trick by trick (tests/helpers_rules.py) and played through the
engine; the file holds its ``atout-deal/1`` record with the result the engine computed. The tests
(tests/test_records_samples.py) check those results against numbers worked out by hand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent))

from helpers_rules import (  # noqa: E402
    ALL_CODES,
    PLAIN,
    R10_6_ROWS,
    TRUMPS,
    TRUMPS_POIGNEE,
    deal,
    deal_from_tricks,
    run,
    variant,
)

from server.rules.records import record_of  # noqa: E402


def samples() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    out["r10_6_worked_example"] = deal_from_tricks(
        R10_6_ROWS, contract="garde", taker=2, dealer=1
    ).record()
    plain = [c for c in ALL_CODES if c[0] in "SHDC"][:17]
    out["petit_sec"] = record_of(deal({1: ["T1", *plain]}, dealer=0))
    out["all_passed"] = record_of(run(deal(dealer=2), "pass pass pass pass"))
    out["chelem_excuse_led_last"] = deal_from_tricks(
        variant(PLAIN, {4: "T18 T11 T6 T15", 17: "T1 C7 C8 C9", 18: "EX DJ C10 CJ"}),
        contract="garde_sans",
        taker=0,
        announce=True,
    ).record()
    out["poignee_petit_au_bout"] = deal_from_tricks(
        variant(
            TRUMPS,
            {
                6: "S8 SQ SC SJ",
                8: "H8 HQ HC HJ",
                9: "D7 DK D9 D10",
                10: "D8 DQ DC DJ",
                12: "C10 CQ CJ CC",
            },
        ),
        contract="garde",
        taker=0,
        poignees={0: TRUMPS_POIGNEE},
    ).record()
    out["half_point_excuse_last"] = deal_from_tricks(
        variant(PLAIN, {18: "C10 DJ CJ EX"}), contract="garde_sans", taker=0
    ).record()
    out["defenders_slam"] = deal_from_tricks(
        variant(PLAIN, {1: "T21 T14 T9 T16", 5: "T17 T10 T5 T4", 18: "EX DJ C10 CJ"}),
        contract="garde_contre",
        taker=1,
    ).record()
    return out


def main() -> None:
    recs = samples()
    for name, rec in recs.items():
        (HERE / f"{name}.json").write_text(json.dumps(rec, indent=1) + "\n")
    (HERE / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs.values()))


if __name__ == "__main__":
    main()

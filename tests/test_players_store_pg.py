"""The players' store methods (server/store/players.py) give the same answers on PostgreSQL
(through server/store/pg_players.py) as on SQLite: the same operations on both stores, every
answer compared (timestamps fixed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from server.rules.randplay import random_deal
from server.rules.records import record_of
from server.store import open_store
from server.store import players as players_mod

AT = "2026-07-01T12:00:00.000Z"


def played(seed: int, dealer: int = 0) -> dict[str, Any]:
    return msgspec.json.decode(msgspec.json.encode(record_of(random_deal(seed, dealer))))


def script(s: Any) -> list[Any]:
    """Every kind of player operation; the answers, in order."""
    out: list[Any] = []
    ann = s.create_account("Ann", "ann", "registered", "kdf$x", "a" * 64)
    bot = s.create_account("Bot", "bot", "bot", None, "b" * 64)
    out += [ann, bot, s.create_account("ANN", "ann", "registered", None, "c" * 64)]
    out += [s.login_account("ann"), s.login_account("nobody"), s.account_named("bot")]
    out += [s.player_names()]
    out += [s.account_for_key("a" * 64), s.account_for_key("z" * 64)]
    s.add_key(ann["id"], "d" * 64)
    out += [s.account_keys(ann["id"]), s.replace_key("d" * 64, "e" * 64)]
    out += [s.replace_key("nope", "f" * 64), s.revoke_key("e" * 64), s.revoke_key("e" * 64)]
    s.create_table("pub", "Public", {"public": True})
    s.create_table("priv", "Private", {"public": False})
    who = [
        {"account": ann["id"]},
        {"ai": "heuristic"},
        {"guest": "gus"},
        {"account": bot["id"], "partial": True},
    ]
    for i in range(3):
        rec = played(i, i % 4)
        for tid in ("pub", "priv"):
            s.record_deal(tid, i + 1, rec, ["Ann", None, "gus", "Bot"],
                          rec["result"]["scores"], AT, seats=who)  # fmt: skip
    out.append(sorted(s.pending_reviews()))
    for tid, no in sorted(s.pending_reviews()):
        inp = s.review_input(tid, no)
        assert inp is not None and isinstance(inp["record"], str)  # left for the worker
        stored = msgspec.json.decode(inp["record"])
        out.append(stored["format"])
        # the par's record as the review worker sends it: its JSON text, stored as it is
        # (keys sorted: the record read back from jsonb has jsonb's key order, SQLite's the
        # written one, and apply_review's answer holds the Raw, which compares as bytes)
        par_json = msgspec.Raw(msgspec.json.encode(stored, order="sorted"))
        review = {
            "par": {"level": "strong", "scores": [1, -1, 0.5, -0.5], "record": par_json,
                    "cpu_ms": 12.5},
            "seats": [{"role": "taker" if k == 0 else "defender", "won": 1, "margin": 3.5,
                       "petit_au_bout": 0, "poignee": "single" if k == 2 else None,
                       "chelem": 0} for k in range(4)],
            "taker": 0,
            "taker_won": True,
        }  # fmt: skip
        out.append(s.apply_review(tid, no, review, None))
        out.append(s.apply_review(tid, no, review, None))  # once only
        out.append(s.par_of(tid, no))
    out += [s.sat_at("priv", ann["id"]), s.sat_at("priv", 999)]
    out += [s.profile(account_id=ann["id"]), s.profile(guest="gus"), s.profile(guest="zed")]
    rows, nxt, total = s.history(account_id=ann["id"], limit=2)
    out += [rows, total]
    if nxt is not None:
        out.append(s.history(account_id=ann["id"], limit=2,
                             cursor=players_mod.decode_cursor(nxt)))  # fmt: skip
    out.append(s.history(guest="gus", viewer=None))
    # an AI level's seats, by level: deals counted once, one history row a deal
    out += [s.profile(ai="heuristic"), s.history(ai="heuristic", viewer=None, limit=2)]
    for by in ("rating", "total", "mean"):
        out.append(s.leaderboard(by))
    out.append(s.player_deals(account_id=ann["id"]))
    # name keys recomputed (at start, server/net/players.py): one moves, one would collide
    # (ids compared as names: a refused insert uses up a PostgreSQL sequence number)
    b0b = s.create_account("B0b", "b0b", "registered", None, "g" * 64)
    b0t = s.create_account("B0t", "b0t", "registered", None, "h" * 64)  # Bot's key, then
    done = s.rekey_accounts(lambda n: n.lower().replace("0", "o"))
    names = {b0b["id"]: "B0b", b0t["id"]: "B0t"}
    out.append({"changed": done["changed"], "kept": [names[i] for i in done["kept"]]})
    for k in ("bob", "b0b", "bot", "b0t", "ann"):
        out.append((s.account_named(k) or {}).get("name"))
    return out


def test_the_players_methods_answer_alike_on_both_backends(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(players_mod, "_now", lambda: AT)
    answers = []
    for db in (str(tmp_path / "atout.db"), pg_url):
        s = open_store(db)
        try:
            answers.append(script(s))
        finally:
            s.close()
    sqlite, pg = answers
    for k, (a, b) in enumerate(zip(sqlite, pg, strict=True)):
        assert a == b, f"answer {k}: sqlite {a!r} != postgresql {b!r}"

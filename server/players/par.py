"""Par: a deal's cards played again by the reference bot in all four seats, and the figures of
each seat of the real deal. Pure functions of the record (and the bot), run in a worker process
by :mod:`.service`.

The par is reproducible: the bots' seeds come from the cards and the dealer only (a SHA-256 of
the record's ``dealer``, ``hands`` and ``chien``), so the same cards with the same bot level give
the same par, at any table, on any run. Only levels that do not depend on the clock can be
reference bots (``random``, ``heuristic``); ``strong`` thinks for a time budget and is not
reproducible.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import msgspec

from server.ai import make_bot
from server.rules import OVER, apply, legal_actions
from server.rules.records import decode_record, record_of, replay_record, start_state
from server.rules.views import view

REFERENCE_LEVELS = ("heuristic", "random")
_POIGNEE = {10: "single", 13: "double", 15: "triple"}


def cards_seed(record: dict[str, Any]) -> int:
    dealt = msgspec.json.encode([record["dealer"], record["hands"], record["chien"]])
    return int.from_bytes(hashlib.sha256(dealt).digest()[:8], "big")


def par_of(record: dict[str, Any], level: str = "heuristic") -> dict[str, Any]:
    """The reference bot's replay of ``record``'s cards: ``level``, ``scores`` per seat, its
    ``record`` (an ``atout-deal/1`` record that ``replay`` accepts) and the ``cpu_ms`` spent."""
    if level not in REFERENCE_LEVELS:
        raise ValueError(f"{level!r} cannot be a reference bot (not reproducible)")
    # this thread's CPU: where reviews fell back to a thread of the server, the process's
    # clock would count the event loop's work too (atout_review_par_cpu_seconds_total)
    t0 = time.thread_time()
    st = start_state(decode_record(msgspec.json.encode(record)))
    seed = cards_seed(record)
    bots = [make_bot(level, seed + s) for s in range(4)]
    while st.phase != OVER:
        legal = legal_actions(st)
        assert legal is not None
        bot = bots[legal.seat]
        seen = view(st, legal.seat, masks=getattr(bot, "reads_masks", False))
        st = apply(st, bot.choose(seen, legal))
    rec = record_of(st)
    return {
        "level": level,
        "scores": list(rec["result"]["scores"]),
        "record": rec,
        "cpu_ms": round((time.thread_time() - t0) * 1000, 3),
    }


def seat_figures(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Per seat of a finished deal: ``role`` (taker/defender, None if annulled), ``won`` (its
    side made or beat the contract), ``margin`` (taker's points minus the target), and what the
    seat itself did: ``petit_au_bout`` (1: it played the Petit in the last trick, won by its
    side), ``poignee`` (level shown), ``chelem`` (1: its side took every trick)."""
    res = record["result"]
    if res.get("status") != "played":
        return [{} for _ in range(4)]
    st = replay_record(decode_record(msgspec.json.encode(record)))
    taker = res["taker"]
    side = [s == taker for s in range(4)]
    out: list[dict[str, Any]] = []
    plays = [a for a in record["actions"] if a["type"] == "play"]
    last_winner = st.tricks[-1][2] if st.tricks else None
    last = plays[-4:]
    taker_tricks = sum(1 for _, _, w in st.tricks if w == taker)
    chelem_side: bool | None = None  # True: the taker's side took every trick
    if res.get("chelem", 0) > 0:
        chelem_side = True
    elif res.get("chelem", 0) < 0 and taker_tricks <= 1:
        chelem_side = False
    for s in range(4):
        won = bool(res["won"]) if side[s] else not res["won"]
        pab = 0
        if res.get("petit_au_bout") and last_winner is not None:
            for a in last:
                if a["card"] == "T1" and a["seat"] == s and side[last_winner] == side[s]:
                    pab = 1
        shown = [a for a in record["actions"] if a["type"] == "poignee" and a["seat"] == s]
        out.append(
            {
                "role": "taker" if side[s] else "defender",
                "won": int(won),
                "margin": res["taker_points"] - res["target"] if side[s] else None,
                "petit_au_bout": pab,
                "poignee": _POIGNEE.get(len(shown[0]["cards"])) if shown else None,
                "chelem": int(chelem_side is not None and chelem_side == side[s]),
            }
        )
    return out


def review_deal(record: dict[str, Any] | str | bytes, level: str) -> dict[str, Any]:
    """Everything a deal's review computes (run in the review worker process): ``par``,
    ``seats`` (:func:`seat_figures`), ``taker`` and ``taker_won``.

    ``record`` may be the stored JSON text, and the par's record comes back encoded
    (``msgspec.Raw``, stored as it is): decoding, encoding and pickling whole records cost the
    server's threads 130-180 µs of CPU per review (bench/review_cost.py), most of it holding
    the GIL, which the event loop waits for when a thousand deals end together."""
    rec: dict[str, Any] = record if isinstance(record, dict) else msgspec.json.decode(record)
    result = rec["result"]
    par = par_of(rec, level) if result.get("status") == "played" else None
    if par is not None:
        par["record"] = msgspec.Raw(msgspec.json.encode(par["record"]))
    return {
        "par": par,
        "seats": seat_figures(rec),
        "taker": result.get("taker"),
        "taker_won": bool(result.get("won")),
    }

"""The ``--auto`` player: a simple bot that only ever picks from the server's ``legal`` object.

It is deliberately plain (bid on trumps and oudlers, discard the cheapest cards, play the
cheapest legal card, show a poignée when offered) so that scripts and tests get a complete,
legal game without a human; the real AI lives on the server.
"""

from __future__ import annotations

from typing import Any

from . import cards as C


def _value(code: str) -> tuple[int, int, int]:
    """Cheapest first: card points, then trumps after plain cards, then rank."""
    return (C.half_points(code), 1 if C.is_trump(code) else 0, C.rank_value(code))


def hand_strength(hand: list[str]) -> int:
    trumps = sum(1 for c in hand if C.is_trump(c))
    oudlers = sum(1 for c in hand if c in C.OUDLERS)
    kings = sum(1 for c in hand if C.rank(c) == "K" and not C.is_trump(c))
    return trumps + 3 * oudlers + 2 * kings


def choose(legal: dict[str, Any], hand: list[str]) -> dict[str, Any]:
    """A request body (without id / table) for one of the legal options."""
    bids = legal.get("bids") or []
    if bids:
        strength = hand_strength(hand)
        want = "garde" if strength >= 15 else "prise" if strength >= 10 else "pass"
        return {"type": "bid", "contract": want if want in bids else "pass"}
    rule = legal.get("discard")
    if rule:
        required = list(rule.get("required") or [])
        need = int(rule.get("count", 6)) - len(required)
        rest = sorted(rule.get("choices") or [], key=_value)[:need]
        return {"type": "discard", "cards": C.sort_cards(required + rest)}
    if legal.get("chelem"):
        return {"type": "chelem", "announce": False}
    poignees = legal.get("poignees") or []
    if poignees:
        return {"type": "poignee", "cards": list(poignees[0]["default"])}
    plays = legal.get("plays") or []
    if plays:
        return {"type": "play", "card": min(plays, key=_value)}
    raise ValueError("nothing is legal")

"""Actions of a deal (the entries of a record's ``actions`` list) and the typed rule error.

Actions are frozen msgspec Structs tagged by ``type`` so that they encode exactly as the
``atout-deal/1`` record entries and hash/compare by value. They hold no other objects, so the
garbage collector need not track them (``gc=False``), nor then the tuples of a deal's history
that hold them: on a busy server those tuples were a fifth of the objects every young
collection walked.
"""

from __future__ import annotations

from typing import Literal

import msgspec

ContractName = Literal["pass", "prise", "garde", "garde_sans", "garde_contre"]

PASS, PRISE, GARDE, GARDE_SANS, GARDE_CONTRE = 0, 1, 2, 3, 4
CONTRACTS: tuple[str, ...] = ("pass", "prise", "garde", "garde_sans", "garde_contre")
CONTRACT_INDEX = {name: i for i, name in enumerate(CONTRACTS)}
MULTIPLIERS = (0, 1, 2, 4, 6)


class Bid(msgspec.Struct, frozen=True, gc=False, tag="bid", tag_field="type"):
    seat: int
    contract: ContractName


class Discard(msgspec.Struct, frozen=True, gc=False, tag="discard", tag_field="type"):
    seat: int
    cards: tuple[str, ...]


class Chelem(msgspec.Struct, frozen=True, gc=False, tag="chelem", tag_field="type"):
    seat: int
    announce: bool


class Poignee(msgspec.Struct, frozen=True, gc=False, tag="poignee", tag_field="type"):
    seat: int
    cards: tuple[str, ...]


class Play(msgspec.Struct, frozen=True, gc=False, tag="play", tag_field="type"):
    seat: int
    card: str


Action = Bid | Discard | Chelem | Poignee | Play


class IllegalAction(ValueError):
    """An action the rules forbid now. ``rule`` is the RULES.md number it breaks (e.g. "R7.6")."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message

"""The pure rules engine of French Tarot as written in RULES.md (R1..R10).

No I/O, no clock, no global state; randomness only through an explicit seed or RNG.
"""

from .actions import (
    CONTRACTS,
    MULTIPLIERS,
    Action,
    Bid,
    Chelem,
    Discard,
    IllegalAction,
    Play,
    Poignee,
)
from .deal import (
    BIDDING,
    CHELEM,
    DISCARD,
    OVER,
    PLAY,
    DealState,
    DiscardRule,
    Legal,
    PoigneeOption,
    apply,
    deal_from_codes,
    deal_from_masks,
    legal_actions,
    new_deal,
)
from .scoring import Score, result_dict, score

__all__ = [
    "BIDDING",
    "CHELEM",
    "CONTRACTS",
    "DISCARD",
    "MULTIPLIERS",
    "OVER",
    "PLAY",
    "Action",
    "Bid",
    "Chelem",
    "DealState",
    "Discard",
    "DiscardRule",
    "IllegalAction",
    "Legal",
    "Play",
    "Poignee",
    "PoigneeOption",
    "Score",
    "apply",
    "deal_from_codes",
    "deal_from_masks",
    "legal_actions",
    "new_deal",
    "result_dict",
    "score",
]

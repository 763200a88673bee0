"""One decision of the rules at a time: what to offer, and what a typed answer means.

A :class:`Decision` is built from the ``legal`` object the server sent (it offers nothing else)
and turns a line the player typed into an :class:`Outcome`: a request to send, a translated
refusal that explains the rule, or another decision (after declining a poignée, the card).
Pure: no I/O, so every refusal is unit-tested.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from . import cards as C
from .i18n import Tr
from .model import CONTRACTS
from .render import CardStyle, Items, numbered

_SPLIT = re.compile(r"[\s,;]+")


@dataclass
class Outcome:
    action: dict[str, Any] | None = None  # a request body (without id / table)
    error: str | None = None  # a translated refusal
    next: Decision | None = None  # continue with another decision


@dataclass
class Decision:
    legal: dict[str, Any]
    hand: list[str]
    tr: Tr
    cs: CardStyle
    numbers: dict[str, int] = field(default_factory=dict)  # cards marked in the hand view

    legend = "screen.hand_legend"  # what the numbers in the hand view mean

    def __post_init__(self) -> None:  # subclasses set up their numbering here
        pass

    def prompt(self) -> str:
        raise NotImplementedError

    def header(self) -> list[RenderableType]:
        """Lines shown between the hand and the prompt (options, rule reminders)."""
        return []

    def handle(self, text: str) -> Outcome:
        raise NotImplementedError

    def completions(self) -> list[str]:
        """Words Tab may complete at this prompt (card codes, bids, yes and no)."""
        return []

    # helpers -----------------------------------------------------------------------------

    def card_label(self, code: str) -> str:
        return f"{self.cs.label(code)} ({self.tr.card_name(code)})"

    def no_number(self, n: int, last: int) -> str:
        """The refusal of a number that is not in the list 1..``last``."""
        if last == 1:
            return self.tr("err.number_one", n=n)
        return self.tr("err.number", n=n, max=last)

    def read_card(self, token: str, by_number: dict[int, str]) -> tuple[str | None, str | None]:
        """(card, None) or (None, refusal) for one typed token: a list number or a code."""
        t = token.strip()
        if t.isdigit():
            n = int(t)
            if n in by_number:
                return by_number[n], None
            if not by_number:
                return None, self.tr("err.unknown", text=t)
            return None, self.no_number(n, max(by_number))
        code = C.normalize(t, french=self.tr.lang == "fr")
        if code is None:
            return None, self.tr("err.unknown", text=t) + " " + self.tr("help.codes")
        return code, None


# ---------------------------------------------------------------------------------- bidding

_BID_WORDS = {
    "pass": "pass",
    "p": "pass",
    "passe": "pass",
    "pas": "pass",
    "0": "pass",
    "prise": "prise",
    "petite": "prise",
    "garde": "garde",
    "g": "garde",
    "gs": "garde_sans",
    "garde_sans": "garde_sans",
    "garde sans": "garde_sans",
    "garde sans le chien": "garde_sans",
    "gc": "garde_contre",
    "garde_contre": "garde_contre",
    "garde contre": "garde_contre",
    "garde contre le chien": "garde_contre",
}


class BidDecision(Decision):
    @property
    def bids(self) -> list[str]:
        return list(self.legal.get("bids") or [])

    def prompt(self) -> str:
        return self.tr("prompt.bid")

    def options(self) -> list[str]:
        return [f"{i}: {self.tr.contract(b)}" for i, b in enumerate(self.bids, 1)]

    def options_text(self) -> str:
        return "  ".join(self.options())

    def header(self) -> list[RenderableType]:
        return [
            Items(self.options(), style="bold"),  # wrapped between two bids, not inside one
            Text(self.tr("prompt.bid_help"), style="dim"),
        ]

    def completions(self) -> list[str]:
        return [b for b in self.bids] + [str(i) for i in range(1, len(self.bids) + 1)]

    def handle(self, text: str) -> Outcome:
        t = " ".join(text.strip().lower().replace("-", " ").split())
        bids = self.bids
        if not t:
            return Outcome(error=self.tr("err.empty"))
        choice: str | None = None
        if t.isdigit() and 1 <= int(t) <= len(bids):
            choice = bids[int(t) - 1]
        else:
            choice = _BID_WORDS.get(t) or _BID_WORDS.get(t.replace("_", " "))
            if choice is None:
                for b in CONTRACTS:  # the translated names work too ("passe", "pas", ...)
                    name = self.tr.contract(b).lower()
                    if t == name or t == name.split(" (")[0]:
                        choice = b
        if choice is None:
            return Outcome(error=self.tr("err.bid", text=text.strip(), options=self.options_text()))
        if choice not in bids:  # one sentence: why not, and what may be bid
            return Outcome(
                error=self.tr(
                    "err.bid_low", contract=self.tr.contract(choice), options=self.options_text()
                )
            )
        return Outcome(action={"type": "bid", "contract": choice})


# ---------------------------------------------------------------------------------- discard


class DiscardDecision(Decision):
    legend = "screen.hand_legend_discard"

    def __post_init__(self) -> None:
        rule = self.legal.get("discard") or {}
        self.count = int(rule.get("count", 6))
        self.required = list(rule.get("required") or [])
        self.choices = list(rule.get("choices") or [])
        self.numbers = numbered(self.choices)
        self.by_number = {n: c for c, n in self.numbers.items()}

    @property
    def need(self) -> int:
        return self.count - len(self.required)

    def plain_count(self) -> int:
        return sum(1 for c in self.hand if C.suit(c) in C.SUITS and C.rank(c) != "K")

    def rule_text(self) -> str:
        if self.required:
            return self.tr("prompt.discard_rule_forced", n=len(self.required))
        return self.tr("prompt.discard_rule_plain", n=self.plain_count())

    def prompt(self) -> str:
        return self.tr("prompt.discard")

    def header(self) -> list[RenderableType]:
        lines: list[RenderableType] = [Text(self.rule_text(), style="dim")]
        if self.required:
            lines.append(
                Text(self.tr("prompt.discard_required", cards="")).append_text(
                    self.cs.row(self.required)
                )
            )
        if self.need > 0:
            lines.append(Text(self.tr("prompt.discard_help", n=self.need), style="bold"))
        else:
            lines.append(Text(self.tr("prompt.discard_confirm"), style="bold"))
        return lines

    def completions(self) -> list[str]:
        return list(self.choices)

    def refuse(self, msg: str) -> Outcome:
        return Outcome(error=f"{msg}\n{self.rule_text()}")

    def handle(self, text: str) -> Outcome:
        tokens = [t for t in _SPLIT.split(text.strip()) if t]
        if not tokens and self.need > 0:
            return self.refuse(self.tr("prompt.discard_help", n=self.need))
        picked: list[str] = []
        for tok in tokens:
            code, err = self.read_card(tok, self.by_number)
            if err is not None or code is None:
                return self.refuse(err or "")
            label = self.card_label(code)
            if code not in self.hand:
                return self.refuse(self.tr("err.not_in_hand", card=label))
            if code in picked:
                return self.refuse(self.tr("err.discard_twice", card=label))
            if code not in self.choices and code not in self.required:
                if code in C.OUDLERS or (C.rank(code) == "K" and not C.is_trump(code)):
                    return self.refuse(self.tr("err.discard_never", card=label))
                if C.is_trump(code) and not self.required:
                    return self.refuse(self.tr("err.discard_trump", card=label))
                return self.refuse(self.tr("err.discard_not_choice", card=label))
            picked.append(code)
        cards = list(self.required) + [c for c in picked if c not in self.required]
        if len(cards) != self.count:
            return self.refuse(self.tr("err.discard_count", count=self.count, n=len(cards)))
        return Outcome(action={"type": "discard", "cards": C.sort_cards(cards)})


# ---------------------------------------------------------------------------------- chelem


def yes_no(text: str, tr: Tr) -> bool | None:
    t = text.strip().lower()
    if t in tr.yes_words():
        return True
    if t in tr.no_words() or t == "":
        return False
    return None


class ChelemDecision(Decision):
    def prompt(self) -> str:
        return self.tr("prompt.chelem")  # short: what it means is said above it (60 columns)

    def header(self) -> list[RenderableType]:
        return [Text(self.tr("prompt.chelem_help"), style="dim")]

    def completions(self) -> list[str]:
        return sorted(self.tr.yes_words() | self.tr.no_words())

    def handle(self, text: str) -> Outcome:
        answer = yes_no(text, self.tr)
        if answer is None:
            return Outcome(error=self.tr("err.yes_no"))
        if answer:  # a chelem costs 200 when it fails: ask once more (R10.4)
            confirm = ConfirmDecision(self.legal, self.hand, self.tr, self.cs)
            confirm.back = self
            return Outcome(next=confirm)
        return Outcome(action={"type": "chelem", "announce": False})


class ConfirmDecision(Decision):
    """ "Really announce a chelem?": yes sends it, anything else asks the question again."""

    back: Decision | None = None

    def prompt(self) -> str:
        return self.tr("prompt.chelem_confirm")

    def completions(self) -> list[str]:
        return sorted(self.tr.yes_words() | self.tr.no_words())

    def handle(self, text: str) -> Outcome:
        if yes_no(text, self.tr) is True:
            return Outcome(action={"type": "chelem", "announce": True})
        return Outcome(next=self.back)


# ---------------------------------------------------------------------------------- play


class PlayDecision(Decision):
    trick: list[str] | None = None  # cards of the trick in progress (to explain refusals)

    def __post_init__(self) -> None:
        self.plays = list(self.legal.get("plays") or [])
        self.numbers = numbered(self.plays)
        self.by_number = {n: c for c, n in self.numbers.items()}
        self.sent: str | None = None

    def prompt(self) -> str:
        only = self.single()
        if only is not None:
            return self.tr("prompt.play_single", card=self.cs.label(only))
        return self.tr("prompt.play")

    def header(self) -> list[RenderableType]:
        # a suit card if there is one: its code and its label differ (`C4`, `♣4`), and the
        # refusals describe the codes (help.codes); both forms are accepted
        ordered = C.sort_cards(self.plays)
        example = next((c for c in ordered if C.suit(c) in C.SYMBOLS), None)
        example = example or (ordered[0] if ordered else "H10")
        typed, label = self.cs.typed(example), self.cs.label(example)
        if label != typed:
            typed = self.tr("prompt.card_forms", code=typed, label=label)
        return [Text(self.tr("prompt.play_help", example=typed), style="dim")]

    def completions(self) -> list[str]:
        out = list(self.plays)
        if self.tr.lang == "fr":  # the French rank letters work too (HR for HK)
            out += [c[0] + C.FRENCH_RANKS[c[1:]] for c in self.plays
                    if C.suit(c) in C.SUITS and c[1:] in ("K", "Q", "J")]  # fmt: skip
        return out

    def handle(self, text: str) -> Outcome:
        t = text.strip()
        if not t:
            only = self.single()
            if only is not None:  # Enter plays the only legal card
                return Outcome(action={"type": "play", "card": only})
            return Outcome(error=self.tr("err.empty"))
        code, err = self.read_card(t, self.by_number)
        if err is not None or code is None:
            return Outcome(error=err)
        if code not in self.hand:
            return Outcome(error=self.tr("err.not_in_hand", card=self.card_label(code)))
        if code not in self.plays:
            # The server's `legal` says it is refused: explain why here, in the player's
            # language, and send nothing (the server would only refuse it in English).
            return Outcome(error=self.explain(code))
        self.sent = code
        return Outcome(action={"type": "play", "card": code})

    def single(self) -> str | None:
        """The only card that may be played, if there is exactly one."""
        return self.plays[0] if len(self.plays) == 1 else None

    def explain(self, card: str, rule: str | None = None, message: str = "") -> str:
        """A translated explanation of why ``card`` may not be played, from the trick in
        progress and the legal cards (R7.5, R7.6)."""
        tr = self.tr
        trick = self.trick or []
        lead = next((C.suit(c) for c in trick if c != C.EXCUSE), "")
        has = {C.suit(c) for c in self.hand}
        trumps_in_trick = [c for c in trick if C.is_trump(c)]
        higher = [c for c in self.plays if C.is_trump(c)]
        if lead and lead in C.SUITS and lead in has and C.suit(card) != lead:
            why = tr("why.follow", suit=tr(f"suit.{lead}"))
        elif C.is_trump(card) and trumps_in_trick and higher:
            best = max(trumps_in_trick, key=C.rank_value)
            why = tr(
                "why.overtrump",
                card=self.cs.label(best),
                cards=" ".join(self.cs.label(c) for c in C.sort_cards(higher)),
            )
        elif lead == "T" and "T" in has:
            why = tr("why.trump_led")
        elif lead and lead in C.SUITS and "T" in has:
            why = tr("why.trump", suit=tr(f"suit.{lead}"))
        else:
            why = tr("why.generic", rule=rule or "R7")
        legal = " ".join(f"{self.numbers[c]}:{self.cs.label(c)}" for c in C.sort_cards(self.plays))
        return (
            tr("err.illegal_play", card=self.card_label(card), why=why)
            + "\n"
            + tr("why.legal", cards=legal)
        )


# ---------------------------------------------------------------------------------- poignée


class PoigneeDecision(Decision):
    """Offered before the first card when the hand qualifies (R6.3); then the card is asked."""

    play: PlayDecision | None = None

    def __post_init__(self) -> None:
        self.options = list(self.legal.get("poignees") or [])

    def prompt(self) -> str:
        return self.tr("prompt.poignee")

    def header(self) -> list[RenderableType]:
        lines: list[RenderableType] = []
        for i, opt in enumerate(self.options, 1):
            lines.append(
                Text(
                    self.tr(
                        "prompt.poignee_option",
                        i=i,
                        level=self.tr(f"level.{opt['level']}"),
                        size=opt["size"],
                        bonus=opt["bonus"],
                        cards="",
                    )
                ).append_text(self.cs.row(opt["default"]))
            )
        size = self.options[0]["size"] if self.options else 10
        lines.append(Text(self.tr("prompt.poignee_help", size=size), style="dim"))
        return lines

    def handle(self, text: str) -> Outcome:
        t = text.strip()
        if not t or yes_no(t, self.tr) is False:
            return Outcome(next=self.play)
        if t.isdigit():
            n = int(t)
            if 1 <= n <= len(self.options):
                return Outcome(
                    action={"type": "poignee", "cards": list(self.options[n - 1]["default"])}
                )
            return Outcome(error=self.no_number(n, len(self.options)))
        if yes_no(t, self.tr) is True and len(self.options) == 1:
            return Outcome(action={"type": "poignee", "cards": list(self.options[0]["default"])})
        cards: list[str] = []
        for tok in (x for x in _SPLIT.split(t) if x):
            code = C.normalize(tok, french=self.tr.lang == "fr")
            if code is None:
                return Outcome(error=self.tr("err.unknown", text=tok) + " " + self.tr("help.codes"))
            if code not in cards:
                cards.append(code)
        by_size = {int(o["size"]): o for o in self.options}
        opt = by_size.get(len(cards))
        if opt is None:
            o = self.options[0]
            return Outcome(
                error=self.tr(
                    "err.poignee_size",
                    level=self.tr(f"level.{o['level']}"),
                    size=o["size"],
                    n=len(cards),
                )
            )
        eligible = set(opt["eligible"])
        for c in cards:
            if c not in eligible:
                return Outcome(error=self.tr("err.poignee_card", card=self.card_label(c)))
        if C.EXCUSE in cards and set(cards) != eligible:
            return Outcome(error=self.tr("err.poignee_excuse"))
        return Outcome(action={"type": "poignee", "cards": C.sort_cards(cards)})


def decision_for(
    legal: dict[str, Any], hand: list[str], tr: Tr, cs: CardStyle, trick: list[str] | None
) -> Decision | None:
    """The decision a ``legal`` object asks for (a poignée offer first when there is one)."""
    if legal.get("bids"):
        return BidDecision(legal, hand, tr, cs)
    if legal.get("discard"):
        return DiscardDecision(legal, hand, tr, cs)
    if legal.get("chelem"):
        return ChelemDecision(legal, hand, tr, cs)
    if legal.get("plays"):
        play = PlayDecision(legal, hand, tr, cs)
        play.trick = list(trick or [])
        if legal.get("poignees"):
            p = PoigneeDecision(legal, hand, tr, cs)
            p.play = play
            return p
        return play
    return None

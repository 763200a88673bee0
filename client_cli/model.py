"""The client's picture of one table, built only from protocol messages (snapshots and events).

Pure: no I/O. :meth:`TableModel.apply` takes one decoded server message (a dict, as it arrived on
the wire) and updates the model; rendering and prompting read the model. Keeping the messages as
plain dicts makes the model tolerant of fields added later within protocol v1.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from . import cards as C

CONTRACTS = ("pass", "prise", "garde", "garde_sans", "garde_contre")
# Events that move a deal on (anything else: seats, table state, scores, hidden).
DEAL_EVENTS = frozenset(
    {
        "deal_start",
        "bid",
        "contract",
        "chien",
        "discard",
        "chelem",
        "poignee",
        "play",
        "trick",
        "deal_over",
    }
)
# The events of a seat's own decisions (each carries that `seat`).
ACTION_EVENTS = frozenset({"bid", "discard", "chelem", "poignee", "play"})


@dataclass
class DealModel:
    """One deal as this seat (or a spectator) knows it: the fields of the protocol's DealView."""

    deal_no: int = 0
    phase: str = "bidding"
    dealer: int = 0
    turn: int | None = None
    hand: list[str] | None = None
    hand_sizes: list[int] = field(default_factory=lambda: [18, 18, 18, 18])
    bids: list[dict[str, Any]] = field(default_factory=list)
    taker: int | None = None
    contract: str | None = None
    chien: list[str] | None = None
    discard: list[str] | None = None
    discard_trumps: list[str] = field(default_factory=list)
    chelem_announced: bool | None = None
    poignees: list[dict[str, Any]] = field(default_factory=list)
    tricks: list[dict[str, Any]] = field(default_factory=list)
    trick: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    record: dict[str, Any] | None = None

    @classmethod
    def from_view(cls, view: dict[str, Any], deal_no: int) -> DealModel:
        d = cls(deal_no=deal_no)
        for name in (
            "phase",
            "dealer",
            "turn",
            "hand",
            "hand_sizes",
            "bids",
            "taker",
            "contract",
            "chien",
            "discard",
            "discard_trumps",
            "chelem_announced",
            "poignees",
            "tricks",
            "trick",
            "result",
            "record",
        ):
            if name in view:
                value = copy.deepcopy(view[name])
                if name == "discard_trumps" and value is None:
                    value = []
                setattr(d, name, value)
        if d.hand is not None:
            d.hand = C.sort_cards(d.hand)
        return d

    @classmethod
    def from_record(cls, rec: dict[str, Any], deal_no: int) -> DealModel:
        """A finished deal rebuilt from its ``atout-deal/1`` record (the answer to a ``deal``
        request): bids, contract, chien, discard, declarations and every trick, with its winner
        (R7.7, R8.3)."""
        dealer = int(rec.get("dealer", 0))
        d = cls(deal_no=deal_no, phase="over", dealer=dealer, hand_sizes=[0, 0, 0, 0])
        d.record = rec
        d.result = rec.get("result")
        d.chien = list(rec.get("chien") or [])
        d.hand = []
        leader = (dealer + 1) % 4  # R2.3
        cards: list[str] = []
        taker: int | None = None
        for a in rec.get("actions") or []:
            t, seat = a.get("type"), int(a.get("seat", 0))
            if t == "bid":
                d.bids.append({"seat": seat, "contract": a["contract"]})
                if a["contract"] != "pass":
                    taker, d.contract = seat, a["contract"]
            elif t == "discard":
                d.discard = list(a.get("cards") or [])
                d.discard_trumps = [c for c in d.discard if C.is_trump(c)]
            elif t == "chelem":
                d.chelem_announced = bool(a.get("announce"))
                if d.chelem_announced:
                    leader = seat  # R6.2
            elif t == "poignee":
                level = {10: "single", 13: "double", 15: "triple"}.get(len(a["cards"]), "single")
                d.poignees.append({"seat": seat, "level": level, "cards": list(a["cards"])})
            elif t == "play":
                cards.append(a["card"])
                if len(cards) == 4:
                    n = len(d.tricks)
                    side = [taker == w for w in (t2["winner"] for t2 in d.tricks)]
                    excuse_wins = n == 17 and len(set(side)) == 1 and side[0] == (leader == taker)
                    winner = C.trick_winner(cards, leader, excuse_wins=excuse_wins)
                    d.tricks.append({"leader": leader, "cards": cards, "winner": winner})
                    leader, cards = winner, []
        d.taker = taker
        return d

    def own_actions(self, seat: int) -> list[dict[str, Any]]:
        """The moves of ``seat`` in this deal so far, in order, as event-like dicts (what the
        view shows: bids, the discard and chelem decision of a taker, poignées, cards)."""
        out: list[dict[str, Any]] = [
            {"type": "bid", "seat": seat, "contract": b["contract"]}
            for b in self.bids
            if b["seat"] == seat
        ]
        if seat == self.taker:
            if self.discard is not None or self.discard_trumps:
                out.append({"type": "discard", "seat": seat})
            if self.chelem_announced is not None:
                out.append({"type": "chelem", "seat": seat, "announce": self.chelem_announced})
        out += [{"type": "poignee", "seat": seat} for p in self.poignees if p["seat"] == seat]
        tricks = [*self.tricks, *([self.trick] if self.trick else [])]
        for t in tricks:
            for i, c in enumerate(t["cards"]):
                if (t["leader"] + i) % 4 == seat:
                    out.append({"type": "play", "seat": seat, "card": c})
        return out

    def bid_of(self, seat: int) -> str | None:
        for b in self.bids:
            if b["seat"] == seat:
                return str(b["contract"])
        return None

    def tricks_won(self, seat: int) -> int:
        return sum(1 for t in self.tricks if t.get("winner") == seat)


@dataclass
class TableModel:
    """A table: its description, the current (or last) deal, scores and the seat to act."""

    table: str = ""
    seat: int | None = None  # our seat; None: spectator
    v: int = 0
    info: dict[str, Any] = field(default_factory=dict)
    deal: DealModel | None = None
    legal: dict[str, Any] | None = None  # from your_turn, cleared once it is stale
    legal_v: int = -1
    timer: float | None = None
    last_scores: dict[str, Any] | None = None  # the latest `scores` event
    finished_deals: list[tuple[DealModel, dict[str, Any] | None]] = field(default_factory=list)
    deals: dict[int, DealModel] = field(default_factory=dict)  # every finished deal known, by no.
    series_start: int | None = None  # deal_no of the series' first deal, when seen starting
    closed_reason: str | None = None

    # ------------------------------------------------------------------ seats and names

    def seat_info(self, seat: int) -> dict[str, Any]:
        seats = self.info.get("seats") or []
        for s in seats:
            if s.get("seat") == seat:
                return dict(s)
        return {"seat": seat, "kind": "empty"}

    @property
    def state(self) -> str:
        return str(self.info.get("state", "waiting"))

    @property
    def scores(self) -> list[float]:
        return list(self.info.get("scores") or [0, 0, 0, 0])

    def series_position(self) -> int:
        """The number of the deal in the series as players count it: scored deals so far,
        plus one while a deal is being played (an annulled deal is dealt again, R3)."""
        scored = int(self.info.get("scored") or 0)
        d = self.deal
        return scored + (1 if d is not None and d.phase != "over" else 0) or 1

    # ------------------------------------------------------------------ messages

    def apply(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        """Take one server message for this table into account; returns the table events it
        carried (for the caller to narrate), in order."""
        kind = msg.get("type")
        if kind == "snapshot":
            self._snapshot(msg)
            return []
        if kind == "event":
            v = int(msg.get("v", 0))
            if v <= self.v:  # already seen (a resend after resuming)
                return []
            self.v = v
            ev = msg.get("event") or {}
            self._event(ev, msg.get("turn"))
            return [ev]
        if kind == "your_turn":
            if int(msg.get("v", 0)) < self.v:
                return []  # a prompt for an older position; a fresh one follows
            self.legal = copy.deepcopy(msg.get("legal"))
            self.legal_v = int(msg.get("v", 0))
            self.timer = msg.get("timer")
            hand = msg.get("hand")
            if hand and self.deal is not None:  # the server's word on our cards wins
                self.deal.hand = C.sort_cards(hand)
            return []
        return []

    def series_deals(self) -> list[DealModel]:
        """The finished deals of the current series that the model knows, in order: from the
        series' first deal when it was seen starting, else the last ``scored`` played deals
        (and the annulled ones between them)."""
        done = sorted(self.deals.values(), key=lambda d: d.deal_no)
        if self.series_start is not None:
            return [d for d in done if d.deal_no >= self.series_start]
        want = int(self.info.get("scored") or 0)
        out: list[DealModel] = []
        for d in reversed(done):
            if sum(1 for x in out if (x.result or {}).get("status") == "played") >= want:
                break
            out.append(d)
        return out[::-1]

    def my_turn(self) -> bool:
        """Whether the server's last word is that our seat must act now: a ``your_turn`` (or a
        snapshot's ``legal``) that no deal event has made stale since, while the stream's
        ``turn`` names our seat. Seat and table events do not change whose turn it is."""
        return (
            self.legal is not None
            and self.seat is not None
            and self.deal is not None
            and self.deal.turn == self.seat
        )

    def _snapshot(self, msg: dict[str, Any]) -> None:
        self.table = str(msg.get("table", self.table))
        self.v = int(msg.get("v", 0))
        self.seat = msg.get("seat")
        self.info = copy.deepcopy(msg.get("info") or {})
        view = msg.get("deal")
        self.deal = DealModel.from_view(view, int(self.info.get("deal_no", 0))) if view else None
        if self.deal is not None and self.deal.phase == "over":
            self.deals[self.deal.deal_no] = self.deal
        self.legal = None
        if view and view.get("legal") is not None:
            self.legal = copy.deepcopy(view["legal"])
            self.legal_v = self.v

    def _set_seat(self, ev: dict[str, Any]) -> None:
        seats = self.info.setdefault("seats", [])
        entry = {k: ev.get(k) for k in ("seat", "kind", "name", "connected", "ai", "identity")}
        for i, s in enumerate(seats):
            if s.get("seat") == ev.get("seat"):
                seats[i] = {**s, **entry}
                return
        seats.append(entry)
        seats.sort(key=lambda s: s.get("seat", 0))

    def _event(self, ev: dict[str, Any], turn: int | None) -> None:
        t = ev.get("type")
        d = self.deal
        if t in DEAL_EVENTS:
            self.legal = None  # the deal moved on: an older prompt is stale
        elif d is not None and t in ("seat", "table_state"):
            # Someone sat, left or dropped: whose turn it is does not change, and the server
            # sends no new prompt, so the one we hold stays valid. `turn` still says who acts.
            d.turn = turn
        if t == "seat":
            self._set_seat(ev)
            return
        if t == "table_state":
            for k in ("state", "series", "deal_no", "scores"):
                if k in ev:
                    self.info[k] = copy.deepcopy(ev[k])
            if ev.get("state") == "playing":
                self.info["scored"] = 0  # a series starts (or restarts)
                self.series_start = int(self.info.get("deal_no") or 0) + 1
            if ev.get("state") == "closed":
                self.closed_reason = ev.get("reason") or "closed"
            return
        if t == "scores":
            self.last_scores = copy.deepcopy(ev)
            self.info["scores"] = list(ev.get("total") or self.scores)
            if d is not None and (d.result or {}).get("status") == "played":
                self.info["scored"] = int(self.info.get("scored") or 0) + 1
            if self.finished_deals and self.finished_deals[-1][1] is None:
                self.finished_deals[-1] = (self.finished_deals[-1][0], self.last_scores)
            return
        if t == "deal_start":
            hand = ev.get("hand")
            self.deal = DealModel(
                deal_no=int(ev.get("deal_no", self.info.get("deal_no", 0))),
                dealer=int(ev.get("dealer", 0)),
                hand=C.sort_cards(hand) if hand is not None else None,
                turn=turn,
            )
            self.info["deal_no"] = self.deal.deal_no
            return
        if d is None or t == "hidden":
            return
        d.turn = turn
        if t == "bid":
            d.bids.append({"seat": ev["seat"], "contract": ev["contract"]})
        elif t == "contract":
            d.taker = ev["taker"]
            d.contract = ev["contract"]
            d.phase = "discard" if ev["contract"] in ("prise", "garde") else "chelem"
        elif t == "chien":
            d.chien = list(ev["cards"])
            if d.taker is not None:
                d.hand_sizes[d.taker] += len(d.chien)
                if d.taker == self.seat and d.hand is not None:
                    d.hand = C.sort_cards(d.hand + d.chien)
        elif t == "discard":
            d.discard_trumps = list(ev.get("trumps") or [])
            cards = ev.get("cards")
            seat = ev["seat"]
            d.hand_sizes[seat] = max(0, d.hand_sizes[seat] - 6)
            if cards is not None:
                d.discard = list(cards)
                if seat == self.seat and d.hand is not None:
                    d.hand = [c for c in d.hand if c not in cards]
            d.phase = "chelem"
        elif t == "chelem":
            d.chelem_announced = bool(ev["announce"])
            d.phase = "play"
            d.trick = {"leader": ev.get("leader", turn), "cards": [], "winner": None}
        elif t == "poignee":
            d.poignees.append({"seat": ev["seat"], "level": ev["level"], "cards": ev["cards"]})
        elif t == "play":
            if d.trick is None:
                d.trick = {"leader": ev["seat"], "cards": [], "winner": None}
            d.trick["cards"].append(ev["card"])
            seat = ev["seat"]
            d.hand_sizes[seat] = max(0, d.hand_sizes[seat] - 1)
            if seat == self.seat and d.hand is not None and ev["card"] in d.hand:
                d.hand.remove(ev["card"])
        elif t == "trick":
            d.tricks.append(
                {"leader": ev["leader"], "cards": list(ev["cards"]), "winner": ev["winner"]}
            )
            d.trick = (
                {"leader": ev["winner"], "cards": [], "winner": None}
                if len(d.tricks) < 18
                else None
            )
        elif t == "deal_over":
            d.phase = "over"
            d.turn = None
            d.result = copy.deepcopy(ev.get("result"))
            d.record = copy.deepcopy(ev.get("record"))
            rec = d.record or {}
            if rec.get("chien") is not None:
                d.chien = list(rec["chien"])
            for a in rec.get("actions") or []:
                if a.get("type") == "discard":
                    d.discard = list(a.get("cards") or [])
            self.finished_deals.append((d, None))
            self.deals[d.deal_no] = d


# ---------------------------------------------------------------------- derived figures


def trick_split(trick: dict[str, Any], index: int, taker: int) -> tuple[int, int]:
    """(half points the taker's side gets from the trick, half points the defence gets),
    under the Excuse rules (R8): before the last trick the Excuse stays with its player's
    side and half a point passes to the winners when the other side won it (R8.1); in the
    last trick it goes to the side opposing its player (R8.2) unless it won the trick after
    17 others (R8.3)."""
    leader, winner = trick["leader"], trick["winner"]
    winner_taker = winner == taker
    side = [0, 0]  # taker, defence
    for pos, c in enumerate(trick["cards"]):
        player = (leader + pos) % 4
        if c != C.EXCUSE:
            side[0 if winner_taker else 1] += C.half_points(c)
            continue
        player_taker = player == taker
        if index == 17:
            if winner == player:  # R8.3
                side[0 if player_taker else 1] += 9
            else:  # R8.2
                side[1 if player_taker else 0] += 9
        elif player_taker == winner_taker:
            side[0 if player_taker else 1] += 9
        else:  # R8.1: it stays with its side, half a point passes to the trick's winners
            side[0 if player_taker else 1] += 8
            side[0 if winner_taker else 1] += 1
    return side[0], side[1]


def trick_gain(deal: DealModel, index: int) -> float:
    """Card points the winner of trick ``index`` earns for its side (the Excuse of the other
    side stays with it, R8.1)."""
    t = deal.tricks[index]
    if deal.taker is None:
        return C.points(t["cards"])
    taker_half, defence_half = trick_split(t, index, deal.taker)
    return (taker_half if t["winner"] == deal.taker else defence_half) / 2


def running_points(deal: DealModel) -> list[tuple[float, float]]:
    """(points of the trick, taker's running card points) after each finished trick, applying
    the Excuse rules (R8) so that, with the discard or chien added at the end (R9.1), the total
    equals the result's ``taker_points``."""
    out: list[tuple[float, float]] = []
    taker = deal.taker
    if taker is None:
        return out
    half = 0
    for i, t in enumerate(deal.tricks):
        gained, _ = trick_split(t, i, taker)
        half += gained
        out.append((C.points(t["cards"]), half / 2))
    return out


def pile_bonus(deal: DealModel) -> float:
    """Card points the discard or the chien adds to the taker's pile (R9.1)."""
    if deal.contract in ("prise", "garde"):
        return C.points(deal.discard or [])
    if deal.contract == "garde_sans":
        return C.points(deal.chien or [])
    return 0.0

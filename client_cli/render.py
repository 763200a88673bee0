"""What the table looks like: rich renderables built from a :class:`TableModel`.

Nothing here prints or reads input; :mod:`client_cli.app` decides when to show what. Cards are
shown as suit symbol + rank (``♥10`` is code ``H10``), hearts and diamonds in red, trumps
(``T21``) and the Excuse (``EX``) each in their own style.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from . import cards as C
from .i18n import Tr
from .model import DealModel, TableModel, pile_bonus, running_points

STYLE = {
    "S": "bold",
    "C": "bold",
    "H": "bold red",
    "D": "bold red",
    "T": "bold cyan",
    "EX": "bold magenta",
}


class CardStyle:
    """How to draw cards: with suit symbols (UTF-8 terminals) or with code letters."""

    def __init__(self, unicode: bool = True) -> None:
        self.unicode = unicode

    def label(self, code: str) -> str:
        s = C.suit(code)
        if s in C.SYMBOLS and self.unicode:
            return C.SYMBOLS[s] + C.rank(code)
        return code

    def text(self, code: str, *, dim: bool = False) -> Text:
        style = STYLE[C.suit(code)]
        if code in C.OUDLERS:
            style += " underline"
        if dim:
            style = "dim"
        return Text(self.label(code), style=style)

    def row(self, codes: Iterable[str], sep: str = " ") -> Text:
        out = Text()
        for i, code in enumerate(codes):
            if i:
                out.append(sep)
            out.append_text(self.text(code))
        return out


def fmt_points(x: float | int | None) -> str:
    if x is None:
        return "—"
    x = float(x)
    return str(int(x)) if x == int(x) else f"{x:.1f}"


def fmt_score(x: float | int | None) -> str:
    if x is None:
        return "—"
    s = fmt_points(x)
    return s if s.startswith("-") or s == "0" else "+" + s


def seat_name(model: TableModel, seat: int | None, tr: Tr) -> str:
    if seat is None:
        return "—"
    if model.seat is not None and seat == model.seat:
        return tr("seat.you")
    info = model.seat_info(seat)
    if info.get("kind") == "human" and info.get("name"):
        return str(info["name"])
    if info.get("kind") == "ai" or info.get("ai"):
        return tr("seat.ai", n=seat)
    return tr("seat.n", n=seat)


def numbered(codes: Sequence[str]) -> dict[str, int]:
    """Numbers (1..n) for the cards a prompt offers, in display order."""
    return {c: i for i, c in enumerate(C.sort_cards(codes), 1)}


def hand_view(
    hand: Sequence[str],
    cs: CardStyle,
    tr: Tr,
    numbers: dict[str, int] | None = None,
    legend: str = "screen.hand_legend",
) -> RenderableType:
    """The hand, one line per suit (spades, hearts, clubs, diamonds, trumps, Excuse); cards in
    ``numbers`` carry their number and the others are dimmed."""
    numbers = numbers or {}
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column()
    groups: dict[str, list[str]] = {}
    for code in C.sort_cards(hand):
        groups.setdefault(C.suit(code), []).append(code)
    for g in C.GROUP_ORDER:
        if g not in groups:
            continue
        label = Text(C.SYMBOLS[g] if g in C.SYMBOLS and cs.unicode else g, style=STYLE[g])
        if g == "T":
            label = Text(tr("screen.trumps"), style=STYLE[g])
        elif g == "EX":
            label = Text("", style=STYLE[g])
        line = Text()
        for i, code in enumerate(groups[g]):
            if i:
                line.append("  ")
            n = numbers.get(code)
            if n is not None:
                line.append(f"{n}:", style="bold green")
                line.append_text(cs.text(code))
            else:
                line.append_text(cs.text(code, dim=bool(numbers)))
        grid.add_row(label, line)
    return Panel(
        grid,
        title=tr("screen.hand", n=len(hand)),
        title_align="left",
        box=box.ROUNDED,
        subtitle=tr(legend) if numbers else None,
        subtitle_align="left",
    )


def table_view(model: TableModel, tr: Tr, cs: CardStyle) -> RenderableType:
    """The table: one row per seat (player, bid, card in the current trick, tricks, score),
    then the contract, chien, discard, poignées and the last trick."""
    d = model.deal
    total = model.info.get("deals")
    deal_no = d.deal_no if d else model.info.get("deal_no", 0)
    title = (
        tr("screen.title_of", table=model.table, deal=deal_no, total=total)
        if total
        else tr("screen.title", table=model.table, deal=deal_no)
    )
    seats = Table(box=box.SIMPLE_HEAD, expand=False, pad_edge=False)
    seats.add_column(tr("screen.seat"), justify="right")
    seats.add_column(tr("screen.player"))
    seats.add_column(tr("screen.bid"))
    n_trick = len(d.tricks) + 1 if d else 1
    seats.add_column(tr("screen.trick", n=min(n_trick, 18)))
    seats.add_column(tr("screen.won"), justify="right")
    seats.add_column(tr("screen.cards"), justify="right")
    seats.add_column(tr("screen.score"), justify="right")
    seats.add_column("")
    played: dict[int, str] = {}
    leader = None
    if d and d.trick:
        leader = d.trick["leader"]
        for i, code in enumerate(d.trick["cards"]):
            played[(leader + i) % 4] = code
    scores = model.scores
    for s in range(4):
        info = model.seat_info(s)
        name = Text(seat_name(model, s, tr), style="bold" if s == model.seat else "")
        roles = []
        if d and s == d.dealer:
            roles.append(tr("seat.dealer"))
        if d and s == d.taker:
            roles.append(tr("seat.taker"))
        if info.get("kind") == "human" and not info.get("connected"):
            roles.append(tr("seat.away"))
        if roles:
            name.append(f" ({', '.join(roles)})", style="italic")
        bid = d.bid_of(s) if d else None
        bid_text = Text(tr.contract(bid) if bid else "", style="dim" if bid == "pass" else "")
        card = Text()
        if s in played:
            card = cs.text(played[s])
            if s == leader:
                card.append(f" ({tr('screen.led')})", style="dim")
        won = str(d.tricks_won(s)) if d and d.phase in ("play", "over") else ""
        n_cards = str(d.hand_sizes[s]) if d else ""
        turn = Text(tr("screen.to_act"), style="bold yellow") if d and d.turn == s else Text("")
        seats.add_row(str(s), name, bid_text, card, won, n_cards, fmt_score(scores[s]), turn)
    parts: list[RenderableType] = [seats]
    if d is not None:
        parts.extend(_deal_lines(model, d, tr, cs))
    return Panel(Group(*parts), title=title, title_align="left", box=box.ROUNDED)


def _deal_lines(model: TableModel, d: DealModel, tr: Tr, cs: CardStyle) -> list[RenderableType]:
    lines: list[RenderableType] = []
    if d.taker is not None and d.contract:
        line = Text(
            tr(
                "screen.contract",
                contract=tr.contract(d.contract),
                taker=seat_name(model, d.taker, tr),
            ),
            style="bold",
        )
        lines.append(line)
    if d.chelem_announced:
        lines.append(Text(tr("screen.chelem", name=seat_name(model, d.taker, tr)), style="bold"))
    if d.chien:
        lines.append(tr_text(tr, "screen.chien", {"cards": cs.row(C.sort_cards(d.chien))}))
    elif d.contract in ("garde_sans", "garde_contre"):
        lines.append(Text(tr("screen.chien_hidden", contract=tr.contract(d.contract)), style="dim"))
    if d.discard and model.seat is not None and model.seat == d.taker:
        lines.append(tr_text(tr, "screen.your_discard", {"cards": cs.row(C.sort_cards(d.discard))}))
    elif d.discard_trumps:
        lines.append(tr_text(tr, "screen.discard_trumps", {"cards": cs.row(d.discard_trumps)}))
    for p in d.poignees:
        lines.append(
            tr_text(
                tr,
                "screen.poignee",
                {"cards": cs.row(p["cards"])},
                name=seat_name(model, p["seat"], tr),
                level=tr(f"level.{p['level']}"),
            )
        )
    if d.tricks:
        last = d.tricks[-1]
        lines.append(
            tr_text(
                tr,
                "screen.last_trick",
                {"cards": trick_text(model, last, tr, cs)},
                name=seat_name(model, last["winner"], tr),
            )
        )
    return lines


def trick_text(model: TableModel, trick: dict[str, Any], tr: Tr, cs: CardStyle) -> Text:
    """``Ana ♥K · You ♥3 · ...`` in play order."""
    out = Text()
    for i, code in enumerate(trick["cards"]):
        seat = (trick["leader"] + i) % 4
        if i:
            out.append(" · ", style="dim")
        out.append(seat_name(model, seat, tr) + " ")
        out.append_text(cs.text(code))
    return out


# ---------------------------------------------------------------------- end of deal


def summary_view(model: TableModel, deal: DealModel, tr: Tr, cs: CardStyle) -> RenderableType:
    """The result of a deal: contract, taker, oudlers, target, points, the score's parts and
    each seat's score for the deal."""
    r = deal.result or {}
    if r.get("status") == "annulled":
        reason = tr(f"reason.{r.get('reason')}") if r.get("reason") else ""
        return Panel(Text(tr("sum.annulled", n=deal.deal_no, reason=reason)), box=box.ROUNDED)
    t = Table(box=box.SIMPLE, show_header=False, pad_edge=False)
    t.add_column(style="bold")
    t.add_column()
    taker = r.get("taker")
    t.add_row(tr("sum.contract"), tr.contract(r.get("contract")))
    t.add_row(tr("sum.taker"), seat_name(model, taker, tr))
    t.add_row(tr("sum.oudlers"), str(r.get("oudlers")))
    t.add_row(tr("sum.target"), fmt_points(r.get("target")))
    t.add_row(tr("sum.points"), fmt_points(r.get("taker_points")))
    if r.get("taker_points") is not None:
        t.add_row(tr("sum.defence"), fmt_points(91 - float(r["taker_points"])))
    diff = abs(float(r.get("taker_points") or 0) - float(r.get("target") or 0))
    outcome = tr("sum.won" if r.get("won") else "sum.lost", d=fmt_points(diff))
    t.add_row(tr("sum.outcome"), Text(outcome, style="bold green" if r.get("won") else "bold red"))
    t.add_row(tr("sum.base"), fmt_score(r.get("base")))
    t.add_row(tr("sum.petit"), fmt_score(r.get("petit_au_bout")))
    t.add_row(tr("sum.poignee"), fmt_score(r.get("poignee")))
    t.add_row(tr("sum.chelem"), fmt_score(r.get("chelem")))
    t.add_row(tr("sum.per_defender"), fmt_score(r.get("per_defender")))
    scores = r.get("scores") or [0, 0, 0, 0]
    per_seat = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    per_seat.add_column(tr("screen.player"))
    per_seat.add_column(tr("sum.scores"), justify="right")
    for s in range(4):
        per_seat.add_row(seat_name(model, s, tr), fmt_score(scores[s]))
    return Panel(
        Group(t, per_seat),
        title=tr("sum.title", n=deal.deal_no),
        title_align="left",
        box=box.ROUNDED,
    )


def standings_view(model: TableModel, tr: Tr, *, final: bool = False) -> RenderableType:
    sc = model.last_scores or {}
    deal_scores = sc.get("deal")
    totals = model.scores
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column("")
    t.add_column(tr("screen.player"))
    if deal_scores is not None:
        t.add_column(tr("sum.scores"), justify="right")
    t.add_column(tr("sum.total"), justify="right")
    order = sorted(range(4), key=lambda s: -float(totals[s]))
    for rank, s in enumerate(order, 1):
        row: list[str | Text] = [str(rank), seat_name(model, s, tr)]
        if deal_scores is not None:
            row.append(fmt_score(deal_scores[s]))
        row.append(Text(fmt_score(totals[s]), style="bold"))
        t.add_row(*row)
    title = (
        tr("sum.final")
        if final
        else tr("sum.standings", n=sc.get("deal_no", model.info.get("deal_no", 0)))
    )
    parts: list[RenderableType] = [t]
    if final:
        best = max(float(x) for x in totals)
        winners = [seat_name(model, s, tr) for s in range(4) if float(totals[s]) == best]
        line = (
            tr("sum.winner", name=winners[0])
            if len(winners) == 1
            else tr("sum.winners", names=", ".join(winners))
        )
        parts.append(Text(line, style="bold green"))
    return Panel(Group(*parts), title=title, title_align="left", box=box.ROUNDED)


def review_view(model: TableModel, deal: DealModel, tr: Tr, cs: CardStyle) -> RenderableType:
    """The whole deal: the hands as dealt and the chien, then every trick (who played what,
    who won it, its points and the taker's running card points)."""
    parts: list[RenderableType] = []
    rec = deal.record or {}
    hands = rec.get("hands")
    if hands:
        h = Table(box=box.SIMPLE_HEAD, pad_edge=False, title=tr("rev.hands"), title_justify="left")
        h.add_column(tr("screen.player"))
        h.add_column(tr("screen.cards"))
        for s in range(4):
            h.add_row(seat_name(model, s, tr), cs.row(C.sort_cards(hands[s])))
        if rec.get("chien"):
            h.add_row(tr("rev.chien"), cs.row(C.sort_cards(rec["chien"])))
        parts.append(h)
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column(tr("rev.trick"), justify="right")
    for s in range(4):
        t.add_column(seat_name(model, s, tr))
    t.add_column(tr("rev.winner"))
    t.add_column(tr("rev.points"), justify="right")
    t.add_column(tr("rev.running"), justify="right")
    running = running_points(deal)
    for i, trick in enumerate(deal.tricks):
        cells: list[Text] = [Text() for _ in range(4)]
        for j, code in enumerate(trick["cards"]):
            seat = (trick["leader"] + j) % 4
            cell = cs.text(code)
            if seat == trick["leader"]:
                cell = Text("›", style="dim") + cell
            if seat == trick["winner"]:
                cell.stylize("reverse")
            cells[seat] = cell
        pts, run = running[i] if i < len(running) else (0.0, 0.0)
        t.add_row(
            str(i + 1),
            *cells,
            seat_name(model, trick["winner"], tr),
            fmt_points(pts),
            fmt_points(run) if deal.taker is not None else "",
        )
    parts.append(t)
    r = deal.result or {}
    if deal.taker is not None and r.get("status") == "played":
        if deal.contract == "garde_contre":
            parts.append(Text(tr("rev.pile_defence")))
        else:
            parts.append(Text(tr("rev.pile", points=fmt_points(pile_bonus(deal)))))
        parts.append(
            Text(
                tr(
                    "rev.final",
                    points=fmt_points(r.get("taker_points")),
                    target=fmt_points(r.get("target")),
                ),
                style="bold",
            )
        )
    return Panel(
        Group(*parts), title=tr("rev.title", n=deal.deal_no), title_align="left", box=box.ROUNDED
    )


def tables_view(tables: list[dict[str, Any]], tr: Tr, url: str) -> RenderableType:
    if not tables:
        return Text(tr("tables.none"))
    t = Table(box=box.SIMPLE_HEAD, title=tr("tables.title", url=url), title_justify="left")
    for key in (
        "tables.id",
        "tables.name",
        "tables.state",
        "tables.players",
        "tables.deal",
        "tables.watchers",
    ):
        t.add_column(tr(key))
    for info in tables:
        players = []
        for s in info.get("seats") or []:
            if s.get("kind") == "human":
                players.append(str(s.get("name") or "?"))
            elif s.get("kind") == "ai":
                players.append(tr("seat.ai", n=s.get("seat")))
        deals = info.get("deals")
        deal = f"{info.get('deal_no', 0)}/{deals}" if deals else str(info.get("deal_no", 0))
        t.add_row(
            str(info.get("table")),
            str(info.get("name")),
            tr(f"state.{info.get('state')}"),
            ", ".join(players) or tr("seat.empty"),
            deal,
            str(info.get("spectators", 0)),
        )
    return Group(t, Text(tr("tables.join_hint")))


def tr_text(tr: Tr, key: str, parts: dict[str, Text] | None = None, **kw: Any) -> Text:
    """A translated sentence whose ``{name}`` slots in ``parts`` are rich texts (styled cards)."""
    parts = parts or {}
    marks = {k: f"\x00{k}\x00" for k in parts}
    raw = tr(key, **kw, **marks)
    out = Text()
    for i, piece in enumerate(raw.split("\x00")):
        if i % 2 == 1 and piece in parts:
            out.append_text(parts[piece])
        else:
            out.append(piece)
    return out

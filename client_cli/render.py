"""What the table looks like: rich renderables built from a :class:`TableModel`.

Nothing here prints or reads input; :mod:`client_cli.app` decides when to show what. Cards are
shown as suit symbol + rank (``♥10`` is code ``H10``), hearts and diamonds in red, trumps
(``T21``) and the Excuse (``EX``) each in their own style.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from protocol.text import CONTROL_CLASS

from . import cards as C
from .i18n import Tr, format_number
from .model import DealModel, TableModel, pile_bonus, running_points, trick_gain

STYLE = {
    "S": "bold",
    "C": "bold",
    "H": "bold red",
    "D": "bold red",
    "T": "bold cyan",
    "EX": "bold magenta",
}


# Every character protocol.text.printable spells out (C0, DEL, C1, line and paragraph
# separators, bidirectional controls), except the newline and tab of our own texts.
_CONTROL = re.compile(f"(?![\n\t])[{CONTROL_CLASS}]")
_CONTROL_LINE = re.compile(f"[{CONTROL_CLASS}]")


def _spell(m: re.Match[str]) -> str:
    n = ord(m.group())
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def safe(text: str) -> str:
    """``text`` with control characters made visible (``\x1b`` as ``\\x1b``, a bidi override
    as ``\\u202e``): the equivalent of :func:`protocol.text.printable` that keeps the newlines
    and tabs of multi-line texts."""
    return _CONTROL.sub(_spell, text)


class Items:
    """Choices side by side (``1: pass  2: prise (×1)``), wrapped between two choices, never
    inside one (unless a single choice is wider than the terminal)."""

    def __init__(self, items: list[str], style: str = "", sep: str = "  ") -> None:
        self.items = items
        self.style = style
        self.sep = sep

    def lines(self, width: int) -> list[str]:
        out: list[str] = []
        line = ""
        for item in self.items:
            if line and cell_len(line) + cell_len(self.sep) + cell_len(item) > width:
                out.append(line)
                line = ""
            line = f"{line}{self.sep}{item}" if line else item
        if line:
            out.append(line)
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(options.max_width):
            yield Text(line, style=self.style)


def safe_line(text: object) -> str:
    """One line from other people (a name, a table name or id, a server message): every
    control character made visible, newlines and tabs too, so it cannot break the layout."""
    return _CONTROL_LINE.sub(_spell, str(text))


class CardStyle:
    """How to draw cards: with suit symbols (UTF-8 terminals) or with code letters; in French
    with the French rank letters (``♥R`` for the king of hearts; the protocol code is ``HK``)."""

    def __init__(self, unicode: bool = True, lang: str = "en") -> None:
        self.unicode = unicode
        self.french = lang == "fr"

    def label(self, code: str) -> str:
        s = C.suit(code)
        if s in C.SYMBOLS:
            r = C.rank(code)
            if self.french:
                r = C.FRENCH_RANKS.get(r, r)
            return (C.SYMBOLS[s] if self.unicode else s) + r
        return code

    def typed(self, code: str) -> str:
        """The card as a player types it with letters: ``C4``, in French ``HR`` for ``HK``."""
        return CardStyle(unicode=False, lang="fr" if self.french else "en").label(code)

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


def fmt_points(x: float | int | None, tr: Tr | None = None) -> str:
    """Card points or a score as the language writes numbers (``7.5``, ``7,5``)."""
    if x is None:
        return "—"
    x = float(x)
    if tr is not None:
        return tr.num(x)
    return str(int(x)) if x == int(x) else f"{x:.1f}"


def fmt_score(x: float | int | None, tr: Tr | None = None) -> str:
    if x is None:
        return "—"
    s = fmt_points(x, tr)
    return s if s.startswith(("-", "−")) or s == "0" else "+" + s


def seat_name(model: TableModel, seat: int | None, tr: Tr, *, in_text: bool = False) -> str:
    """A seat's player as the reader sees it: ``You`` for our own seat (``you`` inside a
    sentence, ``in_text``), a player's name, ``AI 2``, or ``Seat 2``."""
    if seat is None:
        return "—"
    if model.seat is not None and seat == model.seat:
        return tr("seat.you_in" if in_text else "seat.you")
    info = model.seat_info(seat)
    if info.get("kind") == "human" and info.get("name"):
        return safe_line(info["name"])
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
    body: RenderableType = grid
    if numbers:  # inside the panel, so that a narrow hand never cuts it short
        body = Group(grid, Text(tr(legend), style="dim"))
    return Panel(
        body,
        title=tr("screen.hand", n=len(hand)),
        title_align="left",
        box=box.ROUNDED,
        expand=False,
    )


COMPACT = 80  # below this width: the compact table
MAX_WIDTH = 110  # panels never grow wider than this (wide terminals keep a readable table)


def bounded(width: int | None) -> int:
    return min(width or 100, MAX_WIDTH)


def positions(model: TableModel) -> dict[int, str]:
    """Where each seat sits, seen from ours (R2.1: seat s+1 sits to the right of seat s):
    ``you``, ``right``, ``across``, ``left``. A spectator sees the table from seat 0."""
    me = model.seat if model.seat is not None else 0
    names = ("you" if model.seat is not None else "bottom", "right", "across", "left")
    return {(me + i) % 4: names[i] for i in range(4)}


def turn_marker(model: TableModel, tr: Tr, seat: int) -> Text:
    d = model.deal
    if d is None or d.turn != seat or d.phase == "over":
        return Text("")
    return Text(tr(f"screen.to_{d.phase}"), style="bold yellow")


def _played(d: DealModel | None) -> tuple[dict[int, str], int | None]:
    played: dict[int, str] = {}
    if d is None or not d.trick:
        return played, None
    leader = d.trick["leader"]
    for i, code in enumerate(d.trick["cards"]):
        played[(leader + i) % 4] = code
    return played, leader


def compass(model: TableModel, tr: Tr, cs: CardStyle) -> RenderableType:
    """The table seen from our chair: across at the top, left and right, us at the bottom;
    under each player the card in the current trick (or the bid, while bidding), or the
    marker of the one who must act (on its own line: a narrow terminal never splits it). A
    spectator sees the table from seat 0, each player labelled with their seat."""
    d = model.deal
    played, leader = _played(d)
    where = positions(model)

    def cell(seat: int) -> Text:
        t = Text(seat_name(model, seat, tr), style="bold" if seat == model.seat else "")
        label = tr("pos.seat", n=seat) if model.seat is None else tr("pos." + where[seat])
        t.append(f" ({label})", style="dim")
        t.append("\n")
        mark = turn_marker(model, tr, seat)
        if d is not None and d.phase == "bidding" and d.bid_of(seat):
            bid = d.bid_of(seat)
            t.append(tr.contract_short(bid), style="dim" if bid == "pass" else "")
        elif seat in played:
            t.append_text(cs.text(played[seat]))
            if seat == leader:
                t.append(f" ({tr('screen.led')})", style="dim")
        elif mark.plain:
            t.append_text(mark)
        else:
            t.append("·", style="dim")
        return t

    by_pos = {v: k for k, v in where.items()}
    bottom = by_pos.get("you", by_pos.get("bottom", 0))
    grid = Table.grid(expand=False, padding=(0, 2))
    for _ in range(3):
        grid.add_column(justify="center")
    grid.add_row(Text(""), cell(by_pos["across"]), Text(""))
    grid.add_row(cell(by_pos["left"]), Text(""), cell(by_pos["right"]))
    grid.add_row(Text(""), cell(bottom), Text(""))
    return grid


def table_title(model: TableModel, tr: Tr) -> str:
    """``Table X · deal 3 of 4``: the deal's number at the table, and how far the series is.
    After a deal nobody took (dealt again, R3), the two differ: ``deal 5 · 2 of 4 scored``."""
    d = model.deal
    total = model.info.get("deals")
    deal_no = d.deal_no if d else int(model.info.get("deal_no") or 0)
    table = safe_line(model.table)
    if not total:
        return tr("screen.title", table=table, deal=deal_no)
    position = model.series_position()
    if not deal_no or deal_no == position:
        return tr("screen.title_of", table=table, deal=position, total=total)
    scored = int(model.info.get("scored") or 0)
    return tr("screen.title_redealt", table=table, deal=deal_no, scored=scored, total=total)


def table_view(
    model: TableModel, tr: Tr, cs: CardStyle, width: int | None = None
) -> RenderableType:
    """The table: the compass (who sits where, the trick in progress), one row per seat
    (player, bid, tricks won, cards left, score, who is to act), then the contract, chien,
    discard, poignées and the last trick. Compact below 80 columns."""
    d = model.deal
    compact = (width or 100) < COMPACT
    title = table_title(model, tr)
    # compact: no blank edge columns, two more for `Počítač 1 (rozdávající)` and `Zdvihy`
    seats = Table(
        box=box.SIMPLE_HEAD, expand=False, pad_edge=False, padding=(0, 1), show_edge=not compact
    )
    if not compact:
        seats.add_column(tr("screen.seat"), justify="right")
    # a player's roles stay on the player's line (`AI 2 (dealer, taker)`), never wrapped
    seats.add_column(tr("screen.player"), no_wrap=True)
    seats.add_column(tr("screen.bid"), no_wrap=True)
    show_tricks = d is not None and d.phase in ("play", "over")
    if show_tricks:
        seats.add_column(tr("screen.won"), justify="right")
    if not compact:
        seats.add_column(tr("screen.cards"), justify="right")
    seats.add_column(tr("screen.score"), justify="right")
    seats.add_column("", no_wrap=True, width=1)  # the `◀` of the one to act
    scores = model.scores
    rows: list[list[str | Text]] = []
    for s in range(4):
        info = model.seat_info(s)
        name = Text(seat_name(model, s, tr), style="bold" if s == model.seat else "")
        if compact:
            name = Text(f"{s} ") + name
        roles = []
        if d and s == d.dealer:
            roles.append(tr("seat.dealer"))
        if d and s == d.taker:
            roles.append(tr("seat.taker"))
        if info.get("kind") == "human" and not info.get("connected"):
            roles.append(tr("seat.away"))
        if s != model.seat and info.get("identity") in ("guest", "bot"):
            roles.append(tr("seat." + info["identity"]))  # a guest may take an account's name
        if roles:
            name.append(f" ({', '.join(roles)})", style="italic")
        bid = d.bid_of(s) if d else None
        bid_text = Text(tr.contract_short(bid) if bid else "", style="dim" if bid == "pass" else "")
        row: list[str | Text] = []
        if not compact:
            row.append(str(s))
        row += [name, bid_text]
        if show_tricks:
            row.append(str(d.tricks_won(s)) if d else "")
        if not compact:
            row.append(str(d.hand_sizes[s]) if d else "")
        # the compass says what they are to do (`◀ to play`); here the arrow is enough, and
        # leaves the columns their headers (`Zdvihy`, `Skóre`) at 80 columns
        mark = turn_marker(model, tr, s)
        if mark.plain:
            mark = Text("◀", style="bold yellow")
        row += [fmt_score(scores[s], tr), mark]
        rows.append(row)
    if compact and width:
        _fit_names(seats, rows, width)
    for row in rows:
        seats.add_row(*row)
    parts: list[RenderableType] = [compass(model, tr, cs), seats]
    if compact:  # the blank lines the table's edges gave
        parts = [parts[0], Text(""), seats, Text("")]
    if d is not None:
        parts.extend(_deal_lines(model, d, tr, cs))
    return Panel(Group(*parts), title=title, title_align="left", box=box.ROUNDED, expand=False)


#: Columns of the panel around the seats' table (its borders and padding).
_PANEL_EDGES = 4
#: The player's column keeps at least this many columns (`0 Marie-Ch…`).
_MIN_NAME = 10


def _fit_names(seats: Table, rows: list[list[str | Text]], width: int) -> None:
    """Compact table: shorten the player cells (name and roles, with `…`) so that the row
    fits ``width``. Rich would otherwise squeeze every other column, down to `…` for the
    score (a 60-column terminal with a long name or `(dealer, away)`)."""

    def plain(cell: Any) -> str:
        return cell.plain if isinstance(cell, Text) else str(cell)

    others = 0
    for i, column in enumerate(seats.columns[1:], 1):
        cells = [cell_len(plain(r[i])) for r in rows]
        others += max([cell_len(plain(column.header)), column.width or 0, *cells])
    # each column's padding (none at the edges) and the box's dividers between columns
    padding = sum(seats._get_padding_width(i) for i in range(len(seats.columns)))
    room = max(_MIN_NAME, width - _PANEL_EDGES - padding - seats._extra_width - others)
    for row in rows:
        name = row[0]
        if isinstance(name, Text) and cell_len(name.plain) > room:
            name.truncate(room, overflow="ellipsis")


def _deal_lines(model: TableModel, d: DealModel, tr: Tr, cs: CardStyle) -> list[RenderableType]:
    lines: list[RenderableType] = []
    if d.taker is not None and d.contract:
        line = Text(
            tr(
                "screen.contract",
                contract=tr.contract(d.contract),
                taker=seat_name(model, d.taker, tr, in_text=True),
            ),
            style="bold",
        )
        lines.append(line)
    if d.chelem_announced:
        lines.append(
            Text(
                tr("screen.chelem", name=seat_name(model, d.taker, tr, in_text=True)), style="bold"
            )
        )
    if d.chien:
        lines.append(tr_text(tr, "screen.chien", {"cards": cs.row(C.sort_cards(d.chien))}))
    elif d.contract in ("garde_sans", "garde_contre"):
        lines.append(
            Text(tr("screen.chien_hidden", contract=tr.contract_short(d.contract)), style="dim")
        )
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
                name=seat_name(model, last["winner"], tr, in_text=True),
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


def _side(tr: Tr, amount: float) -> str:
    """Who an amount seen from the taker's side goes to: the taker (positive) or the defence."""
    return tr("sum.for_taker") if amount > 0 else tr("sum.for_defence")


def summary_view(model: TableModel, deal: DealModel, tr: Tr, cs: CardStyle) -> RenderableType:
    """The result of a deal, read from each side: contract, taker, oudlers and the points they
    need, both sides' card points, made or failed by how much, each part of the score with the
    side it goes to, then what each defender and the taker win or pay, and each seat's score."""
    r = deal.result or {}
    if r.get("status") == "annulled":
        reason = tr(f"reason.{r.get('reason')}") if r.get("reason") else ""
        return Panel(
            Text(tr("sum.annulled", n=deal.deal_no, reason=reason)), box=box.ROUNDED, expand=False
        )
    t = Table(box=box.SIMPLE, show_header=False, pad_edge=False)
    t.add_column(style="bold")
    t.add_column()
    taker = r.get("taker")
    mult = int(r.get("multiplier") or 1)
    t.add_row(tr("sum.contract"), tr.contract(r.get("contract")))
    t.add_row(tr("sum.taker"), seat_name(model, taker, tr))
    oudlers = int(r.get("oudlers") or 0)
    t.add_row(
        tr("sum.oudlers"),
        tr("sum.oudlers_value", n=oudlers, target=float(r.get("target") or 0)),
    )
    pts = float(r.get("taker_points") or 0)
    t.add_row(tr("sum.points"), tr("sum.points_value", p=pts, d=91 - pts))
    diff = abs(pts - float(r.get("target") or 0))
    outcome = tr("sum.won" if r.get("won") else "sum.lost", d=diff)
    t.add_row(tr("sum.outcome"), Text(outcome, style="bold green" if r.get("won") else "bold red"))
    base = float(r.get("base") or 0)
    t.add_row(
        tr("sum.base"),
        tr("sum.base_value", d=diff, m=mult, total=abs(base), side=_side(tr, base)),
    )
    for key, field in (("sum.petit", "petit_au_bout"), ("sum.poignee", "poignee"),
                       ("sum.chelem", "chelem")):  # fmt: skip
        amount = float(r.get(field) or 0)
        if amount:
            t.add_row(tr(key), tr("sum.amount", total=abs(amount), side=_side(tr, amount)))
    per = float(r.get("per_defender") or 0)
    key = "sum.defenders_pay" if per > 0 else "sum.defenders_win"
    t.add_row(
        tr("sum.settle"),
        Text(tr(key, each=abs(per), taker=abs(per) * 3), style="bold"),
    )
    scores = r.get("scores") or [0, 0, 0, 0]
    per_seat = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    per_seat.add_column(tr("screen.player"))
    per_seat.add_column(tr("sum.scores"), justify="right")
    for s in range(4):
        per_seat.add_row(seat_name(model, s, tr), fmt_score(scores[s], tr))
    return Panel(
        Group(t, per_seat),
        title=tr("sum.title", n=deal.deal_no),
        title_align="left",
        box=box.ROUNDED,
        expand=False,
    )


def standings_view(model: TableModel, tr: Tr, *, final: bool = False) -> RenderableType:
    """The series' standings; titled after the last deal scored (before the first one:
    before deal 1), never after a deal still being played."""
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
            row.append(fmt_score(deal_scores[s], tr))
        row.append(Text(fmt_score(totals[s], tr), style="bold"))
        t.add_row(*row)
    d = model.deal
    if final:
        title = tr("sum.final")
    elif sc and d is not None and d.deal_no == sc.get("deal_no"):
        title = tr("sum.standings", n=sc.get("deal_no"))
    else:
        # the table's deal numbers, as `after deal N` and the table's title count them
        if d is not None:
            now = d.deal_no + (1 if d.phase == "over" else 0)
        else:
            now = int(model.info.get("deal_no") or 0) + 1
        title = tr("sum.standings_before", n=max(1, now))
    parts: list[RenderableType] = [t]
    if final:
        best = max(float(x) for x in totals)
        winners = [seat_name(model, s, tr) for s in range(4) if float(totals[s]) == best]
        mine = model.seat is not None and float(totals[model.seat]) == best
        if len(winners) == 1:
            line = tr("sum.you_win") if mine else tr("sum.winner", name=winners[0])
        else:
            line = tr("sum.winners", names=", ".join(winners))
        parts.append(Text(line, style="bold green"))
    return Panel(Group(*parts), title=title, title_align="left", box=box.ROUNDED, expand=False)


def score_sheet_view(model: TableModel, tr: Tr, compact: bool = False) -> RenderableType:
    """Every deal of the series, one line each: contract, taker, made or failed by how much,
    each seat's score for the deal, then the running totals."""
    deals = model.series_deals()
    # compact: no blank edge columns, two more for the words (`Počítač 1`, `Kontrakt`)
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=not compact)
    t.add_column(tr("sheet.deal"), justify="right")
    t.add_column(tr("sheet.contract"))
    if not compact:
        t.add_column(tr("sheet.taker"))
    # compact: the signed margin (`+3`, `−15`) under `±`, so that no word is cut below 80
    t.add_column(
        tr("sheet.outcome") if not compact else "±", justify="right" if compact else "left"
    )
    for s in range(4):
        t.add_column(seat_name(model, s, tr), justify="right")
    running = [0.0, 0.0, 0.0, 0.0]
    for group in _sheet_rows(deals):
        d = group[0]
        r = d.result or {}
        scores = [float(x) for x in r.get("scores") or [0, 0, 0, 0]]
        running = [a + b for a, b in zip(running, scores, strict=True)]
        if r.get("status") != "played":
            # deals nobody took, in a row with the same reason: one line (`2–5`), as a club
            # sheet notes them
            first, last = group[0].deal_no, group[-1].deal_no
            row: list[str | Text] = [str(first) if first == last else f"{first}–{last}"]
            row.append(Text(tr("sheet.annulled", n=len(group)), style="dim"))
            if not compact:
                row.append("")
            # below 80 columns the reason does not fit (`everyb…`); the deal's end said it
            reason = tr(f"reason.{r.get('reason')}") if r.get("reason") and not compact else ""
            row.append(Text(reason, "dim"))
        else:
            row = [str(d.deal_no), tr.contract_short(r.get("contract"))]
            if not compact:
                row.append(seat_name(model, r.get("taker"), tr))
            diff = abs(float(r.get("taker_points") or 0) - float(r.get("target") or 0))
            if compact:  # `+3` / `−15`: `made by 3` would wrap below 80 columns
                outcome = ("+" if r.get("won") else "−") + format_number(tr.lang, diff)
            else:
                outcome = tr("sheet.made" if r.get("won") else "sheet.failed", d=diff)
            row.append(Text(outcome, style="green" if r.get("won") else "red"))
        row += [fmt_score(x, tr) for x in scores]
        t.add_row(*row)
    for col in t.columns:  # a word too long for its column is folded, never cut (`Kontr…`)
        col.overflow = "fold"
    if deals:
        t.add_row(
            Text(tr("sum.total"), style="bold"),
            "",
            *([""] if not compact else []),
            "",
            *(Text(fmt_score(x, tr), style="bold") for x in running),
            end_section=False,
        )
    body: RenderableType = t if deals else Text(tr("sheet.none"))
    return Panel(body, title=tr("sheet.title"), title_align="left", box=box.ROUNDED, expand=False)


def _sheet_rows(deals: list[DealModel]) -> list[list[DealModel]]:
    """The deals of a score sheet, each played deal alone and consecutive annulled deals with
    the same reason together."""
    rows: list[list[DealModel]] = []
    for d in deals:
        r = d.result or {}
        prev = (rows[-1][-1].result or {}) if rows else {}
        if (
            rows
            and r.get("status") != "played"
            and prev.get("status") != "played"
            and prev.get("reason") == r.get("reason")
            and rows[-1][-1].deal_no + 1 == d.deal_no
        ):
            rows[-1].append(d)
        else:
            rows.append([d])
    return rows


def review_view(model: TableModel, deal: DealModel, tr: Tr, cs: CardStyle) -> RenderableType:
    """The whole deal: the hands as dealt and the chien, then every trick (who played what,
    who won it, the card points its winners got, as the trick's message said, and the
    taker's running card points). A deal nobody took has hands but no tricks: it says so."""
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
    if not deal.tricks and deal.taker is None:
        parts.append(Text(tr("rev.no_tricks")))
        return _review_panel(parts, deal, tr)
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column(tr("rev.trick"), justify="right")
    for s in range(4):
        t.add_column(seat_name(model, s, tr))
    t.add_column(tr("rev.winner"))
    t.add_column(tr("rev.points"), justify="right")
    t.add_column(tr("rev.running"), justify="right")
    running = running_points(deal)
    excuse_noted = False
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
        _, run = running[i] if i < len(running) else (0.0, 0.0)
        # what the winners got: the Excuse of the other side stays with it (R8), as the
        # trick's message said; the taker's total counts the Excuse on whichever side it is
        gain = trick_gain(deal, i) if deal.taker is not None else C.points(trick["cards"])
        mark = C.EXCUSE in trick["cards"] and gain != C.points(trick["cards"])
        excuse_noted = excuse_noted or mark
        t.add_row(
            str(i + 1),
            *cells,
            seat_name(model, trick["winner"], tr),
            fmt_points(gain, tr) + ("*" if mark else ""),
            fmt_points(run, tr) if deal.taker is not None else "",
        )
    parts.append(t)
    if excuse_noted:
        parts.append(Text(tr("rev.excuse_note"), style="dim"))
    r = deal.result or {}
    if deal.taker is not None and r.get("status") == "played":
        if deal.contract == "garde_contre":
            parts.append(Text(tr("rev.pile_defence")))
        else:
            parts.append(Text(tr("rev.pile", points=pile_bonus(deal))))
        parts.append(
            Text(
                tr(
                    "rev.final",
                    points=float(r.get("taker_points") or 0),
                    target=float(r.get("target") or 0),
                ),
                style="bold",
            )
        )
    return _review_panel(parts, deal, tr)


def _review_panel(parts: list[RenderableType], deal: DealModel, tr: Tr) -> Panel:
    return Panel(
        Group(*parts),
        title=tr("rev.title", n=deal.deal_no),
        title_align="left",
        box=box.ROUNDED,
        expand=False,
    )


def tables_view(
    tables: list[dict[str, Any]], tr: Tr, url: str, total: int | None = None, more: bool = False
) -> RenderableType:
    """The lobby list; with pagination (``total`` tables, ``more`` pages after this one) it
    says how many there are and how to see them all."""
    if not tables:
        return Text(tr("tables.none"))
    t = Table(
        box=box.SIMPLE_HEAD, title=tr("tables.title", url=safe_line(url)), title_justify="left"
    )
    for key in (
        "tables.id",
        "tables.name",
        "tables.state",
        "tables.players",
        "tables.deal",
        "tables.watchers",
    ):
        t.add_column(tr(key), overflow="fold")
    for info in tables:
        players = []
        for s in info.get("seats") or []:
            if s.get("kind") == "human":
                players.append(safe_line(s.get("name") or "?"))
            elif s.get("kind") == "ai":
                players.append(tr("seat.ai", n=s.get("seat")))
        deals = info.get("deals")
        deal_no = int(info.get("scored", info.get("deal_no", 0)) or 0)
        if info.get("state") == "playing" and "scored" in info:
            deal_no += 1
        deal = f"{deal_no}/{deals}" if deals else str(info.get("deal_no", 0))
        t.add_row(
            safe_line(info.get("table")),
            safe_line(info.get("name") or ""),
            tr(f"state.{info.get('state')}"),
            ", ".join(players) or tr("seat.empty"),
            deal,
            str(info.get("spectators", 0)),
        )
    parts: list[RenderableType] = [t]
    if more:
        parts.append(Text(tr("tables.more", n=len(tables), total=total or len(tables))))
    parts.append(Text(tr("tables.join_hint")))
    return Group(*parts)


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


def _folded(text: str) -> str:
    """Lower case without accents: `regles` finds `Règles`, `vymluva` finds `Výmluva`."""
    return "".join(
        c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c)
    )


def find_section(doc: Any, topic: str) -> Any:
    """The section a player asks for: its number in the list of topics (`rules 6`), its id,
    its title or the start of it, a rule number (`R7.5`), or a word of its title (`excuse`,
    `écart`, `zdvih`), accents optional; None when nothing or several match."""
    topic = topic.strip()
    sections = list(doc.sections)
    if topic.isdigit():
        n = int(topic)
        return sections[n - 1] if 1 <= n <= len(sections) else None
    found = doc.section(topic)
    if found is not None:
        return found
    key = _folded(topic)
    if not key:
        return None
    words = re.compile(r"[\w']+")
    hits = [
        sec
        for sec in sections
        if any(
            w.startswith(key) or w.split("'")[-1].startswith(key)
            for w in words.findall(_folded(sec.title))
        )
    ]
    return hits[0] if len(hits) == 1 else None


def rules_view(tr: Tr, topic: str = "", *, paragraph_only: bool = False) -> RenderableType:
    """The player rule texts (``protocol.texts``): the list of topics, one topic's section, or
    (``paragraph_only``, for a refusal's rule) the paragraph explaining one rule number."""
    from protocol import texts

    doc = texts.load(tr.lang)
    topic = topic.strip()
    if paragraph_only and topic:
        hit = doc.find(topic)
        if hit is None:
            return Text(tr("rules.unknown", topic=safe_line(topic)))
        return Panel(
            Text(safe(hit.paragraph.text)),
            title=f"{safe(hit.section.title)} ({', '.join(hit.paragraph.rules)})",
            title_align="left",
            box=box.ROUNDED,
            expand=False,
            width=MAX_WIDTH,
        )
    if not topic:
        t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_header=False)
        t.add_column(style="bold")
        t.add_column()
        for i, top in enumerate(doc.topics(), 1):
            t.add_row(str(i), safe(top.title))
        return Panel(
            Group(t, Text(tr("rules.help"), style="dim")),
            title=safe(doc.title),
            title_align="left",
            box=box.ROUNDED,
            expand=False,
        )
    section = find_section(doc, topic)
    if section is None:
        return Group(
            Text(tr("rules.unknown", topic=safe_line(topic))),
            rules_view(tr, ""),
        )
    paras = [Text(safe(p.text) + f"  ({', '.join(p.rules)})" if p.rules else safe(p.text))
             for p in section.paragraphs]  # fmt: skip
    body: list[RenderableType] = []
    for i, p in enumerate(paras):
        if i:
            body.append(Text(""))
        body.append(p)
    return Panel(
        Group(*body),
        title=safe(section.title),
        title_align="left",
        box=box.ROUNDED,
        expand=False,
        width=MAX_WIDTH,
    )

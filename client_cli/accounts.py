"""Player accounts in the terminal (issue 12): ``atout register``, ``login``, ``logout``,
``profile``, ``history``, ``leaderboard``, and the player key kept per server.

The key the server hands out is kept in ``accounts.json`` beside ``seats.json``
(:func:`client_cli.seats.state_dir`), one entry per server URL, readable by its owner only; every
later ``atout`` command for that server sends it in ``hello`` and plays as that player. With
``--name`` another name than the account's, the client plays as a guest under that name (the
key stays kept). The key is a password: it is never printed.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import sys
import time
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from .i18n import Tr
from .net import Link, ServerError
from .refusals import player_name, refusal
from .render import safe
from .seats import state_dir

KINDS = ("registered", "bot", "ai", "guest")


# ---------------------------------------------------------------------- the kept keys


def _path() -> Any:
    return state_dir() / "accounts.json"


def _server(url: str) -> str:
    return url.rstrip("/")


def _load() -> dict[str, Any]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _store(data: dict[str, Any]) -> None:
    path = _path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def lookup(url: str) -> dict[str, Any] | None:
    """The account kept for the server at ``url``: ``name``, ``key``, ``kind``, or None."""
    entry = _load().get(_server(url))
    if isinstance(entry, dict) and isinstance(entry.get("key"), str) and entry.get("name"):
        return entry
    return None


def remember(url: str, player: dict[str, Any], key: str) -> None:
    """Keep the key (raises OSError when the state folder cannot be written: the player must
    know, the key is shown nowhere else)."""
    data = _load()
    data[_server(url)] = {
        "name": player.get("name"),
        "kind": player.get("kind"),
        "key": key,
        "at": time.time(),
    }
    _store(data)


def forget(url: str) -> None:
    data = _load()
    if data.pop(_server(url), None) is not None:
        _store(data)


def same_name(a: str, b: str) -> bool:
    return a.casefold().strip() == b.casefold().strip()


def key_for(url: str, name_option: str | None) -> dict[str, Any] | None:
    """The kept account to log in with: none when ``--name`` names someone else (a guest)."""
    entry = lookup(url)
    if entry is None or (name_option is not None and not same_name(name_option, entry["name"])):
        return None
    return entry


# ---------------------------------------------------------------------- passwords


PASSWORD_MIN, PASSWORD_MAX = 8, 256  # what the server accepts (protocol: register)
PASSWORD_TRIES = 3


def read_password(tr: Tr, *, confirm: bool, ui: Any = None) -> str:
    """A password typed without echo (a line of standard input when it is not a terminal).
    With ``confirm`` (a new password), one of the wrong length or two that differ are said so
    and asked again, up to three times; then ValueError ("length" or "mismatch")."""
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    if not confirm:
        return getpass.getpass(tr("acct.password"))
    why = "mismatch"
    for _ in range(PASSWORD_TRIES):
        first = getpass.getpass(tr("acct.password"))
        if not PASSWORD_MIN <= len(first) <= PASSWORD_MAX:
            why = "length"
            _tell(ui, tr("acct.err_password") + " " + tr("acct.again"))
            continue
        if getpass.getpass(tr("acct.password_again")) == first:
            return first
        why = "mismatch"
        _tell(ui, tr("acct.differ") + " " + tr("acct.again"))
    raise ValueError(why)


def _tell(ui: Any, text: str) -> None:
    if ui is not None:
        ui.error(text)
    else:  # pragma: no cover (the commands always pass their UI)
        print(text, file=sys.stderr)


# ---------------------------------------------------------------------- the commands

ACCOUNT_COMMANDS = ("register", "login", "logout", "profile", "history", "leaderboard")


async def run(args: Any, link: Link, ui: Any, tr: Tr, url: str) -> int:
    """One account command, on an open link. Returns the exit status."""
    try:
        if args.command == "register":
            return await _register(args, link, ui, tr, url)
        if args.command == "login":
            return await _login(args, link, ui, tr, url)
        if args.command == "logout":
            return await _logout(link, ui, tr, url)
        if args.command == "profile":
            return await _profile(args, link, ui, tr)
        if args.command == "history":
            return await _history(args, link, ui, tr)
        return await _leaderboard(args, link, ui, tr)
    except ServerError as e:
        ui.error(explain(e, tr, url, getattr(args, "player", None) or args.name or ""))
        return 1


def explain(e: ServerError, tr: Tr, url: str, name: str) -> str:
    """A refusal of the players' requests, in the player's words."""
    n = safe(name)
    if e.code == "name_taken":
        return tr("acct.err_taken", name=n)
    if e.code == "bad_password":
        return tr("acct.err_password")
    if e.code == "login_failed":
        return tr("acct.err_login")
    if e.code == "rate_limited":
        wait = (e.msg.get("details") or {}).get("retry_after") or 60
        return tr("acct.err_wait", seconds=int(float(wait) + 0.999))
    if e.code == "no_such_player":
        return tr("acct.err_no_player", name=n)
    if e.code == "not_logged_in":
        return tr("acct.err_not_logged_in", url=safe(url))
    if e.code == "not_supported":
        return tr("acct.err_not_supported")
    if e.code == "bad_key":
        return tr("acct.err_bad_key", url=safe(url), name=n)
    return refusal(tr, e.msg)


def _name(args: Any) -> str:
    """The account's name (checked before connecting: client_cli/main.py check_names)."""
    return str(getattr(args, "player", None) or player_name(args))


async def _register(args: Any, link: Link, ui: Any, tr: Tr, url: str) -> int:
    body: dict[str, Any] = {"type": "register", "name": _name(args)}
    if not args.no_password:
        try:
            body["password"] = read_password(tr, confirm=True, ui=ui)
        except ValueError as e:
            ui.error(tr("acct.err_password" if str(e) == "length" else "acct.mismatch"))
            return 1
    if args.bot:
        body["bot"] = True
    answer = await link.call(body)
    return _keep(answer, ui, tr, url, "acct.registered", key_only=args.no_password)


async def _login(args: Any, link: Link, ui: Any, tr: Tr, url: str) -> int:
    password = read_password(tr, confirm=False)
    answer = await link.call({"type": "login", "name": _name(args), "password": password})
    return _keep(answer, ui, tr, url, "acct.logged_in", key_only=False)


def _keep(answer: dict[str, Any], ui: Any, tr: Tr, url: str, said: str, *, key_only: bool) -> int:
    player = answer.get("player") or {}
    try:
        remember(url, player, str(answer["key"]))
    except OSError as e:
        ui.error(tr("acct.err_keep", path=safe(str(_path())), error=safe(str(e))))
        return 1
    ui.say(tr(said, name=safe(str(player.get("name"))), url=safe(url)), "bold")
    if key_only:
        ui.say(tr("acct.key_only", path=safe(str(_path()))))
    return 0


async def _logout(link: Link, ui: Any, tr: Tr, url: str) -> int:
    entry = lookup(url)
    if entry is None:
        ui.error(tr("acct.err_not_logged_in", url=safe(url)))
        return 1
    try:
        await link.call({"type": "logout", "key": entry["key"]})
    except ServerError as e:
        if e.code != "bad_key":  # revoked already: forgetting it is all there is to do
            raise
    forget(url)
    ui.say(tr("acct.logged_out", name=safe(str(entry["name"])), url=safe(url)), "bold")
    return 0


def _subject(args: Any) -> dict[str, Any]:
    """``name`` and ``kind`` of the player asked about (none: this connection's player)."""
    out: dict[str, Any] = {}
    if getattr(args, "player", None):
        out["name"] = str(args.player)[:32]
        if args.guest:
            out["kind"] = "guest"
        elif args.ai_level:
            out["kind"] = "ai"
    return out


async def _profile(args: Any, link: Link, ui: Any, tr: Tr) -> int:
    subject = _subject(args)
    if "name" not in subject:  # ourselves: the account this connection logged in with
        if not link.welcome.get("player"):
            raise ServerError({"code": "not_logged_in"})
        subject["name"] = link.name
    answer = await link.call({"type": "player", **subject})
    if args.json:
        ui.raw(answer)
        return 0
    ui.show(profile_view(answer["player"], tr))
    return 0


async def _history(args: Any, link: Link, ui: Any, tr: Tr) -> int:
    answer = await link.call({"type": "history", "limit": args.limit, **_subject(args)})
    if args.json:
        ui.raw(answer)
        return 0
    ui.show(history_view(answer, tr))
    return 0


async def _leaderboard(args: Any, link: Link, ui: Any, tr: Tr) -> int:
    body: dict[str, Any] = {"type": "leaderboard", "by": args.by, "limit": args.limit}
    if args.min_deals is not None:
        body["min_deals"] = args.min_deals
    answer = await link.call(body)
    if args.json:
        ui.raw(answer)
        return 0
    ui.show(leaderboard_view(answer, tr))
    return 0


# ---------------------------------------------------------------------- views


def signed(tr: Tr, x: float | None) -> str:
    if x is None:
        return "—"
    return ("+" if x > 0 else "") + tr.num(round(float(x), 1))


def kind_word(tr: Tr, kind: Any) -> str:
    return tr(f"acct.kind_{kind}") if kind in KINDS else safe(str(kind))


def rating_text(tr: Tr, r: dict[str, Any] | None, *, seats: bool = False) -> str:
    """A rating; with ``seats``, an AI level's (its rated deals are seats, PROTOCOL §13)."""
    if not r:
        return tr("acct.no_rating")
    text = tr(
        "acct.rating_seats" if seats else "acct.rating",
        rating=round(float(r["rating"]), 1),
        mu=round(float(r["mu"]), 1),
        sigma=round(float(r["sigma"]), 1),
        n=int(r["deals"]),
    )
    return text + (" · " + tr("acct.provisional") if r.get("provisional") else "")


def profile_view(p: dict[str, Any], tr: Tr) -> RenderableType:
    title = tr(
        "acct.profile_title", name=safe(str(p.get("name"))), kind=kind_word(tr, p.get("kind"))
    )
    lines = [Text(title, style="bold")]
    # An AI level registered nowhere, and may hold several seats of a deal: `deals` and
    # `played` count deals, the other figures its seats (docs/PROTOCOL.md section 13).
    ai = p.get("kind") == "ai"
    u = "_seats" if ai else ""
    if p.get("since"):
        since = "acct.since" if p.get("kind") in ("registered", "bot") else "acct.since_seen"
        lines.append(Text(tr(since, date=safe(str(p["since"]))[:10])))
    lines.append(
        Text(tr("acct.deals", n=int(p.get("deals") or 0), played=int(p.get("played") or 0)))
    )
    if ai:
        lines.append(Text(tr("acct.seats_note"), style="dim"))
    lines.append(Text(rating_text(tr, p.get("rating"), seats=ai)))
    op = p.get("over_par") or {}
    if op.get("deals"):
        lines.append(
            Text(tr(f"acct.over_par{u}", mean=signed(tr, op.get("mean")), n=int(op["deals"])))
        )
    else:
        lines.append(Text(tr("acct.no_over_par")))
    tk = p.get("taker") or {}
    if tk.get("deals"):
        rate = round(100 * float(tk.get("success_rate") or 0))
        lines.append(
            Text(
                tr(
                    f"acct.taker{u}",
                    n=int(tk["deals"]),
                    won=int(tk.get("won") or 0),
                    rate=rate,
                    margin=signed(tr, tk.get("mean_margin")),
                )
            )
        )
    df = p.get("defender") or {}
    if df.get("deals"):
        lines.append(
            Text(tr(f"acct.defender{u}", n=int(df["deals"]), mean=signed(tr, df.get("mean_score"))))
        )
    if p.get("played"):
        lines.append(
            Text(
                tr(
                    f"acct.total{u}",
                    total=signed(tr, p.get("total")),
                    mean=signed(tr, p.get("mean")),
                )
            )
        )
        pg = p.get("poignees") or {}
        lines.append(
            Text(
                tr(
                    "acct.extras",
                    petits=int(p.get("petits_au_bout") or 0),
                    single=int(pg.get("single") or 0),
                    double=int(pg.get("double") or 0),
                    triple=int(pg.get("triple") or 0),
                    chelems=int(p.get("chelems") or 0),
                )
            )
        )
    return Group(*lines)


def history_view(answer: dict[str, Any], tr: Tr) -> RenderableType:
    who = answer.get("player") or {}
    deals = answer.get("deals") or []
    if not deals:
        return Text(tr("acct.history_none", name=safe(str(who.get("name")))))
    t = Table(
        box=box.SIMPLE_HEAD,
        title=tr(
            "acct.history_title",
            name=safe(str(who.get("name"))),
            shown=len(deals),
            total=int(answer.get("total") or len(deals)),
        ),
        title_justify="left",
    )
    for key in ("when", "table", "deal", "role", "contract", "score", "par", "over", "rating"):
        t.add_column(
            tr(f"acct.col_{key}"), justify="right" if key in ("score", "par", "over") else "left"
        )
    for d in deals:
        role = d.get("role")
        r = d.get("rating") or {}
        rating = "—"
        if r.get("mu") is not None:
            rating = tr.num(round(float(r["mu"]) - 3 * float(r["sigma"]), 1))
            if r.get("delta") is not None:
                rating += f" ({signed(tr, r['delta'])})"
        t.add_row(
            safe(str(d.get("finished_at") or ""))[:16].replace("T", " "),
            safe(str(d.get("table_name") or d.get("table"))),
            str(d.get("deal_no")),
            tr(f"acct.role_{role}") if role in ("taker", "defender") else "—",
            tr.contract_short(d.get("contract")) if d.get("contract") else "—",
            signed(tr, d.get("score")),
            signed(tr, d.get("par")),
            signed(tr, d.get("over_par")),
            rating,
        )
    parts: list[RenderableType] = [t]
    if answer.get("next"):
        parts.append(Text(tr("acct.history_more")))
    return Group(*parts)


def leaderboard_view(answer: dict[str, Any], tr: Tr) -> RenderableType:
    rows = answer.get("rows") or []
    by = str(answer.get("by") or "rating")
    n = int(answer.get("min_deals") or 0)
    if not rows:
        return Text(tr("acct.board_none", n=n))
    t = Table(
        box=box.SIMPLE_HEAD,
        title=tr("acct.board_title", by=tr(f"acct.by_{by}"), n=n),
        title_justify="left",
    )
    for key in ("rank", "name", "kind", "deals", "rating", "total", "mean", "over_par"):
        t.add_column(tr(f"acct.col_{key}"), justify="left" if key in ("name", "kind") else "right")
    for r in rows:
        rt = r.get("rating")
        rating = "—"
        if rt:
            rating = tr.num(round(float(rt["rating"]), 1)) + ("?" if rt.get("provisional") else "")
        t.add_row(
            str(r.get("rank")),
            safe(str(r.get("name"))),
            kind_word(tr, r.get("kind")),
            str(r.get("deals")),
            rating,
            signed(tr, r.get("total")),
            signed(tr, r.get("mean")),
            signed(tr, r.get("over_par")),
        )
    parts: list[RenderableType] = [t]
    if any((r.get("rating") or {}).get("provisional") for r in rows):
        parts.append(Text(tr("acct.board_provisional")))
    return Group(*parts)


async def after_game(link: Link, ui: Any, tr: Tr, table: str, shown: set[int]) -> None:
    """After a finished game, for a logged-in player: the last deal's par (its review comes a
    moment after the table's end, so it is fetched) and where the player stands."""
    deal: dict[str, Any] | None = None
    try:
        for _ in range(20):
            deals = (await link.call({"type": "history", "limit": 1})).get("deals") or []
            deal = deals[0] if deals and deals[0].get("table") == table else None
            if deal is None or deal.get("par") is not None or deal.get("status") != "played":
                break
            await asyncio.sleep(0.25)  # its review is being computed
        if deal is not None and deal.get("par") is not None and deal["deal_no"] not in shown:
            ev = {
                "deal_no": deal["deal_no"],
                "scores": [deal.get("score")],
                "par": [deal["par"]],
                "over_par": [deal.get("over_par")],
            }
            ui.say(Text(par_text(tr, ev, 0) or "", style="dim"))
        p = (await link.call({"type": "player", "name": link.name}))["player"]
    except (ServerError, ConnectionError, TimeoutError, KeyError):
        return
    op = p.get("over_par") or {}
    ui.say(
        tr(
            "acct.summary",
            name=safe(str(p.get("name"))),
            rating=rating_text(tr, p.get("rating")),
            over=signed(tr, op.get("mean")),
            n=int(op.get("deals") or 0),
        ),
        "bold",
    )


def par_text(tr: Tr, ev: dict[str, Any], seat: int) -> str | None:
    """The ``par`` event for our seat: what we made, what the reference bot made with the
    same cards, the difference; our rating after the deal."""
    par, scores, over = ev.get("par"), ev.get("scores"), ev.get("over_par")
    if not (isinstance(par, list) and isinstance(scores, list) and isinstance(over, list)):
        return None
    if not 0 <= seat < min(len(par), len(scores), len(over)):
        return None
    x = float(over[seat] or 0)
    if x > 0:
        diff = tr("acct.diff_over", x=tr.num(x))
    elif x < 0:
        diff = tr("acct.diff_under", x=tr.num(-x))
    else:
        diff = tr("acct.diff_level")
    text = tr(
        "acct.par",
        n=int(ev.get("deal_no") or 0),
        score=signed(tr, scores[seat]),
        par=signed(tr, par[seat]),
        diff=diff,
    )
    ratings = ev.get("ratings") or []
    r = ratings[seat] if seat < len(ratings) else None
    if isinstance(r, dict) and r.get("rating") is not None:
        text += " " + tr(
            "acct.par_rating", rating=rating_text(tr, r), delta=signed(tr, r.get("delta"))
        )
    return text

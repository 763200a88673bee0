"""The ``atout`` command: play French Tarot against AI players or friends in a terminal.

``atout play`` | ``tables`` | ``join TABLE`` | ``create`` | ``watch TABLE`` (``atout --help``).
The client speaks protocol v1 through :mod:`protocol` only; it never imports the server.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import accounts, seats
from .accounts import ACCOUNT_COMMANDS
from .app import UI, Game, Options
from .hints import DEFAULT_SERVER, command_line, default_name
from .i18n import LANGUAGES, Tr, detect_language, translate_argparse
from .lineinput import LineInput
from .model import TableModel
from .net import Link, LinkError, ServerError, normalize_url
from .refusals import field_path, name_error, player_name, refusal
from .render import find_section, rules_view, safe_line, tables_view
from .seats import state_dir
from .settings import Settings

DEFAULT_AI = "normal"
KNOWN_LEVELS = ("easy", "normal", "strong")  # what to offer when the server does not say
COMMANDS = ("play", "tables", "join", "create", "watch", "rules", *ACCOUNT_COMMANDS)


def _pre_lang(argv: Sequence[str]) -> str | None:
    """The language given with ``--lang``, known before parsing so that ``--help`` is
    translated too."""
    for i, a in enumerate(argv):
        if a == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--lang="):
            return a.split("=", 1)[1]
    return None


#: The options every command accepts, and those of them each command's help shows: the others
#: mean nothing there (`--auto` for `tables`; `--server` for `rules`, which needs no server).
#: They are still accepted, so that an alias such as `atout --server URL` works with any
#: command.
COMMON = ("server", "name", "lang", "auto", "auto_single", "json")
SHOWN = {
    **dict.fromkeys(("play", "join", "create"), COMMON),
    **dict.fromkeys(("tables", "watch", *ACCOUNT_COMMANDS), ("server", "name", "lang", "json")),
    "rules": ("lang",),
}


def common_options(tr: Tr, shown: Sequence[str] = COMMON) -> argparse.ArgumentParser:
    """A parent parser with the options every command accepts; those not in ``shown`` are
    left out of the help."""

    def helped(key: str, text: str) -> str:
        return text if key in shown else argparse.SUPPRESS

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--server",
        default=os.environ.get("ATOUT_SERVER", DEFAULT_SERVER),
        help=helped("server", tr("cli.server")),
    )
    common.add_argument("--name", default=None, help=helped("name", tr("cli.name")))
    common.add_argument(
        "--lang", choices=LANGUAGES, default=None, help=helped("lang", tr("cli.lang"))
    )
    common.add_argument("--auto", action="store_true", help=helped("auto", tr("cli.auto")))
    common.add_argument(
        "--auto-single", action="store_true", help=helped("auto_single", tr("cli.auto_single"))
    )
    common.add_argument("--json", action="store_true", help=helped("json", tr("cli.json")))
    return common


def build_parser(tr: Tr) -> argparse.ArgumentParser:
    common = common_options(tr)  # `atout` alone runs `play`: its overview shows them all
    with_table = common_options(tr, SHOWN["play"])
    no_play = common_options(tr, SHOWN["tables"])

    table_opts = argparse.ArgumentParser(add_help=False)
    g = table_opts.add_mutually_exclusive_group()
    g.add_argument("--deals", type=int, default=None, help=tr("cli.deals"))
    g.add_argument("--target-score", type=int, default=None, help=tr("cli.target"))
    table_opts.add_argument("--ai", default=None, help=tr("cli.ai", default=DEFAULT_AI))
    table_opts.add_argument("--think-delay", type=float, default=None, help=tr("cli.think"))
    table_opts.add_argument("--deal-pause", type=float, default=None, help=tr("cli.pause"))
    table_opts.add_argument("--turn-timer", type=float, default=None, help=tr("cli.timer"))

    p = argparse.ArgumentParser(
        prog="atout",
        description=tr("cli.description"),
        epilog=tr("cli.epilog", default=DEFAULT_SERVER),
        parents=[common],
    )
    sub = p.add_subparsers(dest="command", metavar="{" + ",".join(COMMANDS) + "}")
    play = sub.add_parser(
        "play", help=tr("cli.play"), description=tr("cli.play"), parents=[with_table, table_opts]
    )
    play.add_argument("--public", action="store_true", help=tr("cli.public"))
    tables = sub.add_parser(
        "tables", help=tr("cli.tables"), description=tr("cli.tables"), parents=[no_play]
    )
    tables.add_argument("--all", action="store_true", help=tr("cli.all"))
    join = sub.add_parser(
        "join", help=tr("cli.join"), description=tr("cli.join"), parents=[with_table]
    )
    join.add_argument("table", metavar="TABLE", help=tr("cli.table_id"))
    join.add_argument("--seat", type=int, choices=range(4), default=None, help=tr("cli.seat"))
    create = sub.add_parser(
        "create",
        help=tr("cli.create"),
        description=tr("cli.create"),
        parents=[with_table, table_opts],
    )
    create.add_argument("--table-name", default="", help=tr("cli.table_name"))
    create.add_argument("--private", action="store_true", help=tr("cli.private"))
    watch = sub.add_parser(
        "watch", help=tr("cli.watch"), description=tr("cli.watch"), parents=[no_play]
    )
    watch.add_argument("table", metavar="TABLE", help=tr("cli.table_id"))
    rules = sub.add_parser(
        "rules",
        help=tr("cli.rules"),
        description=tr("cli.rules"),
        parents=[common_options(tr, SHOWN["rules"])],
    )
    rules.add_argument("topic", metavar="TOPIC", nargs="*", help=tr("cli.topic"))
    _account_parsers(sub, no_play, tr)
    return p


def _account_parsers(sub: Any, common: argparse.ArgumentParser, tr: Tr) -> None:
    """``register``, ``login``, ``logout``, ``profile``, ``history``, ``leaderboard``
    (client_cli/accounts.py)."""

    def parser(name: str) -> argparse.ArgumentParser:
        key = f"cli.{name}"
        return sub.add_parser(name, help=tr(key), description=tr(key), parents=[common])

    register = parser("register")
    register.add_argument("player", metavar="NAME", nargs="?", help=tr("cli.player"))
    register.add_argument("--no-password", action="store_true", help=tr("cli.no_password"))
    register.add_argument("--bot", action="store_true", help=tr("cli.bot"))
    login = parser("login")
    login.add_argument("player", metavar="NAME", nargs="?", help=tr("cli.player"))
    parser("logout")
    for name in ("profile", "history"):
        p = parser(name)
        p.add_argument("player", metavar="NAME", nargs="?", help=tr("cli.player"))
        kind = p.add_mutually_exclusive_group()
        kind.add_argument("--guest", action="store_true", help=tr("cli.guest"))
        kind.add_argument("--ai-level", action="store_true", help=tr("cli.ai_level"))
        if name == "history":
            p.add_argument("--limit", type=whole_number(tr, 1, 100), default=20, metavar="N",
                           help=tr("cli.limit"))  # fmt: skip
    board = parser("leaderboard")
    board.add_argument("--by", choices=("rating", "total", "mean"), default="rating",
                       help=tr("cli.by"))  # fmt: skip
    board.add_argument("--min-deals", type=int, default=None, metavar="N", help=tr("cli.min_deals"))
    board.add_argument("--limit", type=whole_number(tr, 1, 100), default=20, metavar="N",
                       help=tr("cli.limit"))  # fmt: skip


def whole_number(tr: Tr, lo: int, hi: int) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number from ``lo`` to ``hi``: out of range, its error
    says the range (``choices=range(...)`` listed every number of it)."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            n = lo - 1
        if not lo <= n <= hi:
            raise argparse.ArgumentTypeError(
                tr("cli.bad_range", value=safe_line(text), lo=lo, hi=hi)
            )
        return n

    return parse


def ai_levels(welcome: dict[str, Any]) -> list[dict[str, Any]]:
    """The AI levels the server offers (``welcome.ai_levels``, in display order), or the
    usual three when it does not say."""
    levels = welcome.get("ai_levels")
    if isinstance(levels, list) and levels:
        return [lv for lv in levels if isinstance(lv, dict) and isinstance(lv.get("level"), str)]
    return [{"level": lv, "description": ""} for lv in KNOWN_LEVELS]


def _table_request(args: argparse.Namespace, *, public: bool, name: str = "") -> dict[str, Any]:
    body: dict[str, Any] = {"type": "create_table", "public": public, "ai": args.ai}
    if name:
        body["name"] = name
    for opt, field in (
        ("deals", "deals"),
        ("target_score", "target_score"),
        ("think_delay", "think_delay"),
        ("deal_pause", "deal_pause"),
        ("turn_timer", "turn_timer"),
    ):
        value = getattr(args, opt, None)
        if value is not None:
            body[field] = value
    return body


async def _take_seat(
    args: argparse.Namespace, link: Link, url: str, table: str, name: str, ui: UI, tr: Tr
) -> tuple[dict[str, Any] | None, str, dict[str, Any] | None]:
    """Sit at ``table``: take back the seat kept for this player (by its token) if there is
    one, else the seat asked for, else any. Returns (the ``joined`` answer, what to tell the
    player about the seat, the kept seat taken back), or (None, "", None) after explaining
    why not."""
    asked = getattr(args, "seat", None)
    saved = seats.lookup(url, table, name=name, seat=asked) if args.command == "join" else []
    if not saved and args.command == "join" and args.name is None:
        saved = seats.lookup(url, table, seat=asked)  # no --name: any seat kept for the table
    if len(saved) > 1:
        names = sorted({str(e.get("name")) for e in saved})
        ui.error(
            tr(
                "err.which_seat",
                table=table,
                name=", ".join(names),
                seats=", ".join(str(e["seat"]) for e in saved),
            )
        )
        return None, "", None
    old: int | None = None
    if saved:  # our seat from before a Ctrl-C or a crash
        old = int(saved[0]["seat"])
        try:
            joined = await link.call({"type": "resume", "token": saved[0]["token"]})
            return joined, tr("join.back", seat=joined["seat"], table=table), saved[0]
        except ServerError:
            seats.forget(url, table, old)  # the grace period is over: the token is void
    want = asked if asked is not None else old
    why = "join.why_expired"
    try:
        joined = await link.call({"type": "join", "table": table, "seat": want})
    except ServerError as e:
        if e.code != "seat_taken" or asked is not None:
            raise
        why = "join.why_taken"
        joined = await link.call({"type": "join", "table": table, "seat": None})
    if old is not None and joined["seat"] != old:
        notice = tr("join.other_seat", old=old, why=tr(why), seat=joined["seat"], table=table)
        return joined, notice, None
    return joined, "", None


async def _list_tables(args: argparse.Namespace, link: Link, ui: UI, tr: Tr, url: str) -> int:
    """The public tables: the first page (``--all``: every page, following ``next``)."""
    body: dict[str, Any] = {"type": "list_tables"}
    answer = await link.call(body)
    tables = list(answer.get("tables") or [])
    while args.all and answer.get("next"):
        answer = await link.call({"type": "list_tables", "cursor": answer["next"]})
        tables += answer.get("tables") or []
    if args.json:
        ui.raw({**answer, "tables": tables})
        return 0
    more = bool(answer.get("next")) and not args.all
    ui.show(tables_view(tables, tr, url, total=answer.get("total"), more=more))
    return 0


def _levels_text(tr: Tr, levels: list[dict[str, Any]]) -> str:
    """The AI levels the server offers, each with what it is: the server's description (in
    English), or this client's translation of it for a level it knows."""
    lines = [tr("cli.levels")]
    for lv in levels:
        level = str(lv["level"])
        word_key, desc_key = f"ai.{level}", f"aidesc.{level}"
        word = tr(word_key).split(" (")[0] if word_key in tr.table else level
        given = safe_line(str(lv.get("description") or "")).strip()
        if desc_key in tr.table and (tr.lang != "en" or not given):
            desc = tr(desc_key)
        else:
            desc = given or word
        head = safe_line(level) if word == level else f"{safe_line(level)} ({safe_line(word)})"
        lines.append(tr("cli.level_line", level=head, description=desc))
    return "\n".join(lines)


def check_names(args: argparse.Namespace, tr: Tr) -> str | None:
    """Why a name given on the command line cannot be used (before connecting or asking for a
    password), or None."""
    for value, table in (
        (args.name, False),
        (getattr(args, "player", None) if args.command in ("register", "login") else None, False),
        (getattr(args, "table_name", None) or None, True),
    ):
        if value is not None:
            problem = name_error(tr, value, table=table)
            if problem is not None:
                return problem
    return None


async def _run(args: argparse.Namespace, tr: Tr, ui: UI, settings: Settings) -> int:
    url = normalize_url(args.server)
    queue: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
    model = TableModel()
    name = player_name(args)
    link = Link(url, name, queue, last_version=lambda: model.v)
    # the player key kept for this server, unless --name asks for a guest of another name
    kept = None if args.command in ("register", "login") else accounts.key_for(url, args.name)
    if kept is not None:
        link.key = str(kept["key"])
        name = link.name = str(kept["name"])[:32]
    opts = Options(
        auto=args.auto,
        json=args.json,
        interactive=not args.auto,
        waiting_hint=args.command != "play",
        auto_single=args.auto_single,
    )
    line_input = LineInput(state_dir() / "history")
    game: Game | None = None
    try:
        welcome = await link.open()
        name = link.name  # an account's name as registered
        if args.command in ACCOUNT_COMMANDS:
            return await accounts.run(args, link, ui, tr, url)
        if args.command == "tables":
            return await _list_tables(args, link, ui, tr, url)
        ui.note(tr("net.connected", url=url, name=safe_line(name)))
        if link.key is not None:
            player = welcome.get("player")
            ui.note(tr("acct.as_player", name=safe_line(name)) if player else tr("acct.guest_here"))
        levels = ai_levels(welcome)
        offered = [lv["level"] for lv in levels]
        if getattr(args, "ai", None) in ("list", "?", "help"):
            ui.say(_levels_text(tr, levels))
            return 0
        ai_given = getattr(args, "ai", None) is not None
        if args.command in ("play", "create") and args.ai is None:
            args.ai = DEFAULT_AI if DEFAULT_AI in offered or not offered else offered[0]
        rejoin: dict[str, Any] | None = None
        try:
            if args.command == "watch":
                await link.call({"type": "watch", "table": args.table})
                link.watching = args.table
                model.table = args.table
                ui.say(tr("watch.done", table=safe_line(args.table)), "bold")
            else:
                if args.command in ("play", "create"):
                    public = (
                        bool(getattr(args, "public", False))
                        if args.command == "play"
                        else not args.private
                    )
                    body = _table_request(
                        args, public=public, name=getattr(args, "table_name", "") or ""
                    )
                    if args.command == "play" and args.think_delay is None and not args.auto:
                        # the remembered AI speed (`set speed`); the client paces the moves
                        # it shows too, so slowing down works during the game
                        body["think_delay"] = settings.speed
                    created = await link.call(body)
                    table = created["table"]["table"]
                    if isinstance(created.get("ai_levels"), list):
                        levels = ai_levels(created)
                else:
                    table = args.table
                joined, notice, rejoin = await _take_seat(args, link, url, table, name, ui, tr)
                if joined is None:
                    return 1
                link.token = joined["token"]
                seats.remember(url, table, joined["token"], joined["seat"], name)
                model.table = table
                model.seat = joined["seat"]
                if args.command == "play":
                    key = f"ai.{args.ai}"
                    label = tr(key).split(" (")[0] if key in tr.table else args.ai
                    ui.say(tr("play.created", ai=safe_line(label), seat=joined["seat"]), "bold")
                    await link.call({"type": "start", "table": table})
                elif args.command == "create":
                    ui.say(tr("create.done", table=table), "bold")
                    ui.say(tr("create.join"))
                    ui.command(command_line("join", table, url))
                    ui.say(tr("create.watch"))
                    ui.command(command_line("watch", table, url))
                    if args.json:
                        join = command_line("join", table, url)
                        ui.raw({"type": "client_table", "table": table, "join": join})
                elif notice:
                    ui.say(notice, "bold")
                else:
                    ui.say(tr("join.done", seat=joined["seat"], table=table), "bold")
        except ServerError as e:
            code = e.code
            tid = safe_line(str(getattr(args, "table", "")))
            if code == "no_such_table":
                ui.error(tr("err.no_table", table=tid))
            elif code == "table_full":
                ui.error(tr("err.full", table=tid))
            elif code == "seat_taken":
                ui.error(tr("err.seat_taken"))
            else:
                request = "create_table" if args.command in ("play", "create") else args.command
                msg = e.msg
                if (
                    code == "invalid_field"
                    and not field_path(msg)
                    and request == "create_table"
                    and ai_given
                    and args.ai not in offered
                ):
                    # the server names no field, but the --ai given is not one it offers
                    msg = {**msg, "details": {"path": "$.ai"}}
                ui.error(refusal(tr, msg, request))
                if field_path(msg) == "$.ai" and request == "create_table":
                    ui.say(_levels_text(tr, levels))  # an AI level the server does not offer
            return 1
        line_input.start(queue)
        ui.line_buffer = line_input.line_buffer
        ui.editor = line_input.editor
        game = Game(
            link, queue, model, ui, opts, settings=settings, line_input=line_input, rejoin=rejoin
        )
        try:
            status = await game.run()
        except asyncio.CancelledError:
            game.save_progress()
            _bye(ui, ui.tr, model, link)
            raise
        if game.finished and model.table and model.seat is not None:
            seats.forget(url, model.table, model.seat)
            if link.key is not None and welcome.get("player") and not args.json:
                await accounts.after_game(link, ui, tr, model.table, game.par_shown)
        elif status == 0:
            game.save_progress()
            _bye(ui, ui.tr, model, link)
        return status
    except LinkError as e:
        if e.key == "acct.err_bad_key":  # revoked elsewhere: forget it, say how to log in
            accounts.forget(url)
        ui.error(tr(e.key, **e.info))
        if e.key == "err.connect":
            ui.error(tr("err.connect_hint"))
        return 1
    except asyncio.CancelledError:
        raise
    finally:
        line_input.close()
        await asyncio.shield(link.close())


def _bye(ui: UI, tr: Tr, model: TableModel, link: Link) -> None:
    ui.say("")  # the cursor may stand after a prompt
    if model.seat is not None and model.state == "playing" and link.token and link.grace > 0:
        name = None if link.name == default_name() else link.name
        command = command_line("join", model.table, link.url, name)
        ui.note(tr("bye.seat", grace=link.grace))
        ui.command(command, note=True)
    else:
        ui.note(tr("bye"))


def _value_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string, of the parser or of its sub-commands, that takes a value."""
    out: set[str] = set()
    stack = [parser]
    while stack:
        p = stack.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
            elif action.option_strings and action.nargs != 0:
                out.update(action.option_strings)
    return out


def normalize_argv(argv: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """The command word first, then every option: options may be typed before the command
    (``atout --server URL tables``) and still count. No command word means ``play``."""
    takes_value = _value_options(parser)
    args = list(argv)
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            break
        if a.startswith("-"):
            if "=" not in a and a in takes_value:
                i += 1  # its value, which may look like a command word (`--name play`)
            i += 1
            continue
        if a in COMMANDS:
            return [a, *args[:i], *args[i + 1 :]]
        break  # a stray word: argparse names it in its error
    if any(a in ("-h", "--help") for a in args[:i] if a != "--"):
        return args  # `atout --help`: the overview of every command
    return ["play", *args]


def parse_args(argv: Sequence[str], tr: Tr) -> argparse.Namespace:
    parser = build_parser(tr)
    return parser.parse_args(normalize_argv(argv, parser))


def _rules_command(args: argparse.Namespace, tr: Tr, ui: UI) -> int:
    """`atout rules [TOPIC]`: the player rule texts, without a server. A topic that names no
    section is said so, with the list of topics, and exits with 1 (as `atout profile` for a
    player who does not exist)."""
    from protocol import texts

    topic = " ".join(args.topic).strip()
    ui.show(rules_view(tr, topic))
    if topic and find_section(texts.load(tr.lang), topic) is None:
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    settings = Settings.load()
    tr = Tr(_pre_lang(argv) or settings.lang or detect_language())
    translate_argparse(tr)
    args = parse_args(argv, tr)
    if args.lang:
        tr = Tr(args.lang)
    ui = UI(tr, json_mode=args.json and args.command != "rules")  # rules have no JSON form
    if args.command == "rules":
        return _rules_command(args, tr, ui)
    problem = check_names(args, tr)
    if problem is not None:
        ui.error(problem)
        return 2
    try:
        normalize_url(args.server)
    except LinkError as e:
        ui.error(tr(e.key, **e.info))
        return 2
    try:
        return asyncio.run(_run(args, tr, ui, settings))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""The ``atout`` command: play French Tarot against AI players or friends in a terminal.

``atout play`` | ``tables`` | ``join TABLE`` | ``create`` | ``watch TABLE`` (``atout --help``).
The client speaks protocol v1 through :mod:`protocol` only; it never imports the server.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import re
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from . import seats
from .app import UI, Game, Options, start_stdin_reader
from .i18n import LANGUAGES, Tr, detect_language
from .model import TableModel
from .net import Link, LinkError, ServerError, normalize_url
from .render import tables_view

DEFAULT_SERVER = "ws://127.0.0.1:8765"
DEFAULT_AI = "heuristic"
COMMANDS = ("play", "tables", "join", "create", "watch")


def _pre_lang(argv: Sequence[str]) -> str:
    """The language, known before parsing so that ``--help`` is translated too."""
    for i, a in enumerate(argv):
        if a == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--lang="):
            return a.split("=", 1)[1]
    return detect_language()


def default_name() -> str:
    name = os.environ.get("ATOUT_NAME") or ""
    if not name:
        try:
            name = getpass.getuser()
        except Exception:
            name = ""
    name = re.sub(r"[\x00-\x1f\x7f]", "", name).strip()[:32]
    return name or "player"


def build_parser(tr: Tr) -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--server", default=os.environ.get("ATOUT_SERVER", DEFAULT_SERVER), help=tr("cli.server")
    )
    common.add_argument("--name", default=None, help=tr("cli.name"))
    common.add_argument("--lang", choices=LANGUAGES, default=None, help=tr("cli.lang"))
    common.add_argument("--auto", action="store_true", help=tr("cli.auto"))
    common.add_argument("--json", action="store_true", help=tr("cli.json"))

    table_opts = argparse.ArgumentParser(add_help=False)
    g = table_opts.add_mutually_exclusive_group()
    g.add_argument("--deals", type=int, default=None, help=tr("cli.deals"))
    g.add_argument("--target-score", type=int, default=None, help=tr("cli.target"))
    table_opts.add_argument("--ai", default=DEFAULT_AI, help=tr("cli.ai", default=DEFAULT_AI))
    table_opts.add_argument("--think-delay", type=float, default=None, help=tr("cli.think"))
    table_opts.add_argument("--deal-pause", type=float, default=None, help=tr("cli.pause"))
    table_opts.add_argument("--turn-timer", type=float, default=None, help=tr("cli.timer"))

    p = argparse.ArgumentParser(
        prog="atout",
        description=tr("cli.description"),
        epilog=tr("cli.epilog", default=DEFAULT_SERVER),
        parents=[common],
    )
    sub = p.add_subparsers(dest="command", metavar="{play,tables,join,create,watch}")
    play = sub.add_parser(
        "play", help=tr("cli.play"), description=tr("cli.play"), parents=[common, table_opts]
    )
    play.add_argument("--public", action="store_true", help=tr("cli.public"))
    sub.add_parser("tables", help=tr("cli.tables"), description=tr("cli.tables"), parents=[common])
    join = sub.add_parser("join", help=tr("cli.join"), description=tr("cli.join"), parents=[common])
    join.add_argument("table", metavar="TABLE", help=tr("cli.table_id"))
    join.add_argument("--seat", type=int, choices=range(4), default=None, help=tr("cli.seat"))
    create = sub.add_parser(
        "create", help=tr("cli.create"), description=tr("cli.create"), parents=[common, table_opts]
    )
    create.add_argument("--table-name", default="", help=tr("cli.table_name"))
    create.add_argument("--private", action="store_true", help=tr("cli.private"))
    watch = sub.add_parser(
        "watch", help=tr("cli.watch"), description=tr("cli.watch"), parents=[common]
    )
    watch.add_argument("table", metavar="TABLE", help=tr("cli.table_id"))
    return p


def command_line(verb: str, table: str, url: str, name: str | None = None) -> str:
    """The command that joins or watches ``table``, safe to copy and paste (table ids may
    start with ``-``, which argparse would take for an option without the ``--``)."""
    server = "" if url == DEFAULT_SERVER else f" --server {url}"
    who = f" --name {shlex.quote(name)}" if name else ""
    table_arg = f"-- {table}" if table.startswith("-") else table
    return f"atout {verb}{server}{who} {table_arg}"


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
) -> tuple[dict[str, Any] | None, str]:
    """Sit at ``table``: take back the seat kept for this player (by its token) if there is
    one, else the seat asked for, else any. Returns (the ``joined`` answer, what to tell the
    player about the seat), or (None, "") after explaining why not."""
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
        return None, ""
    old: int | None = None
    if saved:  # our seat from before a Ctrl-C or a crash
        old = int(saved[0]["seat"])
        try:
            joined = await link.call({"type": "resume", "token": saved[0]["token"]})
            return joined, tr("join.back", seat=joined["seat"], table=table)
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
        return joined, tr("join.other_seat", old=old, why=tr(why), seat=joined["seat"], table=table)
    return joined, ""


async def _run(args: argparse.Namespace, tr: Tr, ui: UI) -> int:
    url = normalize_url(args.server)
    queue: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
    model = TableModel()
    name = (args.name or default_name())[:32]
    link = Link(url, name, queue, last_version=lambda: model.v)
    opts = Options(
        auto=args.auto,
        json=args.json,
        interactive=not args.auto,
        waiting_hint=args.command != "play",
    )
    try:
        await link.open()
        if args.command == "tables":
            answer = await link.call({"type": "list_tables"})
            if args.json:
                ui.raw(answer)
            else:
                ui.show(tables_view(answer.get("tables") or [], tr, url))
            return 0
        ui.note(tr("net.connected", url=url, name=name))
        try:
            if args.command == "watch":
                await link.call({"type": "watch", "table": args.table})
                link.watching = args.table
                model.table = args.table
                ui.say(tr("watch.done", table=args.table), "bold")
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
                    created = await link.call(body)
                    table = created["table"]["table"]
                else:
                    table = args.table
                joined, notice = await _take_seat(args, link, url, table, name, ui, tr)
                if joined is None:
                    return 1
                link.token = joined["token"]
                seats.remember(url, table, joined["token"], joined["seat"], name)
                model.table = table
                model.seat = joined["seat"]
                if args.command == "play":
                    ui.say(tr("play.created", ai=args.ai, seat=joined["seat"]), "bold")
                    await link.call({"type": "start", "table": table})
                elif args.command == "create":
                    ui.say(tr("create.done", table=table), "bold")
                    ui.say(tr("create.join"))
                    ui.say("    " + command_line("join", table, url), "bold cyan")
                    ui.say(tr("create.watch"))
                    ui.say("    " + command_line("watch", table, url), "bold cyan")
                    if args.json:
                        join = command_line("join", table, url)
                        ui.raw({"type": "client_table", "table": table, "join": join})
                elif notice:
                    ui.say(notice, "bold")
                else:
                    ui.say(tr("join.done", seat=joined["seat"], table=table), "bold")
        except ServerError as e:
            code = e.code
            tid = getattr(args, "table", "")
            if code == "no_such_table":
                ui.error(tr("err.no_table", table=tid))
            elif code == "table_full":
                ui.error(tr("err.full", table=tid))
            elif code == "seat_taken":
                ui.error(tr("err.seat_taken"))
            else:
                ui.error(tr("err.server", message=e.msg.get("message", "")))
            return 1
        start_stdin_reader(queue)
        game = Game(link, queue, model, ui, opts)
        try:
            status = await game.run()
        except asyncio.CancelledError:
            _bye(ui, tr, model, link)
            raise
        if game.finished and model.table and model.seat is not None:
            seats.forget(url, model.table, model.seat)
        elif status == 0:
            _bye(ui, tr, model, link)
        return status
    except LinkError as e:
        ui.error(tr(e.key, **e.info))
        if e.key == "err.connect":
            ui.error(tr("err.connect_hint"))
        return 1
    except asyncio.CancelledError:
        raise
    finally:
        await asyncio.shield(link.close())


def _bye(ui: UI, tr: Tr, model: TableModel, link: Link) -> None:
    ui.say("")  # the cursor may stand after a prompt
    if model.seat is not None and model.state == "playing" and link.token and link.grace > 0:
        name = None if link.name == default_name() else link.name
        command = command_line("join", model.table, link.url, name)
        ui.note(tr("bye.seat", grace=link.grace, command=command))
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


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    tr = Tr(_pre_lang(argv))
    args = parse_args(argv, tr)
    if args.lang:
        tr = Tr(args.lang)
    ui = UI(tr, json_mode=args.json)
    try:
        normalize_url(args.server)
    except LinkError as e:
        ui.error(tr(e.key, **e.info))
        return 2
    try:
        return asyncio.run(_run(args, tr, ui))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

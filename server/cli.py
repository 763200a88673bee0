"""The ``atout-server`` command: ``serve`` (default), ``replay`` and admin commands.

Imports are deferred to each subcommand so that ``replay`` starts as fast as the rules engine
allows (it is run over large record files by other tools).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


def _env(name: str, default: str) -> str:
    return os.environ.get(name, default)


def _replay(args: argparse.Namespace) -> int:
    from server.rules.records import encode, iter_lines, replay_line

    path: str = args.path
    out = sys.stdout.buffer
    all_ok = True

    def emit(ok: bool, obj: object) -> None:
        nonlocal all_ok
        all_ok &= ok
        out.write(encode(obj) + b"\n")

    try:
        if path == "-":
            for line in iter_lines(sys.stdin.buffer):
                emit(*replay_line(line))
        elif path.endswith(".jsonl"):
            with open(path, "rb") as f:
                for line in iter_lines(f):
                    emit(*replay_line(line))
        else:
            with open(path, "rb") as f:
                data = f.read()
            emit(*replay_line(data))
    except OSError as e:
        print(f"atout-server replay: cannot read {path}: {e.strerror or e}", file=sys.stderr)
        return 2
    out.flush()
    return 0 if all_ok else 2


def build_parser(with_admin: bool = True) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="atout-server",
        description="Atout French Tarot table server. Without a subcommand, runs `serve`.",
    )
    sub = p.add_subparsers(dest="command")

    serve = sub.add_parser("serve", help="run the WebSocket table server (default)")
    add_serve_options(serve)

    rp = sub.add_parser(
        "replay",
        help="check atout-deal/1 records against the rules and print their results",
        description=(
            "Replay deal records: PATH is a .json file (one record), a .jsonl file (one record "
            "a line) or - (JSON Lines on standard input). Prints one JSON line per record: its "
            'result, or {"error": {"action_index": K, "reason": ...}}. Exits 0 when every '
            "record is legal and complete, 2 otherwise."
        ),
    )
    rp.add_argument("path", metavar="PATH")
    rp.set_defaults(func=_replay)

    if with_admin:
        from server.ops.admin import add_admin_commands

        add_admin_commands(sub)
    return p


def add_serve_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--host", default=_env("ATOUT_HOST", "127.0.0.1"), help="bind address (ATOUT_HOST)"
    )
    p.add_argument(
        "--port", type=int, default=int(_env("ATOUT_PORT", "8765")), help="port (ATOUT_PORT)"
    )
    p.add_argument("--db", default=_env("ATOUT_DB", "atout.db"), help="SQLite file (ATOUT_DB)")
    p.add_argument(
        "--log-level",
        default=_env("ATOUT_LOG_LEVEL", "info"),
        help="debug, info, warning, error (ATOUT_LOG_LEVEL)",
    )
    p.add_argument(
        "--log-format",
        choices=("text", "json"),
        default=_env("ATOUT_LOG_FORMAT", "text"),
        help="text (human-readable) or json: one JSON object per line (ATOUT_LOG_FORMAT)",
    )
    p.add_argument(
        "--think-delay",
        type=float,
        default=float(_env("ATOUT_THINK_DELAY", "0.8")),
        help="default seconds an AI waits before acting, per table (ATOUT_THINK_DELAY)",
    )
    p.add_argument(
        "--deal-pause",
        type=float,
        default=float(_env("ATOUT_DEAL_PAUSE", "3")),
        help="default seconds between two deals, per table (ATOUT_DEAL_PAUSE)",
    )
    p.add_argument(
        "--grace",
        type=float,
        default=float(_env("ATOUT_GRACE", "60")),
        help="seconds a disconnected player keeps the seat (ATOUT_GRACE)",
    )
    p.add_argument(
        "--absent-wait",
        type=float,
        default=float(_env("ATOUT_ABSENT_WAIT", "5")),
        help="seconds an absent player's turn waits before the AI plays it (ATOUT_ABSENT_WAIT)",
    )
    p.add_argument(
        "--max-tables",
        type=int,
        default=int(_env("ATOUT_MAX_TABLES", "5000")),
        help="open tables at most (ATOUT_MAX_TABLES)",
    )
    p.add_argument(
        "--no-web",
        dest="web",
        action="store_false",
        default=_env("ATOUT_WEB", "1").lower() not in ("0", "false", "no", "off"),
        help="do not serve the browser client at / (ATOUT_WEB=0)",
    )
    from server.cluster.cli import add_cluster_options

    add_cluster_options(p)  # --workers, --worker-id, --public-url, --heartbeat
    p.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    from server.cluster.cli import wants_supervisor

    if wants_supervisor(args):  # --workers N: this process only runs the workers
        from server.cluster.worker import supervise

        return supervise(args, getattr(args, "argv", None))
    try:
        from server.net.app import run
    except ImportError:
        print("atout-server serve: the table server is not built yet", file=sys.stderr)
        return 1
    return run(args)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["serve", *argv]
    # replay is run over large files by other tools: keep its start-up to the rules engine.
    parser = build_parser(with_admin=argv[0] != "replay")
    args = parser.parse_args(argv)
    args.argv = argv  # what a supervisor passes on to its workers
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

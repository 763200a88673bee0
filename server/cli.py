"""The ``atout-server`` command: ``serve`` (default), ``replay`` and admin commands.

Imports are deferred to each subcommand so that ``replay`` starts as fast as the rules engine
allows (it is run over large record files by other tools): ``atout-server replay PATH`` does
not even build the argument parser.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def _replay(args: argparse.Namespace) -> int:
    return replay_path(args.path)


def replay_path(path: str) -> int:
    """``atout-server replay PATH``: one JSON line per record on standard output, exactly as
    ../shared/spec/deal-record.md says (the result, or ``{"error": ...}``). What the spec
    leaves out goes to standard error: which record a failing line is about (its number,
    line, and table and deal when it has a ``meta``), a hint for a JSON Lines file with
    another name than ``.jsonl``, and a word when there was no record at all."""
    from server.rules.records import encode, replay_line

    out = sys.stdout.buffer
    all_ok = True
    count = 0
    name = "standard input" if path == "-" else path

    def emit(ok: bool, obj: dict[str, Any], data: bytes, line: int | None) -> None:
        nonlocal all_ok, count
        count += 1
        all_ok &= ok
        out.write(encode(obj) + b"\n")
        if not ok:
            _tell_failure(count, line, data, obj)

    def lines(f: Any) -> None:
        for no, line in enumerate(f, 1):
            if line.strip():
                emit(*replay_line(line), line, no)

    try:
        if path == "-":
            lines(sys.stdin.buffer)
        elif path.endswith(".jsonl"):
            with open(path, "rb") as f:
                lines(f)
        else:
            with open(path, "rb") as f:
                data = f.read()
            ok, obj = replay_line(data)
            emit(ok, obj, data, None)
            if not ok and not path.endswith(".json") and "trailing characters" in str(obj):
                print(
                    f"atout-server replay: {path} holds more than one JSON document: a file of "
                    "one record a line is read as such when named .jsonl (or given on "
                    "standard input as -)",
                    file=sys.stderr,
                )
    except OSError as e:
        print(f"atout-server replay: cannot read {path}: {e.strerror or e}", file=sys.stderr)
        return 2
    out.flush()
    if count == 0:  # no record is no failure (an empty database exports nothing)
        print(f"atout-server replay: no record in {name}", file=sys.stderr)
    return 0 if all_ok else 2


def _tell_failure(n: int, line: int | None, data: bytes, obj: dict[str, Any]) -> None:
    """On standard error: which record failed (its output line says only how)."""
    where = f"record {n}" + (f" (line {line})" if line is not None else "")
    try:
        import json

        meta = json.loads(data).get("meta") or {}
        if meta.get("table_id") is not None:
            where += f", table {meta['table_id']}"
        if meta.get("deal_no") is not None:
            where += f" deal {meta['deal_no']}"
    except (ValueError, AttributeError, TypeError, RecursionError):  # not JSON, not an object
        pass
    err = obj.get("error") or {}
    index = err.get("action_index")
    at = f" at action {index}" if isinstance(index, int) and index >= 0 else ""
    from protocol.text import printable

    reason = str(err.get("reason", ""))[:300]
    print(printable(f"atout-server replay: {where}: refused{at}: {reason}"), file=sys.stderr)


def build_parser(with_admin: bool = True) -> argparse.ArgumentParser:
    import argparse

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


#: ``serve`` options: (flag, type, default, help); each also ``ATOUT_<FLAG>`` in the environment.
_SERVE_OPTIONS: tuple[tuple[str, type, str, str], ...] = (
    ("--host", str, "127.0.0.1", "bind address"),
    ("--port", int, "8765", "TCP port of the WebSocket, the browser client, /healthz and /metrics"),
    (
        "--db",
        str,
        "atout.db",
        "SQLite file (created if missing; its directory must exist) or "
        "postgresql://user:password@host:port/dbname URL",
    ),
    ("--log-level", str, "info", "debug, info, warning, error"),
    ("--think-delay", float, "0.8", "default seconds an AI waits before acting, per table"),
    ("--deal-pause", float, "3", "default seconds between two deals, per table"),
    ("--grace", float, "60", "seconds a disconnected player keeps the seat"),
    (
        "--absent-wait",
        float,
        "5",
        "seconds an absent player's turn waits before the AI plays it",
    ),
    (
        "--turn-limit",
        float,
        "60",
        "seconds a present player has to act on a table without a turn timer before the AI "
        "plays for them (0: no limit)",
    ),
    (
        "--max-timeouts",
        int,
        "3",
        "turns in a row the AI plays for a present player before the seat is released (0: never)",
    ),
    ("--max-tables", int, "5000", "open tables at most"),
    ("--rate", float, "100", "frames per second a connection may send on average"),
    ("--burst", int, "200", "frames a connection may send at once"),
    (
        "--out-bytes",
        int,
        "1048576",
        "bytes queued for a client that does not read before it is closed with 4008",
    ),
    (
        "--max-connections-per-address",
        int,
        "64",
        "open connections per client address (more are closed with 4010)",
    ),
    (
        "--trusted-proxies",
        str,
        "",
        "comma-separated IP addresses or networks (CIDR) of reverse proxies whose "
        "X-Forwarded-For names the client",
    ),
    (
        "--max-bot-tables",
        int,
        "4",
        "tables of bots only (no human seated) an address may have playing at once",
    ),
    (
        "--ai-share",
        float,
        "0.25",
        "seconds of AI work per second an address's tables of bots only may use (0: no limit)",
    ),
    ("--min-think-delay", float, "0", "the least think delay a table may ask for"),
    ("--backlog", int, "1024", "pending TCP connections the listening socket holds"),
    (
        "--admin-token-file",
        str,
        "",
        "file holding the admin token: a client whose hello carries it may close any table",
    ),
)


def _not_negative(kind: type) -> Any:
    """``kind`` (int or float) refusing a negative value: no option here means anything by one
    (a negative grace or think delay was taken silently, and acted as zero or worse)."""

    def convert(text: str) -> Any:
        value = kind(text)
        if value < 0 or value != value or value == float("inf"):  # nan, inf: no meaning here
            import argparse

            raise argparse.ArgumentTypeError(f"{text} is negative or not a number")
        return value

    convert.__name__ = kind.__name__
    return convert


_LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


def _port(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535: a larger one ended in an OverflowError
    traceback from bind()."""
    value = int(text)
    if not 0 <= value <= 65535:
        import argparse

        raise argparse.ArgumentTypeError(f"{text} is not a TCP port (0 to 65535)")
    return value


_port.__name__ = "port"  # argparse: "invalid port value: 'x'"


def check_serve_args(args: argparse.Namespace) -> str | None:
    """What is wrong with parsed ``serve`` options that argparse cannot check, or None; a
    switch read from its variable (``ATOUT_WEB``) is turned into a bool here.

    ``--workers N --port P`` runs workers on ports P..P+N-1: with P+N-1 above 65535 the last
    ones could never listen, and the supervisor restarted them forever."""
    from server.config import flag_value

    try:
        args.web = flag_value(getattr(args, "web", True))
    except ValueError as e:
        return str(e)
    from server.cluster.cli import wants_supervisor

    workers = getattr(args, "workers", 0) or 0
    port = getattr(args, "port", 0) or 0
    # Only the supervisor's: a worker gets its own --port P+n with the same --workers N.
    if wants_supervisor(args) and port and port + workers - 1 > 65535:
        return (
            f"--workers {workers} --port {port}: the workers listen on ports "
            f"{port}..{port + workers - 1}, past 65535; choose a --port of "
            f"{65535 - workers + 1} or less"
        )
    return None


def _proxies(text: str) -> str:
    """``--trusted-proxies``: IP addresses and networks, checked here (a bad one was taken
    silently and never matched); Config parses them."""
    from server.config import proxy_networks

    try:
        proxy_networks(text)
    except ValueError as e:
        import argparse

        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _log_level(text: str) -> str:
    """A log level, in any case (an unknown one was taken silently as info)."""
    if text.lower() not in _LOG_LEVELS:
        import argparse

        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(_LOG_LEVELS)}")
    return text.lower()


def _one_of(*names: str) -> Any:
    def convert(text: str) -> str:
        if text not in names:
            import argparse

            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(names)}")
        return text

    convert.__name__ = "choice"
    return convert


def add_serve_options(p: argparse.ArgumentParser) -> None:
    from server.config import env_default, env_flag, env_typed

    for flag, kind, default, text in _SERVE_OPTIONS:
        env = "ATOUT_" + flag[2:].upper().replace("-", "_")
        check: Any = kind
        if flag == "--port":
            check = _port
        elif kind in (int, float):
            check = _not_negative(kind)
        elif flag == "--log-level":
            check = _log_level
        elif flag == "--trusted-proxies":
            check = _proxies
        p.add_argument(
            flag,
            type=env_typed(check),
            default=env_default(env, default),  # converted by argparse, naming a bad variable
            help=f"{text} ({env}; default {default or 'none'})",
        )
    # Checked by their type, not ``choices``: argparse checks no default against its choices,
    # and a bad variable must be named like the others' (env_typed).
    p.add_argument(
        "--log-format",
        type=env_typed(_one_of("text", "json")),
        metavar="{text,json}",
        default=env_default("ATOUT_LOG_FORMAT", "text"),
        help="text (human-readable) or json: one JSON object per line (ATOUT_LOG_FORMAT; "
        "default text)",
    )
    p.add_argument(
        "--loop",
        type=env_typed(_one_of("auto", "uvloop", "asyncio")),
        metavar="{auto,uvloop,asyncio}",
        default=env_default("ATOUT_LOOP", "asyncio"),
        help="event loop: asyncio (the standard one), uvloop (libuv; pip install uvloop), or "
        "auto: uvloop where it is installed, else asyncio (ATOUT_LOOP; default asyncio)",
    )
    p.add_argument(
        "--no-web",
        dest="web",
        action="store_false",
        default=env_flag("ATOUT_WEB", True),  # its text checked by check_serve_args
        help="do not serve the browser client at / (ATOUT_WEB=0; also false, no, off; default: "
        "served)",
    )
    from server.cluster.cli import add_cluster_options

    add_cluster_options(p)  # --workers, --worker-id, --public-url, --heartbeat
    p.set_defaults(func=_serve)


def _hold_database(db: str) -> object:
    """Hold ``db``'s lock file (``DB.lock``) for as long as this process runs; the kernel lets
    it go when the process ends, however it ends. None: the lock is someone else's (its pid
    is printed); True: nothing to hold (no flock here, a lock file that cannot be made: the
    store's own errors will say more). On PostgreSQL: :func:`_hold_postgres`.

    Two servers on one SQLite file both ran: each rebuilt the same tables and dealt the same
    deals, the second's writes refused one by one. A cluster shares a database on purpose:
    its supervisor holds the lock, its workers (``--worker-id``/``--worker-slot``) do not."""
    from server.store import is_postgres

    if is_postgres(db):
        return _hold_postgres(db, shared=False)
    if db == ":memory:":
        return True
    try:
        import fcntl
    except ImportError:  # not POSIX
        return True
    import errno

    path = os.path.realpath(db) + ".lock"  # one lock file for every name of the database
    try:
        f = open(path, "a+")  # noqa: SIM115  (held open until the process ends)
    except OSError:
        return True
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            f.close()  # a file system without flock (some network mounts): nothing to hold
            return True
        f.seek(0)
        holder = f.read().strip() or "?"
        f.close()
        print(
            f"atout-server serve: another Atout server (pid {holder}) is serving {db}; stop "
            "it first. To run several processes on one database use --workers N "
            f"(docs/SCALING.md). Lock file: {path}",
            file=sys.stderr,
        )
        return None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


#: The advisory lock (a 64-bit key, the same in every Atout: "serve" in ASCII; the store's
#: migrations take "atout") that a lone server holds exclusively on its PostgreSQL database,
#: and a cluster's supervisors and workers shared.
PG_LOCK_KEY = 0x7365727665


def _hold_postgres(db: str, shared: bool) -> object:
    """On PostgreSQL, what the lock file is on SQLite: a session advisory lock held on a
    connection of its own for as long as this process runs (the database server lets it go
    when the connection ends, however the process ends). A lone server takes it exclusively;
    the processes of a cluster (``--workers N`` on each host) share it. None: refused (the
    holders are printed); True: the database cannot be reached now (the store will say why).

    Two lone servers on one PostgreSQL database both ran: the second rebuilt and played the
    first's open tables, its writes refused, a player routed to it playing a deal that could
    not be stored. It is only a guard against starting a server twice: a holder whose
    connection breaks loses it without stopping."""
    import socket

    import psycopg

    from server.store import describe
    from server.store.postgres import connect

    me = f"atout-lock {'cluster' if shared else 'lone'} {socket.gethostname()} pid {os.getpid()}"
    try:
        # The database server's keepalives: a holder whose host died (no process exit, no FIN)
        # lets the lock go within about 90 s rather than the system's two hours.
        keep = "-c tcp_keepalives_idle=60 -c tcp_keepalives_interval=10 -c tcp_keepalives_count=3"
        conn = connect(db, keep, 10, me[:63])
    except psycopg.Error as e:
        print(
            f"atout-server serve: warning: cannot reach {describe(db)} to take its lock now "
            f"({_first_line(e)})",
            file=sys.stderr,
        )
        return True  # the store says why it cannot open it, or runs if it is back by then
    holders: list[str] = []
    try:
        take = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
        row = conn.execute(f"SELECT {take}(%s)", (PG_LOCK_KEY,)).fetchone()
        if row and row[0]:
            return conn
        holders = [
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT a.application_name FROM pg_locks l"
                " JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory'"
                " AND l.granted AND ((l.classid::bigint << 32) | l.objid::bigint) = %s"
                " AND l.database = (SELECT oid FROM pg_database"
                " WHERE datname = current_database())",
                (PG_LOCK_KEY,),
            )
        ]
    except psycopg.Error as e:  # refused, or not known: never run unlocked on a guess
        if not holders:
            holders = [f"? ({_first_line(e)})"]
    conn.close()
    held = "; ".join(h.removeprefix("atout-lock ") for h in holders) or "?"
    if shared:
        why = (
            "a lone Atout server (started without --workers) is serving it; stop it first, "
            "then start every host with --workers N"
        )
    else:
        why = (
            "another Atout server is serving it; stop it first. To run several processes or "
            "hosts on one database use --workers N on each (docs/SCALING.md)"
        )
    print(f"atout-server serve: {describe(db)}: {why}. Held by: {held}", file=sys.stderr)
    return None


def _first_line(e: Exception) -> str:
    """An error's first line (psycopg's may run on with a hint), or its type's name."""
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _serve(args: argparse.Namespace) -> int:
    from server.cluster.cli import wants_supervisor
    from server.store import is_postgres

    lock: object = True
    if getattr(args, "worker_id", None) is None and getattr(args, "worker_slot", None) is None:
        if is_postgres(args.db) and wants_supervisor(args):
            lock = _hold_postgres(args.db, shared=True)  # hosts of one cluster share it
        else:
            lock = _hold_database(args.db)
    elif is_postgres(args.db):  # a worker: its supervisor holds it too, unless started alone
        lock = _hold_postgres(args.db, shared=True)
    if lock is None:
        return 1
    args.database_lock = lock  # kept referenced: the lock lasts as long as the process
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
    if len(argv) == 2 and argv[0] == "replay" and (argv[1] == "-" or argv[1][:1] != "-"):
        return replay_path(argv[1])
    parser = build_parser(with_admin=argv[0] != "replay")
    args = parser.parse_args(argv)
    problem = check_serve_args(args) if args.func is _serve else None
    if problem:
        print(f"atout-server serve: error: {problem}", file=sys.stderr)
        return 2
    args.argv = argv  # what a supervisor passes on to its workers
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # here, not at exit, where a closed pipe prints a traceback
    except BrokenPipeError:
        if not _reader_left():
            raise  # another pipe (a socket, a child): not the reader of our output leaving
        # `atout-server scores | head`: the reader has what it wanted. Later writes (the
        # interpreter's own flush at exit) go nowhere instead of failing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


def _reader_left() -> bool:
    """Whether standard output is a pipe whose reader has closed it (poll: POLLERR)."""
    try:
        import select

        p = select.poll()
        p.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & select.POLLERR for _, ev in p.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll here: take it for stdout's
        return True


if __name__ == "__main__":
    sys.exit(main())

"""Admin subcommands of ``atout-server``: ``export``, ``scores``, ``backup`` and ``migrate-db``.

``server/cli.py`` imports this module while it builds its parser, for every command including
``replay``, so nothing heavy is imported here at module level: the store (and sqlite-utils) is
imported inside each command. The commands open the database read-only: they never create it,
never migrate it (a backup taken before an upgrade is of the old schema) and can run while the
server is running.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

from protocol.text import printable

if TYPE_CHECKING:
    from server.store.base import PlayerStore, Store


def _db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        default=os.environ.get("ATOUT_DB", "atout.db"),
        help="SQLite file or postgresql:// URL (ATOUT_DB; default ./atout.db)",
    )


def add_admin_commands(sub: Any) -> None:
    """Add ``export``, ``scores`` and ``backup`` to the ``atout-server`` subparsers."""
    ex = sub.add_parser(
        "export",
        help="write stored deal records as JSON Lines (input for `replay`)",
        description=(
            "Write the finished deals' atout-deal/1 records, oldest first, one JSON object a "
            "line, each with a `meta` object (table_id, deal_no, players, finished_at). "
            "`atout-server replay -` accepts the output."
        ),
    )
    _db_option(ex)
    ex.add_argument("--table", metavar="ID", help="only this table's deals")
    ex.add_argument(
        "--since",
        metavar="DATE",
        help="only deals finished at or after DATE (ISO 8601 date or date-time; UTC if no zone)",
    )
    ex.add_argument(
        "--player",
        metavar="NAME",
        help="only the deals of this player (an account, by name as compared; see --guest)",
    )
    ex.add_argument(
        "--guest", action="store_true", help="with --player: a guest name, exactly as typed"
    )
    ex.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    ex.set_defaults(func=_export)

    sc = sub.add_parser(
        "scores",
        help="print the leaderboard, or one table's standings",
        description=(
            "Without --table: every human player by total score, with deals and tables played. "
            "With --table: that table's seats and players by score."
        ),
    )
    _db_option(sc)
    sc.add_argument("--table", metavar="ID", help="one table's standings")
    sc.add_argument(
        "--by",
        choices=("rating", "total", "mean"),
        help="the players' leaderboard by rating (mu - 3 sigma; AI levels as anchors), total "
        "score or mean score per deal; accounts marked registered/bot/ai, guests as guests",
    )
    sc.add_argument(
        "--min-deals",
        type=_count,
        metavar="N",
        help="with --by: players with at least N deals (default 20 by rating, else 1)",
    )
    sc.add_argument("--json", action="store_true", help="print JSON instead of a text table")
    sc.set_defaults(func=_scores)

    bk = sub.add_parser(
        "backup",
        help="copy the live database to DEST (online, consistent)",
        description=(
            "Online backup, safe while the server runs, written under a temporary name and "
            "checked before it is renamed into place. SQLite: VACUUM INTO, DEST a compact "
            "self-contained SQLite file. PostgreSQL: pg_dump --format=custom (restore with "
            "pg_restore), checked with pg_restore --list."
        ),
    )
    bk.add_argument("dest", metavar="DEST")
    _db_option(bk)
    bk.add_argument("--force", action="store_true", help="overwrite DEST if it exists")
    bk.set_defaults(func=_backup)

    mg = sub.add_parser(
        "migrate-db",
        help="copy a whole database into another (e.g. SQLite into PostgreSQL)",
        description=(
            "Copy every table, finished deal, score, player and deal in progress from SRC to "
            "DEST (each a SQLite path or a postgresql:// URL). SRC is only read (in one "
            "snapshot); DEST is created or migrated, and must hold no rows. The copy is one "
            "transaction of DEST, committed once both sides' row counts, exported records and "
            "standings compare equal: a copy that fails or is interrupted leaves DEST empty, "
            "to be run again. Stop the servers writing to SRC first."
        ),
    )
    mg.add_argument("src", metavar="SRC")
    mg.add_argument("dest", metavar="DEST")
    mg.set_defaults(func=_migrate_db)


def _open(path: str) -> Store:
    from server.store import open_store

    return open_store(path, readonly=True)


def _database_file(path: str, db: str) -> bool:
    """Whether writing ``path`` would overwrite the SQLite database ``db`` or one of its files
    (its -wal, -shm or -journal): by name once resolved, or as the same file on disk (a hard
    link, another mount). A server using ``db`` would carry on unaware, and the file would be
    found ruined at its next start."""
    from server.store import is_postgres

    if is_postgres(db):
        return False
    target = os.path.realpath(path)
    for suffix in ("", "-wal", "-shm", "-journal"):
        own = db + suffix
        if os.path.realpath(own) == target:
            return True
        with contextlib.suppress(OSError):
            if os.path.samefile(own, path):
                return True
    return False


def _fail(command: str, message: object) -> int:
    print(printable(f"atout-server {command}: {message}"), file=sys.stderr)
    return 1


def _misuse(command: str, message: str) -> int:
    """Options that make no sense together: refused like argparse refuses (exit 2) rather
    than ignored (the host then reads a result that is not the one asked for)."""
    print(f"atout-server {command}: error: {message}", file=sys.stderr)
    return 2


def _count(text: str) -> int:
    """A whole number, 0 or more (``--min-deals -3`` was taken)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return n


def _export(args: argparse.Namespace) -> int:
    from server.store.base import StoreError, parse_time

    if args.guest and args.player is None:
        return _misuse("export", "--guest needs --player NAME (the guest's name)")
    if args.since is not None:
        try:
            parse_time(args.since)
        except ValueError:
            return _fail("export", f"--since: not an ISO 8601 date: {args.since!r}")
    if args.output and _database_file(args.output, args.db):
        return _fail("export", f"-o {args.output} is the database itself: give another file")
    try:
        store = _open(args.db)
        if args.table is not None and store.table(args.table) is None:
            store.close()  # nothing exported was not an answer: say the table is not there
            from server.store import describe  # a URL's password never printed

            return _fail("export", f"no table {args.table!r} in {describe(args.db)}")
    except StoreError as e:
        return _fail("export", e)
    import msgspec

    encode = msgspec.json.Encoder().encode
    n = 0
    try:
        out = open(args.output, "wb") if args.output else sys.stdout.buffer  # noqa: SIM115
    except OSError as e:
        store.close()
        return _fail("export", f"cannot write {args.output}: {e.strerror or e}")
    try:
        wanted = None
        if args.player is not None:
            wanted = _player_deals(store, args.player, args.guest)
            if wanted is None:
                hint = "" if args.guest else " (a guest? add --guest)"
                from server.store import describe

                return _fail("export", f"no player {args.player!r} in {describe(args.db)}{hint}")
        for rec in store.deals(table_id=args.table, since=args.since):
            if (
                wanted is not None
                and (rec["meta"]["table_id"], rec["meta"]["deal_no"]) not in wanted
            ):
                continue
            out.write(encode(rec) + b"\n")
            n += 1
        out.flush()
    except StoreError as e:
        return _fail("export", e)
    except BrokenPipeError:  # `export | head`: the reader left, nothing to report
        return 0
    finally:
        if args.output:
            out.close()
        store.close()
    if args.output:
        print(f"exported {n} deal(s) to {args.output}", file=sys.stderr)
    return 0


def _players_of(store: Store) -> PlayerStore:
    """The players' part of ``store`` (both backends keep players: ``keeps_players``)."""
    if not store.keeps_players:
        raise SystemExit("atout-server: this database does not keep players")
    return store  # type: ignore[return-value]  # a Store that is also a PlayerStore


def _player_deals(db: Store, name: str, guest: bool) -> set[tuple[str, int]] | None:
    store = _players_of(db)
    if guest:
        deals = store.player_deals(guest=name)
        return set(deals) if deals else None
    from server.players.names import BadName, name_key

    try:
        key = name_key(name)
    except BadName:
        return None
    account = store.account_named(key)
    aid = None if account is None else account["id"]
    if aid is None:
        # A database upgraded but not served since keeps the keys of an older name check (a
        # server rekeys them at start; export opens it read-only): compare with this release's
        # keys, the oldest account first, as the rekeying would.
        for other, stored, _ in store.player_names():
            with contextlib.suppress(BadName):
                if name_key(stored) == key:
                    aid = other
                    break
    return None if aid is None else set(store.player_deals(account_id=aid))


def _leaderboard(args: argparse.Namespace) -> int:
    from server.players.service import rating_view
    from server.store.sqlite import StoreError

    try:
        store = _open(args.db)
    except StoreError as e:
        return _fail("scores", e)
    by = args.by
    min_deals = args.min_deals if args.min_deals is not None else (20 if by == "rating" else 1)
    try:
        rows, _ = _players_of(store).leaderboard(by, min_deals=min_deals, limit=1_000_000)
    except StoreError as e:
        return _fail("scores", e)
    finally:
        store.close()
    for r in rows:
        r["rating"] = (
            None
            if r["mu"] is None
            else rating_view({"mu": r["mu"], "sigma": r["sigma"], "deals": r["rated"]})
        )
    if args.json:
        import json

        print(
            json.dumps(
                {"by": by, "min_deals": min_deals, "leaderboard": rows},
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0
    if not rows:
        print(f"No player with {min_deals} deal(s) or more yet.")
        return 0
    headers = ["#", "player", "kind", "deals", "rating", "total", "mean", "over par"]
    table = []
    for r in rows:
        rt = r["rating"]
        shown = None if rt is None else f"{rt['rating']:.1f}" + ("?" if rt["provisional"] else "")
        table.append(
            [
                r["rank"],
                _safe(r["name"]),
                r["kind"],
                r["deals"],
                shown,
                r["total"],
                None if r["mean"] is None else round(r["mean"], 1),
                None if r["over_par"] is None else round(r["over_par"], 1),
            ]
        )
    print(_text_table(headers, table, right={0, 3, 4, 5, 6, 7}))
    if by == "rating":
        print("rating: mu - 3 sigma; ? marks a provisional rating (fewer than 20 rated deals)")
    return 0


def _safe(text: str) -> str:
    """A name for a terminal: control and format characters escaped."""
    import unicodedata

    return "".join(ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}" for ch in text)


def _fmt(x: object) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:g}"
    return printable(x)  # names come from players: no terminal escape gets through


def _text_table(headers: list[str], rows: list[list[object]], right: set[int]) -> str:
    cells = [headers, *[[_fmt(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for r in cells:
        parts = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _scores(args: argparse.Namespace) -> int:
    from server.store.base import StoreError

    if args.table is not None and args.by is not None:
        return _misuse(
            "scores", "--by orders the players' leaderboard: not with --table (a table's seats)"
        )
    if args.min_deals is not None and args.by is None:
        return _misuse(
            "scores", "--min-deals goes with --by (the players' leaderboard): add --by total"
        )
    if args.by is not None:
        return _leaderboard(args)
    try:
        store = _open(args.db)
    except StoreError as e:
        return _fail("scores", e)
    try:
        if args.table is None:
            rows = store.standings()
            table = None
        else:
            table = store.table(args.table)
            if table is None:
                from server.store import describe

                return _fail("scores", f"no table {args.table!r} in {describe(args.db)}")
            rows = store.standings(args.table)
    except StoreError as e:
        return _fail("scores", e)
    finally:
        store.close()

    if args.json:
        import json

        doc = {"leaderboard": rows} if table is None else {"table": table, "standings": rows}
        print(printable(json.dumps(doc, indent=2, ensure_ascii=False), lines=True))
        return 0
    if table is None:
        if not rows:
            print("No finished deal with a human player yet.")
            return 0
        print(
            _text_table(
                ["#", "player", "score", "deals", "tables", "last seen"],
                [
                    [r["rank"], r["player"], r["score"], r["deals"], r["tables"], r["last_seen"]]
                    for r in rows
                ],
                right={0, 2, 3, 4},
            )
        )
        return 0
    finished = f", finished {table['finished_at']}" if table["finished_at"] else ""
    print(
        printable(
            f"Table {table['id']} ({table['name']}): {table['status']}, "
            f"{table['deals']} deal(s){finished}"
        )
    )
    if rows:
        print(
            _text_table(
                ["#", "seat", "player", "score", "deals"],
                [
                    [r["rank"], r["seat"], r["player"] or "(AI)", r["score"], r["deals"]]
                    for r in rows
                ],
                right={0, 1, 3, 4},
            )
        )
    return 0


def _backup(args: argparse.Namespace) -> int:
    from server.store.base import StoreError

    if _database_file(args.dest, args.db):
        return _fail("backup", f"{args.dest} is the database itself: back it up elsewhere")
    try:
        store = _open(args.db)
    except StoreError as e:
        return _fail("backup", e)
    try:
        store.backup(args.dest, overwrite=args.force)
    except StoreError as e:
        return _fail("backup", e)
    finally:
        store.close()
    from server.store import describe

    size = os.path.getsize(args.dest)
    print(printable(f"backed up {describe(args.db)} to {args.dest} ({size} bytes)"))
    return 0


def _migrate_db(args: argparse.Namespace) -> int:
    from server.store import describe
    from server.store.base import StoreError
    from server.store.copy import migrate_db

    try:
        counts = migrate_db(args.src, args.dest)
    except StoreError as e:
        return _fail("migrate-db", e)
    parts = ", ".join(f"{n} {table}" for table, n in counts.items())
    print(printable(f"copied {describe(args.src)} to {describe(args.dest)}: {parts or 'nothing'}"))
    return 0

"""Admin commands: export (replayable), scores, backup; and a light `atout-server` start-up."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.cli import build_parser, main
from server.rules.randplay import random_deal
from server.rules.records import record_of
from server.store.sqlite import Store

# Through JSON: record_of() may hold tuples where the stored JSON has lists.
RECS = [json.loads(json.dumps(record_of(random_deal(i, dealer=i % 4)))) for i in range(30, 42)]
assert any(r["result"]["status"] == "annulled" for r in RECS)  # seed 35: every seat passes
CLI = [sys.executable, "-c", "import sys; from server.cli import main; sys.exit(main())"]


@pytest.fixture
def db(tmp_path: Path) -> str:
    """Two tables: t1 with eight deals on 2026-07-01, t2 with four on 2026-07-03."""
    path = str(tmp_path / "atout.db")
    s = Store(path)
    s.create_table("t1", "Morning", {"deals": 8})
    s.create_table("t2", "Evening", {"deals": 4})
    for i, rec in enumerate(RECS):
        table, no, day = ("t1", i + 1, "01") if i < 8 else ("t2", i - 7, "03")
        players = ["ann", None, "bob", None] if table == "t1" else [None, "ann", None, "cid"]
        s.record_deal(
            table, no, rec, players, rec["result"]["scores"], f"2026-07-{day}T10:{i:02d}:00Z"
        )
    s.finish_table("t1", "finished")
    s.close()
    return path


def run(capsysbinary, argv: list[str]) -> tuple[int, bytes, str]:
    code = main(argv)
    out, err = capsysbinary.readouterr()
    return code, out, err.decode()


def test_export_then_replay_gives_the_stored_results(db: str, tmp_path: Path, capsysbinary) -> None:
    out_file = str(tmp_path / "deals.jsonl")
    code, _, err = run(capsysbinary, ["export", "--db", db, "-o", out_file])
    assert code == 0 and "exported 12 deal(s)" in err
    lines = Path(out_file).read_bytes().splitlines()
    assert len(lines) == len(RECS)
    exported = [json.loads(line) for line in lines]
    assert [{k: v for k, v in r.items() if k != "meta"} for r in exported] == RECS
    assert exported[0]["meta"]["players"] == ["ann", None, "bob", None]

    code, out, _ = run(capsysbinary, ["replay", out_file])
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == [r["result"] for r in RECS]


def test_export_piped_into_replay(db: str) -> None:
    env = os.environ | {"ATOUT_DB": db}
    export = subprocess.run([*CLI, "export"], env=env, capture_output=True, check=True)
    replay = subprocess.run([*CLI, "replay", "-"], input=export.stdout, capture_output=True)
    assert replay.returncode == 0, replay.stderr
    results = [json.loads(line) for line in replay.stdout.splitlines()]
    assert results == [r["result"] for r in RECS]


def test_export_filters(db: str, capsysbinary) -> None:
    def exported(*args: str) -> list[tuple[str, int]]:
        code, out, _ = run(capsysbinary, ["export", "--db", db, *args])
        assert code == 0
        return [
            (m["table_id"], m["deal_no"]) for m in (json.loads(x)["meta"] for x in out.splitlines())
        ]

    assert exported("--table", "t2") == [("t2", n) for n in range(1, 5)]
    assert exported("--since", "2026-07-02") == [("t2", n) for n in range(1, 5)]
    assert exported("--table", "t1", "--since", "2026-07-01T10:06") == [("t1", 7), ("t1", 8)]
    # an unknown table is said to be unknown (it was exit 0 and nothing, like a table of none)
    code, out, err = run(capsysbinary, ["export", "--db", db, "--table", "nope"])
    assert (code, out) == (1, b"") and "no table 'nope' in" in err
    code, _, err = run(capsysbinary, ["export", "--db", db, "--since", "last week"])
    assert code == 1 and "--since" in err


def test_scores_leaderboard(db: str, capsysbinary) -> None:
    def sc(seat: int, recs: list[dict[str, Any]]) -> float:
        return sum(r["result"]["scores"][seat] for r in recs)

    expected = {
        "ann": (sc(0, RECS[:8]) + sc(1, RECS[8:]), 12, 2),
        "bob": (sc(2, RECS[:8]), 8, 1),
        "cid": (sc(3, RECS[8:]), 4, 1),
    }
    code, out, _ = run(capsysbinary, ["scores", "--db", db, "--json"])
    assert code == 0
    board = json.loads(out)["leaderboard"]
    assert {r["player"]: (r["score"], r["deals"], r["tables"]) for r in board} == expected
    assert [r["player"] for r in board] == sorted(expected, key=lambda p: -expected[p][0])

    code, out, _ = run(capsysbinary, ["scores", "--db", db])
    lines = out.decode().splitlines()
    assert lines[0].split() == ["#", "player", "score", "deals", "tables", "last", "seen"]
    first = lines[2].split()
    assert first[:2] == ["1", board[0]["player"]] and first[2] == str(board[0]["score"])


def test_scores_of_one_table(db: str, capsysbinary) -> None:
    code, out, _ = run(capsysbinary, ["scores", "--db", db, "--table", "t1", "--json"])
    assert code == 0
    doc = json.loads(out)
    assert doc["table"]["name"] == "Morning" and doc["table"]["status"] == "finished"
    assert doc["table"]["deals"] == 8
    by_seat = {r["seat"]: r for r in doc["standings"]}
    for seat in range(4):
        assert by_seat[seat]["score"] == sum(r["result"]["scores"][seat] for r in RECS[:8])
    assert by_seat[1]["player"] is None

    code, out, _ = run(capsysbinary, ["scores", "--db", db, "--table", "t1"])
    text = out.decode()
    assert text.startswith("Table t1 (Morning): finished, 8 deal(s)")
    assert "(AI)" in text and "ann" in text
    code, _, err = run(capsysbinary, ["scores", "--db", db, "--table", "zz"])
    assert code == 1 and "no table 'zz'" in err


def test_an_empty_leaderboard(tmp_path: Path, capsysbinary) -> None:
    path = str(tmp_path / "empty.db")
    Store(path).close()
    code, out, _ = run(capsysbinary, ["scores", "--db", path])
    assert code == 0 and b"No finished deal" in out


def test_backup_command(db: str, tmp_path: Path, capsysbinary) -> None:
    dest = str(tmp_path / "copy.db")
    code, out, _ = run(capsysbinary, ["backup", dest, "--db", db])
    assert code == 0 and b"backed up" in out
    with sqlite3.connect(dest) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert c.execute("SELECT COUNT(*) FROM deals").fetchone()[0] == len(RECS)
    code, _, err = run(capsysbinary, ["backup", dest, "--db", db])
    assert code == 1 and "exists" in err
    code, _, _ = run(capsysbinary, ["backup", dest, "--db", db, "--force"])
    assert code == 0


def test_export_and_backup_never_write_over_the_database(
    db: str, tmp_path: Path, capsysbinary
) -> None:
    """`export -o` and `backup --force` onto the database (or its WAL, or the same file by
    another name) are refused and leave it whole: the first truncated it, the second replaced
    it under a running server, which carried on unaware until its next start."""
    before = Path(db).read_bytes()
    link = str(tmp_path / "other-name.db")
    os.link(db, link)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        for dest in (db, "atout.db", "./atout.db", link, db + "-wal"):
            code, _, err = run(capsysbinary, ["export", "--db", db, "-o", dest])
            assert code == 1 and "is the database itself" in err, (dest, err)
            code, _, err = run(capsysbinary, ["backup", "--db", db, "--force", dest])
            assert code == 1 and "is the database itself" in err, (dest, err)
    finally:
        os.chdir(here)
    assert Path(db).read_bytes() == before
    assert not os.path.exists(db + "-wal")
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # Another file is fine, with -o as with backup.
    code, _, _ = run(capsysbinary, ["export", "--db", db, "-o", str(tmp_path / "deals.jsonl")])
    assert code == 0


def test_commands_never_create_or_migrate_a_database(tmp_path: Path, capsysbinary) -> None:
    missing = str(tmp_path / "missing.db")
    for argv in (["export"], ["scores"], ["backup", str(tmp_path / "b.db")]):
        code, _, err = run(capsysbinary, [*argv, "--db", missing])
        assert code == 1 and "no database at" in err
    assert not os.path.exists(missing)


def test_a_malformed_variable_fails_only_serve_and_names_itself(tmp_path: Path) -> None:
    """A bad ATOUT_* value used to raise a traceback from every command, even `--help` and
    the backups of a container that inherits the server's environment."""
    env = {**os.environ, "ATOUT_GRACE": "60s", "ATOUT_WORKERS": "2"}
    missing = str(tmp_path / "missing.db")
    for argv in (["backup", "--db", missing, "x.db"], ["scores", "--db", missing]):
        p = subprocess.run([*CLI, *argv], env=env, capture_output=True, text=True, timeout=60)
        assert p.returncode == 1 and "no database at" in p.stderr, p.stderr
        assert "Traceback" not in p.stderr
    p = subprocess.run([*CLI, "serve", "--help"], env=env, capture_output=True, timeout=60)
    assert p.returncode == 0
    p = subprocess.run([*CLI, "serve"], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "ATOUT_GRACE='60s' is not valid" in p.stderr
    # From the command line it is argparse's own message; a good variable still converts.
    p = subprocess.run([*CLI, "serve", "--grace", "5s"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "invalid float value: '5s'" in p.stderr
    env["ATOUT_GRACE"] = "7.5"
    env["ATOUT_LEASE"] = "0"
    code = "from server.cli import build_parser; a = build_parser().parse_args(['serve']); "
    code += "print(a.grace, a.workers, a.lease)"
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert p.stdout.split() == ["7.5", "2", "None"], p.stderr


def test_serve_refuses_negative_numbers_and_unknown_log_levels(capsys) -> None:
    """They were taken silently (a negative grace, an unknown level read as info)."""
    for argv in (
        ["serve", "--think-delay", "-1"],
        ["serve", "--grace", "-5"],
        ["serve", "--max-tables", "-1"],
        ["serve", "--log-level", "verbose"],
    ):
        with pytest.raises(SystemExit) as e:
            build_parser().parse_args(argv)
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert "is negative" in err or "'verbose' is not one of debug, info" in err, err
    args = build_parser().parse_args(["serve", "--log-level", "WARNING", "--port", "0"])
    assert (args.log_level, args.port) == ("warning", 0)


def test_a_reader_that_leaves_early_gets_no_traceback(db: str) -> None:
    """`atout-server scores | head -1` printed a BrokenPipeError traceback now and then."""
    code = (
        "import os, sys\n"
        "r, w = os.pipe(); os.close(r); os.dup2(w, 1)  # a reader that has left\n"
        "from server.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    for argv in (["scores", "--db", db, "--by", "total"], ["export", "--db", db]):
        p = subprocess.run(
            [sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=60
        )
        assert p.returncode == 0, p.stderr
        assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr, p.stderr


def test_an_unknown_player_hints_at_guests(db: str, capsysbinary) -> None:
    code, _, err = run(capsysbinary, ["export", "--db", db, "--player", "ann"])
    assert code == 1 and "no player 'ann'" in err and "add --guest" in err
    code, out, _ = run(capsysbinary, ["export", "--db", db, "--player", "ann", "--guest"])
    assert code == 0 and out


def test_an_upgrade_says_which_migrations_it_applied(tmp_path: Path, caplog) -> None:
    old = tmp_path / "old.db"
    old.write_bytes((Path(__file__).parent / "data" / "atout-0002.db").read_bytes())
    with caplog.at_level("INFO", logger="atout.store"):
        Store(str(old)).close()
        Store(str(tmp_path / "new.db")).close()  # a new database is no upgrade: nothing said
        Store(str(old)).close()  # nor one already up to date
    said = [r.getMessage() for r in caplog.records if "migration" in r.getMessage()]
    assert said and all(x.startswith(f"{old}: migration ") for x in said), said
    assert not any("0001_initial" in x or "0002" in x.split("migration ")[1][:4] for x in said)


def test_db_defaults_to_atout_db_env(monkeypatch) -> None:
    monkeypatch.setenv("ATOUT_DB", "/srv/atout/live.db")
    for argv in (["export"], ["scores"], ["backup", "x.db"]):
        assert build_parser().parse_args(argv).db == "/srv/atout/live.db"
    monkeypatch.delenv("ATOUT_DB")
    assert build_parser().parse_args(["scores"]).db == "atout.db"


def test_building_the_parser_imports_no_store() -> None:
    """server/cli.py imports server.ops.admin for every command: replay must stay light."""
    code = (
        "import sys; from server.cli import build_parser; build_parser(); "
        "heavy = [m for m in ('sqlite_utils', 'sqlite3', 'server.store.sqlite', 'msgspec') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_export_player_gives_that_players_deals_only(tmp_path: Path, capsysbinary) -> None:
    """`export --player NAME`: the deals where the account sat (its name as compared, so a
    look-alike finds it), `--guest` for a guest's typed name; on a database whose name keys
    come from an older name check (here: a digit 0 not folded with the letter O) and that no server
    has opened since, the account is found all the same."""
    path = str(tmp_path / "p.db")
    s = Store(path)
    s.create_table("t1", "Club", {"deals": 4})
    assert s.create_account("Bot0", "bot0", "registered", None, "h1")  # before look-alike folding
    (ada,) = s.conn.execute("SELECT id FROM accounts WHERE name = 'Bot0'").fetchone()
    for no, rec in enumerate(RECS[:4], start=1):
        who: list[dict[str, Any]] = [{"guest": "ann"}, {"ai": "normal"}, {"ai": "normal"}]
        who.insert(no % 2 * 2, {"account": ada} if no != 4 else {"guest": "cid"})
        names = [w.get("guest") or ("Bot0" if "account" in w else None) for w in who]
        s.record_deal("t1", no, rec, names, rec["result"]["scores"], seats=who)
    s.close()

    def exported(*args: str) -> list[int]:
        code, out, err = run(capsysbinary, ["export", "--db", path, *args])
        assert code == 0, err
        return [json.loads(line)["meta"]["deal_no"] for line in out.splitlines()]

    assert exported("--player", "BOT0") == [1, 2, 3]
    assert exported("--player", "B\u043eTO") == [1, 2, 3]  # Cyrillic о, letter O: look-alikes
    assert exported("--player", "ann", "--guest") == [1, 2, 3, 4]
    assert exported("--player", "cid", "--guest") == [4]
    code, _, err = run(capsysbinary, ["export", "--db", path, "--player", "nobody"])
    assert code != 0 and "no player 'nobody'" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["export", "--guest"], "--guest needs --player"),
        (["scores", "--min-deals", "50"], "--min-deals goes with --by"),
        (["scores", "--table", "t1", "--by", "rating"], "not with --table"),
        (["scores", "--by", "total", "--min-deals", "-3"], "-3 is negative"),
        (["scores", "--by", "total", "--min-deals", "x"], "'x' is not a whole number"),
    ],
)
def test_options_that_would_do_nothing_are_refused(
    db: str, capsysbinary, argv: list[str], says: str
) -> None:
    """Each was accepted and ignored: the host got an answer to another question."""
    try:
        code = main([*argv, "--db", db])
    except SystemExit as e:  # argparse's own refusals
        code = int(e.code or 0)
    out, err = capsysbinary.readouterr()
    assert code == 2 and out == b"", out
    assert says in err.decode(), err


def test_export_to_a_file_of_an_unknown_table_writes_no_file(db: str, tmp_path: Path) -> None:
    dest = tmp_path / "none.jsonl"
    assert main(["export", "--db", db, "--table", "nope", "-o", str(dest)]) == 1
    assert not dest.exists()


def test_backup_into_a_missing_directory_says_so(db: str, tmp_path: Path, capsysbinary) -> None:
    """It named an internal temporary file: `No such file or directory: '.x.db.2762.tmp'`."""
    dest = tmp_path / "nowhere" / "x.db"
    code, out, err = run(capsysbinary, ["backup", str(dest), "--db", db])
    assert code == 1 and out == b""
    assert f"the directory {tmp_path / 'nowhere'} does not exist" in err, err
    assert ".tmp" not in err


def test_a_database_in_a_missing_directory_says_so(tmp_path: Path) -> None:
    """serve said only `unable to open database file (SQLITE_CANTOPEN)`."""
    from server.store.base import StoreError

    with pytest.raises(StoreError, match=r"the directory .*nowhere does not exist"):
        Store(str(tmp_path / "nowhere" / "x.db"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    r = subprocess.run(
        [*CLI, "serve", "--port", "0", "--db", str(tmp_path / "nowhere" / "x.db")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1
    assert "nowhere does not exist" in r.stderr and "CANTOPEN" not in r.stderr, r.stderr

"""`serve` options refused at parsing, with a clear message and exit code 2, instead of a
traceback or a server that runs without doing what was asked (host test report, 2026)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("ATOUT_"):
            monkeypatch.delenv(name)


def _refused(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    with pytest.raises(SystemExit) as e:
        code = main(argv)
        raise SystemExit(code)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_a_port_out_of_range_is_refused(
    port: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _clean_env(monkeypatch)
    err = _refused(["serve", "--port", port], capsys, monkeypatch)
    assert "not a TCP port (0 to 65535)" in err, err


def test_a_port_out_of_range_in_the_environment_is_named(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _clean_env(monkeypatch)
    monkeypatch.setenv("ATOUT_PORT", "70000")
    err = _refused(["serve"], capsys, monkeypatch)
    assert "ATOUT_PORT='70000' is not valid" in err and "0 to 65535" in err, err


def test_workers_past_the_last_port_are_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--workers 2 --port 65535` put worker 1 on port 65536: it died at start and the
    supervisor restarted it forever."""
    _clean_env(monkeypatch)
    err = _refused(["serve", "--workers", "2", "--port", "65535"], capsys, monkeypatch)
    assert "65535..65536" in err and "--port of 65534 or less" in err, err


@pytest.mark.parametrize("id_option", ["--worker-id", "--worker-slot"])
def test_the_last_worker_of_a_cluster_ending_at_65535_takes_its_port(
    id_option: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker gets the supervisor's argv (`--workers 2 --port 65534`) with its own
    `--port 65535` after it: the check is the supervisor's, or worker 1 refused its port and
    was restarted for ever (found by review)."""
    from server.cli import build_parser, check_serve_args

    _clean_env(monkeypatch)
    argv = ["serve", "--workers", "2", "--port", "65534", id_option, "1", "--port", "65535"]
    assert check_serve_args(build_parser().parse_args(argv)) is None


def test_a_port_past_65535_exits_cleanly_as_a_process(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    env["ATOUT_DB"] = str(tmp_path / "p.db")
    r = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--port", "99999"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2, r.stderr
    assert "OverflowError" not in r.stderr and "0 to 65535" in r.stderr, r.stderr
    assert not (tmp_path / "p.db").exists()


@pytest.mark.parametrize("value", ["not-an-ip", "proxy.example.org", "10.0.0.1/8"])
def test_a_trusted_proxy_that_is_no_address_is_refused(
    value: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _clean_env(monkeypatch)
    err = _refused(["serve", "--trusted-proxies", f"127.0.0.1,{value}"], capsys, monkeypatch)
    assert f"trusted proxy {value!r} is not an IP address or network" in err, err
    monkeypatch.setenv("ATOUT_TRUSTED_PROXIES", value)
    err = _refused(["serve"], capsys, monkeypatch)
    assert "ATOUT_TRUSTED_PROXIES=" in err and "not an IP address or network" in err, err


@pytest.mark.parametrize("value", ["maybe", "flase", "2", ""])
def test_atout_web_takes_only_a_yes_or_a_no(
    value: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only 0/false/no/off turned the browser client off; `ATOUT_WEB=maybe` or a typo like
    `flase` served it without a word, while the other ATOUT_* variables were checked."""
    _clean_env(monkeypatch)
    monkeypatch.setenv("ATOUT_WEB", value)
    err = _refused(["serve"], capsys, monkeypatch)
    assert f"ATOUT_WEB={value!r} is not valid: use 1 or 0, true or false" in err, err


@pytest.mark.parametrize(
    ("value", "web"),
    [
        *[("1", True), ("TRUE", True), ("yes", True), ("On", True), (None, True)],
        *[("0", False), ("false", False), ("NO", False), ("off", False)],
    ],
)
def test_atout_web_yes_and_no(
    value: str | None, web: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from server.cli import build_parser, check_serve_args
    from server.config import Config

    _clean_env(monkeypatch)
    if value is not None:
        monkeypatch.setenv("ATOUT_WEB", value)
    args = build_parser(with_admin=False).parse_args(["serve"])
    assert Config.from_args(args).web is web  # even without check_serve_args
    assert check_serve_args(args) is None and args.web is web
    assert build_parser(with_admin=False).parse_args(["serve", "--no-web"]).web is False


def test_serve_help_gives_every_default_and_postgresql(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve --help` showed no default (the host had to look them up in OPERATIONS.md), and
    said `--db DB  SQLite file` only."""
    import argparse

    from server.cli import build_parser

    _clean_env(monkeypatch)
    parser = build_parser(with_admin=False)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    serve = sub.choices["serve"]
    for action in serve._actions:
        if action.option_strings and action.dest not in ("help", "worker_id", "worker_slot"):
            assert "default" in (action.help or ""), action.option_strings
    db = next(a for a in serve._actions if a.dest == "db")
    assert "postgresql://" in (db.help or "")
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for shown in ("default 8765", "default atout.db", "default 0.8", "default 60"):
        assert shown in text, shown

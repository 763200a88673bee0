"""The terminal client's accounts (issue 12), end to end: the real ``atout`` in a pseudo-terminal
against a real ``atout-server serve``. A player registers, plays, comes back later under the
same name (a new process, the key from the state file), reads their profile, history and the
leaderboard; logs in on a second computer and out again; a revoked key is forgotten; wrong
passwords, taken names and guests under ``--name``."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
from test_client_e2e import ServerProc, spawn

from client_cli import accounts

PASSWORD = "tarot du vendredi"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProc]:
    s = ServerProc(tmp_path)
    yield s
    s.stop()


def ws(text: str) -> str:
    """A regex of ``text`` whose spaces match any run of white space (rich wraps lines)."""
    return r"\s+".join(re.escape(w) for w in text.split())


def run(tmp: Path, home: str, *args: str, password: str | None = None, twice: bool = False) -> str:
    child = spawn(list(args), tmp, home=home)
    if password is not None:
        child.expect("Password: ")
        child.sendline(password)
        if twice:
            child.expect("Password again: ")
            child.sendline(password)
    child.expect(pexpect.EOF, timeout=90)
    child.close()
    out = str(child.before)
    return out


def test_register_play_come_back_and_see_history_rating_par_and_leaderboard(
    server: ServerProc, tmp_path: Path
) -> None:
    url = server.url
    out = run(tmp_path, "home", "register", "--server", url, "Marie", password=PASSWORD, twice=True)
    assert re.search(ws("Registered as Marie on"), out), out
    kept = tmp_path / "home" / "accounts.json"
    entry = json.loads(kept.read_text())[url]
    assert entry["name"] == "Marie" and len(entry["key"]) >= 43
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    assert entry["key"] not in out  # the key is never printed

    out = run(tmp_path, "home", "play", "--server", url, "--auto", "--deals", "2")
    assert re.search(ws("Playing as Marie (your account)."), out), out
    assert re.search(r"Par\s+of\s+deal\s+\d", out), out  # the reference bot's score, and ours
    assert re.search(r"Marie:\s+Rating\s+[−\d]", out), out

    # "tomorrow": new processes, nothing but the state folder
    out = run(tmp_path, "home", "profile", "--server", url)
    assert "Marie (player)" in out, out
    assert re.search(r"Deals:\s+(\d+)", out), out
    played = int(re.search(r"Deals:\s+(\d+)", out).group(1))  # type: ignore[union-attr]
    scored = int(re.search(r"\((\d+)\s+scored\)", out).group(1))  # type: ignore[union-attr]
    assert scored == 2 and played >= scored  # an annulled deal is dealt again (R3)
    assert re.search(ws("Rating") + r"\s+[−\d]", out) and "provisional" in out, out
    assert re.search(ws("Over par:") + r"\s+[+−]?\d", out), out
    out = run(tmp_path, "home", "history", "--server", url)
    assert re.search(ws("Marie: the last deals") + rf"\s+\({played}\s+of\s+{played}\)", out), out
    assert len(re.findall(r"Marie's", out)) == played, out
    out = run(tmp_path, "home", "leaderboard", "--server", url, "--by", "total")
    assert re.search(r"1\s+Marie\s+player", out), out
    out = run(tmp_path, "home", "leaderboard", "--server", url, "--min-deals", "1")
    assert re.search(r"Marie\s+player\s+" + str(scored), out), out  # rated deals
    assert re.search(r"normal\s+AI", out), out  # the AI level is a rated player too


def test_login_elsewhere_logout_wrong_password_taken_name_and_revoked_key(
    server: ServerProc, tmp_path: Path
) -> None:
    url = server.url
    run(tmp_path, "home", "register", "--server", url, "Marie", password=PASSWORD, twice=True)
    # a second computer
    out = run(tmp_path, "laptop", "login", "--server", url, "marie", password="wrong password")
    assert "Wrong name or password." in out, out
    assert not (tmp_path / "laptop" / "accounts.json").exists()
    out = run(tmp_path, "laptop", "login", "--server", url, "MARIE", password=PASSWORD)
    assert re.search(ws("Logged in as Marie on"), out), out
    assert "Marie (player)" in run(tmp_path, "laptop", "profile", "--server", url)
    out = run(tmp_path, "laptop", "logout", "--server", url)
    assert re.search(ws("Logged out: Marie is no longer logged in"), out), out
    out = run(tmp_path, "laptop", "profile", "--server", url)
    assert re.search(ws("You are not logged in on"), out), out
    assert "Marie (player)" in run(tmp_path, "home", "profile", "--server", url)  # still in
    # a name taken in another case and width
    out = run(tmp_path, "third", "register", "--server", url, "ＭＡＲＩＥ", "--no-password")
    assert re.search(ws("The name ＭＡＲＩＥ is taken on this server"), out), out
    # --name of someone else: a guest, who may read profiles
    out = run(tmp_path, "home", "profile", "--server", url, "--name", "Zoé", "Marie")
    assert "Marie (player)" in out, out
    out = run(tmp_path, "home", "profile", "--server", url, "--name", "Zoé")
    assert re.search(ws("You are not logged in on"), out), out
    # a revoked key (logged out elsewhere) is forgotten, with how to log in again
    home = tmp_path / "home" / "accounts.json"
    data = json.loads(home.read_text())
    data[url]["key"] = "revoked" + "x" * 40
    home.write_text(json.dumps(data))
    out = run(tmp_path, "home", "profile", "--server", url)
    assert re.search(ws("is not valid any more"), out), out
    assert url not in json.loads(home.read_text())


def test_the_kept_key_is_per_server_and_yields_to_another_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATOUT_STATE_DIR", str(tmp_path))
    a, b = "ws://127.0.0.1:1", "ws://127.0.0.1:2/"
    accounts.remember(a, {"name": "Marie", "kind": "registered"}, "k" * 43)
    assert accounts.key_for(a, None)["key"] == "k" * 43  # type: ignore[index]
    assert accounts.key_for(a + "/", "marie") is not None  # the same server, the same name
    assert accounts.key_for(a, "Zoé") is None  # another name: a guest
    assert accounts.key_for(b, None) is None  # another server
    accounts.remember(b, {"name": "Zoé", "kind": "bot"}, "z" * 43)
    accounts.forget(a)
    assert accounts.lookup(a) is None and accounts.lookup(b)["name"] == "Zoé"  # type: ignore[index]

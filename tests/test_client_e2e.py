"""The real ``atout`` client process, driven through a pseudo-terminal (pexpect) against a real
``atout-server serve`` process on 127.0.0.1 (free port, temporary database, AI think delay 0).

A test here types what a person would type and reads the screen the way a person would: the
hand panel shows the legal cards with numbers, prompts end with `` > ``. Scores shown by the
client are checked against the deal records the server stored (``atout-server export``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
#: The programs run this checkout's code, not the one the virtualenv's editable install names
#: (a git worktree sharing another checkout's .venv would test that checkout instead).
CHECKOUT = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
TIMEOUT = 20

SYMBOL_TO_SUIT = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
CARD = r"(?:[♠♥♦♣](?:10|[1-9JCQK])|T(?:1\d|2[01]|[1-9])|EX)"
PROMPTS = {
    "bid": r"Your bid > ",
    "discard": r"Your discard > ",
    "chelem": r"Announce a chelem\?.*\] > ",
    "poignee": r"Show a poignée\? > ",
    "card": r"Your card(?: \(Enter: \S+, the only one you may play\))? > ",
    # after a deal nobody took, `r` shows the hands: there are no tricks to review
    "pause": r"Enter: (?:continue|finish) · r: (?:review the deal trick by trick|the hands as "
    r"dealt \(nobody took: no tricks\)) > ",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProc:
    def __init__(self, tmp: Path, *extra: str) -> None:
        self.port = free_port()
        self.db = tmp / "atout.db"
        self.log = open(tmp / "server.log", "wb")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(
            [
                str(BIN / "atout-server"),
                "serve",
                "--port",
                str(self.port),
                "--db",
                str(self.db),
                "--think-delay",
                "0",
                "--deal-pause",
                "0",
                "--absent-wait",
                "30",
                *extra,
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=tmp,
            env={**os.environ, **CHECKOUT},
        )
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()

    def results(self, table: str, n: int, timeout: float = 10) -> list[dict[str, Any]]:
        """The stored records of ``table`` (waits until ``n`` deals are there)."""
        deadline = time.monotonic() + timeout
        while True:
            out = subprocess.run(
                [str(BIN / "atout-server"), "export", "--db", str(self.db), f"--table={table}"],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, **CHECKOUT},
            ).stdout
            recs = [json.loads(line) for line in out.splitlines() if line.strip()]
            if len(recs) >= n or time.monotonic() > deadline:
                return sorted(recs, key=lambda r: r["meta"]["deal_no"])
            time.sleep(0.1)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProc]:
    s = ServerProc(tmp_path)
    yield s
    s.stop()


def spawn(
    args: list[str], tmp: Path, lang: str = "en", home: str = "state", **env_extra: str
) -> pexpect.spawn:
    """The client in a pseudo-terminal; ``home`` names the player's own state directory.
    The AI's moves are shown at once (setting `speed` 0) unless the test set it otherwise."""
    settings = tmp / home / "settings.json"
    if not settings.exists():
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps({"speed": 0}))
    env = {
        "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",  # `atout` is on the PATH
        "HOME": str(tmp),
        "ATOUT_STATE_DIR": str(tmp / home),
        "COLUMNS": "100",
        "LINES": "50",
        "TERM": "dumb",  # no colour codes in the text we match
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "ATOUT_I18N_STRICT": "1",
        **CHECKOUT,
        **env_extra,
    }
    child = pexpect.spawn(
        str(BIN / "atout"),
        [args[0], f"--lang={lang}", *args[1:]],
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(50, 100),
        cwd=str(tmp),
        # Ctrl-C must reach the client as at a terminal: a test run started in the background
        # by a non-interactive shell has SIGINT ignored, and an ignored signal stays ignored
        # across exec (the client would never see the Ctrl-C the tests send).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    child.logfile_read = open(tmp / f"client-{len(list(tmp.glob('client-*')))}.log", "w")  # noqa: SIM115
    return child


def to_code(label: str) -> str:
    return SYMBOL_TO_SUIT[label[0]] + label[1:] if label[0] in SYMBOL_TO_SUIT else label


def parse_hand(screen: str) -> tuple[list[str], dict[int, str]]:
    """(every card in the last hand panel, {number: card} for the marked ones)."""
    start = screen.rfind("Your hand (")
    assert start >= 0, "no hand on screen"
    panel = screen[start : screen.index("╰", start)]
    body = panel.split("\n", 1)[1]
    cards: list[str] = []
    marked: dict[int, str] = {}
    for tok in re.findall(rf"(?:(\d+):)?({CARD})(?=\s|│|$)", body):
        num, label = tok
        code = to_code(label)
        cards.append(code)
        if num:
            marked[int(num)] = code
    return cards, marked


def expect_prompt(child: pexpect.spawn) -> str:
    names = list(PROMPTS)
    i = child.expect([PROMPTS[n] for n in names] + [pexpect.EOF])
    if i == len(names):
        raise AssertionError(f"the client exited:\n{child.before[-3000:]}")
    return names[i]


def table_id(screen: str) -> str:
    m = re.search(r"Table (\S+) · deal", screen)
    assert m, "no table title on screen"
    return m.group(1)


def first_turn(child: pexpect.spawn) -> tuple[str, str, int]:
    """Our first prompt in a deal: (the table, the prompt's kind, the deal's number). A deal
    can end before anybody acts (a petit sec annuls it, R3.1): its summary, which has no table
    title, is passed with Enter, and the next deal's first prompt counts."""
    while True:
        kind = expect_prompt(child)
        if kind != "pause":
            m = re.search(r"Table (\S+) · deal (\d+)", child.before)
            assert m, "no table title on screen:\n" + child.before[-3000:]
            return m.group(1), kind, int(m.group(2))
        assert "was annulled" in child.before, child.before[-3000:]
        child.sendline("")


def summary_scores(screen: str) -> dict[str, float]:
    """{player name: this deal's score} from the last summary panel."""
    start = screen.rfind(": result")
    start = screen.index("This deal", start)  # the per-seat table under the figures
    panel = screen[start : screen.index("Standings after deal", start)]
    out = {}
    for name, score in re.findall(r"│\s+(You|AI \d|\w+)\s+([+−-]?\d+(?:\.\d)?)\s+│", panel):
        out[name] = float(score.replace("−", "-"))
    return out


def seat_names(you: int) -> list[str]:
    return ["You" if s == you else f"AI {s}" for s in range(4)]


# ---------------------------------------------------------------------- a deal typed by hand


def test_a_human_plays_whole_deals_by_typing(server: ServerProc, tmp_path: Path) -> None:
    child = spawn(
        ["play", "--server", server.url, "--name", "Ann", "--deals", "8", "--ai", "heuristic"],
        tmp_path,
    )
    child.expect(r"you\s+sit\s+at\s+seat\s+(\d)")
    you = int(child.match.group(1))
    seen: dict[str, int] = {}
    took_deal = None  # deal number in which we took and discarded
    tid = ""
    deals_done = 0
    plays_by_code = 0
    while True:
        kind = expect_prompt(child)
        screen = child.before
        seen[kind] = seen.get(kind, 0) + 1
        if kind == "bid":
            options = screen[screen.rfind("1: ") :].split("\n", 1)[0]
            choice = next((c for c in ("garde (", "prise (") if c in options), None)
            child.sendline(choice.split(" ")[0] if choice else "pass")
        elif kind == "discard":
            tid = table_id(screen)
            hand, marked = parse_hand(screen)
            assert len(hand) == 24 and marked  # the 24 cards, discardable ones numbered
            need = int(re.search(r"Choose (\d) cards", screen).group(1))
            # refusals first: each explains and asks again
            kings = [c for c in hand if c.endswith("K") and not c.startswith("T")]
            if kings:
                child.sendline(" ".join([kings[0], *[str(n) for n in range(1, need)]]))
                child.expect(r"may never be discarded:[\s\S]*?R5\.2")
                assert expect_prompt(child) == "discard"
            child.sendline("1 2")
            child.expect(r"The discard is exactly 6 cards; you named \d+\.")
            child.expect(r"R5\.[23]")
            assert expect_prompt(child) == "discard"
            child.sendline("zz9")
            child.expect(r"“zz9” is not a card code")
            assert expect_prompt(child) == "discard"
            picks = [marked[n] for n in sorted(marked)[:need]]
            child.sendline(" ".join(p.lower() for p in picks))  # codes, lower case
            child.expect(r"You discarded")
            took_deal = int(re.findall(r"deal (\d+) of", screen)[-1])
        elif kind == "chelem":
            child.sendline("n")
        elif kind == "poignee":
            child.sendline("1")  # show the default set
            child.expect(r"You show a \w+ poignée")
        elif kind == "card":
            hand, marked = parse_hand(screen)
            assert marked, "no legal card is marked"
            assert set(marked.values()) <= set(hand)
            illegal = [c for c in hand if c not in marked.values()]
            if illegal and seen.get("illegal", 0) == 0:
                seen["illegal"] = 1
                child.sendline(illegal[0])
                child.expect(r"You may not play [\s\S]*?\(R7\.([56])\)")
                rule = child.match.group(1)
                child.expect(r"You may play: ")
                # item 5: known to be illegal, it is not sent (no English server refusal)
                child.expect(rf"Type `rule` to read rule R7\.{rule}\.")
                assert expect_prompt(child) == "card"
                assert "server refused" not in child.before
                child.sendline("rule")  # issue 15: the rule's paragraph, then the same prompt
                child.expect(r"Playing a trick \(R7")
                assert expect_prompt(child) == "card"
            if seen.get("unknown", 0) == 0:
                seen["unknown"] = 1
                child.sendline("Q99")
                child.expect(r"“Q99” is not a card code or a number from the list")
                assert expect_prompt(child) == "card"
            n = min(marked)
            if plays_by_code % 2:
                child.sendline(marked[n].lower())
            else:
                child.sendline(str(n))
            plays_by_code += 1
        elif kind == "pause":
            deals_done += 1
            deal_no = (
                int(re.findall(r"Deal (\d+): result", screen)[-1]) if ": result" in screen else None
            )
            if took_deal is not None and deal_no == took_deal:
                shown = summary_scores(screen)
                rec = server.results(tid, took_deal)[took_deal - 1]
                stored = rec["result"]
                names = seat_names(you)
                assert {names[s]: float(stored["scores"][s]) for s in range(4)} == shown
                assert rec["meta"]["players"][you] == "Ann"
                # item 10: read from each side, the amounts as the players settle them
                assert f"taker {stored['taker_points']:g}, defence" in screen
                per = abs(stored["per_defender"])
                settle = "pays" if stored["per_defender"] > 0 else "wins"
                assert f"each defender {settle} {per:g}" in screen
                child.sendline("r")  # the deal trick by trick
                child.expect(r"Deal \d+, trick by trick")
                child.expect(rf"Taker's card points: {stored['taker_points']:g}")
                assert expect_prompt(child) == "pause"
                child.sendline("q")
                child.expect(pexpect.EOF)
                break
            child.sendline("")
            assert deals_done < 8, "never took in eight deals"
    child.close()
    assert child.exitstatus == 0
    assert seen.get("illegal") and seen.get("unknown")
    assert "Traceback" not in child.before


# ---------------------------------------------------------------------- reconnection


class Proxy:
    """A TCP proxy between the client and the server whose connections the test can cut."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        self.accepted = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.conns += [client, upstream]
                self.accepted += 1
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Drop every connection abruptly (no WebSocket close frame), as a network would."""
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            # shutdown() wakes the pipe threads blocked in recv(); close() alone would not, and
            # the peers would only notice at their next ping timeout.
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                s.close()

    def refuse(self) -> None:
        """Stop accepting connections (a blocked accept() is woken by shutdown, not close)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()

    def close(self) -> None:
        self.refuse()
        self.cut()


def test_a_cut_connection_is_resumed_and_the_deal_finishes(
    server: ServerProc, tmp_path: Path
) -> None:
    proxy = Proxy(server.port)
    try:
        child = spawn(
            ["play", "--server", f"ws://127.0.0.1:{proxy.port}", "--name", "Rex", "--deals", "6"],
            tmp_path,
        )
        child.expect(r"you\s+sit\s+at\s+seat\s+(\d)")
        you = int(child.match.group(1))
        cards_played = 0  # in the current deal
        cut_in_deal = None
        while True:
            kind = expect_prompt(child)
            screen = child.before
            if kind == "card" and cards_played == 3 and cut_in_deal is None:
                cut_in_deal = int(re.findall(r"deal (\d+) of", screen)[-1])
                proxy.cut()
                child.expect(r"Connection lost \d+ s ago; trying again in [\d.]+ s \(attempt 1\)")
                child.expect(r"Reconnected: your seat is back\.")
                assert expect_prompt(child) == "card"  # the server asks again after resuming
                screen = child.before
            if kind == "bid":
                options = screen[screen.rfind("1: ") :].split("\n", 1)[0]
                child.sendline("prise" if "prise" in options else "pass")
            elif kind == "discard":
                _, marked = parse_hand(screen)
                need = int(re.search(r"Choose (\d) cards", screen).group(1))
                child.sendline(" ".join(str(n) for n in sorted(marked)[:need]))
            elif kind in ("chelem", "poignee"):
                child.sendline("")
            elif kind == "card":
                _, marked = parse_hand(screen)
                assert marked
                child.sendline(str(min(marked)))
                cards_played += 1
            elif kind == "pause":
                cards_played = 0
                if cut_in_deal is None:
                    child.sendline("")
                    continue
                deal_no = int(re.findall(r"Deal (\d+): result", screen)[-1])
                assert deal_no == cut_in_deal
                shown = summary_scores(screen)
                child.sendline("q")
                child.expect(pexpect.EOF)
                break
        child.close()
        assert child.exitstatus == 0
        assert proxy.accepted == 2  # the first connection and the resumed one
        child.logfile_read.close()
        full = (tmp_path / "client-0.log").read_text()
        tid = re.search(r"Table (\S+) · deal", full).group(1)
        rec = server.results(tid, cut_in_deal)[cut_in_deal - 1]
        assert {seat_names(you)[s]: float(rec["result"]["scores"][s]) for s in range(4)} == shown
        # every card of ours in the record was typed here: the AI never stood in
        plays = [a for a in rec["actions"] if a["type"] == "play" and a["seat"] == you]
        assert len(plays) == 18
        assert "Traceback" not in full
    finally:
        proxy.close()


# ---------------------------------------------------------------------- languages, auto, json


@pytest.mark.parametrize(
    ("lang", "words", "result"),
    [
        (
            "en",
            ("Deal 1 — dealer", "Final standings", "Standings after deal"),
            ("Card points", "each defender"),
        ),
        (
            "fr",
            ("Donne 1 — donneur", "Classement final", "Classement après la donne"),
            ("Bilan", "chaque défenseur"),
        ),
        (
            "cs",
            ("Rozdání 1 — rozdává", "Konečné pořadí", "Pořadí po rozdání"),
            ("Vyúčtování", "každý obránce"),
        ),
    ],
)
def test_each_language_plays_full_deals(
    server: ServerProc, tmp_path: Path, lang: str, words: tuple[str, ...], result: tuple[str, ...]
) -> None:
    # --auto plays for us; ATOUT_I18N_STRICT makes any missing translation crash the client.
    # Four deals: at least one is played out (not annulled) but for a very unlikely draw.
    child = spawn(["play", "--server", server.url, "--auto", "--deals", "4"], tmp_path, lang=lang)
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    child.logfile_read.close()
    text = (tmp_path / "client-0.log").read_text()
    assert child.exitstatus == 0, text[-2000:]
    for w in words:
        assert w in text, (lang, w)
    # every deal ends with the standings; `deals` counts scored deals (annulled ones are dealt
    # again), so there are at least four
    assert text.count(words[2]) >= 4, text[-3000:]
    if result[0] in text:  # at least one deal was played out rather than annulled
        assert result[1] in text
    assert "Traceback" not in text and "{" not in text


def test_json_mode_prints_protocol_messages(server: ServerProc, tmp_path: Path) -> None:
    out = subprocess.run(
        [str(BIN / "atout"), "play", "--server", server.url, "--auto", "--json", "--deals", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            **CHECKOUT,
            "ATOUT_STATE_DIR": str(tmp_path / "state"),
            "PYTHONIOENCODING": "utf-8",
        },
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stderr
    msgs = [json.loads(line) for line in out.stdout.splitlines()]
    types = {m["type"] for m in msgs}
    assert {"snapshot", "event"} <= types
    if any(m["type"] == "event" and m["event"]["type"] == "bid" for m in msgs):
        assert "your_turn" in types  # (a petit sec deal ends before anybody acts)
    over = [m["event"] for m in msgs if m["type"] == "event" and m["event"]["type"] == "deal_over"]
    # one scored deal (`deals` counts those), after any annulled ones dealt again
    assert [o["result"]["status"] for o in over].count("played") == 1
    assert over[-1]["result"]["status"] == "played"
    tid = next(m["table"] for m in msgs if m["type"] == "snapshot")
    stored = server.results(tid, len(over))
    assert [r["result"] for r in stored] == [o["result"] for o in over]


# ---------------------------------------------------------------------- friends, spectators, Ctrl-C


def test_friends_create_join_watch_and_list(server: ServerProc, tmp_path: Path) -> None:
    host = spawn(
        [
            "create",
            "--server",
            server.url,
            "--name",
            "Host",
            "--auto",
            "--deals",
            "1",
            "--table-name",
            "Friday",
        ],
        tmp_path,
    )
    host.expect(r"Friends join it with:\s+atout join --server \S+ (?:-- )?(\S+)\r\n")
    tid = host.match.group(1)
    host.expect(r"Type `start` to start now")
    listing = subprocess.run(
        [str(BIN / "atout"), "tables", "--server", server.url],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, **CHECKOUT, "COLUMNS": "120", "PYTHONIOENCODING": "utf-8"},
    )
    assert tid in listing.stdout and "Friday" in listing.stdout and "waiting" in listing.stdout
    friend = spawn(
        ["join", "--name=Zoe", "--auto", "--seat=2", f"--server={server.url}", "--", tid],
        tmp_path,
        home="zoe",
    )
    friend.expect(rf"You sit at seat 2 of table {tid}")
    host.expect(r"Zoe sits at seat 2")
    watcher = spawn(
        ["watch", f"--server={server.url}", "--name=Eve", "--", tid], tmp_path, home="eve"
    )
    watcher.expect(rf"You are watching table {tid}")
    host.sendline("start")
    for child in (host, friend, watcher):
        child.expect(r"Deal 1: result|Deal 1 was annulled")
        child.expect(r"Final standings")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0, child.before[-2000:]
    rec = server.results(tid, 1)[0]
    assert rec["meta"]["players"][2] == "Zoe"


def test_ctrl_c_leaves_cleanly_and_join_takes_the_seat_back(
    server: ServerProc, tmp_path: Path
) -> None:
    child = spawn(["play", "--server", server.url, "--name", "Ann", "--deals", "2"], tmp_path)
    child.expect(r"you\s+sit\s+at\s+seat\s+(\d)")
    seat = child.match.group(1)
    tid = first_turn(child)[0]
    child.sendcontrol("c")
    child.expect(  # the command on a line of its own, to copy (finding 5)
        r"Bye! An AI plays your seat; within \d+ s this command gives it back to you:\r\n"
        r"    atout join --server \S+ --name Ann (?:-- )?(\S+)\r\n"
    )
    assert child.match.group(1) == tid
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 or child.signalstatus is None
    assert "Traceback" not in child.before
    back = spawn(["join", f"--server={server.url}", "--name=Ann", "--", tid], tmp_path)
    back.expect(rf"You are back at seat {seat} of table {tid}")
    expect_prompt(back)  # the game goes on where we left it
    back.sendcontrol("c")
    back.expect(pexpect.EOF)
    back.close()


def test_unreachable_server_and_unknown_table_are_explained(
    server: ServerProc, tmp_path: Path
) -> None:
    dead = spawn(["play", "--server", f"ws://127.0.0.1:{free_port()}"], tmp_path)
    dead.expect(r"Cannot reach the server at ws://127\.0\.0\.1:\d+")
    dead.expect(r"Is the server running\? Start one with `make serve`")
    dead.expect(pexpect.EOF)
    dead.close()
    assert dead.exitstatus == 1
    nope = spawn(["join", "nosuchtable", "--server", server.url], tmp_path)
    nope.expect(r"There is no open table “nosuchtable”")
    nope.expect(pexpect.EOF)
    nope.close()
    assert nope.exitstatus == 1


def test_turn_timer_lets_the_ai_decide_and_the_game_goes_on(
    server: ServerProc, tmp_path: Path
) -> None:
    child = spawn(["play", "--server", server.url, "--turn-timer", "1", "--deals", "1"], tmp_path)
    kind = expect_prompt(child)
    assert "You have 1 s before the AI plays for you." in child.before
    assert kind in PROMPTS
    child.expect(r"Time is up: the AI decided for you\.", timeout=10)
    expect_prompt(child)  # the next decision is ours again, with its own prompt
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    child.close()
    assert "Traceback" not in child.before


# ---------------------------------------------------------------------- issue 10, items 1-4


def answer(child: pexpect.spawn, kind: str) -> None:
    """A legal answer to the prompt ``kind`` just matched (the lowest numbered option)."""
    screen = child.before
    if kind == "bid":
        child.sendline("1")
    elif kind == "discard":
        _, marked = parse_hand(screen)
        need = int(re.search(r"Choose (\d) cards", screen).group(1))
        child.sendline(" ".join(str(n) for n in sorted(marked)[:need]))
    elif kind in ("chelem", "poignee"):
        child.sendline("n" if kind == "chelem" else "")
    elif kind == "card":
        _, marked = parse_hand(screen)
        child.sendline(str(min(marked)))
    else:
        child.sendline("")


def test_another_player_leaving_and_rejoining_keeps_our_turn(
    server: ServerProc, tmp_path: Path
) -> None:
    """Item 1: seat events while we are at a prompt (a player drops, comes back) leave the
    prompt valid; the server sends no new one, and the client must not lose track of whose
    turn it is (it used to answer every card with `Not your turn: waiting for You.`)."""
    alice = spawn(
        ["create", "--server", server.url, "--name", "Alice", "--deals", "2"],
        tmp_path,
        "en",
        "alice",
    )
    alice.expect(r"Friends join it with:\s+atout join --server \S+ (?:-- )?(\S+)\r\n")
    tid = alice.match.group(1)
    bob = spawn(["join", "--server", server.url, "--name", "Bob", "--auto", "--", tid], tmp_path,
                home="bob")  # fmt: skip
    bob.expect(r"You sit at seat (\d)")
    alice.expect(r"Bob sits at seat")
    alice.sendline("start")
    kind = expect_prompt(alice)  # our first decision; Bob is idle meanwhile
    bob.sendcontrol("c")
    bob.expect(pexpect.EOF)
    bob.close()
    alice.expect(r"Bob lost the connection")
    bob = spawn(["join", "--server", server.url, "--name", "Bob", "--auto", "--", tid], tmp_path,
                home="bob")  # fmt: skip
    bob.expect(r"You (?:are back|sit) at seat")
    alice.expect(r"Bob is back\.")
    answer(alice, kind)
    i = alice.expect([r"Not your turn", r"You (?:bid|pass|discarded|play|show)", r"No chelem"])
    assert i != 0, alice.before[-2000:]
    assert "Time is up" not in alice.before
    for child in (alice, bob):
        child.sendcontrol("c")
        child.expect(pexpect.EOF)
        child.close()


def test_rejoining_during_our_turn_says_no_false_timeout(
    server: ServerProc, tmp_path: Path
) -> None:
    """Item 3: a rejoin during our own turn (no turn timer, nothing played for us) must not
    say `Time is up: the AI decided for you.`"""
    child = spawn(["play", "--server", server.url, "--name", "Ann", "--deals", "2"], tmp_path)
    tid = first_turn(child)[0]
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    child.close()
    back = spawn(["join", f"--server={server.url}", "--name=Ann", "--", tid], tmp_path)
    back.expect(r"You (?:are back|sit) at seat")
    kind = expect_prompt(back)
    assert "Time is up" not in back.before
    answer(back, kind)
    i = back.expect([r"Time is up", r"You (?:bid|pass|discarded|play|show)", r"No chelem"])
    assert i != 0
    back.sendcontrol("c")
    back.expect(pexpect.EOF)
    back.close()
    assert "Time is up" not in back.before


def test_options_before_the_command_word_count(server: ServerProc, tmp_path: Path) -> None:
    """Item 2: `atout --server URL tables` asks that server, not the default one."""
    env = {**os.environ, **CHECKOUT, "COLUMNS": "120", "PYTHONIOENCODING": "utf-8",
           "LANG": "C.UTF-8"}  # fmt: skip
    dead = f"ws://127.0.0.1:{free_port()}"
    out = subprocess.run(
        [str(BIN / "atout"), "--server", dead, "--lang", "en", "tables"],
        capture_output=True, text=True, timeout=30, env=env,
    )  # fmt: skip
    assert out.returncode == 1
    assert f"Cannot reach the server at {dead}" in out.stdout + out.stderr
    out = subprocess.run(
        [str(BIN / "atout"), "--server", server.url, "--name", "Alice", "--json", "create",
         "--table-name", "Named", "--deals", "1"],
        capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    snap = next(json.loads(line) for line in out.stdout.splitlines() if '"snapshot"' in line)
    seats = snap["info"]["seats"]
    assert any(s["name"] == "Alice" for s in seats), seats


def test_two_seats_from_one_login_keep_their_own_tokens(server: ServerProc, tmp_path: Path) -> None:
    """Item 4: two terminals of one login (one state directory) at one table, under two
    names: each `atout join` takes back its own seat; a seat that cannot be taken back is
    said so."""
    ann = spawn(["create", "--server", server.url, "--name", "Ann", "--deals", "2"], tmp_path)
    ann.expect(r"Friends join it with:\s+atout join --server \S+ (?:-- )?(\S+)\r\n")
    tid = ann.match.group(1)
    ann.expect(r"Type `start`")
    bea = spawn(["join", "--server", server.url, "--name", "Bea", "--", tid], tmp_path)
    bea.expect(r"You sit at seat (\d)")
    bea_seat = int(bea.match.group(1))
    state = json.loads((tmp_path / "state" / "seats.json").read_text())
    assert len(state) == 2, state  # one token per seat
    ann_seat = next(v["seat"] for v in state.values() if v["name"] == "Ann")
    for child in (ann, bea):
        child.sendcontrol("c")
        child.expect(pexpect.EOF)
        child.close()
    ann = spawn(["join", "--server", server.url, "--name", "Ann", "--", tid], tmp_path)
    ann.expect(rf"You are back at seat {ann_seat} of table")
    bea = spawn(["join", "--server", server.url, "--name", "Bea", "--", tid], tmp_path)
    bea.expect(rf"You are back at seat {bea_seat} of table")
    for child in (ann, bea):
        child.sendcontrol("c")
        child.expect(pexpect.EOF)
        child.close()


def test_a_seat_that_cannot_be_taken_back_is_said_so(tmp_path: Path) -> None:
    """Item 4: when `atout join` cannot give back the seat the player had (the grace period
    ran out and someone else sat there), it says so and names the seat it gave instead."""
    server = ServerProc(tmp_path, "--grace", "1")
    try:
        ann = spawn(["create", "--server", server.url, "--name", "Ann", "--deals", "1"], tmp_path)
        ann.expect(r"Friends join it with:\s+atout join --server \S+ (?:-- )?(\S+)\r\n")
        tid = ann.match.group(1)
        bea = spawn(["join", "--server", server.url, "--name", "Bea", "--", tid], tmp_path,
                    home="bea")  # fmt: skip
        bea.expect(r"You sit at seat (\d)")
        seat = bea.match.group(1)
        bea.sendcontrol("c")
        bea.expect(pexpect.EOF)
        bea.close()
        ann.expect(rf"Seat {seat} is free\.", timeout=10)  # the grace period is over
        cy = spawn(["join", "--server", server.url, "--name", "Cy", "--seat", seat, "--", tid],
                   tmp_path, home="cy")  # fmt: skip
        cy.expect(rf"You sit at seat {seat}")
        bea = spawn(["join", "--server", server.url, "--name", "Bea", "--", tid], tmp_path,
                    home="bea")  # fmt: skip
        bea.expect(
            rf"Your seat {seat} could not be taken back \(another player sits there now\); "
            r"you now sit at seat \d"
        )
        for child in (ann, bea, cy):
            child.sendcontrol("c")
            child.expect(pexpect.EOF)
            child.close()
    finally:
        server.stop()


# ---------------------------------------------------------------------- issue 10, items 5-25


def test_server_banner_says_what_to_run_next(server: ServerProc, tmp_path: Path) -> None:
    """Item 21: the server says, once listening, how to play: the browser address, and the
    terminal client's command as installed beside it (not `make play`: a host under systemd
    or in a container has neither make nor the checkout's .venv)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        log = (tmp_path / "server.log").read_text()
        if "terminal client:" in log:
            break
        time.sleep(0.1)
    assert f"players open http://127.0.0.1:{server.port}/ in a browser" in log, log
    assert f"atout --server ws://127.0.0.1:{server.port}" in log, log
    assert "make play" not in log and "second terminal" not in log


def test_the_lobby_has_a_prompt_and_help_mentions_start(server: ServerProc, tmp_path: Path) -> None:
    """Item 12: while waiting for players there is a prompt, and anything typed there says
    how to start."""
    host = spawn(["create", "--server", server.url, "--name", "Host", "--deals", "1"], tmp_path)
    host.expect(r"start, help or quit > ")
    host.sendline("hello")
    host.expect(r"`start` starts it now")
    host.expect(r"start, help or quit > ")
    host.sendline("help")
    host.expect(r"`start` starts a waiting table")
    host.sendline("start")
    expect_prompt(host)
    host.sendcontrol("c")
    host.expect(pexpect.EOF)
    host.close()


def test_line_editing_and_history_at_the_prompt(server: ServerProc, tmp_path: Path) -> None:
    """Item 14: arrow keys edit the line (readline) instead of inserting `^[[D`, and the
    up arrow brings back the last line."""
    child = spawn(["play", "--server", server.url, "--name", "Ann", "--deals", "3"], tmp_path)
    for _ in range(20):
        kind = expect_prompt(child)
        if kind == "bid":
            break
        answer(child, kind)
    else:
        pytest.skip("no bid prompt in three deals")
    # "ass", three times left, "p": the line is "pass"
    child.send("ass")
    child.send("\x1b[D\x1b[D\x1b[D")
    child.send("p\r")
    child.expect(r"You pass\.")
    assert "^[[D" not in child.before
    child.sendline("help")
    child.expect(r"Commands:")
    child.send("\x1b[A\r")  # the last line again: help
    child.expect(r"Commands:")
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    child.close()


def test_a_long_outage_is_one_status_line_and_ends_with_how_to_come_back(
    server: ServerProc, tmp_path: Path
) -> None:
    """Item 13: while the server is unreachable, one status line is updated in place (not a
    line per attempt), never glued to the prompt; attempts never wait more than 5 s; giving
    up says that `atout join TABLE` brings the seat back."""
    proxy = Proxy(server.port)
    try:
        child = spawn(
            ["play", "--server", f"ws://127.0.0.1:{proxy.port}", "--name", "Rex", "--deals", "2"],
            tmp_path,
            ATOUT_RECONNECT_SECONDS="4",
        )
        tid = first_turn(child)[0]
        proxy.refuse()  # nobody answers any more
        proxy.cut()
        child.expect(r"Could not reconnect to the server for two minutes; giving up\.", timeout=30)
        outage = child.before
        child.expect(rf"\r\n    atout join --server \S+ --name Rex (?:-- )?{re.escape(tid)}\r\n")
        child.expect(pexpect.EOF)
        child.close()
        lost = outage[outage.index("Connection lost") :]
        attempts = re.findall(r"trying again in ([\d.]+) s \(attempt (\d+)\)", lost)
        assert len(attempts) >= 3  # several attempts ...
        assert lost.count("\n") <= 2  # ... on one line, rewritten with \r
        assert all(float(s) <= 5.0 for s, _ in attempts)
        # `outage` starts right after the prompt: the status line starts on a line of its own
        assert "\n" in outage[: outage.index("Connection lost")]
    finally:
        proxy.close()


def test_rejoining_tells_what_happened_and_reviews_earlier_deals(tmp_path: Path) -> None:
    """Item 7: after a rejoin, the client says what was missed (deals played meanwhile, the
    moves the AI made for us) and `review 1` shows a deal finished before the rejoin."""
    server = ServerProc(tmp_path, "--absent-wait", "0")
    try:
        # the AI moves 0.05 s apart (the `play` table takes the remembered `set speed`): deal 1
        # ends while we are away, not the whole series
        (tmp_path / "state").mkdir()
        (tmp_path / "state" / "settings.json").write_text(json.dumps({"speed": 0.05}))
        child = spawn(["play", "--server", server.url, "--name", "Ann", "--deals", "3"], tmp_path)
        tid, _, no = first_turn(child)  # deal 1, or 2 after a petit sec (R3.1)
        child.sendcontrol("c")
        child.expect(pexpect.EOF)
        child.close()
        server.results(tid, no, timeout=20)  # the AI plays our seat: the deal ends meanwhile
        back = spawn(["join", f"--server={server.url}", "--name=Ann", "--", tid], tmp_path)
        back.expect(r"You are back at seat")
        back.expect(r"While you were away:")
        back.expect(rf"deal {no}(?: was annulled|: .* took a)")
        kind = expect_prompt(back)
        back.sendline(f"review {no}")
        back.expect(rf"Deal {no}, trick by trick|Deal {no} was annulled|Hands as dealt")
        assert expect_prompt(back) == kind
        back.sendcontrol("c")
        back.expect(pexpect.EOF)
        back.close()
    finally:
        server.stop()


# ---------------------------------------------------------------------- tester's findings


class Screen:
    """A small terminal emulator (the part of xterm that readline and the client use): what a
    player would see, from what the client wrote. Auto-margins with a pending wrap, as xterm."""

    CSI = re.compile(r"\x1b\[([?>=]?)([0-9;]*)([@A-Za-z])")
    OTHER = re.compile(r"\x1b[()][0-9A-Za-z]|\x1b.")

    def __init__(self, cols: int, rows: int = 50) -> None:
        self.cols, self.rows = cols, rows
        self.lines = [[" "] * cols for _ in range(rows)]
        self.x = self.y = 0
        self.pending = False

    def feed(self, text: str) -> Screen:
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\x1b":
                m = self.CSI.match(text, i)
                if m:
                    self._csi(m.group(1), m.group(2), m.group(3))
                    i = m.end()
                else:
                    o = self.OTHER.match(text, i)
                    i = o.end() if o else i + 1
                continue
            if ch == "\r":
                self.x, self.pending = 0, False
            elif ch == "\n":
                self._down()
                self.pending = False
            elif ch == "\b":
                self.pending = False
                self.x = max(0, self.x - 1)
            elif ch >= " ":
                if self.pending:
                    self.x, self.pending = 0, False
                    self._down()
                self.lines[self.y][self.x] = ch
                if self.x == self.cols - 1:
                    self.pending = True
                else:
                    self.x += 1
            i += 1
        return self

    def _down(self) -> None:
        if self.y == self.rows - 1:
            self.lines.pop(0)
            self.lines.append([" "] * self.cols)
        else:
            self.y += 1

    def _csi(self, private: str, params: str, op: str) -> None:
        nums = [int(p) if p else 0 for p in params.split(";")] if params else []
        n = max(1, nums[0]) if nums else 1
        self.pending = False if op not in "mhl" else self.pending
        if private:
            return
        row = self.lines[self.y]
        if op == "A":
            self.y = max(0, self.y - n)
        elif op == "B":
            self.y = min(self.rows - 1, self.y + n)
        elif op == "C":
            self.x = min(self.cols - 1, self.x + n)
        elif op == "D":
            self.x = max(0, self.x - n)
        elif op == "G":
            self.x = min(self.cols - 1, n - 1)
        elif op in "Hf":
            r = nums[0] if nums else 1
            c = nums[1] if len(nums) > 1 else 1
            self.y, self.x = max(0, r - 1), max(0, c - 1)
        elif op == "K":
            mode = nums[0] if nums else 0
            lo, hi = {0: (self.x, self.cols), 1: (0, self.x + 1), 2: (0, self.cols)}[mode]
            row[lo:hi] = [" "] * (hi - lo)
        elif op == "J":
            mode = nums[0] if nums else 0
            if mode == 0:
                row[self.x :] = [" "] * (self.cols - self.x)
                for r in range(self.y + 1, self.rows):
                    self.lines[r] = [" "] * self.cols
            else:
                self.lines = [[" "] * self.cols for _ in range(self.rows)]
        elif op == "P":
            del row[self.x : self.x + n]
            row.extend([" "] * (self.cols - len(row)))
        elif op == "@":
            row[self.x : self.x] = [" "] * n
            del row[self.cols :]
        elif op == "X":
            row[self.x : self.x + n] = [" "] * min(n, self.cols - self.x)

    def text(self, y: int) -> str:
        return "".join(self.lines[y]).rstrip()

    def prompt_row(self, prompt: str) -> int:
        return max(y for y in range(self.rows) if self.text(y).startswith(prompt))

    def logical_line(self, y: int) -> tuple[str, int]:
        """(the line that starts at row ``y``, with the rows it wraps onto, how many rows)."""
        rows: list[str] = []
        while y < self.rows and self.text(y):
            rows.append("".join(self.lines[y]))
            y += 1
        return "".join(rows).rstrip(), len(rows)


def _screen(child: pexpect.spawn, cols: int) -> Screen:
    """What the terminal shows now (the client's output so far, through :class:`Screen`)."""
    time.sleep(0.5)  # let readline draw
    with contextlib.suppress(pexpect.TIMEOUT):
        child.read_nonblocking(100000, timeout=0.2)
    child.logfile_read.flush()
    with open(child.logfile_read.name, encoding="utf-8", newline="") as f:  # keep the \r
        return Screen(cols).feed(f.read())


def _to_prompt(child: pexpect.spawn, want: str) -> None:
    for _ in range(80):
        kind = expect_prompt(child)
        if kind == want:
            return
        answer(child, kind)
    pytest.skip(f"no {want} prompt")


def _at_card_prompt(server: ServerProc, tmp_path: Path, cols: int) -> Any:
    """``atout play`` in an xterm-like terminal ``cols`` wide, at its first card prompt."""
    child = spawn(
        ["play", "--server", server.url, "--name", "Ann", "--deals", "4"],
        tmp_path,
        TERM="xterm",
        COLUMNS=str(cols),
    )
    child.setwinsize(50, cols)
    _to_prompt(child, "card")
    return child


def test_readline_owns_the_prompt_long_lines_ctrl_u_and_ctrl_l(
    server: ServerProc, tmp_path: Path
) -> None:
    """Finding 1 (b, c, d): at a 60-column card prompt, 60 characters then 18 backspaces show
    the 42 left after the prompt (not 30); Ctrl-U erases the line, not the prompt; Ctrl-L
    clears the screen and draws the prompt and the line again at the top."""
    cols = 60
    child = _at_card_prompt(server, tmp_path, cols)
    typed = "".join(c * 10 for c in "abcdef")
    child.send(typed)
    screen = _screen(child, cols)
    line, _ = screen.logical_line(screen.prompt_row("Your card"))
    prompt = line[: line.index("> ") + 2]  # `Your card > `, or with the only card to play
    assert line == prompt + typed
    child.send("\x7f" * 18)
    screen = _screen(child, cols)
    row = screen.prompt_row("Your card")
    line, rows = screen.logical_line(row)
    assert line == prompt + typed[:42], line  # not 30 characters shown for 42 typed
    assert rows == (len(prompt) + 42) // cols + 1  # the rows the erased part took are blank
    assert (screen.y, screen.x) == (row + (len(prompt) + 42) // cols, (len(prompt) + 42) % cols)
    child.send("\x15")  # Ctrl-U: the line goes, the prompt stays
    screen = _screen(child, cols)
    assert screen.logical_line(screen.prompt_row("Your card"))[0] == prompt.rstrip()
    child.send("zz")
    child.send("\x0c")  # Ctrl-L: a clear screen, the prompt and the line at the top
    screen = _screen(child, cols)
    assert screen.logical_line(0)[0] == prompt + "zz"
    assert (screen.y, screen.x) == divmod(len(prompt) + 2, cols)
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    child.close()


def test_after_ctrl_z_and_fg_readline_has_the_terminal_again(
    server: ServerProc, tmp_path: Path
) -> None:
    """Ctrl-Z then `fg`: the shell puts its own terminal settings back (line by line, with
    echo) before continuing the client, which must set readline's again (SIGCONT), or keys
    are echoed and edited by the terminal until the next Enter: Ctrl-L shows as ^L."""
    import termios

    cols = 60
    child = _at_card_prompt(server, tmp_path, cols)
    os.kill(child.pid, signal.SIGSTOP)
    attrs = termios.tcgetattr(child.child_fd)  # what a shell does before `fg`
    attrs[3] |= termios.ICANON | termios.ECHO
    termios.tcsetattr(child.child_fd, termios.TCSANOW, attrs)
    os.kill(child.pid, signal.SIGCONT)
    child.expect("Your card")  # the prompt drawn again, readline's settings with it
    child.send("zz")
    child.send("\x0c")  # Ctrl-L, read by readline: a clear screen, the prompt at the top
    screen = _screen(child, cols)
    line = screen.logical_line(0)[0]
    assert line.startswith("Your card") and line.endswith("> zz"), line
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    child.close()


def test_enter_on_an_empty_line_ends_the_line_and_ctrl_d_asks_first(
    server: ServerProc, tmp_path: Path
) -> None:
    """Finding 1a: Enter on an empty line printed no newline (the next message landed on the
    prompt line). Finding 11: Ctrl-D left at once mid-deal; it asks as `quit` does."""
    child = spawn(["play", "--server", server.url, "--name", "Ann", "--deals", "2"], tmp_path)
    kind = expect_prompt(child)
    child.sendline("")
    if kind == "bid":
        child.expect(r"\r\n(?:\r)?Please type something")
        assert child.before == ""  # right after the prompt: the line ended, nothing else
        assert expect_prompt(child) == "bid"
    child.sendcontrol("d")
    child.expect(r"\r\nLeave the table\? The AI plays your seat until you come back \[y/N\] > ")
    child.sendline("n")
    expect_prompt(child)  # still at the table
    child.sendcontrol("d")
    child.expect(r"Leave the table\?")
    child.sendcontrol("d")  # a second Ctrl-D: yes
    child.expect(r"this command gives it back to you:\r\n    atout join ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_ai_levels_come_with_the_servers_descriptions(server: ServerProc, tmp_path: Path) -> None:
    """Finding 4: `--ai list` showed `easy: easy`; `--ai bogus` answered with the server's
    English list of every accepted level instead of the offered ones."""
    env = {**os.environ, **CHECKOUT, "COLUMNS": "200", "PYTHONIOENCODING": "utf-8",
           "LANG": "C.UTF-8", "ATOUT_STATE_DIR": str(tmp_path / "state")}  # fmt: skip

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "atout"), *args, "--server", server.url, "--name", "Ann"],
            capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    out = run("--lang", "en", "create", "--ai", "list")
    assert out.returncode == 0
    assert re.search(r"  easy: \S+ .*\n  normal: \S+ .*\n  strong: \S+", out.stdout), out.stdout
    assert "easy: easy" not in out.stdout
    out = run("--lang", "fr", "create", "--ai", "bogus")
    assert out.returncode == 1
    text = out.stdout + out.stderr
    assert "Le serveur ne propose pas ce niveau d'IA (--ai)." in text
    assert "easy (facile) : " in text and "known:" not in text and "heuristic" not in text
    out = run("--lang", "en", "create", "--deals", "0")
    text = out.stdout + out.stderr
    assert out.returncode == 1 and "AI levels" not in text, text


def test_a_friend_who_joined_sees_no_lobby_prompt_once_the_game_starts(
    server: ServerProc, tmp_path: Path
) -> None:
    """Tester's report C1: the lobby prompt (`start, help or quit`) is drawn again after each
    line of output only while the table waits; once the creator starts it, the friend who
    joined sees the deal without it until a question of his own."""
    alice = spawn(
        ["create", "--server", server.url, "--name", "Alice", "--deals", "1", "--auto"],
        tmp_path,
        home="alice",
    )
    alice.expect(r"Friends join it with:\s+atout join --server \S+ (?:-- )?(\S+)\r\n")
    tid = alice.match.group(1)
    bob = spawn(["join", "--server", server.url, "--name", "Bob", "--seat", "1", "--", tid],
                tmp_path, home="bob")  # fmt: skip
    bob.expect(r"You sit at seat 1")
    bob.expect(r"start, help or quit > ")  # the lobby's prompt, while the table waits
    alice.expect(r"Bob sits at seat 1")
    alice.sendline("start")
    bob.expect(r"The game starts\.")
    expect_prompt(bob)  # Bob's first question (or the summary of a deal annulled at once)
    assert "start, help or quit" not in bob.before, bob.before[-3000:]
    for child in (alice, bob):
        child.sendcontrol("c")
        child.expect(pexpect.EOF)
        child.close()

"""The terminal client after the third-party bot tester's report (/tmp/bottest, section C):
a stale prompt drawn again, `--limit` out of range, `atout rules` with an unknown topic, the
help texts, the profile's wording, the end-of-deal prompt, the card prompt's example, a
60-column terminal. Unit tests without a server; the prompt seen by a friend who joined is
tested end to end too (tests/test_client_e2e.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from client_cli import main as cli
from client_cli.app import UI
from client_cli.i18n import Tr


def _ui(lang: str = "en", width: int = 80) -> tuple[UI, io.StringIO]:
    out = io.StringIO()
    ui = UI(Tr(lang), out=out)
    ui.console = Console(file=out, width=width, color_system=None)
    return ui, out


# ---------------------------------------------------------------------- C1: stale prompts


def test_a_prompt_pushed_up_by_output_comes_back_only_while_it_is_still_asked() -> None:
    ui, out = _ui()
    lobby = ui.tr("prompt.lobby")
    ui.prompt(lobby)
    ui.say("Ann sits at seat 2.")
    ui.restore_prompt(lobby)  # the table still waits: the lobby's prompt again
    assert out.getvalue().count(f"{lobby} > ") == 2
    ui.say("The game starts.")
    ui.restore_prompt(None)  # the game started: nobody asks anything now
    ui.say("AI 2 passes.")
    ui.restore_prompt(None)
    assert out.getvalue().count(f"{lobby} > ") == 2
    assert out.getvalue().endswith("AI 2 passes.\n")


# ---------------------------------------------------------------------- C4: atout rules


@pytest.fixture(autouse=True)
def _own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No settings of the person running the tests (`set lang`), and no server."""
    monkeypatch.setenv("ATOUT_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setattr(cli.asyncio, "run", lambda coro: pytest.fail("it connected"))


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("topic", ["R99.9", "nonsense"])
def test_rules_with_an_unknown_topic_says_so_and_exits_with_1(
    topic: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = _main(["rules", "--lang", "en", topic], capsys)
    assert code == 1
    assert f"No topic or rule “{topic}”" in text


@pytest.mark.parametrize("topic", [[], ["R7.5"], ["excuse"], ["1"]])
def test_rules_with_a_known_topic_or_none_exits_with_0(
    topic: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = _main(["rules", "--lang", "en", *topic], capsys)
    assert code == 0, text
    assert "No topic" not in text


# ---------------------------------------------------------------------- C3: --limit


@pytest.mark.parametrize(
    ("argv", "bad"),
    [
        (["history", "--guest", "X", "--limit", "0"], "0"),
        (["leaderboard", "--limit", "500"], "500"),
        (["leaderboard", "--limit", "ten"], "ten"),
    ],
)
def test_a_limit_out_of_range_says_the_range_not_every_number(
    argv: list[str], bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--lang", "en", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --limit: {bad} is not a whole number from 1 to 100" in err
    assert "choose from" not in err and "2, 3, 4" not in err


def test_a_limit_in_range_is_taken() -> None:
    tr = Tr("en")
    assert cli.parse_args(["leaderboard", "--limit", "100"], tr).limit == 100
    assert cli.parse_args(["history", "--guest", "X", "--limit", "1"], tr).limit == 1
    assert cli.parse_args(["history", "--guest", "X"], tr).limit == 20

"""The terminal client after the third-party bot tester's report (/tmp/bottest, section C):
a stale prompt drawn again, `--limit` out of range, `atout rules` with an unknown topic, the
help texts, the profile's wording, the end-of-deal prompt, the card prompt's example, a
60-column terminal. Unit tests without a server; the prompt seen by a friend who joined is
tested end to end too (tests/test_client_e2e.py)."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path
from typing import Any

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
    monkeypatch.setattr(cli, "_run", lambda *a: pytest.fail("it connected"))


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


# ---------------------------------------------------------------------- C5: help texts


def _help(argv: list[str], capsys: pytest.CaptureFixture[str], lang: str = "en") -> str:
    with pytest.raises(SystemExit):
        cli.main(["--lang", lang, *argv, "--help"])
    return capsys.readouterr().out


@pytest.mark.parametrize("command", cli.COMMANDS)
def test_each_command_shows_only_the_options_that_mean_something_there(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _help([command, *(["T"] if command in ("join", "watch") else [])], capsys)
    plays = command in ("play", "join", "create")
    assert ("--auto-single" in text) == plays, text
    assert ("--auto " in text or "--auto]" in text) == plays, text
    assert ("--server" in text) == (command != "rules"), text
    assert ("--json" in text) == (command != "rules"), text
    assert "--lang" in text


@pytest.mark.parametrize("command", ["tables", "rules", "profile", "watch"])
def test_options_left_out_of_a_commands_help_are_still_accepted(command: str) -> None:
    """An alias such as `atout --server URL --auto-single` keeps working with every command."""
    args = cli.parse_args(
        ["--server", "ws://h:1", "--auto-single", "--json", command,
         *(["T"] if command == "watch" else [])],
        Tr("en"),
    )  # fmt: skip
    assert args.command == command and args.auto_single and args.server == "ws://h:1"


def test_rules_with_json_still_prints_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _main(["rules", "--lang", "en", "--json"], capsys)
    assert code == 0 and "Excuse" in text, text


@pytest.mark.parametrize(
    ("lang", "words"), [("en", "in a game"), ("fr", "en cours de partie"), ("cs", "ve hře")]
)
def test_set_in_the_help_is_said_to_be_a_command_of_the_game(
    lang: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = " ".join(_help(["play"], capsys, lang).split())  # argparse wraps the lines
    for setting in ("`set lang`", "`set speed`"):
        before = text[: text.index(setting)]
        assert words in before[-60:], (setting, text)


# ---------------------------------------------------------------------- C7: Enter: continue


def _paused_game(lang: str = "en") -> tuple[Any, io.StringIO]:
    """A seated player's game at the end-of-deal prompt (`Enter: continue`)."""
    from test_client_unit import FakeLink, deal_stream

    from client_cli.app import Game, Options
    from client_cli.model import TableModel

    ui, out = _ui(lang, width=100)
    game = Game(
        FakeLink(),  # type: ignore[arg-type]
        asyncio.Queue(),
        TableModel(table="T1", seat=0),
        ui,
        Options(auto=False, interactive=True),
    )
    msgs, _ = deal_stream(3, 0, take=True)
    for msg in msgs:
        if msg["type"] != "your_turn":  # the AI plays our seat: no decision in the way
            game._on_message(msg)
    assert game.paused
    return game, out


@pytest.mark.parametrize("typed", ["58", "xyz", "start", "pass"])
def test_the_end_of_deal_prompt_says_what_it_takes_instead_of_going_on(typed: str) -> None:
    game, out = _paused_game()
    out.truncate(0)
    out.seek(0)
    asyncio.run(game._on_line(typed))
    assert game.paused, "anything typed counted as Enter"
    text = out.getvalue()
    assert "The deal is over: press Enter to go on" in text
    assert text.endswith("Enter: continue · r: review the deal trick by trick > ")


def test_at_the_end_of_deal_prompt_table_shows_that_deal_and_enter_goes_on() -> None:
    game, out = _paused_game()
    out.truncate(0)
    out.seek(0)
    asyncio.run(game._on_line("table"))
    assert game.paused
    text = out.getvalue()
    assert "Deal 1: result" in text and "Standings after deal 1" in text, text
    assert "to bid" not in text
    assert text.endswith("Enter: continue · r: review the deal trick by trick > ")
    for command in ("help", "rules"):
        asyncio.run(game._on_line(command))
        assert game.paused
    assert "press Enter to go on" not in out.getvalue()
    asyncio.run(game._on_line(""))
    assert not game.paused


# ---------------------------------------------------------------------- C8: the card example


@pytest.mark.parametrize(
    ("lang", "code", "label", "word"),
    [("en", "CK", "♣K", "or"), ("fr", "CR", "♣R", "ou"), ("cs", "CK", "♣K", "nebo")],
)
def test_the_card_prompt_shows_the_letter_code_the_refusals_describe_and_the_symbol(
    lang: str, code: str, label: str, word: str
) -> None:
    from client_cli.decisions import PlayDecision
    from client_cli.render import CardStyle

    tr = Tr(lang)
    d = PlayDecision({"plays": ["T3", "CK"]}, [], tr, CardStyle(unicode=True, lang=lang))
    text = d.header()[0].plain
    assert f" {code} {word} {label}" in text, text
    for typed in (code, label):
        assert d.read_card(typed, {}) == ("CK", None)  # both forms are read
    # letters only (a terminal without UTF-8): one form
    d = PlayDecision({"plays": ["CK"]}, [], tr, CardStyle(unicode=False, lang=lang))
    text = d.header()[0].plain
    assert f" {code}" in text and f" {word} " not in text.split(code)[1][:6], text


# ---------------------------------------------------------------------- C6: the profile


def _profile(kind: str, lang: str) -> str:
    from client_cli.accounts import profile_view

    p = {
        "name": "normal" if kind == "ai" else "PyBot",
        "kind": kind,
        "since": "2026-12-07T10:00:00.000Z",
        "deals": 145,
        "played": 120,
        "taker": {"deals": 61, "won": 40, "success_rate": 0.656, "mean_margin": 4.5},
        "defender": {"deals": 298, "mean_score": -21.3},
        "petits_au_bout": 1,
        "poignees": {"single": 2, "double": 0, "triple": 0},
        "chelems": 0,
        "total": 312,
        "mean": 0.87,
        "over_par": {"deals": 327, "mean": 1.2},
        "rating": {"rating": 14.2, "mu": 27.9, "sigma": 4.57, "deals": 327, "provisional": False},
    }
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(profile_view(p, Tr(lang)))
    return out.getvalue()


@pytest.mark.parametrize(
    ("lang", "registered", "seats", "your"),
    [
        ("en", "Registered on", "327 seats", "your score"),
        ("fr", "Inscrit le", "327 places", "votre marque"),
        ("cs", "Registrace", "327 míst", "vaše body"),
    ],
)
def test_an_ai_levels_profile_is_not_registered_and_counts_its_seats_as_seats(
    lang: str, registered: str, seats: str, your: str
) -> None:
    ai = _profile("ai", lang)
    assert registered not in ai and "2026-12-07" in ai, ai
    assert seats in ai and "298" in ai, ai  # over par, rating: seats; defender too
    after_note = ai.split("\n", 4)[4]  # title, since, `Deals: 145`, the note about seats
    deal = {"en": r"\bdeals?\b", "fr": r"\bdonnes?\b", "cs": r"rozdání|rozd\."}[lang]
    assert not re.search(deal, after_note), ai  # no seat is called a deal
    assert your not in ai
    for kind in ("registered", "guest"):
        text = _profile(kind, lang)
        assert your not in text  # the profile may be someone else's
        assert (registered in text) == (kind == "registered"), text
        assert seats not in text


# ---------------------------------------------------------------------- C2: 60 columns


@pytest.mark.parametrize("lang", ["en", "fr", "cs"])
@pytest.mark.parametrize("name", ["Bob", "Marie-Christine Dupont-Lefebvre"])
def test_at_60_columns_the_table_keeps_every_score_and_shortens_a_long_player_line(
    lang: str, name: str
) -> None:
    from test_client_unit import deal_stream

    from client_cli.model import TableModel
    from client_cli.render import CardStyle, table_view

    msgs, _ = deal_stream(5, 0, take=True)
    m = TableModel(table="T1", seat=0)
    for msg in msgs:
        m.apply(msg)
        if m.deal is not None and m.deal.phase == "play" and len(m.deal.tricks) >= 3:
            break
    m.info["seats"][2].update(name=name, connected=False)  # `(dealer, away, AI plays)`
    m.info["scores"] = [-1234.5, 250, 1000, -15]
    tr = Tr(lang)
    out = io.StringIO()
    view = table_view(m, tr, CardStyle(unicode=True, lang=lang), 60)
    Console(file=out, width=60, color_system=None).print(view)
    text = out.getvalue()
    assert all(len(line) <= 60 for line in text.splitlines())
    assert f" {tr('screen.score')} " in text, text  # its header whole, not `…`
    for score in ("1234", "+250", "+1000", "15"):
        assert score in text, text
    assert f" {tr('screen.won')} " in text, text


@pytest.mark.parametrize("lang", ["en", "fr", "cs"])
def test_the_chelem_prompts_fit_60_columns_and_say_what_a_chelem_is_above(lang: str) -> None:
    from client_cli.decisions import ChelemDecision, ConfirmDecision
    from client_cli.render import CardStyle

    tr = Tr(lang)
    cs = CardStyle(unicode=True, lang=lang)
    d = ChelemDecision({"chelem": True}, [], tr, cs)
    for prompt in (d.prompt(), ConfirmDecision({"chelem": True}, [], tr, cs).prompt()):
        assert len(f"{prompt} > ") <= 55, prompt  # room left to type the answer
    (help_line,) = d.header()
    assert "18" in help_line.plain and "400" in help_line.plain and "200" in help_line.plain


def test_a_guest_who_sits_down_is_marked_as_one_in_the_table() -> None:
    """A web tester's finding, in the terminal too: a guest who sat after us was shown as any
    name (the seat event's `identity` was dropped), so a guest could pass for an account's
    holder. The table panel says "guest" (or "bot") beside the name."""
    from test_client_unit import deal_stream

    from client_cli.model import TableModel
    from client_cli.render import CardStyle, table_view

    msgs, _ = deal_stream(5, 0, take=True)
    m = TableModel(table="T1", seat=0)
    for msg in msgs[:3]:
        m.apply(msg)
    v = m.v or 0
    for seat, name, identity in ((1, "Tess", "guest"), (3, "Robo", "bot")):
        v += 1
        event = {"type": "seat", "seat": seat, "kind": "human", "name": name,
                 "connected": True, "ai": None, "identity": identity}  # fmt: skip
        m.apply({"type": "event", "table": "T1", "v": v, "turn": None, "event": event})
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(
        table_view(m, Tr("en"), CardStyle(unicode=True, lang="en"), 100)
    )
    text = out.getvalue()
    assert re.search(r"Tess \((\w+, )*guest\)", text), text
    assert re.search(r"Robo \((\w+, )*bot\)", text), text
    assert "You (" not in text or "guest" not in text.split("You (", 1)[1].split(")")[0]

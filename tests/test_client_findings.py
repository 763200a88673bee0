"""The terminal client after a tester's report (names, refusals, AI levels, commands to copy,
the rule a refusal cites, the review's points, deals nobody took, wrapping, passwords): unit
tests, without a server. The line editor's findings are tested end to end
(tests/test_client_e2e.py, `test_readline_owns_the_prompt...`)."""

from __future__ import annotations

import argparse
import io
from typing import Any

import pytest
from rich.console import Console
from test_client_unit import _game

from client_cli import accounts
from client_cli import main as cli
from client_cli.app import UI
from client_cli.decisions import BidDecision, DiscardDecision, PlayDecision, PoigneeDecision
from client_cli.i18n import LANGUAGES, MESSAGES, Tr
from client_cli.model import DealModel, TableModel
from client_cli.refusals import name_error, name_problem, refusal
from client_cli.render import CardStyle, review_view

CS = CardStyle(unicode=True)


def _render(*items: Any, width: int = 100) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(*items)
    return out.getvalue()


def _ui(lang: str = "en", width: int = 80) -> tuple[UI, io.StringIO]:
    out = io.StringIO()
    ui = UI(Tr(lang), out=out)
    ui.console = Console(file=out, width=width, color_system=None)
    return ui, out


# ---------------------------------------------------------------------- 2, 10: names


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Evil\x1b[2Jname", "name.why_control"),
        ("Eve\u202eevE", "name.why_control"),
        ("   ", "name.why_blank"),
        ("\u200b\u200b", "name.why_blank"),
        ("", "name.why_empty"),
        ("x" * 33, "name.why_long"),
        ("x" * 32, None),
        ("Zoë Nováková", None),
    ],
)
def test_names_are_checked_by_the_protocol_rules(name: str, why: str | None) -> None:
    assert name_problem(name) == why


def test_a_table_name_may_have_64_characters() -> None:
    tr = Tr("en")
    assert name_error(tr, "t" * 64, table=True) is None
    assert "65 characters" in (name_error(tr, "t" * 65, table=True) or "")


def _run_main(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> str:
    asked: list[str] = []
    monkeypatch.setattr(accounts.getpass, "getpass", lambda p="": asked.append(p) or "x" * 9)
    monkeypatch.setattr(cli.asyncio, "run", lambda coro: pytest.fail("it connected"))
    monkeypatch.setenv("COLUMNS", "200")
    assert cli.main(argv) == 2
    assert not asked, "a password was asked for"
    cap = capsys.readouterr()
    return cap.out + cap.err


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_bad_name_is_refused_before_connecting_or_asking_a_password(
    lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    """Finding 2: `atout --lang fr register $'Evil\\x1b[2Jname'` asked for the password twice,
    then showed the server's English refusal."""
    text = _run_main(["--lang", lang, "register", "Evil\x1b[2Jname"], capsys, monkeypatch)
    tr = Tr(lang)
    assert tr("name.why_control").split(" (")[0] in text
    assert "Evil\\x1b[2Jname" in text and "\x1b[2J" not in text
    assert "Expected" not in text and "$.name" not in text
    text = _run_main(["--lang", lang, "create", "--name", "Eve\x1b[2J"], capsys, monkeypatch)
    assert tr("name.why_control").split(" (")[0] in text
    text = _run_main(["--lang", lang, "create", "--table-name", "  "], capsys, monkeypatch)
    assert tr("name.bad_table").split("“")[0].split("«")[0].split("„")[0] in text


def test_a_long_name_is_refused_not_cut(
    capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    """Finding 10: a name longer than 32 characters was cut silently."""
    text = _run_main(["play", "--name", "A" * 40], capsys, monkeypatch)
    assert "it has 40 characters, and a name has at most 32" in text


# ---------------------------------------------------------------------- 2, 3: refusals


def test_invalid_field_is_told_by_its_path_in_the_players_language() -> None:
    msg = {
        "type": "error",
        "code": "invalid_field",
        "message": "register: Expected `str` of printable characters - at `$.name`",
        "details": {"path": "$.name"},
    }
    fr = refusal(Tr("fr"), msg, "register")
    assert fr.startswith("Le serveur a refusé le nom")
    assert "Expected" not in fr and "$.name" not in fr
    assert refusal(Tr("en"), msg, "create_table").startswith("The server refused the table name")
    assert "--ai" in refusal(Tr("cs"), {**msg, "details": {"path": "$.ai"}})
    other = refusal(Tr("en"), {**msg, "details": {"path": "$.cards[3]"}})
    assert other == "The server could not read the field “cards[3]” of the request."
    # a code without a translation: the server's words, made safe to print
    odd = refusal(Tr("en"), {"code": "new_code", "message": "bad\x1b[2J"})
    assert odd == "The server refused: bad\\x1b[2J"


class _FailingLink:
    """A Link whose `create_table` is refused with ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = "Ann"
        self.key = None

    async def open(self) -> dict[str, Any]:
        return {"type": "welcome", "ai_levels": [{"level": "easy", "description": "Easy one."}]}

    async def call(self, body: dict[str, Any], timeout: float = 15) -> dict[str, Any]:
        from client_cli.net import ServerError

        raise ServerError(
            {
                "type": "error",
                "code": "invalid_field",
                "message": "no",
                "details": {"path": self.path},
            }
        )

    async def close(self) -> None:
        return None


@pytest.mark.parametrize(("path", "levels"), [("$.deals", False), ("$.ai", True)])
def test_the_ai_levels_are_listed_only_when_the_ai_level_was_refused(
    path: str, levels: bool, monkeypatch: Any, tmp_path: Any
) -> None:
    """Finding 3: any invalid field on `create` printed the AI level list."""
    import asyncio

    monkeypatch.setenv("ATOUT_STATE_DIR", str(tmp_path))
    monkeypatch.setattr(cli, "Link", lambda *a, **k: _FailingLink(path))
    tr = Tr("en")
    args = cli.parse_args(["create", "--deals", "3", "--name", "Ann"], tr)
    ui, out = _ui()
    assert asyncio.run(cli._run(args, tr, ui, cli.Settings())) == 1
    text = out.getvalue()
    assert ("AI levels of this server" in text) == levels
    if not levels:
        assert "number of deals (--deals)" in text


# ---------------------------------------------------------------------- 4: AI levels


WELCOME_LEVELS = [
    {"level": "easy", "description": "Plays by the rules and simple habits."},
    {"level": "normal", "description": "Plays like a club player."},
    {"level": "strong", "description": "Thinks ahead."},
]


def test_ai_list_shows_the_servers_descriptions() -> None:
    """Finding 4: `--ai list` in English showed `easy: easy`; Czech only the word."""
    en = cli._levels_text(Tr("en"), WELCOME_LEVELS)
    assert "  easy: Plays by the rules and simple habits." in en
    assert "  strong: Thinks ahead." in en
    fr = cli._levels_text(Tr("fr"), WELCOME_LEVELS)
    assert "  easy (facile) : Joue selon les règles" in fr
    cs = cli._levels_text(Tr("cs"), WELCOME_LEVELS)
    assert "  strong (silná): Přemýšlí dopředu" in cs
    # a level this client does not know: the server's description, in every language
    odd = cli._levels_text(Tr("cs"), [{"level": "wild", "description": "New\x1b[2J."}])
    assert "  wild: New\\x1b[2J." in odd


# ---------------------------------------------------------------------- 5: commands to copy


def test_the_rejoin_command_is_on_a_line_of_its_own_and_never_wrapped() -> None:
    """Finding 5: at 80 columns the command was broken in two lines by the wrapping."""
    ui, out = _ui(width=80)
    model = TableModel(table="nZqdffo-9PDf", seat=1)
    model.info = {"state": "playing"}

    class Link:
        token = "tok"
        grace = 60.0
        url = "ws://127.0.0.1:18765"
        name = "Dan"

    cli._bye(ui, ui.tr, model, Link())  # type: ignore[arg-type]
    lines = out.getvalue().splitlines()
    command = next(line for line in lines if " join " in line)
    assert command.strip().endswith("--name Dan nZqdffo-9PDf")
    assert command.strip().split()[1:] == [
        "join", "--server", "ws://127.0.0.1:18765", "--name", "Dan", "nZqdffo-9PDf",
    ]  # fmt: skip


# ---------------------------------------------------------------------- 6: the rule cited


def test_the_reminder_and_rule_use_the_rule_the_refusal_cited() -> None:
    """Finding 6: after `T21 1 2 3 4 5` the refusal cited R5.2, the reminder R5.3."""
    game, out = _game()
    hand = ["T21", "H1", "H2", "H3", "H4", "H5", "H6", "S1", "S2", "S3", "S4", "S5",
            "S6", "D1", "D2", "D3", "D4", "D5", "C1", "C2", "C3", "C4", "C5", "C6"]  # fmt: skip
    choices = [c for c in hand if c != "T21"]
    d = DiscardDecision({"discard": {"count": 6, "choices": choices}}, hand, game.tr, game.cs)
    error = d.handle("T21 1 2 3 4 5").error
    assert error is not None and "R5.2" in error.splitlines()[0]
    game._refusal(error)
    assert game.last_rule == "R5.2"
    assert "Type `rule` to read rule R5.2." in out.getvalue()


# ---------------------------------------------------------------------- 7: review points


def test_the_reviews_points_are_what_the_trick_message_said() -> None:
    """Finding 7: trick message `7 points; the Excuse stays with AI 1`, review column 11."""
    d = DealModel(deal_no=1, taker=0)
    d.contract = "garde"
    # the taker (0) wins with the king of hearts; defender 1 plays the Excuse: 4.5 + 0.5 x 2
    # + the half point the Excuse's side gives = 6 (the Excuse's 4.5 stay with the defence)
    d.tricks = [{"leader": 0, "cards": ["HK", "EX", "H2", "H3"], "winner": 0}]
    tr = Tr("en")
    model = TableModel(table="T1", seat=3)
    text = _render(review_view(model, d, tr, CS))
    row = next(line for line in text.splitlines() if line.strip("│ ").startswith("1 "))
    # what the winners got, and the taker's total
    assert row.strip("│ ").split()[-2:] == ["6*", "6"]
    assert "the trick's winners did not get the Excuse" in text
    # the taker's Excuse, a defender wins: the taker's total grows by 4, the winners get 6
    d.tricks = [{"leader": 1, "cards": ["HK", "H2", "H3", "EX"], "winner": 1}]
    text = _render(review_view(model, d, tr, CS))
    row = next(line for line in text.splitlines() if line.strip("│ ").startswith("1 "))
    assert row.strip("│ ").split()[-2:] == ["6*", "4"]
    # no Excuse: the card points as they are, and no note
    d.tricks = [{"leader": 1, "cards": ["HK", "H2", "H3", "H4"], "winner": 1}]
    text = _render(review_view(model, d, tr, CS))
    assert "did not get the Excuse" not in text


# ---------------------------------------------------------------------- 9: nobody took


def test_a_deal_nobody_took_offers_the_hands_not_a_trick_review() -> None:
    """Finding 9: all passed, yet `r: review the deal trick by trick` and an empty table."""
    game, _ = _game()
    d = DealModel(deal_no=3)
    d.record = {"hands": [["H1"] * 18] * 4, "chien": ["S1"] * 6}
    d.result = {"status": "annulled", "reason": "all_passed"}
    game.model.finished_deals.append((d, None))
    assert game._pause_text() == "Enter: continue · r: the hands as dealt (nobody took: no tricks)"
    text = _render(review_view(game.model, d, game.tr, game.cs))
    assert "Hands as dealt" in text
    assert "Nobody took this deal" in text
    assert "Winner" not in text and "Taker's total" not in text
    for lang in LANGUAGES:
        game.ui.set_language(Tr(lang))
        assert "trick by trick" not in game._pause_text()


# ---------------------------------------------------------------------- 11: smaller ones


@pytest.mark.parametrize("lang", LANGUAGES)
def test_bid_options_wrap_between_two_bids(lang: str) -> None:
    """Finding 11: `5: garde` / `contre le chien (×6)` at 80 columns."""
    tr = Tr(lang)
    bids = ["pass", "prise", "garde", "garde_sans", "garde_contre"]
    d = BidDecision({"bids": bids}, [], tr, CardStyle(unicode=True, lang=lang))
    for width in (40, 60, 80):
        text = _render(d.header()[0], width=width)
        items = [f"{i}: {tr.contract(b)}" for i, b in enumerate(bids, 1)]
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        assert all(cli_len(line) <= width for line in lines)
        assert [i for line in lines for i in line.split("  ")] == items


def cli_len(text: str) -> int:
    from rich.cells import cell_len

    return cell_len(text)


def test_one_choice_is_not_a_range() -> None:
    """Finding 11: `There is no number 2 in the list: choose 1 to 1.`"""
    tr = Tr("en")
    play = PlayDecision({"plays": ["H5"]}, ["H5", "S2"], tr, CS)
    assert play.handle("2").error == "There is no number 2: the list has only number 1."
    poignee = PoigneeDecision(
        {"plays": ["T5"], "poignees": [{"level": "simple", "size": 10, "bonus": 20,
                                        "default": [], "eligible": []}]},
        [], tr, CS,
    )  # fmt: skip
    poignee.play = play
    assert poignee.handle("3").error == "There is no number 3: the list has only number 1."
    assert "choose 1 to 2" in (
        PlayDecision({"plays": ["H5", "S2"]}, ["H5", "S2"], tr, CS).handle("3").error or ""
    )
    for lang in LANGUAGES:
        assert "{" not in Tr(lang)("err.number_one", n=2)


def test_a_short_password_is_asked_again(monkeypatch: Any) -> None:
    """Finding 11: `register` with a password under 8 characters exited."""
    typed = iter(["short", "long enough", "long enough"])
    prompts: list[str] = []

    def fake(prompt: str = "") -> str:
        prompts.append(prompt)
        return next(typed)

    monkeypatch.setattr(accounts.getpass, "getpass", fake)
    monkeypatch.setattr(accounts.sys.stdin, "isatty", lambda: True, raising=False)
    ui, out = _ui()
    assert accounts.read_password(Tr("en"), confirm=True, ui=ui) == "long enough"
    assert prompts == ["Password: ", "Password: ", "Password again: "]
    assert "A password has 8 to 256 characters. Type it again." in out.getvalue()
    # three wrong tries: given up, with the reason
    monkeypatch.setattr(accounts.getpass, "getpass", lambda p="": "short")
    with pytest.raises(ValueError, match="length"):
        accounts.read_password(Tr("en"), confirm=True, ui=ui)


def test_every_new_text_is_in_every_language() -> None:
    from client_cli.extra_texts import TEXTS

    keys = set(TEXTS["en"])
    for lang in LANGUAGES:
        assert set(TEXTS[lang]) == keys
        assert keys <= set(MESSAGES[lang])


def test_check_names_reads_every_name_option() -> None:
    tr = Tr("en")
    ns = argparse.Namespace(command="login", name=None, player="x" * 40, table_name=None)
    assert "40 characters" in (cli.check_names(ns, tr) or "")
    ns = argparse.Namespace(command="profile", name=None, player="x" * 40, table_name=None)
    assert cli.check_names(ns, tr) is None  # looking a player up sends no name to check

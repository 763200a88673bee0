"""The terminal client without a network: card codes, translations, the table model fed with
real protocol messages, rendering in every language, the decisions' refusals, the auto bot, and
the rule that the client imports nothing of the server.

Message streams are produced by the rules engine's own visibility functions
(``server.rules.views``), exactly the dicts the server puts in its frames; the tests may import
the server, the client may not.
"""

from __future__ import annotations

import ast
import io
import random
import re
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from client_cli import bot
from client_cli import cards as C
from client_cli.decisions import (
    BidDecision,
    ChelemDecision,
    DiscardDecision,
    PlayDecision,
    PoigneeDecision,
    decision_for,
)
from client_cli.i18n import LANGUAGES, MESSAGES, Tr, detect_language
from client_cli.model import TableModel, pile_bonus, running_points
from client_cli.render import (
    CardStyle,
    hand_view,
    review_view,
    standings_view,
    table_view,
    tables_view,
    tr_text,
)
from server.rules import OVER, Bid, Chelem, Discard, Play, Poignee, apply, legal_actions, new_deal
from server.rules.cards import CODES
from server.rules.randplay import random_from_legal
from server.rules.views import deal_start_event, events, view

ROOT = Path(__file__).resolve().parent.parent
CS = CardStyle(unicode=True)


# ---------------------------------------------------------------------- message streams


def _info(state: str = "playing", deals: int = 4) -> dict[str, Any]:
    return {
        "table": "T1",
        "name": "test",
        "public": True,
        "state": state,
        "seats": [
            {"seat": 0, "kind": "human", "name": "Ann", "connected": True, "ai": None},
            {"seat": 1, "kind": "ai", "name": None, "connected": False, "ai": "random"},
            {"seat": 2, "kind": "human", "name": "Bob", "connected": True, "ai": None},
            {"seat": 3, "kind": "ai", "name": None, "connected": False, "ai": "random"},
        ],
        "deals": deals,
        "deal_no": 0,
        "scores": [0, 0, 0, 0],
    }


def _policy(seat: int, take: bool, rng: random.Random):
    """Random legal actions; with ``take``, ``seat`` bids the highest of prise/garde it may
    and the others pass, so that ``seat`` takes and discards."""

    def act(st: Any) -> Any:
        legal = legal_actions(st)
        if take and legal.bids:
            if st.turn == seat:
                options = [b for b in ("garde", "prise") if b in legal.bids]
                return Bid(st.turn, options[0] if options else "pass")
            return Bid(st.turn, "pass")
        return random_from_legal(legal, rng, poignee_chance=0.7)

    return act


def deal_stream(
    seed: int, seat: int | None, *, take: bool = False, deal_no: int = 1
) -> tuple[list[dict[str, Any]], Any]:
    """(messages seat receives during one deal, final state): a snapshot of the table, the deal's
    events as the server frames them, ``your_turn`` prompts, and the ``scores`` event."""
    rng = random.Random(seed)
    st = new_deal(rng, dealer=rng.randrange(4))
    while st.phase == OVER and take:  # petit sec: deal again for the tests that need a taker
        st = new_deal(rng, dealer=rng.randrange(4))
    v = 1
    msgs: list[dict[str, Any]] = [
        {"type": "snapshot", "table": "T1", "v": v, "seat": seat, "info": _info(), "deal": None}
    ]

    def push(ev: dict[str, Any], turn: int | None) -> None:
        nonlocal v
        v += 1
        msgs.append({"type": "event", "table": "T1", "v": v, "turn": turn, "event": ev})

    push({**deal_start_event(st, seat), "deal_no": deal_no}, None if st.phase == OVER else st.turn)
    act = _policy(seat if seat is not None else 0, take, rng)
    while st.phase != OVER:
        if seat is not None and st.turn == seat:
            legal = view(st, seat)["legal"]
            msgs.append({"type": "your_turn", "table": "T1", "v": v, "seat": seat, "legal": legal})
        action = act(st)
        new = apply(st, action)
        for ev in events(st, action, new, seat):
            push(ev, None if new.phase == OVER else new.turn)
        st = new
    if msgs[-1]["event"]["type"] != "deal_over":  # petit sec: the reveal comes by itself
        vw = view(st, seat)
        push({"type": "deal_over", "result": vw["result"], "record": vw["record"]}, None)
    scores = view(st, None)["result"]["scores"]
    push({"type": "scores", "deal_no": deal_no, "deal": scores, "total": scores}, None)
    return msgs, st


def play_stream(msgs: list[dict[str, Any]], seat: int | None) -> TableModel:
    m = TableModel(table="T1", seat=seat)
    for msg in msgs:
        m.apply(msg)
    return m


# ---------------------------------------------------------------------- cards


def test_card_codes_parse_case_insensitively_and_with_symbols() -> None:
    assert C.normalize("h10") == "H10"
    assert C.normalize(" T21 ") == "T21"
    assert C.normalize("ex") == "EX"
    assert C.normalize("Excuse") == "EX"
    assert C.normalize("cc") == "CC"
    assert C.normalize("♥10") == "H10"
    assert C.normalize("10♥") == "H10"
    assert C.normalize("kh") == "HK"
    assert C.normalize("t01") == "T1"
    for bad in ("", "H11", "T22", "T0", "X1", "H0", "SH", "10"):
        assert C.normalize(bad) is None, bad


def test_client_card_table_matches_the_rules() -> None:
    from server.rules.cards import HALF_POINTS, sort_codes

    assert sorted(C.ALL_CODES) == sorted(CODES)
    assert [C.half_points(c) for c in CODES] == list(HALF_POINTS)
    assert C.sort_cards(CODES) == sort_codes(CODES)
    assert C.points(CODES) == 91


# ---------------------------------------------------------------------- translations


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def test_every_key_exists_in_every_language_with_the_same_placeholders() -> None:
    en = MESSAGES["en"]
    for lang in LANGUAGES:
        table = MESSAGES[lang]
        assert set(table) == set(en), (lang, set(en) ^ set(table))
        for key, text in table.items():
            assert text.strip(), (lang, key)
            assert _fields(text) == _fields(en[key]), (lang, key)


def test_every_key_used_in_the_code_exists() -> None:
    used: set[str] = set()
    for path in (ROOT / "client_cli").glob("*.py"):
        used |= set(re.findall(r"""\btr\(\s*["']([a-z_]+\.[a-zA-Z0-9_.]+)["']""", path.read_text()))
        used |= set(
            re.findall(r"""self\.tr\(\s*["']([a-z_]+\.[a-zA-Z0-9_.]+)["']""", path.read_text())
        )
    assert used, "the scan found no keys"
    missing = used - set(MESSAGES["en"])
    assert not missing, missing


def test_language_comes_from_the_locale() -> None:
    assert detect_language({"LANG": "fr_FR.UTF-8"}) == "fr"
    assert detect_language({"LANG": "cs_CZ.UTF-8"}) == "cs"
    assert detect_language({"LC_ALL": "cs_CZ.UTF-8", "LANG": "fr_FR.UTF-8"}) == "cs"
    assert detect_language({"LANG": "de_DE.UTF-8"}) == "en"
    assert detect_language({}) == "en"
    assert detect_language({"LANGUAGE": "fr:en"}) == "fr"


def test_card_names_are_translated() -> None:
    assert Tr("en").card_name("HK") == "king of hearts"
    assert Tr("fr").card_name("HK") == "roi de cœur"
    assert Tr("cs").card_name("HK") == "srdce král"
    assert Tr("fr").card_name("T1") == "le Petit (atout 1)"
    assert Tr("cs").card_name("EX").startswith("škýz")
    assert Tr("en").card_name("T7") == "trump 7"


# ---------------------------------------------------------------------- the model


@pytest.mark.parametrize("seed", range(12))
def test_model_follows_a_whole_deal_like_the_server_view(seed: int) -> None:
    seat = seed % 4
    msgs, final = deal_stream(seed, seat, take=seed % 2 == 0)
    m = TableModel(table="T1", seat=seat)
    for msg in msgs:
        m.apply(msg)
        if msg["type"] == "your_turn":
            assert m.my_turn()
            assert m.legal == msg["legal"]
            # the hand the client keeps is the one the server's view shows
            assert m.deal is not None and m.deal.hand is not None
            assert len(m.deal.hand) == m.deal.hand_sizes[seat]
    d = m.deal
    assert d is not None and d.phase == "over"
    vw = view(final, seat)
    assert d.result == vw["result"]
    assert d.hand == vw["hand"] == []
    assert sorted(d.hand_sizes) == [0, 0, 0, 0]
    assert m.scores == vw["result"]["scores"]
    assert m.finished_deals and m.finished_deals[-1][1] is not None


@pytest.mark.parametrize("seed", range(40))
def test_running_card_points_end_at_the_taker_points(seed: int) -> None:
    msgs, _final = deal_stream(seed, None, take=seed % 3 != 0)
    m = play_stream(msgs, None)
    d = m.deal
    r = d.result
    if r["status"] != "played":
        return
    running = running_points(d)
    assert len(running) == 18
    aside = d.discard if d.contract in ("prise", "garde") else d.chien
    assert sum(p for p, _ in running) == 91 - C.points(aside or [])
    assert running[-1][1] + pile_bonus(d) == r["taker_points"]


def test_events_already_seen_are_ignored_and_stale_prompts_dropped() -> None:
    msgs, _ = deal_stream(3, 0, take=True)
    m = TableModel(table="T1", seat=0)
    for msg in msgs[:6]:
        m.apply(msg)
    snapshot = (m.v, list(m.deal.bids))
    for msg in msgs[:6]:
        if msg["type"] == "event":
            assert m.apply(msg) == []
    assert (m.v, m.deal.bids) == snapshot
    assert m.apply({"type": "your_turn", "table": "T1", "v": m.v - 1, "seat": 0, "legal": {}}) == []


def test_snapshot_mid_deal_restores_the_view() -> None:
    rng = random.Random(5)
    st = new_deal(rng, dealer=0)
    while st.phase != "play" or len(st.tricks) < 3:
        st = apply(st, _policy(1, True, rng)(st))
        assert st.phase != OVER
    vw = view(st, 1)
    m = TableModel(table="T1")
    m.apply({"type": "snapshot", "table": "T1", "v": 40, "seat": 1, "info": _info(), "deal": vw})
    assert m.seat == 1 and m.v == 40
    assert m.deal.hand == vw["hand"] and len(m.deal.tricks) == 3
    assert m.my_turn() == (st.turn == 1)


# ---------------------------------------------------------------------- rendering


def _render(*items: Any, width: int = 100) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False)
    for item in items:
        console.print(item)
    return out.getvalue()


WORDS = {
    "en": ("Your hand", "Contract", "Standings after deal", "trick by trick"),
    "fr": ("Votre main", "Contrat", "Classement après la donne", "pli par pli"),
    "cs": ("Vaše karty", "Závazek", "Pořadí po rozdání", "štych po štychu"),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_language_renders_a_full_deal_without_missing_translations(lang: str) -> None:
    from client_cli.app import UI, Game, Options

    tr = Tr(lang)
    out = io.StringIO()
    ui = UI(tr, out=out)
    ui.console = Console(file=out, width=100, color_system=None)
    for seed in range(4):  # several deals: taker and defender, poignées, the chelem prompt
        msgs, _ = deal_stream(seed, 0, take=seed % 2 == 0)
        game = Game(
            link=None,
            queue=None,
            model=TableModel(table="T1", seat=0),
            ui=ui,
            opts=Options(auto=False, interactive=False),
        )  # type: ignore[arg-type]
        for msg in msgs:
            game._on_message(msg)
            m = game.model
            if msg["type"] == "your_turn":
                d = decision_for(
                    m.legal, list(m.deal.hand), tr, CS, (m.deal.trick or {}).get("cards")
                )
                ui.show(
                    table_view(m, tr, CS),
                    hand_view(m.deal.hand, CS, tr, d.numbers, legend=d.legend),
                )
                ui.show(*d.header())
                ui.prompt(d.prompt())
                # every refusal path renders too
                d.handle("zz")
                d.handle("99")
                if isinstance(d, PlayDecision) and d.plays:
                    illegal = [c for c in m.deal.hand if c not in d.plays]
                    if illegal:
                        ui.error(d.explain(illegal[0], "R7.5", "must follow"))
        deal = game.model.finished_deals[-1][0]
        ui.show(review_view(game.model, deal, tr, CS), standings_view(game.model, tr, final=True))
    ui.show(tables_view([_info("waiting")], tr, "ws://x"), tables_view([], tr, "ws://x"))
    text = out.getvalue()
    assert not tr.missing, tr.missing
    for word in WORDS[lang]:
        assert word in text, (lang, word)
    assert "{" not in text and "}" not in text


def test_hand_marks_legal_cards_with_numbers_and_groups_suits() -> None:
    tr = Tr("en")
    hand = ["T21", "HK", "S2", "EX", "H3", "D5", "C7"]
    text = _render(hand_view(hand, CS, tr, {"H3": 1, "HK": 2}))
    assert "1:♥3" in text and "2:♥K" in text
    assert "1:♠2" not in text and "♠2" in text
    lines = [ln for ln in text.splitlines() if "♠" in ln or "♥" in ln or "T21" in ln]
    assert lines[0].count("♠") >= 1 and "♥" in lines[1]  # spades first, then hearts


def test_colours_red_suits_trumps_and_excuse_distinctly() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, color_system="standard", force_terminal=True)
    console.print(CS.row(["H10", "SK", "T5", "EX", "D2"]))
    raw = out.getvalue()
    assert "\x1b[1;31m♥10" in raw  # bold red
    assert "\x1b[1;31m♦2" in raw
    assert "\x1b[1;36mT5" in raw  # trumps: bold cyan
    assert "\x1b[1;4;35mEX" in raw  # the Excuse: bold magenta (underlined: an oudler)
    assert "\x1b[1m♠K" in raw  # black suits: bold, default colour


def test_ascii_terminals_get_codes_instead_of_symbols() -> None:
    assert CardStyle(unicode=False).label("H10") == "H10"
    assert CardStyle(unicode=True).label("H10") == "♥10"


def test_tr_text_inserts_styled_cards() -> None:
    t = tr_text(Tr("fr"), "ev.chien", {"cards": CS.row(["H1", "T2"])})
    assert t.plain == "Le chien est montré : ♥1 T2"


# ---------------------------------------------------------------------- decisions


def _legal(**kw: Any) -> dict[str, Any]:
    base = {
        "seat": 0,
        "phase": "play",
        "bids": [],
        "discard": None,
        "chelem": False,
        "poignees": [],
        "plays": [],
    }
    base.update(kw)
    return base


def test_bid_accepts_numbers_names_and_translations() -> None:
    tr = Tr("fr")
    d = BidDecision(
        _legal(phase="bidding", bids=["pass", "garde", "garde_sans", "garde_contre"]), [], tr, CS
    )
    assert d.handle("2").action == {"type": "bid", "contract": "garde"}
    assert d.handle("passe").action == {"type": "bid", "contract": "pass"}
    assert d.handle("Garde sans").action == {"type": "bid", "contract": "garde_sans"}
    assert d.handle("gc").action == {"type": "bid", "contract": "garde_contre"}
    low = d.handle("prise")
    assert low.action is None and "R4.2" in low.error and "1 : passe" not in low.error
    assert "prise" in low.error
    unknown = d.handle("tout")
    assert unknown.action is None and "1: passe" in unknown.error
    assert d.handle("9").error


HAND24 = ["S1", "S2", "S3", "SK", "H4", "H5", "HK", "C6", "DQ", "T1", "T2", "T3", "T4", "T5",
          "T6", "T7", "T8", "T9", "T10", "T11", "T12", "T21", "EX", "CK"]  # fmt: skip


def test_discard_refusals_explain_r5() -> None:
    tr = Tr("en")
    plain = [c for c in HAND24 if c[0] in "SHDC" and not c.endswith("K")]
    assert len(plain) == 7
    legal = _legal(
        phase="discard", discard={"count": 6, "required": [], "choices": C.sort_cards(plain)}
    )
    d = DiscardDecision(legal, HAND24, tr, CS)
    assert d.need == 6
    r = d.handle("SK S1 S2 S3 H4 H5")
    assert "R5.2" in r.error and "king of spades" in r.error and "R5.3" in r.error
    r = d.handle("T2 S1 S2 S3 H4 H5")
    assert "trump" in r.error and "R5.3" in r.error
    r = d.handle("T21 S1 S2 S3 H4 H5")
    assert "R5.2" in r.error
    r = d.handle("S1 S2")
    assert "exactly 6 cards; you named 2" in r.error
    r = d.handle("S1 S1 S2 S3 H4 H5")
    assert "twice" in r.error
    r = d.handle("D1 S1 S2 S3 H4 H5")
    assert "not in your hand" in r.error
    r = d.handle("S1 S2 S3 H4 H5 blah")
    assert "not a card code" in r.error
    ok = d.handle("1 2 3 h4 H5 dq")
    assert ok.action == {"type": "discard", "cards": ["S1", "S2", "S3", "H4", "H5", "DQ"]}


def test_discard_with_required_cards_asks_only_for_the_rest() -> None:
    tr = Tr("en")
    legal = _legal(
        phase="discard",
        discard={
            "count": 6,
            "required": ["S1", "H2", "D3", "C4"],
            "choices": ["T2", "T3", "T4", "T5"],
        },
    )
    hand = ["S1", "H2", "D3", "C4", "T2", "T3", "T4", "T5", "T1", "SK"]
    d = DiscardDecision(legal, hand, tr, CS)
    assert d.need == 2 and d.numbers == {"T2": 1, "T3": 2, "T4": 3, "T5": 4}
    assert "only 4 plain cards" in d.rule_text()
    assert d.handle("1 t5").action == {
        "type": "discard",
        "cards": ["S1", "H2", "C4", "D3", "T2", "T5"],
    }
    assert "R5.2" in d.handle("T1 T2").error
    assert "exactly 6" in d.handle("T2").error


def test_play_by_number_or_code_and_illegal_cards_are_explained() -> None:
    tr = Tr("en")
    hand = ["H3", "HK", "S2", "T5", "T9", "EX"]
    d = PlayDecision(_legal(plays=["H3", "HK", "EX"]), hand, tr, CS)
    d.trick = ["H7"]
    assert d.numbers == {"H3": 1, "HK": 2, "EX": 3}
    assert d.handle("2").action == {"type": "play", "card": "HK"}
    assert d.handle("ex").action == {"type": "play", "card": "EX"}
    assert "not in your hand" in d.handle("D4").error
    assert "number 7" in d.handle("7").error
    # an illegal card in hand is sent (the server is the authority) and its refusal explained
    assert d.handle("S2").action == {"type": "play", "card": "S2"}
    text = d.explain("S2", "R7.5", "must follow H (S2 does not)")
    assert "must follow hearts" in text and "1:♥3" in text
    trumps = PlayDecision(_legal(plays=["T9", "EX"]), ["T5", "T9", "EX", "S2"], tr, CS)
    trumps.trick = ["T7"]
    assert "higher than T7" in trumps.explain("T5", "R7.6", "must overtrump")
    ruff = PlayDecision(_legal(plays=["T5", "T9", "EX"]), ["T5", "T9", "EX", "S2"], tr, CS)
    ruff.trick = ["H7"]
    assert "must play a trump" in ruff.explain("S2", "R7.5", "")
    fr = PlayDecision(_legal(plays=["H3"]), hand, Tr("fr"), CS)
    fr.trick = ["H7"]
    assert "fournir à cœur" in fr.explain("S2", "R7.5", "")


def test_chelem_and_poignee_prompts() -> None:
    tr = Tr("cs")
    c = ChelemDecision(_legal(phase="chelem", chelem=True), [], tr, CS)
    assert c.handle("").action == {"type": "chelem", "announce": False}
    assert c.handle("ano").action == {"type": "chelem", "announce": True}
    assert c.handle("možná").error
    trumps = [f"T{n}" for n in range(1, 12)]
    opt = {"level": "single", "size": 10, "bonus": 20, "default": trumps[1:], "eligible": trumps}
    legal = _legal(plays=["T1", "T2"], poignees=[opt])
    d = decision_for(legal, [*trumps, "EX"], tr, CS, [])
    assert isinstance(d, PoigneeDecision)
    assert d.handle("").next is d.play and isinstance(d.play, PlayDecision)
    assert d.handle("1").action == {"type": "poignee", "cards": trumps[1:]}
    assert "10" in d.handle("T1 T2").error
    custom = d.handle(" ".join(trumps[:10]))
    assert custom.action == {"type": "poignee", "cards": C.sort_cards(trumps[:10])}
    assert "R6.4" in d.handle(" ".join([*trumps[:9], "S1"])).error
    ex = {
        "level": "single",
        "size": 10,
        "bonus": 20,
        "default": [*trumps[:9], "EX"],
        "eligible": [*trumps[:9], "EX"],
    }
    d2 = PoigneeDecision(_legal(plays=["T1"], poignees=[ex]), [*trumps[:9], "EX"], tr, CS)
    assert d2.handle(" ".join([*trumps[:9], "EX"])).action is not None


# ---------------------------------------------------------------------- the auto bot


@pytest.mark.parametrize("seed", range(20))
def test_auto_bot_only_makes_legal_choices(seed: int) -> None:
    rng = random.Random(seed)
    st = new_deal(rng, dealer=seed % 4)
    kinds = {"bid": Bid, "discard": Discard, "chelem": Chelem, "poignee": Poignee, "play": Play}
    while st.phase != OVER:
        seat = st.turn
        vw = view(st, seat)
        body = bot.choose(vw["legal"], vw["hand"])
        args = {k: (tuple(v) if isinstance(v, list) else v) for k, v in body.items() if k != "type"}
        st = apply(st, kinds[body["type"]](seat, **args))  # IllegalAction fails the test


# ---------------------------------------------------------------------- isolation


def test_client_imports_nothing_from_the_server() -> None:
    for path in sorted((ROOT / "client_cli").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] != "server", f"{path.name} imports {name}"
    code = (
        "import sys, client_cli.main, client_cli.app, client_cli.net, client_cli.render, "
        "client_cli.decisions, client_cli.bot, client_cli.seats\n"
        "bad = [m for m in sys.modules if m == 'server' or m.startswith('server.')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_help_explains_every_command_in_each_language() -> None:
    for lang, words in (("en", "play a game"), ("fr", "jouer une partie"), ("cs", "hrát hru")):
        out = subprocess.run(
            [sys.executable, "-m", "client_cli.main", "--lang", lang, "--help"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={"PATH": "/usr/bin:/bin", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"},
        )
        assert out.returncode == 0, out.stderr
        for cmd in ("play", "tables", "join", "create", "watch"):
            assert cmd in out.stdout
        assert words in out.stdout


# ---------------------------------------------------------------------- small pieces


def test_server_urls_are_normalized() -> None:
    from client_cli.net import LinkError, normalize_url

    assert normalize_url("127.0.0.1:8765") == "ws://127.0.0.1:8765"
    assert normalize_url("wss://tarot.example") == "wss://tarot.example"
    for bad in ("http://x", "ws://", "ftp://host"):
        with pytest.raises(LinkError):
            normalize_url(bad)


def test_seat_tokens_are_kept_per_server_table_and_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from client_cli import seats

    monkeypatch.setenv("ATOUT_STATE_DIR", str(tmp_path / "st"))
    assert seats.lookup("ws://a", "T") == []
    seats.remember("ws://a", "T", "tok", 2, "Ann")
    seats.remember("ws://a", "T", "tok3", 3, "Bea")  # a second terminal of the same login
    seats.remember("ws://b", "T", "other", 1, "Ann")
    assert [e["token"] for e in seats.lookup("ws://a", "T", name="Ann")] == ["tok"]
    assert [e["token"] for e in seats.lookup("ws://a", "T", name="Bea")] == ["tok3"]
    assert [e["seat"] for e in seats.lookup("ws://a/", "T")] == [2, 3]
    assert seats.lookup("ws://a", "T", seat=3)[0]["name"] == "Bea"
    assert (tmp_path / "st" / "seats.json").stat().st_mode & 0o777 == 0o600
    seats.update("ws://a", "T", 2, v=40, deal_no=2)
    assert seats.lookup("ws://a", "T", name="Ann")[0]["v"] == 40
    seats.forget("ws://a", "T", 2)
    assert seats.lookup("ws://a", "T", name="Ann") == []
    assert seats.lookup("ws://a", "T", name="Bea") and seats.lookup("ws://b", "T")
    seats.forget("ws://a", "T")
    assert seats.lookup("ws://a", "T") == []
    (tmp_path / "st" / "seats.json").write_text("not json")
    assert seats.lookup("ws://b", "T") == []  # a damaged file only costs the convenience


@pytest.mark.parametrize(
    ("argv", "command", "expect"),
    [
        (["--server", "ws://h:1", "tables"], "tables", {"server": "ws://h:1"}),
        (["--name", "Alice", "create"], "create", {"name": "Alice"}),
        (["create", "--name", "Alice", "--deals", "2"], "create", {"name": "Alice", "deals": 2}),
        (["--name", "play", "--deals", "2"], "play", {"name": "play", "deals": 2}),
        ([], "play", {}),
        (
            ["--server=ws://x:2", "join", "--", "-abc"],
            "join",
            {"server": "ws://x:2", "table": "-abc"},
        ),
        (
            ["--lang", "fr", "--auto", "watch", "T"],
            "watch",
            {"lang": "fr", "auto": True, "table": "T"},
        ),
    ],
)
def test_options_count_before_and_after_the_command_word(
    argv: list[str], command: str, expect: dict[str, Any]
) -> None:
    """Issue 10 item 2: `atout --server URL tables` used to list the default server's tables."""
    from client_cli.main import parse_args

    args = parse_args(argv, Tr("en"))
    assert args.command == command
    for k, v in expect.items():
        assert getattr(args, k) == v, (argv, k)


def test_model_keeps_our_turn_across_seat_events() -> None:
    """Issue 10 item 1: a seat event (a player drops or comes back) while we hold a prompt
    leaves the prompt valid; the server sends no new one."""
    msgs, _ = deal_stream(4, 0)
    m = TableModel(table="T1", seat=0)
    for msg in msgs:
        m.apply(msg)
        if msg["type"] == "your_turn":
            break
    assert m.my_turn()
    for connected in (False, True):
        m.apply({"type": "event", "table": "T1", "v": m.v + 1, "turn": 0, "event": {
            "type": "seat", "seat": 2, "kind": "human", "name": "Bob",
            "connected": connected, "ai": "random" if not connected else None}})  # fmt: skip
        assert m.my_turn() and m.deal.turn == 0


def test_your_turn_hand_resyncs_the_model() -> None:
    msgs, _ = deal_stream(8, 1)
    m = TableModel(table="T1", seat=1)
    for msg in msgs[:3]:
        m.apply(msg)
    m.deal.hand = ["S1"]  # pretend the model drifted
    m.apply(
        {
            "type": "your_turn",
            "table": "T1",
            "v": m.v,
            "seat": 1,
            "legal": _legal(),
            "hand": ["T2", "S3"],
        }
    )
    assert m.deal.hand == ["S3", "T2"]

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
    ConfirmDecision,
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
    assert Tr("fr").card_name("S1") == "as de pique"  # item 24: `as` for the 1
    assert Tr("fr").card_name("T1") == "le Petit"
    assert Tr("en").card_name("T7") == "trump 7"
    # item 23: Czech adjectives agree with the rank (srdcový král, kárová dáma, křížové eso)
    cs = Tr("cs")
    assert cs.card_name("HK") == "srdcový král"
    assert cs.card_name("DQ") == "kárová dáma"
    assert cs.card_name("C1") == "křížové eso"
    assert cs.card_name("SC") == "pikový jezdec"
    assert cs.card_name("H7") == "srdcová sedmička"
    assert cs.card_name("EX") == "Výmluva"
    assert cs.card_name("T1") == "Petit, trumf 1"


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
    "cs": ("V ruce máte", "Kontrakt", "Pořadí po rozdání", "zdvih po zdvihu"),
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
    assert t.plain == "Le chien est retourné : ♥1 T2"


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
    # item 5: an illegal card is explained here, in the player's language, and not sent
    out = d.handle("S2")
    assert out.action is None
    assert "must follow hearts" in out.error and "1:♥3" in out.error and "R7.5" in out.error
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
    # item 16: announcing a chelem is confirmed first; anything but yes asks again
    confirm = c.handle("ano").next
    assert isinstance(confirm, ConfirmDecision) and "Opravdu" in confirm.prompt()
    assert confirm.handle("ano").action == {"type": "chelem", "announce": True}
    assert confirm.handle("ne").next is c
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
    for lang, words in (
        ("en", "play a game"),
        ("fr", "jouer une partie"),
        ("cs", "hrát proti třem"),
    ):
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


# ---------------------------------------------------------------------- issue 10, items 5-25


class FakeLink:
    """What Game needs of a Link, without a network: requests are recorded; `deal` requests
    are answered from ``records``."""

    def __init__(self, records: dict[int, dict[str, Any]] | None = None) -> None:
        self.sent: list[dict[str, Any]] = []
        self.records = records or {}
        self.connected = True
        self.grace = 60.0
        self.url = "ws://127.0.0.1:8765"
        self.name = "Ann"

    async def send(self, body: dict[str, Any], rid: Any = None) -> Any:
        self.sent.append(body)
        return len(self.sent)

    async def call(self, body: dict[str, Any], timeout: float = 15) -> dict[str, Any]:
        from client_cli.net import ServerError

        self.sent.append(body)
        if body["type"] == "deal" and body["deal_no"] in self.records:
            return {"type": "deal", "record": self.records[body["deal_no"]]}
        raise ServerError({"type": "error", "code": "no_such_deal", "message": "no"})


def _game(lang: str = "en", seat: int | None = 0, width: int = 100, **opts: Any):
    import asyncio

    from client_cli.app import UI, Game, Options

    tr = Tr(lang)
    out = io.StringIO()
    ui = UI(tr, out=out)
    ui.console = Console(file=out, width=width, color_system=None)
    game = Game(
        FakeLink(),  # type: ignore[arg-type]
        asyncio.Queue(),
        TableModel(table="T1", seat=seat),
        ui,
        Options(auto=False, interactive=False, **opts),
    )
    return game, out


def _feed(game: Any, msgs: list[dict[str, Any]], stop: str | None = None) -> None:
    for msg in msgs:
        game._on_message(msg)
        if stop and msg["type"] == stop:
            return


def test_refusals_from_the_server_are_translated_by_code() -> None:
    """Item 5: the server's refusal is shown from its `code` (and `rule`), in the player's
    language, not as the server's English message."""
    for lang, words in (("fr", "Ce n'est pas votre tour"), ("cs", "Nejste na tahu")):
        game, _ = _game(lang)
        text = game._server_error_text(
            {"type": "error", "code": "not_your_turn", "message": "seat 2 is to act, not you"}
        )
        assert words in text and "seat 2" not in text
        text = game._server_error_text(
            {"type": "error", "code": "illegal_action", "rule": "R7.5", "message": "must follow"}
        )
        assert "R7.5" in text and "must follow" not in text
    game, _ = _game("en")
    unknown = game._server_error_text({"type": "error", "code": "brand_new", "message": "odd"})
    assert "odd" in unknown  # a code this client does not know: the server's words


def test_our_hand_is_shown_while_others_bid_and_on_table() -> None:
    """Item 6: the hand shows as soon as the deal starts (others bid first), and `table`
    draws it too."""
    import asyncio

    msgs, _ = deal_stream(2, 0)
    game, out = _game("en")
    start = next(i for i, m in enumerate(msgs) if m["type"] == "event"
                 and m["event"]["type"] == "deal_start")  # fmt: skip
    _feed(game, msgs[: start + 1])
    assert "Your hand (18 cards)" in out.getvalue()
    out.truncate(0)
    out.seek(0)
    asyncio.run(game._on_line("table"))
    assert "Your hand (18 cards)" in out.getvalue()


@pytest.mark.parametrize("seed", range(30))
def test_a_deal_rebuilt_from_its_record_matches_the_stream(seed: int) -> None:
    """Item 7: deals finished before a rejoin are reviewed from their records (`deal`
    request): bids, contract, discard and every trick's winner (R7.7, R8.3) as played."""
    from client_cli.model import DealModel

    msgs, _ = deal_stream(seed, None, take=seed % 3 != 0)
    m = play_stream(msgs, None)
    d = m.deal
    rebuilt = DealModel.from_record(d.record, d.deal_no)
    assert rebuilt.tricks == d.tricks
    assert (rebuilt.taker, rebuilt.contract, rebuilt.bids) == (d.taker, d.contract, d.bids)
    assert rebuilt.result == d.result
    if d.result["status"] == "played":
        assert running_points(rebuilt) == running_points(d)


def test_review_and_score_sheet_of_deals_played_before_we_came() -> None:
    """Item 7: `review N` and the score sheet fetch the deals finished before we joined."""
    import asyncio

    msgs, _ = deal_stream(5, 0, take=True)
    first = play_stream(msgs, 0).deal
    game, out = _game("en")
    game.link.records = {1: first.record}
    snap = {"type": "snapshot", "table": "T1", "v": 200, "seat": 0,
            "info": {**_info(), "deal_no": 2, "scored": 1, "scores": first.result["scores"]},
            "deal": None}  # fmt: skip
    game._on_message(snap)
    asyncio.run(game._on_line("review 1"))
    text = out.getvalue()
    assert "Deal 1, trick by trick" in text and "Taker's card points" in text
    asyncio.run(game._on_line("score"))
    text = out.getvalue()
    assert "Score sheet" in text
    assert first.result["contract"].split("_")[0] in text
    asyncio.run(game._on_line("review 9"))
    assert "Deal 9 is not a finished deal" in out.getvalue()


def test_the_rejoin_report_says_what_happened_while_away() -> None:
    """Item 7: coming back to a kept seat says which deals were played meanwhile (and their
    results) and which moves the AI made for us."""
    import asyncio

    msgs, _ = deal_stream(5, 0, take=True)
    first = play_stream(msgs, 0).deal
    game, out = _game("en")
    game.link.records = {1: first.record}
    game.rejoin = {"deal_no": 1, "own": 1}
    rng = random.Random(9)
    st = new_deal(rng, dealer=0)
    acted = 0
    for _ in range(60):  # deal 2 under way: the AI acted for us, and it is our turn again
        if st.phase == OVER or (acted and st.turn == 0):
            break
        acted += st.turn == 0
        st = apply(st, _policy(1, True, rng)(st))
    assert st.phase != OVER and st.turn == 0 and acted
    snap = {"type": "snapshot", "table": "T1", "v": 300, "seat": 0,
            "info": {**_info(), "deal_no": 2, "scored": 1}, "deal": view(st, 0)}  # fmt: skip

    async def go() -> None:
        game._on_message(snap)
        await game._act_if_due()  # as the game loop does after each message
        await asyncio.gather(*game.tasks)
        while not game.queue.empty():  # the loop runs what the report queued
            item = game.queue.get_nowait()
            if item[0] == "call":
                await item[1]()
            await game._act_if_due()

    asyncio.run(go())
    text = out.getvalue()
    assert "While you were away:" in text
    r = first.result
    word = "made it" if r.get("won") else "failed"
    assert f"deal 1: AI {r['taker']}" in text or "deal 1: You took" in text or word in text
    assert "deal 2: the AI made" in text  # finding 8: the moves name their deal
    # finding 8: the summary first, then the table once, with our decision
    assert game.model.my_turn()
    assert text.count("Table T1 ·") == 1, text
    assert text.index("While you were away:") < text.index("Table T1 ·") < text.rindex(" > ")


def test_trick_points_leave_the_excuse_with_its_side() -> None:
    """Item 9: a trick won by the other side does not count the Excuse for its winner (R8.1):
    the winner's side gets the other cards and half a point."""
    from client_cli.model import DealModel, trick_gain

    d = DealModel(deal_no=1, taker=0)
    # the taker (seat 0) plays the Excuse, defender 1 wins: the king, two small cards and the
    # half point; the Excuse's 4.5 stay with the taker
    d.tricks = [{"leader": 1, "cards": ["HK", "H2", "H3", "EX"], "winner": 1}]
    assert trick_gain(d, 0) == 4.5 + 0.5 + 0.5 + 0.5
    # a defender (seat 1) plays it and the taker wins
    d.tricks = [{"leader": 0, "cards": ["HK", "EX", "H2", "H3"], "winner": 0}]
    assert trick_gain(d, 0) == 4.5 + 0.5 + 0.5 + 0.5
    game, out = _game("en", seat=3)
    game.model.info = _info()
    game.model.deal = d
    game._narrate({"type": "trick", "number": 1, "leader": 0, "winner": 0,
                   "cards": ["HK", "EX", "H2", "H3"]}, [{}] * 4)  # fmt: skip
    line = out.getvalue()
    assert "(6 points; the Excuse stays with AI 1)" in line and "(10.5" not in line


def _played_result(**kw: Any) -> dict[str, Any]:
    r = {"status": "played", "taker": 1, "contract": "garde", "multiplier": 2,
         "chelem_announced": False, "oudlers": 1, "target": 51, "taker_points": 44,
         "won": False, "base": -64, "petit_au_bout": 0, "poignee": 0, "chelem": 0,
         "per_defender": -64, "scores": [64, -192, 64, 64]}  # fmt: skip
    r.update(kw)
    return r


def test_results_are_labelled_from_the_readers_side() -> None:
    """Item 10: `each defender wins 64 / the taker pays 192`, not `Per defender -64`."""
    from client_cli.model import DealModel
    from client_cli.render import summary_view

    m = TableModel(table="T1", seat=0, info=_info())
    d = DealModel(deal_no=1, taker=1, result=_played_result())
    text = _render(summary_view(m, d, Tr("en"), CS))
    assert "each defender wins 64: the taker pays 192" in text
    assert "(25 + 7) × 2 = 64, for the defence" in text
    assert "Per defender" not in text and "-64" not in text
    fr = _render(summary_view(m, d, Tr("fr"), CS))
    assert "chaque défenseur gagne 64 : le preneur paie 192" in fr
    won = DealModel(deal_no=2, taker=1, result=_played_result(
        won=True, taker_points=58.5, base=57, per_defender=77, petit_au_bout=20,
        scores=[-77, 231, -77, -77]))  # fmt: skip
    text = _render(summary_view(m, won, Tr("cs"), CS))
    assert "každý obránce platí 77: beroucí získává 231" in text
    assert "beroucí 58,5, obránci 32,5" in text  # decimal comma in Czech
    assert "20, pro beroucího" in text


def test_score_title_never_names_a_deal_not_yet_played() -> None:
    """Item 11: before any deal is scored, `score` shows the standings before deal 1."""
    msgs, _ = deal_stream(3, 0)
    m = TableModel(table="T1", seat=0)
    for msg in msgs[:3]:
        m.apply(msg)
    text = _render(standings_view(m, Tr("en")))
    assert "Standings before deal 1" in text and "after deal 1" not in text
    for msg in msgs[3:]:
        m.apply(msg)
    assert "Standings after deal 1" in _render(standings_view(m, Tr("en")))


def test_bid_refusal_says_it_once_and_the_table_shows_bidding() -> None:
    """Item 12: a bid too low is one sentence; during bidding the table has no trick column
    and the marker reads `to bid`."""
    d = BidDecision(_legal(phase="bidding", bids=["pass", "garde", "garde_sans"]), [], Tr("en"), CS)
    err = d.handle("prise").error
    assert err.count("Choose one of") == 1 and "is not a bid you can make" not in err
    msgs, _ = deal_stream(4, 0)
    m = TableModel(table="T1", seat=0)
    for msg in msgs[:2]:
        m.apply(msg)
    text = _render(table_view(m, Tr("en"), CS))
    assert "◀ to bid" in text and "Trick 1" not in text and "to act" not in text
    assert "`start`" in Tr("en")("help.commands")


def test_a_spectator_sees_the_table_from_the_first_deal_start() -> None:
    """Item 12: a spectator gets the table at the deal start, not only log lines."""
    msgs, _ = deal_stream(6, None)
    game, out = _game("en", seat=None)
    start = next(i for i, m in enumerate(msgs) if m["type"] == "event"
                 and m["event"]["type"] == "deal_start")  # fmt: skip
    _feed(game, msgs[: start + 1])
    assert "Table T1 · deal" in out.getvalue()


def test_the_only_legal_card_is_played_with_enter_or_by_itself() -> None:
    """Item 15: one legal card: Enter plays it; --auto-single plays it without asking."""
    import asyncio

    d = PlayDecision(_legal(plays=["H3"]), ["H3", "S2"], Tr("en"), CS)
    assert "Enter: ♥3, the only one you may play" in d.prompt()
    assert d.handle("").action == {"type": "play", "card": "H3"}
    assert PlayDecision(_legal(plays=["H3", "H4"]), ["H3", "H4"], Tr("en"), CS).handle("").error
    game, out = _game("en", auto_single=True)
    msgs, _ = deal_stream(7, 0)
    m = game.model
    for msg in msgs:
        m.apply(msg)
        if msg["type"] == "your_turn" and len(msg["legal"]["plays"]) == 1:
            break
    else:
        pytest.skip("no single-card turn in this deal")
    asyncio.run(game._act_if_due())
    assert game.link.sent[-1]["type"] == "play" and game.decision is None
    assert "is the only card you may play" in out.getvalue()


def test_quitting_during_a_deal_asks_first() -> None:
    """Item 16: `quit` while seated at a table in play asks for a confirmation."""
    import asyncio

    game, out = _game("fr")
    game.model.info = _info()
    asyncio.run(game._on_line("quitter"))
    assert game.exit_code is None and "Quitter la table ?" in out.getvalue()
    asyncio.run(game._on_line("n"))
    assert game.exit_code is None
    asyncio.run(game._on_line("quit"))
    asyncio.run(game._on_line("oui"))
    assert game.exit_code == 0


def test_score_sheet_lists_every_deal_with_running_totals() -> None:
    """Item 17: one line per deal of the series (annulled ones too) and the totals."""
    from client_cli.model import DealModel
    from client_cli.render import score_sheet_view

    m = TableModel(table="T1", seat=0, info={**_info(), "scored": 2})
    m.series_start = 1
    m.deals[1] = DealModel(deal_no=1, result=_played_result())
    m.deals[2] = DealModel(deal_no=2, result={"status": "annulled", "reason": "all_passed",
                                              "scores": [0, 0, 0, 0]})  # fmt: skip
    m.deals[3] = DealModel(deal_no=3, result=_played_result(
        taker=0, won=True, per_defender=30, scores=[90, -30, -30, -30]))  # fmt: skip
    text = _render(score_sheet_view(m, Tr("en")))
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert any(
        "garde" in ln and "AI 1" in ln and "failed by 7" in ln and "+64" in ln for ln in lines
    )
    assert any("annulled" in ln and "everybody passed" in ln for ln in lines)
    total = next(ln for ln in lines if "Total" in ln)
    assert "+154" in total and "−222" in total  # 64 + 90, and −192 − 30


def test_layout_fits_narrow_and_wide_terminals() -> None:
    """Item 18: at 60 columns no header or marker is cut (`Tri…`, `◀ to`); at 200 the panel
    keeps a bounded width."""
    msgs, _ = deal_stream(1, 0, take=True)
    m = TableModel(table="T1", seat=0)
    for msg in msgs:
        m.apply(msg)
        if m.deal is not None and m.deal.phase == "play" and len(m.deal.tricks) == 2:
            break
    narrow = _render(table_view(m, Tr("en"), CS, 60), width=60)
    assert "…" not in narrow
    assert all(len(ln) <= 60 for ln in narrow.splitlines())
    assert "Score" in narrow and "Tricks" in narrow
    wide = _render(table_view(m, Tr("en"), CS, 200), width=200)
    assert max(len(ln) for ln in wide.splitlines()) <= 120
    hand = _render(hand_view(m.deal.hand, CS, Tr("en"), {m.deal.hand[0]: 1}), width=200)
    assert max(len(ln) for ln in hand.splitlines()) <= 120  # the hand does not stretch either


def test_the_compass_shows_who_sits_left_across_and_right() -> None:
    """Item 19: from seat 1, seat 2 sits to the right (R2.1: seat s+1 is to the right of
    seat s), seat 3 across, seat 0 to the left."""
    from client_cli.render import compass, positions

    m = TableModel(table="T1", seat=1, info=_info())
    assert positions(m) == {1: "you", 2: "right", 3: "across", 0: "left"}
    text = _render(compass(m, Tr("en"), CS))
    top, middle, bottom = [ln for ln in text.splitlines() if "(" in ln][:3]
    assert "AI 3 (across)" in top
    assert "Ann (left)" in middle and "Bob (right)" in middle
    assert middle.index("Ann") < middle.index("Bob")
    assert "You (you)" in bottom


def test_settings_change_during_the_game_and_are_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 20: `set lang`, `set speed`, `set pause` take effect at once and are kept."""
    import asyncio

    from client_cli.settings import Settings

    monkeypatch.setenv("ATOUT_STATE_DIR", str(tmp_path))
    game, out = _game("en")
    asyncio.run(game._on_line("set lang cs"))
    assert game.tr.lang == "cs" and "Hotovo" in out.getvalue()
    asyncio.run(game._on_line("set speed slow"))
    asyncio.run(game._on_line("set pause 5"))
    asyncio.run(game._on_line("set speed 99"))
    assert "není známé nastavení" in out.getvalue()
    kept = Settings.load()
    assert (kept.lang, kept.speed, kept.pause) == ("cs", 1.5, 5.0)
    asyncio.run(game._on_line("set pause enter"))
    assert Settings.load().pause is None


def test_hints_name_the_command_that_works_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 21: when `atout` is not on the PATH, hints give the path it was run from."""
    from client_cli import hints as M

    monkeypatch.setattr(sys, "argv", [str(ROOT / ".venv" / "bin" / "atout")])
    monkeypatch.setattr(M.shutil, "which", lambda name: None)
    line = M.command_line("join", "TID", M.DEFAULT_SERVER)
    assert line.endswith("atout join TID") and line != "atout join TID"
    monkeypatch.setattr(M.shutil, "which", lambda name: str(ROOT / ".venv" / "bin" / "atout"))
    assert M.command_line("join", "TID", M.DEFAULT_SERVER) == "atout join TID"


def test_quickstart_is_two_commands_and_serve_installs_only_the_runtime() -> None:
    """Items 21, 22: the README opens with `make serve` and `make test`; `make serve` and
    `make play` install the runtime only; the tests keep their extras."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quickstart", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [ln.split("#")[0].strip() for ln in block.strip().splitlines()]
    assert commands == ["make serve", "make test"]
    assert "make play" in readme.split("## Quickstart", 1)[1].split("##", 1)[0]
    make = (ROOT / "Makefile").read_text()
    rules = {m.group(1): m.group(2) for m in re.finditer(r"^([\w.$()/-]+):([^\n]*)$", make, re.M)}
    assert "$(RUNTIME)" in rules["serve"] and "$(STAMP)" not in rules["serve"]
    assert "$(RUNTIME)" in rules["play"]
    assert "$(STAMP)" in rules["test"]
    runtime = make.split("$(RUNTIME): pyproject.toml", 1)[1].split("\n\n", 1)[0]
    assert "pip install --quiet -e ." in runtime and "[test" not in runtime


TAROKY = ("štych", "tarok", "talon", "škýz", "pagát", "licitac", "honér", "závazek", "kavalír")


def test_czech_uses_the_rule_cards_vocabulary_and_grammar() -> None:
    """Item 23: no taroky words, one word for the oudlers (bouty), no French or English
    words left, verb agreement for "you", no nested parentheses."""
    cs = MESSAGES["cs"]
    for key, text in cs.items():
        low = text.lower()
        for word in TAROKY:
            assert word not in low, (key, word)
        assert "poignée" not in low or "hrst" in low, key  # hrst (poignée) only together
        assert "(heuristic)" not in text and "Vy hlás" not in text, key
        depth = 0
        for ch in text:
            depth += ch == "("
            depth -= ch == ")"
            assert depth <= 1, ("nested parentheses", key)
    assert cs["ev.bid_you"].startswith("Hlásíte")
    assert "bouty" in cs["sum.oudlers"].lower()
    tr = Tr("cs")
    for reason in ("petit_sec", "all_passed"):  # reasons go inside parentheses elsewhere
        assert "(" not in tr(f"reason.{reason}")


def test_french_ranks_commands_and_help_headings() -> None:
    """Item 24: R, D, C, V on screen (codes unchanged on the wire), typed R/D/V accepted, the
    commands in French, argparse's headings translated."""
    fr = CardStyle(unicode=True, lang="fr")
    assert [fr.label(c) for c in ("HK", "SQ", "CC", "DJ", "H1", "T21")] == [
        "♥R", "♠D", "♣C", "♦V", "♥1", "T21"]  # fmt: skip
    d = PlayDecision(_legal(plays=["HK", "SQ"]), ["HK", "SQ", "DJ"], Tr("fr"), fr)
    assert d.handle("HR").action == {"type": "play", "card": "HK"}
    assert d.handle("♠D").action == {"type": "play", "card": "SQ"}
    assert "♥R" in d.card_label("HK") and "roi de cœur" in d.card_label("HK")
    from client_cli.app import command_of

    for word, cmd in (("aide", "help"), ("table", "table"), ("revoir", "review"),
                      ("score", "score"), ("quitter", "quit"), ("règles", "rules")):  # fmt: skip
        assert command_of(word)[0] == cmd
    assert command_of("revoir 3") == ("review", "3")
    out = subprocess.run(
        [sys.executable, "-m", "client_cli.main", "--lang", "fr", "--help"],
        capture_output=True, text=True, cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"},
    )  # fmt: skip
    assert out.stdout.startswith("utilisation :") and "afficher cette aide" in out.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "client_cli.main", "--lang", "cs", "tables", "--bogus"],
        capture_output=True, text=True, cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"},
    )  # fmt: skip
    assert bad.returncode == 2 and "neznámé argumenty: --bogus" in bad.stderr


PLURALS = {
    # (language, number, a template's plural spec) -> the form it must pick
    ("en", 1, "card|cards"): "card",
    ("en", 2, "card|cards"): "cards",
    ("en", 0.5, "point|points"): "points",
    ("fr", 1, "carte|cartes"): "carte",
    ("fr", 1.5, "point|points"): "point",
    ("fr", 2, "carte|cartes"): "cartes",
    ("cs", 1, "bod|body|bodů|bodu"): "bod",
    ("cs", 2, "bod|body|bodů|bodu"): "body",
    ("cs", 4, "bod|body|bodů|bodu"): "body",
    ("cs", 5, "bod|body|bodů|bodu"): "bodů",
    ("cs", 21, "bod|body|bodů|bodu"): "bodů",
    ("cs", 2.5, "bod|body|bodů|bodu"): "bodu",
    ("cs", 1, "kartu|karty|karet"): "kartu",
    ("cs", 3, "kartu|karty|karet"): "karty",
    ("cs", 18, "kartu|karty|karet"): "karet",
}

_N = r"(?<![\d,.])"  # a whole number, not the end of 1,5
WRONG = {
    "en": re.compile(
        rf"{_N}1 (?:cards|points|moves|plain cards)\b|{_N}(?:[02-9]|1\d) (?:card|point|move)\b"
    ),
    "fr": re.compile(rf"{_N}1 (?:cartes|points|coups)\b|{_N}(?:[2-9]|1\d) (?:carte|point|coup)\b"),
    "cs": re.compile(
        rf"{_N}1 (?:body|bodů|karty|karet|tahy|tahů)\b|{_N}[2-4] (?:bodů|bod|karet|tahů)\b"
        rf"|{_N}(?:[5-9]|1\d) (?:body|bod|karty|tahy)\b|\d,5 (?:bodů|body|bod)\b"
    ),
}


def test_every_key_in_every_language_and_plural_and_agreement_forms() -> None:
    """Item 25: every key exists in all three languages with the same placeholders; every
    plural template gives the right form for 1, 2, 5, 21 and halves (no `1 cards`, no
    `2 bodů`, no `2,5 bodů`)."""
    from client_cli.i18n import ARGPARSE, plural_form

    en = MESSAGES["en"]
    for lang in LANGUAGES:
        assert set(MESSAGES[lang]) == set(en), (lang, set(en) ^ set(MESSAGES[lang]))
        assert set(ARGPARSE[lang]) == set(ARGPARSE["en"])
        for key, text in MESSAGES[lang].items():
            assert _fields(text) == _fields(en[key]), (lang, key)
    for (lang, n, spec), want in PLURALS.items():
        assert plural_form(lang, n, spec.split("|")) == want, (lang, n, spec)
    # every template with a plural, filled with many numbers, reads right
    for lang in LANGUAGES:
        tr = Tr(lang)
        for key, text in MESSAGES[lang].items():
            if ":p:" not in text:
                continue
            fields = [(f, spec) for _, f, spec, _ in string.Formatter().parse(text) if f]
            halves = {f for f, spec in fields if spec == "num"}  # points; counts are whole
            for n in (0, 1, 1.5, 2, 3, 4, 5, 7.5, 11, 18, 21, 22, 25):
                filled = tr(key, **{f: n if f in halves else int(n) for f, _ in fields})
                assert not WRONG[lang].search(filled), (lang, key, filled)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_rendered_deal_has_no_wrong_plural(lang: str) -> None:
    """Item 25 on real output: several whole deals narrated and summed up in each language."""
    from client_cli.app import UI, Game, Options

    tr = Tr(lang)
    out = io.StringIO()
    ui = UI(tr, out=out)
    ui.console = Console(file=out, width=120, color_system=None)
    for seed in range(6):
        msgs, _ = deal_stream(seed, seed % 4, take=seed % 2 == 0)
        game = Game(FakeLink(), None, TableModel(table="T1", seat=seed % 4), ui,  # type: ignore[arg-type]
                    Options(auto=False, interactive=False))  # fmt: skip
        for msg in msgs:
            game._on_message(msg)
    text = out.getvalue()
    assert not WRONG[lang].search(text), WRONG[lang].search(text)
    assert not tr.missing
    for line in text.splitlines():  # item 23: no nested parentheses, in any language
        depth = 0
        for ch in line:
            depth += ch == "("
            depth -= ch == ")"
            assert depth <= 1, line


def test_names_from_other_players_cannot_drive_the_terminal() -> None:
    """Anything printed escapes control characters (names and table names come from others)."""
    from client_cli.render import safe

    m = TableModel(table="T1", seat=0, info=_info())
    m.info["seats"][2]["name"] = "Bob\x1b[2J\x07"
    text = _render(table_view(m, Tr("en"), CS))
    assert "\x1b" not in text and "\x07" not in text and "Bob\\x1b[2J\\x07" in text
    info = {**_info("waiting"), "name": "evil\x1b]0;pwned\x07"}
    listing = _render(tables_view([info], Tr("en"), "ws://x"))
    assert "\x1b" not in listing and "evil\\x1b]0;pwned" in listing
    assert safe("a\nb\tc\x9b") == "a\nb\tc\\x9b"


def test_tables_show_the_first_page_and_can_list_them_all() -> None:
    """Interface 3: `atout tables` shows the first page and says how many there are;
    `--all` follows `next` to the end."""
    import argparse
    import asyncio

    from client_cli.app import UI
    from client_cli.main import _list_tables

    pages = {
        None: {"type": "tables", "tables": [{**_info("waiting"), "table": "A"}], "next": "c1",
               "total": 2},
        "c1": {"type": "tables", "tables": [{**_info("playing"), "table": "B"}], "next": None,
               "total": 2},
    }  # fmt: skip

    class Pages(FakeLink):
        async def call(self, body: dict[str, Any], timeout: float = 15) -> dict[str, Any]:
            self.sent.append(body)
            return pages[body.get("cursor")]

    for all_pages, want in ((False, ["A"]), (True, ["A", "B"])):
        out = io.StringIO()
        ui = UI(Tr("en"), out=out)
        ui.console = Console(file=out, width=120, color_system=None)
        link = Pages()
        args = argparse.Namespace(all=all_pages, json=False)
        assert asyncio.run(_list_tables(args, link, ui, Tr("en"), "ws://x")) == 0  # type: ignore[arg-type]
        text = out.getvalue()
        assert [t for t in ("A", "B") if f" {t} " in text] == want
        assert ("`atout tables --all` lists them all" in text) == (not all_pages)
        assert len(link.sent) == len(want)


def test_ai_levels_come_from_the_server_when_it_says() -> None:
    """Interface 4: the levels of `welcome.ai_levels`, in its order; the usual three else."""
    from client_cli.main import ai_levels

    offered = [{"level": "easy", "description": "e"}, {"level": "strong", "description": "s"}]
    assert [lv["level"] for lv in ai_levels({"ai_levels": offered})] == ["easy", "strong"]
    assert [lv["level"] for lv in ai_levels({})] == ["easy", "normal", "strong"]


# ---------------------------------------------------------------------- polish


def test_bidi_controls_and_line_separators_in_names_are_shown_escaped() -> None:
    """A name may not reorder or break what the terminal shows: a right-to-left override
    (U+202E), an isolate (U+2066) or a line separator (U+2028) from a name or a table name is
    spelled out everywhere it is printed, as protocol.text.printable does."""
    from client_cli.render import compass, safe

    m = TableModel(table="T\u2066x", seat=0, info=_info())
    m.info["seats"][2]["name"] = "Bob\u202etxt.exe"
    m.info["seats"][0]["name"] = "me"
    for shown in (table_view(m, Tr("en"), CS), compass(m, Tr("en"), CS)):
        text = _render(shown)
        assert "\u202e" not in text and "Bob\\u202etxt.exe" in text
    assert "T\\u2066x" in _render(table_view(m, Tr("en"), CS))
    info = {**_info("waiting"), "table": "T\u2028", "name": "club\u2029"}
    info["seats"][0]["name"] = "Ann\u2028Eve"
    listing = _render(tables_view([info], Tr("en"), "ws://x"))
    assert "\u2028" not in listing and "\u2029" not in listing
    assert "T\\u2028" in listing and "club\\u2029" in listing and "Ann\\u2028Eve" in listing
    # narration: a player sitting down with such a name
    game, out = _game("en")
    msgs, _ = deal_stream(2, 0)
    _feed(game, msgs[:1])
    game._on_message({"type": "event", "table": "T1", "v": 50, "turn": None, "event": {
        "type": "seat", "seat": 3, "kind": "human", "name": "Eve\u200f\u2028Mal",
        "connected": True}})  # fmt: skip
    said = out.getvalue()
    assert "Eve\\u200f\\u2028Mal" in said and "\u2028" not in said and "\u200f" not in said
    # multi-line texts keep their own newlines and tabs; one-line texts spell them out
    from client_cli.render import safe_line

    assert safe("a\nb\tc\u202e") == "a\nb\tc\\u202e"
    assert safe_line("a\nb\tc") == "a\\x0ab\\x09c"


def test_a_deal_dealt_again_is_named_in_the_title() -> None:
    """R3: a deal nobody took is dealt again and does not count, so the table's deal number
    runs ahead of the series: `deal 5 · 2 of 4 scored`, not `deal 3 of 4` on deal 5."""
    msgs, _ = deal_stream(5, 0, deal_no=5)
    msgs[0]["info"].update(deal_no=4, scored=2)
    m = TableModel(table="T1", seat=0)
    for msg in msgs[:2]:
        m.apply(msg)
    assert m.deal is not None and m.deal.deal_no == 5
    shown = _render(table_view(m, Tr("en"), CS))
    assert "Table T1 · deal 5 · 2 of 4 scored" in shown and "deal 3 of 4" not in shown
    from client_cli.render import table_title

    assert table_title(m, Tr("en")) == "Table T1 · deal 5 · 2 of 4 scored"
    assert table_title(m, Tr("fr")) == "Table T1 · donne 5 · 2 sur 4 comptées"
    assert table_title(m, Tr("cs")) == "Stůl T1 · rozdání 5 · 2 z 4 započtena"
    m.info["scored"] = 1
    assert table_title(m, Tr("fr")).endswith("1 sur 4 comptée")
    assert table_title(m, Tr("cs")).endswith("1 z 4 započteno")
    # no deal dealt again: the plain `deal 3 of 4`
    m.info["scored"] = 2
    m.deal.deal_no = 3
    assert table_title(m, Tr("en")) == "Table T1 · deal 3 of 4"
    # the standings count deals as the title does
    assert "Standings before deal 3" in _render(standings_view(m, Tr("en")))


def test_a_spectator_sees_each_player_labelled_with_their_seat() -> None:
    """A spectator has no `left` or `right`: each player of the compass is labelled with
    their seat number; a seated player keeps left, across and right."""
    from client_cli.render import compass

    m = TableModel(table="T1", seat=None, info=_info())
    text = _render(compass(m, Tr("en"), CS))
    for label in ("Ann (seat 0)", "AI 1 (seat 1)", "Bob (seat 2)", "AI 3 (seat 3)"):
        assert label in text, text
    assert "right" not in text and "left" not in text and "across" not in text
    assert "Počítač 1 (místo 1)" in _render(compass(m, Tr("cs"), CS))
    m.seat = 0
    assert "AI 1 (right)" in _render(compass(m, Tr("en"), CS))


def test_you_inside_a_sentence_is_lower_case_and_agrees() -> None:
    """Our seat is `You` as a label and `you` inside a sentence (`taker: you`, `won by
    you`); Czech sentences that name a seat have no verb that `vy` would have to agree with."""
    from client_cli.render import _deal_lines

    for seed in range(40):
        msgs, _ = deal_stream(seed, 0, take=True)
        m = TableModel(table="T1", seat=0)
        for msg in msgs:
            m.apply(msg)
            d = m.deal
            if d is not None and d.phase == "play" and d.tricks and d.tricks[-1]["winner"] == 0:
                break
        else:
            continue
        break
    else:
        pytest.fail("no deal where we take and win a trick")
    d.chelem_announced = True
    want = {
        "en": ("taker: you", "Chelem announced by you", "Last trick (won by you)"),
        "fr": ("preneur : vous", "Chelem annoncé par vous", "Dernier pli (remporté par vous)"),
        "cs": ("beroucí: vy", "Hlášený slam (chelem): vy", "Poslední zdvih (vítěz: vy)"),
    }
    for lang, phrases in want.items():
        text = " ".join(t.plain for t in _deal_lines(m, d, Tr(lang), CS))
        for phrase in phrases:
            assert phrase in text, (lang, phrase, text)
    # a label stays capitalised
    assert "You (taker)" in _render(table_view(m, Tr("en"), CS))


def test_the_turn_marker_has_its_own_line_and_bids_are_short() -> None:
    """At 60 columns the compass never splits `◀ to bid` from itself nor glues it to a name;
    a bid shows as its contract's name without the multiplier."""
    from client_cli.render import compass

    msgs, _ = deal_stream(4, 0)
    m = TableModel(table="T1", seat=0)
    for msg in msgs[:2]:
        m.apply(msg)
    d = m.deal
    assert d is not None and d.phase == "bidding"
    text = _render(compass(m, Tr("en"), CS), width=60)
    marked = [ln for ln in text.splitlines() if "◀" in ln]
    assert len(marked) == 1 and "◀ to bid" in marked[0] and "(" not in marked[0]
    m.apply({"type": "event", "table": "T1", "v": 99, "turn": (d.turn + 1) % 4,
             "event": {"type": "bid", "seat": d.turn, "contract": "garde_contre"}})  # fmt: skip
    for width in (60, 100):
        for shown in (compass(m, Tr("en"), CS), table_view(m, Tr("en"), CS, width)):
            text = _render(shown, width=width)
            assert "garde contre le chien" in text and "(×6)" not in text


def test_the_winner_line_speaks_to_us_and_annulled_deals_share_a_line() -> None:
    """The final standings say `You win!` to the winner; on the score sheet, deals nobody
    took in a row for the same reason are one line (`2–3`) with the right agreement."""
    from client_cli.model import DealModel
    from client_cli.render import score_sheet_view

    m = TableModel(table="T1", seat=1, info={**_info(), "scores": [-10, 30, -10, -10]})
    assert "You win!" in _render(standings_view(m, Tr("en"), final=True))
    assert "Vyhráváte!" in _render(standings_view(m, Tr("cs"), final=True))
    m.seat = 0
    assert "Winner: AI 1!" in _render(standings_view(m, Tr("en"), final=True))
    passed = {"status": "annulled", "reason": "all_passed", "scores": [0, 0, 0, 0]}
    m = TableModel(table="T1", seat=0, info={**_info(), "scored": 2})
    m.series_start = 1
    m.deals[1] = DealModel(deal_no=1, result=_played_result())
    m.deals[2] = DealModel(deal_no=2, result=dict(passed))
    m.deals[3] = DealModel(deal_no=3, result=dict(passed))
    m.deals[4] = DealModel(deal_no=4, result=_played_result())
    m.deals[5] = DealModel(deal_no=5, result=dict(passed))
    for lang, many, one in (("en", "annulled", "annulled"), ("fr", "annulées", "annulée"),
                            ("cs", "zrušena", "zrušeno")):  # fmt: skip
        lines = [ln for ln in _render(score_sheet_view(m, Tr(lang))).splitlines() if ln.strip()]
        assert any("2–3" in ln and f" {many} " in ln for ln in lines), (lang, lines)
        assert any(re.search(rf"│\s*5\s+{one}\b", ln) for ln in lines), (lang, lines)
        assert not any(re.search(r"│\s*[23]\s", ln) for ln in lines)


def test_rules_topics_by_number_or_a_word_of_their_title_accents_optional() -> None:
    """`rules 7`, `rules excuse`, `pravidla vymluva`, `règles ecart`: the list is numbered and
    a topic is found by its number or a word of its title, with or without accents."""
    from client_cli.render import rules_view
    from protocol import texts

    assert "The Excuse" in _render(rules_view(Tr("en"), "excuse"))
    assert "Výmluva" in _render(rules_view(Tr("cs"), "vymluva"))
    assert "Playing a trick" in _render(rules_view(Tr("en"), "6"))
    from client_cli.render import find_section

    doc = texts.load("en")
    listing = _render(rules_view(Tr("en")))
    first = doc.sections[0].title
    assert re.search(rf"1\s+{re.escape(first)}", listing)
    assert find_section(doc, "1") is doc.sections[0]
    assert find_section(doc, "99") is None
    assert find_section(doc, "excuse").title == "The Excuse"
    assert find_section(texts.load("cs"), "vymluva").title == "Výmluva"
    assert "écart" in find_section(texts.load("fr"), "ecart").title
    assert find_section(doc, "the") is None  # several topics: none rather than a guess


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_header_or_word_is_cut_at_60_and_80_columns(lang: str) -> None:
    """Item 18 in every language: the longest player line (`Počítač 1 (rozdávající)`) stays
    on its line and still no header loses its end (`Zdv…`, `Skó…`), nor does the score
    sheet (`Rozdá…`, `everyb…`); below 80 columns the sheet gives the margin as `+7`."""
    from client_cli.model import DealModel
    from client_cli.render import score_sheet_view

    msgs, _ = deal_stream(1, 0, take=True)
    m = TableModel(table="T1", seat=0)
    for msg in msgs:
        m.apply(msg)
        if m.deal is not None and m.deal.phase == "play" and len(m.deal.tricks) == 2:
            break
    assert m.deal is not None and m.deal.dealer not in (0, m.deal.taker)
    m.info["seats"][2]["name"] = "Bartholomew"
    m.series_start = 1
    m.deals[1] = DealModel(deal_no=1, result=_played_result(contract="garde_contre"))
    passed = {"status": "annulled", "reason": "all_passed", "scores": [0, 0, 0, 0]}
    m.deals[2] = DealModel(deal_no=2, result=passed)
    m.deals[3] = DealModel(deal_no=3, result=_played_result(taker=0, won=True, per_defender=30,
                                                            scores=[90, -30, -30, -30]))  # fmt: skip
    tr = Tr(lang)
    dealer = f"{tr('seat.ai', n=m.deal.dealer)} ({tr('seat.dealer')})"
    for width in (60, 80):
        shown = _render(table_view(m, tr, CS, width), width=width)
        assert "…" not in shown, shown
        assert any(dealer in ln for ln in shown.splitlines()), shown
        sheet = _render(score_sheet_view(m, tr, compact=width < 80), width=width)
        assert "…" not in sheet, sheet
        assert all(len(ln) <= width for ln in shown.splitlines() + sheet.splitlines())
    assert "+7" in _render(score_sheet_view(m, tr, compact=True), width=60)


def test_a_moving_table_is_resumed_with_the_same_token() -> None:
    """PROTOCOL.md 8: `table_moving` during a reconnection is retried with the same token (a
    `bad_token` would end it); a fake server refuses the first resuming hello that way."""
    import asyncio
    import json

    from websockets.asyncio.server import serve

    from client_cli.net import Link

    hellos: list[dict[str, Any]] = []

    async def handler(ws: Any) -> None:
        async for text in ws:
            msg = json.loads(text)
            hellos.append(msg)
            if msg.get("token") and len(hellos) == 2:  # the first reconnection: still moving
                details = {"table": "w0-t", "retry_after": 0.1}
                await ws.send(json.dumps({"type": "error", "id": "hello", "code": "table_moving",
                                          "message": "moving", "details": details}))  # fmt: skip
                continue
            resumed = {"table": "w0-t", "seat": 2} if msg.get("token") else None
            await ws.send(json.dumps({"type": "welcome", "id": msg.get("id"), "version": 1,
                                      "server": "fake", "resumed": resumed}))  # fmt: skip
            if len(hellos) == 1:
                await ws.close()  # drop the first connection: the client reconnects

    async def main() -> list[tuple[Any, ...]]:
        async with serve(handler, "127.0.0.1", 0, subprotocols=["atout.v1"]) as srv:  # type: ignore[list-item]
            port = srv.sockets[0].getsockname()[1]
            queue: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
            link = Link(f"ws://127.0.0.1:{port}", "Ann", queue, retry_for=10, first_delay=0.05)
            await link.open()
            link.token = "tok-123"
            news: list[tuple[Any, ...]] = []
            while not news or news[-1][:2] not in (("net", "resumed"), ("net", "fatal")):
                news.append(await asyncio.wait_for(queue.get(), 10))
            await link.close()
            return news

    news = asyncio.run(main())
    assert news[-1][:2] == ("net", "resumed"), news
    assert [h.get("token") for h in hellos] == [None, "tok-123", "tok-123"]

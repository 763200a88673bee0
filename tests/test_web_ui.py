"""The browser client's interface in Chromium: languages, settings, colours and contrast,
keyboard, phone and desktop widths, touch, motion, accessible names, the rules panel, and the
first-load figures."""

from __future__ import annotations

import time
from typing import Any

import pytest
from helpers_web import (  # fixtures by name
    LOCALES,
    ThreadServer,
    act_once,
    box,
    browse,
    browser,
    click_card,
    last_trick_overlaps,
    open_quick_game,
    play_until,
    raw_client_times,
    series_over,
    shots,
    state,
    trick_overlaps,
    unreachable_cards,
    untranslated,
    web_server,
)

WORDS = {  # words each language's pages must show (and the others not)
    "en": ("Play against 3 AI", "Contract", "pays"),
    "fr": ("Jouer contre 3 IA", "Contrat", "paie"),
    "cs": ("Hrát proti 3 počítačům", "Kontrakt", "platí"),
}


@pytest.mark.parametrize("lang", ["en", "fr", "cs"])
def test_each_language_renders_landing_table_and_sheet_untranslated_keys_free(
    browse: Any, web_server: ThreadServer, shots: Any, lang: str
) -> None:
    page = browse(locale=LOCALES[lang])  # the browser's language picks the default
    page.goto(web_server.url + "/")
    page.wait_for_selector("#play-ai")
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.input_value("#lang") == lang
    assert WORDS[lang][0] in page.inner_text("#play-ai")
    assert untranslated(page) == []
    page.screenshot(path=str(shots / f"landing-{lang}.png"), full_page=True)
    page.click("#open-rules")
    page.wait_for_selector("#dlg-rules[open] section")
    assert page.locator("#dlg-rules section p").count() > 10
    page.keyboard.press("Escape")
    page.click("#play-ai")
    page.wait_for_selector(".tableview .seat.me")
    assert untranslated(page) == []
    play_until([page], lambda: series_over(page))
    text = page.inner_text("#dlg-sheet")
    result = state(page)["result"]
    if result["status"] == "played":
        for w in WORDS[lang][1:]:
            assert w in text, (lang, w)
    page.screenshot(path=str(shots / f"score-sheet-{lang}.png"))
    assert untranslated(page) == [], untranslated(page)
    if result["status"] == "played":
        page.click("#open-review")
        for _ in range(4):
            page.click("#review-next")
        assert untranslated(page) == []
        # Every step of the review, and the deal told in sentences, read as the language
        # writes: verbs agree with "you", and Czech counts its points with the right plural.
        steps = page.locator("#review-jump option").count()
        texts = []
        for i in range(steps):
            page.select_option("#review-jump", str(i))
            texts.append(page.inner_text("#review"))
        texts.append(page.text_content("#log") or "")
        _check_grammar(lang, "\n".join(texts))
        assert untranslated(page) == []


# Sentences a player would never write: a verb that does not agree with "you" (the page says
# "you" for the player's own seat inside sentences made for a name), and Czech point counts.
BROKEN = {
    "en": [r"\byou (deals|leads|plays|wins|bids|passes|takes|has|shows)\b", r"; You\b"],
    "fr": [
        r"\b[Vv]ous (entame|remporte|distribue|joue|passe|prend|annonce|montre|a)\b",
        r"\bde [Vv]ous\b",
        r"; Vous\b",
    ],
    "cs": [
        r"\b(bere|vynáší|hraje|rozdává|hlásí|pasuje) [Vv]y\b",
        r"\b[Vv]y (hraje|bere|vynesl|hlásí)\b",
    ],
}


def _czech_points(n: str) -> str:
    x = float(n.replace(",", "."))
    if not x.is_integer():
        return "bodu"
    return {1: "bod", 2: "body", 3: "body", 4: "body"}.get(int(x), "bodů")


def _check_grammar(lang: str, text: str) -> None:
    import re

    for pattern in BROKEN[lang]:
        m = re.search(pattern, text)
        assert not m, (lang, pattern, text[max(0, m.start() - 80) : m.end() + 40])
    if lang == "cs":
        for n, word in re.findall(r"(\d+(?:,\d+)?) (bod|body|bodu|bodů)\b", text):
            assert word == _czech_points(n), (n, word)


def test_settings_change_the_page_and_persist_across_a_reload(
    browse: Any, web_server: ThreadServer
) -> None:
    page = browse()
    page.goto(web_server.url + "/")
    page.wait_for_selector("#play-ai")
    root = "getComputedStyle(document.documentElement)"
    before = page.evaluate(f"[{root}.getPropertyValue('--text'), {root}.getPropertyValue('--bg')]")
    assert page.evaluate("document.documentElement.dataset.scheme") == "light"
    page.click("#open-settings")
    for key in ("contrast", "grain", "temperature", "cardSize", "animation"):
        assert page.input_value(f"#set-{key}") == "50"  # 50 % by default, as on the rule card
    page.fill("#set-contrast", "100")
    page.fill("#set-temperature", "0")
    page.fill("#set-cardSize", "100")
    page.fill("#set-grain", "0")
    page.fill("#set-animation", "0")
    page.select_option("#set-scheme", "dark")
    page.select_option("#set-lang", "fr")
    page.wait_for_selector("#dlg-settings[open] #set-contrast")
    after = page.evaluate(f"[{root}.getPropertyValue('--text'), {root}.getPropertyValue('--bg')]")
    assert after != before
    assert page.evaluate("document.documentElement.dataset.scheme") == "dark"
    assert float(page.evaluate(f"{root}.getPropertyValue('--card-scale')")) == pytest.approx(1.3)
    assert page.evaluate(f"{root}.getPropertyValue('--anim')").strip() == "0ms"
    assert page.evaluate(f"{root}.getPropertyValue('--grain')").strip() == "0"
    page.reload()
    page.wait_for_selector("#play-ai")
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert "Jouer" in page.inner_text("#play-ai")
    assert page.evaluate("document.documentElement.dataset.scheme") == "dark"
    page.click("#open-settings")
    assert page.input_value("#set-contrast") == "100"
    assert page.input_value("#set-temperature") == "0"
    assert page.input_value("#set-cardSize") == "100"
    page.click("#set-reset")
    page.wait_for_selector("#dlg-settings[open] #set-contrast")
    assert page.input_value("#set-contrast") == "50"


def _luminance(rgb: list[float]) -> float:
    def ch(c: float) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (ch(x) for x in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _ratio(a: list[float], b: list[float]) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


# For each element with its own visible text: its colour and the first opaque background
# behind it (radial gradients count by their first colour stop, the felt's own colour).
_COLOURS_JS = """() => {
  const parse = (s) => { const m = s.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const bgOf = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      const c = parse(cs.backgroundColor);
      if (c && c[3] > 0.9) return c;
      const g = cs.backgroundImage.match(/rgba?\\([^)]+\\)/);
      if (g) return parse(g[0]);
    }
    return [255, 255, 255, 1];
  };
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg, .sr-only, [aria-disabled="true"], :disabled, dialog:not([open])')) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || Number(cs.opacity) < 1) continue;
    out.push({text: el.textContent.trim().slice(0, 40), fg: parse(cs.color), bg: bgOf(el)});
  }
  return out;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_default_colours_keep_a_contrast_of_at_least_4_5(
    browse: Any, web_server: ThreadServer, scheme: str
) -> None:
    page = browse(color_scheme=scheme)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#lobby-title")
    assert page.evaluate("document.documentElement.dataset.scheme") == scheme
    checked = 0
    for where in ("landing", "table"):
        if where == "table":
            page.click("#play-ai")
            page.wait_for_selector(".tableview .seat.me")
            play_until([page], lambda: (state(page).get("tricks") or 0) >= 1 or series_over(page))
            page.click("#open-rules")
            page.wait_for_selector("#dlg-rules[open] section")
            page.keyboard.press("Escape")
        for item in page.evaluate(_COLOURS_JS):
            ratio = _ratio(item["fg"], item["bg"])
            assert ratio >= 4.5, (scheme, where, item, round(ratio, 2))
            checked += 1
    assert checked > 40


def test_a_whole_deal_by_keyboard_with_visible_focus(browse: Any, web_server: ThreadServer) -> None:
    page = browse()
    page.goto(web_server.url + "/")
    page.wait_for_selector("#play-ai")
    page.focus("#name")
    page.keyboard.type("Kay")
    page.focus("#play-ai")
    page.keyboard.press("Enter")
    page.wait_for_selector(".tableview .seat.me")
    seen_focus = False
    deadline = time.monotonic() + 90
    while not series_over(page):
        assert time.monotonic() < deadline
        s = state(page)
        p = s.get("prompt")
        if p and p["phase"] == "chelem" and not page.locator("dialog[open]").count():
            try:
                page.focus(f'#action[data-prompt="{p["key"]}"] #chelem-no', timeout=3000)
                page.keyboard.press("Enter")
            except Exception as e:  # the prompt changed meanwhile: look again
                if "Timeout" not in type(e).__name__:
                    raise
                continue
            # Answered by the key: that prompt goes (else the keyboard did nothing: a failure).
            page.wait_for_function(
                "(v) => { const q = window.__atout.view.model.prompt;"
                " return !q || q.v !== v || q.legal.phase !== 'chelem'; }",
                arg=p["v"],
            )
            continue
        if (
            p
            and act_once(page, keyboard=True, poignee=False, key=p["key"]) == "play"
            and not seen_focus
        ):
            outline = page.evaluate(
                "(() => { const e = document.activeElement; return e && e.matches('.hand .card') ? getComputedStyle(e).outlineStyle : 'none'; })()"
            )
            seen_focus = outline != "none"
        page.wait_for_timeout(10)
    assert seen_focus, "the focused card shows no outline"
    # The sheet takes the focus; Escape closes it.
    page.keyboard.press("Escape")
    assert not page.locator("#dlg-sheet[open]").count()


def test_phone_width_with_touch(browse: Any, web_server: ThreadServer, shots: Any) -> None:
    # A small phone: 375 x 667 CSS pixels (iPhone SE), held upright.
    height = 667
    page = browse(
        viewport={"width": 375, "height": height},
        has_touch=True,
        is_mobile=True,
        device_scale_factor=2,
    )
    page.goto(web_server.url + "/")
    page.wait_for_selector("#play-ai")
    width = "document.documentElement.scrollWidth"
    assert page.evaluate(width) <= 375
    assert box(page, "#play-ai")["bottom"] <= height  # the one button, without scrolling
    page.screenshot(path=str(shots / "phone-landing.png"), full_page=True)
    page.tap("#play-ai")
    page.wait_for_selector(".tableview .seat.me")
    shot_taken = set()
    hand_top = None
    deadline = time.monotonic() + 90
    while not series_over(page):
        assert time.monotonic() < deadline
        s = state(page)
        p = s.get("prompt")
        if p and p["phase"] in ("bidding", "play", "discard") and p["phase"] not in shot_taken:
            page.wait_for_selector(f'#action[data-prompt="{p["key"]}"]')
            shot_taken.add(p["phase"])
            assert page.evaluate(width) <= 375, p["phase"]
            page.screenshot(path=str(shots / f"phone-{p['phase']}.png"))
            # The table, the decision and the whole hand on one screen, nothing to scroll.
            assert page.evaluate("scrollY") == 0, p["phase"]
            assert box(page, "#hand")["bottom"] <= height, (p["phase"], box(page, "#hand"))
            assert box(page, "#action")["bottom"] <= height, p["phase"]
            # Every card shows its index where a finger can reach it.
            assert unreachable_cards(page) == [], p["phase"]
            if p["phase"] == "play":
                # Cards are wide enough to read and to hit with a finger.
                card = page.locator(".hand .card").first.bounding_box()
                assert card and card["width"] >= 44
        if p and p["phase"] in ("play", "discard") and not page.locator("dialog[open]").count():
            # A line of cards covers little of the one above: the middle of each card's visible
            # strip is that card (a slightly low tap plays the card meant), and a hand that
            # fits on one line (12 cards) is on one line.
            assert _covered_middles(page) == [], p["phase"]
            n = page.locator(".hand .card").count()
            if n <= 12:
                assert page.get_attribute(".hand .cards", "data-rows") == "1", n
            # The trick's caption keeps who led or won (it wraps, it is not cut), and the side
            # seats say which AI they are.
            if page.locator("#trick-caption").count():
                cut = page.evaluate(
                    "(() => { const e = document.getElementById('trick-caption'); return e ? e.scrollHeight > e.clientHeight + 1 : false; })()"
                )
                assert not cut, page.inner_text("#trick-caption")
            for pos in ("left", "right"):
                assert f"({pos})" in page.inner_text(f"#seat-{pos} .seat-name"), pos
        if (
            p
            and p["phase"] == "play"
            and not p["legal"]["poignees"]
            and not page.locator("dialog[open]").count()
        ):
            # Your seat stays on one line whatever it says: the hand never moves while you play.
            try:
                page.wait_for_selector(f'#action[data-prompt="{p["key"]}"]', timeout=3000)
                top = box(page, "#hand")["y"]
                hand_top = top if hand_top is None else hand_top
                assert abs(top - hand_top) < 1, (top, hand_top)
                click_card(page, p["legal"]["plays"][0], tap=True, timeout=3000)
            except Exception as e:  # the page redrew under the tap (a new prompt): look again
                if "Timeout" not in type(e).__name__:
                    raise
            page.wait_for_timeout(30)
            continue
        # Only the prompt looked at above: a newer one is looked at on the next turn.
        if not (p and act_once(page, key=p["key"])):
            page.wait_for_timeout(25)
    page.screenshot(path=str(shots / "phone-score-sheet.png"))
    assert page.evaluate(width) <= 375


def _covered_middles(page: Any) -> list[str]:
    """Cards of the hand whose visible strip's middle (6 px in from the left edge, half-way
    down the part not covered by the line below) is another card, or nothing."""
    return page.evaluate(
        """() => { const cards = [...document.querySelectorAll('.hand .card')];
        return cards.filter((c) => {
            const r = c.getBoundingClientRect();
            const below = cards.filter((o) => o !== c && o.getBoundingClientRect().top > r.top + 2
                && o.getBoundingClientRect().left < r.left + 6 && o.getBoundingClientRect().right > r.left + 6);
            const bottom = Math.min(r.bottom, ...below.map((o) => o.getBoundingClientRect().top));
            if (bottom - r.top < r.height * 0.5) return true;  // less than half of it in view
            const hit = document.elementFromPoint(r.left + 6, (r.top + bottom) / 2);
            return !hit || hit.closest('.card') !== c;
        }).map((c) => c.dataset.card); }"""
    )


def test_desktop_1920(browse: Any, web_server: ThreadServer, shots: Any) -> None:
    page = browse(viewport={"width": 1920, "height": 1080})
    open_quick_game(page, web_server.url)
    play_until([page], lambda: (state(page).get("tricks") or 0) >= 2 or series_over(page))
    page.wait_for_timeout(100)
    page.screenshot(path=str(shots / "desktop-1920.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= 1920
    if not series_over(page):
        # The hand fits on one line at this width.
        tops = {
            round(b["y"])
            for b in (c.bounding_box() for c in page.locator(".hand .card").all())
            if b
        }
        assert len(tops) <= 2


def test_reduced_motion_and_the_colour_scheme_are_followed(
    browse: Any, web_server: ThreadServer
) -> None:
    page = browse(reduced_motion="reduce", color_scheme="dark")
    page.goto(web_server.url + "/")
    page.wait_for_selector("#play-ai")
    assert page.evaluate("document.documentElement.dataset.motion") == "off"
    assert page.evaluate("document.documentElement.dataset.scheme") == "dark"
    page.click("#open-settings")
    assert "reduced motion" in page.inner_text("#dlg-settings")
    page.keyboard.press("Escape")
    page.emulate_media(reduced_motion="no-preference", color_scheme="light")
    page.wait_for_function("() => document.documentElement.dataset.motion === 'on'")
    page.wait_for_function("() => document.documentElement.dataset.scheme === 'light'")


def test_accessible_names_for_cards_and_controls(browse: Any, web_server: ThreadServer) -> None:
    page = browse()
    open_quick_game(page, web_server.url)
    page.wait_for_selector(".hand .card")
    # Codes and names in one read: the hand may be redrawn (a card played) between two.
    pairs = page.locator(".hand .card").evaluate_all(
        "els => els.map(e => [e.dataset.card, e.getAttribute('aria-label')])"
    )
    codes = [c for c, _ in pairs]
    names = [n for _, n in pairs]
    expect = {
        "HQ": "queen of hearts",
        "T21": "trump 21",
        "EX": "the Excuse",
        "SK": "king of spades",
        "C1": "ace of clubs",
        "D7": "seven of diamonds",
        "T1": "the Petit (trump 1)",
    }
    for code, name in zip(codes, names, strict=True):
        assert name, code
        if code in expect:
            assert name.startswith(expect[code]), (code, name)
        if code in ("T1", "T21", "EX"):
            assert "oudler" in name
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('button, a, input, select')].filter((e) => {
            const label = e.getAttribute('aria-label') || e.textContent.trim() || (e.labels && e.labels.length && e.labels[0].textContent.trim());
            return !label; }).map((e) => e.outerHTML.slice(0, 80))"""
    )
    assert unnamed == []
    # The four seats are named groups, the one to act says so.
    groups = page.locator(".seat[role=group]").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert len(groups) == 4 and all(groups)


def test_rules_panel_from_the_landing_page_in_each_language(
    browse: Any, web_server: ThreadServer
) -> None:
    page = browse()
    page.goto(web_server.url + "/")
    page.wait_for_selector("#play-ai")
    for lang, title in (("fr", "Les règles"), ("cs", "Pravidla"), ("en", "The rules")):
        page.select_option("#lang", lang)
        page.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
        page.click("#open-rules")
        page.wait_for_selector("#dlg-rules[open] section")
        assert title in page.inner_text("#dlg-rules-title")
        body = page.inner_text("#dlg-rules")
        assert len(body) > 3000 and "R7.5" in body
        page.keyboard.press("Escape")
    assert untranslated(page) == []


def test_first_load_size_and_time_to_an_interactive_table(
    browse: Any, web_server: ThreadServer
) -> None:
    page = browse()
    sizes: dict[str, int] = {}

    def on_response(r: Any) -> None:
        if r.url.startswith("http"):
            sizes[r.url] = len(r.body())

    page.on("response", on_response)
    t0 = time.monotonic()
    page.goto(web_server.url + "/")
    page.wait_for_selector("#lobby-title")
    loaded = time.monotonic() - t0
    page.wait_for_load_state("networkidle")
    total = sum(sizes.values())
    t1 = time.monotonic()
    page.click("#play-ai")
    page.wait_for_selector(".hand .card")
    page.wait_for_function("() => window.__atout.view.model.deal !== null")
    interactive = time.monotonic() - t1
    base_first, _ = raw_client_times(web_server.port)
    print(
        f"\nFIGURE first load: {total / 1024:.1f} KiB uncompressed in {len(sizes)} requests, "
        f"landing ready in {loaded * 1000:.0f} ms; table interactive {interactive * 1000:.0f} ms "
        f"after the click; a bare protocol client's first deal_start: {base_first * 1000:.0f} ms "
        f"(ratio {interactive / max(base_first, 1e-6):.1f})"
    )
    assert total < 300 * 1024, sizes
    assert all(u.startswith(web_server.url) for u in sizes)
    # Every request of the page went to the server itself (the rest is blocked and reported).
    assert page.watch.blocked == []


def test_a_table_for_friends_with_a_turn_timer_and_ai_levels(
    browse: Any, web_server: ThreadServer
) -> None:
    page = browse()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=web_server.url)
    page.goto(web_server.url + "/")
    page.fill("#name", "Tim")
    page.click("#create-box summary")
    page.fill("#c-name", "Timed")
    page.check('input[name="c-public"][value="0"]')  # private: not in the lobby
    page.check('input[name="c-end"][value="score"]')
    page.fill("#c-target", "300")
    page.select_option("#c-timer", "30")
    page.select_option("#c-ai1", "easy")
    page.select_option("#c-ai3", "strong")
    page.click("#create-go")
    page.wait_for_selector("#invite-link")
    page.click("#copy-invite")
    page.wait_for_selector("#dlg-sheet, .notice")
    assert "copied" in page.inner_text(".waiting").lower()
    assert page.evaluate("navigator.clipboard.readText()") == page.input_value("#invite-link")
    assert "to 300" in page.inner_text("#deal-no")
    page.click("#start")
    page.wait_for_selector(".tableview[data-state=playing]")
    right = page.inner_text("#seat-right")
    left = page.inner_text("#seat-left")
    assert "Easy" in right and "Strong" in left, (right, left)
    # Our first decision shows the countdown of the table's turn timer.
    page.wait_for_function("() => window.__atout.view.model.prompt !== null", timeout=30_000)
    page.wait_for_selector("#timer-line")
    page.wait_for_function("() => /\\d+ s/.test(document.getElementById('timer-line').textContent)")
    left_s = int(page.inner_text("#timer-line").split()[0])
    assert 0 < left_s <= 30
    # The private table is not listed in the lobby.
    other = browse()
    other.goto(web_server.url + "/")
    other.wait_for_selector("#lobby-title")
    # The lobby's list loaded (empty or not) before looking for what it must not show.
    other.wait_for_selector("#lobby-empty, .lobby-table tbody tr")
    assert "Timed" not in other.inner_text(".lobby")


def test_a_bad_link_a_full_table_and_a_name_with_markup(
    browse: Any, web_server: ThreadServer
) -> None:
    page = browse()
    page.goto(web_server.url + "/#/t/NoSuchTable0")
    page.wait_for_selector("text=This table does not exist or is closed.")
    assert page.locator('a[href="#/"]').count()
    # A name is text, never markup, wherever it is shown (lobby, seats, sheet).
    evil = '<img src=x onerror="window.__pwned=1">'
    host = browse()
    host.goto(web_server.url + "/")
    host.fill("#name", evil[:32])
    host.click("#create-box summary")
    host.fill("#c-name", "<b>bold</b> table")
    host.uncheck("#c-sit")
    host.click("#create-go")
    host.wait_for_selector(".tableview")
    link = web_server.url + "/#/t/" + host.url.rsplit("/", 1)[1]
    players = []
    for name in ("P1", "P2", "P3", evil[:32]):
        p = browse()
        p.goto(web_server.url + "/")
        p.fill("#name", name)
        p.locator("#name").dispatch_event("change")
        p.goto(link)
        p.wait_for_selector(".tableview .seat.me")
        players.append(p)
    # A fifth person following the link finds four players seated and watches instead.
    late = browse()
    late.goto(link)
    late.wait_for_selector("text=Four players are already seated: you are watching.")
    assert late.locator(".hand .card").count() == 0
    seat_names = late.locator(".seat .seat-name").all_inner_texts()
    assert any(evil[:32] in n for n in seat_names), seat_names
    assert late.evaluate("window.__pwned") is None and late.locator(".seat img").count() == 0
    assert "<b>bold</b> table" in late.inner_text(".tv-title h1")


@pytest.mark.parametrize("size", ["100", "0"])
def test_card_size_extremes_keep_the_hand_reachable_and_the_trick_apart(
    browse: Any, web_server: ThreadServer, size: str
) -> None:
    page = browse()
    page.goto(web_server.url + "/")
    page.click("#open-settings")
    page.fill("#set-cardSize", size)
    # The preview in the settings follows at once (the page stays visible behind the dialog).
    w = page.evaluate(
        "document.querySelector('.settings-preview .mini').getBoundingClientRect().width"
    )
    page.fill("#set-cardSize", "50")
    w50 = page.evaluate(
        "document.querySelector('.settings-preview .mini').getBoundingClientRect().width"
    )
    assert (w > w50) if size == "100" else (w < w50)
    page.fill("#set-cardSize", size)
    page.keyboard.press("Escape")
    page.click("#play-ai")
    page.wait_for_selector(".tableview .seat.me")
    hand_top = None
    full = 0
    deadline = time.monotonic() + 60
    while (state(page).get("tricks") or 0) < 6 and not series_over(page):
        assert time.monotonic() < deadline
        p = state(page).get("prompt")
        if p and not page.locator("dialog[open]").count():
            page.wait_for_selector(f'#action[data-prompt="{p["key"]}"]')
            assert unreachable_cards(page) == [], (size, p["phase"])
            if p["phase"] == "play" and not p["legal"]["poignees"]:
                top = box(page, "#hand")["y"]
                hand_top = top if hand_top is None else hand_top
                assert abs(top - hand_top) < 1
                if page.locator("#trick li").count() == 4:
                    full += 1
                    assert trick_overlaps(page) == [], size
        # Only the prompt looked at above: a newer one is looked at on the next turn.
        if not (p and act_once(page, key=p["key"])):
            page.wait_for_timeout(25)
    if not full and not series_over(page):  # we led no trick: the last one, asked for
        page.wait_for_selector("#btn-last:enabled")
        assert last_trick_overlaps(page) == [], size


@pytest.mark.parametrize("size", [(1366, 768), (1280, 800)])
def test_a_laptop_screen_shows_the_whole_table_without_scrolling(
    browse: Any, web_server: ThreadServer, size: tuple[int, int]
) -> None:
    w, h = size
    page = browse(viewport={"width": w, "height": h})
    open_quick_game(page, web_server.url)
    checked = 0
    deadline = time.monotonic() + 60
    while checked < 3 and not series_over(page):
        assert time.monotonic() < deadline
        p = state(page).get("prompt")
        if (
            p
            and p["phase"] == "play"
            and not p["legal"]["poignees"]  # the offer at the first card takes a few lines
            and not page.locator("dialog[open]").count()
        ):
            page.wait_for_selector(f'#action[data-prompt="{p["key"]}"]')
            # The felt, the decision and the whole hand in the window (the side panel beside:
            # with a poignée shown it may be longer than the window, and the page scroll for it).
            if box(page, "aside.side")["bottom"] <= h:
                assert page.evaluate("document.documentElement.scrollHeight") <= h, size
            assert box(page, "#action")["bottom"] <= h
            assert box(page, "#hand")["bottom"] <= h
            checked += 1
        # Only the prompt looked at above: a newer one is looked at on the next turn.
        if not (p and act_once(page, key=p["key"])):
            page.wait_for_timeout(25)

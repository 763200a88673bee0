"""The browser client on a laptop's screen and after the browser's Back, in Chromium: the whole
hand stays in the window at every decision (bidding, the discard of 24 cards, the chelem, the
poignée offer, play), notes included, in each language; and the start page leads back to a
table where the browser still holds a seat."""

from __future__ import annotations

import time
from typing import Any

import pytest
from helpers_web import (  # fixtures by name
    LOCALES,
    PageWatch,
    ThreadServer,
    act_once,
    browse,
    browser,
    open_quick_game,
    out_of_window,
    state,
    web_server,
)

# Seed 339: the first table's seat 0 is dealt ten trumps (tests/test_web_play.py): it wins the
# bidding with a garde, so the player goes through every decision: the bid, the discard (24
# cards in hand), the chelem, the poignée offered with the first card, and play.
SEED = 339
PHASES = {"bidding", "discard", "chelem", "poignee", "play"}


def _refused_click(page: Any) -> bool:
    """Click a dimmed card of the hand (as a player might): the box then says why, in a note."""
    dim = page.locator(".hand .card.dim")
    if not dim.count():
        return False
    dim.first.click(position={"x": 8, "y": 10}, force=True)
    page.wait_for_selector("#notice")  # the server's refusal: a round trip
    page.wait_for_timeout(50)  # the next frame's layout
    return True


@pytest.mark.parametrize("lang", ["en", "fr", "cs"])
@pytest.mark.parametrize("size", [(1280, 800), (1366, 768)])
def test_the_whole_hand_is_in_the_window_at_every_decision_on_a_laptop(
    browser: Any, tmp_path: Any, size: tuple[int, int], lang: str
) -> None:
    w, h = size
    srv = ThreadServer(tmp_path / "laptop.db", seed=SEED).start()
    ctx = browser.new_context(viewport={"width": w, "height": h}, locale=LOCALES[lang])
    ctx.set_default_timeout(15_000)
    watch = PageWatch(srv.url)
    watch.attach_context(ctx)
    try:
        page = ctx.new_page()
        open_quick_game(page, srv.url)
        seen: set[str] = set()
        noted: set[str] = set()
        deadline = time.monotonic() + 90
        while not (seen >= PHASES and noted >= {"discard", "play"}):
            assert time.monotonic() < deadline, (seen, noted, state(page))
            s = state(page)
            assert s.get("phase") != "over", ("the deal ended first", seen)
            p = s.get("prompt")
            if p and not page.locator("dialog[open]").count():
                phase = "poignee" if p["phase"] == "play" and p["legal"]["poignees"] else p["phase"]
                if phase not in seen or (phase in ("discard", "play") and phase not in noted):
                    try:
                        page.wait_for_selector(f'#action[data-prompt="{p["key"]}"]', timeout=3000)
                    except Exception:
                        continue  # the prompt changed meanwhile: look again
                    page.wait_for_timeout(50)
                    assert out_of_window(page, h) == [], (size, lang, phase)
                    seen.add(phase)
                    # A refused card: the note it brings keeps the hand in the window.
                    if phase in ("discard", "play") and _refused_click(page):
                        assert out_of_window(page, h) == [], (size, lang, phase, "note")
                        noted.add(phase)
            # Only the prompt looked at above: a newer one is looked at on the next turn.
            if not (p and act_once(page, bid="garde", poignee=False, key=p["key"])):
                page.wait_for_timeout(25)
    finally:
        ctx.close()
        srv.stop()
    watch.check()


def test_back_during_a_deal_offers_the_way_back_to_the_table(
    browse: Any, web_server: ThreadServer
) -> None:
    page = browse(locale="cs-CZ", viewport={"width": 1280, "height": 800})
    open_quick_game(page, web_server.url, name="Běla")
    page.wait_for_function("() => window.__atout.view.model.deal")
    table_url = page.url
    before = state(page)
    # The browser's Back: the start page, which leads back to the seat the browser holds.
    page.go_back()
    page.wait_for_selector("#return-table")
    assert page.locator("#return-table").is_visible()
    assert (
        page.evaluate("document.getElementById('return-table').getBoundingClientRect().bottom")
        <= 800
    )  # at the top of the page, no scrolling
    assert "Zpět ke svému stolu" in page.inner_text("#return-table")
    assert "Stůl: Běla" in page.inner_text("#return-box")
    page.click("#return-table")
    page.wait_for_selector(".tableview .seat.me")
    assert page.url == table_url
    page.wait_for_function("() => window.__atout.view.model.deal")
    after = state(page)
    assert (after["seat"], after["deal_no"]) == (before["seat"], before["deal_no"])
    # A page opened afresh (another tab, the same browser) finds the seat too, in its language.
    other = page.context.new_page()
    other.goto(web_server.url + "/")
    other.wait_for_selector("#return-table")
    assert other.get_attribute("#return-table", "href") == "#/t/" + table_url.split("#/t/")[1]
    other.close()
    # Given up with "Leave", the seat is no longer offered.
    page.on("dialog", lambda d: d.accept())
    page.click("#btn-leave")
    page.wait_for_selector("#play-ai")
    page.wait_for_selector("#return-box[data-checked]", state="attached")
    assert page.locator("#return-table").count() == 0
    assert page.locator("#return-box").is_hidden()


def test_a_fresh_browser_shows_no_way_back(browse: Any, web_server: ThreadServer) -> None:
    page = browse()
    page.goto(web_server.url + "/")
    page.wait_for_selector("#return-box[data-checked]", state="attached")
    assert page.locator("#return-table").count() == 0
    assert page.locator("#return-box").is_hidden()

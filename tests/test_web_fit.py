"""What the table shows fits where it is drawn, in Chromium, in each language: the labels on the
trick's cards (who played, and "▸" who led) read whole and cover no card nor seat, the trick's caption
stays in the middle of the felt, on one line, off the seats; and on a small phone the poignée
offer and the whole hand are in the window, nothing to scroll."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
from helpers_web import (  # fixtures by name
    LOCALES,
    PageWatch,
    ThreadServer,
    act_once,
    browser,
    close_sheet,
    open_quick_game,
    out_of_window,
    state,
)

# Seed 339: the first table's seat 0 is dealt ten trumps (tests/test_web_play.py): it takes
# with a garde and is offered a poignée with its first card; the AI across leads the first
# trick, the others lead later ones.
SEED = 339
DEADLINE = 90  # seconds of play, on a slow loaded machine

# Everything that does not fit, in the trick in the middle of the felt, as readable strings
# (out), and where the leader of the trick shown sits if its label is shown (led).
TRICK_FIT = """() => {
    const out = [];
    const lead = document.querySelector('#trick .tcard.led');
    const shown = lead && getComputedStyle(lead.querySelector('.tlabel')).display !== 'none';
    const led = shown ? ['top', 'left', 'right', 'bottom'].find((p) => lead.classList.contains('at-' + p)) : null;
    const r = (e) => e.getBoundingClientRect();
    const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
        && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const cards = [...document.querySelectorAll('#trick .tcard')];
    for (const li of cards) {
        const l = li.querySelector('.tlabel');
        if (!l || getComputedStyle(l).display === 'none') continue;
        const what = li.className + ' "' + l.textContent + '"';
        if (l.scrollWidth > l.clientWidth + 0.5 || l.scrollHeight > l.clientHeight + 0.5)
            out.push('cut: ' + what + ' ' + l.scrollWidth + '/' + l.clientWidth + ' x '
                + l.scrollHeight + '/' + l.clientHeight);
        for (const o of cards)
            if (o !== li && meet(r(l), r(o.querySelector('.trick-card'))))
                out.push('covers a card: ' + what + ' over ' + o.className);
        for (const s of document.querySelectorAll('.felt .seat'))
            if (meet(r(l), r(s))) out.push('covers a seat: ' + what + ' over ' + s.id);
    }
    const c = document.getElementById('trick-caption');
    if (c) {
        const b = r(c), m = r(c.closest('.center'));
        const what = '"' + c.textContent + '"';
        if (c.scrollWidth > c.clientWidth + 0.5 || c.scrollHeight > c.clientHeight + 0.5)
            out.push('caption cut: ' + what);
        if (b.top < m.top - 0.5 || b.bottom > m.bottom + 0.5)
            out.push('caption out of the middle: ' + what + ' ' + Math.round(b.top) + '..'
                + Math.round(b.bottom) + ' in ' + Math.round(m.top) + '..' + Math.round(m.bottom));
        for (const s of document.querySelectorAll('.felt .seat'))
            if (meet(b, r(s))) out.push('caption over a seat: ' + what + ' ' + s.id);
    }
    return {out, led}; }"""


@contextlib.contextmanager
def _table(
    browser: Any,
    tmp_path: Any,
    lang: str,
    size: tuple[int, int],
    card_size: int | None = None,
    **opts: Any,
) -> Iterator[Any]:
    """A page at its quick game on a seeded server, in a watched context (no motion: cards in
    place when measured; the player's card size setting, 0-100, if given); both are closed
    at the end, and what went wrong in the browser is checked after a test that passed."""
    srv = ThreadServer(tmp_path / "fit.db", seed=SEED).start()
    w, h = size
    ctx = browser.new_context(
        viewport={"width": w, "height": h},
        locale=LOCALES[lang],
        reduced_motion="reduce",
        **opts,
    )
    watch = PageWatch(srv.url)
    try:
        ctx.set_default_timeout(15_000)
        if card_size is not None:  # as the settings dialog saves it (settings.js)
            ctx.add_init_script(  # in the server's pages only (about:blank has no storage)
                "if (location.protocol === 'http:') localStorage.setItem('atout.settings',"
                f" JSON.stringify({{cardSize: {card_size}}}))"
            )
        watch.attach_context(ctx)
        page = ctx.new_page()
        open_quick_game(page, srv.url)
        yield page
    finally:
        ctx.close()
        srv.stop()
    watch.check()


def _drawn(page: Any, p: dict[str, Any]) -> bool:
    """The page has drawn this prompt (it draws once per frame)."""
    try:
        page.wait_for_selector(f'#action[data-prompt="{p["key"]}"]', timeout=3000)
    except Exception:
        return False  # the prompt changed meanwhile: look again
    return True


@pytest.mark.parametrize("lang", ["en", "fr", "cs"])
@pytest.mark.parametrize(
    ("size", "card_size"),
    [
        ((1280, 800), None),
        ((1366, 768), None),
        ((1920, 1080), None),
        ((1280, 800), 0),  # the settings' smallest cards
        ((1280, 800), 100),  # and largest
    ],
)
def test_the_trick_labels_and_caption_fit_on_a_computer(
    browser: Any, tmp_path: Any, size: tuple[int, int], card_size: int | None, lang: str
) -> None:
    with _table(browser, tmp_path, lang, size, card_size) as page:
        led: set[str] = set()  # where the leader sat, of the tricks looked at
        deadline = time.monotonic() + DEADLINE
        while not ({"top", "side"} <= led):
            assert time.monotonic() < deadline, (led, state(page))
            s = state(page)
            assert s.get("phase") != "over", ("the deal ended first", led)
            p = s.get("prompt")
            if page.locator("dialog[open]").count():
                close_sheet(page)
            elif p and p["phase"] == "play" and _drawn(page, p):
                # One read of the page: it may redraw meanwhile (a trick held for a moment).
                fit = page.evaluate(TRICK_FIT)
                assert fit["out"] == [], (size, card_size, lang, s["tricks"])
                if fit["led"]:
                    led.add({"left": "side", "right": "side"}.get(fit["led"], fit["led"]))
            # Only the prompt looked at above: a newer one is looked at on the next turn.
            if not (p and act_once(page, poignee=False, key=p["key"])):
                page.wait_for_timeout(25)


@pytest.mark.parametrize("lang", ["en", "fr", "cs"])
def test_the_poignee_offer_and_the_hand_fit_a_small_phone(
    browser: Any, tmp_path: Any, lang: str
) -> None:
    # 375 x 667 CSS pixels (iPhone SE), held upright, touch: the offer comes with the hand of
    # 18 cards on two lines, and in Czech the top bar takes two lines.
    h = 667
    phone = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2}
    with _table(browser, tmp_path, lang, (375, h), **phone) as page:
        seen = False
        deadline = time.monotonic() + DEADLINE
        while not seen:
            assert time.monotonic() < deadline, state(page)
            s = state(page)
            assert s.get("phase") != "over", "the deal ended before the poignée was offered"
            p = s.get("prompt")
            if page.locator("dialog[open]").count():
                close_sheet(page)
            elif p and p["phase"] == "play" and p["legal"]["poignees"] and _drawn(page, p):
                page.wait_for_selector(".poignee-offer")
                assert out_of_window(page, h) == [], lang
                assert page.evaluate("document.documentElement.scrollWidth") <= 375
                seen = True
                continue
            if not (p and act_once(page, poignee=False, key=p["key"])):
                page.wait_for_timeout(25)

"""The browser client uses what the server offers, each in Chromium against a real server:
the lobby a page at a time (`tables.next`/`total`), the AI levels of `welcome`/`table_created`,
earlier deals through the `deal` request after a reload, the turn limit's countdown at every
decision (`your_turn.timer`), a seat released after repeated timeouts (`seat` event with
`reason: "timeouts"`), and the close codes 4010 (too many connections from one address) and
4008 (a connection that read too slowly) in the reconnection."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from helpers_web import (  # fixtures by name
    Bare,
    PageWatch,
    ThreadServer,
    act_once,
    browse,
    browser,
    open_quick_game,
    play_until,
    state,
    web_server,
)


@contextlib.contextmanager
def own_server(
    browser: Any, tmp_path: Path, **overrides: Any
) -> Iterator[tuple[ThreadServer, Callable[..., Any]]]:
    """A server with its own settings, and watched pages on it (checked at the end)."""
    srv = ThreadServer(tmp_path / "own.db", **overrides).start()
    watches: list[PageWatch] = []
    contexts: list[Any] = []

    def new_page(**opts: Any) -> Any:
        opts.setdefault("viewport", {"width": 1280, "height": 900})
        opts.setdefault("locale", "en-GB")
        ctx = browser.new_context(**opts)
        ctx.set_default_timeout(15_000)
        w = PageWatch(srv.url)
        w.attach_context(ctx)
        watches.append(w)
        contexts.append(ctx)
        return ctx.new_page()

    try:
        yield srv, new_page
    finally:
        for ctx in contexts:
            with contextlib.suppress(Exception):
                ctx.close()
        srv.stop()
    for w in watches:
        w.check()


def test_the_lobby_shows_a_page_of_tables_and_the_rest_on_request(
    browser: Any, tmp_path: Path
) -> None:
    with own_server(browser, tmp_path) as (srv, new_page):
        # 26 public tables from two connections (20 per connection at most), which stay
        # connected: a table nobody sits at is closed once its creator has gone.
        makers = [Bare(srv.port, "maker") for _ in range(2)]
        try:
            for i in range(26):
                ans = makers[i % 2].ask(
                    {"type": "create_table", "name": f"Table {i:02d}", "deals": 1}
                )
                assert ans["type"] == "table_created", ans
            page = new_page()
            page.goto(srv.url + "/")
            page.wait_for_selector(".lobby-table tbody tr")
            rows = page.locator(".lobby-table tbody tr")
            assert rows.count() == 20  # one page (list_tables.limit)
            assert "Showing 20 of 26 tables" in page.inner_text("#lobby-count")
            assert page.inner_text("#lobby-more") == "Show 6 more"
            page.click("#lobby-more")
            page.wait_for_function(
                "() => document.querySelectorAll('.lobby-table tbody tr').length === 26"
            )
            assert page.locator("#lobby-more").count() == 0  # the last page: next is null
            names = [n.split("\t")[0] for n in rows.all_inner_texts()]
            assert sorted(names) == [f"Table {i:02d}" for i in range(26)]  # each once
            # Refresh starts again from the first page.
            page.click("#lobby-refresh")
            page.wait_for_function(
                "() => document.querySelectorAll('.lobby-table tbody tr').length === 20"
            )
        finally:
            for m in makers:
                m.close()


def test_ai_levels_are_the_servers_described_in_the_players_language(
    browse: Any, web_server: ThreadServer
) -> None:
    page = browse(locale="fr-FR")
    page.goto(web_server.url + "/")
    page.wait_for_selector("#lobby-title")
    # The lobby is drawn while the connection opens: the server's levels come with its welcome.
    page.wait_for_function("() => window.__atout?.conn?.welcome")
    offered = page.evaluate(
        "(window.__atout.conn.welcome.ai_levels || []).map((x) => x.level)"
    ) or ["easy", "normal", "strong"]  # a server that does not list them: the usual three
    page.wait_for_function(
        "(want) => JSON.stringify([...document.querySelectorAll('#level option')]"
        ".map((e) => e.value)) === JSON.stringify(want)",
        arg=offered,
    )
    assert page.input_value("#level") == "normal"  # the club player by default
    descriptions = {}
    for level in offered:
        page.select_option("#level", level)
        descriptions[level] = page.inner_text("#level-desc")
    assert "joueur de club" in descriptions["normal"]
    assert "Anticipe" in descriptions["strong"]
    assert len(set(descriptions.values())) == len(offered)
    # The same levels, described, for each empty seat of a table for friends.
    page.click("#create-box summary")
    for sel in ("#c-ai1", "#c-ai2", "#c-ai3"):
        assert (
            page.locator(f"{sel} option").evaluate_all("els => els.map((e) => e.value)") == offered
        )
    # The table plays with the level chosen, and its seats say which.
    page.select_option("#level", "easy")
    page.click("#play-ai")
    page.wait_for_selector(".tableview .seat.me")
    for where in ("right", "top", "left"):
        assert "Facile" in page.inner_text(f"#seat-{where}")
    # table_created repeats the levels; the page keeps them when the server sends them.
    kept = page.evaluate("window.__atout.levels && window.__atout.levels.map((x) => x.level)")
    assert kept in (None, offered)


def test_an_earlier_deal_is_reviewed_after_a_reload_through_the_deal_request(
    browse: Any, web_server: ThreadServer
) -> None:
    page = browse()
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(str(f))))
    page.goto(web_server.url + "/")
    page.fill("#name", "Rita")
    page.click("#create-box summary")
    page.fill("#c-deals", "2")
    page.click("#create-go")
    page.click("#start")
    deadline = time.monotonic() + 90
    while not state(page).get("history"):
        assert time.monotonic() < deadline, state(page)
        if not act_once(page):
            page.wait_for_timeout(25)
    first = state(page)["result"]
    page.click("#sheet-close")
    page.wait_for_function("() => window.__atout.view.model.info.deal_no >= 2")
    # A reload mid-deal: the page knows nothing of deal 1 but its number.
    page.reload()
    # Right after the reload the page has no view yet: the predicate must not throw meanwhile.
    page.wait_for_function("() => window.__atout?.view?.model?.deal?.hand")
    assert page.evaluate("window.__atout.view.model.lastResult") is None
    page.click('[data-key="past-1"]')
    if first["status"] == "played":
        page.wait_for_selector("#dlg-review[open] #review-step")
        assert "Deal 1" in page.inner_text("#dlg-review-title")
        page.keyboard.press("End")  # straight to the count
        final = page.inner_text("#review-final")
        assert f"{first['taker_points']:g}" in final.replace(",", "."), final
        page.keyboard.press("Escape")
    else:  # a deal nobody took, or a petit sec: nothing to step through, and it says so
        page.wait_for_selector("#notice")
        assert "annulled" in page.inner_text("#notice")
    # The record came through the `deal` request (checked once its answer is shown: the frame
    # sent is recorded by an event handler, which may run after the click has returned).
    assert any(
        '"type":"deal"' in f.replace(" ", "") and '"deal_no":1' in f.replace(" ", "") for f in sent
    )


def test_the_turn_limit_counts_down_at_every_decision(
    browse: Any, web_server: ThreadServer
) -> None:
    # No table timer: the server's turn limit (60 s) applies to every decision.
    page = browse()
    open_quick_game(page, web_server.url)
    seen: set[str] = set()
    deadline = time.monotonic() + 60
    while len(seen) < 2:
        assert time.monotonic() < deadline, state(page)
        p = state(page).get("prompt")
        if p and p["phase"] not in seen:
            page.wait_for_selector(f'#action[data-prompt="{p["key"]}"] #timer-line')
            line = page.inner_text("#timer-line")
            left = int(line.split()[0])
            assert 0 < left <= 60 and "before the AI plays for you" in line, line
            assert page.inner_text("#seat-bottom #timer").endswith(" s")
            # Redrawn, the countdown is never blank, not even until the next tick.
            blank = page.evaluate(
                "() => { window.__atout.view.renderNow(); return document.getElementById('timer-line').textContent === ''; }"
            )
            assert not blank
            seen.add(p["phase"])
        # Only the prompt looked at above: a newer one is looked at on the next turn.
        if not (p and act_once(page, key=p["key"])):
            page.wait_for_timeout(25)


def test_a_seat_released_after_timeouts_says_so_and_offers_to_sit_again(
    browser: Any, tmp_path: Path
) -> None:
    # A short turn limit, two turns in a row played by the AI: then the seat is released. The
    # AI take their time (0.25 s a card), and the game has four deals, so that the table still
    # plays when we sit again (a loaded machine may have finished the first deal by then).
    with own_server(browser, tmp_path, turn_limit=0.4, max_timeouts=2, think_delay=0.25) as (
        srv,
        new_page,
    ):
        page = new_page()
        open_quick_game(page, srv.url, name="Idle", series="d4")
        tid = page.url.rsplit("/", 1)[1]
        page.wait_for_selector("#sit-again", timeout=20_000)  # we never act
        notice = page.inner_text("#notice")
        assert "AI had to play your last turns" in notice and "watching" in notice, notice
        s = state(page)
        assert s["seat"] is None and s["status"] == "watching"
        assert page.locator(".hand .card").count() == 0
        assert "Spectator" in page.inner_text(".tv-bar")
        token = page.evaluate(
            f"JSON.parse(localStorage.getItem('atout.seats'))[{json.dumps(tid)}].token"
        )
        assert token is None  # the released token is forgotten
        assert page.evaluate("window.__atout.view.log.some((x) => x.k === 'log.seat_released')")
        # A deal that ends meanwhile opens its sheet over the page, at any moment (even between
        # a look and the click): closed whenever it stands in the way, as a player would.
        page.add_locator_handler(
            page.locator("#dlg-sheet[open]"), lambda: page.locator("#sheet-close").click()
        )
        page.click("#sit-again")
        page.wait_for_function("() => window.__atout.view.model.seat !== null")
        assert state(page)["status"] == "joined"
        page.wait_for_selector(".tableview .seat.me")


def test_too_many_connections_from_one_address_is_explained_and_retried(
    browser: Any, tmp_path: Path
) -> None:
    with own_server(browser, tmp_path, max_connections_per_address=1) as (srv, new_page):
        first = new_page()
        first.goto(srv.url + "/")
        first.wait_for_selector("#lobby-empty")
        second = new_page()
        second.goto(srv.url + "/")
        second.wait_for_selector("#lobby-error")
        assert "Too many connections from your address" in second.inner_text("#lobby-error")
        first.context.close()  # its connection goes: now there is room
        deadline = time.monotonic() + 15
        while not second.locator("#lobby-empty").count():
            assert time.monotonic() < deadline
            if second.locator("#lobby-retry").count():
                second.click("#lobby-retry")
            second.wait_for_timeout(200)


def test_a_slow_consumer_close_resumes_at_once_with_the_events_missed(
    browse: Any, web_server: ThreadServer
) -> None:
    from protocol.errors import CloseCode

    page = browse()
    open_quick_game(page, web_server.url, name="Slow")
    play_until([page], lambda: (state(page).get("tricks") or 0) >= 1)
    before = state(page)
    snapshots = page.evaluate("window.__atout.view.model.snapshots")

    def close_like_an_overflow() -> int:
        n = 0
        for sess in list(web_server.server.lobby.sessions.values()):
            if sess.name == "Slow":
                sess.abort(CloseCode.SLOW_CONSUMER, "slow consumer: outgoing queue overflow")
                n += 1
        return n

    # The connection's state changes, each with what it decided (the retry's delay).
    page.evaluate(
        "() => { window.__states = []; window.__atout.conn.addEventListener('state',"
        " (e) => window.__states.push(e.detail)); }"
    )
    assert web_server.call(close_like_an_overflow) >= 1
    # The client reconnects within 75-125 ms of a 4008 (net.js, retryDelay): too quick to be
    # sure to see it reconnecting; the close code it got stays (Connection.lastClose).
    page.wait_for_function("() => window.__atout.conn.lastClose === 4008")
    page.wait_for_function("() => window.__atout.view.connState === 'open'", timeout=30_000)
    # At once: the retry the client chose for a 4008 waits no more than 125 ms (a loaded
    # machine may take longer to reconnect; the delay chosen is what the client controls).
    retries = [d for d in page.evaluate("window.__states") if d.get("code") == 4008]
    assert retries and retries[0]["delay"] <= 125, retries
    page.wait_for_selector("#banner.banner-space", state="attached")
    after = state(page)
    assert after["seat"] == before["seat"] and after["status"] == "joined"
    # Resumed with the last version seen: the missed events, not a fresh snapshot.
    assert page.evaluate("window.__atout.view.model.snapshots") == snapshots
    assert after["v"] >= before["v"]
    play_until([page], lambda: bool(state(page).get("sheet")))

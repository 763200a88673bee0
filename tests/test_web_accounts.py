"""Accounts in the browser (issue 12 section 1, PROTOCOL.md section 13), each in Chromium
against a real server with a database: register, play a deal to its score sheet with the par,
reload and still be that player; profile, history and leaderboard; log out; a wrong password
and a taken name in the player's language; a key revoked elsewhere. The player key stays in
localStorage and in hello: never in the page, never in a URL, never in another message."""

from __future__ import annotations

import json
from typing import Any

from helpers_web import (  # fixtures by name
    Bare,
    ThreadServer,
    browse,
    browser,
    play_until,
    shots,
    state,
    untranslated,
    web_server,
)

PASSWORD = "a long secret"


def _stored_key(page: Any) -> str | None:
    raw = page.evaluate("localStorage.getItem('atout.player')")
    return json.loads(raw)["key"] if raw else None


def _register(page: Any, name: str, password: str | None = PASSWORD) -> None:
    page.click("#open-account")
    page.click("#tab-register")
    page.fill("#acc-name", name)
    if password is not None:
        page.fill("#acc-password", password)
    page.click("#account-go")


def _frames(page: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(json.loads(f))))
    return sent


def test_register_play_reload_still_logged_in_then_log_out(
    browse: Any, web_server: ThreadServer, shots: Any
) -> None:
    page = browse()
    sent = _frames(page)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#lobby-title")
    assert page.inner_text("#open-account") == "Log in"
    _register(page, "Marie")
    page.wait_for_selector("#profile-facts")
    key = _stored_key(page)
    assert key and len(key) >= 22  # at least 128 bits, as the server made it
    assert page.inner_text("#dlg-account-title") == "Marie"
    assert "none yet" in page.inner_text("#profile-rating")
    assert untranslated(page) == []
    page.keyboard.press("Escape")
    assert page.inner_text("#open-account") == "Marie"
    assert (
        page.input_value("#name") == "Marie" and page.get_attribute("#name", "readonly") is not None
    )

    # A deal against three AI, as this player; the sheet gets the par when the server has it.
    page.click("#play-ai")
    page.wait_for_selector(".tableview .seat.me")
    play_until([page], lambda: bool(state(page).get("sheet")))
    result = state(page)["result"]
    seat = state(page)["seat"]
    # The deals this page saw finish: one, or more when an annulled deal was dealt again
    # (R3.1, R3.2); each is a finished deal of the player's (its history, its profile).
    finished = len(state(page)["history"])
    assert finished >= 1
    if result["status"] == "played":
        page.wait_for_selector("#par-mine", timeout=90_000)  # the server's review, queued
        line = page.inner_text("#par-mine")
        assert "against par" in line and "with these cards" in line, line
        assert page.locator("#par-table tbody tr").count() == 4
        page.screenshot(path=str(shots / "sheet-par.png"))
    assert untranslated(page) == []
    page.keyboard.press("Escape")

    # A reload: the same player, from the stored key sent in hello.
    hellos_before = sum(1 for f in sent if f.get("type") == "hello")
    page.reload()
    page.wait_for_function("() => window.__atout.player && window.__atout.player.name === 'Marie'")
    page.wait_for_function(
        "() => window.__atout.conn && window.__atout.conn.welcome && window.__atout.conn.welcome.player"
    )
    assert page.evaluate("window.__atout.conn.welcome.player.name") == "Marie"
    hellos = [f for f in sent if f.get("type") == "hello"]
    assert "key" not in hellos[0]  # the first page was a guest's
    assert len(hellos) > hellos_before and all(f.get("key") == key for f in hellos[hellos_before:])
    # The key goes nowhere else: not in another message, the page, its address or its title.
    assert not any(key in json.dumps(f) for f in sent if f.get("type") != "hello")
    for where in (page.content(), page.url, page.title()):
        assert key not in where

    # Profile, history, leaderboard (from the table's page: its game is over, its sheet up).
    page.wait_for_selector("#dlg-sheet[open]")
    page.keyboard.press("Escape")
    page.click("#open-account")
    page.wait_for_selector("#profile-facts")
    assert page.inner_text("#profile-deals").startswith(f"{finished} finished")
    page.click("#open-history")
    page.wait_for_selector("#history-table")
    rows = page.locator("#history-table tbody tr")
    assert rows.count() == finished
    if result["status"] == "played":
        score = result["scores"][seat]
        expected = ("+" if score > 0 else "−" if score < 0 else "") + f"{abs(score):g}"
        assert rows.first.locator("td.num").first.inner_text() == expected
    page.screenshot(path=str(shots / "history.png"))
    if result["status"] == "played":
        # The deal again, step by step, through the `deal` request; "you" in your seat.
        rows.first.locator(".review-past").click()
        page.wait_for_selector("#dlg-review[open] #review-step")
        page.keyboard.press("End")
        assert page.inner_text("#review-final")
        assert untranslated(page) == []
        page.keyboard.press("Escape")
        page.wait_for_selector("#dlg-review", state="detached")
    page.keyboard.press("Escape")
    page.click("#open-account")
    page.click("#open-leaderboard")
    page.wait_for_selector("#leaderboard")
    page.select_option("#board-by", "total")
    page.wait_for_selector("#board-table")
    assert "Marie" in page.inner_text("#board-table")
    page.screenshot(path=str(shots / "leaderboard.png"))
    assert untranslated(page) == []
    page.keyboard.press("Escape")

    # Log out: a guest again, the key gone from the browser and from the server.
    page.click("#open-account")
    page.click("#logout")
    page.wait_for_function("() => !window.__atout.player")
    assert page.inner_text("#open-account") == "Log in"
    assert _stored_key(page) is None
    probe = Bare(web_server.port, "probe")
    try:
        ans = probe.ask({"type": "player", "name": "Marie"})
        assert ans["type"] == "player"  # the account stays
    finally:
        probe.close()
    page.goto(web_server.url + "/")
    page.wait_for_selector("#lobby-title")
    page.reload()  # a fresh page, a fresh hello: a guest's
    page.wait_for_selector("#lobby-title")
    page.wait_for_function("() => window.__atout.conn && window.__atout.conn.welcome")
    assert page.evaluate("window.__atout.conn.welcome.player") is None
    assert "key" not in [f for f in sent if f.get("type") == "hello"][-1]


def test_a_wrong_password_and_a_taken_name_are_explained_in_french(
    browse: Any, web_server: ThreadServer
) -> None:
    first = browse()
    first.goto(web_server.url + "/")
    _register(first, "Léa")
    first.wait_for_selector("#profile-facts")

    page = browse(locale="fr-FR")
    page.goto(web_server.url + "/")
    page.wait_for_selector("#lobby-title")
    assert page.inner_text("#open-account") == "Se connecter"
    page.click("#open-account")
    page.fill("#acc-name", "léa")  # names compare without case
    page.fill("#acc-password", "not the password")
    page.click("#account-go")
    page.wait_for_function("() => document.getElementById('account-error').textContent !== ''")
    assert page.inner_text("#account-error") == "Nom ou mot de passe incorrect."
    assert page.input_value("#acc-password") == ""  # typed again, not kept
    assert _stored_key(page) is None and page.evaluate("window.__atout.player") is None
    # The same name cannot be registered twice.
    page.click("#tab-register")
    page.fill("#acc-name", "LÉA")
    page.click("#account-go")
    page.wait_for_function("() => document.getElementById('account-error').textContent !== ''")
    assert "déjà celui d'un compte" in page.inner_text("#account-error")
    # The right password: a second device of the same account.
    page.click("#tab-login")
    page.fill("#acc-name", "léa")
    page.fill("#acc-password", PASSWORD)
    page.click("#account-go")
    page.wait_for_selector("#profile-facts")
    assert page.inner_text("#dlg-account-title") == "Léa"
    assert _stored_key(page) not in (None, _stored_key(first))  # a key of its own
    assert untranslated(page) == []


def test_a_key_revoked_elsewhere_makes_a_guest_and_says_so(
    browse: Any, web_server: ThreadServer
) -> None:
    page = browse(locale="cs-CZ")
    page.goto(web_server.url + "/")
    _register(page, "Honza", password=None)  # no password: this browser is the only way in
    page.wait_for_selector("#profile-facts")
    key = _stored_key(page)
    assert key
    # Another device (here a bare client holding the key) logs that key out.
    other = Bare(web_server.port, "other")
    try:
        assert other.ask({"type": "logout", "key": key})["type"] == "ok"
    finally:
        other.close()
    page.reload()
    # The page starts as Honza (the stored key), until the server refuses the key.
    page.wait_for_function(
        "() => window.__atout.conn && window.__atout.conn.welcome && !window.__atout.player"
    )
    assert "přihlaste se znovu" in page.inner_text("#name-hint")
    assert _stored_key(page) is None
    assert page.inner_text("#open-account") == "Přihlásit se"
    assert page.evaluate("window.__atout.conn.welcome.player") is None
    assert untranslated(page) == []

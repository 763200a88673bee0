"""Helpers for the browser tests (tests/test_web_*.py): a real Atout server on 127.0.0.1 (port 0)
running in a thread, Debian's Chromium driven by Playwright (pytest-playwright), pages that
fail their test on any console error, page error or failed request, and network access to
anything but the server blocked.

Chromium is found on PATH (``chromium``) or through ``ATOUT_CHROMIUM``; Playwright never
downloads a browser. Without one the browser tests skip, saying how to get it, unless
``ATOUT_REQUIRE_BROWSER=1`` (CI), where they fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_server import check_no_ai_failures

CHROMIUM_ARGS = [
    "--no-sandbox",  # we run as root in CI
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    # Nothing but the loopback server resolves: the page must not need anything else.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
HINT = (
    "browser tests need Chromium: `apt-get install -y chromium` (Debian), or point ATOUT_CHROMIUM "
    "at a Chromium binary; CI sets ATOUT_REQUIRE_BROWSER=1 to make them mandatory"
)


def chromium_path() -> str | None:
    env = os.environ.get("ATOUT_CHROMIUM")
    if env:
        return env if Path(env).exists() else None
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    return None


def _require_browser() -> str:
    path = chromium_path()
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        path = None
    if path is None:
        if os.environ.get("ATOUT_REQUIRE_BROWSER") == "1":
            pytest.fail("ATOUT_REQUIRE_BROWSER=1 but no Chromium/Playwright: " + HINT)
        pytest.skip(HINT)
    return path


# -------------------------------------------------------------------------------- the server


class ThreadServer:
    """An Atout server (the real one, with its web client) in a thread with its own loop."""

    def __init__(self, db: Path | None = None, **overrides: Any) -> None:
        # absent_wait: a page that reloads or reconnects is absent meanwhile; on a loaded
        # machine that can outlast the usual 5 s, after which the AI would take over the seat
        # and play the rest of the deal at once (think_delay 0) behind the test's back.
        self.overrides = {
            "port": 0,
            "think_delay": 0.0,
            "deal_pause": 0.0,
            "absent_wait": 60.0,
            **overrides,
        }
        self.db = db
        self.port = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self.server: Any = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="atout-test-server", daemon=True)

    def _run(self) -> None:
        async def main() -> None:
            from server.config import Config
            from server.net.app import Server

            store = None
            if self.db is not None:
                from server.store.aio import AsyncStore

                store = AsyncStore(str(self.db))
            self.server = Server(Config(**self.overrides), store)
            self.port = await self.server.start()
            self.loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self._ready.set()
            await self._stop.wait()
            await self.server.stop()

        try:
            asyncio.run(main())
        except BaseException as e:  # surfaced by start()
            self._error = e
            self._ready.set()

    def start(self) -> ThreadServer:
        self._thread.start()
        self._ready.wait(20)
        if self._error:
            raise self._error
        return self

    def stop(self) -> None:
        if self.loop and self._stop:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(20)
        if self.server is not None:  # as running_server does
            check_no_ai_failures(self.server)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run fn on the server's loop and return its result."""
        assert self.loop is not None

        async def wrap() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(wrap(), self.loop).result(10)

    def drop_connections(self) -> int:
        """Cut every client connection at the TCP level (no close frame): a network drop."""

        def cut() -> int:
            n = 0
            for sess in list(self.server.lobby.sessions.values()):
                transport = getattr(sess.ws, "transport", None)
                if transport is not None:
                    transport.abort()
                    n += 1
            return n

        return int(self.call(cut))


# -------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def browser(pytestconfig: pytest.Config) -> Iterator[Any]:
    """Debian's Chromium, one per test module.

    pytest-playwright's own ``browser`` is session-wide, and its Playwright loop would then stay
    current in the main thread for the rest of the run, breaking every asyncio test collected
    after a browser test; a module-scoped one is gone when the module ends. Its command-line
    options (``--headed``, ``--slowmo``) still apply."""
    path = _require_browser()
    from playwright.sync_api import sync_playwright

    headed = bool(_option(pytestconfig, "--headed", False))
    slowmo = float(_option(pytestconfig, "--slowmo", 0) or 0)
    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=path, args=CHROMIUM_ARGS, headless=not headed, slow_mo=slowmo
        )
        yield b
        b.close()


def _option(config: pytest.Config, name: str, default: Any) -> Any:
    try:
        return config.getoption(name)
    except ValueError:
        return default


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    _require_browser()
    srv = ThreadServer(tmp_path_factory.mktemp("webdb") / "atout.db").start()
    yield srv
    srv.stop()


class PageWatch:
    """Everything that went wrong in a browser context: console errors, page errors, failed
    requests, and attempts to reach anything but the server (blocked)."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.problems: list[str] = []
        self.blocked: list[str] = []
        self.requests: list[tuple[str, int]] = []  # (url, bytes)
        self.navigations = 0  # of the pages' main frames
        self.aborted: list[tuple[int, str]] = []  # (navigations before it, what)

    def attach_context(self, ctx: Any) -> None:
        def route(r: Any) -> None:
            url = r.request.url
            if url.startswith(self.origin + "/") or url == self.origin:
                r.continue_()
            else:
                self.blocked.append(url)
                r.abort("blockedbyclient")

        ctx.route("**/*", route)
        ctx.on("page", self.attach_page)

    def attach_page(self, page: Any) -> None:
        page.on("console", lambda m: self._console(m))
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: self._failed(r))
        page.on("framenavigated", lambda f: self._navigated(f))

    def _navigated(self, frame: Any) -> None:
        if frame.parent_frame is None:
            self.navigations += 1

    def _console(self, m: Any) -> None:
        if m.type in ("error", "warning") and "ERR_CONNECTION_REFUSED" not in m.text:
            self.problems.append(f"console {m.type}: {m.text}")

    def _failed(self, r: Any) -> None:
        # A WebSocket cut on purpose by a test is not a failed request of the page.
        if r.url.startswith("ws"):
            return
        if "ERR_ABORTED" in str(r.failure):  # cancelled: by a navigation, if one follows it
            self.aborted.append((self.navigations, f"request failed: {r.url} {r.failure}"))
            return
        self.problems.append(f"request failed: {r.url} {r.failure}")

    def check(self) -> None:
        assert not self.blocked, f"the page tried to reach outside the server: {self.blocked}"
        # A reload (or any navigation) cancels the requests still in flight: not a failure.
        problems = self.problems + [p for n, p in self.aborted if n == self.navigations]
        assert not problems, "\n".join(problems)


@pytest.fixture
def browse(browser: Any, web_server: ThreadServer) -> Iterator[Callable[..., Any]]:
    """browse(**context_options) -> a new page in a fresh context, watched; checked at the end."""
    watches: list[PageWatch] = []
    contexts: list[Any] = []

    def new_page(**opts: Any) -> Any:
        opts.setdefault("viewport", {"width": 1280, "height": 900})
        opts.setdefault("locale", "en-GB")
        ctx = browser.new_context(**opts)
        ctx.set_default_timeout(15_000)
        w = PageWatch(web_server.url)
        w.attach_context(ctx)
        watches.append(w)
        contexts.append(ctx)
        page = ctx.new_page()
        page.watch = w  # type: ignore[attr-defined]
        return page

    yield new_page
    for ctx in contexts:
        with contextlib.suppress(Exception):
            ctx.close()
    for w in watches:
        w.check()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go (test artefacts): ATOUT_SCREENSHOTS, else a temporary folder."""
    d = os.environ.get("ATOUT_SCREENSHOTS")
    path = Path(d) if d else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


# -------------------------------------------------------------------------------- playing


def state(page: Any) -> dict[str, Any]:
    """What the page's table model says (read only: the tests act through the interface)."""
    return page.evaluate(
        """() => {
        const v = window.__atout && window.__atout.view;
        if (!v || !v.model) return {view: null};
        const m = v.model;
        return {
          view: 'table', seat: m.seat, v: m.v, status: v.status,
          state: m.info && m.info.state, phase: m.deal && m.deal.phase,
          prompt: m.prompt ? {phase: m.prompt.legal.phase, legal: m.prompt.legal, v: m.prompt.v, key: v.promptKey} : null,
          hand: m.deal && m.deal.hand, tricks: m.deal ? m.deal.tricks.length : 0,
          result: m.lastResult && m.lastResult.result, deal_no: m.info && m.info.deal_no,
          missing: [...window.__atoutMissing],
          sheet: !!document.querySelector('#dlg-sheet[open]'),
          history: m.history.map((x) => x.deal_no),
        };
    }"""
    )


# Where a person touches a card of the hand: its top-left corner, the index, which stays in
# view however much the cards overlap (across and, on several lines, from the line below).
CARD_SPOT = {"x": 8, "y": 10}


def click_card(page: Any, code: str, tap: bool = False, **kw: Any) -> None:
    """Click (or tap) a card of the hand where it can be seen."""
    card = page.locator(f'.hand .card[data-card="{code}"]')
    if tap:
        card.tap(position=CARD_SPOT, **kw)
    else:
        card.click(position=CARD_SPOT, **kw)


def unreachable_cards(page: Any) -> list[str]:
    """Cards of the hand whose index corner is covered by something else (so a person could
    not see or touch them), or that stick out of the page's width."""
    return page.evaluate(
        """([x, y]) => [...document.querySelectorAll('.hand .card')].filter((c) => {
            const r = c.getBoundingClientRect();
            if (r.left < 0 || r.right > document.documentElement.clientWidth + 0.5) return true;
            const hit = document.elementFromPoint(r.left + x, r.top + y);
            return !hit || hit.closest('.card') !== c;
        }).map((c) => c.dataset.card)""",
        [CARD_SPOT["x"], CARD_SPOT["y"]],
    )


def box(page: Any, selector: str) -> dict[str, float]:
    """An element's box in page coordinates (scroll included)."""
    return page.evaluate(
        """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
            return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height,
                    bottom: r.bottom + scrollY, right: r.right + scrollX}; }""",
        selector,
    )


def trick_overlaps(page: Any) -> list[tuple[str, str]]:
    """Pairs of cards on the table (the trick) that overlap each other."""
    return [
        tuple(x)
        for x in page.evaluate(
            """() => { const cs = [...document.querySelectorAll('#trick .trick-card')].map((e) => [e.closest('li').className, e.getBoundingClientRect()]);
            const out = [];
            for (let i = 0; i < cs.length; i++) for (let j = i + 1; j < cs.length; j++) {
              const a = cs[i][1], b = cs[j][1];
              if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) out.push([cs[i][0], cs[j][0]]);
            }
            return out; }"""
        )
    ]


def last_trick_overlaps(page: Any) -> list[tuple[str, str]]:
    """Show the last trick ("Last trick"), return its overlapping cards, and put the table
    back. A whole trick stays on the table by itself only while its winner leads the next
    (bots at think delay 0 play up to us at once): a player who wins none sees one so."""
    page.click("#btn-last")
    page.wait_for_selector('#btn-last[aria-pressed="true"]')
    assert page.locator("#trick li").count() == 4
    out = trick_overlaps(page)
    page.click("#btn-last")
    page.wait_for_selector('#btn-last[aria-pressed="false"]')
    return out


def series_over(page: Any) -> bool:
    """The page's table has finished its series and shows the final score sheet."""
    s = state(page)
    return bool(s.get("state") == "finished" and s.get("sheet"))


def close_sheet(page: Any) -> bool:
    """Close the sheet of a deal that ended if it is the one dialog open, as a player would:
    it stays up while the next deal asks us to act (an annulled deal has one too, R3.1, R3.2:
    dealt again). True if it was closed."""
    if page.locator("dialog[open]").count() == 1 and page.locator("#dlg-sheet[open]").count():
        with contextlib.suppress(Exception):  # it may be redrawn meanwhile
            page.click("#sheet-close", timeout=3000)
            return True
    return False


def act_once(
    page: Any,
    bid: str = "garde",
    poignee: bool = True,
    keyboard: bool = False,
    leave_poignee: bool = False,
    key: str | None = None,
) -> str | None:
    """If it is this page's turn, take one decision through the interface; returns what.
    ``leave_poignee``: a prompt that offers a poignée is left to the caller (read here, as
    the caller's own read of the state may be one prompt older). ``key``: act only on that
    prompt (the one the caller has looked at), never on a newer one it has not seen."""
    s = state(page)
    p = s.get("prompt")
    if not p or (key is not None and p["key"] != key):
        return None
    if page.locator("dialog[open]").count():
        return "sheet" if close_sheet(page) else None
    if leave_poignee and p["phase"] == "play" and p["legal"]["poignees"]:
        return None
    phase = p["phase"]
    # Act on what the page shows: wait until it has drawn this prompt (it draws once per frame).
    try:
        page.wait_for_selector(f'#action[data-prompt="{p["key"]}"]', state="attached", timeout=3000)
    except Exception:
        return None  # the prompt changed meanwhile: read the state again
    try:
        done = _decide(page, p, bid, poignee, keyboard)
    except Exception as e:  # the page redrew under the click (a new prompt): look again
        if "Timeout" not in type(e).__name__:
            raise
        return None
    if done is None:
        return None
    # Wait until that prompt is answered (or refused).
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        q = state(page).get("prompt")
        if not q or q["v"] != p["v"] or q["phase"] != phase:
            break
        page.wait_for_timeout(20)
    return done


def _decide(page: Any, p: dict[str, Any], bid: str, poignee: bool, keyboard: bool) -> str | None:
    phase = p["phase"]
    T = 3000  # a click that cannot happen within 3 s means the page moved on
    if phase == "bidding":
        bids = p["legal"]["bids"]
        choice = bid if bid in bids else "pass"
        if keyboard:
            page.keyboard.press(str(bids.index(choice) + 1))
        else:
            page.click(timeout=T, selector=f'[data-bid="{choice}"]')
    elif phase == "discard":
        dc = p["legal"]["discard"]
        need = dc["count"] - len(dc["required"])
        for code in dc["choices"][:need]:
            card = page.locator(f'.hand .card[data-card="{code}"]')
            if card.get_attribute("aria-pressed") != "true":
                if keyboard:
                    card.focus()
                    page.keyboard.press("Enter")
                else:
                    click_card(page, code, timeout=T)
        page.wait_for_selector("#discard-go:not([disabled])")
        if keyboard:
            page.focus("#discard-go")
            page.keyboard.press("Enter")
        else:
            page.click(timeout=T, selector="#discard-go")
    elif phase == "chelem":
        page.click(timeout=T, selector="#chelem-no")
    elif phase == "play":
        if poignee and p["legal"]["poignees"]:
            level = p["legal"]["poignees"][0]["level"]
            page.click(timeout=T, selector=f'[data-key="poignee-{level}"]')
            return "poignee"
        legal = p["legal"]["plays"]
        if keyboard:
            cards = page.locator(".hand .card")
            codes = [cards.nth(i).get_attribute("data-card") for i in range(cards.count())]
            target = codes.index(legal[0])
            if not page.evaluate("!!document.activeElement?.matches('.hand .card')"):
                cards.nth(0).focus()
            here = codes.index(page.evaluate("document.activeElement.dataset.card"))
            key = "ArrowRight" if target > here else "ArrowLeft"
            for _ in range(abs(target - here)):
                page.keyboard.press(key)
            page.keyboard.press("Enter")
        else:
            click_card(page, legal[0], timeout=T)
    else:
        return None
    return phase


def play_until(
    pages: list[Any],
    done: Callable[[], bool],
    timeout: float = 90,
    **kw: Any,
) -> list[str]:
    """Let each page act at its turn until done(); returns the decisions taken, in order."""
    taken: list[str] = []
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"no end after {timeout} s: {[state(p) for p in pages]}"
        acted = False
        for page in pages:
            what = act_once(page, **kw)
            if what:
                taken.append(what)
                acted = True
        if not acted:
            pages[0].wait_for_timeout(25)
    return taken


def untranslated(page: Any) -> list[str]:
    """Keys the page asked for without a translation, and key-like text left in the page."""
    missing = page.evaluate("[...window.__atoutMissing]")
    text = page.evaluate("document.body.innerText")
    raw = re.findall(r"\b(?:[a-z]+_?)+\.[a-z_]+(?:\.[A-Za-z0-9_]+)?\b", text)
    raw = [r for r in raw if not re.match(r"^\d|^[a-z]+\.(json|html|js|css|md|db)$", r)]
    return [*missing, *raw]


# The browser locales of the client's three languages.
LOCALES = {"en": "en-GB", "fr": "fr-FR", "cs": "cs-CZ"}


def out_of_window(page: Any, height: int) -> list[str]:
    """What a player at this table could not see without scrolling: the page scrolled, the
    decision box or any card of the hand (wholly) outside the window."""
    return page.evaluate(
        """(h) => {
        const out = [];
        if (scrollY !== 0) out.push('scrolled ' + scrollY);
        const inside = (r) => r.top >= 0 && r.bottom <= h + 0.5;
        const a = document.getElementById('action').getBoundingClientRect();
        if (!inside(a)) out.push('action ' + Math.round(a.top) + '..' + Math.round(a.bottom));
        for (const c of document.querySelectorAll('.hand .card')) {
            const r = c.getBoundingClientRect();
            if (!inside(r)) out.push(c.dataset.card + ' ' + Math.round(r.top) + '..' + Math.round(r.bottom));
        }
        return out; }""",
        height,
    )


def open_quick_game(page: Any, base: str, name: str = "Ada", series: str = "d1") -> None:
    page.goto(base + "/")
    page.fill("#name", name)
    page.select_option("#series", series)
    page.click("#play-ai")
    page.wait_for_selector(".tableview .seat.me")


class Bare:
    """A bare protocol client (no browser) to set up what a test needs."""

    def __init__(self, port: int, name: str = "setup") -> None:
        from websockets.sync.client import connect

        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(
            connect(f"ws://127.0.0.1:{port}/", subprotocols=["atout.v1"], max_size=None)  # type: ignore[list-item]
        )
        self.ids = iter(range(1, 1_000_000))
        assert self.ask({"type": "hello", "version": 1, "name": name})["type"] == "welcome"

    def ask(self, msg: dict[str, Any]) -> dict[str, Any]:
        rid = next(self.ids)
        self.ws.send(json.dumps({**msg, "id": rid}))
        while True:
            m = json.loads(self.ws.recv(timeout=10))
            if m.get("id") == rid:
                return m

    def close(self) -> None:
        self.stack.close()


# -------------------------------------------------------------------------------- baselines


def raw_client_times(port: int) -> tuple[float, float]:
    """Baseline for the browser figures, in the same run: a bare protocol client (websockets,
    no browser) that creates a one-deal table against three AI, joins and starts it. Returns
    (seconds to its first deal_start, seconds to the end of the deal playing the first legal
    move of every prompt)."""
    import json

    from websockets.sync.client import connect

    t0 = time.monotonic()
    with connect(f"ws://127.0.0.1:{port}/", subprotocols=["atout.v1"], max_size=None) as ws:  # type: ignore[list-item]
        ids = iter(range(1, 10_000))

        def send(msg: dict[str, Any]) -> None:
            ws.send(json.dumps({**msg, "id": next(ids)}))

        send({"type": "hello", "version": 1, "name": "baseline"})
        send({"type": "create_table", "deals": 1, "public": False, "ai": "heuristic"})
        first = None
        tid = None
        while True:
            m = json.loads(ws.recv(timeout=30))
            if m["type"] == "table_created":
                tid = m["table"]["table"]
                send({"type": "join", "table": tid, "seat": 0})
                send({"type": "start", "table": tid})
            elif m["type"] == "event" and m["event"]["type"] == "deal_start" and first is None:
                first = time.monotonic() - t0
            elif m["type"] == "your_turn":
                lg = m["legal"]
                if lg["phase"] == "bidding":
                    send(
                        {
                            "type": "bid",
                            "table": tid,
                            "contract": "garde" if "garde" in lg["bids"] else "pass",
                        }
                    )
                elif lg["phase"] == "discard":
                    d = lg["discard"]
                    cards = d["required"] + d["choices"][: d["count"] - len(d["required"])]
                    send({"type": "discard", "table": tid, "cards": cards})
                elif lg["phase"] == "chelem":
                    send({"type": "chelem", "table": tid, "announce": False})
                else:
                    send({"type": "play", "table": tid, "card": lg["plays"][0]})
            elif (
                m["type"] == "event"
                and m["event"]["type"] == "table_state"
                and m["event"]["state"] == "finished"
            ):
                return first or 0.0, time.monotonic() - t0

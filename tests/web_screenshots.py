"""Take the screenshots of docs/ (README, docs/WEB.md) in Debian's Chromium against a real server.

    .venv/bin/python tests/web_screenshots.py docs/screenshots

Plays a seeded deal against three AI at 1280 px (and 375 px for the phone picture) and saves
JPEGs of the landing page, the table during play, the discard, the score sheet and the phone.
Not a test (its name does not start with test_): a tool to refresh the pictures after a
visible change.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers_web import CHROMIUM_ARGS, ThreadServer, act_once, chromium_path, state

# JPEG keeps the pictures small (the paper grain makes PNGs ten times larger); --png to look.
EXT = "png" if "--png" in sys.argv else "jpg"
FMT: dict = {"type": "png"} if EXT == "png" else {"type": "jpeg", "quality": 82}


def main(out: Path) -> int:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    path = chromium_path()
    if not path:
        print("no Chromium: apt-get install -y chromium (or set ATOUT_CHROMIUM)", file=sys.stderr)
        return 2
    srv = ThreadServer(seed=7, think_delay=0.0).start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
            for lang, width in (("en", 1280), ("fr", 1280), ("cs", 1280), ("en", 375)):
                phone = width < 600
                ctx = browser.new_context(
                    viewport={"width": width, "height": 800 if phone else 860},
                    device_scale_factor=2 if phone else 1,
                    locale={"en": "en-GB", "fr": "fr-FR", "cs": "cs-CZ"}[lang],
                    has_touch=phone,
                    is_mobile=phone,
                )
                page = ctx.new_page()
                page.goto(srv.url + "/")
                page.wait_for_selector("#lobby-title")
                tag = "phone" if phone else lang
                page.fill("#name", {"en": "Ada", "fr": "Amélie", "cs": "Ája"}[lang])
                if not phone:
                    page.screenshot(path=str(out / f"landing-{tag}.{EXT}"), **FMT)
                page.click("#play-ai")
                page.wait_for_selector(".tableview .seat.me")
                took = set()
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    s = state(page)
                    if s.get("state") == "finished" and s.get("sheet"):
                        break
                    p = s.get("prompt")
                    if (
                        p
                        and p["phase"] == "discard"
                        and "discard" not in took
                        and lang == "en"
                        and not phone
                    ):
                        took.add("discard")
                        page.wait_for_selector("#discard-go")
                        page.screenshot(path=str(out / f"discard-en.{EXT}"), **FMT)
                    if p and p["phase"] == "play" and s["tricks"] >= 4 and "play" not in took:
                        took.add("play")
                        page.wait_for_timeout(400)
                        name = f"table-phone.{EXT}" if phone else f"table-{tag}.{EXT}"
                        page.screenshot(path=str(out / name), **FMT, full_page=phone)
                    if not (p and act_once(page, poignee=False, key=p["key"])):
                        page.wait_for_timeout(25)
                page.wait_for_timeout(300)
                if not phone:
                    page.screenshot(path=str(out / f"score-sheet-{tag}.{EXT}"), **FMT)
                ctx.close()
            browser.close()
    finally:
        srv.stop()
    for p in sorted(out.glob("*." + EXT)):
        print(f"{p}: {p.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    sys.exit(main(Path(args[0] if args else "docs/screenshots")))

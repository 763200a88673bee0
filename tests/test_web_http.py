"""The browser client's files over HTTP on the server's port (server/net/web.py): types, caching,
security headers, 404s, path traversal, HEAD, --no-web, and the WebSocket still on the same port."""

from __future__ import annotations

import asyncio
import gzip
import json
import re
from pathlib import Path

import pytest
from helpers_server import Client, running_server

from client_web import STATIC
from server.net.web import WebFiles


async def _raw(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes (so nothing normalises the path) and read the whole answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(-1), 10)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, body


def _get(path: str, method: str = "GET", extra: str = "") -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode()


async def test_index_and_assets_with_types_and_security_headers() -> None:
    async with running_server() as srv:
        status, h, body = await _raw(srv.port, _get("/"))
        assert status == 200
        assert h["content-type"] == "text/html; charset=utf-8"
        assert body == (STATIC / "index.html").read_bytes()
        csp = h["content-security-policy"]
        # Strict: only our own files, no inline script or style, no framing.
        assert "default-src 'none'" in csp and "script-src 'self';" in csp
        assert "style-src 'self';" in csp and "'unsafe-inline'" not in csp
        assert "frame-ancestors 'none'" in csp and "connect-src 'self'" in csp
        assert h["x-content-type-options"] == "nosniff"
        assert h["cache-control"] == "no-cache" and re.fullmatch(r'"[0-9a-f]{20}"', h["etag"])
        assert int(h["content-length"]) == len(body)
        for path, ctype in [
            ("/js/app.js", "text/javascript; charset=utf-8"),
            ("/js/lang/cs.js", "text/javascript; charset=utf-8"),
            ("/css/atout.css", "text/css; charset=utf-8"),
            ("/favicon.svg", "image/svg+xml"),
        ]:
            status, h, body = await _raw(srv.port, _get(path))
            assert (status, h["content-type"]) == (200, ctype), path
            assert h["x-content-type-options"] == "nosniff"
            assert body == (STATIC / path[1:]).read_bytes()


async def test_etag_gives_304_and_gzip_when_asked() -> None:
    async with running_server() as srv:
        _, h, _ = await _raw(srv.port, _get("/js/table.js"))
        etag = h["etag"]
        status, h2, body = await _raw(
            srv.port, _get("/js/table.js", extra=f"If-None-Match: {etag}\r\n")
        )
        assert (status, body, h2["etag"]) == (304, b"", etag)
        status, _, _ = await _raw(
            srv.port, _get("/js/table.js", extra='If-None-Match: "other"\r\n')
        )
        assert status == 200
        status, h3, body = await _raw(
            srv.port, _get("/js/table.js", extra="Accept-Encoding: gzip, br\r\n")
        )
        assert (
            status == 200 and h3["content-encoding"] == "gzip" and h3["vary"] == "Accept-Encoding"
        )
        assert gzip.decompress(body) == (STATIC / "js/table.js").read_bytes()


async def test_head_has_headers_and_no_body() -> None:
    async with running_server() as srv:
        status, h, body = await _raw(srv.port, _get("/", "HEAD"))
        assert status == 200 and body == b""
        assert int(h["content-length"]) == len((STATIC / "index.html").read_bytes())
        status, _, body = await _raw(srv.port, _get("/nope", "HEAD"))
        assert (status, body) == (404, b"")
        status, h, _ = await _raw(srv.port, _get("/", "DELETE"))
        assert status == 405 and h["allow"] == "GET, HEAD"


@pytest.mark.parametrize(
    "path",
    [
        "/nope",
        "/index.htm",
        "/js/",
        "/js",
        "/../pyproject.toml",
        "/js/../../pyproject.toml",
        "/%2e%2e/pyproject.toml",
        "/%2E%2E/%2E%2E/server/app.py",
        "/js/%2e%2e%2f%2e%2e%2fpyproject.toml",
        "/js/..%2F..%2Fpyproject.toml",
        "/..\\..\\pyproject.toml",
        "/js\\..\\..\\pyproject.toml",
        "/%5c..%5c..%5cpyproject.toml",
        "//etc/passwd",
        "/etc/passwd",
        "/js/app.js%00.png",
        "/js/app.js\x00",
        "/%00",
        "/.git/config",
        "/__init__.py",
        "/texts/../../pyproject.toml",
        "/texts/rules.xx.json",
        "/index.html/",
    ],
)
async def test_unknown_paths_and_traversal_are_404(path: str) -> None:
    async with running_server() as srv:
        raw = f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode("latin-1")
        status, h, body = await _raw(srv.port, raw)
        assert status in (400, 404), (path, status)
        assert b"[project]" not in body and b"root:" not in body and b"import" not in body
        if status == 404:
            assert h["x-content-type-options"] == "nosniff"
            assert "content-security-policy" in h


async def test_absolute_form_request_target_is_not_a_way_out() -> None:
    async with running_server() as srv:
        status, _, body = await _raw(srv.port, _get("http://127.0.0.1/../pyproject.toml"))
        assert status in (400, 404) and b"[project]" not in body


def test_only_files_enumerated_at_start_are_served(tmp_path: Path) -> None:
    # The table of files is fixed at start-up: a file that appears later is never served,
    # and nothing outside the static folder is ever in it.
    static = tmp_path / "static"
    (static / "js").mkdir(parents=True)
    (static / "index.html").write_text("<!doctype html>")
    (static / "js" / "a.js").write_text("export {};")
    (static / ".hidden.js").write_text("secret")
    (static / "notes.py").write_text("secret")
    web = WebFiles(static=static, texts=tmp_path / "none")
    assert sorted(web.files) == ["/", "/index.html", "/js/a.js", "/texts/index.json"]
    (static / "js" / "b.js").write_text("export {};")
    assert "/js/b.js" not in web.files


async def test_health_metrics_and_websocket_still_on_the_same_port() -> None:
    async with running_server() as srv:
        status, _, body = await _raw(srv.port, _get("/healthz"))
        assert (status, body) == (200, b"ok\n")
        status, h, _ = await _raw(srv.port, _get("/metrics"))
        assert status == 200 and h["content-type"].startswith("text/plain; version=0.0.4")
        c = await Client.connect(srv.port, "ws-on-root")  # ws://127.0.0.1:PORT/ (path "/")
        pong = await c.request({"type": "ping"})
        assert pong["type"] == "pong"
        await c.close()


async def test_no_web_turns_the_client_off() -> None:
    async with running_server(web=False) as srv:
        status, _, _ = await _raw(srv.port, _get("/"))
        assert status != 200  # the WebSocket handshake refuses a plain GET
        status, _, _ = await _raw(srv.port, _get("/js/app.js"))
        assert status != 200
        status, _, body = await _raw(srv.port, _get("/healthz"))
        assert (status, body) == (200, b"ok\n")


def test_serve_has_a_no_web_option() -> None:
    from server.cli import build_parser
    from server.config import Config

    args = build_parser(with_admin=False).parse_args(["serve", "--no-web"])
    assert Config.from_args(args).web is False
    args = build_parser(with_admin=False).parse_args(["serve"])
    assert Config.from_args(args).web is True


def test_static_files_are_package_data() -> None:
    import tomllib

    conf = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    tool = conf["tool"]["setuptools"]
    assert "client_web*" in tool["packages"]["find"]["include"]
    patterns = tool["package-data"]["client_web"]
    for p in STATIC.rglob("*"):
        if p.is_file():
            rel = p.relative_to(STATIC.parent).as_posix()
            assert any(Path(rel).match(pat) for pat in patterns), rel


def test_client_has_no_inline_script_or_style_and_fetches_nothing_outside() -> None:
    html = (STATIC / "index.html").read_text()
    assert re.search(r"<script(?![^>]*\bsrc=)", html) is None, "inline script"
    assert "<style" not in html and " style=" not in html and "javascript:" not in html
    for p in STATIC.rglob("*"):
        if p.suffix in (".js", ".css", ".html"):
            text = p.read_text()
            # No absolute URL to another host, no CDN, no web font (the SVG namespace URI is
            # an identifier, not a fetch).
            urls = re.findall(r"https?://[^\s\"')]+", text)
            assert all(u.startswith("http://www.w3.org/2000/svg") for u in urls), (p, urls)
            assert "@import" not in text and "@font-face" not in text
            assert "innerHTML" not in text and "eval(" not in text, p


def test_every_translation_key_exists_in_every_language() -> None:
    js = STATIC / "js"
    langs = {}
    for lang in ("en", "fr", "cs"):
        text = (js / "lang" / f"{lang}.js").read_text()
        langs[lang] = set(re.findall(r'^\s*"([a-zA-Z0-9_.]+)":', text, re.M))
    assert langs["en"] == langs["fr"] == langs["cs"], {
        k: sorted(langs["en"] ^ v) for k, v in langs.items()
    }
    used = set()
    for p in js.glob("*.js"):
        # Whole keys only (a key ending in "." is completed at run time, e.g. "suit." + "H").
        used |= set(re.findall(r'\bt\("([a-z0-9_.]*[a-z0-9_])"', p.read_text()))
    assert not (used - langs["en"]), sorted(used - langs["en"])


def test_czech_texts_use_the_team_vocabulary() -> None:
    text = (STATIC / "js" / "lang" / "cs.js").read_text().lower()
    for banned in ("štych", "tarok", "talon", "škýz", "pagát", "licitace", "zápas"):
        assert banned not in text, banned
    for word in ("zdvih", "trumf", "výmluva", "beroucí", "obránc", "bout", "odhoz", "dražba"):
        assert word in text, word
    # The AI is "počítač" everywhere, as in the rest of the Czech texts (not "AI").
    raw = (STATIC / "js" / "lang" / "cs.js").read_text()
    values = re.findall(r':\s*"((?:[^"\\]|\\.)*)"', raw)
    assert not [v for v in values if re.search(r"\bAI\b", v)], "AI in the Czech texts"


def test_rule_texts_are_served_when_present(tmp_path: Path) -> None:
    texts = tmp_path / "texts"
    texts.mkdir()
    doc = {"lang": "en", "title": "Rules", "sections": []}
    (texts / "rules.en.json").write_text(json.dumps(doc))
    (texts / "other.json").write_text("{}")
    web = WebFiles(texts=texts)
    assert "/texts/rules.en.json" in web.files and "/texts/other.json" not in web.files
    assert web.files["/texts/rules.en.json"].ctype == "application/json"
    assert json.loads(web.files["/texts/index.json"].body) == {"languages": ["en"]}


def test_the_pages_name_check_refuses_the_protocols_control_characters() -> None:
    # The page checks a name before sending it (no build step: it cannot import
    # protocol/text.py): its character class must stay the protocol's, U+061C included.
    from protocol.text import CONTROL_CLASS

    js = (STATIC / "js" / "app.js").read_text(encoding="utf-8")
    m = re.search(r"const NAME_CONTROL = /\[([^\]]*)\]/u;", js)
    assert m is not None
    page, protocol = re.compile(f"[{m.group(1)}]"), re.compile(f"[{CONTROL_CLASS}]")
    for code in range(0x10000):  # the same characters, however the two write them
        ch = chr(code)
        assert bool(page.match(ch)) == bool(protocol.match(ch)), hex(code)


async def test_every_answer_carries_one_server_header() -> None:
    """The client's files carried `Server: atout/...` twice: web.py set it, and websockets
    adds its own `server_header` to every answer."""
    async with running_server() as srv:
        for request in (
            _get("/"),
            _get("/js/app.js", "HEAD"),
            _get("/nope"),
            _get("/healthz"),
            _get("/", extra=f"If-None-Match: {srv.web.files['/'].etag if srv.web else ''}\r\n"),
        ):
            reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
            writer.write(request)
            await writer.drain()
            data = await asyncio.wait_for(reader.read(-1), 10)
            writer.close()
            head = data.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
            servers = [x for x in head if x.lower().startswith("server:")]
            assert len(servers) == 1 and "atout/" in servers[0], (request, head)

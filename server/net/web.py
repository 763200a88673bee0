"""The browser client's files over plain HTTP, on the WebSocket port (the ``process_request``
hook of the app, like /healthz and /metrics).

Only files enumerated once at start-up can be served: the static folder of ``client_web`` and
the player rule texts (``protocol/texts/rules.{lang}.json`` at ``/texts/``). A request path is
looked up as an exact key in that table, never joined to a folder, so no spelling of ``..``
(encoded, doubled, with backslashes or NULs) can reach another file. Every answer carries a
strict Content-Security-Policy (no inline script or style: the client has none), nosniff, and an
ETag; assets are revalidated on every load (``no-cache``), which costs a 304 and keeps a page
from mixing files of two versions after an upgrade.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
    ".webmanifest": "application/manifest+json",
}
_COMPRESSIBLE = (".html", ".js", ".css", ".svg", ".json", ".txt", ".webmanifest")


def content_security_policy(connect: tuple[str, ...] = ()) -> str:
    """The page may load only its own files and talk only to its own server (WebSocket
    included: CSP 'self' covers ws:/wss: of the same host), plus ``connect`` origins (the
    public URLs of a cluster's workers)."""
    extra = "".join(" " + c for c in connect)
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        f"connect-src 'self'{extra}; manifest-src 'self'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'"
    )


def worker_origins(public_url: str | None) -> tuple[str, ...]:
    """Origins of a cluster's public worker URLs (``--public-url``), which the page may reach
    besides its own: ``wss://host/w/{worker}`` is the page's own origin already; a template
    with ``{port}`` allows that host on any port."""
    if not public_url:
        return ()
    m = re.match(r"^(wss?://[^/]+)", public_url.replace("{worker}", "0"))
    if not m:
        return ()
    origin = m.group(1)
    return (origin.replace(":{port}", ":*"),)


@dataclass(frozen=True)
class _File:
    body: bytes
    gz: bytes | None
    ctype: str
    etag: str


class WebFiles:
    """The files of the browser client, read once, answered from memory."""

    def __init__(
        self,
        static: Path | None = None,
        texts: Path | None = None,
        connect: tuple[str, ...] = (),
    ) -> None:
        if static is None:
            from client_web import STATIC

            static = STATIC
        self.files: dict[str, _File] = {}
        for p in sorted(static.rglob("*")):
            if p.is_file() and p.suffix in TYPES and not p.name.startswith("."):
                self._add("/" + p.relative_to(static).as_posix(), p)
        if texts is None:
            texts = Path(__file__).resolve().parents[2] / "protocol" / "texts"
            try:
                import protocol

                texts = Path(protocol.__file__).resolve().parent / "texts"
            except ImportError:  # pragma: no cover - protocol always ships with the server
                pass
        langs = []
        if texts.is_dir():
            for p in sorted(texts.glob("rules.*.json")):
                self._add("/texts/" + p.name, p)
                langs.append(p.name.split(".")[1])
        # Which rule texts exist, so that the client never asks for a missing one.
        self._add_bytes("/texts/index.json", json.dumps({"languages": langs}).encode(), ".json")
        if "/index.html" in self.files:
            self.files["/"] = self.files["/index.html"]
        self.csp = content_security_policy(connect)

    def _add(self, path: str, p: Path) -> None:
        self._add_bytes(path, p.read_bytes(), p.suffix)

    def _add_bytes(self, path: str, body: bytes, suffix: str) -> None:
        gz = gzip.compress(body, 9, mtime=0) if suffix in _COMPRESSIBLE else None
        if gz is not None and len(gz) >= len(body):
            gz = None
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        self.files[path] = _File(body, gz, TYPES[suffix], etag)

    def _headers(self) -> Headers:
        h = Headers()
        h["Content-Security-Policy"] = self.csp
        h["X-Content-Type-Options"] = "nosniff"
        h["Referrer-Policy"] = "no-referrer"
        h["X-Frame-Options"] = "DENY"
        h["Cross-Origin-Opener-Policy"] = "same-origin"
        h["Cross-Origin-Resource-Policy"] = "same-origin"
        h["Connection"] = "close"
        return h

    def _plain(self, status: HTTPStatus, text: str, head: bool, **extra: str) -> Response:
        h = self._headers()
        body = text.encode()
        h["Content-Type"] = "text/plain; charset=utf-8"
        h["Content-Length"] = str(len(body))
        h["Cache-Control"] = "no-store"
        for k, v in extra.items():
            h[k.replace("_", "-")] = v
        return Response(status.value, status.phrase, h, b"" if head else body)

    def respond(self, request: Request) -> Response | None:
        """The answer to a plain HTTP request, or None for a WebSocket handshake (or a path
        that is not the client's, e.g. /healthz, answered elsewhere). No ``Server`` header:
        websockets adds its ``server_header`` to every answer (both were sent)."""
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        method = getattr(request, "method", "GET")
        head = method == "HEAD"
        path = request.path.split("?", 1)[0].split("#", 1)[0]
        f = self.files.get(path)
        if method not in ("GET", "HEAD"):
            return self._plain(
                HTTPStatus.METHOD_NOT_ALLOWED, "method not allowed\n", head, Allow="GET, HEAD"
            )
        if f is None:
            return self._plain(HTTPStatus.NOT_FOUND, "not found\n", head)
        h = self._headers()
        h["Content-Type"] = f.ctype
        h["ETag"] = f.etag
        h["Cache-Control"] = "no-cache"
        if f.gz is not None:
            h["Vary"] = "Accept-Encoding"
        inm = request.headers.get("If-None-Match")
        if inm is not None and (
            inm.strip() == "*" or f.etag in [t.strip() for t in inm.split(",")]
        ):
            return Response(HTTPStatus.NOT_MODIFIED.value, "Not Modified", h, b"")
        body = f.body
        if f.gz is not None and "gzip" in request.headers.get("Accept-Encoding", ""):
            body = f.gz
            h["Content-Encoding"] = "gzip"
        h["Content-Length"] = str(len(body))
        return Response(HTTPStatus.OK.value, HTTPStatus.OK.phrase, h, b"" if head else body)

"""Atout's browser client: static files (HTML, CSS, ES modules, no build step) served by the
table server at ``/`` (server/net/web.py). It knows the server only through the public protocol
(docs/PROTOCOL.md), exactly like a third-party client.
"""

from __future__ import annotations

from pathlib import Path

#: The folder of the files the browser loads (package data).
STATIC = Path(__file__).resolve().parent / "static"

"""JSON Schema of every protocol message, generated from the msgspec Structs.

    python -m protocol.schema          # (re)write protocol/schema/*.json
    python -m protocol.schema --check  # exit 1 if the committed files are out of date

Two files, each a complete JSON Schema (draft 2020-12) with every message under ``$defs``:
``client.v1.json`` (what a client may send) and ``server.v1.json`` (what the server sends).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from .messages import CLIENT_TYPES, ClientMessage, ServerMessage
from .version import PROTOCOL_VERSION

SCHEMA_DIR = Path(__file__).parent / "schema"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> schema document."""
    (client, server), defs = msgspec.json.schema_components(
        (ClientMessage, ServerMessage), ref_template="#/$defs/{name}"
    )
    out = {}
    for fname, top, title, desc in (
        (
            f"client.v{PROTOCOL_VERSION}.json",
            client,
            f"Atout protocol v{PROTOCOL_VERSION}: client to server",
            "Every message a client may send. Decoded strictly: unknown fields are rejected.",
        ),
        (
            f"server.v{PROTOCOL_VERSION}.json",
            server,
            f"Atout protocol v{PROTOCOL_VERSION}: server to client",
            "Every message the server sends. Clients must ignore fields they do not know.",
        ),
    ):
        doc = {
            "$schema": DRAFT,
            "$id": f"atout:protocol:{fname}",
            "title": title,
            "description": desc,
            **top,
            "$defs": {k: defs[k] for k in sorted(_reachable(top, defs))},
        }
        out[fname] = _standard(doc)
    return out


def _standard(doc: dict[str, Any]) -> dict[str, Any]:
    """Say in plain JSON Schema 2020-12 what the server enforces: every message is exactly one
    of the message objects (``oneOf``: their ``type`` values differ), and a client message has
    no other properties than its own. ``discriminator`` (an OpenAPI keyword that 2020-12
    validators ignore) is dropped."""
    doc = json.loads(json.dumps(doc))
    strict = {
        c.__name__ for c in CLIENT_TYPES.values() if c.__struct_config__.forbid_unknown_fields
    }

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            node.pop("discriminator", None)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    if "anyOf" in doc:
        doc["oneOf"] = doc.pop("anyOf")
    for name, d in doc["$defs"].items():
        if name in strict and d.get("type") == "object":
            d["additionalProperties"] = False
    return doc


def _reachable(node: Any, defs: dict[str, Any]) -> set[str]:
    """Names of the definitions ``node`` refers to, transitively."""
    seen: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            ref = n.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name not in seen:
                    seen.add(name)
                    stack.append(defs[name])
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)
    return seen


def render(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for fname, doc in schemas().items():
        path = SCHEMA_DIR / fname
        text = render(doc)
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if check:
            stale.append(fname)
        else:
            SCHEMA_DIR.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run `python -m protocol.schema`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""docs/PROTOCOL.md is complete and true: it names every message, event, error and close code,
and its transcript is a real, consistent run whose record replays to its result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from protocol import CloseCode, ErrorCode, messages
from server.rules.records import replay_line

DOC = Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md"


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _tags(union: Any) -> set[str]:
    return {t.__struct_config__.tag for t in union.__args__}


def test_doc_names_every_message_event_and_code() -> None:
    doc = _doc()
    for tag in (
        set(messages.CLIENT_TYPES) | _tags(messages.ServerMessage) | _tags(messages.TableEvent)
    ):
        assert f"`{tag}`" in doc, tag
    for code in ErrorCode:
        assert f"| `{code.value}` |" in doc, code
    for close in CloseCode:
        assert f"| {close.value} |" in doc, close


def _transcript() -> list[tuple[str, dict[str, Any]]]:
    section = _doc().split("## 12. Annotated transcript of one deal", 1)[1]
    out = []
    for line in section.splitlines():
        if line.startswith(("C→S ", "S→C ")):
            out.append((line[:3], json.loads(line[4:])))
    return out


def test_transcript_is_a_consistent_run() -> None:
    frames = _transcript()
    assert frames[0][1]["type"] == "hello" and frames[1][1]["type"] == "welcome"
    answered: dict[Any, int] = {}
    last_v = None
    for direction, m in frames:
        if direction == "C→S":
            messages.decode_client(json.dumps(m))  # every request is valid
            answered[m["id"]] = 0
            continue
        messages.decode_server(json.dumps(m))
        if "id" in m:
            answered[m["id"]] += 1
        if m["type"] == "snapshot":
            last_v = m["v"]
        elif m["type"] == "event":
            assert last_v is not None and m["v"] == last_v + 1
            last_v = m["v"]
    assert all(n == 1 for n in answered.values()), answered  # one answer per request
    (over,) = [
        m["event"] for d, m in frames if m["type"] == "event" and m["event"]["type"] == "deal_over"
    ]
    ok, result = replay_line(msgspec.json.encode(over["record"]))
    assert ok and result == over["result"]
    plays = [m for d, m in frames if d == "C→S" and m["type"] == "play"]
    assert len(plays) == 18

"""The published JSON Schema says what the server enforces (issue 9 item 10): a standard
2020-12 validator accepts exactly the requests the server accepts, on the document's transcript
and on refusals the server makes, and the server's messages validate against their schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from protocol import schema
from server.net.decode import Refusal, decode_request

DOCS = schema.schemas()
CLIENT = jsonschema.Draft202012Validator(DOCS["client.v1.json"])
SERVER = jsonschema.Draft202012Validator(DOCS["server.v1.json"])
DOC = (Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


def transcript() -> list[tuple[str, dict[str, Any]]]:
    section = DOC.split("## 12. Annotated transcript of one deal", 1)[1]
    return [
        (line[:3], json.loads(line[4:]))
        for line in section.splitlines()
        if line.startswith(("C→S ", "S→C "))
    ]


def test_the_schema_uses_only_standard_keywords() -> None:
    text = json.dumps(DOCS)
    assert "discriminator" not in text
    assert "oneOf" in DOCS["client.v1.json"] and "oneOf" in DOCS["server.v1.json"]
    jsonschema.Draft202012Validator.check_schema(DOCS["client.v1.json"])
    jsonschema.Draft202012Validator.check_schema(DOCS["server.v1.json"])


def test_every_message_of_the_transcript_validates() -> None:
    frames = transcript()
    assert len(frames) > 100
    for direction, msg in frames:
        (CLIENT if direction == "C→S" else SERVER).validate(msg)


T = "K4aBxlNChcs1"
REFUSED = [
    {"type": "ping", "id": 1, "extra": True},  # unknown field
    {"type": "ping"},  # missing id
    {"type": "join", "id": 1, "table": "x" * 65},  # table id over 64
    {"type": "play", "id": 1, "table": T, "card": "H100"},  # card code over 3
    {"type": "join", "id": 1, "table": T, "seat": 4},
    {"type": "hello", "id": 1, "version": 1, "name": "a\x1bb"},
    {"type": "hello", "id": 1, "version": 1, "name": "x\u202e"},
    {"type": "hello", "id": 1, "version": 1, "name": "x\u061c"},  # Arabic letter mark
    {"type": "hello", "id": 1, "version": 1, "name": "   "},
    {"type": "create_table", "id": 1, "name": "\x85"},
    {"type": "list_tables", "id": 1, "limit": 101},
    {"type": "nope", "id": 1},
]
ACCEPTED = [
    {"type": "ping", "id": "abc"},
    {"type": "hello", "id": 1, "version": 1, "name": "Šárka ♥"},
    {"type": "list_tables", "id": 1, "limit": 100, "cursor": None},
    {"type": "play", "id": 1, "table": T, "card": "H11"},  # well formed; the rules refuse it
    {"type": "create_table", "id": 1, "name": "Friday night", "ai": ["random"] * 4},
]


@pytest.mark.parametrize("msg", REFUSED, ids=lambda m: json.dumps(m)[:60])
def test_what_the_server_refuses_the_schema_refuses(msg: dict[str, Any]) -> None:
    assert type(decode_request(json.dumps(msg).encode())) is Refusal
    assert not CLIENT.is_valid(msg)


@pytest.mark.parametrize("msg", ACCEPTED, ids=lambda m: json.dumps(m)[:60])
def test_what_the_server_accepts_the_schema_accepts(msg: dict[str, Any]) -> None:
    assert type(decode_request(json.dumps(msg).encode())) is not Refusal
    CLIENT.validate(msg)


def test_the_one_documented_difference_integers_written_with_a_fraction() -> None:
    """JSON Schema counts `1.0` as an integer; the server reads the JSON text and refuses it as
    an id (docs/PROTOCOL.md section 3 says so)."""
    msg = {"type": "bid", "id": 1.0, "table": T, "contract": "pass"}
    assert type(decode_request(json.dumps(msg).encode())) is Refusal
    assert CLIENT.is_valid(msg)
    assert "counts `1.0` as an integer" in DOC

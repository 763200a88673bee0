"""Protocol v1 structs: strict client decoding, lenient server decoding, committed schema."""

from __future__ import annotations

import json

import msgspec
import pytest

from protocol import CloseCode, ErrorCode, messages, schema
from protocol.errors import CLOSE_DESCRIPTIONS, ERROR_DESCRIPTIONS


def test_committed_schema_is_up_to_date() -> None:
    for fname, doc in schema.schemas().items():
        path = schema.SCHEMA_DIR / fname
        assert path.exists(), f"{fname} missing: run `python -m protocol.schema`"
        assert path.read_text(encoding="utf-8") == schema.render(doc), (
            f"{fname} is stale: run `python -m protocol.schema`"
        )


def _messages(doc: dict) -> dict[str, dict]:
    """type tag -> definition, for every message of a schema's ``oneOf``."""
    out = {}
    for alt in doc["oneOf"]:
        d = doc["$defs"][alt["$ref"].split("/")[-1]]
        (tag,) = d["properties"]["type"]["enum"]
        out[tag] = d
    return out


def test_schema_lists_every_message() -> None:
    docs = schema.schemas()
    client = _messages(docs["client.v1.json"])
    server = _messages(docs["server.v1.json"])
    assert set(client) == set(messages.CLIENT_TYPES)
    assert {"welcome", "error", "event", "snapshot", "your_turn", "joined", "ok"} <= set(server)
    # requests forbid unknown fields in the schema too
    for d in client.values():
        assert d["additionalProperties"] is False


def test_every_code_is_described() -> None:
    assert set(ERROR_DESCRIPTIONS) == set(ErrorCode)
    assert set(CLOSE_DESCRIPTIONS) == set(CloseCode)


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "play", "id": 1, "table": "t", "card": "H3", "extra": 1},
        {"type": "play", "id": 1, "table": "t", "card": 3},
        {"type": "play", "id": 1, "table": "t"},
        {"type": "bid", "id": "a", "table": "t", "contract": "grande"},
        {"type": "bid", "id": "a", "table": "t", "contract": "garde", "seat": 4},
        {"type": "chelem", "id": 2, "table": "t", "announce": 0},
        {"type": "hello", "id": 1, "version": "1", "name": "x"},
        {"type": "hello", "id": 1, "version": 1, "name": ""},
        {"type": "hello", "id": True, "version": 1, "name": "x"},
        {"type": "create_table", "id": 1, "deals": 0},
        {"type": "create_table", "id": 1, "ai": ["random"]},
    ],
)
def test_client_messages_are_strict(frame: dict[str, object]) -> None:
    with pytest.raises(msgspec.ValidationError):
        messages.decode_client(json.dumps(frame))


def test_client_messages_decode() -> None:
    m = messages.decode_client(b'{"type":"discard","id":"x","table":"t","cards":["C2","C3"]}')
    assert isinstance(m, messages.Discard) and m.cards == ["C2", "C3"] and m.seat is None
    m = messages.decode_client(b'{"type":"create_table","id":1,"ai":"random","deals":2}')
    assert isinstance(m, messages.CreateTable) and m.public is None and m.turn_timer is None


def test_server_messages_are_lenient() -> None:
    m = messages.decode_server(b'{"type":"ok","id":3,"new_field":[1,2]}')
    assert isinstance(m, messages.Ok) and m.id == 3
    m = messages.decode_server(
        b'{"type":"event","table":"t","v":7,"turn":2,"later":true,'
        b'"event":{"type":"play","seat":1,"card":"H3","x":1}}'
    )
    assert isinstance(m, messages.Event) and isinstance(m.event, messages.PlayEvent)

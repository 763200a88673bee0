"""Stable error codes (the ``code`` of an ``error`` message) and WebSocket close codes.

Codes are part of protocol v1: they are never renamed or given another meaning within v1;
new codes may be added (clients treat an unknown code like ``internal``).
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class ErrorCode(StrEnum):
    BAD_JSON = "bad_json"
    BINARY_FRAME = "binary_frame"
    NOT_AN_OBJECT = "not_an_object"
    UNKNOWN_TYPE = "unknown_type"
    INVALID_FIELD = "invalid_field"
    HELLO_REQUIRED = "hello_required"
    ALREADY_GREETED = "already_greeted"
    UNSUPPORTED_VERSION = "unsupported_version"
    NO_SUCH_TABLE = "no_such_table"
    NO_SUCH_DEAL = "no_such_deal"
    TABLE_FULL = "table_full"
    SEAT_TAKEN = "seat_taken"
    ALREADY_SEATED = "already_seated"
    NOT_SEATED = "not_seated"
    NOT_YOUR_SEAT = "not_your_seat"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    WRONG_STATE = "wrong_state"
    ILLEGAL_ACTION = "illegal_action"
    BAD_TOKEN = "bad_token"
    NOT_ALLOWED = "not_allowed"
    LIMIT_REACHED = "limit_reached"
    RATE_LIMITED = "rate_limited"
    SHUTTING_DOWN = "shutting_down"
    STORAGE_UNAVAILABLE = "storage_unavailable"
    WRONG_WORKER = "wrong_worker"
    TABLE_MOVING = "table_moving"
    NAME_TAKEN = "name_taken"
    BAD_PASSWORD = "bad_password"
    LOGIN_FAILED = "login_failed"
    BAD_KEY = "bad_key"
    NOT_LOGGED_IN = "not_logged_in"
    NO_SUCH_PLAYER = "no_such_player"
    NOT_SUPPORTED = "not_supported"
    INTERNAL = "internal"


#: One line per code: when the server sends it. docs/PROTOCOL.md renders this table.
ERROR_DESCRIPTIONS: dict[ErrorCode, str] = {
    ErrorCode.BAD_JSON: "the text frame is not valid JSON (or not UTF-8)",
    ErrorCode.BINARY_FRAME: "a binary frame was sent; every message is a JSON text frame",
    ErrorCode.NOT_AN_OBJECT: "the JSON value is not an object",
    ErrorCode.UNKNOWN_TYPE: "`type` is missing, not a string, or not a known request type",
    ErrorCode.INVALID_FIELD: (
        "a field is missing, has the wrong JSON type or an out-of-range value, or is unknown; "
        "`details.path` names it when known"
    ),
    ErrorCode.HELLO_REQUIRED: "a request other than `hello` came before the `welcome`",
    ErrorCode.ALREADY_GREETED: "a second `hello` on a connection that already has its `welcome`",
    ErrorCode.UNSUPPORTED_VERSION: (
        "the server does not speak the requested version; `details.supported` lists the "
        "versions it speaks; the connection is then closed with 4002"
    ),
    ErrorCode.NO_SUCH_TABLE: "no open table has this id",
    ErrorCode.NO_SUCH_DEAL: (
        "`deal`: no finished deal of that number at that table, or it is not readable by this "
        "connection (a private table's deals are readable only from a seat there, or by the "
        "accounts that sat there)"
    ),
    ErrorCode.TABLE_FULL: "every seat of the table is held by a human player",
    ErrorCode.SEAT_TAKEN: "the requested seat is held by another human player",
    ErrorCode.ALREADY_SEATED: "this connection already holds a seat at this table",
    ErrorCode.NOT_SEATED: "this connection holds no seat at this table",
    ErrorCode.NOT_YOUR_SEAT: "the action names a `seat` that is not this connection's seat",
    ErrorCode.NOT_YOUR_TURN: "another seat is to act",
    ErrorCode.WRONG_PHASE: (
        "this kind of action is not expected now (no deal in progress, or the deal is in "
        "another phase); `rule` cites RULES.md when the rules decide"
    ),
    ErrorCode.WRONG_STATE: "the table is not in a state that allows this (e.g. start twice)",
    ErrorCode.ILLEGAL_ACTION: (
        "the rules forbid this action; `rule` is the RULES.md rule number and `message` the "
        "engine's explanation"
    ),
    ErrorCode.BAD_TOKEN: "the seat token is unknown, revoked (seat left or released) or expired",
    ErrorCode.NOT_ALLOWED: (
        "only the table's creator or a seated player may do this (closing a table in play: "
        "its creator or an admin); or a wrong admin token in `hello`"
    ),
    ErrorCode.LIMIT_REACHED: (
        "a server limit is reached (tables per connection, open tables, tables of bots only "
        "playing per address)"
    ),
    ErrorCode.RATE_LIMITED: (
        "too many messages: this one was not processed; slow down (repeated abuse closes the "
        "connection with 4029)"
    ),
    ErrorCode.SHUTTING_DOWN: "the server is shutting down and accepts no new tables or seats",
    ErrorCode.STORAGE_UNAVAILABLE: (
        "the server could not store the request (its database is locked or its disk is full): "
        "nothing changed; send it again in a moment. `details.reason` is the storage error"
    ),
    ErrorCode.WRONG_WORKER: (
        "the table (or the seat token's table) lives in another worker process of this server; "
        "`details.url` is where to reconnect and send the request again"
    ),
    ErrorCode.TABLE_MOVING: (
        "the table (or the seat token's table) is between two worker processes: the one that "
        "served it stopped answering and another is taking it over. Nothing changed and a seat "
        "token stays valid: send the request again after `details.retry_after` seconds"
    ),
    ErrorCode.NAME_TAKEN: "`register`: an account already has this name (compared after NFKC and case folding)",
    ErrorCode.BAD_PASSWORD: "`register`: the password is too short (under 8 characters) or too long",
    ErrorCode.LOGIN_FAILED: "`login`: unknown name or wrong password (the server does not say which)",
    ErrorCode.BAD_KEY: "the player key is unknown or was revoked (logout, rotation)",
    ErrorCode.NOT_LOGGED_IN: "this request needs a player key (`hello.key`, `register` or `login`)",
    ErrorCode.NO_SUCH_PLAYER: "no player (account, guest or AI level) has this name",
    ErrorCode.NOT_SUPPORTED: (
        "this server does not offer the request: its database keeps no player accounts "
        "(only a server embedded without a database); the table requests work as usual"
    ),
    ErrorCode.INTERNAL: "an unexpected server error; the request had no effect",
}


class CloseCode(IntEnum):
    NORMAL = 1000
    GOING_AWAY = 1001
    MESSAGE_TOO_BIG = 1009
    INTERNAL_ERROR = 1011
    HELLO_TIMEOUT = 4001
    UNSUPPORTED_VERSION = 4002
    SLOW_CONSUMER = 4008
    REPLACED = 4009
    TOO_MANY_CONNECTIONS = 4010
    RATE_LIMITED = 4029


#: (meaning, what a client should do). docs/PROTOCOL.md renders this table.
CLOSE_DESCRIPTIONS: dict[CloseCode, tuple[str, str]] = {
    CloseCode.NORMAL: ("normal closure", "nothing"),
    CloseCode.GOING_AWAY: (
        "the server is shutting down or restarting",
        "reconnect after a few seconds; resume seats with their tokens",
    ),
    CloseCode.MESSAGE_TOO_BIG: (
        f"a frame was larger than the limit ({64 * 1024} bytes)",
        "fix the client; do not resend the same frame",
    ),
    CloseCode.INTERNAL_ERROR: ("unexpected server error", "reconnect and resume"),
    CloseCode.HELLO_TIMEOUT: ("no `hello` arrived in time after connecting", "reconnect"),
    CloseCode.UNSUPPORTED_VERSION: (
        "the requested protocol version is not supported (after an `unsupported_version` error)",
        "do not retry with the same version",
    ),
    CloseCode.SLOW_CONSUMER: (
        "the client did not read its messages fast enough: more than 2048 messages or 1 MiB "
        "(server option `--out-bytes`) waited for it",
        "reconnect and resume with your last `v` (you get the missed events, or a snapshot)",
    ),
    CloseCode.REPLACED: (
        "another connection resumed a seat token held by this connection",
        "do not reconnect automatically (the other connection owns the seat now)",
    ),
    CloseCode.TOO_MANY_CONNECTIONS: (
        "the client's address already has as many open connections as the server allows "
        "(64 by default, server option `--max-connections-per-address`)",
        "close connections you no longer use, then reconnect; one connection can hold seats "
        "at several tables",
    ),
    CloseCode.RATE_LIMITED: (
        "the client kept sending after `rate_limited` errors",
        "reconnect later, sending less",
    ),
}

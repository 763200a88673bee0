"""The WebSocket connection class the server runs (``serve(create_connection=...)``).

Two things the library does not do the way the protocol promises:

- Text frames are received as bytes and decoded by :mod:`server.net.decode` (msgspec checks
  UTF-8 itself), so a text frame that is not UTF-8 gets ``bad_json`` instead of a 1007 close.
  Binary frames, which then also arrive as bytes, are told apart by a per-process random prefix
  this class puts on them.
- Before the opening handshake, a request that is not ``GET`` or ``HEAD`` is answered ``405``
  and one with a body ``400`` (the library would close the connection without a word). A plain
  HTTP request is answered alone (``Connection: close``): what a client pipelines behind it is
  dropped, where the library would parse it as a second handshake and drop the first answer.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import State

#: Put before the payload of every binary message: clients cannot guess it.
BINARY_MARK = secrets.token_bytes(16)
_HEAD_LIMIT = 16 * 1024  # larger request heads are left to the library (it answers 431)
#: Bytes asked of the socket per read. asyncio's selector transport asks for 256 KiB, a buffer
#: above glibc's mmap threshold (128 KiB): every read mapped, faulted and unmapped it, about
#: 13 us per read on this machine against 2 us for 64 KiB, for frames of a few hundred bytes.
READ_SIZE = 64 * 1024


class AtoutConnection(ServerConnection):
    _head: bytes | None = b""  # the request head read so far; None once handed over
    _plain: bool = False  # a plain HTTP request: nothing after its head is read
    #: Called with each message that fits in one frame, as it is parsed (set by the app's
    #: handler; None: every message goes through ``recv``).
    on_message: Callable[[bytes], None] | None = None
    _fragmented: bool = False  # a message in several frames is being received

    def process_event(self, event: Any) -> None:
        if isinstance(event, Frame):
            op = event.opcode
            if op is Opcode.TEXT or op is Opcode.BINARY or op is Opcode.CONT:
                data = event.data
                if type(data) is not bytes:
                    data = bytes(data)
                if op is Opcode.BINARY:
                    data = BINARY_MARK + data
                on_message = self.on_message
                if (
                    on_message is not None
                    and event.fin
                    and op is not Opcode.CONT
                    and not self._fragmented
                    and not _queued(self)
                ):
                    # The handler would only take it from the library's queue a loop turn
                    # later, through a future and a task step, to hand it to the same code.
                    # Only when nothing is queued before it: the order stays the client's.
                    on_message(data)
                    return
                self._fragmented = not event.fin
                if data is not event.data:
                    event = dataclasses.replace(event, data=data)
        super().process_event(event)

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        if getattr(transport, "max_size", 0) > READ_SIZE:  # asyncio's selector transport
            transport.max_size = READ_SIZE

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # asyncio's selector transport keeps its read callback, a method bound to itself, after
        # the connection is lost: a cycle that only a full collection frees. Nothing reads a
        # lost transport: drop it, so that a closed connection goes by reference counting.
        if hasattr(self.transport, "_read_ready_cb"):
            self.transport._read_ready_cb = None

    def data_received(self, data: bytes) -> None:
        head = self._head
        if head is None or self.protocol.state is not State.CONNECTING:
            if not self._plain:
                super().data_received(data)
            return
        head += data
        end = head.find(b"\r\n\r\n")
        if end < 0 and len(head) < _HEAD_LIMIT:
            self._head = head
            return
        self._head = None
        refusal = _refusal(head[:end]) if end >= 0 else None
        if refusal is None:
            if end >= 0 and not _upgrade(head[:end]):
                self._plain = True
                head = head[: end + 4]
            super().data_received(head)
            return
        status, body, extra = refusal
        lines = [
            f"HTTP/1.1 {status}",
            "Content-Type: text/plain; charset=utf-8",
            f"Content-Length: {len(body)}",
            "Connection: close",
            *extra,
        ]
        self.transport.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        self.transport.close()


def _queued(conn: ServerConnection) -> bool:
    """Frames wait in the library's queue for ``recv`` (True when it cannot be told)."""
    try:
        return len(conn.recv_messages.frames) > 0
    except (AttributeError, TypeError):
        return True


def _headers(head: bytes) -> list[tuple[bytes, bytes]]:
    out = []
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        out.append((name.strip().lower(), value.strip()))
    return out


def _upgrade(head: bytes) -> bool:
    """The request asks for a WebSocket (its frames may follow the handshake at once)."""
    return any(n == b"upgrade" and v.lower() == b"websocket" for n, v in _headers(head))


def _refusal(head: bytes) -> tuple[str, bytes, list[str]] | None:
    """What to answer a request head the WebSocket library cannot take, or None."""
    method = head.split(b" ", 1)[0]
    if method not in (b"GET", b"HEAD"):
        return ("405 Method Not Allowed", b"method not allowed\n", ["Allow: GET, HEAD"])
    for name, value in _headers(head):
        if (name == b"content-length" and value not in (b"", b"0")) or (
            name == b"transfer-encoding"
        ):
            return ("400 Bad Request", b"request bodies are not accepted\n", [])
    return None

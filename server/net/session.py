"""One client connection: who it is, what it holds, its rate limit and its outgoing queue.

Tables never write to a socket: they hand encoded frames to :meth:`Session.send`, which only
appends to a bounded queue. Once per loop iteration, a flush callback writes what was queued
in one go while the socket takes data; when it does not (back-pressure) or the connection is
closing, a writer task per connection drains the queue instead, waiting for the socket. A client
that does not read fast enough makes its queue overflow and is closed (4008): a slow client can
never block a table or the other players. The queue is bounded in messages and in bytes, the
bytes waiting in the transport included, so a client that never reads holds at most
``max_bytes`` (plus one message) of the server's memory.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any

import msgspec
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol.errors import CloseCode, ErrorCode
from server.net.decode import error_id
from server.ops.metrics import Metrics

log = logging.getLogger("atout.session")

_encode = msgspec.json.Encoder().encode


class _CloseMark:
    __slots__ = ("code", "reason")

    def __init__(self, code: int, reason: str) -> None:
        self.code = code
        self.reason = reason


class Flusher:
    """Flushes, once per loop turn, every session that queued messages in it: one loop
    callback for them all (a table's event goes to four players and its spectators at once,
    and a callback per connection cost more than the rest of queueing)."""

    __slots__ = ("_due", "_loop", "_scheduled")

    def __init__(self) -> None:
        self._due: list[Session] = []
        self._scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None

    def add(self, sess: Session) -> None:
        self._due.append(sess)
        if not self._scheduled:
            self._scheduled = True
            loop = self._loop
            if loop is None:
                loop = self._loop = asyncio.get_running_loop()
            loop.call_soon(self._run)

    def _run(self) -> None:
        self._scheduled = False
        self.flush_now()

    def flush_now(self) -> None:
        """Flush the sessions that queued messages, now rather than at the next loop turn: a
        table calls it once it has handled an item (server.tables.lobby.Lobby.flush_output),
        so its events do not wait a turn of a busy loop (a turn is milliseconds under load,
        and every action waited one here). A session that gets more later this turn is
        flushed again then."""
        due, self._due = self._due, []
        for sess in due:
            try:
                sess._flush()
            except Exception:  # never expected; the others must still be flushed
                log.exception("%s: flushing failed, closing", sess)
                sess.abort(CloseCode.INTERNAL_ERROR, "internal server error")


class Session:
    """State of one WebSocket connection (created by the app's handler)."""

    def __init__(
        self,
        ws: ServerConnection,
        sid: str,
        metrics: Metrics,
        *,
        max_queue: int,
        max_bytes: int = 1 << 20,
        rate: float,
        burst: int,
        max_strikes: int,
        strike_window: float = 10.0,
        flusher: Flusher | None = None,
    ) -> None:
        self.ws = ws
        self.id = sid
        self.metrics = metrics
        self.name = ""
        self.address = ""  # the client's IP address (set by the app)
        self.admin = False  # proved the server's admin token in its hello
        self.account: dict[str, Any] | None = None  # the player (issue 12), None: a guest
        self.key_hash: str | None = None  # SHA-256 of the player key it logged in with
        self.greeted = False
        self.hello_pending = False
        self.seats: dict[str, int] = {}  # table id -> seat held by this connection
        self.watching: set[str] = set()  # table ids followed as a spectator
        self.closed = False
        self._out: deque[bytes | _CloseMark] = deque()
        self._out_bytes = 0  # bytes of the messages in _out
        self._buffered = 0  # bytes in the transport's buffer, as read this loop turn
        self._max_bytes = max_bytes
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._flush_pending = False  # a _flush is due in this loop turn
        self._flusher = flusher  # shared by the server's sessions (None: a callback of its own)
        self._writing = False  # the writer task is sending (and maybe waiting for the socket)
        self._max_queue = max_queue
        # token bucket (per connection) and abuse strikes within a window
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._last = time.monotonic()
        self._max_strikes = max_strikes
        self._strike_window = strike_window
        self._strikes = 0
        self._strike_start = 0.0
        self._closer: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"Session({self.id}, {self.name!r})"

    # -- rate limit --------------------------------------------------------------------------

    def allow(self) -> bool:
        """Take one token for an incoming frame; False when the bucket is empty."""
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        if now - self._strike_start > self._strike_window:
            self._strike_start = now
            self._strikes = 0
        self._strikes += 1
        return False

    @property
    def abusive(self) -> bool:
        """Too many refused frames within the strike window: time to close."""
        return self._strikes > self._max_strikes

    # -- outgoing ----------------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        """Queue one encoded message. Never blocks; overflows close the connection (4008)."""
        if self.closed:
            return
        n = len(data)
        if not self._flush_pending:  # first message of this loop turn: read the transport's
            self._buffered = _buffered(self.ws)  # buffer once (only this turn's writes add)
        if (
            len(self._out) >= self._max_queue
            or self._out_bytes + n > self._max_bytes - self._buffered
        ):
            log.warning(
                "%s: outgoing queue full (%d messages, %d bytes), closing",
                self,
                len(self._out),
                self._out_bytes + _buffered(self.ws),
            )
            self.abort(CloseCode.SLOW_CONSUMER, "slow consumer: outgoing queue overflow")
            return
        self._out.append(data)
        self._out_bytes += n
        m = self.metrics
        m.messages_out += 1
        m.bytes_out += n
        if not self._flush_pending:
            self._flush_pending = True
            if self._flusher is not None:
                self._flusher.add(self)
            else:
                self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        """Write everything queued now, in one write, when the socket takes it; otherwise
        leave it to the writer task. A plain callback: waking a task per batch cost more than
        the write itself."""
        self._flush_pending = False
        out = self._out
        if not out:
            return
        if self.closed or self._writing or not _writable(self.ws):
            self._wake.set()
            return
        batch: list[bytes] = list(out)  # type: ignore[arg-type]  # no close mark: not closed
        out.clear()
        self._out_bytes = 0
        try:
            _write(self.ws, batch)
        except Exception:  # never expected; the client resumes and gets what it missed
            log.exception("%s: writing failed, closing", self)
            self.abort(CloseCode.INTERNAL_ERROR, "internal server error")

    def send_obj(self, obj: Any) -> None:
        self.send(_encode(obj))

    def error(
        self,
        rid: Any,
        code: ErrorCode,
        message: str,
        *,
        rule: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        msg: dict[str, Any] = {
            "type": "error",
            "id": error_id(rid),
            "code": code.value,
            "message": message,
        }
        if rule is not None:
            msg["rule"] = rule
        if details is not None:
            msg["details"] = details
        self.metrics.errors[code.value] += 1
        self.send(_encode(msg))

    def close_after_flush(self, code: int, reason: str) -> None:
        """Send what is queued, then close with ``code``; nothing more is queued after it."""
        if self.closed:
            return
        self.closed = True
        self._out.append(_CloseMark(code, reason))
        self._wake.set()

    def abort(self, code: int, reason: str) -> None:
        """Close now, dropping what is queued (even while the writer waits on a full socket).

        The close frame goes into the transport at once, behind the frames already written to
        it, whatever the back-pressure: a client that reads again within the close timeout
        gets what was already sent, then the close frame with ``code``."""
        if self.closed:
            return
        self.closed = True
        self._out.clear()
        self._out_bytes = 0
        self._closer = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        try:
            await self.ws.close(code, reason)
        except Exception:  # the peer may already be gone; nothing else to do
            log.debug("%s: close failed", self, exc_info=True)

    async def writer(self) -> None:
        """Drain the queue into the socket when :meth:`_flush` cannot: under back-pressure
        (waiting for the socket to drain) and to close after the queued messages.

        Whatever is queued goes out in one socket write (see :func:`_send_batch`): a table
        usually queues several messages at once (an ``ok`` and its events), and one system
        call per frame was the largest cost of a busy server."""
        ws = self.ws
        out = self._out
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while out:
                    batch: list[bytes] = []
                    close: _CloseMark | None = None
                    while out:
                        item = out.popleft()
                        if type(item) is _CloseMark:
                            close = item
                            break
                        batch.append(item)  # type: ignore[arg-type]
                        self._out_bytes -= len(item)  # type: ignore[arg-type]
                    if batch:
                        self._writing = True
                        try:
                            await _send_batch(ws, batch)
                        finally:
                            self._writing = False
                    if close is not None:
                        self.closed = True
                        await ws.close(close.code, close.reason)
                        return
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            out.clear()
            self._out_bytes = 0


def _buffered(ws: ServerConnection) -> int:
    """Bytes written to the connection's transport and not yet taken by the socket."""
    try:
        return int(ws.transport.get_write_buffer_size())
    except AttributeError:  # no transport (yet)
        return 0


def _writable(ws: ServerConnection) -> bool:
    """The connection is open and its transport takes data without back-pressure."""
    try:
        return bool(
            ws.protocol.state is State.OPEN and not ws.paused and not ws.transport.is_closing()
        )
    except AttributeError:  # a websockets release without these: the writer task sends
        return False


#: Headers of final, unmasked text frames (RFC 6455 section 5.2) of 0..125 bytes.
_SHORT_HEADERS = [bytes((0x81, n)) for n in range(126)]


def text_frame_header(n: int) -> bytes:
    """The header of a final text frame of ``n`` bytes as a server sends it (unmasked)."""
    if n < 126:
        return _SHORT_HEADERS[n]
    if n < 65536:
        return b"\x81\x7e" + n.to_bytes(2, "big")
    return b"\x81\x7f" + n.to_bytes(8, "big")


def _frames(ws: ServerConnection, batch: list[bytes]) -> bytes:
    """``batch`` framed as text messages, ready for the transport.

    Without extensions (the server negotiates none: no compression) a server's text frame is
    a two- to ten-byte header and the payload: framed here, since the library's per-frame
    path (a Frame object, its checks and serialisation) cost more than building and encoding
    the message. With extensions, or in the middle of a fragmented message (never sent by
    this server), the library frames them."""
    protocol = ws.protocol
    if protocol.extensions or protocol.expect_continuation_frame:
        for data in batch:
            protocol.send_text(data)
        return b"".join(protocol.data_to_send())
    parts: list[bytes] = []
    append = parts.append
    for data in batch:
        n = len(data)
        append(_SHORT_HEADERS[n] if n < 126 else text_frame_header(n))
        append(data)
    return b"".join(parts)


def _write(ws: ServerConnection, batch: list[bytes]) -> None:
    """Write ``batch`` as text messages in one call (one ``send`` system call). Only when
    :func:`_writable`."""
    ws.transport.write(_frames(ws, batch))


async def _send_batch(ws: ServerConnection, batch: list[bytes]) -> None:
    """Send text messages from the writer task: straight away when :func:`_writable` (no
    async context manager and drain per message), otherwise through ``send_context``, which
    checks the state, waits for the transport to drain and raises ``ConnectionClosed``
    exactly as ``ws.send`` would."""
    if _writable(ws):
        _write(ws, batch)
        return
    try:
        context = ws.send_context
    except AttributeError:  # a websockets release without these: one frame at a time
        for data in batch:
            await ws.send(data, text=True)
        return
    async with context():  # the connection is open inside: write, then it drains
        ws.transport.write(_frames(ws, batch))

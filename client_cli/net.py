"""The connection to the server: handshake, requests, and surviving a dropped connection.

:class:`Link` keeps one logical session alive over successive WebSocket connections. Every
server message is decoded with the protocol package (unknown fields ignored) and handed to the
application as a plain dict through its queue. When the connection drops, the link retries with
exponential backoff and, in the new ``hello``, gives the seat token and the last table version
seen, so the server resumes the seat and resends what was missed (or a snapshot). A spectator
sends ``watch`` again instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

import protocol.messages as P
from protocol.errors import CloseCode, ErrorCode
from protocol.version import MAX_FRAME_BYTES, PROTOCOL_VERSION, SUBPROTOCOL

CLIENT_NAME = "atout-cli/0.1"

# Close codes after which reconnecting would not help (CLOSE_DESCRIPTIONS in protocol/errors.py).
NO_RETRY = {CloseCode.REPLACED, CloseCode.UNSUPPORTED_VERSION, CloseCode.MESSAGE_TOO_BIG}


class LinkError(Exception):
    """The server cannot be used: ``key`` is an i18n message key, ``info`` its arguments."""

    def __init__(self, key: str, **info: Any) -> None:
        super().__init__(key)
        self.key = key
        self.info = info


class ServerError(Exception):
    """A request was answered with an ``error`` message."""

    def __init__(self, msg: dict[str, Any]) -> None:
        super().__init__(msg.get("message", ""))
        self.msg = msg
        self.code = str(msg.get("code", ""))


def normalize_url(url: str) -> str:
    """``ws://host:port`` from what a person may type (``host:port`` works too)."""
    u = url.strip()
    if "://" not in u:
        u = "ws://" + u
    parts = urlsplit(u)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise LinkError("err.bad_url", url=url)
    return u


def decode(data: str | bytes) -> dict[str, Any] | None:
    """A server message as a dict, as it came: checked against protocol v1 when its type is
    known, but with every field kept, also those this client's protocol package does not know
    yet (newer fields of v1: `ai_levels`, paginated `tables`, ...)."""
    try:
        obj = json.loads(data)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    with contextlib.suppress(msgspec.ValidationError, msgspec.DecodeError):
        P.decode_server(data)  # a malformed known message is still passed on, as before
    return obj


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


class Link:
    """A session with the server that reconnects by itself.

    Pushes and answers not awaited with :meth:`call` arrive on ``queue`` as
    ``("msg", dict, wire text)``;
    connection news as ``("net", kind, info)`` with kind ``lost`` (retry scheduled), ``resumed``
    or ``fatal`` (the link gave up; ``info`` is a :class:`LinkError`)."""

    def __init__(
        self,
        url: str,
        name: str,
        queue: asyncio.Queue[tuple[Any, ...]],
        *,
        last_version: Callable[[], int | None] = lambda: None,
        retry_for: float | None = None,
        first_delay: float = 0.2,
        max_delay: float = 5.0,
    ) -> None:
        self.url = normalize_url(url)
        self.name = name
        self.queue = queue
        self.last_version = last_version
        # two minutes, as documented; ATOUT_RECONNECT_SECONDS changes it (tests, flaky links)
        if retry_for is None:
            try:
                retry_for = float(os.environ.get("ATOUT_RECONNECT_SECONDS") or 120)
            except ValueError:
                retry_for = 120.0
        self.retry_for = retry_for
        self.first_delay = first_delay
        self.max_delay = max_delay
        self.token: str | None = None  # our seat's token, to resume it
        self.key: str | None = None  # our player key (client_cli/accounts.py), sent in hello
        self.watching: str | None = None  # the table we watch, to watch it again
        self.welcome: dict[str, Any] = {}
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._waiters: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closing = False

    # ------------------------------------------------------------------ lifecycle

    async def open(self) -> dict[str, Any]:
        """Connect and greet; raises :class:`LinkError` when the server cannot be used."""
        await self._connect(resume=False)
        self._reader = asyncio.get_running_loop().create_task(self._read_forever())
        return self.welcome

    async def close(self) -> None:
        self._closing = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(CloseCode.NORMAL, "bye"), 2)

    @property
    def connected(self) -> bool:
        return self._ws is not None

    @property
    def grace(self) -> float:
        return float((self.welcome.get("limits") or {}).get("grace_seconds") or 0)

    async def _connect(self, *, resume: bool) -> None:
        kwargs: dict[str, Any] = {}
        if _is_loopback(self.url):
            kwargs["proxy"] = None  # never send local traffic through an HTTP proxy
        try:
            ws = await connect(
                self.url,
                subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
                max_size=4 * MAX_FRAME_BYTES,
                open_timeout=10,
                compression=None,
                **kwargs,
            )
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as e:
            raise LinkError("err.connect", url=self.url, error=str(e) or type(e).__name__) from None
        hello: dict[str, Any] = {
            "id": "hello",
            "version": PROTOCOL_VERSION,
            "name": self.name,
            "client": CLIENT_NAME,
        }
        if self.key:
            hello["key"] = self.key
        if resume and self.token:
            hello["token"] = self.token
            v = self.last_version()
            if v is not None:
                hello["v"] = v
        try:
            await ws.send(P.encode(P.Hello(**hello)).decode())
            while True:
                data = await asyncio.wait_for(ws.recv(), 15)
                msg = decode(data)
                if msg is None:
                    continue
                if msg.get("type") == "welcome":
                    self.welcome = msg
                    player = msg.get("player")
                    if isinstance(player, dict) and isinstance(player.get("name"), str):
                        self.name = player["name"]  # the account's name, as registered
                    break
                if msg.get("type") == "error" and msg.get("id") in ("hello", None):
                    await ws.close()
                    code = msg.get("code")
                    if code == ErrorCode.UNSUPPORTED_VERSION:
                        raise LinkError("err.version", error=msg.get("message", ""))
                    if code == ErrorCode.BAD_KEY:
                        raise LinkError("acct.err_bad_key", url=self.url)
                    if code == ErrorCode.BAD_TOKEN:
                        raise LinkError("err.server", message=msg.get("message", ""))
                    if code == ErrorCode.TABLE_MOVING:  # retried: the token stays good
                        raise LinkError("err.moving")
                    raise LinkError("err.server", message=msg.get("message", ""))
        except (ConnectionClosed, OSError, TimeoutError) as e:
            raise LinkError("err.connect", url=self.url, error=str(e) or type(e).__name__) from None
        self._ws = ws
        if resume:
            if self.welcome.get("resumed"):
                self.queue.put_nowait(("net", "resumed", None))
            elif self.watching:
                await self.send({"type": "watch", "table": self.watching})
                self.queue.put_nowait(("net", "rewatched", None))

    # ------------------------------------------------------------------ requests

    def next_id(self) -> int:
        return next(self._ids)

    async def send(self, body: dict[str, Any], rid: Any = None) -> Any:
        """Send a request (validated by the protocol's structs); returns its id. The answer
        arrives on the queue. Raises ConnectionError when there is no connection right now."""
        rid = self.next_id() if rid is None else rid
        kind = body["type"]
        struct = P.CLIENT_TYPES[kind]
        fields = {k: v for k, v in body.items() if k != "type"}
        data = P.encode(struct(id=rid, **fields)).decode()
        ws = self._ws
        if ws is None:
            raise ConnectionError("not connected")
        try:
            await ws.send(data)
        except ConnectionClosed as e:
            raise ConnectionError("connection lost") from e
        return rid

    async def call(self, body: dict[str, Any], timeout: float = 15) -> dict[str, Any]:
        """Send a request and wait for its answer; an ``error`` answer raises ServerError."""
        rid = self.next_id()
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters[rid] = fut
        try:
            await self.send(body, rid)
            answer = await asyncio.wait_for(fut, timeout)
        finally:
            self._waiters.pop(rid, None)
        if answer.get("type") == "error":
            raise ServerError(answer)
        return answer

    # ------------------------------------------------------------------ reading, reconnecting

    async def _read_forever(self) -> None:
        while not self._closing:
            ws = self._ws
            assert ws is not None
            try:
                async for data in ws:
                    msg = decode(data)
                    if msg is None:
                        continue
                    fut = self._waiters.get(msg.get("id")) if "id" in msg else None
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                    else:
                        raw = data if isinstance(data, str) else data.decode("utf-8", "replace")
                        self.queue.put_nowait(("msg", msg, raw))
            except ConnectionClosed:
                pass
            if self._closing:
                return
            for fut in self._waiters.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("connection lost"))
            self._ws = None
            code = ws.close_code  # None when the TCP connection just died
            if code in NO_RETRY:
                key = "err.replaced" if code == CloseCode.REPLACED else "err.version"
                self.queue.put_nowait(("net", "fatal", LinkError(key, error=ws.close_reason or "")))
                return
            if not await self._reconnect():
                return

    async def _reconnect(self) -> bool:
        """Try again with growing delays (``first_delay`` doubling up to ``max_delay``, never
        more) for ``retry_for`` seconds from the loss, the last try at the deadline."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + self.retry_for
        delay = self.first_delay
        for attempt in itertools.count(1):
            # jitter (clients do not come back in lockstep), within the documented bound
            wait = min(delay * random.uniform(0.8, 1.2), self.max_delay, deadline - loop.time())
            wait = max(0.0, wait)
            info = {"attempt": attempt, "delay": wait, "elapsed": loop.time() - start}
            self.queue.put_nowait(("net", "lost", info))
            await asyncio.sleep(wait)
            try:
                await self._connect(resume=True)
                return True
            except LinkError as e:
                if (
                    e.key in ("err.version", "err.server", "acct.err_bad_key")
                    or loop.time() >= deadline - 0.01
                ):
                    self.queue.put_nowait(
                        ("net", "fatal", e if e.key != "err.connect" else LinkError("err.gave_up"))
                    )
                    return False
            delay = min(delay * 2, self.max_delay)
        return False

"""The bare limit of Atout's network stack: a minimal ``websockets`` echo server.

Same library, same settings as ``server/net/app.py`` (no compression, the same ``max_size``,
``max_queue``, ping and close timeouts, the ``atout.v1`` subprotocol), and nothing else: no
JSON, no sessions, no queues. ``bench/load.py`` runs it as its own process and drives it with
the same clients as the Atout server.

A request is a text frame ``"K SIZE|padding"``: the server answers with K text frames of SIZE
bytes each, so the echo reproduces the number and size of the frames Atout sends per action
(measured in the same run). A frame without ``|`` is echoed back unchanged.

A text frame ``"@G"`` puts its connection in group G (answered ``"@"``), as the four players of
a table: the K frames of a request from a member then go round the group's connections, from
the requester on (a table's event goes to its four players, the next prompt to one of them),
not all to the requester. A fifth is refused (answered ``"!full"``; the connection stays on
its own), so that a client's mistake cannot make a round five frames long.

    .venv/bin/python bench/echo_server.py [--port 0] [--loop asyncio|uvloop]
                                                # prints "PORT <n>" once listening
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

# The server's own limit, so both stacks refuse and accept the same frames.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from protocol.version import MAX_FRAME_BYTES, SUBPROTOCOLS

_payloads: dict[int, str] = {}


def _payload(size: int) -> str:
    p = _payloads.get(size)
    if p is None:
        p = _payloads[size] = "x" * size
    return p


_groups: dict[str, list[ServerConnection]] = {}
GROUP_SIZE = 4  # the four seats of a table


async def _handler(ws: ServerConnection) -> None:
    members = [ws]
    group: str | None = None
    try:
        async for frame in ws:
            if isinstance(frame, bytes):
                await ws.send(frame)
                continue
            if frame[:1] == "@" and group is None:
                joined = _groups.setdefault(frame[1:], [])
                if len(joined) >= GROUP_SIZE:
                    await ws.send("!full")
                    continue
                group, members = frame[1:], joined
                members.append(ws)
                await ws.send("@")  # in: the client waits for it, so a group is whole at once
                continue
            head, sep, _ = frame.partition("|")
            if not sep:
                await ws.send(frame)
                continue
            k, size = head.split()
            data = _payload(min(int(size), 1 << 20))
            first = members.index(ws)
            for i in range(min(int(k), 64)):
                to = members[(first + i) % len(members)]
                with contextlib.suppress(ConnectionClosed):  # another member's close
                    await to.send(data)
    except ConnectionClosed:
        pass
    finally:
        if group is not None:
            members.remove(ws)
            if not members:
                del _groups[group]


def _select(conn: ServerConnection, offered: object) -> object:
    for p in SUBPROTOCOLS:
        if p in offered:  # type: ignore[operator]
            return p
    return None


async def main(port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with serve(
        _handler,
        "127.0.0.1",
        port,
        subprotocols=list(SUBPROTOCOLS),  # type: ignore[arg-type]
        select_subprotocol=_select,  # type: ignore[arg-type]
        compression=None,
        max_size=MAX_FRAME_BYTES,
        max_queue=32,
        ping_interval=20.0,
        ping_timeout=20.0,
        close_timeout=5,
    ) as server:
        print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
        await stop.wait()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio")
    args = ap.parse_args()
    factory = None
    if args.loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main(args.port))

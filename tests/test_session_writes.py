"""Session output: messages queued in one loop turn go out in one socket write, in order, each
its own frame; under back-pressure the writer task takes over without losing or reordering."""

from __future__ import annotations

import asyncio
import json
import random
import socket

from helpers_server import Client, autoplay, create_table, running_server, table_finished
from websockets.asyncio.client import connect

from server.net.session import Session


def _session(srv, name: str) -> Session:  # type: ignore[no-untyped-def]
    return next(s for s in srv.lobby.sessions.values() if s.name == name)


async def _wait_frames(c: Client, n: int) -> None:
    for _ in range(500):
        if len(c.msgs) >= n:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"only {len(c.msgs)} of {n} messages arrived")


async def test_a_burst_is_written_once_in_order() -> None:
    async with running_server() as srv:
        c = await Client.connect(srv.port, "burst")
        sess = _session(srv, "burst")
        writes: list[bytes] = []
        transport = sess.ws.transport
        real_write = transport.write

        def counting_write(data: bytes) -> None:
            writes.append(data)
            real_write(data)

        transport.write = counting_write  # type: ignore[method-assign]
        before = len(c.msgs)
        for i in range(300):
            sess.send_obj({"type": "pong", "id": i})
        await _wait_frames(c, before + 300)
        assert [m["id"] for m in c.msgs[before:]] == list(range(300))
        assert len(writes) == 1  # one system call for the whole burst
        await c.close()


async def test_back_pressure_hands_over_to_the_writer_in_order() -> None:
    async with running_server() as srv:
        # a client that stops reading: small socket buffers fill, the server's transport
        # pushes back, and the writer task (waiting for the socket) takes over from the flushes
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", srv.port))
        ws = await connect(f"ws://127.0.0.1:{srv.port}", sock=sock, max_size=None)
        await ws.send(json.dumps({"type": "hello", "id": 0, "version": 1, "name": "slowish"}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        sess = _session(srv, "slowish")
        sess.ws.transport.get_extra_info("socket").setsockopt(
            socket.SOL_SOCKET, socket.SO_SNDBUF, 4096
        )
        sess.ws.transport.set_write_buffer_limits(high=1024)
        ws.transport.pause_reading()
        pad = "x" * 2000
        paused = False
        for i in range(300):  # under the queue limit (2048): nothing is dropped
            sess.send_obj({"type": "pong", "id": i, "pad": pad})
            if i % 10 == 9:
                await asyncio.sleep(0.001)  # several loop turns: flushes, then the writer
                paused = paused or sess.ws.paused
        assert paused  # the socket pushed back: the writer task had to wait
        ws.transport.resume_reading()
        got = [json.loads(await asyncio.wait_for(ws.recv(), 10)) for _ in range(300)]
        assert [m["id"] for m in got] == list(range(300))
        assert not sess.closed
        await ws.close()


def test_frames_are_the_librarys_text_frames() -> None:
    """The session frames its messages itself (RFC 6455 section 5.2): byte for byte what the
    library's serialiser makes of a server's final text frame, at every length boundary."""
    from websockets.frames import Frame, Opcode

    from server.net.session import text_frame_header

    for n in (0, 1, 125, 126, 127, 65535, 65536, 70000):
        data = b"x" * n
        assert text_frame_header(n) + data == Frame(Opcode.TEXT, data).serialize(
            mask=False, extensions=[]
        ), n


async def test_fragmented_and_single_frame_messages_are_answered_in_order() -> None:
    """Messages of one frame are handled as they are parsed, those in several frames through
    the library's queue: whatever the mix, requests are answered in the order they were sent."""
    async with running_server() as srv:
        ws = await connect(f"ws://127.0.0.1:{srv.port}", subprotocols=["atout.v1"])  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "hello", "id": 0, "version": 1, "name": "frag"}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        for i in range(1, 40, 2):
            text = json.dumps({"type": "ping", "id": i})
            await ws.send([text[:5], text[5:9], text[9:]])  # three frames
            await ws.send(json.dumps({"type": "ping", "id": i + 1}))  # one frame
            await ws.send(b"\x00binary")  # refused, in its place
        got = []
        for _ in range(60):
            m = json.loads(await ws.recv())
            got.append(m["id"] if m["type"] == "pong" else m["code"])
        expected: list[object] = []
        for i in range(1, 40, 2):
            expected += [i, i + 1, "binary_frame"]
        assert got == expected
        await ws.close()


async def test_a_tables_events_go_out_as_soon_as_it_has_handled_the_action() -> None:
    """A table writes what it queued once it is done with an inbox item (Lobby.flush_output),
    not at the next turn of the loop, which under load is milliseconds later for every move."""
    async with running_server() as srv:
        c = await Client.connect(srv.port, "quick")
        tid = await create_table(c, name="quick", deals=1, ai="random")
        await c.join(tid, seat=0)
        sess = _session(srv, "quick")
        in_table_flush = [False]
        by_table: list[bool] = []  # for each write of table events: made by the table's flush
        transport = sess.ws.transport
        real_write = transport.write

        def write(data: bytes) -> None:
            if b'"type":"event"' in data:
                by_table.append(in_table_flush[0])
            real_write(data)

        flush = srv.lobby.output_flusher
        assert flush is not None

        def table_flush() -> None:
            in_table_flush[0] = True
            try:
                flush()
            finally:
                in_table_flush[0] = False

        transport.write = write  # type: ignore[method-assign]
        srv.lobby.output_flusher = table_flush
        assert (await c.request({"type": "start", "table": tid}))["type"] == "ok"
        await autoplay(c, tid, random.Random(5), table_finished)
        assert len(by_table) > 20 and all(by_table)
        await c.close()

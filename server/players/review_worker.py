"""The reviews' worker process: :func:`server.players.par.review_deal` (the par replay and the
seat figures, a few ms of CPU per scored deal) in a process of its own, so that it takes
neither the event loop's GIL nor its time.

In a thread of the server (how it ran first) the par of every deal held the GIL in turn with the
event loop: at 1,000 players with AI seats, about a hundred deals a second, a quarter of a core
taken from the loop's thread and a wait of up to a switch interval for it each time the review
held the GIL (docs/SCALING.md section 5).

The parent (:class:`ReviewWorker`) starts ``python -m server.players.review_worker`` with pipes
on its standard input and output and sends one deal at a time: a 4-byte big-endian length, then
``[record, level]`` as JSON; the child answers the same way with ``[review, None]`` or
``[None, error text]``. The child exits when its input ends, which is also what happens when the
server dies, even by SIGKILL: nothing outlives the server or keeps its output pipes open (its
standard error is not the server's: it writes nothing to the server's log). It
ignores SIGINT (a Ctrl-C in the server's terminal is the server's to handle) and is told to
stop by the end of its input. A child that dies is started again for the next deal; the deal
it had is reviewed in a thread instead (:class:`server.players.service.Reviews`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from typing import Any

import msgspec

log = logging.getLogger("atout.players")

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode
_LEN = 4  # bytes of a message's length prefix
START_TIMEOUT = 30.0  # seconds the child may take to import and say it is ready
READY = b"ready"


def _write(out: Any, payload: bytes) -> None:
    out.write(len(payload).to_bytes(_LEN, "big") + payload)
    out.flush()


def _read_exactly(inp: Any, n: int) -> bytes | None:
    data = inp.read(n)
    return data if data is not None and len(data) == n else None


def main() -> int:
    """The child: review the deals read from standard input until it ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from server.players.par import review_deal  # the bots: imported once, here

    inp, out = sys.stdin.buffer, sys.stdout.buffer
    try:
        _write(out, READY)
        while True:
            head = _read_exactly(inp, _LEN)
            if head is None:
                return 0  # the server closed the pipe, or is gone
            body = _read_exactly(inp, int.from_bytes(head, "big"))
            if body is None:
                return 0
            try:
                record, level = _decode(body)
                answer: list[Any] = [review_deal(record, level), None]
            except Exception as e:  # the parent logs it and reviews the deal itself
                answer = [None, f"{type(e).__name__}: {e}"]
            _write(out, _encode(answer))
    except OSError:  # the server is gone (a broken pipe): nobody to answer
        return 0


class ReviewError(Exception):
    """The worker could not review a deal (it failed on it, or it is gone)."""


class ReviewWorker:
    """The parent's side: one child process, one deal at a time (:meth:`review`)."""

    def __init__(self) -> None:
        self._proc: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()
        self.started = 0  # processes started (tests, figures)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    async def _start(self) -> asyncio.subprocess.Process:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server.players.review_worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            # Not the server's: its log is the server's own (JSON lines, maybe), and whatever
            # goes wrong in the child reaches the server's log as a ReviewError.
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
        )
        self.started += 1
        try:
            assert proc.stdout is not None
            async with asyncio.timeout(START_TIMEOUT):
                hello = await self._read(proc)
            if hello != READY:
                raise ReviewError(f"the review worker said {hello[:40]!r}, not ready")
        except BaseException:
            await _end(proc)
            raise
        return proc

    @staticmethod
    async def _read(proc: asyncio.subprocess.Process) -> bytes:
        assert proc.stdout is not None
        head = await proc.stdout.readexactly(_LEN)
        return await proc.stdout.readexactly(int.from_bytes(head, "big"))

    async def review(self, record: dict[str, Any], level: str) -> dict[str, Any]:
        """``review_deal(record, level)`` computed by the child (started if need be). Raises
        ReviewError if it fails on the deal or cannot be run (then the next call starts a new
        child)."""
        async with self._lock:
            try:
                proc = self._proc
                if proc is None or proc.returncode is not None:
                    proc = self._proc = await self._start()
                assert proc.stdin is not None
                payload = _encode([record, level])
                proc.stdin.write(len(payload).to_bytes(_LEN, "big") + payload)
                await proc.stdin.drain()
                review, error = _decode(await self._read(proc))
            except (OSError, EOFError, ValueError, msgspec.DecodeError, TimeoutError) as e:
                proc, self._proc = self._proc, None
                if proc is not None:
                    await _end(proc)
                raise ReviewError(f"the review worker is gone: {type(e).__name__}: {e}") from e
            if error is not None:
                raise ReviewError(error)
            return review

    async def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            await _end(proc)


async def _end(proc: asyncio.subprocess.Process, timeout: float = 5.0) -> None:
    """Close the child's input (it exits) and wait for it; kill it if it does not exit."""
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    try:
        async with asyncio.timeout(timeout):
            await proc.wait()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()


if __name__ == "__main__":
    sys.exit(main())

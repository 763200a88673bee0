"""Typed lines: on a terminal, GNU readline (line editing, arrow keys, history, completion of
card codes, bids and commands); otherwise plain reads of the file descriptor.

Lines are read in a daemon thread and posted to the game's queue, so that Ctrl-C and the end
of the program never wait for the keyboard. Readline is the standard library's; prompt_toolkit
was tried too (see the commit that added this module): under a pseudo-terminal it asks the
terminal for its cursor position and draws with escape sequences, which broke the end-to-end
tests and gained nothing a player needs here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HISTORY_LINES = 500


class LineInput:
    """Reads lines for the game; ``completions`` lists what Tab may complete right now."""

    def __init__(self, history: Path | None = None) -> None:
        self.completions: list[str] = []
        self.history = history
        self.readline: Any = None  # the readline module, when in use
        self._termios: Any = None

    # ------------------------------------------------------------------ readline

    def _complete(self, text: str, state: int) -> str | None:
        low = text.lower()
        words = [w for w in self.completions if w.lower().startswith(low)]
        return words[state] if state < len(words) else None

    def _setup_readline(self) -> bool:
        try:
            import readline
        except ImportError:  # pragma: no cover (a Python built without it)
            return False
        self.readline = readline
        readline.set_completer(self._complete)
        readline.set_completer_delims(" \t,;")
        if "libedit" in (readline.__doc__ or ""):
            readline.parse_and_bind("bind ^I rl_complete")
        else:
            readline.parse_and_bind("tab: complete")
        readline.set_history_length(HISTORY_LINES)
        if self.history is not None:
            with contextlib.suppress(OSError):
                readline.read_history_file(self.history)
        return True

    def line_buffer(self) -> str:
        """What the player has typed so far on the current line."""
        if self.readline is None:
            return ""
        try:
            return str(self.readline.get_line_buffer())
        except Exception:
            return ""

    def close(self) -> None:
        """Save the history and give the terminal back as it was."""
        if self.readline is not None and self.history is not None:
            with contextlib.suppress(OSError):
                self.history.parent.mkdir(parents=True, exist_ok=True)
                self.readline.write_history_file(self.history)
        if self._termios is not None:
            import termios

            with contextlib.suppress(Exception):
                termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, self._termios)

    # ------------------------------------------------------------------ reading

    def start(self, queue: asyncio.Queue[tuple[Any, ...]]) -> None:
        """Read lines in a daemon thread and post ``("line", text)`` / ``("eof",)``."""
        loop = asyncio.get_running_loop()

        def post(item: tuple[Any, ...]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: we are exiting
                loop.call_soon_threadsafe(queue.put_nowait, item)

        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            queue.put_nowait(("eof",))
            return
        tty = os.isatty(fd) and os.isatty(sys.stdout.fileno())
        if tty:
            with contextlib.suppress(Exception):
                import termios

                self._termios = termios.tcgetattr(fd)
        lines = self._readline_lines if tty and self._setup_readline() else _fd_lines(fd)

        def run() -> None:
            for line in lines():
                post(("line", line))
            post(("eof",))

        threading.Thread(target=run, name="atout-stdin", daemon=True).start()

    def _readline_lines(self) -> Iterator[str]:
        while True:
            try:
                # input() goes through readline when stdin and stdout are terminals; the
                # prompt is drawn by the game (it changes while this thread waits).
                yield input()
            except EOFError:
                return
            except (OSError, ValueError):
                return


def _fd_lines(fd: int) -> Callable[[], Iterator[str]]:
    """Lines of a pipe or file, read with ``os.read``: a buffered ``sys.stdin`` would hold its
    lock while blocked, and Python cannot shut down cleanly (Ctrl-C) past a held lock."""

    def gen() -> Iterator[str]:
        buf = b""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                if buf:
                    yield buf.decode("utf-8", errors="replace")
                return
            buf += chunk
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                yield raw.decode("utf-8", errors="replace").rstrip("\r")

    return gen

"""Typed lines: on a terminal, GNU readline (line editing, arrow keys, history, completion of
card codes, bids and commands); otherwise plain reads of the file descriptor.

Lines are read in a daemon thread and posted to the game's queue, so that Ctrl-C and the end
of the program never wait for the keyboard. Readline is the standard library's; prompt_toolkit
was tried too (see the commit that added this module): under a pseudo-terminal it asks the
terminal for its cursor position and draws with escape sequences, which broke the end-to-end
tests and gained nothing a player needs here.

Readline owns the prompt (:class:`Editor`): it must know where the prompt ends to echo an
empty line, wrap a long one, erase with Ctrl-U up to the prompt and no further, and draw the
prompt again after Ctrl-L. The prompt changes while the thread waits for keys (the game asks
something else, a message comes in), so the thread does not call ``input()``: it drives
readline's callback interface itself (through ``ctypes``, on the library the ``readline``
module is linked with) and waits on the keyboard and on a pipe by which the game hands it
work. Every readline call is made by that one thread. Where the callback interface cannot be
reached (a Python built on libedit), ``input()`` is used and the game draws its prompts.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import select
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HISTORY_LINES = 500
#: How long the game waits for the reading thread to move the prompt out of the way.
EDITOR_WAIT = 1.0


class LineInput:
    """Reads lines for the game; ``completions`` lists what Tab may complete right now."""

    def __init__(self, history: Path | None = None) -> None:
        self.completions: list[str] = []
        self.history = history
        self.readline: Any = None  # the readline module, when in use
        self.editor: Editor | None = None  # readline's callback interface, when in use
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
        if self.editor is not None:
            self.editor.stop()
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
        """Read lines in a daemon thread and post ``("line", text)`` / ``("eof",)`` (at a
        terminal, Ctrl-D posts ``("eof", "key")``: the player may still type)."""
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
        if tty and self._setup_readline():
            self.editor = Editor.open(self.readline, fd, post)
            if self.editor is not None:
                self.editor.start()
                with contextlib.suppress(NotImplementedError, RuntimeError, AttributeError):
                    import signal

                    loop.add_signal_handler(signal.SIGCONT, self.editor.continued)
                return
            lines = self._readline_lines
        else:
            lines = _fd_lines(fd)

        def run() -> None:
            for line in lines():
                post(("line", line))
            post(("eof",))

        threading.Thread(target=run, name="atout-stdin", daemon=True).start()

    def _readline_lines(self) -> Iterator[str]:
        while True:
            try:
                # input() goes through readline when stdin and stdout are terminals; here (no
                # callback interface) the prompt is drawn by the game.
                yield input()
            except EOFError:
                return
            except (OSError, ValueError):
                return


class Editor:
    """GNU readline's callback interface, driven by one thread that owns every readline call.

    The game asks it, through :meth:`set_prompt`, :meth:`suspend` and :meth:`resume`, to show a
    prompt, to step below the line being typed before printing something, and to draw the
    prompt and the line again after it. Each request waits until the thread has done it, so
    what the game prints next comes after."""

    _HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

    def __init__(self, readline: Any, lib: Any, fd: int, post: Callable[[tuple[Any, ...]], None]):
        self.readline = readline
        self.lib = lib
        self.fd = fd
        self.post = post
        self.prompt = ""  # the prompt readline has now ("" once a line is entered)
        self.hidden = False  # moved below the line for output: draw it again before typing
        self.point = 0  # where the cursor was in the line when it was hidden
        self.stopped = False
        self.removed = False  # readline's handler removed (the terminal given back)
        self.thread: threading.Thread | None = None
        self.size: os.terminal_size | None = None
        self.jobs: deque[tuple[Callable[[], None], threading.Event]] = deque()
        self.lock = threading.Lock()
        self.wake_r, self.wake_w = os.pipe()
        self.handler = self._HANDLER(self._on_line)  # kept: readline holds a pointer to it
        # rl_free (readline 6.3+), else the C library's free: readline allocates with malloc
        self.free = getattr(lib, "rl_free", None) or ctypes.CDLL(None).free
        self.rl_point = ctypes.c_int.in_dll(lib, "rl_point")
        self.rl_end = ctypes.c_int.in_dll(lib, "rl_end")

    @classmethod
    def open(cls, readline: Any, fd: int, post: Callable[[tuple[Any, ...]], None]) -> Editor | None:
        """An editor on GNU readline, or None (libedit, or symbols out of reach)."""
        if "libedit" in (readline.__doc__ or ""):
            return None
        try:
            lib = ctypes.CDLL(readline.__file__)
            for name in ("rl_callback_handler_install", "rl_callback_handler_remove",
                         "rl_callback_read_char", "rl_set_prompt", "rl_forced_update_display",
                         "rl_redisplay", "rl_resize_terminal", "rl_set_screen_size",
                         "rl_prep_terminal", "rl_deprep_terminal"):  # fmt: skip
                getattr(lib, name)
            # Python keeps its own signal handlers (Ctrl-C reaches the game, not readline);
            # the window size is followed here (:meth:`_follow_size`).
            ctypes.c_int.in_dll(lib, "rl_catch_signals").value = 0
            ctypes.c_int.in_dll(lib, "rl_catch_sigwinch").value = 0
            return cls(readline, lib, fd, post)
        except (AttributeError, OSError, ValueError, TypeError):
            return None

    # ------------------------------------------------------------------ the game's side

    def set_prompt(self, prompt: str) -> None:
        """Show ``prompt`` (readline's own form: escape sequences between \\x01 and \\x02)
        with the line typed so far, below anything still on the line."""
        self._call(lambda: self._show(prompt))

    def suspend(self) -> None:
        """Step below the prompt and the line typed so far, for output."""
        self._call(self._hide)

    def resume(self) -> None:
        """Draw the prompt and the line typed so far again, after output."""
        self._call(self._redraw)

    def stop(self) -> None:
        """End the thread: readline's handler removed (the terminal as readline found it) by
        the thread itself, which is waited for, so that nothing of readline runs after this
        (the caller then writes the history and restores the terminal)."""
        if self.stopped:
            return
        self._call(self._remove)
        self.stopped = True
        with contextlib.suppress(OSError):
            os.write(self.wake_w, b"x")
        thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(EDITOR_WAIT)

    def _remove(self) -> None:
        self._hide()
        self.lib.rl_callback_handler_remove()
        self.removed = True

    def _call(self, job: Callable[[], None]) -> None:
        if self.stopped:
            return
        done = threading.Event()
        with self.lock:
            self.jobs.append((job, done))
        with contextlib.suppress(OSError):
            os.write(self.wake_w, b"x")
        done.wait(EDITOR_WAIT)

    # ------------------------------------------------------------------ the thread's side

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="atout-stdin", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        lib = self.lib
        lib.rl_callback_handler_install(b"", self.handler)
        try:
            while not self.stopped:
                self._follow_size()
                try:
                    ready, _, _ = select.select([self.fd, self.wake_r], [], [], 0.5)
                except InterruptedError:
                    continue
                except (OSError, ValueError):
                    break
                if self.wake_r in ready:
                    with contextlib.suppress(OSError):
                        os.read(self.wake_r, 4096)
                    self._run_jobs()
                if self.fd in ready and not self.stopped:
                    lib.rl_callback_read_char()
        finally:
            # nothing waits on this thread any more (each request would wait EDITOR_WAIT)
            self.stopped = True
            self._run_jobs()
            if not self.removed:
                with contextlib.suppress(Exception):
                    lib.rl_callback_handler_remove()
                self.removed = True
            self.post(("eof",))

    def _run_jobs(self) -> None:
        while True:
            with self.lock:
                if not self.jobs:
                    return
                job, done = self.jobs.popleft()
            try:
                job()
            finally:
                done.set()

    def _follow_size(self) -> None:
        """Tell readline the window's new width (not while the prompt is hidden for the game's
        output: it would redraw it there; :meth:`_redraw` draws it with the new width)."""
        if self.hidden:
            return
        with contextlib.suppress(OSError):
            size = os.get_terminal_size(self.fd)
            if self.size is not None and size != self.size:
                self.lib.rl_resize_terminal()
            self.size = size

    def _on_line(self, ptr: int | None) -> None:
        """Readline's line handler: a line was entered (or Ctrl-D on an empty line)."""
        if ptr is None:
            # readline wrote nothing: end the line the cursor stands on
            self._write("\r\n")
            item: tuple[Any, ...] = ("eof", "key")
        else:
            line = ctypes.string_at(ptr).decode("utf-8", errors="replace")
            self.free(ctypes.c_void_p(ptr))  # the line is ours to free (readline's manual)
            if line.strip():
                self.readline.add_history(line)
            item = ("line", line)
        # the prompt is used up: the game shows the next one when it asks something
        self.prompt = ""
        self.hidden = False
        self.lib.rl_set_prompt(b"")
        self.post(item)

    def _visible(self) -> bool:
        return not self.hidden and (bool(self.prompt) or self.rl_end.value > 0)

    def _hide(self) -> None:
        if self.hidden:
            return
        if self._visible():
            self.point = self.rl_point.value
            self.rl_point.value = self.rl_end.value  # the cursor after the last line of it
            self.lib.rl_redisplay()
            self._write("\r\n")
        else:
            self.point = 0
        self.hidden = True

    def _redraw(self) -> None:
        if not self.hidden:
            return
        with contextlib.suppress(OSError):  # the window may have changed while hidden
            size = os.get_terminal_size(self.fd)
            if size != self.size:
                self.lib.rl_set_screen_size(size.lines, size.columns)
                self.size = size
        self.rl_point.value = min(self.point, self.rl_end.value)
        self.lib.rl_forced_update_display()  # from the start of a fresh line
        self.hidden = False

    def continued(self) -> None:
        """After Ctrl-Z and ``fg`` (SIGCONT): the shell gave the terminal its own settings
        back; readline's are set again and the prompt drawn again."""
        self._call(self._reprep)

    def _reprep(self) -> None:
        if self.removed:
            return
        self.lib.rl_deprep_terminal()  # readline skips preparing a terminal it thinks prepared
        self.lib.rl_prep_terminal(1)
        self.lib.rl_forced_update_display()

    def _show(self, prompt: str) -> None:
        self._hide()
        self.prompt = prompt
        self.lib.rl_set_prompt(prompt.encode("utf-8", errors="replace"))
        self._redraw()

    def _write(self, text: str) -> None:
        with contextlib.suppress(OSError):
            os.write(sys.stdout.fileno(), text.encode())


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

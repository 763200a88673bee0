"""The game loop: server messages and typed lines in, table redraws, narration and prompts out.

One asyncio queue carries everything that can happen: server messages and connection news from
:class:`client_cli.net.Link`, and lines typed on standard input (read by a daemon thread so that
Ctrl-C and the end of the program never wait for it). :class:`Game` handles them one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from rich.console import Console, RenderableType
from rich.text import Text

from protocol import texts

from . import bot
from . import cards as C
from . import seats as saved_seats
from .accounts import par_text
from .decisions import (
    Decision,
    DiscardDecision,
    PlayDecision,
    decision_for,
)
from .hints import command_line, default_name
from .i18n import Tr
from .lineinput import Editor, LineInput
from .model import ACTION_EVENTS, DealModel, TableModel, trick_gain
from .net import Link, LinkError, ServerError
from .refusals import refusal
from .render import (
    COMPACT,
    CardStyle,
    hand_view,
    review_view,
    safe,
    safe_line,
    score_sheet_view,
    seat_name,
    standings_view,
    summary_view,
    table_view,
    tr_text,
    trick_text,
)
from .settings import Settings


@dataclass
class Options:
    auto: bool = False
    json: bool = False
    interactive: bool = True  # pause after each deal for the summary / review
    waiting_hint: bool = True  # say how to start a table that waits for players
    auto_single: bool = False  # play the only legal card without asking


# Commands typed at any prompt, in every language (French and Czech words work whatever the
# language).
COMMANDS: dict[str, tuple[str, ...]] = {
    "help": ("help", "h", "?", "aide", "nápověda", "napoveda"),
    "table": ("table", "t", "stůl", "stul"),
    "review": ("review", "r", "revoir", "přehled", "prehled"),
    "score": ("score", "scores", "skóre", "skore"),
    "quit": ("quit", "q", "exit", "quitter", "konec"),
    "start": ("start", "commencer", "začít", "zacit"),
    "rules": ("rules", "règles", "regles", "pravidla"),
    "rule": ("rule", "règle", "regle", "pravidlo"),
    "set": ("set", "régler", "regler", "nastavit"),
}
_COMMAND_OF = {w: c for c, words in COMMANDS.items() for w in words}
_RULE_IN_TEXT = re.compile(r"\b(R\d+(?:\.\d+)?)\b")
#: Seconds a rejoin's summary may take to fetch the deals missed before the table is shown.
REPORT_WAIT = 2.0
REMINDERS = (30, 10, 5)  # seconds left on a turn timer when the player is reminded


def command_of(text: str) -> tuple[str | None, str]:
    """(the command a typed line names, its argument), or (None, "") for anything else."""
    word, _, arg = text.strip().partition(" ")
    return _COMMAND_OF.get(word.lower()), arg.strip()


class UI:
    """Where output goes: rich on a terminal, or JSON lines (``--json``).

    A prompt stays on screen while the player types. Output that arrives meanwhile (another
    seat's move, a connection notice) starts on a fresh line, and the prompt is drawn again
    after it, with what was typed so far (:meth:`restore_prompt`)."""

    def __init__(self, tr: Tr, *, json_mode: bool = False, out: TextIO | None = None) -> None:
        self.tr = tr
        self.json = json_mode
        out = out or sys.stdout
        enc = (getattr(out, "encoding", None) or "").lower()
        self.cs = CardStyle(unicode=enc.startswith("utf"), lang=tr.lang)
        # In JSON mode, human-readable lines go to stderr so stdout stays machine-readable.
        self.console = Console(
            file=sys.stderr if json_mode else out, highlight=False, emoji=False, soft_wrap=False
        )
        self.prompting: str | None = None  # the prompt on screen, waiting for a line
        self.interrupted: str | None = None  # a prompt that output pushed up: draw it again
        self.status: str | None = None  # the connection status line, updated in place
        self.line_buffer: Callable[[], str] = lambda: ""
        # readline's callback interface, which owns the prompt (client_cli/lineinput.py);
        # None: prompts are printed here
        self.editor: Editor | None = None
        dumb = os.environ.get("TERM", "") in ("", "dumb")
        self.clear_line = "\r" if dumb else "\r\x1b[2K"

    @property
    def width(self) -> int:
        return int(self.console.width)

    def set_language(self, tr: Tr) -> None:
        self.tr = tr
        self.cs = CardStyle(unicode=self.cs.unicode, lang=tr.lang)

    def _before_output(self) -> None:
        if self.status is not None:
            self.console.file.write(self.clear_line)
            self.status = None
        if self.editor is not None:
            # readline draws the prompt and the line typed so far: it steps below them
            self.console.file.flush()
            self.editor.suspend()
            if self.prompting is not None:
                self.interrupted, self.prompting = self.prompting, None
            return
        if self.prompting is not None:
            self.console.file.write("\n")  # never glued to the prompt
            self.interrupted, self.prompting = self.prompting, None

    def show(self, *items: RenderableType) -> None:
        if not self.json:
            self._before_output()
            for item in items:
                self.console.print(item)

    def say(self, text: str | Text, style: str | None = None) -> None:
        if self.json:
            return
        self._before_output()
        if isinstance(text, str):
            text = Text(safe(text), style=style or "")
        self.console.print(text)

    def note(self, text: str) -> None:
        """Connection news and other messages worth seeing even in JSON mode (on stderr)."""
        if self.json:
            print(safe(text), file=sys.stderr, flush=True)
        else:
            self._before_output()
            self.console.print(Text(safe(text), style="yellow"))

    def status_line(self, text: str) -> None:
        """One line that the next status replaces (reconnection attempts), not a new line
        each time; JSON mode writes it to stderr."""
        if self.json:
            print(safe(text), file=sys.stderr, flush=True)
            return
        if self.status is None:
            self._before_output()
        self.interrupted = None  # the prompt comes back when the connection does
        f = self.console.file
        pad = " " * max(0, len(self.status or "") - len(text))
        f.write(self.clear_line + safe(text) + pad)
        f.flush()
        self.status = text

    def command(self, text: str, *, note: bool = False) -> None:
        """A command line for the player to copy: on a line of its own, indented, never
        broken by wrapping (a terminal narrower than it folds it, without a line break).
        With ``note``, it belongs to a :meth:`note` and is written in JSON mode too."""
        if self.json:
            if note:
                print("    " + safe_line(text), file=sys.stderr, flush=True)
            return
        self._before_output()
        self.console.print(Text("    " + safe_line(text), style="bold cyan"), soft_wrap=True)

    def error(self, text: str) -> None:
        if self.json:
            print(
                json.dumps({"type": "client_error", "message": text}, ensure_ascii=False),
                flush=True,
            )
        else:
            self._before_output()
            self.console.print(Text(safe(text), style="bold red"))

    def prompt(self, text: str) -> None:
        if self.json:
            return
        if self.status is not None:
            self.console.file.write("\n")
            self.status = None
        if self.editor is not None:
            self.console.file.flush()
            self.editor.set_prompt(self.readline_prompt(text))
        else:
            self.console.print(Text(f"{safe_line(text)} > ", style="bold"), end="")
            self.console.file.flush()
        self.prompting, self.interrupted = text, None

    def readline_prompt(self, text: str) -> str:
        """The prompt as readline draws it: control characters spelled out, and the escape
        sequences of its style between \\x01 and \\x02, which readline counts as no width."""
        plain = f"{safe_line(text)} > "
        if self.console.color_system is None or self.console.is_dumb_terminal:
            return plain
        return f"\x01\x1b[1m\x02{plain}\x01\x1b[0m\x02"

    def restore_prompt(self, current: str | None) -> None:
        """Draw again a prompt that output pushed up, with the line typed so far, if it is
        still ``current`` (the question the game asks now). One that no longer applies (the
        lobby's ``start, help or quit`` once the table plays) is not drawn again: only what
        was typed, on a line of its own."""
        stale = self.interrupted is not None and self.interrupted != current
        if self.editor is not None:
            if self.status is None and not self.json:  # a status line keeps the cursor
                self.console.file.flush()
                if stale:
                    self.editor.set_prompt("")  # readline's prompt, too, is used up
                else:
                    self.editor.resume()
            self.interrupted = None
            return
        text, self.interrupted = self.interrupted, None
        if text is not None and not self.json:
            typed = self.line_buffer()
            if not stale:
                self.prompt(text)
            if typed:
                self.console.file.write(typed)
                self.console.file.flush()

    def got_line(self) -> None:
        self.prompting = self.interrupted = None

    def raw(self, msg: dict[str, Any], text: str | None = None) -> None:
        """``--json``: one protocol message a line, as the server sent it."""
        if self.json:
            print(text if text is not None else json.dumps(msg, ensure_ascii=False), flush=True)


class Game:
    """Plays (or watches) one table until it finishes, closes, or the player quits."""

    def __init__(
        self,
        link: Link,
        queue: asyncio.Queue[tuple[Any, ...]],
        model: TableModel,
        ui: UI,
        opts: Options,
        *,
        settings: Settings | None = None,
        line_input: LineInput | None = None,
        rejoin: dict[str, Any] | None = None,
    ) -> None:
        self.link = link
        self.queue = queue
        self.model = model
        self.ui = ui
        self.opts = opts
        self.settings = settings or Settings()
        self.input = line_input
        self.decision: Decision | None = None
        self.pending: tuple[Any, dict[str, Any]] | None = None  # (request id, body) in flight
        self.paused = False  # showing the end-of-deal prompt
        self.backlog: deque[tuple[Any, ...]] = deque()
        self.exit_code: int | None = None
        self.waiting_shown = -1
        self.start_id: Any = None
        self.finished = False  # the table finished or closed (as opposed to the player quitting)
        self.par_shown: set[int] = set()  # deals whose par (issue 12) was told
        # a par that came while a prompt waited: told with the next event, not by drawing the
        # prompt again (a par comes whenever its review is done, often in the next bidding)
        self.par_waiting: list[tuple[int, str]] = []
        self.own_sent = 0  # our accepted actions whose events have not arrived yet
        self.unconfirmed: dict[str, Any] | None = None  # an action sent as the connection fell
        self.away = False  # the connection dropped: the AI may act for us until we are back
        self.away_actions: list[dict[str, Any]] = []
        self.rejoin = rejoin  # the kept seat we came back to (what we knew when we left)
        self.reporting = False  # telling what happened while we were away: no prompt yet
        self.confirm_quit = False
        self.last_rule: str | None = None  # the rule the last refusal cited (`rule` shows it)
        self.shown_at = 0.0  # when another seat's move was last shown (pacing)
        self.timer_task: asyncio.Task[None] | None = None
        self.pause_task: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[Any]] = set()

    @property
    def tr(self) -> Tr:
        return self.ui.tr

    @property
    def cs(self) -> CardStyle:
        return self.ui.cs

    @property
    def spectator(self) -> bool:
        return self.model.seat is None

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # ------------------------------------------------------------------ main loop

    async def run(self) -> int:
        self._after_message()
        self.ui.restore_prompt(self._current_prompt())
        while self.exit_code is None:
            if self.backlog and not self.paused:
                item = self.backlog.popleft()
            else:
                item = await self.queue.get()
            kind = item[0]
            if kind == "msg":
                if self.paused:
                    self.backlog.append(item)
                    continue
                self._on_message(item[1], item[2] if len(item) > 2 else None)
                await self._pace(item[1])
            elif kind == "line":
                self.ui.got_line()
                await self._on_line(item[1])
            elif kind == "eof" and len(item) > 1:
                # Ctrl-D at the terminal: as `quit` (asking first in the middle of a game);
                # a second Ctrl-D answers yes
                self.ui.got_line()
                if self.confirm_quit:
                    self.exit_code = 0
                else:
                    await self._on_line("quit")
            elif kind == "eof":
                if not (self.opts.auto or self.spectator):
                    self.exit_code = 0
            elif kind == "net":
                self._on_net(item[1], item[2])
            elif kind == "go_on" and self.paused:
                self._resume_after_pause()
            elif kind == "call":
                await item[1]()
            if self.exit_code is None and not self.paused:
                await self._act_if_due()
            self.ui.restore_prompt(self._current_prompt())
        for task in list(self.tasks):
            task.cancel()
        return self.exit_code

    async def _pace(self, msg: dict[str, Any]) -> None:
        """Leave at least ``speed`` seconds between two moves of the other players as they
        are shown, unless it is our turn already (the turn timer runs)."""
        ev = msg.get("event") or {}
        if (
            msg.get("type") != "event"
            or ev.get("type") not in ACTION_EVENTS
            or ev.get("seat") == self.model.seat
            or self.opts.auto
            or self.opts.json
            or self.settings.speed <= 0
        ):
            return
        loop = asyncio.get_running_loop()
        wait = self.shown_at + self.settings.speed - loop.time()
        queued = list(getattr(self.queue, "_queue", ()))
        ours = any(i[0] == "msg" and i[1].get("type") == "your_turn" for i in queued)
        if wait > 0 and not ours:
            await asyncio.sleep(wait)
        self.shown_at = loop.time()

    # ------------------------------------------------------------------ server messages

    def _on_message(self, msg: dict[str, Any], raw: str | None = None) -> None:
        self.ui.raw(msg, raw)
        m = self.model
        t = msg.get("type")
        if t in ("snapshot", "event", "your_turn") and msg.get("table") not in (None, m.table):
            return
        if self.pending is not None and "id" in msg and msg.get("id") == self.pending[0]:
            self._on_answer(msg)
            return
        if t == "error" and msg.get("id") is not None and msg.get("id") == self.start_id:
            self.ui.error(self._server_error_text(msg))
            return
        if t in ("ok", "joined", "watching", "pong", "error", "deal", "tables"):
            return  # answers to requests we no longer wait for (e.g. sent before a reconnect)
        before = [m.seat_info(s) for s in range(4)]  # to tell a join from a reconnection
        had_decision = self.decision is not None
        events = m.apply(msg)
        if t == "snapshot":
            self.decision = None
            self.pending = None
            if m.state in ("finished", "closed") and not self.spectator:
                self._spawn(self._game_over_on_arrival())
            if self.rejoin is not None:
                saved, self.rejoin = self.rejoin, None
                self.reporting = True  # the summary first, then the table and our decision
                self._spawn(self._report_missed(saved))
            elif not self.spectator and m.deal is not None and not self.opts.json:
                self._show_table()
        if t == "your_turn":
            self._start_timer(msg.get("timer"))
        for ev in events:
            self._narrate(ev, before)
            mine = m.seat is not None and ev.get("seat") == m.seat
            if mine and ev.get("type") in ACTION_EVENTS:
                self._own_action(ev, had_decision)
            elif mine and ev.get("type") == "seat" and ev.get("connected"):
                self._back()
        if t == "your_turn":
            self._back()
        if self.decision is not None and not m.my_turn():
            self.decision = None  # the moment passed (the deal moved on without us)
        if not m.my_turn():
            self._stop_timer()
        self._after_message()

    def _own_action(self, ev: dict[str, Any], had_decision: bool) -> None:
        """An action of our seat: ours (a request the server accepted) or the AI's for us."""
        if self.own_sent:
            self.own_sent -= 1
            return
        u = self.unconfirmed
        if u is not None and all(ev.get(k) == v for k, v in u.items() if k != "table"):
            self.unconfirmed = None  # sent just before the connection dropped: it was taken
            return
        if self.away:
            self.away_actions.append(ev)
        elif had_decision and self.model.timer is not None:
            self.ui.note(self.tr("ev.timeout"))
        else:
            self.ui.note(self.tr("ev.ai_for_you", action=self._action_text(ev)))

    def _action_text(self, ev: dict[str, Any]) -> str:
        t = ev.get("type")
        if t == "bid":
            return self.tr.contract(ev.get("contract"))
        if t == "play":
            return self.cs.label(str(ev.get("card")))
        if t == "discard":
            return self.tr("act.discard")
        if t == "chelem":
            return self.tr("act.chelem_yes" if ev.get("announce") else "act.chelem_no")
        return self.tr("act.poignee")

    def _back(self) -> None:
        """We are at the table again (our seat shows connected, or the server prompts us):
        say what the AI did for us meanwhile."""
        if not self.away:
            return
        self.away = False
        acts, self.away_actions = self.away_actions, []
        if acts:
            self.ui.note(
                self.tr(
                    "ev.away_actions",
                    n=len(acts),
                    actions=", ".join(self._action_text(e) for e in acts),
                )
            )

    def _after_message(self) -> None:
        m = self.model
        if m.info and m.state == "waiting" and not self.spectator and self.opts.waiting_hint:
            seated = sum(1 for s in m.info.get("seats") or [] if s.get("kind") == "human")
            if seated != self.waiting_shown:
                self.waiting_shown = seated
                self.ui.note(self.tr("prompt.start", n=seated))
                if not self.opts.auto:
                    self.ui.prompt(self.tr("prompt.lobby"))

    def _on_answer(self, msg: dict[str, Any]) -> None:
        _rid, body = self.pending  # type: ignore[misc]
        self.pending = None
        if msg.get("type") != "error":
            if body.get("type") in ACTION_EVENTS:
                self.own_sent += 1  # its event follows the `ok`
            self.decision = None
            self.model.legal = None  # used up: the next prompt comes with the next your_turn
            return
        d = self.decision
        text = self._server_error_text(msg, body.get("type"))
        if isinstance(d, DiscardDecision):
            text += "\n" + d.rule_text()
        self._refusal(text, msg.get("rule"))
        if d is not None and self.model.my_turn():
            self.ui.prompt(d.prompt())
        else:
            self.decision = None

    def _server_error_text(self, msg: dict[str, Any], request: Any = None) -> str:
        """A refusal in the player's language, from its stable ``code`` (and ``rule``); the
        server's English ``message`` only for a code this client does not know."""
        text = refusal(self.tr, msg, request if isinstance(request, str) else None)
        if msg.get("rule"):
            text += " " + self.tr("err.rule", rule=msg["rule"])
        return text

    def _refusal(self, text: str, rule: str | None = None) -> None:
        """Show a refusal; when it cites a rule, offer to read it (`rule`): the rule the
        refusal itself cites (its first), not one of a reminder that follows it."""
        self.ui.error(text)
        found = rule or next(iter(_RULE_IN_TEXT.findall(text)), None)
        if found and texts.find(found, self.tr.lang) is not None:
            self.last_rule = found
            self.ui.say(self.tr("prompt.see_rule", rule=found), "dim")

    def _on_net(self, kind: str, info: Any) -> None:
        if kind == "lost":
            self.ui.status_line(
                self.tr("net.lost", s=info["delay"], n=info["attempt"], t=info.get("elapsed", 0))
            )
            if self.pending is not None and self.pending[1].get("type") in ACTION_EVENTS:
                self.unconfirmed = self.pending[1]  # it may have been taken before the cut
            self.pending = None
            self.decision = None  # the server prompts again once the seat is resumed
            self._stop_timer()
            if not self.spectator:
                self.away = True
        elif kind == "resumed":
            self.ui.note(self.tr("net.resumed"))
            self._reprompt()
        elif kind == "rewatched":
            self.ui.note(self.tr("net.rewatch"))
        elif kind == "fatal":
            err: LinkError = info
            self.ui.error(self.tr(err.key, **err.info))
            if err.key == "err.gave_up" and not self.spectator and self.link.grace > 0:
                name = None if self.link.name == default_name() else self.link.name
                command = command_line("join", self.model.table, self.link.url, name)
                self.ui.note(self.tr("bye.seat", grace=self.link.grace))
                self.ui.command(command, note=True)
            self.exit_code = 1

    # ------------------------------------------------------------------ turn timer

    def _start_timer(self, timer: Any) -> None:
        """A turn timer (``your_turn.timer``): remind the player as it runs out."""
        self._stop_timer()
        if timer is None or self.opts.auto or self.opts.json:
            return
        self.timer_task = asyncio.get_running_loop().create_task(self._remind(float(timer)))

    def _stop_timer(self) -> None:
        if self.timer_task is not None:
            self.timer_task.cancel()
            self.timer_task = None

    async def _remind(self, timer: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timer
        for left in REMINDERS:
            if left >= timer:
                continue
            await asyncio.sleep(max(0.0, deadline - left - loop.time()))
            await self.queue.put(("call", lambda s=left: self._remind_now(s)))

    async def _remind_now(self, left: int) -> None:
        if self.model.my_turn():
            self.ui.note(self.tr("screen.timer_left", s=left))

    # ------------------------------------------------------------------ narration

    def name(self, seat: int | None) -> str:
        return seat_name(self.model, seat, self.tr)

    def _line(
        self,
        key: str,
        seat: int | None = None,
        parts: dict[str, Text] | None = None,
        style: str = "",
        **kw: Any,
    ) -> None:
        """Say a translated sentence about ``seat``: its ``_you`` form when that is us."""
        if seat is not None and seat == self.model.seat and (key + "_you") in self.tr.table:
            key += "_you"
        text = tr_text(self.tr, key, parts, name=self.name(seat), **kw)
        if style:
            text.stylize(style)
        self.ui.say(text)

    def _show_table(self, *, hand: bool = True) -> None:
        """The table, and our hand whenever we are seated (also while others bid or play)."""
        m = self.model
        self.ui.show(table_view(m, self.tr, self.cs, self.ui.width))
        if hand and not self.spectator and m.deal is not None and m.deal.hand:
            self.ui.show(hand_view(m.deal.hand, self.cs, self.tr))

    def _narrate(self, ev: dict[str, Any], before: list[dict[str, Any]]) -> None:
        tr, m, t = self.tr, self.model, ev.get("type")
        d = m.deal
        cs = self.cs
        quiet = self.opts.json
        if self.par_waiting and t != "par":
            for no, text in self.par_waiting:
                self.par_shown.add(no)
                self.ui.say(Text(text, style="dim"))
            self.par_waiting = []
        if t == "seat":
            n = int(ev.get("seat", 0))
            who = safe_line(ev.get("name") or "?")
            prev = before[n] if 0 <= n < 4 else {}
            if ev.get("kind") == "human" and n != m.seat:
                if prev.get("kind") != "human" or prev.get("name") != ev.get("name"):
                    self.ui.say(Text(tr("ev.seat_joined", name=who, n=n), style="dim"))
                elif prev.get("connected") and not ev.get("connected"):
                    self.ui.say(Text(tr("ev.seat_away", name=who), style="yellow"))
                elif not prev.get("connected") and ev.get("connected"):
                    self.ui.say(Text(tr("ev.seat_back", name=who), style="dim"))
            elif ev.get("kind") == "ai" and prev.get("kind") == "human" and m.state == "playing":
                self.ui.say(Text(tr("ev.seat_ai", n=n), style="dim"))
            elif ev.get("kind") == "empty" and prev.get("kind") == "human":
                self.ui.say(Text(tr("ev.seat_empty", n=n), style="dim"))
        elif t == "table_state":
            state = ev.get("state")
            if state == "playing":
                self.ui.say(tr("ev.started"), "bold")
            elif state == "finished":
                self.ui.say(tr("ev.finished"), "bold")
                self.ui.show(
                    score_sheet_view(m, tr, self.ui.width < COMPACT),
                    standings_view(m, tr, final=True),
                )
                self.finished = True
                self.exit_code = 0
            elif state == "closed":
                reason = tr(f"closed.{ev.get('reason')}") if ev.get("reason") else ""
                self.ui.say(tr("ev.closed", reason=reason), "bold")
                self.finished = True
                self.exit_code = 0
        elif t == "deal_start" and d is not None:
            self.ui.say(
                Text(tr("ev.deal_start", n=d.deal_no, name=self.name(d.dealer)), style="bold")
            )
            if not quiet and not self.opts.auto and d.turn is not None:
                # what we hold while the others bid (a spectator sees the table)
                self._show_table(hand=not self.spectator)
        elif t == "bid":
            if ev["contract"] == "pass":
                self._line("ev.pass", ev["seat"])
            else:
                self._line("ev.bid", ev["seat"], contract=tr.contract(ev["contract"]))
        elif t == "contract":
            self._line(
                "ev.contract", ev["taker"], style="bold", contract=tr.contract(ev["contract"])
            )
        elif t == "chien":
            self._line("ev.chien", parts={"cards": cs.row(C.sort_cards(ev["cards"]))})
        elif t == "discard":
            if ev.get("cards") is not None and ev["seat"] == m.seat:
                self._line("ev.discard_you", parts={"cards": cs.row(C.sort_cards(ev["cards"]))})
            elif ev.get("trumps"):
                self._line(
                    "ev.discard_trumps",
                    ev["seat"],
                    parts={"cards": cs.row(ev["trumps"])},
                    n=len(ev["trumps"]),
                )
            else:
                self._line("ev.discard", ev["seat"])
        elif t == "chelem":
            key = "ev.chelem_yes" if ev.get("announce") else "ev.chelem_no"
            self._line(key, ev.get("leader"), style="bold" if ev.get("announce") else "")
            if self.spectator and not quiet:
                self._show_table(hand=False)
        elif t == "poignee":
            self._line(
                "ev.poignee",
                ev["seat"],
                parts={"cards": cs.row(ev["cards"])},
                level=tr(f"level_acc.{ev['level']}"),
            )
        elif t == "play":
            card = cs.text(ev["card"])
            card.append(f" ({tr.card_name(ev['card'])})", style="dim")
            self._line("ev.play", ev["seat"], parts={"card": card})
        elif t == "trick" and d is not None:
            index = ev["number"] - 1
            pts = trick_gain(d, index) if 0 <= index < len(d.tricks) else C.points(ev["cards"])
            key = "ev.trick"
            extra: dict[str, Any] = {}
            owner = self._excuse_kept(ev, index)
            if owner is not None and owner == m.seat:
                key = "ev.trick_excuse_mine"
            elif owner is not None:
                key = "ev.trick_excuse"
                extra["owner"] = self.name(owner)
            self._line(
                key,
                ev["winner"],
                parts={"cards": trick_text(m, ev, tr, cs)},
                n=ev["number"],
                points=pts,
                **extra,
            )
            if self.spectator and ev["number"] < 18 and not quiet:
                self._show_table(hand=False)
        elif t == "deal_over":
            r = ev.get("result") or {}
            if r.get("status") == "annulled":
                self.ui.say(tr("ev.annulled", reason=tr(f"reason.{r.get('reason')}")), "bold")
                if (self.model.info.get("deals") or 0) and r.get("reason") == "all_passed":
                    self.ui.say(tr("ev.dealt_again"), "dim")
        elif t == "scores":
            self._deal_summary()
        elif t == "par" and m.seat is not None and not self.spectator:
            par_line = par_text(tr, ev, m.seat)  # the reference bot with our cards (issue 12)
            if par_line is not None and self.ui.prompting is not None:
                self.par_waiting.append((int(ev.get("deal_no") or 0), par_line))
            elif par_line is not None:
                self.par_shown.add(int(ev.get("deal_no") or 0))
                self.ui.say(Text(par_line, style="dim"))

    def _excuse_kept(self, ev: dict[str, Any], index: int) -> int | None:
        """The player whose Excuse stayed with them although the other side won the trick
        (R8.1), or None."""
        d = self.model.deal
        if d is None or d.taker is None or index >= 17 or C.EXCUSE not in ev["cards"]:
            return None
        player = (ev["leader"] + ev["cards"].index(C.EXCUSE)) % 4
        if (player == d.taker) != (ev["winner"] == d.taker):
            return player
        return None

    def _show_summary(self) -> bool:
        """The last finished deal's summary and the standings (False: no deal finished)."""
        m = self.model
        if not m.finished_deals:
            return False
        deal = m.finished_deals[-1][0]
        self.ui.show(summary_view(m, deal, self.tr, self.cs), standings_view(m, self.tr))
        return True

    def _deal_summary(self) -> None:
        if not self._show_summary():
            return
        if (
            self.opts.interactive
            and not self.opts.auto
            and not self.opts.json
            and not self.spectator
        ):
            self.paused = True
            self._pause_prompt()
            if self.settings.pause is not None:
                self.pause_task = asyncio.get_running_loop().create_task(
                    self._go_on_after(self.settings.pause)
                )

    async def _go_on_after(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        await self.queue.put(("go_on",))

    def _resume_after_pause(self) -> None:
        self.paused = False
        if self.pause_task is not None:
            self.pause_task.cancel()
            self.pause_task = None

    def _is_last_deal(self) -> bool:
        return self.model.state == "finished"

    def _pause_text(self) -> str:
        """The end-of-deal prompt: `r` reviews the tricks, or for a deal nobody took (no
        tricks) shows the hands as dealt."""
        m = self.model
        key = "prompt.last_continue" if self._is_last_deal() else "prompt.continue"
        last = m.finished_deals[-1][0] if m.finished_deals else None
        if last is not None and last.taker is None and not last.tricks:
            key += "_hands"
        return self.tr(key)

    def _pause_prompt(self) -> None:
        self.ui.prompt(self._pause_text())

    # ------------------------------------------------------------------ rejoining

    async def _report_missed(self, saved: dict[str, Any]) -> None:
        """After coming back to a kept seat: what happened while we were away (deals played
        and their results, moves the AI made for us), from the snapshot and the records."""
        lines: list[str] = []
        try:
            # The server's turn timer runs on while the records are fetched (a resume does not
            # start it again): what is known after REPORT_WAIT is told, then the table.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._missed_lines(saved, lines), REPORT_WAIT)
        finally:  # whatever happened, the table and our decision come after it
            await self.queue.put(("call", lambda: self._show_missed(lines)))

    async def _missed_lines(self, saved: dict[str, Any], lines: list[str]) -> None:
        m = self.model
        seat = m.seat
        left_at = int(saved.get("deal_no") or 0)
        own_before = int(saved.get("own") or 0)
        now = m.deal.deal_no if m.deal is not None else int(m.info.get("deal_no") or 0)
        if left_at and now > left_at:
            last_done = now if m.deal is not None and m.deal.phase == "over" else now - 1
            for no in range(left_at, last_done + 1):
                d = await self._deal_model(no)
                if d is None:
                    continue
                lines.append(self._deal_line(d))
                if no == left_at and seat is not None:
                    acts = d.own_actions(seat)[own_before:]
                    if acts:
                        lines.append(self._moves_line(acts, no))
            own_before = 0
        if m.deal is not None and seat is not None and m.deal.phase != "over":
            acts = m.deal.own_actions(seat)[own_before if now == left_at else 0 :]
            if acts:
                lines.append(self._moves_line(acts, m.deal.deal_no))

    async def _show_missed(self, lines: list[str]) -> None:
        """The summary of what we missed, then the table once: with our decision when it is
        our turn (the game loop asks it right after this), else on its own."""
        self.reporting = False
        m = self.model
        if lines:
            self.ui.note(self.tr("rejoin.title"))
            for line in lines:
                self.ui.note("  " + line)
        if m.deal is None or self.opts.json:
            return
        await self._act_if_due()
        if self.decision is None and self.pending is None:
            self._show_table()

    async def _game_over_on_arrival(self) -> None:
        """We came back to a table whose series is over: say so, show how it ended, leave."""
        await asyncio.gather(*(t for t in self.tasks if t is not asyncio.current_task()))
        await self._fill_series()
        m = self.model
        self.ui.say(self.tr("ev.finished"), "bold")
        self.ui.show(
            score_sheet_view(m, self.tr, self.ui.width < COMPACT),
            standings_view(m, self.tr, final=True),
        )
        self.finished = True
        await self.queue.put(("call", self._finish))

    async def _finish(self) -> None:
        self.exit_code = 0

    def _moves_line(self, acts: list[dict[str, Any]], deal_no: int) -> str:
        return self.tr(
            "rejoin.moves",
            deal=deal_no,
            n=len(acts),
            actions=", ".join(self._action_text(a) for a in acts),
        )

    def _deal_line(self, d: DealModel) -> str:
        r = d.result or {}
        if r.get("status") != "played":
            return self.tr(
                "rejoin.annulled", n=d.deal_no, reason=self.tr(f"reason.{r.get('reason')}")
            )
        diff = abs(float(r.get("taker_points") or 0) - float(r.get("target") or 0))
        seat = self.model.seat
        mine = float((r.get("scores") or [0] * 4)[seat]) if seat is not None else 0.0
        return self.tr(
            "rejoin.played_made" if r.get("won") else "rejoin.played_failed",
            n=d.deal_no,
            name=self.name(r.get("taker")),
            contract=self.tr.contract_short(r.get("contract")),
            d=diff,
            score=mine,
        )

    async def _deal_model(self, deal_no: int) -> DealModel | None:
        """A finished deal of the table: known from the stream, or its record from the server
        (interface 2, ``deal``)."""
        m = self.model
        if deal_no in m.deals:
            return m.deals[deal_no]
        try:
            answer = await self.link.call({"type": "deal", "table": m.table, "deal_no": deal_no})
        except (ServerError, ConnectionError, TimeoutError, KeyError):
            return None  # an older server, or a deal it cannot give
        rec = answer.get("record")
        if not isinstance(rec, dict):
            return None
        d = DealModel.from_record(rec, deal_no)
        m.deals[deal_no] = d
        return d

    async def _fill_series(self) -> None:
        """Fetch the series' deals finished before we joined, for the score sheet."""
        m = self.model
        now = m.deal.deal_no if m.deal is not None else int(m.info.get("deal_no") or 0)
        last = now if m.deal is not None and m.deal.phase == "over" else now - 1
        want = int(m.info.get("scored") or 0)
        first = m.series_start
        played = 0
        for no in range(last, 0, -1):
            if first is not None and no < first:
                break
            if first is None and played >= want:
                break
            d = await self._deal_model(no)
            if d is None:
                break
            played += (d.result or {}).get("status") == "played"

    # ------------------------------------------------------------------ decisions

    async def _act_if_due(self) -> None:
        m = self.model
        if self.spectator or self.pending is not None or self.decision is not None:
            return
        if self.reporting:
            return  # after the summary of what we missed (_show_missed)
        if not self.link.connected:
            return  # once the seat is resumed the server prompts again
        if not m.my_turn() or m.deal is None or m.legal is None:
            return
        hand = list(m.deal.hand or [])
        trick = list((m.deal.trick or {}).get("cards") or [])
        if self.opts.auto:
            await self._send(bot.choose(m.legal, hand))
            return
        d = decision_for(m.legal, hand, self.tr, self.cs, trick)
        if d is None:
            return
        if isinstance(d, PlayDecision) and self.opts.auto_single and d.single():
            card = d.single()
            self.ui.say(self.tr("prompt.only_card", card=self.cs.label(str(card))), "dim")
            await self._send({"type": "play", "card": card})
            return
        self.decision = d
        self._show_decision(table=True)

    def _show_decision(self, *, table: bool) -> None:
        """The table (with ``table``), the hand with this decision's numbers, options, prompt."""
        d = self.decision
        if d is None:
            return
        m = self.model
        if table:
            self.ui.show(table_view(m, self.tr, self.cs, self.ui.width))
        self.ui.show(hand_view(d.hand, self.cs, self.tr, d.numbers or None, legend=d.legend))
        if table and m.timer:
            self.ui.say(self.tr("screen.timer", s=m.timer), "yellow")
        for line in d.header():
            self.ui.show(line)
        if self.input is not None:
            self.input.completions = d.completions() + [
                w for ws in COMMANDS.values() for w in ws[:1]
            ]
        self.ui.prompt(d.prompt())

    async def _send(self, body: dict[str, Any]) -> None:
        full = {**body, "table": self.model.table}
        try:
            rid = await self.link.send(full)
        except ConnectionError:
            return  # the link is reconnecting; the server will prompt again
        self.pending = (rid, full)

    # ------------------------------------------------------------------ typed lines

    def _current_prompt(self) -> str | None:
        """The question the game asks now, or None when it waits for nobody's answer."""
        if self.confirm_quit:
            return self.tr("prompt.quit_confirm")
        if self.paused:
            return self._pause_text()
        if self.decision is not None and self.pending is None:
            return self.decision.prompt()
        m = self.model
        if m.state == "waiting" and not self.spectator and not self.opts.auto:
            return self.tr("prompt.lobby")
        return None

    def _reprompt(self) -> None:
        p = self._current_prompt()
        if p is not None:
            self.ui.prompt(p)

    async def _on_line(self, line: str) -> None:
        text = line.strip()
        if self.confirm_quit:
            self.confirm_quit = False
            if text.lower() in self.tr.yes_words():
                self.exit_code = 0
            else:
                self._reprompt()
            return
        cmd, arg = command_of(text)
        if self.paused:
            # Enter goes on; the commands about this deal or the game work here; anything else
            # is said to do nothing (it used to count as Enter)
            if not text:
                self._resume_after_pause()
                return
            if cmd == "review":
                await self._review(arg)
                self._pause_prompt()
                return
            if cmd == "score":
                await self._score()
                self._pause_prompt()
                return
            if cmd == "quit":
                self.exit_code = 0
                return
            if cmd == "table":  # the deal that just ended (the next one waits for Enter)
                self._show_summary()
                self._pause_prompt()
                return
            if cmd not in ("help", "rules", "rule", "set"):
                self.ui.say(self.tr("prompt.pause_help"), "dim")
                self._pause_prompt()
                return
        if cmd == "help":
            self.ui.say(self.tr("help.commands"))
            self.ui.say(self.tr("help.codes"))
            self._reprompt()
            return
        if cmd == "quit":
            m = self.model
            if not self.spectator and m.state == "playing":
                self.confirm_quit = True
                self.ui.prompt(self.tr("prompt.quit_confirm"))
                return
            self.exit_code = 0
            return
        if cmd == "table":
            if self.decision is not None:
                self._show_decision(table=True)
            else:
                self._show_table()
                self._reprompt()
            return
        if cmd == "review":
            await self._review(arg)
            self._reprompt()
            return
        if cmd == "score":
            await self._score()
            self._reprompt()
            return
        if cmd == "rules":
            self._rules(arg)
            self._reprompt()
            return
        if cmd == "rule":
            self._rules(arg or self.last_rule or "", exact=True)
            self._reprompt()
            return
        if cmd == "set":
            self._set(arg)
            self._reprompt()
            return
        if cmd == "start" and self.model.state == "waiting":
            with contextlib.suppress(ConnectionError):
                self.start_id = await self.link.send({"type": "start", "table": self.model.table})
            return
        d = self.decision
        if d is None or self.pending is not None:
            m = self.model
            if m.state == "waiting" and not self.spectator:
                if text:
                    self.ui.say(self.tr("prompt.lobby_help"), "dim")
                self._reprompt()
            elif m.deal is not None and m.deal.turn is not None and not self.spectator:
                self.ui.say(self.tr("prompt.idle", name=self.name(m.deal.turn)), "dim")
            return
        out = d.handle(text)
        if out.error:
            self._refusal(out.error)
            self.ui.prompt(d.prompt())
        elif out.next is not None:
            self.decision = out.next
            self._show_decision(table=False)  # the hand again, now with the playable cards numbered
        elif out.action is not None:
            await self._send(out.action)

    async def _review(self, arg: str) -> None:
        m = self.model
        deal: DealModel | None = None
        if arg.strip().isdigit():
            deal = await self._deal_model(int(arg))
            if deal is None:
                self.ui.say(self.tr("rev.no_such", n=int(arg)))
                return
        elif m.finished_deals:
            deal = m.finished_deals[-1][0]
        else:
            now = m.deal.deal_no if m.deal is not None else int(m.info.get("deal_no") or 0)
            last = now if m.deal is not None and m.deal.phase == "over" else now - 1
            deal = await self._deal_model(last) if last >= 1 else None
        if deal is None:
            self.ui.say(self.tr("rev.none"))
            return
        self.ui.show(review_view(m, deal, self.tr, self.cs))

    async def _score(self) -> None:
        await self._fill_series()
        m = self.model
        self.ui.show(
            score_sheet_view(m, self.tr, self.ui.width < COMPACT), standings_view(m, self.tr)
        )

    def _rules(self, topic: str, *, exact: bool = False) -> None:
        """`rules`: the topics; `rules TOPIC`: one section; `rule [R7.5]`: the paragraph of a
        rule (by default the one the last refusal cited)."""
        from .render import rules_view

        self.ui.show(rules_view(self.tr, topic, paragraph_only=exact))

    def _set(self, arg: str) -> None:
        key, _, value = arg.partition(" ")
        key = {"langue": "lang", "jazyk": "lang", "vitesse": "speed", "rychlost": "speed",
               "pauza": "pause"}.get(key.lower(), key.lower())  # fmt: skip
        if not key:
            s = self.settings
            pause = self.tr("set.enter") if s.pause is None else self.tr.num(s.pause) + " s"
            self.ui.say(
                self.tr("set.show", lang=s.lang or self.tr.lang, speed=s.speed, pause=pause)
            )
            self.ui.say(self.tr("set.help"), "dim")
            return
        try:
            self.settings.set(key, value)
        except ValueError:
            self.ui.error(self.tr("set.bad", key=safe_line(key), value=safe_line(value)))
            self.ui.say(self.tr("set.help"), "dim")
            return
        self.settings.save()
        if key == "lang":
            self.ui.set_language(Tr(self.settings.lang or "en"))
            if self.decision is not None:
                self.decision.tr = self.tr
                self.decision.cs = self.cs
        self.ui.say(self.tr("set.done"), "bold")

    # ------------------------------------------------------------------ leaving

    def progress(self) -> dict[str, Any]:
        """Where the deal stood for our seat (kept with the seat token, told back on rejoin)."""
        m = self.model
        d = m.deal
        if d is None or m.seat is None:
            return {}
        return {"deal_no": d.deal_no, "own": len(d.own_actions(m.seat)), "v": m.v}

    def save_progress(self) -> None:
        m = self.model
        if m.seat is not None and m.table:
            saved_seats.update(self.link.url, m.table, m.seat, **self.progress())

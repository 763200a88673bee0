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
import sys
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any, TextIO

from rich.console import Console, RenderableType
from rich.text import Text

from . import bot
from . import cards as C
from .decisions import Decision, DiscardDecision, PlayDecision, decision_for
from .i18n import Tr
from .model import ACTION_EVENTS, TableModel
from .net import Link, LinkError
from .render import (
    CardStyle,
    fmt_points,
    hand_view,
    review_view,
    seat_name,
    standings_view,
    summary_view,
    table_view,
    tr_text,
    trick_text,
)


@dataclass
class Options:
    auto: bool = False
    json: bool = False
    interactive: bool = True  # pause after each deal for the summary / review
    waiting_hint: bool = True  # say how to start a table that waits for players


class UI:
    """Where output goes: rich on a terminal, or JSON lines (``--json``)."""

    def __init__(self, tr: Tr, *, json_mode: bool = False, out: TextIO | None = None) -> None:
        self.tr = tr
        self.json = json_mode
        out = out or sys.stdout
        enc = (getattr(out, "encoding", None) or "").lower()
        self.cs = CardStyle(unicode=enc.startswith("utf"))
        # In JSON mode, human-readable lines go to stderr so stdout stays machine-readable.
        self.console = Console(
            file=sys.stderr if json_mode else out, highlight=False, emoji=False, soft_wrap=False
        )

    def show(self, *items: RenderableType) -> None:
        if not self.json:
            for item in items:
                self.console.print(item)

    def say(self, text: str | Text, style: str | None = None) -> None:
        if self.json:
            return
        if isinstance(text, str):
            text = Text(text, style=style or "")
        self.console.print(text)

    def note(self, text: str) -> None:
        """Connection news and other messages worth seeing even in JSON mode (on stderr)."""
        if self.json:
            print(text, file=sys.stderr, flush=True)
        else:
            self.console.print(Text(text, style="yellow"))

    def error(self, text: str) -> None:
        if self.json:
            print(
                json.dumps({"type": "client_error", "message": text}, ensure_ascii=False),
                flush=True,
            )
        else:
            self.console.print(Text(text, style="bold red"))

    def prompt(self, text: str) -> None:
        if not self.json:
            self.console.print(Text(f"{text} > ", style="bold"), end="")
            self.console.file.flush()

    def raw(self, msg: dict[str, Any], text: str | None = None) -> None:
        """``--json``: one protocol message a line, as the server sent it."""
        if self.json:
            print(text if text is not None else json.dumps(msg, ensure_ascii=False), flush=True)


def start_stdin_reader(queue: asyncio.Queue[tuple[Any, ...]]) -> None:
    """Read lines from standard input in a daemon thread and post them to ``queue``.

    The thread reads the file descriptor with ``os.read``: a buffered ``sys.stdin`` would hold
    its lock while blocked, and Python cannot shut down cleanly (Ctrl-C) past a held lock."""
    loop = asyncio.get_running_loop()
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        queue.put_nowait(("eof",))
        return

    def post(item: tuple[Any, ...]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: we are exiting
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def run() -> None:
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
                    post(("line", buf.decode("utf-8", errors="replace")))
                post(("eof",))
                return
            buf += chunk
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                post(("line", raw.decode("utf-8", errors="replace").rstrip("\r")))

    threading.Thread(target=run, name="atout-stdin", daemon=True).start()


class Game:
    """Plays (or watches) one table until it finishes, closes, or the player quits."""

    def __init__(
        self,
        link: Link,
        queue: asyncio.Queue[tuple[Any, ...]],
        model: TableModel,
        ui: UI,
        opts: Options,
    ) -> None:
        self.link = link
        self.queue = queue
        self.model = model
        self.ui = ui
        self.tr = ui.tr
        self.cs = ui.cs
        self.opts = opts
        self.decision: Decision | None = None
        self.pending: tuple[Any, dict[str, Any]] | None = None  # (request id, body) in flight
        self.paused = False  # showing the end-of-deal prompt
        self.backlog: deque[tuple[Any, ...]] = deque()
        self.exit_code: int | None = None
        self.waiting_shown = -1
        self.start_id: Any = None
        self.finished = False  # the table finished or closed (as opposed to the player quitting)
        self.own_sent = 0  # our accepted actions whose events have not arrived yet
        self.unconfirmed: dict[str, Any] | None = None  # an action sent as the connection fell
        self.away = False  # the connection dropped: the AI may act for us until we are back
        self.away_actions: list[dict[str, Any]] = []

    @property
    def spectator(self) -> bool:
        return self.model.seat is None

    # ------------------------------------------------------------------ main loop

    async def run(self) -> int:
        self._after_message()
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
            elif kind == "line":
                await self._on_line(item[1])
            elif kind == "eof":
                if not (self.opts.auto or self.spectator):
                    self.exit_code = 0
            elif kind == "net":
                self._on_net(item[1], item[2])
            if self.exit_code is None and not self.paused:
                await self._act_if_due()
        return self.exit_code

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
        if t in ("ok", "joined", "watching", "pong", "error"):
            return  # answers to requests we no longer wait for (e.g. sent before a reconnect)
        before = [m.seat_info(s) for s in range(4)]  # to tell a join from a reconnection
        had_decision = self.decision is not None
        events = m.apply(msg)
        if t == "snapshot":
            self.decision = None
            self.pending = None
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
        if (
            isinstance(d, PlayDecision)
            and body.get("type") == "play"
            and msg.get("code") == "illegal_action"
        ):
            self.ui.error(
                d.explain(body["card"], msg.get("rule"), msg.get("message", ""))
                + "\n"
                + self.tr(
                    "err.server_rule", rule=msg.get("rule") or "?", message=msg.get("message", "")
                )
            )
        else:
            text = self._server_error_text(msg)
            if isinstance(d, DiscardDecision):
                text += "\n" + d.rule_text()
            self.ui.error(text)
        if d is not None and self.model.my_turn():
            self.ui.prompt(d.prompt())
        else:
            self.decision = None

    def _server_error_text(self, msg: dict[str, Any]) -> str:
        if msg.get("rule"):
            return self.tr("err.server_rule", rule=msg["rule"], message=msg.get("message", ""))
        return self.tr("err.server", message=msg.get("message", ""))

    def _on_net(self, kind: str, info: Any) -> None:
        if kind == "lost":
            self.ui.note(self.tr("net.lost", s=info["delay"], n=info["attempt"]))
            if self.pending is not None and self.pending[1].get("type") in ACTION_EVENTS:
                self.unconfirmed = self.pending[1]  # it may have been taken before the cut
            self.pending = None
            if not self.spectator:
                self.away = True
            self.decision = None  # the server prompts again once the seat is resumed
        elif kind == "resumed":
            self.ui.note(self.tr("net.resumed"))
        elif kind == "rewatched":
            self.ui.note(self.tr("net.rewatch"))
        elif kind == "fatal":
            err: LinkError = info
            self.ui.error(self.tr(err.key, **err.info))
            self.exit_code = 1

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

    def _narrate(self, ev: dict[str, Any], before: list[dict[str, Any]]) -> None:
        tr, m, t = self.tr, self.model, ev.get("type")
        d = m.deal
        cs = self.cs
        if t == "seat":
            n = int(ev.get("seat", 0))
            who = ev.get("name") or "?"
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
                self.ui.show(standings_view(m, tr, final=True))
                self.finished = True
                self.exit_code = 0
            elif state == "closed":
                self.ui.say(tr("ev.closed", reason=ev.get("reason") or ""), "bold")
                self.finished = True
                self.exit_code = 0
        elif t == "deal_start" and d is not None:
            self.ui.say(
                Text(tr("ev.deal_start", n=d.deal_no, name=self.name(d.dealer)), style="bold")
            )
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
                self._line("ev.discard_trumps", ev["seat"], parts={"cards": cs.row(ev["trumps"])})
            else:
                self._line("ev.discard", ev["seat"])
        elif t == "chelem":
            key = "ev.chelem_yes" if ev.get("announce") else "ev.chelem_no"
            self._line(key, ev.get("leader"), style="bold" if ev.get("announce") else "")
        elif t == "poignee":
            self._line(
                "ev.poignee",
                ev["seat"],
                parts={"cards": cs.row(ev["cards"])},
                level=tr(f"level.{ev['level']}"),
            )
        elif t == "play":
            card = cs.text(ev["card"])
            card.append(f" ({tr.card_name(ev['card'])})", style="dim")
            self._line("ev.play", ev["seat"], parts={"card": card})
        elif t == "trick":
            pts = C.points(ev["cards"])
            self._line(
                "ev.trick",
                ev["winner"],
                parts={"cards": trick_text(m, ev, tr, cs)},
                n=ev["number"],
                points=fmt_points(pts),
            )
            if self.spectator and ev["number"] < 18:
                self.ui.show(table_view(m, tr, cs))
        elif t == "deal_over":
            r = ev.get("result") or {}
            if r.get("status") == "annulled":
                self.ui.say(tr("ev.annulled", reason=tr(f"reason.{r.get('reason')}")), "bold")
        elif t == "scores":
            self._deal_summary()

    def _deal_summary(self) -> None:
        m = self.model
        if not m.finished_deals:
            return
        deal = m.finished_deals[-1][0]
        self.ui.show(summary_view(m, deal, self.tr, self.cs), standings_view(m, self.tr))
        if (
            self.opts.interactive
            and not self.opts.auto
            and not self.opts.json
            and not self.spectator
        ):
            self.paused = True
            self._pause_prompt()

    def _is_last_deal(self) -> bool:
        total = self.model.info.get("deals")
        return total is not None and int(self.model.info.get("deal_no") or 0) >= int(total)

    def _pause_prompt(self) -> None:
        self.ui.prompt(
            self.tr("prompt.last_continue" if self._is_last_deal() else "prompt.continue")
        )

    # ------------------------------------------------------------------ decisions

    async def _act_if_due(self) -> None:
        m = self.model
        if self.spectator or self.pending is not None or self.decision is not None:
            return
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
        self.decision = d
        self._show_decision(table=True)

    def _show_decision(self, *, table: bool) -> None:
        """The table (with ``table``), the hand with this decision's numbers, options, prompt."""
        d = self.decision
        if d is None:
            return
        m = self.model
        if table:
            self.ui.show(table_view(m, self.tr, self.cs))
        self.ui.show(hand_view(d.hand, self.cs, self.tr, d.numbers or None, legend=d.legend))
        if table and m.timer:
            self.ui.say(self.tr("screen.timer", s=m.timer), "yellow")
        for line in d.header():
            self.ui.show(line)
        self.ui.prompt(d.prompt())

    async def _send(self, body: dict[str, Any]) -> None:
        full = {**body, "table": self.model.table}
        try:
            rid = await self.link.send(full)
        except ConnectionError:
            return  # the link is reconnecting; the server will prompt again
        self.pending = (rid, full)

    # ------------------------------------------------------------------ typed lines

    async def _on_line(self, line: str) -> None:
        text = line.strip()
        word = text.lower()
        if self.paused:
            if word in ("r", "review"):
                self._review()
                self._pause_prompt()
                return
            if word in ("q", "quit", "exit"):
                self.exit_code = 0
                return
            self.paused = False
            return
        if word in ("help", "?", "h"):
            self.ui.say(self.tr("help.commands"))
            self.ui.say(self.tr("help.codes"))
            self._reprompt()
            return
        if word in ("quit", "exit", "q"):
            self.exit_code = 0
            return
        if word in ("table", "t"):
            if self.decision is not None:
                self._show_decision(table=True)
            else:
                self.ui.show(table_view(self.model, self.tr, self.cs))
            return
        if word in ("review", "r"):
            self._review()
            self._reprompt()
            return
        if word in ("score", "scores"):
            self.ui.show(standings_view(self.model, self.tr))
            self._reprompt()
            return
        if word == "start" and self.model.state == "waiting":
            with contextlib.suppress(ConnectionError):
                self.start_id = await self.link.send({"type": "start", "table": self.model.table})
            return
        d = self.decision
        if d is None or self.pending is not None:
            if (
                self.model.deal is not None
                and self.model.deal.turn is not None
                and not self.spectator
            ):
                self.ui.say(self.tr("prompt.idle", name=self.name(self.model.deal.turn)), "dim")
            return
        out = d.handle(text)
        if out.error:
            self.ui.error(out.error)
            self.ui.prompt(d.prompt())
        elif out.next is not None:
            self.decision = out.next
            self._show_decision(table=False)  # the hand again, now with the playable cards numbered
        elif out.action is not None:
            await self._send(out.action)

    def _reprompt(self) -> None:
        if self.decision is not None and self.pending is None:
            self.ui.prompt(self.decision.prompt())

    def _review(self) -> None:
        if not self.model.finished_deals:
            self.ui.say(self.tr("rev.none"))
            return
        deal = self.model.finished_deals[-1][0]
        self.ui.show(review_view(self.model, deal, self.tr, self.cs))

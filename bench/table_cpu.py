"""The event loop's CPU per player action, in process: what bench/load.py's CPU per request is
made of, without sockets, client processes or a machine that changes speed under them.

A real :class:`server.net.app.Server` (its SQLite store on its own thread, its journal; the
deals' reviews with ``--reviews``) serves N in-process connections, each alone at a table with
three AI of the default level (the ``ai`` mode of bench/load.py), or four per table
(``--humans``). Each connection answers its ``your_turn`` prompts with a random legal action at
once, as a new frame would arrive (one turn of the loop later, through the server's request
decoder and handlers). What is timed is the CPU of the loop's thread (``time.thread_time``)
during a window of actions, less what the fake clients themselves spent (measured the same
way); the store's thread and the review worker are not counted. Socket reads and writes are not
there either: this figure is the server's own Python work per action.

    .venv/bin/python bench/table_cpu.py                   # 200 tables, ~15 s
    .venv/bin/python bench/table_cpu.py --humans          # four humans per table
    .venv/bin/python bench/table_cpu.py --baseline DIR    # also DIR's server, in turns
    .venv/bin/python bench/table_cpu.py --profile PATH    # cProfile of the window (pstats)

With ``--baseline`` each repeat runs both trees' servers at once, in processes of their own
that take turns every 50 ms (the other one stopped): the same tree against itself then gives
pairs within about 2 % of each other, where runs one after the other differed by up to 1.35x
on the same machine (its speed drifts within seconds). The script prints each run's figure and
the ratio of the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import load  # bench/load.py, beside this script: its clients' protocol types and moves
import msgspec

_decode_msg = msgspec.json.Decoder(load.Msg).decode

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class FakeConnection:
    """A client connection as a table sees one (server.tables.seats.Connection) that plays
    from its prompts: a random legal action, sent one loop turn later as a new frame."""

    def __init__(self, bench: Bench, n: int) -> None:
        self.bench = bench
        self.id = f"c{n}"
        self.name = f"p{n}"
        self.address = "127.0.0.1"
        self.admin = False
        self.greeted = True
        self.hello_pending = False
        self.seats: dict[str, int] = {}
        self.watching: set[str] = set()
        self.account = None
        self.closed = False
        self.rng = random.Random(n)

    def send(self, data: bytes) -> None:
        if data.startswith(b'{"type":"your_turn"'):
            t = time.thread_time()
            msg = _decode_msg(data)
            self.bench.loop.call_soon(self.bench.answer, self, msg)
            self.bench.client_cpu += time.thread_time() - t
        elif data.startswith(b'{"type":"error"') and not self.bench.done.is_set():
            self.bench.errors.append(data[:300].decode())

    def send_obj(self, obj: Any) -> None:
        from server.net.session import _encode

        self.send(_encode(obj))

    def error(self, rid: Any, code: Any, message: str, **kw: Any) -> None:
        if not self.bench.done.is_set():  # not the server's stopping, once the window is over
            self.bench.errors.append(f"{code}: {message}")

    def abort(self, code: int, reason: str) -> None:
        self.closed = True

    def close_after_flush(self, code: int, reason: str) -> None:
        self.closed = True


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.loop = asyncio.get_running_loop()
        self.client_cpu = 0.0
        self.actions = 0
        self.errors: list[str] = []
        self.done = asyncio.Event()
        self.window: tuple[float, float, float] | None = None  # cpu, client cpu, wall at start
        self.result: dict[str, float] = {}
        self.rid = 0

    def answer(self, conn: FakeConnection, prompt: Any) -> None:
        """The client's next frame (bench/load.py's move for the prompt, a ``load.Msg``):
        decoded and handled as the server handles a frame."""
        from server.net.decode import decode_request

        if self.done.is_set():
            return
        t = time.thread_time()
        self.rid += 1
        action = {**load.bot_action(prompt.legal, conn.rng), "table": prompt.table, "id": self.rid}
        frame = json.dumps(action).encode()
        self.client_cpu += time.thread_time() - t
        msg = decode_request(frame)
        self.srv._handlers[type(msg)](conn, msg)
        self.actions += 1
        a = self.args
        if self.actions == a.warmup:
            self.window = (time.thread_time(), self.client_cpu, time.perf_counter())
        elif self.actions == a.warmup + a.actions and self.window is not None:
            cpu0, client0, wall0 = self.window
            cpu = time.thread_time() - cpu0 - (self.client_cpu - client0)
            self.result = {
                "actions": a.actions,
                "us_per_action": cpu / a.actions * 1e6,
                "wall_s": time.perf_counter() - wall0,
            }
            self.done.set()

    async def run(self) -> dict[str, float]:
        a = self.args
        tmp = tempfile.mkdtemp(prefix="atout-table-cpu-")
        try:
            return await self._run(a, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    async def _run(self, a: argparse.Namespace, tmp: str) -> dict[str, float]:
        from protocol import messages as P
        from server.config import Config
        from server.net.app import Server
        from server.store.aio import AsyncStore

        cfg = Config(
            db=os.path.join(tmp, "bench.db"),
            port=0,
            think_delay=0,
            deal_pause=0,
            max_tables=a.tables * 2,
            max_bot_tables=a.tables,
            seed=a.seed,
            web=False,
            log_level="warning",
            reviews=a.reviews,
        )
        store = AsyncStore(cfg.db, busy_timeout=1.0)
        self.srv = srv = Server(cfg, store)
        await srv.start()
        profiler = None
        try:
            per_table = 4 if a.humans else 1
            starters = []
            for t in range(a.tables):
                conns = [FakeConnection(self, t * 4 + k) for k in range(per_table)]
                for c in conns:  # live connections, as Server._handler registers them
                    srv.lobby.sessions[c.id] = c  # type: ignore[assignment]
                create = P.CreateTable(id=1, name=f"t{t}", public=False, deals=1000)
                table = srv.lobby.create(conns[0], create)  # as Server._on_create
                table.post(("created", conns[0], create, {}))
                table_id = table.id
                for k, c in enumerate(conns):
                    srv._to_table(c, P.Join(id=2, table=table_id, seat=k))
                starters.append((conns[0], table_id))
            await asyncio.sleep(0.2)
            if a.profile:
                import cProfile

                profiler = cProfile.Profile(time.thread_time)
            if not a.humans:  # four humans: the last to sit down started the table
                for conn, table_id in starters:
                    srv._to_table(conn, P.Start(id=3, table=table_id))
            if profiler is not None:
                profiler.enable()
            await asyncio.wait_for(self.done.wait(), timeout=a.timeout)
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(a.profile)
        finally:
            await srv.stop()
        if self.errors:  # a client's request refused: the figure would not be a game's
            raise SystemExit(f"{len(self.errors)} errors, the first: {self.errors[:3]}")
        return self.result


def run_once(args: argparse.Namespace) -> dict[str, float]:
    async def main() -> dict[str, float]:
        return await Bench(args).run()

    import gc

    gc.freeze()  # as atout-server serve does (server/net/app.py run)
    return asyncio.run(main())


def _child_cmd(args: argparse.Namespace) -> list[str]:
    cmd = [
        sys.executable,
        os.path.join(ROOT, "bench", "table_cpu.py"),
        "--child",
        "--tables", str(args.tables),
        "--actions", str(args.actions),
        "--warmup", str(args.warmup),
        "--seed", str(args.seed),
    ]  # fmt: skip
    if args.humans:
        cmd.append("--humans")
    if args.reviews:
        cmd.append("--reviews")
    return cmd


def run_trees(trees: list[str], args: argparse.Namespace) -> list[dict[str, float]]:
    """One run of each tree's server, each in a process of its own, all started together and
    run in turns of ``--slice`` seconds (the others stopped meanwhile, SIGSTOP/SIGCONT): a
    machine whose speed drifts within seconds (3x between runs minutes apart here) drifts for
    all of them alike. Their CPU clocks do not count the time they are stopped."""
    procs = []
    for tree in trees:
        env = {**os.environ, "PYTHONPATH": tree}
        procs.append(
            subprocess.Popen(
                _child_cmd(args),
                cwd=tree,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    try:
        for p in procs[1:]:
            os.kill(p.pid, signal.SIGSTOP)
        turn = 0
        while any(p.poll() is None for p in procs):
            time.sleep(args.slice)
            alive = [k for k, p in enumerate(procs) if p.poll() is None]
            if not alive:
                break
            nxt = min((k for k in alive if k > turn), default=alive[0])
            if nxt != turn:
                if procs[turn].poll() is None:
                    os.kill(procs[turn].pid, signal.SIGSTOP)
                os.kill(procs[nxt].pid, signal.SIGCONT)
                turn = nxt
    finally:
        for p in procs:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGCONT)
    out = []
    for tree, p in zip(trees, procs, strict=True):
        stdout, stderr = p.communicate(timeout=args.timeout)
        if p.returncode != 0:
            raise SystemExit(f"run in {tree} failed:\n{stderr[-2000:]}")
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--humans", action="store_true", help="four humans per table (else 1 + 3 AI)")
    ap.add_argument("--actions", type=int, default=20_000, help="player actions in the window")
    ap.add_argument("--warmup", type=int, default=3_000, help="player actions before it")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--reviews",
        action="store_true",
        help="review each deal as the server does (par in a worker process): steadier without",
    )
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", metavar="DIR", help="a second source tree, run in turns")
    ap.add_argument(
        "--slice", type=float, default=0.05, help="seconds each tree runs before the other's turn"
    )
    ap.add_argument("--profile", metavar="PATH", help="cProfile the window (this tree, once)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child or args.profile:
        res = run_once(args)
        print(json.dumps(res))
        return
    trees = [("this", ROOT)] + ([("base", os.path.abspath(args.baseline))] if args.baseline else [])
    figs: dict[str, list[float]] = {name: [] for name, _ in trees}
    mode = "four humans per table" if args.humans else "one human and three AI per table"
    print(
        f"table_cpu: {args.tables} tables, {mode}, {args.actions} player actions per run "
        f"after {args.warmup}; loop-thread CPU per player action, clients excluded"
    )
    for r in range(args.repeat):
        for (name, _), res in zip(trees, run_trees([t for _, t in trees], args), strict=True):
            figs[name].append(res["us_per_action"])
            print(
                f"  run {r + 1} {name:4}: {res['us_per_action']:7.1f} us per action "
                f"({res['wall_s']:.1f} s wall)",
                flush=True,
            )
    med = {name: statistics.median(v) for name, v in figs.items()}
    for name, v in med.items():
        print(f"median {name}: {v:.1f} us per action")
    if args.baseline:
        pairs = [a / b for a, b in zip(figs["this"], figs["base"], strict=True)]
        print(
            f"this / base: x{med['this'] / med['base']:.3f} (pairs: "
            + ", ".join(f"{p:.3f}" for p in pairs)
            + ")"
        )


if __name__ == "__main__":
    main()

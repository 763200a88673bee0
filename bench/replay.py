"""Time ``atout-server replay`` on JSON Lines files against the reference replayer.

    .venv/bin/python bench/replay.py                  # 1,500 and 20,000 records (a minute or two)
    .venv/bin/python bench/replay.py --quick          # 1,500 records, a few seconds
    .venv/bin/python bench/replay.py --records 1500,50000 --repeats 5 --keep /tmp/atout-bench

For each file size N:

1. Writes N random complete deal records (club-like random bids, then uniformly random legal
   actions, written by ``records.record_of`` so that each carries its ``result`` like the
   server's own records), a few percent of them
   deliberately broken (illegal card, wrong seat, bad discard, bad poignée, bad bid,
   truncated, trailing action, unknown card code, bad JSON).
2. Times the whole process ``python -m server.cli replay big.jsonl`` (start-up included) and
   ``python bench/reference_engine.py big.jsonl``, alternately, ``--repeats`` times each, and
   prints the best of each (wall time, and the CPU time of the process: user + system, less
   disturbed by the other work of a shared machine), records/second and both ratios.
3. Checks both outputs line by line: results must be identical (byte for byte, and as JSON
   objects); errors must agree on ``action_index`` (the ``reason`` texts are free-form).
   Any disagreement is printed with its record and the exit status is 1.

Then it measures the start-up of ``replay`` on a one-record file against a bare
``python -c pass`` and lists the heaviest imports (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from server.rules.actions import Bid  # noqa: E402
from server.rules.cards import CODES  # noqa: E402
from server.rules.deal import BIDDING, OVER, DealState, apply, legal_actions, new_deal  # noqa: E402
from server.rules.randplay import random_from_legal  # noqa: E402
from server.rules.records import encode, record_of  # noqa: E402

REFERENCE = ROOT / "bench" / "reference_engine.py"


# ---------------------------------------------------------------------------- records


def _corrupt(rec: dict[str, Any], rng: random.Random) -> tuple[str, bytes]:
    """A broken variant of ``rec``: (kind, JSON line)."""
    rec = json.loads(json.dumps(rec))
    acts = rec["actions"]
    kinds = ["illegal_card", "wrong_seat", "truncated", "extra_action", "bad_code", "bad_json"]
    if any(a["type"] == "discard" for a in acts):
        kinds.append("bad_discard")
    if any(a["type"] == "poignee" for a in acts):
        kinds.append("bad_poignee")
    if any(a["type"] == "bid" and a["contract"] != "pass" for a in acts[:3]):
        kinds.append("low_bid")
    plays = [k for k, a in enumerate(acts) if a["type"] == "play"]
    if not plays:
        kinds = ["truncated", "extra_action", "bad_code", "bad_json"] if acts else ["bad_code"]
    kind = rng.choice(kinds)
    if kind == "illegal_card":
        # Another card of the same seat's hand: usually illegal here, else later.
        k = rng.choice(plays)
        seat = acts[k]["seat"]
        own = rec["hands"][seat] + (rec["chien"] if seat == _taker(acts) else [])
        acts[k]["card"] = rng.choice([c for c in own if c != acts[k]["card"]])
    elif kind == "wrong_seat":
        k = rng.randrange(len(acts))
        acts[k]["seat"] = (acts[k]["seat"] + rng.randrange(1, 4)) % 4
    elif kind == "truncated":
        del acts[rng.randrange(len(acts)) :]
    elif kind == "extra_action":
        acts.append({"seat": 0, "type": "play", "card": "EX"})
    elif kind == "bad_code":
        rec["hands"][rng.randrange(4)][rng.randrange(18)] = rng.choice(["Z9", "T22", "s1", "X"])
    elif kind == "bad_json":
        return kind, encode(rec)[: rng.randrange(1, 200)]
    elif kind == "bad_discard":
        a = next(a for a in acts if a["type"] == "discard")
        others = [c for c in CODES if c not in a["cards"]]
        a["cards"][rng.randrange(6)] = rng.choice(["SK", "T21", "EX", "T1", *others[:5]])
    elif kind == "bad_poignee":
        a = next(a for a in acts if a["type"] == "poignee")
        a["cards"] = a["cards"][1:] if rng.random() < 0.5 else [*a["cards"][:-1], "S1"]
    elif kind == "low_bid":
        k = next(k for k, a in enumerate(acts[:3]) if a["contract"] != "pass")
        acts[k + 1]["contract"] = acts[k]["contract"]
    return kind, encode(rec)


def _taker(acts: list[dict[str, Any]]) -> int:
    return next((a["seat"] for a in acts if a["type"] == "chelem"), -1)


# Bids as a table of club players might make them, so that most deals are a prise or a garde
# with a discard (uniformly random bids end mostly in garde sans / garde contre).
_BID_WEIGHTS = {"pass": 60, "prise": 22, "garde": 13, "garde_sans": 4, "garde_contre": 1}


def club_deal(seed: int, dealer: int) -> DealState:
    """A complete deal: club-like random bids, every other action uniformly random and legal."""
    rng = random.Random(seed)
    st = new_deal(rng, dealer)
    while st.phase != OVER:
        legal = legal_actions(st)
        assert legal is not None
        if st.phase == BIDDING:
            bids = list(legal.bids)
            contract = rng.choices(bids, [_BID_WEIGHTS[b] for b in bids])[0]
            st = apply(st, Bid(legal.seat, contract))  # type: ignore[arg-type]
        else:
            st = apply(st, random_from_legal(legal, rng))
    return st


def write_records(path: Path, n: int, seed: int, bad_fraction: float) -> Counter[str]:
    rng = random.Random(seed)
    kinds: Counter[str] = Counter()
    with open(path, "wb") as f:
        for i in range(n):
            rec = record_of(club_deal(seed * 1_000_003 + i, i % 4))
            if rng.random() < bad_fraction:
                kind, line = _corrupt(rec, rng)
            else:
                kind, line = rec["result"]["status"], encode(rec)
            kinds[kind] += 1
            f.write(line + b"\n")
    return kinds


# ---------------------------------------------------------------------------- timing


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(
    cmd: list[str], out_path: Path | None = None, env: dict[str, str] | None = None
) -> tuple[float, int, bytes]:
    """Wall time of the whole process, its exit status and its standard output."""
    dt, _cpu, rc, out = run_cpu(cmd, out_path, env)
    return dt, rc, out


def run_cpu(
    cmd: list[str], out_path: Path | None = None, env: dict[str, str] | None = None
) -> tuple[float, float, int, bytes]:
    """Wall time and CPU time (user + system) of the whole process, its exit status and its
    standard output."""
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, cwd=ROOT, env=env)
    dt = time.perf_counter() - t0
    cpu = _children_cpu() - cpu0
    if proc.stderr:
        sys.stderr.write(proc.stderr.decode(errors="replace")[-2000:])
    if out_path is not None:
        out_path.write_bytes(proc.stdout)
    return dt, cpu, proc.returncode, proc.stdout


def compare(
    records: list[bytes], server_out: list[bytes], ref_out: list[bytes]
) -> tuple[int, int, list[str]]:
    """(identical lines, agreeing lines, descriptions of disagreements)."""
    problems: list[str] = []
    if len(server_out) != len(ref_out) or len(server_out) != len(records):
        problems.append(
            f"line counts differ: {len(records)} records, server {len(server_out)}, "
            f"reference {len(ref_out)}"
        )
    same = agree = 0
    for i, (s, r) in enumerate(zip(server_out, ref_out, strict=False)):
        if s == r:
            same += 1
            agree += 1
            continue
        js, jr = json.loads(s), json.loads(r)
        if "error" in js and "error" in jr:
            if js["error"]["action_index"] == jr["error"]["action_index"]:
                agree += 1
                continue
        elif js == jr:
            agree += 1
            continue
        rec = records[i].decode(errors="replace") if i < len(records) else "?"
        problems.append(
            f"record {i}:\n  server:    {s.decode()}\n  reference: {r.decode()}\n"
            f"  record:    {rec[:3000]}"
        )
    return same, agree, problems


def cached_bytecode_env(work: Path) -> dict[str, str]:
    """An environment where Python may cache bytecode (in ``work``, not in the tree)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


def startup(one: Path, repeats: int, env: dict[str, str] | None) -> dict[str, float]:
    """Median wall times (seconds) of tiny runs."""
    cmds = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -m server.cli replay one.json": [
            sys.executable,
            "-m",
            "server.cli",
            "replay",
            str(one),
        ],
        "python bench/reference_engine.py one.json": [sys.executable, str(REFERENCE), str(one)],
    }
    script = Path(sys.executable).with_name("atout-server")
    if script.exists():
        cmds["atout-server replay one.json"] = [str(script), "replay", str(one)]
    out = {}
    for label, cmd in cmds.items():
        run(cmd, env=env)  # warm the OS file cache (and the bytecode cache, if allowed)
        times = [run(cmd, env=env)[0] for _ in range(repeats)]
        out[label] = statistics.median(times)
    return out


def heaviest_imports(
    one: Path, env: dict[str, str] | None, min_ms: float = 1.0
) -> list[tuple[int, int, str]]:
    """(self µs, cumulative µs, indented module) of every import of a replay start-up that
    takes at least ``min_ms`` in all, as a tree (parents before their children)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "server.cli", "replay", str(one)],
        capture_output=True,
        cwd=ROOT,
        env=env,
    )
    rows = []
    for line in proc.stderr.decode().splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum_us, name = line[len("import time:") :].split("|")
        rows.append((int(self_us), int(cum_us), name.rstrip()))
    return _tree([r for r in rows if r[1] >= min_ms * 1000])


def _tree(rows: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """-X importtime lists children before their parent (post-order); reversed, that is a
    pre-order walk (children in reverse import order): parents above their children."""
    return rows[::-1]


def time_file(work: Path, n: int, args: argparse.Namespace) -> tuple[list[str], Path]:
    """Write (or reuse) a file of ``n`` records, time both replayers on it, compare outputs.
    Returns the disagreements and the path of the file."""
    big = work / f"records-{n}-{args.seed}-{args.bad_fraction}.jsonl"
    print()
    print(f"  {n:,} records:")
    if big.exists():
        print(f"  reusing {big}")
    else:
        t0 = time.perf_counter()
        kinds = write_records(big, n, args.seed, args.bad_fraction)
        print(
            f"  wrote {big} ({big.stat().st_size / 1e6:.1f} MB) in "
            f"{time.perf_counter() - t0:.1f} s: {dict(sorted(kinds.items()))}"
        )
    records = [line for line in big.read_bytes().splitlines() if line.strip()]
    server_cmd = [sys.executable, "-m", "server.cli", "replay", str(big)]
    ref_cmd = [sys.executable, str(REFERENCE), str(big)]
    repeats = args.repeats or (7 if n <= 5000 else 3)
    walls: dict[str, list[float]] = {"server": [], "reference": []}
    cpus: dict[str, list[float]] = {"server": [], "reference": []}
    rcs: dict[str, int] = {}
    outs: dict[str, bytes] = {}
    for i in range(repeats):
        # Alternate the two so that a burst of load elsewhere hits both alike.
        for name, cmd in (("server", server_cmd), ("reference", ref_cmd))[
            :: 1 if i % 2 == 0 else -1
        ]:
            wall, cpu, rc, out = run_cpu(cmd, work / f"{name}.out" if i == 0 else None)
            walls[name].append(wall)
            cpus[name].append(cpu)
            rcs[name] = rc
            outs.setdefault(name, out)
    srv_lines, ref_lines = outs["server"].splitlines(), outs["reference"].splitlines()
    same, agree, problems = compare(records, srv_lines, ref_lines)
    n_err = sum(1 for line in srv_lines if line.startswith(b'{"error"'))
    t_srv, t_ref = min(walls["server"]), min(walls["reference"])
    c_srv, c_ref = min(cpus["server"]), min(cpus["reference"])
    print(f"  whole process, start-up included, best of {repeats}:")
    print("                             records/s      wall       CPU")
    print(
        f"    atout-server replay      {n / t_srv:>9,.0f}  {t_srv:7.2f} s {c_srv:7.2f} s"
        f"   (exit {rcs['server']})"
    )
    print(
        f"    reference_engine.py      {n / t_ref:>9,.0f}  {t_ref:7.2f} s {c_ref:7.2f} s"
        f"   (exit {rcs['reference']})"
    )
    print(f"    ratio reference/server   {'':>9}  {t_ref / t_srv:7.1f} x {c_ref / c_srv:7.1f} x")
    print(
        f"  outputs: {len(srv_lines):,} lines, {n_err:,} errors; {same:,} byte-identical, "
        f"{agree:,} agreeing (errors compared by action_index)"
    )
    if rcs["server"] != rcs["reference"]:
        problems.append(
            f"exit statuses differ: server {rcs['server']}, reference {rcs['reference']}"
        )
    for p in problems[:10]:
        print("  DISAGREEMENT " + p)
    if len(problems) > 10:
        print(f"  ... and {len(problems) - 10} more")
    return problems, big


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--records",
        default="1500,20000",
        help="comma-separated file sizes (default 1500,20000)",
    )
    ap.add_argument("--quick", action="store_true", help="1,500 records only")
    ap.add_argument(
        "--repeats",
        type=int,
        help="timed runs of each replayer (default: 7 up to 5,000 records, else 3)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bad-fraction", type=float, default=0.03, help="share of broken records")
    ap.add_argument("--keep", metavar="DIR", help="write (and reuse) the files in DIR")
    args = ap.parse_args(argv)
    sizes = [1500] if args.quick else [int(x) for x in args.records.split(",") if x.strip()]

    tmp = None
    if args.keep:
        work = Path(args.keep)
        work.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="atout-bench-")
        work = Path(tmp.name)
    one = work / "one.json"

    print(
        f"Atout replay benchmark: {', '.join(f'{n:,}' for n in sizes)} records, "
        f"Python {sys.version.split()[0]}"
    )
    problems: list[str] = []
    big = work
    for n in sizes:
        found, big = time_file(work, n, args)
        problems += found
    records = [line for line in big.read_bytes().splitlines() if line.strip()]
    first_ok = next(r for r in records if b'"result":{"status":"played"' in r)
    one.write_bytes(first_ok)

    repeats = 5 if args.quick else 15
    envs = {"as run here": None, "with cached bytecode": cached_bytecode_env(work)}
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        note = " (PYTHONDONTWRITEBYTECODE is set: our modules are compiled at every start)"
    else:
        note = ""
    for env_label, env in envs.items():
        times = startup(one, repeats, env)
        base = times["python -c pass"]
        print()
        print(f"  start-up on a one-record file, {env_label}{note if env is None else ''}")
        print(f"  (median of {repeats}):")
        for label, t in times.items():
            extra = "" if label == "python -c pass" else f"   (+{(t - base) * 1000:.0f} ms)"
            print(f"    {label:<44} {t * 1000:6.0f} ms{extra}")
    print()
    print("  imports of `replay` taking 1 ms or more, cached bytecode")
    print("  (python -X importtime; cumulative, self):")
    for self_us, cum_us, name in heaviest_imports(one, envs["with cached bytecode"]):
        print(f"    {cum_us / 1000:5.1f} ms {self_us / 1000:5.1f} ms  {name}")
    if tmp is not None:
        tmp.cleanup()
    return 1 if problems else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())

"""The ``serve`` options of cluster mode (server/cluster/worker.py), kept apart so that building the
command-line parser (``atout-server replay`` too) does not import the cluster runtime."""

from __future__ import annotations

import argparse
import os

from server.config import env_default, env_typed


def _count(text: str) -> int:
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"{n} is negative")
    return n


def _lease(text: str) -> float | None:
    return float(text) or None  # 0: the default lease


def add_cluster_options(p: argparse.ArgumentParser) -> None:
    """The ``serve`` options of cluster mode."""
    env = os.environ.get
    p.add_argument(
        "--workers",
        type=env_typed(_count),
        default=env_default("ATOUT_WORKERS", "0"),
        metavar="N",
        help="run N worker processes on ports PORT..PORT+N-1 sharing the database, "
        "restarting any that dies (ATOUT_WORKERS; default 0: one plain process)",
    )
    p.add_argument(
        "--worker-id",
        type=_count,
        default=None,
        metavar="N",
        help="run as worker N of a cluster (set by --workers on SQLite; or run each worker "
        "yourself)",
    )
    p.add_argument(
        "--worker-slot",
        type=_count,
        default=None,
        metavar="N",
        help="run as a worker of a cluster in place N of this host, its id allocated by the "
        "registry (set by --workers on PostgreSQL)",
    )
    p.add_argument(
        "--host-name",
        default=env("ATOUT_HOST_NAME") or None,
        metavar="NAME",
        help="this host's name in the cluster registry (ATOUT_HOST_NAME; default: the "
        "machine's host name); workers of one host must agree on it",
    )
    p.add_argument(
        "--public-url",
        default=env("ATOUT_PUBLIC_URL") or None,
        metavar="TEMPLATE",
        help="URL clients reach a worker at, with {worker}, {slot}, {port}, {host}, "
        "{hostname}, e.g. "
        "wss://tarot.example.org/w/{worker} (ATOUT_PUBLIC_URL; default ws://HOST:PORT/)",
    )
    p.add_argument(
        "--heartbeat",
        type=env_typed(float),
        default=env_default("ATOUT_HEARTBEAT", "2"),
        metavar="SECONDS",
        help="seconds between a worker's registry heartbeats (ATOUT_HEARTBEAT; default 2)",
    )
    p.add_argument(
        "--lease",
        type=env_typed(_lease),
        default=env_default("ATOUT_LEASE", None),  # 0 or unset: the default lease
        metavar="SECONDS",
        help="seconds without a heartbeat before a worker counts as gone and its tables may be "
        "adopted (ATOUT_LEASE; default 5 heartbeats, at least 3 s)",
    )


def wants_supervisor(args: argparse.Namespace) -> bool:
    return (
        bool(getattr(args, "workers", 0))
        and getattr(args, "worker_id", None) is None
        and getattr(args, "worker_slot", None) is None
    )

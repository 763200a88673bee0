"""Server settings: the ``atout-server serve`` options (each also an ``ATOUT_*`` variable).

Imports nothing of ours: every layer may read it."""

from __future__ import annotations

import hashlib
import ipaddress
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class EnvValue(str):
    """An option's default read from its ``ATOUT_*`` variable (see :func:`env_default`)."""

    env = ""


def env_default(name: str, default: str | None) -> str | None:
    """The text of variable ``name``, else ``default``, for an option's default. Left as text
    for argparse to convert with the option's type (:func:`env_typed`) when that command is
    run, so that a malformed variable fails only the commands that read it, with a message
    naming it, instead of every command with a traceback."""
    value = os.environ.get(name)
    if value is None:
        return default
    out = EnvValue(value)
    out.env = name
    return out


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def env_flag(name: str, default: bool) -> bool | str:
    """A switch's default from variable ``name``: ``default`` when it is unset, else its text
    (an :class:`EnvValue`), turned into a bool by :func:`flag_value` when the command that
    reads it runs, so that a bad value fails only that command."""
    value = env_default(name, None)
    return default if value is None else value


def flag_value(value: object) -> bool:
    """A switch from the command line (a bool) or its variable (text): 1/0, true/false,
    yes/no, on/off in any case. Raises ValueError naming the variable for anything else
    (``ATOUT_WEB=flase`` served the browser client without a word)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    env = getattr(value, "env", "") or "the value"
    raise ValueError(
        f"{env}={str(value)!r} is not valid: use 1 or 0, true or false, yes or no, on or off"
    )


def env_typed(kind: Callable[[str], T]) -> Callable[[str], T]:
    """``kind`` as an argparse type whose error names the variable a bad default came from."""

    import argparse

    def convert(text: str) -> T:
        try:
            return kind(text)
        except (ValueError, argparse.ArgumentTypeError) as e:
            env = getattr(text, "env", "")
            if not env:
                raise
            raise argparse.ArgumentTypeError(f"{env}={str(text)!r} is not valid: {e}") from None

    convert.__name__ = getattr(kind, "__name__", "value")  # argparse's "invalid int value"
    return convert


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def proxy_networks(entries: str | tuple[str, ...]) -> tuple[Network, ...]:
    """``--trusted-proxies``: IP addresses and CIDR networks (``127.0.0.1``, ``::1``,
    ``172.16.0.0/12``), comma-separated in text. Raises ValueError naming a bad entry: a host
    name or a typo was taken silently, never matched, and every client then shared the
    proxy's limits."""
    if isinstance(entries, str):
        entries = tuple(a.strip() for a in entries.split(","))
    out = []
    for entry in entries:
        if not entry:
            continue
        try:
            out.append(ipaddress.ip_network(entry.strip(), strict=True))
        except ValueError as e:
            why = f" ({e})" if "host bits" in str(e) else ""
            raise ValueError(
                f"trusted proxy {entry!r} is not an IP address or network (CIDR, e.g. "
                f"127.0.0.1 or 172.16.0.0/12){why}"
            ) from None
    return tuple(out)


@dataclass
class Config:
    """Server settings (``atout-server serve`` options; tests build their own)."""

    host: str = "127.0.0.1"
    port: int = 8765
    db: str = "atout.db"
    log_level: str = "info"
    log_format: str = "text"  # text | json (server/ops/logs.py)
    think_delay: float = 0.8  # default AI think delay (s) for tables that do not set one
    deal_pause: float = 3.0  # default pause between deals (s)
    grace: float = 60.0  # a dropped human keeps the seat this long (s)
    absent_wait: float = 5.0  # an absent human's turn waits this long before the AI plays (s)
    hello_timeout: float = 10.0
    rate: float = 100.0  # frames per second allowed per connection (token bucket refill)
    burst: int = 200  # token bucket size
    max_strikes: int = 50  # refused frames within 10 s before closing with 4029
    out_queue: int = 2048  # queued outgoing messages per connection before closing with 4008
    out_bytes: int = 1 << 20  # ... or queued bytes (the transport's buffer included)
    max_connections_per_address: int = 64  # open connections per client address (4010 beyond)
    trusted_proxies: tuple[str, ...] = ()  # addresses, networks whose X-Forwarded-For counts
    backlog: int = 1024  # pending TCP connections the listening socket holds
    event_log: int = 512  # events kept per seat for resuming
    max_tables: int = 5000
    max_tables_per_session: int = 20
    list_limit: int = 500  # tables a cluster worker publishes to the others at most
    turn_limit: float = 60.0  # s a present human has to act without a turn timer (0: forever)
    max_timeouts: int = 3  # turns in a row played by the AI before the seat is released (0: never)
    max_bot_tables: int = 4  # tables of bots only playing at once per client address
    ai_share: float = 0.25  # AI seconds per second per address for tables of bots only (0: any)
    min_think_delay: float = 0.0  # floor of a table's think delay (s)
    admin_token_hash: str | None = None  # SHA-256 of the admin token (hello `admin`)
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    ai_deadline: float = 2.0  # seconds a searching AI (strong) may think per decision
    par_level: str = "heuristic"  # the reference bot that replays every scored deal (issue 12)
    reviews: bool = True  # par and ratings after each scored deal (server/players/service.py)
    seed: int | None = None  # tests and docs only: reproducible deals (never in production)
    # Several worker processes on one database (server/cluster/worker.py); worker_id None: alone.
    worker_id: int | None = None
    worker_slot: int | None = None  # place on this host (set by --workers); the id is allocated
    host_name: str | None = None  # this host's name in the registry (default: the machine's)
    public_url: str | None = None  # URL template clients reach a worker at ({worker}, {port})
    heartbeat: float = 2.0  # seconds between a worker's registry heartbeats
    lease: float | None = None  # s a silent worker keeps its tables (None: 5 beats, >= 3 s)
    web: bool = True  # serve the browser client at / (serve --no-web turns it off)
    loop: str = "asyncio"  # event loop: asyncio, uvloop, auto (uvloop where installed)

    @classmethod
    def from_args(cls, args: Any) -> Config:
        """Settings from parsed command-line options (missing ones keep their defaults).
        Raises ValueError when the admin token file cannot be read or is empty, or a trusted
        proxy is not an IP address or network."""
        kw = {f.name: getattr(args, f.name) for f in fields(cls) if hasattr(args, f.name)}
        if isinstance(kw.get("trusted_proxies"), str):
            kw["trusted_proxies"] = tuple(
                a.strip() for a in kw["trusted_proxies"].split(",") if a.strip()
            )
        proxy_networks(kw.get("trusted_proxies", ()))  # ValueError naming a bad one
        if isinstance(kw.get("web"), str):  # ATOUT_WEB's text, when main() did not convert it
            kw["web"] = flag_value(kw["web"])
        path = getattr(args, "admin_token_file", "")
        if path:
            try:
                token = Path(path).read_text(encoding="utf-8").strip()
            except OSError as e:
                raise ValueError(f"cannot read the admin token file {path}: {e}") from None
            if len(token) < 16:
                raise ValueError(f"the admin token in {path} is shorter than 16 characters")
            kw["admin_token_hash"] = token_hash(token)
        return cls(**kw)


def token_hash(token: str) -> str:
    """What the server keeps of a secret token (seat or admin): its SHA-256, never the token."""
    return hashlib.sha256(token.encode()).hexdigest()

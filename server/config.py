"""Server settings: the ``atout-server serve`` options (each also an ``ATOUT_*`` variable).

Imports nothing of ours: every layer may read it."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


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
    event_log: int = 512  # events kept per seat for resuming
    max_tables: int = 5000
    max_tables_per_session: int = 20
    list_limit: int = 500  # tables listed by list_tables at most
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    ai_deadline: float = 2.0  # seconds a searching AI (strong) may think per decision
    seed: int | None = None  # tests and docs only: reproducible deals (never in production)
    # Several worker processes on one database (server/cluster/worker.py); worker_id None: alone.
    worker_id: int | None = None
    worker_slot: int | None = None  # place on this host (set by --workers); the id is allocated
    host_name: str | None = None  # this host's name in the registry (default: the machine's)
    public_url: str | None = None  # URL template clients reach a worker at ({worker}, {port})
    heartbeat: float = 2.0  # seconds between a worker's registry heartbeats
    web: bool = True  # serve the browser client at / (serve --no-web turns it off)

    @classmethod
    def from_args(cls, args: Any) -> Config:
        """Settings from parsed command-line options (missing ones keep their defaults)."""
        kw = {f.name: getattr(args, f.name) for f in fields(cls) if hasattr(args, f.name)}
        return cls(**kw)

"""What every storage backend offers, and what they share: the ``Store`` and ``Registry``
interfaces (``typing.Protocol``), the typed errors, and the helpers both backends use.

Two backends implement them: SQLite (``server/store/sqlite.py``, embedded, the default) and
PostgreSQL (``server/store/postgres.py``, for several hosts). :func:`server.store.open_store`
picks one by the ``--db`` value: a path, or a ``postgresql://`` URL. The backends are
synchronous and used from one thread each; the server runs them off the event loop through
``server.store.aio.AsyncStore`` (the store) and the cluster's registry thread.

Nothing outside ``server/store`` writes SQL: every question the server asks of the database is
a named method here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec

RECORD_FORMAT = "atout-deal/1"  # server.rules.records.FORMAT, not imported to keep this light
AI = ""  # the ``scores.player`` of an AI seat (NULL cannot take part in a primary key)
FINISHED_STATUSES = ("played", "annulled")

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode


# --- errors ---------------------------------------------------------------------------------


class StoreError(Exception):
    """A storage failure the server can report; ``code`` is stable and machine-readable.

    ``transient`` errors (locked database, full disk, I/O, read-only file, lost connection) may
    succeed when retried once the cause is gone; others (conflicting data, corrupt file) will
    not.
    """

    code = "storage_error"
    transient = False


class StoreLocked(StoreError):
    """Another writer holds the lock (SQLite), or the transaction lost a serialization or
    deadlock conflict (PostgreSQL): trying again will do."""

    code = "storage_locked"
    transient = True


class StoreFull(StoreError):
    code = "storage_full"
    transient = True


class StoreReadOnly(StoreError):
    """A read-only file (SQLite) or a read-only server (a PostgreSQL standby, or
    ``default_transaction_read_only``)."""

    code = "storage_read_only"
    transient = True  # permissions, a remount or a failover can be fixed while the server runs


class StoreIOError(StoreError):
    code = "storage_io"
    transient = True


class StoreDisconnected(StoreError):
    """The database server cannot be reached (connection lost, refused, or shutting down)."""

    code = "storage_disconnected"
    transient = True


class StoreConflict(StoreError):
    """A write contradicts what is stored (a different record under the same deal number...)."""

    code = "storage_conflict"


class StoreFenced(StoreError):
    """A write of a table this worker no longer owns: another worker adopted it (a higher
    ownership epoch). Never retried: the worker stops serving the table."""

    code = "storage_fenced"


class StoreClosed(StoreError):
    code = "storage_closed"


class WorkerIdTaken(StoreError):
    """A worker id held by another live process."""

    code = "worker_id_taken"


# --- helpers --------------------------------------------------------------------------------


def is_postgres(db: str) -> bool:
    """Whether ``db`` (the ``--db`` value) names a PostgreSQL database."""
    return db.startswith(("postgresql://", "postgres://"))


def describe(db: str) -> str:
    """``db`` for logs and messages: a URL without its password."""
    if not is_postgres(db):
        return db
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(db)
    if parts.password is None:
        return db
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def shown_args(method: str, args: Sequence[Any]) -> list[Any]:
    """A store call's arguments as a log may show them: without the cards nobody may see yet,
    a deal's hands and chien (``start_deal``) and a discard's cards (``append_action``). A
    failed write is logged with its payload so that an operator can recover it; neither of
    these needs recovering (a deal not stored was never dealt; a refused action is sent again
    by its player), and logs travel further than the database."""
    out = list(args)
    if method == "start_deal" and len(out) >= 5:
        out[3] = "(4 hands, not logged)"
        out[4] = "(the chien, not logged)"
    elif method == "append_action" and len(out) >= 4:
        action = out[3]
        if isinstance(action, dict):
            kind, seat = action.get("type"), action.get("seat")
        else:
            kind, seat = type(action).__name__.lower(), getattr(action, "seat", None)
        if kind == "discard":
            out[3] = {"type": "discard", "seat": seat, "cards": "(not logged)"}
    return out


def shown_ops(ops: Sequence[Any]) -> list[Any]:
    """A group of journal writes ``(method, args, kw)`` as a log may show them (shown_args)."""
    return [[m, shown_args(m, a), kw] for m, a, kw in ops]


def backup_tmp(dest: str) -> str:
    """A new, empty temporary file next to ``dest`` for a backup to be written into and then
    renamed, readable by its owner only (0600): a backup holds the accounts' password hashes,
    and the copying tools (VACUUM INTO, pg_dump) keep the mode of a file that exists. An old
    temporary file of this process is replaced."""
    directory = os.path.dirname(os.path.abspath(dest))
    problem = directory_problem(directory)
    if problem:  # the error would name the temporary file, which the host never asked for
        raise StoreIOError(f"cannot write {dest}: {problem}")
    tmp = os.path.join(directory, f".{os.path.basename(dest)}.{os.getpid()}.tmp")
    if os.path.lexists(tmp):
        os.remove(tmp)
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as e:
        raise StoreIOError(f"cannot write {dest} (in {directory}): {e.strerror or e}") from None
    return tmp


def directory_problem(directory: str) -> str | None:
    """Why files cannot be made in ``directory``, in plain words, or None."""
    if not os.path.exists(directory):
        return f"the directory {directory} does not exist"
    if not os.path.isdir(directory):
        return f"{directory} is not a directory"
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"the directory {directory} is not writable by this user"
    return None


def now() -> str:
    return fmt_time(datetime.now(UTC))


def fmt_time(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text: str) -> str:
    """A date or date-time (ISO 8601; naive means UTC) in the stored form. Raises ValueError."""
    dt = datetime.fromisoformat(text.strip())
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return fmt_time(dt)


def num(x: float | int | None) -> int | float:
    """A stored score: exact halves as floats, whole numbers as ints."""
    if x is None:
        return 0
    return int(x) if float(x).is_integer() else float(x)


def json_value(obj: Any) -> Any:
    """``obj`` as plain JSON data (tuples become lists, structs become dicts)."""
    return _decode(_encode(obj))


def check_record(
    rec: Any, players: Sequence[str | None], scores: Sequence[float]
) -> dict[str, Any]:
    """The record's result, after checking the arguments agree with each other."""
    if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT:
        raise ValueError(f"record_deal needs an {RECORD_FORMAT} record")
    result = rec.get("result")
    if not isinstance(result, dict) or result.get("status") not in FINISHED_STATUSES:
        raise ValueError("record_deal needs a finished record with its result")
    if len(players) != 4 or len(scores) != 4:
        raise ValueError("players and scores must list the four seats")
    stored = result.get("scores")
    if stored is not None and [float(x) for x in stored] != [float(x) for x in scores]:
        raise ValueError(
            f"scores {list(scores)} are not the deal's result scores {stored} "
            "(record_deal takes this deal's scores, not cumulative ones)"
        )
    return result


def check_dealt(
    hands: Sequence[Sequence[str]], chien: Sequence[str], players: Sequence[str | None] | None
) -> tuple[dict[str, Any], list[str | None]]:
    """``start_deal``'s arguments checked: the dealt cards as stored, the four seats."""
    if len(hands) != 4:
        raise ValueError("hands must list four hands")
    seats: list[str | None] = list(players) if players is not None else [None] * 4
    if len(seats) != 4:
        raise ValueError("players must list four seats")
    return {"hands": [list(h) for h in hands], "chien": list(chien)}, seats


# The key order of the objects a record is made of, as the server writes them (records.py,
# scoring.py): ``canonical`` restores it, so that a record reads back byte for byte the same
# from both backends (jsonb keeps its keys in an order of its own).
_RECORD_KEYS = ("format", "dealer", "hands", "chien", "actions", "result", "meta")
_ACTION_KEYS = ("type", "seat", "contract", "cards", "announce", "card")
_RESULT_KEYS = (
    "status", "reason", "taker", "contract", "multiplier", "chelem_announced", "oudlers",
    "target", "taker_points", "won", "base", "petit_au_bout", "poignee", "chelem",
    "per_defender", "scores",
)  # fmt: skip
_META_KEYS = ("table_id", "deal_no", "players", "finished_at")


def _ordered(d: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    out = {k: d[k] for k in keys if k in d}
    for k in sorted(d):  # keys the server does not write (yet): after, in a fixed order
        if k not in out:
            out[k] = _sorted(d[k])
    return out


def _sorted(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _sorted(x[k]) for k in sorted(x)}
    if isinstance(x, list):
        return [_sorted(v) for v in x]
    return x


def canonical(rec: dict[str, Any]) -> dict[str, Any]:
    """A record (or partial record) with its keys in the server's order, recursively."""
    out = _ordered(rec, _RECORD_KEYS)
    if isinstance(out.get("actions"), list):
        out["actions"] = [
            _ordered(a, _ACTION_KEYS) if isinstance(a, dict) else a for a in out["actions"]
        ]
    if isinstance(out.get("result"), dict):
        out["result"] = _ordered(out["result"], _RESULT_KEYS)
    if isinstance(out.get("meta"), dict):
        out["meta"] = _ordered(out["meta"], _META_KEYS)
    return out


def table_dict(row: Sequence[Any]) -> dict[str, Any]:
    tid, name, options, status, created, finished, deals = row
    return {
        "id": tid,
        "name": name,
        "options": _decode(options) if isinstance(options, str | bytes) else options,
        "status": status,
        "created_at": created,
        "finished_at": finished,
        "deals": deals,
    }


def partial_record(dealer: int, dealt: Any, actions: list[Any]) -> dict[str, Any]:
    """The ``atout-deal/1`` record (without result) of a deal in progress."""
    cards = dealt if isinstance(dealt, dict) else (_decode(dealt) if dealt else None)
    cards = cards or {"hands": [], "chien": []}
    return {
        "format": RECORD_FORMAT,
        "dealer": dealer,
        "hands": cards["hands"],
        "chien": cards["chien"],
        "actions": actions,
    }


# --- the interfaces -------------------------------------------------------------------------

#: One write of a journal batch: the name of a Store write method, its arguments, its keywords.
Op = tuple[str, tuple[Any, ...], dict[str, Any]]
#: Who may write a table: (table id, worker, ownership epoch), checked in the write transaction.
Fence = tuple[str, int, int]
#: An open table as stored: its row, its finished deal records, its deals in progress.
OpenTable = tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]


#: One seat of a finished deal: {"account": id | None, "guest": name | None, "ai": level | None,
#: "partial": bool} (``partial``: the seat changed hands during the deal; not rated).
SeatWho = dict[str, Any]
#: ``rate(subjects, current, taker, taker_won)``: each seat's rated subject (an account id, or
#: None: not rated), the subjects' current (mu, sigma), the taker's seat and whether the taker
#: won -> the new (mu, sigma) of every subject (server.players.ratings.rate).
RateFn = Callable[
    [list[Any], dict[Any, tuple[float, float]], int, bool], dict[Any, tuple[float, float]]
]


class Store(Protocol):
    """The store: tables, finished deals and scores, players, the action log (crash safety).

    Synchronous; one thread at a time. Every write is one transaction and idempotent (the same
    call twice changes nothing the second time; a contradicting one raises StoreConflict).
    Failures raise a typed StoreError. The methods and their exact behaviour are those of the
    SQLite implementation (its docstrings); the tests run on both backends.
    """

    readonly: bool
    #: whether this backend implements :class:`PlayerStore` (accounts, histories, ratings)
    keeps_players: bool

    def schema_version(self) -> list[str]: ...
    def writable(self, timeout: float = 0.5) -> bool: ...

    # tables
    def create_table(
        self,
        table_id: str,
        name: str,
        options: dict[str, Any],
        *,
        status: str = "open",
        created_at: str | None = None,
    ) -> None: ...
    def set_table_status(self, table_id: str, status: str) -> None: ...
    def finish_table(self, table_id: str, status: str = "finished") -> None: ...
    def table(self, table_id: str) -> dict[str, Any] | None: ...
    def tables(self, *, unfinished: bool = False) -> list[dict[str, Any]]: ...
    def open_tables(self, owned: Callable[[str], bool] | None = None) -> list[OpenTable]: ...

    # deals and scores
    def record_deal(
        self,
        table_id: str,
        deal_no: int,
        record: dict[str, Any],
        players: Sequence[str | None],
        scores: Sequence[float],
        finished_at: str | None = None,
        *,
        seats: Sequence[SeatWho] | None = None,
    ) -> None:
        """``seats``: who sat in each seat (``PlayerStore``); a backend that does not keep
        players (``keeps_players`` false) accepts and ignores it."""
        ...

    def table_scores(self, table_id: str) -> list[int | float]: ...
    def deals(
        self, table_id: str | None = None, since: str | None = None
    ) -> Iterator[dict[str, Any]]: ...
    def deal(self, table_id: str, deal_no: int) -> dict[str, Any] | None: ...
    def standings(self, table_id: str | None = None) -> list[dict[str, Any]]: ...

    # the action log
    def start_deal(
        self,
        table_id: str,
        deal_no: int,
        dealer: int,
        hands: Sequence[Sequence[str]],
        chien: Sequence[str],
        *,
        players: Sequence[str | None] | None = None,
        started_at: str | None = None,
    ) -> None: ...
    def append_action(self, table_id: str, deal_no: int, idx: int, action: Any) -> None: ...
    def unfinished_deals(self) -> list[dict[str, Any]]: ...

    # the journal: many tables' writes in one transaction
    def write_batch(
        self, groups: list[list[Op]], fences: list[Fence | None] | None = None
    ) -> list[BaseException | None]:
        """Every group (one table's writes, in order) in ONE transaction, each group all or
        nothing (a savepoint). Per group: None once written, or the error that refused it
        (then nothing of it was written; a ``fences`` entry that no longer matches the
        table's owner row gives StoreFenced). A transient failure of the storage itself
        raises instead: nothing of the batch was written."""
        ...

    # copying, maintenance
    def dump_rows(self) -> Iterator[tuple[str, list[dict[str, Any]]]]: ...
    def load_rows(self, table: str, rows: list[dict[str, Any]]) -> None: ...
    def bulk_load(self) -> AbstractContextManager[None]: ...
    def row_counts(self) -> dict[str, int]: ...
    def backup(self, dest: str, *, overwrite: bool = False) -> None: ...
    def close(self) -> None: ...


class PlayerStore(Protocol):
    """The players' part of a store (issue 12): accounts and their keys (by SHA-256 only), who
    sat in every finished deal (written by ``record_deal(seats=...)`` in its transaction), the
    review of every played deal (par, figures, ratings), profiles, histories, leaderboards.

    The SQLite implementation (``server/store/players.py``, its docstrings and the tests) is
    the reference; a backend with ``keeps_players`` false need not have these methods (the
    server then answers the players' requests with ``not_supported``). ``name_key`` is the
    compared form of a name (``server.players.names.name_key``), unique per account kind
    namespace; accounts are dicts ``{"id", "name", "kind", "since"}``; a password hash is
    returned by ``login_account`` only.
    """

    # accounts and keys
    def create_account(
        self, name: str, name_key: str, kind: str, password: str | None, key_hash: str
    ) -> dict[str, Any] | None:
        """A new account with its first key; None if ``name_key`` is taken."""
        ...

    def login_account(self, name_key: str) -> tuple[dict[str, Any], str | None] | None: ...
    def account_named(self, name_key: str) -> dict[str, Any] | None: ...
    def player_names(self) -> list[tuple[int, str, str]]: ...
    def ai_account_named(self, level: str) -> dict[str, Any] | None: ...
    def account_for_key(self, key_hash: str) -> dict[str, Any] | None:
        """The account of a live key (its use recorded), or None."""
        ...

    def add_key(self, account_id: int, key_hash: str) -> None: ...
    def revoke_key(self, key_hash: str) -> bool: ...
    def replace_key(self, old_hash: str, new_hash: str) -> bool: ...
    def account_keys(self, account_id: int) -> int: ...
    def rekey_accounts(self, key_of: Callable[[str], str]) -> dict[str, Any]:
        """Recompute every account's ``name_key`` (at start; see the SQLite docstring)."""
        ...

    # reviews
    def pending_reviews(self, limit: int = 100) -> list[tuple[str, int]]: ...
    def review_input(self, table_id: str, deal_no: int) -> dict[str, Any] | None: ...
    def apply_review(
        self,
        table_id: str,
        deal_no: int,
        review: dict[str, Any],
        rate: RateFn | None,
        *,
        mu0: float = 25.0,
        sigma0: float = 25.0 / 3,
    ) -> dict[str, Any] | None:
        """Store a review and update the ratings in ONE transaction (``rate`` is called
        inside it); None if the deal was reviewed already."""
        ...

    def par_of(self, table_id: str, deal_no: int) -> dict[str, Any] | None: ...

    # reading
    def sat_at(self, table_id: str, account_id: int) -> bool: ...
    def profile(
        self, account_id: int | None = None, guest: str | None = None
    ) -> dict[str, Any]: ...
    def history(
        self,
        account_id: int | None = None,
        guest: str | None = None,
        *,
        viewer: int | None = None,
        limit: int = 20,
        cursor: list[Any] | None = None,
    ) -> tuple[list[dict[str, Any]], str | None, int]: ...
    def leaderboard(
        self,
        by: str = "rating",
        *,
        min_deals: int = 0,
        limit: int = 50,
        offset: int = 0,
        include_ai: bool = True,
    ) -> tuple[list[dict[str, Any]], int]: ...
    def player_deals(
        self, account_id: int | None = None, guest: str | None = None
    ) -> list[tuple[str, int]]: ...


@dataclass
class WorkerRow:
    """A worker's registration."""

    worker: int
    url: str
    pid: int
    host: str
    started_at: float
    heartbeat_at: float
    listing_rev: int
    slot: int | None = None  # its place on its host (ports PORT+slot), when a supervisor runs it

    def live(self, now: float, stale_after: float, host: str) -> bool:
        """Renewed its lease lately and, on this host, its process exists."""
        if now - self.heartbeat_at > stale_after:
            return False
        return self.host != host or pid_alive(self.pid)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (a zombie awaiting its parent does not)."""
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        return stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3] != b"Z"
    except (OSError, ValueError):
        return True  # no /proc: trust kill()


#: (table id, owner, epoch) of a table that changed hands
Adopted = tuple[str, int, int]


class Registry(Protocol):
    """The cluster's shared state (server/cluster/worker.py): worker registrations with their
    heartbeat lease and published lobby listing, table ownership with its epoch (the fencing
    token), and the seat tokens' tables (by SHA-256 only). Synchronous, one thread."""

    #: whether ``listen`` can push listing changes (PostgreSQL's LISTEN/NOTIFY)
    pushes: bool

    def register(
        self,
        worker: int | None,
        url: str,
        pid: int,
        host: str,
        now: float,
        stale_after: float,
        slot: int | None = None,
    ) -> int:
        """Register (``worker`` None: allocate a new id); returns the worker id. Raises
        WorkerIdTaken when a live process holds ``worker``."""
        ...

    def set_url(self, worker: int, pid: int, url: str) -> None: ...
    def deregister(self, worker: int | None, pid: int, host: str | None = None) -> None:
        """Not a redirect target any more; ``worker`` None: the one process ``pid`` of
        ``host`` registered (the supervisor does not know the ids the registry allocated)."""
        ...

    def workers(self) -> list[WorkerRow]: ...
    def worker(self, worker: int) -> WorkerRow | None: ...
    def beat(
        self,
        worker: int,
        pid: int,
        now: float,
        listing: bytes | None,
        known: dict[int, tuple[int, int]],
    ) -> tuple[bool, list[WorkerRow], dict[int, list[dict[str, Any]]]]: ...

    def claim_tables(self, worker: int, table_ids: list[str], now: float) -> None:
        """Record new tables as ``worker``'s at epoch 1 (never takes one from another)."""
        ...

    def owned_tables(self, worker: int) -> dict[str, int]:
        """The open tables ``worker`` owns: table id -> epoch."""
        ...

    def adopt(
        self,
        worker: int,
        now: float,
        stale_after: float,
        host: str,
        slot: int | None,
        include_own: bool = False,
    ) -> list[Adopted]:
        """Take over the open tables of workers whose lease expired (or, on this host, the
        dead predecessor in ``slot``; with ``include_own``, a previous process under our own
        id): a compare-and-set of each owner row that bumps its epoch. Returns what was taken
        (table id, previous owner, new epoch)."""
        ...

    def close_table(self, table_id: str, now: float, fence: Fence | None = None) -> None: ...
    def table_owner(self, table_id: str) -> tuple[int | None, bool, WorkerRow | None]: ...
    def index_tokens(self, pairs: list[tuple[str, str]]) -> None: ...
    def drop_token(self, hashed: str, fence: Fence | None = None) -> None: ...
    def token_table(self, hashed: str) -> str | None: ...
    def notify(self) -> None:
        """Tell the other workers the listings changed (PostgreSQL: NOTIFY)."""
        ...

    def listen(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for a listing change from another worker."""
        ...

    def close(self) -> None: ...

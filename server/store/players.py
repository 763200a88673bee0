"""The store's player tables (issue 12): accounts and their keys, who sat where in every finished
deal, the review of each deal (par, per-seat figures, ratings), profiles, histories and
leaderboards. :class:`SqlitePlayers` is a mixin of :class:`server.store.sqlite.SqliteStore` that
implements ``server.store.base.PlayerStore``: every query is a named method here, so another
backend implements the same methods.

Schema (migration ``0003_players``):

- ``accounts(id, ns, name, name_key, kind, password, created_at, last_seen)``: ``kind`` is
  ``registered`` or ``bot`` (namespace ``ns`` ``player``) or ``ai`` (an AI level, ``ns`` ``ai``,
  created at its first rated deal). ``name_key`` is the name as compared (NFKC, case-folded,
  computed by ``server.players.names``), unique per namespace. ``password`` is the KDF string
  (``server.players.passwords``) or NULL for a key-only account. Never returned by a method
  except :meth:`SqlitePlayers.login_account`.
- ``account_keys(key_hash, account_id, created_at, last_used)``: the SHA-256 of each live key.
- ``ratings(account_id, mu, sigma, deals, updated_at)``.
- ``deal_players(table_id, deal_no, seat, account_id, guest, ai, partial, status, score,
  finished_at, reviewed, role, won, margin, petit_au_bout, poignee, chelem, par, rating_mu,
  rating_sigma, rating_delta)``: one row per seat of every finished deal; the player is an
  account, a guest name or an AI level; ``partial`` when the seat changed hands during the
  deal (not rated). The figures after ``reviewed`` are written by the deal's review.
- ``pars(table_id, deal_no, level, scores, record, cpu_ms, computed_at)``: the reference
  bot's replay of a deal's cards (its record, replayable) and each seat's score there.
- ``deals.review``: ``pending`` until a played deal is reviewed, then ``done``.
"""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from server.store.base import RateFn, SeatWho

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode

PLAYERS_SCHEMA = (
    """CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        ns TEXT NOT NULL,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL,
        kind TEXT NOT NULL,
        password TEXT,
        created_at TEXT NOT NULL,
        last_seen TEXT,
        UNIQUE (ns, name_key))""",
    """CREATE TABLE account_keys (
        key_hash TEXT PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        created_at TEXT NOT NULL,
        last_used TEXT)""",
    "CREATE INDEX account_keys_account ON account_keys(account_id)",
    """CREATE TABLE ratings (
        account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        deals INTEGER NOT NULL,
        updated_at TEXT NOT NULL)""",
    """CREATE TABLE deal_players (
        table_id TEXT NOT NULL,
        deal_no INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        account_id INTEGER REFERENCES accounts(id),
        guest TEXT,
        ai TEXT,
        partial INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL,
        score REAL NOT NULL,
        finished_at TEXT NOT NULL,
        reviewed INTEGER NOT NULL DEFAULT 0,
        role TEXT,
        won INTEGER,
        margin REAL,
        petit_au_bout INTEGER,
        poignee TEXT,
        chelem INTEGER,
        par REAL,
        rating_mu REAL,
        rating_sigma REAL,
        rating_delta REAL,
        PRIMARY KEY (table_id, deal_no, seat),
        FOREIGN KEY (table_id, deal_no) REFERENCES deals(table_id, deal_no))""",
    "CREATE INDEX deal_players_account ON deal_players(account_id, finished_at)",
    "CREATE INDEX deal_players_guest ON deal_players(guest, finished_at)",
    """CREATE TABLE pars (
        table_id TEXT NOT NULL,
        deal_no INTEGER NOT NULL,
        level TEXT NOT NULL,
        scores TEXT NOT NULL,
        record TEXT NOT NULL,
        cpu_ms REAL,
        computed_at TEXT NOT NULL,
        PRIMARY KEY (table_id, deal_no),
        FOREIGN KEY (table_id, deal_no) REFERENCES deals(table_id, deal_no))""",
    "ALTER TABLE deals ADD COLUMN review TEXT",
    "CREATE INDEX deals_review ON deals(review) WHERE review = 'pending'",
)


def backfill_deal_players(conn: sqlite3.Connection) -> None:
    """Upgrade: the seats of every deal finished before accounts existed (guests by name, AI
    seats by the table's configured level); played deals wait for their review (par)."""
    for seat in range(4):
        conn.execute(
            "INSERT INTO deal_players (table_id, deal_no, seat, guest, ai, status, score,"
            " finished_at, reviewed)"
            f" SELECT d.table_id, d.deal_no, {seat}, d.seat{seat},"
            f" CASE WHEN d.seat{seat} IS NULL THEN json_extract(t.options, '$.ai[{seat}]') END,"
            f" d.status, COALESCE(json_extract(d.scores, '$[{seat}]'), 0),"
            " COALESCE(d.finished_at, d.started_at), d.status != 'played'"
            " FROM deals d JOIN tables t ON t.id = d.table_id"
            " WHERE d.status IN ('played', 'annulled')"
        )
    conn.execute("UPDATE deals SET review = 'pending' WHERE status = 'played'")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _num(x: float | int | None) -> int | float | None:
    if x is None:
        return None
    return int(x) if float(x).is_integer() else round(float(x), 4)


def _cursor(*parts: Any) -> str:
    return base64.urlsafe_b64encode(_encode(list(parts))).decode().rstrip("=")


def decode_cursor(text: str) -> list[Any] | None:
    """A cursor from :meth:`SqlitePlayers.history` or :meth:`SqlitePlayers.leaderboard`, or None."""
    try:
        value = _decode(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (ValueError, msgspec.DecodeError):
        return None
    return value if isinstance(value, list) else None


_ACCOUNT_COLS = "id, name, kind, created_at"
#: An AI level's seats in ``deal_players dp``: as the reviews rate it (not a seat that changed
#: hands during the deal); the first of them in a deal (``x``, for one history row per deal).
_AI_SEAT = "dp.account_id IS NULL AND dp.guest IS NULL AND dp.partial = 0 AND dp.ai = ?"
_AI_FIRST = (
    "x.table_id = dp.table_id AND x.deal_no = dp.deal_no AND x.account_id IS NULL"
    " AND x.guest IS NULL AND x.partial = 0 AND x.ai = ?"
)
#: One deal, as one value (an AI level's deals are counted once however many seats it held).
_DEAL_KEY = "dp.table_id || '/' || dp.deal_no"


def _account(row: tuple | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"id": row[0], "name": row[1], "kind": row[2], "since": row[3]}


class SqlitePlayers:
    """Mixin of Store (uses its ``conn``, ``_tx`` and ``_errors``)."""

    conn: sqlite3.Connection
    _tx: Callable[..., Any]
    _errors: Callable[..., Any]

    # -- accounts and keys --

    def create_account(
        self, name: str, name_key: str, kind: str, password: str | None, key_hash: str
    ) -> dict[str, Any] | None:
        """A new account (``registered`` or ``bot``) with its first key; None if the name is
        taken."""
        at = _now()

        def tx(c: sqlite3.Connection) -> dict[str, Any] | None:
            try:
                cur = c.execute(
                    "INSERT INTO accounts (ns, name, name_key, kind, password, created_at,"
                    " last_seen) VALUES ('player', ?, ?, ?, ?, ?, ?)",
                    (name, name_key, kind, password, at, at),
                )
            except sqlite3.IntegrityError:
                return None
            aid = cur.lastrowid
            c.execute(
                "INSERT INTO account_keys (key_hash, account_id, created_at, last_used)"
                " VALUES (?, ?, ?, ?)",
                (key_hash, aid, at, at),
            )
            return {"id": aid, "name": name, "kind": kind, "since": at}

        return self._tx(tx)

    def login_account(self, name_key: str) -> tuple[dict[str, Any], str | None] | None:
        """The account registered under ``name_key`` and its password hash (None: key-only)."""
        with self._errors():
            row = self.conn.execute(
                f"SELECT {_ACCOUNT_COLS}, password FROM accounts"
                " WHERE ns = 'player' AND name_key = ?",
                (name_key,),
            ).fetchone()
        if row is None:
            return None
        return _account(row[:4]), row[4]  # type: ignore[return-value]

    def account_named(self, name_key: str) -> dict[str, Any] | None:
        with self._errors():
            return _account(
                self.conn.execute(
                    f"SELECT {_ACCOUNT_COLS} FROM accounts WHERE ns = 'player' AND name_key = ?",
                    (name_key,),
                ).fetchone()
            )

    def player_names(self) -> list[tuple[int, str, str]]:
        """Every player account's id, name and stored name key, oldest first (admin lookups
        on a database whose keys may predate this release's name check)."""
        with self._errors():
            return [
                (int(r[0]), str(r[1]), str(r[2]))
                for r in self.conn.execute(
                    "SELECT id, name, name_key FROM accounts WHERE ns = 'player' ORDER BY id"
                ).fetchall()
            ]

    def ai_account_named(self, level: str) -> dict[str, Any] | None:
        with self._errors():
            return _account(
                self.conn.execute(
                    f"SELECT {_ACCOUNT_COLS} FROM accounts WHERE ns = 'ai' AND name_key = ?",
                    (level,),
                ).fetchone()
            )

    def account_for_key(self, key_hash: str) -> dict[str, Any] | None:
        """The account holding a live key (its last use is recorded), or None."""
        at = _now()

        def tx(c: sqlite3.Connection) -> dict[str, Any] | None:
            row = c.execute(
                f"SELECT {', '.join('a.' + x for x in _ACCOUNT_COLS.split(', '))}"
                " FROM account_keys k JOIN accounts a ON a.id = k.account_id"
                " WHERE k.key_hash = ?",
                (key_hash,),
            ).fetchone()
            if row is not None:
                c.execute(
                    "UPDATE account_keys SET last_used = ? WHERE key_hash = ?", (at, key_hash)
                )
                c.execute("UPDATE accounts SET last_seen = ? WHERE id = ?", (at, row[0]))
            return _account(row)

        return self._tx(tx)

    def add_key(self, account_id: int, key_hash: str) -> None:
        at = _now()
        self._tx(
            lambda c: c.execute(
                "INSERT INTO account_keys (key_hash, account_id, created_at, last_used)"
                " VALUES (?, ?, ?, ?)",
                (key_hash, account_id, at, at),
            )
        )

    def revoke_key(self, key_hash: str) -> bool:
        return bool(
            self._tx(
                lambda c: (
                    c.execute("DELETE FROM account_keys WHERE key_hash = ?", (key_hash,)).rowcount
                )
            )
        )

    def replace_key(self, old_hash: str, new_hash: str) -> bool:
        """Rotation: the new key replaces the old one (False if the old one is not live)."""
        at = _now()

        def tx(c: sqlite3.Connection) -> bool:
            row = c.execute(
                "SELECT account_id FROM account_keys WHERE key_hash = ?", (old_hash,)
            ).fetchone()
            if row is None:
                return False
            c.execute("DELETE FROM account_keys WHERE key_hash = ?", (old_hash,))
            c.execute(
                "INSERT INTO account_keys (key_hash, account_id, created_at, last_used)"
                " VALUES (?, ?, ?, ?)",
                (new_hash, row[0], at, at),
            )
            return True

        return bool(self._tx(tx))

    def account_keys(self, account_id: int) -> int:
        """How many live keys an account has."""
        with self._errors():
            (n,) = self.conn.execute(
                "SELECT COUNT(*) FROM account_keys WHERE account_id = ?", (account_id,)
            ).fetchone()
        return int(n)

    def rekey_accounts(self, key_of: Callable[[str], str]) -> dict[str, Any]:
        """Recompute every player account's ``name_key`` with ``key_of`` (the name check of
        this release: a server started after it changed finds every account by its name). An
        account whose new key is an older account's stays as it was (listed in ``kept``)."""

        def tx(c: Any) -> dict[str, Any]:
            rows = c.execute(
                "SELECT id, name, name_key FROM accounts WHERE ns = 'player' ORDER BY id"
            ).fetchall()
            final = {int(r[0]): r[2] for r in rows}
            taken = set(final.values())
            changed: list[tuple[int, str]] = []
            kept: list[int] = []
            for aid, name, old in rows:
                try:
                    new = key_of(name)
                except ValueError:  # a stored name the check refuses now: left alone
                    continue
                if new == old:
                    continue
                if new in taken:
                    kept.append(int(aid))
                    continue
                taken.discard(old)
                taken.add(new)
                final[int(aid)] = new
                changed.append((int(aid), new))
            # in two passes, so that a key moving from one account to another never collides
            # (a real key never starts with a space)
            for aid, _ in changed:
                c.execute("UPDATE accounts SET name_key = ? WHERE id = ?", (f" rekey {aid}", aid))
            for aid, new in changed:
                c.execute("UPDATE accounts SET name_key = ? WHERE id = ?", (new, aid))
            return {"changed": len(changed), "kept": kept}

        return self._tx(tx)

    # -- seats of finished deals (written by record_deal, in its transaction) --

    def _record_seats(
        self,
        c: sqlite3.Connection,
        table_id: str,
        deal_no: int,
        status: str,
        players: Sequence[str | None],
        seats: Sequence[SeatWho] | None,
        scores: Sequence[float],
        at: str,
    ) -> None:
        if seats is None:  # callers that know only names: guests and unknown AI levels
            seats = [{"guest": p} for p in players]
        rows = []
        for s, who in enumerate(seats):
            account = who.get("account")
            rows.append(
                (
                    table_id,
                    deal_no,
                    s,
                    account,
                    None if account is not None else who.get("guest"),
                    who.get("ai"),
                    int(bool(who.get("partial"))),
                    status,
                    float(scores[s]),
                    at,
                    int(status != "played"),
                )
            )
        c.execute(  # one statement, not one per seat (see sqlite._INSERT_ACTIONS)
            "INSERT INTO deal_players (table_id, deal_no, seat, account_id, guest, ai, partial,"
            " status, score, finished_at, reviewed) VALUES "
            + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(rows)),
            [v for row in rows for v in row],
        )

    # -- reviews: par, per-seat figures and ratings --

    def pending_reviews(self, limit: int = 100) -> list[tuple[str, int]]:
        """Played deals not reviewed yet, oldest first."""
        with self._errors():
            return [
                (r[0], r[1])
                for r in self.conn.execute(
                    "SELECT table_id, deal_no FROM deals WHERE review = 'pending'"
                    " ORDER BY finished_at, table_id, deal_no LIMIT ?",
                    (limit,),
                )
            ]

    def review_input(self, table_id: str, deal_no: int) -> dict[str, Any] | None:
        """A pending deal's ``record`` (to replay for par) as its stored JSON text, left for
        the review worker to decode; or None if reviewed or unknown."""
        with self._errors():
            row = self.conn.execute(
                "SELECT record FROM deals WHERE table_id = ? AND deal_no = ?"
                " AND review = 'pending'",
                (table_id, deal_no),
            ).fetchone()
        if row is None:
            return None
        return {"record": row[0]}

    def _ai_id(self, c: sqlite3.Connection, level: str, at: str) -> int:
        row = c.execute(
            "SELECT id FROM accounts WHERE ns = 'ai' AND name_key = ?", (level,)
        ).fetchone()
        if row is not None:
            return int(row[0])
        cur = c.execute(
            "INSERT INTO accounts (ns, name, name_key, kind, created_at, last_seen)"
            " VALUES ('ai', ?, ?, 'ai', ?, ?)",
            (level, level, at, at),
        )
        return int(cur.lastrowid or 0)

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
        """Store a deal's review, in one transaction, and update the ratings of its seats.

        ``review``: ``par`` (None or ``{"level", "scores", "record", "cpu_ms"}``, the record
        a dict or ``msgspec.Raw`` JSON), ``seats``
        (4 dicts of ``role, won, margin, petit_au_bout, poignee, chelem``), ``taker`` and
        ``taker_won``. ``rate(subjects, current, taker, taker_won)`` gets each seat's rated
        subject (an account id; None for a guest or a seat that changed hands) and their
        current ``(mu, sigma)``, and returns the new ones. Returns what changed
        (``par``, ``over_par``, ``ratings`` per seat), or None if the deal was reviewed
        already (so a review is applied once, even by two workers)."""
        at = _now()

        def tx(c: sqlite3.Connection) -> dict[str, Any] | None:
            row = c.execute(
                "SELECT review FROM deals WHERE table_id = ? AND deal_no = ?",
                (table_id, deal_no),
            ).fetchone()
            if row is None or row[0] != "pending":
                return None
            seats = c.execute(
                "SELECT seat, account_id, ai, partial, score FROM deal_players"
                " WHERE table_id = ? AND deal_no = ? ORDER BY seat",
                (table_id, deal_no),
            ).fetchall()
            subjects: list[int | None] = []
            for _, account, ai, partial, _score in seats:
                if partial:
                    subjects.append(None)
                elif account is not None:
                    subjects.append(int(account))
                elif ai:
                    subjects.append(self._ai_id(c, ai, at))
                else:
                    subjects.append(None)
            current: dict[int, tuple[float, float, int]] = {}
            for known in {x for x in subjects if x is not None}:
                r = c.execute(
                    "SELECT mu, sigma, deals FROM ratings WHERE account_id = ?", (known,)
                ).fetchone()
                current[known] = (r[0], r[1], r[2]) if r else (mu0, sigma0, 0)
            new: dict[int, tuple[float, float]] = {}
            if rate is not None and current and review.get("taker") is not None:
                new = rate(
                    subjects,
                    {k: v[:2] for k, v in current.items()},
                    review["taker"],
                    bool(review["taker_won"]),
                )
            for rated, (new_mu, new_sigma) in new.items():
                c.execute(
                    "INSERT INTO ratings (account_id, mu, sigma, deals, updated_at)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET"
                    " mu = excluded.mu, sigma = excluded.sigma, deals = excluded.deals,"
                    " updated_at = excluded.updated_at",
                    (rated, new_mu, new_sigma, current[rated][2] + 1, at),
                )
            par = review.get("par")
            par_scores = par["scores"] if par else [None] * 4
            out_ratings: list[dict[str, Any] | None] = []
            for (seat, _acc, _ai, _p, _score), sid, fig in zip(
                seats, subjects, review["seats"], strict=True
            ):
                delta = mu = sigma = None
                if sid is not None and sid in new:
                    old_mu, old_sigma, n = current[sid]
                    mu, sigma = new[sid]
                    delta = (mu - 3 * sigma) - (old_mu - 3 * old_sigma)
                    out_ratings.append({"mu": mu, "sigma": sigma, "deals": n + 1, "delta": delta})
                else:
                    out_ratings.append(None)
                c.execute(
                    "UPDATE deal_players SET reviewed = 1, role = ?, won = ?, margin = ?,"
                    " petit_au_bout = ?, poignee = ?, chelem = ?, par = ?, rating_mu = ?,"
                    " rating_sigma = ?, rating_delta = ?"
                    " WHERE table_id = ? AND deal_no = ? AND seat = ?",
                    (
                        fig.get("role"),
                        fig.get("won"),
                        fig.get("margin"),
                        fig.get("petit_au_bout"),
                        fig.get("poignee"),
                        fig.get("chelem"),
                        par_scores[seat],
                        mu,
                        sigma,
                        delta,
                        table_id,
                        deal_no,
                        seat,
                    ),
                )
            if par:
                c.execute(
                    "INSERT OR REPLACE INTO pars (table_id, deal_no, level, scores, record,"
                    " cpu_ms, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        table_id,
                        deal_no,
                        par["level"],
                        _encode(par["scores"]).decode(),
                        _encode(par["record"]).decode(),
                        par.get("cpu_ms"),
                        at,
                    ),
                )
            c.execute(
                "UPDATE deals SET review = 'done' WHERE table_id = ? AND deal_no = ?",
                (table_id, deal_no),
            )
            return {
                "par": par,
                "scores": [_num(r[4]) for r in seats],
                "ratings": out_ratings,
            }

        return self._tx(tx)

    def par_of(self, table_id: str, deal_no: int) -> dict[str, Any] | None:
        """A reviewed deal's par: ``level, scores, record, cpu_ms``, or None."""
        with self._errors():
            row = self.conn.execute(
                "SELECT level, scores, record, cpu_ms FROM pars WHERE table_id = ? AND deal_no = ?",
                (table_id, deal_no),
            ).fetchone()
        if row is None:
            return None
        return {
            "level": row[0],
            "scores": _decode(row[1]),
            "record": _decode(row[2]),
            "cpu_ms": row[3],
        }

    # -- reading: access, profiles, histories, leaderboards --

    def sat_at(self, table_id: str, account_id: int) -> bool:
        """Whether an account sat at a table (in any finished deal of it)."""
        with self._errors():
            return (
                self.conn.execute(
                    "SELECT 1 FROM deal_players WHERE table_id = ? AND account_id = ? LIMIT 1",
                    (table_id, account_id),
                ).fetchone()
                is not None
            )

    def _who(
        self, account_id: int | None, guest: str | None, ai: str | None = None
    ) -> tuple[str, tuple[Any, ...]]:
        if ai is not None:  # an AI level's seats, held throughout the deal (as it is rated)
            return _AI_SEAT, (ai,)
        if account_id is not None:
            return "dp.account_id = ?", (account_id,)
        return "dp.account_id IS NULL AND dp.guest = ?", (guest,)

    def profile(
        self, account_id: int | None = None, guest: str | None = None, ai: str | None = None
    ) -> dict[str, Any]:
        """Figures of an account (or a guest name, or with ``ai`` an AI level, whose rating
        is its account's) over its finished deals. An AI level may hold several seats of a
        deal: ``deals`` and ``played`` count deals, the other figures its seats."""
        where, args = self._who(account_id, guest, ai)
        counts = "COUNT(*), SUM(dp.status = 'played')"
        if ai is not None:
            counts = (
                f"COUNT(DISTINCT {_DEAL_KEY}),"
                f" COUNT(DISTINCT CASE WHEN dp.status = 'played' THEN {_DEAL_KEY} END)"
            )
        with self._errors():
            (
                deals,
                played,
                taker,
                won,
                margin,
                defender,
                def_score,
                pab,
                chelems,
                total,
                mean,
                over_par,
                par_deals,
                first,
                last,
            ) = self.conn.execute(
                f"SELECT {counts}, SUM(dp.role = 'taker'),"
                " SUM(dp.role = 'taker' AND dp.won = 1), AVG(CASE WHEN dp.role = 'taker'"
                " THEN dp.margin END), SUM(dp.role = 'defender'),"
                " AVG(CASE WHEN dp.role = 'defender' THEN dp.score END),"
                " SUM(COALESCE(dp.petit_au_bout, 0)), SUM(COALESCE(dp.chelem, 0)),"
                " SUM(dp.score), AVG(dp.score), AVG(dp.score - dp.par), COUNT(dp.par),"
                " MIN(dp.finished_at), MAX(dp.finished_at)"
                f" FROM deal_players dp WHERE {where}",
                args,
            ).fetchone()
            poignees = dict(
                self.conn.execute(
                    f"SELECT dp.poignee, COUNT(*) FROM deal_players dp WHERE {where}"
                    " AND dp.poignee IS NOT NULL GROUP BY dp.poignee",
                    args,
                ).fetchall()
            )
            rating = None
            if account_id is not None:
                r = self.conn.execute(
                    "SELECT mu, sigma, deals FROM ratings WHERE account_id = ?", (account_id,)
                ).fetchone()
                if r is not None:
                    rating = {"mu": r[0], "sigma": r[1], "deals": r[2]}
        return {
            "deals": deals or 0,
            "played": played or 0,
            "first_deal": first,
            "last_deal": last,
            "taker": {
                "deals": taker or 0,
                "won": won or 0,
                "success_rate": round(won / taker, 4) if taker else None,
                "mean_margin": _num(margin),
            },
            "defender": {"deals": defender or 0, "mean_score": _num(def_score)},
            "petits_au_bout": pab or 0,
            "poignees": {k: poignees.get(k, 0) for k in ("single", "double", "triple")},
            "chelems": chelems or 0,
            "total": _num(total) or 0,
            "mean": _num(mean),
            "over_par": {"deals": par_deals or 0, "mean": _num(over_par)},
            "rating": rating,
        }

    def history(
        self,
        account_id: int | None = None,
        guest: str | None = None,
        *,
        viewer: int | None = None,
        limit: int = 20,
        cursor: list[Any] | None = None,
        ai: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None, int]:
        """A player's finished deals, newest first: the deals of public tables, and those of
        private tables where ``viewer`` (an account id) sat. Returns (rows, next cursor, total
        readable). With ``ai``, an AI level's deals, one row each (its first seat there)."""
        where, args = self._who(account_id, guest, ai)
        if ai is not None:
            where += f" AND dp.seat = (SELECT MIN(x.seat) FROM deal_players x WHERE {_AI_FIRST})"
            args = (*args, ai)
        access = (
            " AND (COALESCE(json_extract(t.options, '$.public'), 1)"
            " OR EXISTS (SELECT 1 FROM deal_players v WHERE v.table_id = dp.table_id"
            " AND v.account_id = ?))"
        )
        args = (*args, viewer if viewer is not None else -1)
        base = (
            " FROM deal_players dp JOIN deals d ON d.table_id = dp.table_id"
            " AND d.deal_no = dp.deal_no JOIN tables t ON t.id = dp.table_id"
            f" WHERE {where}{access}"
        )
        page = ""
        page_args: tuple[Any, ...] = ()
        if cursor is not None and len(cursor) == 3:
            page = (
                " AND (dp.finished_at < ? OR (dp.finished_at = ? AND (dp.table_id < ?"
                " OR (dp.table_id = ? AND dp.deal_no < ?))))"
            )
            at, tid, no = cursor
            page_args = (at, at, tid, tid, no)
        with self._errors():
            (total,) = self.conn.execute(f"SELECT COUNT(*){base}", args).fetchone()
            rows = self.conn.execute(
                "SELECT dp.table_id, t.name, COALESCE(json_extract(t.options, '$.public'), 1),"
                " dp.deal_no, dp.seat, dp.finished_at, dp.status, d.contract, d.taker,"
                " dp.role, dp.won, dp.score, dp.par, dp.rating_mu, dp.rating_sigma,"
                " dp.rating_delta, dp.partial"
                f"{base}{page} ORDER BY dp.finished_at DESC, dp.table_id DESC,"
                " dp.deal_no DESC LIMIT ?",
                (*args, *page_args, limit + 1),
            ).fetchall()
        out = []
        for r in rows[:limit]:
            rating = None
            if r[13] is not None:
                rating = {"mu": r[13], "sigma": r[14], "delta": _num(r[15])}
            out.append(
                {
                    "table": r[0],
                    "table_name": r[1],
                    "public": bool(r[2]),
                    "deal_no": r[3],
                    "seat": r[4],
                    "finished_at": r[5],
                    "status": r[6],
                    "contract": r[7],
                    "taker": r[8],
                    "role": r[9],
                    "won": None if r[10] is None else bool(r[10]),
                    "score": _num(r[11]),
                    "par": _num(r[12]),
                    "over_par": None if r[12] is None else _num(r[11] - r[12]),
                    "rating": rating,
                    "partial": bool(r[16]),
                }
            )
        nxt = None
        if len(rows) > limit:
            last = rows[limit - 1]
            nxt = _cursor(last[5], last[0], last[3])
        return out, nxt, int(total)

    def leaderboard(
        self,
        by: str = "rating",
        *,
        min_deals: int = 0,
        limit: int = 50,
        offset: int = 0,
        include_ai: bool = True,
    ) -> tuple[list[dict[str, Any]], int]:
        """Ranked players: ``by`` ``rating`` (accounts with a rating, AI levels included,
        by μ − 3σ), ``total`` or ``mean`` (score per deal; accounts and guests, not AI levels).
        Returns (rows, total rows)."""
        if by == "rating":
            where = "r.deals >= ?" + ("" if include_ai else " AND a.kind != 'ai'")
            base = f" FROM ratings r JOIN accounts a ON a.id = r.account_id WHERE {where}"
            order = "r.mu - 3 * r.sigma DESC, a.name"
            cols = (
                # the club's figures beside the rating, as the other rankings give them
                "a.name, a.kind, r.deals, r.mu, r.sigma,"
                " (SELECT SUM(dp.score) FROM deal_players dp WHERE dp.account_id = a.id),"
                " (SELECT AVG(dp.score) FROM deal_players dp WHERE dp.account_id = a.id), a.id,"
                " (SELECT AVG(dp.score - dp.par) FROM deal_players dp"
                "  WHERE dp.account_id = a.id AND dp.par IS NOT NULL), r.deals"
            )
            args: tuple[Any, ...] = (min_deals,)
        elif by in ("total", "mean"):
            base = (
                " FROM (SELECT dp.account_id AS aid, dp.guest AS guest, COUNT(*) AS n,"
                " SUM(dp.score) AS total, AVG(dp.score) AS mean,"
                " AVG(dp.score - dp.par) AS over_par FROM deal_players dp"
                " WHERE dp.account_id IS NOT NULL OR dp.guest IS NOT NULL"
                " GROUP BY dp.account_id, CASE WHEN dp.account_id IS NULL THEN dp.guest END) g"
                " LEFT JOIN accounts a ON a.id = g.aid"
                " LEFT JOIN ratings r ON r.account_id = g.aid WHERE g.n >= ?"
            )
            order = f"g.{by} DESC, COALESCE(a.name, g.guest), a.id"
            cols = (
                "COALESCE(a.name, g.guest), COALESCE(a.kind, 'guest'), g.n, r.mu, r.sigma,"
                " g.total, g.mean, a.id, g.over_par, r.deals"
            )
            args = (min_deals,)
        else:
            raise ValueError(f"unknown ranking {by!r}")
        with self._errors():
            (total,) = self.conn.execute(f"SELECT COUNT(*){base}", args).fetchone()
            rows = self.conn.execute(
                f"SELECT {cols}{base} ORDER BY {order} LIMIT ? OFFSET ?",
                (*args, limit, offset),
            ).fetchall()
        out = []
        for i, (name, kind, n, mu, sigma, tot, mean, _aid, over, rated) in enumerate(rows):
            out.append(
                {
                    "rank": offset + i + 1,
                    "name": name,
                    "kind": kind,
                    "deals": n,
                    "rated": rated or 0,
                    "mu": mu,
                    "sigma": sigma,
                    "total": _num(tot),
                    "mean": _num(mean),
                    "over_par": _num(over),
                }
            )
        return out, int(total)

    def player_deals(
        self, account_id: int | None = None, guest: str | None = None
    ) -> list[tuple[str, int]]:
        """(table_id, deal_no) of every finished deal of a player, oldest first."""
        where, args = self._who(account_id, guest)
        with self._errors():
            return [
                (r[0], r[1])
                for r in self.conn.execute(
                    f"SELECT dp.table_id, dp.deal_no FROM deal_players dp WHERE {where}"
                    " ORDER BY dp.finished_at, dp.table_id, dp.deal_no",
                    args,
                )
            ]

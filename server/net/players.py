"""The players' requests (issue 12): ``register``, ``login``, ``logout``, ``rotate_key``,
``player``, ``history``, ``leaderboard``, and ``hello.key``.

Each request runs as a task (the store and password hashing are off the loop) and gets exactly
one answer. Keys travel only in the ``account`` answer that hands them out; the connection keeps
the SHA-256 of the key it logged in with (for ``logout`` and ``rotate_key``), never the key.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import protocol.messages as P
from protocol.errors import ErrorCode
from server.players.accounts import AccountError, Accounts, key_hash
from server.players.names import BadName, name_key
from server.players.service import rating_view
from server.store.players import decode_cursor

log = logging.getLogger("atout.players")


def _public(account: dict[str, Any]) -> dict[str, Any]:
    return {"name": account["name"], "kind": account["kind"], "since": account["since"]}


class PlayerRequests:
    def __init__(self, store: Any, accounts: Accounts) -> None:
        self.store = store
        self.accounts = accounts
        self._tasks: set[asyncio.Task[None]] = set()
        # the store's players' tables (server.store.base.PlayerStore); none: not_supported
        self.keeps_players = bool(getattr(store, "keeps_players", False))

    def handlers(self) -> dict[type, Callable[[Any, Any], None]]:
        return {
            P.Register: self._spawn(self._register),
            P.Login: self._spawn(self._login),
            P.Logout: self._spawn(self._logout),
            P.RotateKey: self._spawn(self._rotate),
            P.Player: self._spawn(self._player),
            P.History: self._spawn(self._history),
            P.Leaderboard: self._spawn(self._leaderboard),
        }

    def _spawn(self, fn: Callable[[Any, Any], Awaitable[None]]) -> Callable[[Any, Any], None]:
        def start(sess: Any, msg: Any) -> None:
            if not self.keeps_players:
                sess.error(
                    msg.id, ErrorCode.NOT_SUPPORTED, "this server's database keeps no players"
                )
                return
            task = asyncio.get_running_loop().create_task(self._answer(fn, sess, msg))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return start

    async def _answer(self, fn: Callable[[Any, Any], Awaitable[None]], sess: Any, msg: Any) -> None:
        try:
            await fn(sess, msg)
        except AccountError as e:
            details: dict[str, Any] | None = None
            if e.retry_after is not None:
                details = {"retry_after": round(e.retry_after, 1)}
            elif e.path is not None:
                details = {"path": e.path}
            sess.error(msg.id, ErrorCode(e.code), e.message, details=details)
        except Exception as e:
            from server.store.base import StoreError

            if isinstance(e, StoreError):
                sess.error(
                    msg.id,
                    ErrorCode.STORAGE_UNAVAILABLE,
                    "the server cannot read or store players right now; try again shortly",
                    details={"reason": e.code},
                )
                return
            log.exception("%s: error handling %s", sess, type(msg).__name__)
            sess.error(msg.id, ErrorCode.INTERNAL, "internal server error")

    async def start(self) -> None:
        """Bring the stored name keys up to this release's name check (server/players/names.py),
        so that every account is found by its name after an upgrade."""
        if not self.keeps_players:
            return
        done = await self.accounts.rekey()
        if done["changed"]:
            log.info("account names: %d compared form(s) updated", done["changed"])
        for aid in done["kept"]:
            log.warning(
                "account %d: its name now looks like an older account's; it keeps its old"
                " compared form (log in may find the older account: rename one of them)",
                aid,
            )

    async def close(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.accounts.close()

    # -- the connection's player --

    @staticmethod
    def _become(sess: Any, account: dict[str, Any] | None, key: str | None) -> None:
        sess.account = account
        sess.key_hash = None if key is None else key_hash(key)
        if account is not None:
            sess.name = account["name"]

    async def hello_key(self, sess: Any, key: str) -> bool:
        """Check ``hello.key``: the connection becomes its player (True), or nothing (False)."""
        if not self.keeps_players:  # nothing to check it against: a guest (welcome.player null)
            return True
        account = await self.accounts.for_key(key)
        if account is None:
            return False
        self._become(sess, account, key)
        return True

    # -- requests --

    async def _register(self, sess: Any, msg: P.Register) -> None:
        account, key = await self.accounts.register(sess.id, msg.name, msg.password, bool(msg.bot))
        self._become(sess, account, key)
        log.info("%s registered account %d (%s)", sess.id, account["id"], account["kind"])
        sess.send_obj({"type": "account", "id": msg.id, "player": _public(account), "key": key})

    async def _login(self, sess: Any, msg: P.Login) -> None:
        account, key = await self.accounts.login(sess.id, msg.name, msg.password)
        self._become(sess, account, key)
        log.info("%s logged in to account %d", sess.id, account["id"])
        sess.send_obj({"type": "account", "id": msg.id, "player": _public(account), "key": key})

    async def _logout(self, sess: Any, msg: P.Logout) -> None:
        hashed = key_hash(msg.key) if msg.key is not None else getattr(sess, "key_hash", None)
        if hashed is None:
            raise AccountError("not_logged_in", "this connection holds no player key")
        if not await self.store.players("revoke_key", hashed):
            raise AccountError("bad_key", "this player key is not valid (any more)")
        if hashed == getattr(sess, "key_hash", None):
            self._become(sess, None, None)  # a guest from now on, under the same name
        sess.send_obj({"type": "ok", "id": msg.id})

    async def _rotate(self, sess: Any, msg: P.RotateKey) -> None:
        hashed = getattr(sess, "key_hash", None)
        if hashed is None or sess.account is None:
            raise AccountError("not_logged_in", "this connection holds no player key")
        from server.players.accounts import new_key

        key = new_key()
        if not await self.store.players("replace_key", hashed, key_hash(key)):
            self._become(sess, None, None)
            raise AccountError("bad_key", "this connection's player key was revoked")
        self._become(sess, sess.account, key)
        sess.send_obj(
            {"type": "account", "id": msg.id, "player": _public(sess.account), "key": key}
        )

    async def _subject(
        self, sess: Any, name: str | None, kind: str | None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(who: account id or guest name for the store, ref: name and kind shown)."""
        kind = kind or "player"
        if name is None:
            if sess.account is None:
                raise AccountError("not_logged_in", "give a `name`, or log in first")
            a = sess.account
            return {"account_id": a["id"]}, {
                "name": a["name"],
                "kind": a["kind"],
                "since": a["since"],
            }
        if kind == "guest":
            n = (await self.store.players("profile", guest=name))["deals"]
            if not n:
                raise AccountError("no_such_player", f"no guest {name[:40]!r} finished a deal")
            return {"guest": name}, {"name": name, "kind": "guest", "since": None}
        if kind == "ai":
            a = await self.store.players("ai_account_named", name)
            if a is not None:  # its seats are not its account's: found by level
                ref = {"name": a["name"], "kind": a["kind"], "since": a["since"]}
                return {"account_id": a["id"], "ai": a["name"]}, ref
        else:
            try:
                key = name_key(name)
            except BadName:
                a = None
            else:
                a = await self.store.players("account_named", key)
        if a is None:
            raise AccountError("no_such_player", f"no {kind} named {name[:40]!r}")
        return {"account_id": a["id"]}, {"name": a["name"], "kind": a["kind"], "since": a["since"]}

    async def _player(self, sess: Any, msg: P.Player) -> None:
        who, ref = await self._subject(sess, msg.name, msg.kind)
        prof = await self.store.players("profile", **who)
        prof["rating"] = rating_view(prof["rating"])
        sess.send_obj({"type": "player", "id": msg.id, "player": {**ref, **prof}})

    async def _history(self, sess: Any, msg: P.History) -> None:
        cursor = None
        if msg.cursor is not None:
            cursor = decode_cursor(msg.cursor)
            if not _history_cursor(cursor):
                raise AccountError(
                    "invalid_field", "cursor: not a cursor from `history`", path="$.cursor"
                )
        who, ref = await self._subject(sess, msg.name, msg.kind)
        viewer = None if sess.account is None else sess.account["id"]
        limit = msg.limit or 20
        rows, nxt, total = await self.store.players(
            "history", **who, viewer=viewer, limit=limit, cursor=cursor
        )
        ref.pop("since", None)
        sess.send_obj(
            {
                "type": "history",
                "id": msg.id,
                "player": ref,
                "deals": rows,
                "next": nxt,
                "total": total,
            }
        )

    async def _leaderboard(self, sess: Any, msg: P.Leaderboard) -> None:
        by = msg.by or "rating"
        min_deals = msg.min_deals if msg.min_deals is not None else (20 if by == "rating" else 1)
        limit = msg.limit or 50
        offset = 0
        if msg.cursor is not None:
            c = decode_cursor(msg.cursor)
            if not c or c[0] != by or type(c[1]) is not int or c[1] < 0:
                raise AccountError(
                    "invalid_field", "cursor: not a cursor of this leaderboard", path="$.cursor"
                )
            offset = c[1]
        rows, total = await self.store.players(
            "leaderboard", by, min_deals=min_deals, limit=limit, offset=offset
        )
        out = []
        for r in rows:
            rating = None
            if r["mu"] is not None:
                rating = rating_view({"mu": r["mu"], "sigma": r["sigma"], "deals": r["rated"]})
            out.append(
                {
                    "rank": r["rank"],
                    "name": r["name"],
                    "kind": r["kind"],
                    "deals": r["deals"],
                    "rating": rating,
                    "total": r["total"],
                    "mean": r["mean"],
                    "over_par": r["over_par"],
                }
            )
        from server.store.players import _cursor

        nxt = _cursor(by, offset + limit) if offset + limit < total else None
        sess.send_obj(
            {
                "type": "leaderboard",
                "id": msg.id,
                "by": by,
                "min_deals": min_deals,
                "rows": out,
                "next": nxt,
                "total": total,
            }
        )


def _history_cursor(c: Any) -> bool:
    """``c`` has the shape of a ``history`` cursor (``Store.history``'s ``next``: the last
    row's finish time, table and deal): anything else would reach the query's parameters."""
    return (
        isinstance(c, list)
        and len(c) == 3
        and isinstance(c[0], str)
        and isinstance(c[1], str)
        and type(c[2]) is int
    )

"""Accounts: register, log in, log out, rotate a key, and who holds a key.

A **player key** is ``secrets.token_urlsafe(32)`` (256 bits); the store keeps only its SHA-256
(like seat tokens: a key is random, so a fast hash is enough). A key never appears in a log, a
listing, an error or a metric: only the answer that hands it out carries it.

Passwords (optional) are checked by :mod:`.passwords` in a small thread pool (scrypt releases the
GIL): never on the event loop. Login attempts are limited per connection and per name, for
names that exist and names that do not alike, and a failed login costs one scrypt whatever the
reason (unknown name, key-only account, wrong password) and answers the same ``login_failed``:
neither the answer nor its timing tells whether a name is registered. (``register`` does tell:
``name_taken`` is its purpose.)
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from server.players import passwords
from server.players.names import BadName, display_name, name_key


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    return secrets.token_urlsafe(32)


class AccountError(Exception):
    """A refusal: ``code`` is a protocol error code; ``retry_after`` seconds when limited;
    ``path`` the request field at fault (``details.path`` of an ``invalid_field``)."""

    def __init__(
        self,
        code: str,
        message: str,
        retry_after: float | None = None,
        *,
        path: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after
        self.path = path


class Window:
    """At most ``limit`` events per ``seconds`` for each of many keys (names), in bounded memory:
    the least recently used keys are forgotten beyond ``max_keys``."""

    def __init__(self, limit: int, seconds: float, max_keys: int = 20_000) -> None:
        self.limit = limit
        self.seconds = seconds
        self.max_keys = max_keys
        self._hits: OrderedDict[str, list[float]] = OrderedDict()

    def _recent(self, key: str, now: float) -> list[float]:
        hits = [t for t in self._hits.get(key, ()) if now - t < self.seconds]
        self._hits[key] = hits
        self._hits.move_to_end(key)
        while len(self._hits) > self.max_keys:
            self._hits.popitem(last=False)
        return hits

    def blocked(self, key: str, now: float | None = None) -> float | None:
        """Seconds until ``key`` may try again, or None if it may now."""
        now = time.monotonic() if now is None else now
        hits = self._recent(key, now)
        if len(hits) < self.limit:
            return None
        return max(0.1, self.seconds - (now - hits[0]))

    def hit(self, key: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self._recent(key, now).append(now)


class Accounts:
    """Account requests, for the network layer. ``store`` is an AsyncStore (``run``)."""

    #: failed logins per name (any connection) before that name is refused for a while
    NAME_FAILURES = (5, 300.0)
    #: login attempts per connection
    CONN_LOGINS = (5, 60.0)
    #: accounts registered per connection
    CONN_REGISTERS = (3, 600.0)
    #: password hashes queued at once (each costs ~0.1-0.5 s of a core): beyond, "busy"
    MAX_KDF = 8

    def __init__(self, store: Any) -> None:
        self.store = store
        self._kdf = ThreadPoolExecutor(max_workers=2, thread_name_prefix="atout-kdf")
        self._kdf_pending = 0
        self.name_failures = Window(*self.NAME_FAILURES)
        self.conn_logins = Window(*self.CONN_LOGINS)
        self.conn_registers = Window(*self.CONN_REGISTERS)

    def close(self) -> None:
        self._kdf.shutdown(wait=False, cancel_futures=True)

    async def _in_kdf(self, fn: Any, *args: Any) -> Any:
        if self._kdf_pending >= self.MAX_KDF:
            raise AccountError("rate_limited", "the server is busy checking passwords", 1.0)
        self._kdf_pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._kdf, fn, *args)
        finally:
            self._kdf_pending -= 1

    # -- requests --

    async def register(
        self, conn_id: str, name: str, password: str | None, bot: bool
    ) -> tuple[dict[str, Any], str]:
        """A new account and its first key: (account, key)."""
        try:
            shown, key_ = display_name(name), name_key(name)
        except BadName as e:
            raise AccountError("invalid_field", f"name: {e}", path="$.name") from None
        if password is not None:
            why = passwords.check_password(password)
            if why is not None:
                raise AccountError("bad_password", why)
        wait = self.conn_registers.blocked(conn_id)
        if wait is not None:
            raise AccountError("rate_limited", "too many registrations; try again later", wait)
        taken = await self.store.players("account_named", key_)
        if taken is not None:  # before hashing: a taken name costs no scrypt
            raise AccountError("name_taken", f"the name {shown!r} is already registered")
        hashed = None if password is None else await self._in_kdf(passwords.hash_password, password)
        key = new_key()
        kind = "bot" if bot else "registered"
        account = await self.store.players(
            "create_account", shown, key_, kind, hashed, key_hash(key)
        )
        if account is None:
            raise AccountError("name_taken", f"the name {shown!r} is already registered")
        self.conn_registers.hit(conn_id)  # accounts made per connection
        return account, key

    async def login(self, conn_id: str, name: str, password: str) -> tuple[dict[str, Any], str]:
        """A new key for an account with a password: (account, key)."""
        try:
            key_ = name_key(name)
        except BadName:
            key_ = "\x00" + name[:64]  # no account has it; still limited and still one scrypt
        for window, k in ((self.conn_logins, conn_id), (self.name_failures, key_)):
            wait = window.blocked(k)
            if wait is not None:
                raise AccountError("rate_limited", "too many login attempts; wait", wait)
        self.conn_logins.hit(conn_id)
        found = await self.store.players("login_account", key_)
        account, stored = found if found is not None else (None, None)
        ok = await self._in_kdf(passwords.verify_password, password, stored)
        if not ok or account is None:
            self.name_failures.hit(key_)
            raise AccountError("login_failed", "unknown name or wrong password")
        key = new_key()
        await self.store.players("add_key", account["id"], key_hash(key))
        return account, key

    async def rekey(self) -> dict[str, Any]:
        """Recompute the stored name keys with this release's ``name_key`` (at start)."""
        return await self.store.players("rekey_accounts", name_key)

    async def for_key(self, key: str) -> dict[str, Any] | None:
        """The account holding ``key``, or None."""
        return await self.store.players("account_for_key", key_hash(key))

    async def logout(self, key: str) -> bool:
        return await self.store.players("revoke_key", key_hash(key))

    async def rotate(self, key: str) -> str | None:
        """A new key replacing ``key`` (None if ``key`` is not live)."""
        new = new_key()
        done = await self.store.players("replace_key", key_hash(key), key_hash(new))
        return new if done else None

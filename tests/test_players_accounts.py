"""Accounts over real sockets (issue 12, section 1): register, login on a second connection,
logout, key rotation, duplicate names in every Unicode trick, bad passwords, rate-limited
logins that do not tell whether a name exists, guests and bots marked as such."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers_server import Client, create_table, running_server
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.text import CONTROL_CLASS
from server.players import accounts as accounts_mod
from server.players import passwords
from server.players.names import LOOKALIKES, BadName, display_name, name_key


async def hello(port: int, name: str = "x", **fields: Any) -> tuple[Client, dict[str, Any]]:
    c = await Client.connect(port, name, hello=False)
    w = await c.request({"type": "hello", "version": 1, "name": name, **fields})
    return c, w


async def register(c: Client, name: str, **fields: Any) -> dict[str, Any]:
    return await c.request({"type": "register", "name": name, **fields})


# -- names ---------------------------------------------------------------------------------

TRICKS = [
    "marie",  # case
    "MARIE",
    " Marie",  # ends trimmed
    "Marie ",
    "Ｍａｒｉｅ",  # full-width (NFKC)
    "Ma\u200brie",  # zero-width space
    "Ma\u200crie",  # zero-width non-joiner
    "Ma\u200drie",  # zero-width joiner
    "Mar\u2060ie",  # word joiner
    "\ufeffMarie",  # byte order mark
    "Marie\u200f",  # right-to-left mark
    "\u202eMarie",  # right-to-left override
    "Mar\u00adie",  # soft hyphen
    "Marie\ufe0f",  # variation selector
    "Mar\u0130e".replace("\u0130", "i"),  # plain i, for the list's sake
    "MARİE".replace("İ", "I"),
]
SPACES = ["Ma\u00a0rie", "Ma\u2003rie", "Ma\u3000rie", "Ma  rie", "Ma\u2009rie", "Ma\u202frie"]


def test_name_keys_fold_every_trick() -> None:
    for n in TRICKS:
        assert name_key(n) == "marie", repr(n)
    for n in SPACES:
        assert name_key(n) == "ma rie", repr(n)
        assert display_name(n) == "Ma rie"
    assert name_key("ﬁona") == name_key("FIONA")  # ligature (NFKC) and case
    assert name_key("Straße") == name_key("STRASSE")  # full case folding
    for bad in ["", "   ", "\u200b\u200b", "a\x07b", "x" * 33]:
        with pytest.raises(BadName):
            name_key(bad)


# Look-alikes (server/players/names.py LOOKALIKES): each of these is "Marie" to the eye.
LOOKALIKE_NAMES = [
    "M\u0430rie",  # Cyrillic а
    "MAR\u0406E",  # Cyrillic І
    "Mari\u0435",  # Cyrillic е
    "\u039c\u0391RIE",  # Greek Μ and Α
    "Mar\u0131e",  # dotless ı
    "M\u0251rie",  # Latin alpha
    "\u041c\u0430\u0433\u0456\u0435".replace("\u0433", "r"),  # Cyrillic М, а, і, е
]


def test_name_keys_fold_lookalikes() -> None:
    for n in LOOKALIKE_NAMES:
        assert name_key(n) == "marie", repr(n)
    same = [
        ("\u0412\u041e\u0412\u0410", "BOBA"),  # Cyrillic ВОВА
        ("\u0432\u043e\u0432\u0430", "Boba"),  # вова: the same name as ВОВА, so as BOBA
        ("\u0391\u0398\u0397\u039d\u0391".replace("\u0398", "T"), "ATHNA"),  # Greek
        ("\u0401\u043b\u043a\u0430".replace("\u043b", "l"), "\u00cblka"),  # Ё is Ë
        ("Jean\u2013Pierre", "jean-pierre"),  # en dash
        ("Jean\u2010Pierre", "Jean-Pierre"),  # hyphen
        ("Jean\u2212Pierre", "Jean-Pierre"),  # minus sign
        ("D\u2019Artagnan", "d'artagnan"),  # typographic apostrophe
        ("D\u02bcArtagnan", "D'Artagnan"),  # modifier letter apostrophe
        ("Bot0", "BOTO"),
        ("Pau1", "Paul"),
        ("Bernard", "Bemard"),  # rn
        ("\uff2d\u0430rie", "marie"),  # full-width M (NFKC) then Cyrillic а
    ]
    for a, b in same:
        assert name_key(a) == name_key(b), (a, b)
    different = [
        ("Marié", "Marie"),  # accents are letters
        ("Marie", "Marle"),  # I/l are not folded (see the module doc)
        ("Ilan", "Lian"),
        ("\u0437\u043e\u044f", "3oя"),  # З looks like a digit: not folded
        ("Zoé", "Zoe"),
    ]
    for a, b in different:
        assert name_key(a) != name_key(b), (a, b)


LETTERS = "".join(LOOKALIKES) + "abcdefghijklmnopqrstuvwxyzéëßſﬁ -'ΣσςİIıЁё"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=LETTERS, min_size=1, max_size=20))
def test_name_keys_ignore_case_with_lookalikes(raw: str) -> None:
    """The key stays case-insensitive: a name, its upper case and its lower case are one."""
    try:
        k = name_key(raw)
    except BadName:
        return
    for other in (raw.upper(), raw.lower(), raw.casefold()):
        if len(other) <= 32:
            assert name_key(other) == k, (raw, other)


async def test_lookalike_names_are_taken(tmp_path: Path) -> None:
    async with running_server(tmp_path / "a.db") as srv:
        c, _ = await hello(srv.port)
        assert (await register(c, "Marie"))["type"] == "account"
        assert (await register(c, "Jean-Pierre"))["type"] == "account"
        for n in [*LOOKALIKE_NAMES, "Jean\u2013Pierre", "JEAN\u2010PIERRE"]:
            r = await register(c, n)
            assert r["type"] == "error" and r["code"] == "name_taken", (n, r)
        # and logging in under a look-alike of a name finds that account
        d, _ = await hello(srv.port)
        r = await register(d, "Ada", password="correct horse")
        r = await d.request({"type": "login", "name": "\u0410d\u0430", "password": "correct horse"})
        assert r["type"] == "account" and r["player"]["name"] == "Ada"


def test_stored_name_keys_are_brought_up_to_date(tmp_path: Path) -> None:
    """A database whose keys were computed by an older name check (no look-alikes folded) is
    rekeyed at start, so every account is found by its name; of two accounts that now look
    alike, the one holding the key keeps it, the other keeps its old key (and a warning)."""
    import asyncio

    from server.store.sqlite import Store

    db = tmp_path / "old.db"
    s = Store(str(db))
    assert s.create_account("Bot0", "bot0", "registered", None, "h1")  # the old key of Bot0
    assert s.create_account("Zoe", "zoe", "registered", None, "h2")
    assert s.create_account("Z\u043ee", "z\u043ee", "registered", None, "h3")  # Cyrillic о
    s.close()

    async def run() -> None:
        async with running_server(db) as srv:
            c, _ = await hello(srv.port)
            r = await c.request({"type": "player", "name": "BOT0"})
            assert r["type"] == "player" and r["player"]["name"] == "Bot0", r
            r = await c.request({"type": "player", "name": "Z\u043eE"})
            assert r["player"]["name"] == "Zoe"  # the look-alike finds the holder of the key
            r = await register(c, "BOTO")
            assert r["code"] == "name_taken"

    asyncio.run(run())
    s = Store(str(db))
    keys = dict(s.conn.execute("SELECT name, name_key FROM accounts WHERE ns = 'player'"))
    s.close()
    assert keys == {"Bot0": "boto", "Zoe": "zoe", "Z\u043ee": "z\u043ee"}


async def test_duplicate_names_in_every_unicode_trick(tmp_path: Path) -> None:
    async with running_server(tmp_path / "a.db") as srv:
        c, _ = await hello(srv.port)
        r = await register(c, "Marie")
        assert r["type"] == "account" and r["player"]["name"] == "Marie"
        r = await register(c, "Ma rie")
        assert r["type"] == "account"
        for n in TRICKS:
            r = await register(c, n)
            # bidirectional controls are refused by the protocol itself (protocol/text.py)
            code = "invalid_field" if re.search(f"[{CONTROL_CLASS}]", n) else "name_taken"
            assert r["type"] == "error" and r["code"] == code, (n, r)
        for n in SPACES:
            r = await register(c, n)
            assert r["code"] == "name_taken", (n, r)
        # names are shown cleaned: no invisible character is ever stored
        d, _ = await hello(srv.port)
        r = await register(d, "\u2060Zoé\u200b  B")
        assert r["player"]["name"] == "Zoé B"
        r = await register(d, "\u200b")
        assert r["code"] == "invalid_field"


# -- register, login, keys -------------------------------------------------------------------


async def test_register_login_logout_and_rotation(tmp_path: Path) -> None:
    async with running_server(tmp_path / "a.db") as srv:
        a, w = await hello(srv.port, "whoever")
        assert w["player"] is None  # a guest
        r = await register(a, "Ada", password="correct horse")
        key1 = r["key"]
        assert len(key1) >= 43 and r["player"]["kind"] == "registered"
        # the key on another connection: that player, under the registered name
        b, w = await hello(srv.port, "not-ada", key=key1)
        assert w["type"] == "welcome" and w["player"]["name"] == "Ada"
        # login on a third device: a new key, both valid
        c, _ = await hello(srv.port)
        r = await c.request({"type": "login", "name": "ADA", "password": "correct horse"})
        assert r["type"] == "account" and r["player"]["name"] == "Ada"
        key2 = r["key"]
        assert key2 != key1
        for k in (key1, key2):
            _, w = await hello(srv.port, key=k)
            assert w["type"] == "welcome"
        # rotation: the old key stops working, the new one works
        r = await c.request({"type": "rotate_key"})
        key3 = r["key"]
        assert r["type"] == "account" and key3 not in (key1, key2)
        _, w = await hello(srv.port, key=key2)
        assert w["code"] == "bad_key"
        _, w = await hello(srv.port, key=key3)
        assert w["player"]["name"] == "Ada"
        # logout: revokes this connection's key; the connection is a guest again
        r = await b.request({"type": "logout"})
        assert r["type"] == "ok"
        _, w = await hello(srv.port, key=key1)
        assert w["code"] == "bad_key"
        r = await b.request({"type": "rotate_key"})
        assert r["code"] == "not_logged_in"
        r = await b.request({"type": "logout"})
        assert r["code"] == "not_logged_in"
        # logout of another key by value
        r = await b.request({"type": "logout", "key": key3})
        assert r["type"] == "ok"
        _, w = await hello(srv.port, key=key3)
        assert w["code"] == "bad_key"
        # a failed hello changes nothing: hello again without the key
        d, w = await hello(srv.port, key="nope")
        assert w["code"] == "bad_key"
        w = await d.request({"type": "hello", "version": 1, "name": "d"})
        assert w["type"] == "welcome"
    # keys survive a restart of the server (only their hashes are stored)
    async with running_server(tmp_path / "a.db") as srv:
        _, w = await hello(srv.port, key=key2)
        assert w["code"] == "bad_key"
        c, _ = await hello(srv.port)
        r = await c.request({"type": "login", "name": "ada", "password": "correct horse"})
        _, w = await hello(srv.port, key=r["key"])
        assert w["player"]["name"] == "Ada"


async def test_bad_passwords(tmp_path: Path) -> None:
    async with running_server(tmp_path / "a.db") as srv:
        c, _ = await hello(srv.port)
        r = await register(c, "Short", password="1234567")
        assert r["code"] == "bad_password"
        r = await register(c, "Long", password="x" * 257)
        assert r["code"] == "invalid_field"  # beyond the protocol's limit
        r = await register(c, "Keyonly")  # no password: the key is the only way in
        assert r["type"] == "account"
        d, _ = await hello(srv.port)
        for name, pw in [("Keyonly", "whatever1"), ("Nobody", "whatever1")]:
            r = await d.request({"type": "login", "name": name, "password": pw})
            assert r["code"] == "login_failed", r
        r = await register(d, "Bea", password="right password")
        e, _ = await hello(srv.port)
        r = await e.request({"type": "login", "name": "Bea", "password": "wrong password"})
        assert r["code"] == "login_failed"
        assert "Bea" not in r["message"] and "right" not in r["message"]


async def test_failed_logins_cost_the_same_whether_the_name_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One scrypt with the current parameters per login, whatever the reason of a failure:
    so the time does not tell whether a name is registered."""
    calls: list[tuple[int, int, int]] = []
    real = passwords._kdf

    def counting(password: str, salt: bytes, log_n: int, r: int, p: int) -> bytes:
        calls.append((log_n, r, p))
        return real(password, salt, log_n, r, p)

    monkeypatch.setattr(passwords, "_kdf", counting)
    async with running_server(tmp_path / "a.db") as srv:
        c, _ = await hello(srv.port)
        await register(c, "Real", password="the password")
        await register(c, "Keyless")
        for name in ("Real", "Unknown", "Keyless", "\u200b"):
            d, _ = await hello(srv.port)
            calls.clear()
            r = await d.request({"type": "login", "name": name, "password": "guess guess"})
            assert r["code"] in ("login_failed", "invalid_field"), r
            if r["code"] == "login_failed":
                assert calls == [(passwords.LOG_N, passwords.R, passwords.P)], (name, calls)


async def test_logins_are_rate_limited_per_name_and_per_connection(tmp_path: Path) -> None:
    async with running_server(tmp_path / "a.db") as srv:
        c, _ = await hello(srv.port)
        await register(c, "Target", password="the password")
        limit = accounts_mod.Accounts.NAME_FAILURES[0]
        for name in ("Target", "Ghost"):  # the same for a name that does not exist
            for i in range(limit):
                d, _ = await hello(srv.port)  # a new connection each time
                r = await d.request({"type": "login", "name": name, "password": f"wrong {i}"})
                assert r["code"] == "login_failed"
            d, _ = await hello(srv.port)
            r = await d.request({"type": "login", "name": name, "password": "the password"})
            assert r["code"] == "rate_limited" and r["details"]["retry_after"] > 0, r
        # per connection: a few attempts a minute, whatever the names
        e, _ = await hello(srv.port)
        for i in range(accounts_mod.Accounts.CONN_LOGINS[0]):
            r = await e.request({"type": "login", "name": f"n{i}", "password": "whatever1"})
            assert r["code"] == "login_failed"
        r = await e.request({"type": "login", "name": "other", "password": "whatever1"})
        assert r["code"] == "rate_limited"
        # and registrations per connection
        f, _ = await hello(srv.port)
        for i in range(accounts_mod.Accounts.CONN_REGISTERS[0]):
            assert (await register(f, f"new{i}"))["type"] == "account"
        assert (await register(f, "one more"))["code"] == "rate_limited"


def test_production_password_parameters() -> None:
    h = passwords.hash_password("a long password")
    assert h.startswith("scrypt$10$8$1$")  # the tests' setting (conftest)
    passwords.LOG_N, passwords.P = 14, 5  # undone by the conftest fixture's monkeypatch
    try:
        strong = passwords.hash_password("a long password")
        assert strong.startswith("scrypt$14$8$5$")
        assert passwords.verify_password("a long password", strong)
        assert not passwords.verify_password("a long passworD", strong)
        assert passwords.verify_password("a long password", h)  # old parameters still verify
        a, b = passwords.hash_password("same"), passwords.hash_password("same")
        assert a != b  # salted
    finally:
        passwords.LOG_N, passwords.P = 10, 1


# -- seats: guests, registered players and bots, marked everywhere ---------------------------


async def test_guests_and_bots_are_marked_and_cannot_pass_for_a_player(tmp_path: Path) -> None:
    async with running_server(tmp_path / "a.db") as srv:
        reg, _ = await hello(srv.port)
        key = (await register(reg, "Marie"))["key"]
        botc, _ = await hello(srv.port)
        bkey = (await register(botc, "DeepTarot", bot=True))["key"]
        assert (await botc.request({"type": "ping"}))["type"] == "pong"
        marie, _ = await hello(srv.port, "anything", key=key)
        bot, w2 = await hello(srv.port, "x", key=bkey)
        assert w2["player"]["kind"] == "bot"
        guest, _ = await hello(srv.port, "Marie")  # a guest typing a registered name
        tid = await create_table(marie, deals=1)
        await marie.join(tid, 0)
        await guest.join(tid, 1)
        await bot.join(tid, 2)
        lst = await guest.request({"type": "list_tables"})
        (info,) = [t for t in lst["tables"] if t["table"] == tid]
        seats = info["seats"]
        assert (seats[0]["name"], seats[0]["identity"]) == ("Marie", "registered")
        assert (seats[1]["name"], seats[1]["identity"]) == ("Marie", "guest")
        assert (seats[2]["name"], seats[2]["identity"]) == ("DeepTarot", "bot")
        assert seats[3]["identity"] is None
        # seat events carry it too
        _, ev = await marie.wait_for(
            lambda m: (
                m["type"] == "event" and m["event"]["type"] == "seat" and m["event"]["seat"] == 2
            )
        )
        assert ev["event"]["identity"] == "bot"
        assert not marie.decode_errors and not guest.decode_errors

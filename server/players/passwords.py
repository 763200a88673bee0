"""Password hashing: scrypt from the standard library (``hashlib.scrypt``, OpenSSL).

Why scrypt and not argon2id: both are memory-hard and accepted by OWASP's password storage
guidance; scrypt is in the standard library, so no compiled dependency to keep up to date for
every host, and OpenSSL's implementation releases the GIL, so hashing runs in a thread beside
the event loop. Parameters: N = 2^14, r = 8, p = 5 (16 MiB and about five passes of it per hash),
one of OWASP's equivalent settings; a 16-byte random salt per password; 32-byte hash. The
parameters are stored with each hash (``scrypt$14$8$5$salt$hash``), so they can be raised later
and old hashes still verify.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

LOG_N, R, P = 14, 8, 5  # tests lower these (tests/conftest.py); stored hashes keep theirs
MIN_LEN, MAX_LEN = 8, 256
_MAXMEM = 64 * 1024 * 1024


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode().rstrip("=")


def _unb64(s: str) -> bytes:
    return base64.b64decode(s + "=" * (-len(s) % 4))


def _kdf(password: str, salt: bytes, log_n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode(), salt=salt, n=1 << log_n, r=r, p=p, maxmem=_MAXMEM, dklen=32
    )


def check_password(password: str) -> str | None:
    """Why a new password is refused, or None."""
    if len(password) < MIN_LEN:
        return f"a password needs at least {MIN_LEN} characters"
    if len(password) > MAX_LEN:
        return f"a password has at most {MAX_LEN} characters"
    return None


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    return f"scrypt${LOG_N}${R}${P}${_b64(salt)}${_b64(_kdf(password, salt, LOG_N, R, P))}"


_dummy: dict[tuple[int, int, int], str] = {}


def dummy_hash() -> str:
    """Verified against when the name is unknown or the account has no password, so that a
    failed login costs the same time whether or not the name exists (made with the current
    parameters, those of new hashes)."""
    params = (LOG_N, R, P)
    if params not in _dummy:
        _dummy[params] = hash_password(secrets.token_urlsafe(16))
    return _dummy[params]


def verify_password(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches ``stored``; with ``stored`` None, the same work, False."""
    target = stored or dummy_hash()
    try:
        scheme, log_n, r, p, salt, digest = target.split("$")
        assert scheme == "scrypt"
        got = _kdf(password[:MAX_LEN], _unb64(salt), int(log_n), int(r), int(p))
    except (ValueError, AssertionError):
        got, digest = b"", "x"
    return hmac.compare_digest(got, _unb64(digest)) and stored is not None

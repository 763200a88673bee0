"""Shared fixtures: the PostgreSQL server (tests/fixtures_pg.py) and the ``db`` fixture that
runs a test on both storage backends; cheap password hashing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers_server import STARTED, kill_leftovers

from server.players import passwords

pytest_plugins = ["fixtures_pg"]


@pytest.fixture(autouse=True)
def _cheap_passwords(monkeypatch: pytest.MonkeyPatch) -> None:
    """scrypt at N = 2^10, p = 1 in tests (the production cost, ~0.1-0.5 s a hash on these
    machines, is tested once in test_players_accounts.py); stored hashes carry their own
    parameters, so verification is the same code."""
    monkeypatch.setattr(passwords, "LOG_N", 10)
    monkeypatch.setattr(passwords, "P", 1)


@pytest.fixture(autouse=True)
def _no_server_outlives_its_test() -> Iterator[None]:
    """A test that starts server processes records their pids in ``helpers_server.STARTED``;
    those still running when it ends (it failed half-way) are killed."""
    yield
    kill_leftovers(STARTED)

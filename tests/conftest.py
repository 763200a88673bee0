"""Shared fixtures: the PostgreSQL server (tests/fixtures_pg.py) and the ``db`` fixture that
runs a test on both storage backends."""

pytest_plugins = ["fixtures_pg"]

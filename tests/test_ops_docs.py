"""docs/OPERATIONS.md and deploy/ agree with the real server: every `serve` option and its
environment variable is documented with its default, every variable the deploy files set is
real, every metric is listed, and the container image copies what the package build needs."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

import pytest

from server.cli import build_parser
from server.ops.metrics import Metrics

ROOT = Path(__file__).resolve().parent.parent
OPS = (ROOT / "docs" / "OPERATIONS.md").read_text(encoding="utf-8")
DEPLOY = ROOT / "deploy"


def _serve_actions(monkeypatch: pytest.MonkeyPatch) -> list[argparse.Action]:
    for name in list(os.environ):
        if name.startswith("ATOUT_"):
            monkeypatch.delenv(name)
    parser = build_parser(with_admin=False)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [a for a in sub.choices["serve"]._actions if a.option_strings and a.dest != "help"]


def test_every_serve_option_is_documented_with_its_variable_and_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(--[a-z-]+)` \|.*$", OPS, re.M)}
    for action in _serve_actions(monkeypatch):
        flag = action.option_strings[-1]
        assert flag in rows, f"{flag} is not in docs/OPERATIONS.md"
        env = re.search(r"\((ATOUT_[A-Z_]+)", action.help or "")
        if env:
            assert f"`{env.group(1)}`" in rows[flag], (flag, env.group(1))
        if action.default is not None:
            default = action.default
            text = f"{default:g}" if isinstance(default, float) else str(default)
            assert f"`{text}`" in rows[flag], (flag, text)


def test_deploy_files_set_only_real_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    known = {"ATOUT_DB"}  # the admin commands' variable too
    for action in _serve_actions(monkeypatch):
        known.update(re.findall(r"ATOUT_[A-Z_]+", action.help or ""))
    for f in ("Dockerfile", "compose.yaml", "atout.service"):
        used = set(re.findall(r"ATOUT_[A-Z_]+", (DEPLOY / f).read_text(encoding="utf-8")))
        assert used and used <= known, (f, used - known)


def test_every_metric_is_documented() -> None:
    names = set(re.findall(r"^# TYPE (atout_[a-z_]+) ", Metrics().render(), re.M))
    assert len(names) > 10
    for name in names:
        assert f"`{name}" in OPS, name


def test_the_image_copies_what_the_build_needs() -> None:
    docker = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    copied = set()
    for line in docker.splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            copied.update(p.rstrip("/") for p in line.split()[1:-1])
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    packages = re.search(r"include = \[([^]]*)\]", pyproject)
    assert packages is not None
    for pkg in re.findall(r'"([a-z_]+)\*"', packages.group(1)):
        assert pkg in copied, pkg
    assert {"pyproject.toml", "README.md", "LICENSE"} <= copied
    assert "HEALTHCHECK" in docker and "/healthz" in docker and "USER atout" in docker
    compose = (DEPLOY / "compose.yaml").read_text(encoding="utf-8")
    assert "dockerfile: deploy/Dockerfile" in compose

"""The command lines the client prints for the player to type (to come back to a seat, for
friends to join), and the default name; shared by :mod:`client_cli.main` and the game loop."""

from __future__ import annotations

import getpass
import os
import re
import shlex
import shutil
import sys

DEFAULT_SERVER = "ws://127.0.0.1:8765"


def default_name() -> str:
    name = os.environ.get("ATOUT_NAME") or ""
    if not name:
        try:
            name = getpass.getuser()
        except Exception:
            name = ""
    name = re.sub(r"[\x00-\x1f\x7f]", "", name).strip()[:32]
    return name or "player"


def program() -> str:
    """How to run this client again: ``atout`` when that is on the PATH, else the path it was
    started from (``.venv/bin/atout`` after ``make play``)."""
    me = os.path.realpath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    found = shutil.which("atout")
    if not me or os.path.basename(me) != "atout" or (found and os.path.realpath(found) == me):
        return "atout"
    rel = os.path.relpath(me)
    return shlex.quote(rel if not rel.startswith("..") else me)


def command_line(verb: str, table: str, url: str, name: str | None = None) -> str:
    """The command that joins or watches ``table``, safe to copy and paste (table ids may
    start with ``-``, which argparse would take for an option without the ``--``)."""
    server = "" if url == DEFAULT_SERVER else f" --server {url}"
    who = f" --name {shlex.quote(name)}" if name else ""
    table_arg = f"-- {table}" if table.startswith("-") else table
    return f"{program()} {verb}{server}{who} {table_arg}"

"""A real, throw-away PostgreSQL server for the tests and benchmarks (Debian's ``postgresql``).

``PgServer`` runs ``initdb`` into a temporary folder and ``pg_ctl start`` on a free port of
127.0.0.1 (trust authentication for the superuser ``atout``, no Unix socket outside that
folder), and stops and deletes it on :meth:`stop`. As root it runs the server as the
``postgres`` user (PostgreSQL refuses to run as root). ``durable=False`` (the tests) turns
fsync off, which makes schema set-up and commits fast; the benchmarks keep the defaults.

Without the binaries :func:`find_bindir` returns None and the tests skip, saying how to get them
(``ATOUT_REQUIRE_POSTGRES=1``, set by ``.ci/run``, makes that a failure instead).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

HOW_TO_GET_IT = (
    "PostgreSQL server binaries not found: `apt-get install -y postgresql` (Debian/Ubuntu) "
    "or set ATOUT_PG_BINDIR to the folder holding initdb and pg_ctl; "
    "ATOUT_REQUIRE_POSTGRES=1 makes these tests mandatory"
)


def find_bindir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None."""
    candidates: list[str] = []
    if os.environ.get("ATOUT_PG_BINDIR"):
        candidates.append(os.environ["ATOUT_PG_BINDIR"])
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, timeout=5)
        if out.returncode == 0:
            candidates.append(out.stdout.strip())
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    if shutil.which("initdb"):
        candidates.append(str(Path(shutil.which("initdb") or "").resolve().parent))
    for c in candidates:
        p = Path(c)
        if (p / "initdb").exists() and (p / "pg_ctl").exists() and (p / "postgres").exists():
            return p
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """One PostgreSQL server in a temporary folder; ``url`` is its ``postgres`` database."""

    def __init__(self, bindir: Path, *, durable: bool = False) -> None:
        self.bindir = bindir
        self.durable = durable
        self.port = 0
        self.user = "atout"
        self._as: list[str] = []
        self.folder = Path(tempfile.mkdtemp(prefix="atout-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{dbname}"

    def _run(self, *cmd: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        out = subprocess.run(
            [*self._as, *cmd], capture_output=True, text=True, timeout=timeout, cwd=self.folder
        )
        if out.returncode != 0:
            log = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
            raise RuntimeError(f"{cmd[0]} failed ({out.returncode}): {out.stderr}{out.stdout}{log}")
        return out

    def start(self) -> PgServer:
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            import pwd

            try:
                pw = pwd.getpwnam("postgres")
            except KeyError as e:
                raise RuntimeError("running as root needs the `postgres` user") from e
            os.chown(self.folder, pw.pw_uid, pw.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            self.user,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        settings = [
            "listen_addresses='127.0.0.1'",
            f"unix_socket_directories='{self.folder}'",
            "max_connections=200",
            "shared_buffers=64MB",
        ]
        if not self.durable:
            settings += ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]
        with open(self.data / "postgresql.conf", "a") as f:
            f.write("\n".join(settings) + "\n")
        for attempt in range(5):
            self.port = _free_port()
            try:
                self._run(
                    str(self.bindir / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-l",
                    str(self.log),
                    "-o",
                    f"-p {self.port}",
                    "-w",
                    "-t",
                    "60",
                    "start",
                )
                break
            except RuntimeError:
                if attempt == 4:
                    raise
                time.sleep(0.2)  # the port was taken meanwhile: another one
        return self

    def stop_server(self) -> None:
        """Stop the server, keeping its folder and port (``start_server`` brings it back)."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def start_server(self) -> None:
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log),
            "-o", f"-p {self.port}", "-w", "-t", "60", "start",
        )  # fmt: skip

    def stop(self) -> None:
        if self.port:
            with contextlib.suppress(RuntimeError, subprocess.SubprocessError):
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")
            self.port = 0
        shutil.rmtree(self.folder, ignore_errors=True)

    def psql(self, sql: str, dbname: str = "postgres") -> str:
        """Run SQL as the superuser (over TCP); its output."""
        out = subprocess.run(
            [str(self.bindir / "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d",
             self.url(dbname), "-c", sql],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        return out.stdout

"""Throwaway PostgreSQL servers for the test suite.

``PgServer`` runs ``initdb`` into a fresh temporary directory, starts the
cluster on a free TCP port of 127.0.0.1 with password authentication and a
superuser ``trek``, and hands out ``postgresql://`` URLs for databases on it.
Durability is switched off (``fsync=off`` and friends) because the data is
thrown away afterwards.

PostgreSQL refuses to run as root, so when the tests run as root the server
binaries are run as the ``postgres`` OS user (created if missing).

A server must never outlive the test run.  Three layers make sure of that:

* ``stop()`` (also called by ``__exit__``) stops it with
  ``pg_ctl stop -m immediate`` and removes the temporary directory;
* ``start()`` registers ``stop()`` with :mod:`atexit`;
* ``start()`` also launches a small watchdog process (this file run as a
  script) that holds the read end of a pipe.  When the test process dies for
  any reason, even ``SIGKILL``, the pipe closes and the watchdog stops the
  server and removes the directory.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import IO

import psycopg
from psycopg import sql

__all__ = [
    "PgServer",
    "PgServerError",
    "find_pg_bin",
    "pg_unavailable_reason",
]

#: Superuser created by ``initdb``; every URL authenticates as this role.
SUPERUSER = "trek"
#: OS user that runs the server binaries when the tests run as root.
OS_USER = "postgres"
HOST = "127.0.0.1"

_DB_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_START_ATTEMPTS = 3  # a free port can be taken by someone else before we bind it


class PgServerError(RuntimeError):
    """The throwaway server could not be set up, started or used."""


# --------------------------------------------------------------------------
# Locating the binaries
# --------------------------------------------------------------------------


def _has_server_bins(directory: Path) -> bool:
    return all(os.access(directory / name, os.X_OK) for name in ("initdb", "pg_ctl"))


def _version_key(directory: Path) -> tuple[int, ...]:
    """Sort key for /usr/lib/postgresql/<version>/bin (``15``, ``9.6``)."""
    parts = re.findall(r"\d+", directory.parent.name)
    return tuple(int(part) for part in parts)


def find_pg_bin() -> Path | None:
    """Return a directory holding both ``initdb`` and ``pg_ctl``, or None.

    PATH is searched first, then ``/usr/lib/postgresql/*/bin`` (the Debian
    and Ubuntu layout, where these binaries are not on PATH), newest first.
    """
    initdb = shutil.which("initdb")
    if initdb is not None:
        # Resolve symlinks (e.g. /usr/local/bin/initdb -> .../15/bin/initdb)
        # so that pg_ctl and postgres come from the same installation.
        for candidate in (Path(initdb).parent, Path(initdb).resolve().parent):
            if _has_server_bins(candidate):
                return candidate
    versioned = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version_key, reverse=True)
    for candidate in versioned:
        if _has_server_bins(candidate):
            return candidate
    return None


def _running_as_root() -> bool:
    return os.geteuid() == 0


def _os_user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def pg_unavailable_reason() -> str | None:
    """None when a throwaway server can be started here, else why not."""
    if find_pg_bin() is None:
        return (
            "PostgreSQL server binaries (initdb, pg_ctl) are not installed "
            "(looked on PATH and in /usr/lib/postgresql/*/bin); "
            "apt-get install postgresql"
        )
    if _running_as_root():
        if shutil.which("runuser") is None:
            return (
                "running as root, but runuser (util-linux) is missing, so the "
                f"PostgreSQL server cannot be run as the {OS_USER!r} user"
            )
        if not _os_user_exists(OS_USER) and shutil.which("useradd") is None:
            return (
                f"running as root, but there is no {OS_USER!r} OS user to run "
                "the PostgreSQL server and useradd is not available to create one"
            )
    return None


# --------------------------------------------------------------------------
# Helpers shared by PgServer and its watchdog
# --------------------------------------------------------------------------


def _clean_env() -> dict[str, str]:
    """The current environment without PG* variables that could redirect us."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
    env["LC_ALL"] = "C"
    return env


def _stop_cluster(stop_cmd: list[str], datadir: Path, cwd: Path) -> None:
    """Stop the cluster in ``datadir`` if it is running; never raises."""
    pid_file = datadir / "postmaster.pid"
    if not pid_file.exists():
        return
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            stop_cmd,
            cwd=cwd,
            env=_clean_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
    # pg_ctl removes postmaster.pid once the server is gone.  If it is still
    # there, kill the postmaster outright; its backends exit when it dies.
    deadline = time.monotonic() + 10
    while pid_file.exists() and time.monotonic() < deadline:
        try:
            pid = int(pid_file.read_text().split()[0])
            os.kill(pid, signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            break
        time.sleep(0.1)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def _world_traversable(directory: Path) -> bool:
    """Whether every directory from / down to ``directory`` is o+x."""
    path = directory.resolve()
    for part in (path, *path.parents):
        try:
            if not part.stat().st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


class PgServer:
    """A throwaway PostgreSQL cluster; use as a context manager.

    >>> with PgServer() as server:                    # doctest: +SKIP
    ...     url = server.create_database("example")
    """

    def __init__(self, bin_dir: Path | None = None) -> None:
        self.bin_dir: Path | None = bin_dir
        self.host: str = HOST
        self.port: int = 0
        self.user: str = SUPERUSER
        # Only [0-9a-z-]: safe to embed in a URL without quoting.
        self.password: str = f"s3cret-pw-{secrets.token_hex(8)}"
        self.tmpdir: Path | None = None
        self._run_as: list[str] = []
        self._watchdog: subprocess.Popen[bytes] | None = None

    # -- paths --------------------------------------------------------------

    def _dir(self) -> Path:
        if self.tmpdir is None:
            raise PgServerError("the PostgreSQL server is not started")
        return self.tmpdir

    @property
    def datadir(self) -> Path:
        return self._dir() / "data"

    @property
    def logfile(self) -> Path:
        return self._dir() / "postgres.log"

    @property
    def running(self) -> bool:
        return self.tmpdir is not None and self.port != 0

    # -- commands -----------------------------------------------------------

    def _bin(self, name: str) -> str:
        assert self.bin_dir is not None
        return str(self.bin_dir / name)

    def _stop_cmd(self, tmpdir: Path) -> list[str]:
        return [
            *self._run_as,
            self._bin("pg_ctl"),
            "-D",
            str(tmpdir / "data"),
            "-m",
            "immediate",
            "-w",
            "-t",
            "30",
            "stop",
        ]

    def _run(self, args: list[str], what: str) -> None:
        result = subprocess.run(
            [*self._run_as, *args],
            cwd=self._dir(),
            env=_clean_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=180,
            check=False,
        )
        if result.returncode != 0:
            raise PgServerError(
                f"{what} failed (exit {result.returncode}): {' '.join(args)}\n"
                f"{result.stdout.strip()}"
            )

    # -- lifecycle ----------------------------------------------------------

    def start(self) -> PgServer:
        """initdb a fresh cluster, start it on a free port; returns self."""
        if self.tmpdir is not None:
            raise PgServerError("the PostgreSQL server is already started")
        if self.bin_dir is None:
            self.bin_dir = find_pg_bin()
        if self.bin_dir is None:
            raise PgServerError(pg_unavailable_reason() or "PostgreSQL binaries not found")
        try:
            self._prepare_dir()
            self._start_watchdog()
            self._initdb()
            self._start_server()
        except BaseException:
            self.stop()
            raise
        return self

    def _prepare_dir(self) -> None:
        owner: pwd.struct_passwd | None = None
        base = Path(tempfile.gettempdir())
        if _running_as_root():
            if not _os_user_exists(OS_USER):
                subprocess.run(
                    ["useradd", "--system", "--no-create-home", OS_USER],
                    check=True,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                )
            owner = pwd.getpwnam(OS_USER)
            self._run_as = ["runuser", "-u", OS_USER, "--"]
            if not _world_traversable(base):
                base = Path("/tmp")  # the postgres user must reach the directory
        # Keep the path short: the Unix socket path is limited to ~107 bytes.
        self.tmpdir = Path(tempfile.mkdtemp(prefix="trek-pg-", dir=base))
        atexit.register(self.stop)
        pwfile = self.tmpdir / "pwfile"
        pwfile.write_text(self.password + "\n")
        if owner is not None:
            for path in (self.tmpdir, pwfile):
                os.chown(path, owner.pw_uid, owner.pw_gid)
        self.tmpdir.chmod(0o700)
        pwfile.chmod(0o600)

    def _start_watchdog(self) -> None:
        config = json.dumps(
            {
                "stop_cmd": self._stop_cmd(self._dir()),
                "datadir": str(self.datadir),
                "tmpdir": str(self._dir()),
            }
        )
        self._watchdog = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--watchdog", config],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Own session: a Ctrl-C aimed at pytest must not kill the watchdog
            # before pytest has had its chance to clean up.
            start_new_session=True,
        )

    def _initdb(self) -> None:
        self._run(
            [
                self._bin("initdb"),
                "-D",
                str(self.datadir),
                "-U",
                self.user,
                f"--pwfile={self._dir() / 'pwfile'}",
                "--auth=scram-sha-256",
                "--encoding=UTF8",
                "--no-locale",
                "--no-sync",
            ],
            "initdb",
        )

    def _start_server(self) -> None:
        failure: PgServerError | None = None
        for _ in range(_START_ATTEMPTS):
            port = _free_port()
            options = (
                f"-p {port} -k {self._dir()} -c listen_addresses={self.host} "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            )
            try:
                self._run(
                    [
                        self._bin("pg_ctl"),
                        "-D",
                        str(self.datadir),
                        "-o",
                        options,
                        "-l",
                        str(self.logfile),
                        "-w",
                        "-t",
                        "60",
                        "start",
                    ],
                    "pg_ctl start",
                )
            except PgServerError as error:
                failure = PgServerError(f"{error}\n--- server log ---\n{_tail(self.logfile)}")
                _stop_cluster(self._stop_cmd(self._dir()), self.datadir, self._dir())
                continue
            self.port = port
            return
        assert failure is not None
        raise failure

    def stop(self) -> None:
        """Stop the server and delete its directory; safe to call repeatedly."""
        atexit.unregister(self.stop)
        tmpdir, self.tmpdir = self.tmpdir, None
        watchdog, self._watchdog = self._watchdog, None
        self.port = 0
        if tmpdir is not None:
            _stop_cluster(self._stop_cmd(tmpdir), tmpdir / "data", tmpdir)
            shutil.rmtree(tmpdir, ignore_errors=True)
        if watchdog is not None:
            # Closing the pipe tells the watchdog to check (nothing left) and exit.
            if watchdog.stdin is not None:
                with contextlib.suppress(OSError):
                    watchdog.stdin.close()
            try:
                watchdog.wait(timeout=30)
            except subprocess.TimeoutExpired:
                watchdog.kill()
                watchdog.wait()

    def __enter__(self) -> PgServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- databases ----------------------------------------------------------

    def url(self, dbname: str) -> str:
        """``postgresql://trek:PASSWORD@127.0.0.1:PORT/dbname``."""
        if not self.running:
            raise PgServerError("the PostgreSQL server is not started")
        if not _DB_NAME.fullmatch(dbname):
            raise ValueError(f"unsupported database name {dbname!r}")
        return f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/{dbname}"

    def create_database(self, name: str) -> str:
        """Create database ``name`` (owned by ``trek``) and return its URL."""
        url = self.url(name)  # validates the name
        with psycopg.connect(self.url("postgres"), autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return url


# --------------------------------------------------------------------------
# Watchdog: ``python pgserver.py --watchdog CONFIG_JSON``
# --------------------------------------------------------------------------


def _watchdog_main(config_json: str, parent_pipe: IO[bytes]) -> None:
    config = json.loads(config_json)
    # Blocks until the test process closes the pipe: by stop(), or by dying.
    with contextlib.suppress(OSError):
        while parent_pipe.read(4096):
            pass
    tmpdir = Path(config["tmpdir"])
    _stop_cluster([str(arg) for arg in config["stop_cmd"]], Path(config["datadir"]), tmpdir)
    shutil.rmtree(tmpdir, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--watchdog":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _watchdog_main(sys.argv[2], sys.stdin.buffer)
    else:
        sys.exit("usage: pgserver.py --watchdog CONFIG_JSON")

"""Shared pytest fixtures for the Trek test suite.

Sections, one per fixture (add new fixtures as new sections):

* ``pg_server`` -- one throwaway PostgreSQL server for the whole session
* ``pg_url``    -- a fresh, empty database on that server for each test
* ``trek_cli``  -- run the real ``trek`` program (``python -m cli``) as a subprocess
* ``trek_run``  -- the same, in this process through click's CliRunner
* ``store``     -- one test body on memory, SQLite and PostgreSQL (a db string for Trek.open)
* ``open_trek`` -- Trek.open, closing every opened Trek at the end of the test

``tests/`` has no ``__init__.py``, so pytest puts this directory on
``sys.path`` and the helper module ``tests/pgserver.py`` imports as ``pgserver``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pgserver import PgServer, pg_unavailable_reason
from rulesets import RULESETS

from tracker.app import Trek
from tracker.opening import MemoryStores


@pytest.fixture(scope="session", autouse=True)
def compiled_trek() -> None:
    """Trek's modules byte-compiled once for the session, as an installed Trek's are, so the
    `trek` processes the tests start read them rather than compile every module again (a
    machine that sets PYTHONDONTWRITEBYTECODE would otherwise compile them in each one, about a
    quarter of such a test's time). Python's own `__pycache__` folders, ignored by git."""
    import compileall

    for package in ("cli", "domain", "projections", "tracker"):
        compileall.compile_dir(str(_PROJECT_ROOT / package), quiet=1)


def _running_in_ci() -> bool:
    """True when ``CI`` is set to a true value (true/1/yes)."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


# --------------------------------------------------------------------------
# pg_server: one PostgreSQL server per test session
# --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A running throwaway PostgreSQL server, stopped at the end of the session.

    Without PostgreSQL server binaries the requesting tests are skipped
    locally, but fail in CI: a CI run must never pass by skipping them.
    """
    reason = pg_unavailable_reason()
    if reason is not None:
        if _running_in_ci():
            pytest.fail(f"CI is set, so not skipping: {reason}", pytrace=False)
        pytest.skip(reason)
    with PgServer() as server:
        yield server


# --------------------------------------------------------------------------
# pg_url: a fresh database per test
# --------------------------------------------------------------------------


@pytest.fixture
def pg_url(pg_server: PgServer, request: pytest.FixtureRequest) -> str:
    """URL of a new, empty database, unique to the requesting test.

    Databases are not dropped: the whole server is discarded at session end.
    The name carries the test's name to make the server log readable.
    """
    slug = re.sub(r"[^a-z0-9]+", "_", request.node.name.lower()).strip("_")[:40]
    return pg_server.create_database(f"t_{slug}_{uuid.uuid4().hex[:12]}")


# --------------------------------------------------------------------------
# trek_cli: run the real ``trek`` program as a subprocess
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TrekRun:
    """What one run of the real ``trek`` program did."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)

    def __str__(self) -> str:
        return (f"trek {' '.join(self.args)} -> exit {self.returncode}\n"
                f"--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}")


_PROJECT_ROOT = Path(__file__).resolve().parents[1]


def trek_env(db: str | None = None, **extra: str) -> dict[str, str]:
    """The environment the ``trek`` subprocesses run in: no stray TREK_* settings, the project
    importable, wide output, and TREK_DB when a store is given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(_PROJECT_ROOT), env.get("PYTHONPATH", "")) if p)
    env["COLUMNS"] = "200"
    env["TREK_GM"] = "test-gm"
    if db is not None:
        env["TREK_DB"] = db
    env.update(extra)
    return env


def trek_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli", *args]


@pytest.fixture
def trek_cli(tmp_path: Path) -> Callable[..., TrekRun]:
    """Run ``python -m cli ARGS...`` with TREK_DB at ``tmp_path/trek.db`` (or ``db=``).

    The working directory is ``tmp_path``, so a stray ``./trek.db`` would show up there.
    """
    default_db = str(tmp_path / "trek.db")

    def run(*args: str, db: str | None = None, timeout: float = 120,
            env: dict[str, str] | None = None) -> TrekRun:
        result = subprocess.run(
            trek_command(*args), cwd=tmp_path, env=env or trek_env(db or default_db),
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout,
            check=False,
        )
        return TrekRun(tuple(args), result.returncode, result.stdout, result.stderr)

    return run


@pytest.fixture
def trek_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., TrekRun]:
    """Run ``trek ARGS...`` in this process through click's CliRunner, with TREK_DB at
    ``tmp_path/trek.db`` (or ``db=``) and ``tmp_path`` as the working directory.

    The same checks as ``trek_cli`` apply (tests/cliruns.py); use the subprocess only where
    the process itself is the point (start-up, signals, crash safety, the plain install).
    """
    from click.testing import CliRunner

    from cli.main import trek

    default_db = str(tmp_path / "trek.db")
    monkeypatch.chdir(tmp_path)

    def run(*args: str, db: str | None = None, env: dict[str, str] | None = None,
            input: str | None = None, timeout: float | None = None) -> TrekRun:
        # `timeout` is the subprocess runner's; a command run here cannot hang on a pipe.
        settings = {k: None for k in os.environ if k.startswith("TREK_")}
        settings.update({"COLUMNS": "200", "TREK_GM": "test-gm",
                         "TREK_DB": db or default_db})
        settings.update(env or {})
        result = CliRunner().invoke(trek, list(args), env=settings, input=input,
                                    prog_name="trek", catch_exceptions=True)
        stderr = result.stderr
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            import traceback

            stderr += "Traceback (in process):\n" + "".join(
                traceback.format_exception(result.exception))
        return TrekRun(tuple(args), result.exit_code, result.stdout, stderr)

    return run


# --------------------------------------------------------------------------
# store / open_trek: one test body on memory, SQLite and PostgreSQL
# --------------------------------------------------------------------------

OpenTrek = Callable[..., Trek]


@pytest.fixture(params=["memory", "sqlite",
                        pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A db string for Trek.open: an in-process memory store, an SQLite file or PostgreSQL."""
    kind = request.param
    if kind == "memory":
        yield f"memory:{uuid.uuid4()}"
    elif kind == "sqlite":
        yield str(tmp_path / "t.db")
    else:
        yield str(request.getfixturevalue("pg_url"))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new store on disk, for the real `trek` program or for edits made behind Trek's back
    (a memory store has no rows to edit): an SQLite file path or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def memory_stores() -> MemoryStores:
    """The test's in-process stores: every Trek it opens on a `memory:` name shares them."""
    return MemoryStores()


@pytest.fixture
def open_trek(memory_stores: MemoryStores) -> Iterator[OpenTrek]:
    """Trek.open on this release's rulesets, with every opened Trek closed at the end."""
    opened: list[Trek] = []

    def open_(db: str, **options: Any) -> Trek:
        trek = Trek.open(db, rulesets=RULESETS, gm="gm-test", memory=memory_stores, **options)
        opened.append(trek)
        return trek

    yield open_
    for trek in opened:
        trek.close()


# --------------------------------------------------------------------------
# chromium: headless Chromium to render SVG and HTML as a person sees them
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Browser:
    """Debian's Chromium, run headless: a page's rendered DOM, or a screenshot of it."""

    binary: str
    workdir: Path

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        profile = self.workdir / f"profile-{uuid.uuid4().hex[:8]}"
        return subprocess.run(
            [self.binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
             *args],
            capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)

    def dom(self, page: Path) -> str:
        """The document as Chromium parsed and rendered it."""
        result = self._run("--dump-dom", page.resolve().as_uri())
        assert result.returncode == 0, result.stderr
        return result.stdout

    def pdf(self, page: Path, out: Path) -> bytes:
        """The page printed as Chromium prints it (its own @page rules, no header or footer)."""
        self._run("--no-pdf-header-footer", f"--print-to-pdf={out}", page.resolve().as_uri())
        assert out.exists(), f"Chromium printed nothing for {page}"
        return out.read_bytes()

    def screenshot(self, page: Path, png: Path, size: str = "800,600") -> Path:
        self._run(f"--screenshot={png}", f"--window-size={size}", page.resolve().as_uri())
        assert png.exists(), f"Chromium drew nothing for {page}"
        return png


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Browser:
    """Headless Chromium; skipped with the reason where none is installed, except under CI."""
    import shutil

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        reason = "no chromium on PATH (Debian: apt-get install chromium)"
        if _running_in_ci():
            pytest.fail(f"CI is set, so not skipping: {reason}", pytrace=False)
        pytest.skip(reason)
    return Browser(binary, tmp_path_factory.mktemp("chromium"))


@pytest.fixture(scope="module")
def browser(chromium: Browser) -> Iterator[Any]:
    """A Playwright browser of that Chromium (nothing downloaded), for a module's page tests."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium.binary,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run"])
        yield launched
        launched.close()


@pytest.fixture
def chromium_page(chromium: Browser) -> Iterator[Any]:
    """A Playwright page of that Chromium (nothing downloaded), to measure what a picture
    draws."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium.binary,
                                             args=["--no-sandbox", "--disable-gpu"])
        yield browser.new_page()
        browser.close()

"""Checks on one run of the real `trek` program: success, a recorded event, a refusal."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conftest import TrekRun, trek_command, trek_env


def ok(run: TrekRun) -> TrekRun:
    assert run.returncode == 0, run
    assert "Traceback" not in run.stderr, run
    return run


def recorded(run: TrekRun, seq: int, type_: str) -> dict[str, Any]:
    """A recording command's --json output: a list of the one event it recorded."""
    events = ok(run).json()
    assert isinstance(events, list), run
    assert len(events) == 1, run
    [event] = events
    assert (event["seq"], event["type"]) == (seq, type_), run
    return dict(event)


def refused(run: TrekRun, *fragments: str) -> None:
    """Exit 1, one sentence on stderr, nothing on stdout, no traceback."""
    assert run.returncode == 1, run
    assert run.stdout == "", run
    assert "Traceback" not in run.stderr, run
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run
    assert lines[0].startswith("Error: "), run
    assert lines[0].endswith("."), run
    for fragment in fragments:
        # The sentence starts with a capital, whatever the fragment quoted.
        assert fragment.casefold() in lines[0].casefold(), run


def usage_error(run: TrekRun) -> None:
    assert run.returncode == 2, run
    assert run.stdout == "", run
    assert "Traceback" not in run.stderr, run
    assert "Usage: trek" in run.stderr, run
    assert "Error:" in run.stderr, run


def play_all(folder: Path, db: str, commands: Iterable[tuple[str, ...]]) -> None:
    """Run each command through the `trek` command line, in this process, in `folder` on
    `db` (the environment `trek_env` gives a subprocess); each must succeed."""
    from click.testing import CliRunner

    from cli.main import trek

    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("TREK_")}
    env.update(COLUMNS="200", TREK_GM="test-gm", TREK_DB=db)
    with contextlib.chdir(folder):
        for args in commands:
            result = CliRunner().invoke(trek, list(args), env=env, prog_name="trek")
            assert result.exit_code == 0, (args, result.output, result.stderr,
                                           result.exception)


def run_traced(folder: Path, db: str, *args: str) -> tuple[str, set[str]]:
    """Run `trek ARGS` on `db` with -X importtime: what it printed and the modules it loaded."""
    command = trek_command(*args)
    command[1:1] = ["-X", "importtime"]
    result = subprocess.run(command, cwd=folder, env=trek_env(db), stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    modules = {line.split("|")[-1].strip() for line in result.stderr.splitlines()
               if line.startswith("import time:")}
    return result.stdout, modules


# What `trek status --json` reads a kept document with: click, the shared options, the standard
# library (and, for a PostgreSQL store, its driver). Everything else here is the tracker's and
# the rulesets' (or rich's) to load.
LIGHT = {"domain", "domain.bounds", "domain.errors", "tracker", "tracker.points"}


def heavy(modules: set[str], *, driver: bool = False) -> set[str]:
    """The modules loaded that reading a kept document does not need; `driver`: the store is
    PostgreSQL, so its driver is needed."""
    packages = ("eventsourcing", "pydantic", "rich", "domain", "tracker",
                *(() if driver else ("psycopg",)))
    return {m for m in modules if m not in LIGHT and m.split(".")[0] in packages}

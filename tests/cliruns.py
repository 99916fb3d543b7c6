"""Checks on one run of the real `trek` program: success, a recorded event, a refusal."""

from __future__ import annotations

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
    """Run each command through the real program in `folder` on `db`; each must succeed."""
    for args in commands:
        run = subprocess.run(trek_command(*args), cwd=folder, env=trek_env(db),
                             stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             check=False)
        assert run.returncode == 0, (args, run.stderr)

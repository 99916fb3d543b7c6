"""A reader that stops early (`trek status | head -1`): every command ends quietly with exit 0,
as `trek log | head` always did, never with 1 or a message about a broken pipe.

The pipe is the point, so each case runs the real program as a process whose standard output
is closed before it writes a byte.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from cliruns import ok
from conftest import TrekRun, trek_command, trek_env

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow


@pytest.fixture
def campaign(trek_run: Run, tmp_path: Path) -> Path:
    ok(trek_run("init", "Ashes Road", "--seed", "7"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "5"))
    ok(trek_run("supplies", "set", "provisions=5"))
    ok(trek_run("day", "start"))
    return tmp_path / "trek.db"


def closed_early(folder: Path, db: Path, *args: str) -> tuple[int, str]:
    """Run `trek ARGS` with its standard output a pipe whose reader has already left."""
    process = subprocess.Popen(trek_command(*args), cwd=folder, env=trek_env(str(db)),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read().decode()
    return process.wait(timeout=120), stderr


@pytest.mark.parametrize("args", [
    ("status",),                # the kept status document, read without the tracker
    ("status", "--json"),
    ("status", "--as-of", "2"),  # through the tracker
    ("map", "show"),
    ("audit",),
    ("recap", "--format", "html"),
    ("campaigns",),
    ("log", "--no-pager"),
    ("status", "--help"),
    ("--help",),
    ("--version",),
])
def test_a_reader_that_leaves_early_ends_the_command_quietly_with_0(
        campaign: Path, args: tuple[str, ...]) -> None:
    code, stderr = closed_early(campaign.parent, campaign, *args)
    assert (code, stderr) == (0, "")


def test_a_recording_command_whose_reader_left_still_records_once_and_says_0(
        trek_run: Run, campaign: Path) -> None:
    code, stderr = closed_early(campaign.parent, campaign, "supplies", "add", "provisions=2")
    assert (code, stderr) == (0, "")
    assert ok(trek_run("status", "--json")).json()["supplies"]["provisions"] == 7

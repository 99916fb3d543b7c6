"""`trek` starts with what the command needs: `--help` and `status` load no PostgreSQL driver
on an SQLite store, and the command listing is what the commands say of themselves. (Reading the
kept status document without the tracker: tests/integration/test_kept_status.py.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cliruns import heavy, play_all, run_traced
from conftest import trek_command, trek_env


def _two_events(folder: Path, db: str) -> None:
    play_all(folder, db, [("init", "Ashes Road", "--seed", "3"),
                          ("roster", "add-character", "Kira", "--body", "6", "--mind", "5",
                           "--soul", "4")])


@pytest.mark.parametrize("args", [("--help",), ("status",), ("status", "--json"),
                                  ("status", "--help"), ("campaigns", "--json")])
def test_help_and_status_on_sqlite_load_no_postgresql_driver(
        args: tuple[str, ...], tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    _two_events(tmp_path, db)
    _, modules = run_traced(tmp_path, db, *args)
    assert not {m for m in modules if m.split(".")[0] == "psycopg"}
    assert "tracker.watch" not in modules
    assert "eventsourcing.postgres" not in modules
    if args in (("status", "--json"), ("status", "--help")):
        # Nothing of the tracker, the rulesets or rich is needed for these (`trek --help` lists
        # each ruleset's own commands, so it loads them).
        assert not heavy(modules)


def test_trek_help_is_what_the_commands_say(tmp_path: Path) -> None:
    """The listing comes from the command table; the commands' own help must agree."""
    listing = subprocess.run(trek_command("--help"), env=trek_env(), capture_output=True,
                             text=True, check=True).stdout
    loaded = subprocess.run(
        [sys.executable, "-c", "from cli.main import main, trek\n"
         "for name in trek.list_commands(None): trek.get_command(None, name)\n"
         "assert set(trek.lazy) | {'status'} < set(trek.commands)\n"
         "main()", "--help"],
        env=trek_env(), capture_output=True, text=True, check=False)
    assert loaded.returncode == 0, loaded.stderr
    assert listing == loaded.stdout

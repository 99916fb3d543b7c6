"""`trek` starts with what the command needs: `--help` and `status` load no PostgreSQL driver,
and `status --json` on an SQLite store reads the kept status document without the tracker,
printing exactly what the tracker would, and never a document the log has moved past."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cliruns import play_all
from conftest import trek_command, trek_env

from cli.output import json_text
from tracker.app import RecordedButUnfinished, Trek
from tracker.registry import RULESETS

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


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
# library. Everything else here is the tracker's and the rulesets' (or rich's) to load.
LIGHT = {"domain", "domain.errors", "tracker", "tracker.points"}


def heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m not in LIGHT and m.split(".")[0] in (
        "eventsourcing", "pydantic", "rich", "psycopg", "domain", "tracker")}


def tracker_status(db: str, campaign: str | None = None) -> str:
    """The status document as the tracker works it out, printed as the command prints it."""
    with Trek.open(db, rulesets=RULESETS, writable=False) as trek:
        return json_text(trek.status(campaign))


def _besm(folder: Path) -> list[tuple[str, ...]]:
    return [("init", "Ashes Road", "--map", str(EXAMPLES / "ashen-reach.toml"), "--seed", "3"),
            ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"),
            ("roster", "add-character", "Oren", "--body", "5", "--mind", "6", "--soul", "5"),
            ("roster", "add-mount", "Dusty", "--move", "ground-speed=3", "--rider", "Kira"),
            ("supplies", "set", "provisions=5", "fuel=2"),
            ("day", "start"), ("move", "E"), ("harm", "Oren", "--health", "7")]


def _cypher(folder: Path) -> list[tuple[str, ...]]:
    return [("init", "Road to Qi", "--ruleset", "cypher", "--map",
             str(EXAMPLES / "road-to-qi.toml"), "--seed", "5"),
            ("roster", "add-character", "Ana", "--might", "12", "--speed", "10"),
            ("roster", "add-mount", "Dusty", "--rider", "Ana"),
            ("day", "start"), ("move", "E", "E")]


def _encounter(folder: Path) -> list[tuple[str, ...]]:
    return [("init", "Ashes Road", "--seed", "3"),
            ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"),
            ("encounter", "start", "Ambush", "--map",
             str(EXAMPLES / "kessel-pass-battle.toml")),
            ("encounter", "join", "Kira", "--at", "0,0"),
            ("encounter", "add", "Bandit", "--side", "enemy", "--at", "5,0", "--body", "4",
             "--mind", "3", "--soul", "3"),
            ("encounter", "round"), ("encounter", "move", "Kira", "E", "E")]


def _mid_undo(folder: Path) -> list[tuple[str, ...]]:
    return [*_besm(folder), ("undo", "7"), ("supplies", "spend", "provisions=1")]


def _two_campaigns(folder: Path) -> list[tuple[str, ...]]:
    return [*_cypher(folder), ("branch", "what-if"),
            ("--campaign", "what-if", "move", "E")]


CAMPAIGNS: dict[str, Callable[[Path], list[tuple[str, ...]]]] = {
    "besm": _besm, "cypher": _cypher, "encounter": _encounter, "mid-undo": _mid_undo,
}


@pytest.mark.parametrize("name", sorted(CAMPAIGNS))
def test_status_json_from_the_kept_document_is_the_trackers_byte_for_byte(
        name: str, tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, CAMPAIGNS[name](tmp_path))
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    # The kept document was read: neither the event store's library nor any model was loaded.
    assert not heavy(modules)
    assert printed == tracker_status(db)
    if name == "encounter":
        assert '"Bandit"' in printed
    if name == "mid-undo":
        assert '"events": 10' in printed
        assert json.loads(printed)["movement"]["used"] == 0   # the move stands undone


def test_each_campaign_of_a_store_of_several_is_read_from_its_own_document(
        tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, _two_campaigns(tmp_path))
    for campaign in ("road-to-qi", "what-if"):
        printed, modules = run_traced(tmp_path, db, "--campaign", campaign, "status", "--json")
        assert "eventsourcing" not in modules
        assert printed == tracker_status(db, campaign)
    # Without --campaign the tracker says which to choose; the kept documents do not guess.
    result = subprocess.run(trek_command("status", "--json"), cwd=tmp_path, env=trek_env(db),
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "--campaign" in result.stderr


def test_read_models_behind_the_log_are_not_served_stale(tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, _besm(tmp_path))
    before, _ = run_traced(tmp_path, db, "status", "--json")
    health = json.loads(before)["characters"]["Kira"]["health"]
    # An event is recorded but the read models are not brought up to it (a process stopped
    # between the two): the kept document covers one event fewer than the log.
    with Trek.open(db, rulesets=RULESETS, gm="test-gm") as trek:
        def fail(*_args: object) -> int:
            raise OSError("stopped")

        trek.projector.catch_up = fail  # type: ignore[method-assign]
        with pytest.raises(RecordedButUnfinished):
            trek.harm(None, "Kira", 5, 0, "a fall")
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    assert "eventsourcing" in modules           # the tracker folded the late event in
    assert printed != before
    now = json.loads(printed)
    assert (now["events"], now["characters"]["Kira"]["health"]) == (9, health - 5)
    assert printed == tracker_status(db)


def test_a_document_kept_by_other_code_is_not_served(tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, _besm(tmp_path))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE trek_view_status SET code = 'another release', "
                     "status_json = '{\"campaign\": \"stale\"}'")
    conn.close()
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    assert "eventsourcing" in modules
    assert printed == tracker_status(db)


def test_as_of_and_a_store_without_kept_documents_go_through_the_tracker(
        tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, _besm(tmp_path))
    printed, modules = run_traced(tmp_path, db, "status", "--json", "--as-of", "2")
    assert "eventsourcing" in modules
    assert '"events": 2' in printed
    # A store written by an earlier release has no kept documents.
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE trek_view_status")
    conn.close()
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    assert "eventsourcing" in modules
    assert printed == tracker_status(db)
    # The next recording command makes the table and keeps the document again.
    play_all(tmp_path, db, [("harm", "Kira", "--health", "1")])
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    assert "eventsourcing" not in modules
    assert printed == tracker_status(db)


@pytest.mark.parametrize("args", [("--help",), ("status",), ("status", "--json"),
                                  ("status", "--help"), ("campaigns", "--json")])
def test_help_and_status_on_sqlite_load_no_postgresql_driver(
        args: tuple[str, ...], tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, _besm(tmp_path)[:2])
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


def test_verify_names_a_kept_document_that_differs_and_replay_writes_it_anew(
        tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, _besm(tmp_path))
    truth = tracker_status(db)
    with sqlite3.connect(db) as conn:
        kept = json.loads(conn.execute("SELECT status_json FROM trek_view_status").fetchone()[0])
        kept["supplies"]["provisions"] = 99
        conn.execute("UPDATE trek_view_status SET status_json = ?", (json.dumps(kept),))
    conn.close()
    result = subprocess.run(trek_command("replay", "--verify"), cwd=tmp_path, env=trek_env(db),
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "ashes-road: the kept status document differs from the log's" in result.stderr
    play_all(tmp_path, db, [("replay",)])
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    assert not heavy(modules)
    assert printed == truth

"""A failure after an event was appended is told as it is: recorded, and what did not finish.

Each step after the append is made to fail in turn (the snapshot, the read-model update, the
output); the message must say the event was recorded and never "nothing was recorded", the
event must be in the log exactly once, and the next command must finish the work.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import tracker.app
import tracker.queries
from cli import render
from cli.main import trek
from projections.projector import Projector


def stored_types(db: Path) -> list[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return [str(t).rsplit(":", 1)[-1].rsplit(".", 1)[-1] for (t,) in conn.execute(
            "SELECT topic FROM stored_events ORDER BY rowid")]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "trek.db"
    run(path, "init", "Ashes Road", "--seed", "3")
    run(path, "roster", "add-character", "Kira", "--body", "5", "--mind", "5", "--soul", "5")
    return path


def run(db: Path, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(trek, ["--db", str(db), "--gm", "gm", *args])
    assert result.exit_code == code, (result.output, result.exception)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit), result.exception
    return result


def boom(*_args: Any, **_kwargs: Any) -> Any:
    raise OSError(28, "No space left on device")


def says_recorded(result: Result, seq: int, type_: str) -> None:
    text = " ".join(result.output.split())
    assert f"Event {seq} ({type_}) was recorded" in text, text
    assert "do not run this command again" in text, text
    assert "nothing was recorded" not in text, text
    assert "nothing more was recorded" not in text, text


def warns_recorded(result: Result, seq: int, type_: str, *fragments: str) -> None:
    """A command whose event was recorded succeeded: its normal line, then one warning line
    on stderr saying the event was recorded and what did not finish."""
    assert f"#{seq} " in result.stdout, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("Warning: ")]
    assert len(warnings) == 1, result.stderr
    assert f"Warning: Event {seq} ({type_}) was recorded, but" in warnings[0], warnings
    for fragment in fragments:
        assert fragment in warnings[0], warnings
    assert "nothing was recorded" not in result.output, result.output


def test_a_read_model_failure_after_the_append_warns_and_the_command_succeeds(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # given the read models can neither be brought up to date nor rebuilt
    with monkeypatch.context() as patch:
        patch.setattr(Projector, "fold_appended", boom)
        patch.setattr(Projector, "catch_up", boom)
        patch.setattr(Projector, "rebuild", boom)
        # when a GM adds ammo: recorded, so exit 0 (a script must not record it twice)
        result = run(db, "supplies", "add", "ammo=2")
    # then a warning says so, and the event is in the log once
    warns_recorded(result, 3, "SuppliesAdded", "No space left on device",
                   "the next command that records repairs them")
    assert stored_types(db).count("SuppliesAdded") == 1
    # reads fold in what the read models lack
    assert '"ammo": 2' in run(db, "status", "--json").output
    # and the next recording command finishes the update: ammo 2 + 1
    nxt = run(db, "supplies", "add", "ammo=1")
    assert "Warning" not in nxt.output
    assert '"ammo": 3' in run(db, "status", "--json").output
    assert '"verified": true' in run(db, "replay", "--verify", "--json").output


def test_a_damaged_tracking_row_is_repaired_by_the_command_that_meets_it(
        db: Path) -> None:
    # given the read models' tracking row was corrupted behind Trek's back
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE trek_view_tracking SET notification_id = 'garbage'")
    conn.close()
    # when a GM adds ammo: the event is recorded and the command succeeds
    result = run(db, "supplies", "add", "ammo=2")
    assert "#3 supplies added" in result.stdout
    [warning] = result.stderr.splitlines()
    assert warning.startswith("Warning: The read models could not be brought up to date")
    assert "repaired" in warning
    assert stored_types(db).count("SuppliesAdded") == 1
    # then the read models were rebuilt from the log: they match it, none behind
    verified = run(db, "replay", "--verify", "--json").output
    assert '"verified": true' in verified
    assert '"behind": 0' in verified
    assert '"ammo": 2' in run(db, "status", "--json").output


@pytest.mark.parametrize("position", ["999999", "-5", "1"])
def test_a_tracking_row_out_of_step_is_repaired_and_never_left_behind(
        db: Path, position: str) -> None:
    # A position past the log's end folded nothing ever again; one before what was folded
    # folded events twice.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE trek_view_tracking SET notification_id = ?", (int(position),))
    conn.close()
    result = run(db, "supplies", "add", "ammo=2")
    assert "repaired" in result.stderr
    run(db, "supplies", "add", "ammo=1")
    verified = run(db, "replay", "--verify", "--json").output
    assert '"verified": true' in verified
    assert '"behind": 0' in verified
    assert '"ammo": 3' in run(db, "status", "--json").output


def test_a_snapshot_failure_after_the_append_warns_and_the_command_succeeds(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # given a snapshot is due with this event, and cannot be written
    monkeypatch.setattr(tracker.app, "SNAPSHOT_EVERY", 3)
    monkeypatch.setattr(tracker.app.CampaignSnapshot, "take", boom)
    result = run(db, "supplies", "add", "ammo=2")
    warns_recorded(result, 3, "SuppliesAdded", "its snapshot could not be written")
    assert stored_types(db).count("SuppliesAdded") == 1
    monkeypatch.undo()
    assert '"ammo": 2' in run(db, "status", "--json").output


def test_an_output_failure_after_the_append_says_the_event_was_recorded(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "print_events", boom)
    result = run(db, "supplies", "add", "ammo=2", code=1)
    says_recorded(result, 3, "SuppliesAdded")
    monkeypatch.undo()
    assert '"ammo": 2' in run(db, "status", "--json").output


def test_a_failure_before_the_append_says_nothing_was_recorded(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = stored_types(db)
    monkeypatch.setattr(tracker.app.TrekApplication, "save", boom)
    result = run(db, "supplies", "add", "ammo=2", code=1)
    assert "nothing was recorded" in " ".join(result.output.split())
    assert "was recorded, but" not in result.output
    assert stored_types(db) == before


def test_a_read_that_fails_never_says_nothing_was_recorded(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read has nothing to record: saying so would suggest it might have."""
    monkeypatch.setattr(tracker.queries.Queries, "audit", boom)
    result = run(db, "audit", code=1)
    assert "Trek could not finish" in result.output
    assert "nothing was recorded" not in " ".join(result.output.split())

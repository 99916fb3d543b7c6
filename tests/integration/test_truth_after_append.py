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


def test_a_read_model_failure_after_the_append_says_the_event_was_recorded(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # given the read models cannot be written
    with monkeypatch.context() as patch:
        patch.setattr(Projector, "catch_up", boom)
        # when a GM adds ammo
        result = run(db, "supplies", "add", "ammo=2", code=1)
    # then the message is true, and the event is in the log once
    says_recorded(result, 3, "SuppliesAdded")
    assert "No space left on device" in result.output
    assert stored_types(db).count("SuppliesAdded") == 1
    # and the next recording command finishes the update: ammo 2 + 1
    run(db, "supplies", "add", "ammo=1")
    assert '"ammo": 3' in run(db, "status", "--json").output
    assert '"verified": true' in run(db, "replay", "--verify", "--json").output


def test_a_snapshot_failure_after_the_append_says_the_event_was_recorded(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # given a snapshot is due with this event, and cannot be written
    monkeypatch.setattr(tracker.app, "SNAPSHOT_EVERY", 3)
    monkeypatch.setattr(tracker.app.CampaignSnapshot, "take", boom)
    result = run(db, "supplies", "add", "ammo=2", code=1)
    says_recorded(result, 3, "SuppliesAdded")
    assert stored_types(db).count("SuppliesAdded") == 1


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

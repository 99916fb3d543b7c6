"""A store written by the code that kept each status document in a table of its own (schema
views-4) reads the same in this release, and its first recording command moves the documents
into the rows of the states they are worked out from (views-5), where `trek status` serves them.

tests/fixtures/views-4.db was written by that code (tests/fixtures/make_views_4_store.sh) and is
never rewritten; views-4.expected.json is what that code showed for it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli.main import trek
from projections.stored_status import read_status

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXPECTED = json.loads((FIXTURES / "views-4.expected.json").read_text())


@pytest.fixture
def store(tmp_path: Path) -> Path:
    copy = tmp_path / "views-4.db"
    shutil.copyfile(FIXTURES / "views-4.db", copy)
    return copy


def trek_json(db: Path, *args: str) -> Any:
    result = CliRunner().invoke(trek, ["--db", str(db), *args, "--json"],
                                env={"TREK_GM": "later"})
    assert result.exit_code == 0, (result.output, result.exception)
    return json.loads(result.output)


def behind_trek(db: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def tables(db: Path) -> set[str]:
    return {name for (name,) in behind_trek(db, "SELECT name FROM sqlite_master "
                                                "WHERE type = 'table'")}


def test_a_views_4_store_shows_the_same_status_log_and_encounter(store: Path) -> None:
    assert "trek_view_status" in tables(store)
    # Its kept document was made by other code: never served, worked out instead.
    assert read_status(str(store), None) is None
    assert trek_json(store, "status") == EXPECTED["status"]
    assert trek_json(store, "log") == EXPECTED["log"]
    assert trek_json(store, "encounter", "status") == EXPECTED["encounter"]
    assert trek_json(store, "verify")["verified"] is True
    # Reading changed nothing: the store is still as that code left it.
    assert "trek_view_status" in tables(store)
    assert behind_trek(store, "SELECT value FROM trek_meta WHERE key = 'schema'") == [
        ("views-4",)]


def test_its_first_recording_moves_the_status_documents_beside_the_states(store: Path) -> None:
    [event] = trek_json(store, "supplies", "add", "ammo=3")
    assert event["seq"] == EXPECTED["status"]["events"] + 1 == 15
    assert behind_trek(store, "SELECT value FROM trek_meta WHERE key = 'schema'") == [
        ("views-5",)]
    assert "trek_view_status" not in tables(store)
    assert behind_trek(store, "SELECT events FROM trek_view_state") == [(15,)]
    status = trek_json(store, "status")
    # The old status, with the three rounds of ammunition and the new event.
    assert status == {**EXPECTED["status"], "events": 15,
                      "supplies": {**EXPECTED["status"]["supplies"], "ammo": 2 + 3},
                      "parties": {"main": {**EXPECTED["status"]["parties"]["main"],
                                           "supplies": {**EXPECTED["status"]["supplies"],
                                                        "ammo": 2 + 3}}}}
    # The kept document is this code's now, and `trek status` serves it as worked out.
    assert read_status(str(store), None) == status
    assert trek_json(store, "log")[:14] == EXPECTED["log"]
    assert trek_json(store, "encounter", "status") == EXPECTED["encounter"]
    assert trek_json(store, "verify")["verified"] is True
    assert trek_json(store, "replay", "--verify")["verified"] is True
    trek_json(store, "replay")
    assert trek_json(store, "status") == status
    # An undo lands beside the old history too.
    [undo] = trek_json(store, "undo")
    assert (undo["type"], undo["cancels"]) == ("EventsCancelled", [15])
    assert trek_json(store, "status") == {**EXPECTED["status"], "events": 16}
    assert read_status(str(store), None) == {**EXPECTED["status"], "events": 16}

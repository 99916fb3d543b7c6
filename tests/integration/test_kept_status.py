"""`trek status --json` reads the campaign's kept status document without the tracker, on an
SQLite file and on a PostgreSQL database alike: it prints exactly what the tracker would work
out, byte for byte, loads neither the event-sourcing library nor any model, and never serves a
document the log has moved past or that other code wrote."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import psycopg
import pytest
from behind import recorded_unfolded
from cliruns import heavy, play_all, refused, run_traced
from conftest import TrekRun, trek_command, trek_env
from rulesets import RULESETS

from cli.output import json_text
from domain.commands.roster import Harm
from projections.stored_status import code_stamp
from tracker.app import Trek

# Real `trek` processes (or the benchmarks that time them): left out by -m "not slow".
pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def is_postgres(db: str) -> bool:
    return db.startswith("postgresql://")


def tracker_status(db: str, campaign: str | None = None) -> str:
    """The status document as the tracker works it out, printed as the command prints it."""
    with Trek.open(db, rulesets=RULESETS, writable=False) as trek:
        return json_text(trek.queries.status(campaign))


def behind_trek(db: str, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Run one SQL statement on the store directly, as another program would (? placeholders);
    the rows it returns."""
    if is_postgres(db):
        with psycopg.connect(db, autocommit=True) as pg:
            cursor = pg.execute(statement.replace("?", "%s"), tuple(params))
            return list(cursor.fetchall()) if cursor.description else []
    conn = sqlite3.connect(db)
    try:
        with conn:
            return conn.execute(statement, tuple(params)).fetchall()
    finally:
        conn.close()


def served(modules: set[str], db: str) -> bool:
    """Whether the run printed a kept document: nothing but the reader was loaded."""
    return not heavy(modules, driver=is_postgres(db))


def status_run(folder: Path, db: str, *args: str) -> TrekRun:
    result = subprocess.run(trek_command(*args, "status", "--json"), cwd=folder,
                            env=trek_env(db), stdin=subprocess.DEVNULL, capture_output=True,
                            text=True, check=False)
    return TrekRun(("status", "--json"), result.returncode, result.stdout, result.stderr)


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
        name: str, db: str, tmp_path: Path) -> None:
    play_all(tmp_path, db, CAMPAIGNS[name](tmp_path))
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    # The kept document was read: neither the event store's library nor any model was loaded.
    assert served(modules, db)
    assert not {m for m in modules if m.split(".")[0] in ("eventsourcing", "pydantic")}
    assert ("psycopg" in modules) == is_postgres(db)
    assert printed == tracker_status(db)
    if name == "encounter":
        assert '"Bandit"' in printed
    if name == "mid-undo":
        assert '"events": 10' in printed
        assert json.loads(printed)["movement"]["used"] == 0   # the move stands undone


def test_each_campaign_of_a_store_of_several_is_read_from_its_own_document(
        db: str, tmp_path: Path) -> None:
    play_all(tmp_path, db, _two_campaigns(tmp_path))
    for campaign in ("road-to-qi", "what-if"):
        printed, modules = run_traced(tmp_path, db, "--campaign", campaign, "status", "--json")
        assert served(modules, db)
        assert printed == tracker_status(db, campaign)
    # Without --campaign: the campaign in use, which the branch left as it was (road-to-qi).
    plain = status_run(tmp_path, db)
    assert plain.returncode == 0, plain
    assert plain.stdout == tracker_status(db, "road-to-qi")
    # A campaign the store does not hold is the tracker's to refuse, too.
    refused(status_run(tmp_path, db, "--campaign", "nowhere"), "nowhere")


def test_read_models_behind_the_log_are_not_served_stale(db: str, tmp_path: Path) -> None:
    play_all(tmp_path, db, _besm(tmp_path))
    before, _ = run_traced(tmp_path, db, "status", "--json")
    health = json.loads(before)["characters"]["Kira"]["health"]
    # An event is recorded but the read models are not brought up to it (a process stopped
    # between the two): the kept document covers one event fewer than the log.
    warnings = recorded_unfolded(db, Harm("Kira", 5, 0, "a fall"))
    assert "event 9 (Harmed) was recorded, but" in warnings[0]
    assert behind_trek(db, "SELECT events FROM trek_view_state") == [(8,)]
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    assert "eventsourcing" in modules           # the tracker folded the late event in
    assert printed != before
    now = json.loads(printed)
    assert (now["events"], now["characters"]["Kira"]["health"]) == (9, health - 5)
    assert printed == tracker_status(db)


def left_to_the_tracker(tmp_path: Path, db: str, marker: str) -> None:
    """`status --json` loads the tracker and prints what it works out, not the edited
    document (whose campaign reads `marker`)."""
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    assert "eventsourcing" in modules
    assert marker not in printed
    assert printed == tracker_status(db)


def test_a_document_that_claims_more_than_the_log_holds_is_not_served(
        db: str, tmp_path: Path) -> None:
    # Read models ahead of the log as this process sees it: the document says it covers an
    # event the log does not have.
    play_all(tmp_path, db, _cypher(tmp_path))
    behind_trek(db, "UPDATE trek_view_state SET events = events + 1, "
                    "status_json = '{\"campaign\": \"ahead\"}'")
    left_to_the_tracker(tmp_path, db, "ahead")


def test_a_document_kept_by_other_code_is_not_served(db: str, tmp_path: Path) -> None:
    play_all(tmp_path, db, _besm(tmp_path))
    behind_trek(db, "UPDATE trek_view_state SET code = 'another release', "
                    "status_json = '{\"campaign\": \"stale\"}'")
    left_to_the_tracker(tmp_path, db, "stale")


def test_a_store_not_marked_as_trek_s_is_left_to_the_tracker(db: str, tmp_path: Path) -> None:
    play_all(tmp_path, db, _cypher(tmp_path))
    behind_trek(db, "UPDATE trek_meta SET value = 'trek-0' WHERE key = 'format'")
    run = status_run(tmp_path, db)
    refused(run, "not a Trek store" if not is_postgres(db) else "holds no Trek store")


def test_as_of_and_a_store_without_kept_documents_go_through_the_tracker(
        db: str, tmp_path: Path) -> None:
    play_all(tmp_path, db, _besm(tmp_path))
    printed, modules = run_traced(tmp_path, db, "status", "--json", "--as-of", "2")
    assert "eventsourcing" in modules
    assert '"events": 2' in printed
    # A store written by an earlier release kept its documents in a table of their own (and
    # before that none): the reader finds none where it looks.
    [(document,)] = behind_trek(db, "SELECT status_json FROM trek_view_state")
    for column in ("events", "code", "status_json"):
        behind_trek(db, f"ALTER TABLE trek_view_state DROP COLUMN {column}")
    behind_trek(db, "CREATE TABLE trek_view_status (campaign_id TEXT PRIMARY KEY, events BIGINT "
                    "NOT NULL, code TEXT NOT NULL, status_json TEXT NOT NULL)")
    behind_trek(db, "INSERT INTO trek_view_status SELECT campaign_id, 8, ?, ? FROM "
                    "trek_view_campaigns", (code_stamp(), document))
    behind_trek(db, "UPDATE trek_meta SET value = 'views-4' WHERE key = 'schema'")
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    assert "eventsourcing" in modules
    assert printed == tracker_status(db)
    # The next recording command moves the documents beside the states and keeps one again.
    play_all(tmp_path, db, [("harm", "Kira", "--health", "1")])
    assert behind_trek(db, "SELECT events FROM trek_view_state") == [(9,)]
    with Trek.open(db, rulesets=RULESETS, writable=False) as trek:
        assert not trek.views.has_table("trek_view_status")
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    assert served(modules, db)
    assert printed == tracker_status(db)


def test_verify_names_a_kept_document_that_differs_and_replay_writes_it_anew(
        db: str, tmp_path: Path) -> None:
    play_all(tmp_path, db, _besm(tmp_path))
    truth = tracker_status(db)
    [(text,)] = behind_trek(db, "SELECT status_json FROM trek_view_state")
    kept = json.loads(text)
    kept["supplies"]["provisions"] = 99
    behind_trek(db, "UPDATE trek_view_state SET status_json = ?", (json.dumps(kept),))
    result = subprocess.run(trek_command("replay", "--verify"), cwd=tmp_path, env=trek_env(db),
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "ashes-road: the kept status document differs from the log's" in result.stderr
    play_all(tmp_path, db, [("replay",)])
    printed, modules = run_traced(tmp_path, db, "status", "--json")
    assert served(modules, db)
    assert printed == truth


# PostgreSQL only: what the server or the URL says is the tracker's to tell.

@pytest.mark.parametrize(("url", "says"), [
    # Nothing listens there: the reader gives up at once and the tracker says why.
    ("postgresql://trek@127.0.0.1:1/trek", "cannot reach the PostgreSQL store"),
    ("postgresql://trek@127.0.0.1:5432/trek?client_encoding=latin1", "client_encoding"),
    ("postgresql://trek@127.0.0.1:99999/trek", "port out of range"),
])
def test_an_unreachable_server_or_a_url_trek_refuses_is_the_trackers_sentence(
        url: str, says: str, tmp_path: Path) -> None:
    refused(status_run(tmp_path, url), says)


@pytest.mark.postgres
def test_a_password_the_server_refuses_is_the_trackers_sentence(
        pg_url: str, tmp_path: Path) -> None:
    play_all(tmp_path, pg_url, _cypher(tmp_path)[:2])
    user, _, rest = pg_url.partition("://")[2].partition("@")
    wrong = f"postgresql://{user.partition(':')[0]}:not-the-password@{rest}"
    run = status_run(tmp_path, wrong)
    refused(run, "cannot reach the PostgreSQL store")
    assert "not-the-password" not in run.stderr

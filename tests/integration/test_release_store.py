"""A store written by release 0.1 reads the same in this release, and takes new events.

tests/fixtures/release-0.1.db was written by Trek 0.1 (tests/fixtures/make_release_store.sh)
and is never rewritten; release-0.1.expected.json is what that release showed for it. A
change of event shape that forgets its upcaster, or a moved event class whose stored topic no
longer resolves, fails here.
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
from domain.labels import labels_of

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CAMPAIGNS = ("ashes-road", "road-to-qi", "what-if")


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    copy = tmp_path / "release-0.1.db"
    shutil.copyfile(FIXTURES / "release-0.1.db", copy)
    return copy


def trek_json(db: Path, *args: str) -> Any:
    result = CliRunner().invoke(trek, ["--db", str(db), *args, "--json"])
    assert result.exit_code == 0, (result.output, result.exception)
    return json.loads(result.output)


# The one intended difference since release 0.1: a Cypher campaign's day start and day end no
# longer carry BESM's fields (squares of budget, rest and strain), which were always empty there.
DROPPED_SINCE_0_1 = {
    "DayStarted": {"base", "budget"},
    "DayEnded": {"strain", "on_foot", "recovery", "upkeep", "chosen"},
}


def status_now(status: dict[str, Any]) -> dict[str, Any]:
    """Release 0.1's status, plus the keys added since: no encounter is open, and the one
    party (`one_party`)."""
    return one_party({**status, "encounter": None})


def one_party(status: dict[str, Any]) -> dict[str, Any]:
    """An earlier release's status, plus the keys RULES.md §15 added: the one party, `main`,
    holding everyone, where the campaign stands."""
    members = sorted([*status["characters"], *status["conveyances"]])
    return {
        **status, "party": "main",
        "characters": {name: {**c, "party": "main"} for name, c in status["characters"].items()},
        "conveyances": {name: {**c, "party": "main"}
                        for name, c in status["conveyances"].items()},
        "parties": {"main": {key: status[key] for key in
                             ("position", "day", "day_open", "movement", "supplies")}
                    | {"members": members}},
    }


# Since release 0.2 a character's ruleset stats are one `stats` document: the old fields
# (BESM's three stats, Cypher's pools) are shown there, and those left at 0 or empty are gone.
OLD_STAT_FIELDS = ("body", "mind", "soul", "pools")


def stats_gathered(entry: dict[str, Any]) -> dict[str, Any]:
    if entry["type"] != "CharacterAdded":
        return entry
    stats = dict(entry.get("stats", {}))
    for key in OLD_STAT_FIELDS:
        value = entry.get(key)
        if isinstance(value, dict):
            stats.update(value)
        elif value:
            stats[key] = value
    return {**{k: v for k, v in entry.items() if k not in OLD_STAT_FIELDS}, "stats": stats}


def by_their_gm(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry of an event stored before actors were stamped: recorded for its GM, at no
    seat's request."""
    return {**entry, "actor": entry["gm"], "requested_by": None}


def as_shown_now(log: list[dict[str, Any]], ruleset: str) -> list[dict[str, Any]]:
    log = [by_their_gm(stats_gathered(entry)) for entry in log]
    if ruleset != "cypher":
        return log
    return [{k: v for k, v in entry.items() if k not in DROPPED_SINCE_0_1.get(entry["type"], ())}
            for entry in log]


@pytest.mark.parametrize("slug", CAMPAIGNS)
def test_an_old_store_shows_the_same_status_and_log(old_store: Path, slug: str) -> None:
    expected = json.loads((FIXTURES / "release-0.1.expected.json").read_text())[slug]
    assert trek_json(old_store, "status", "--campaign", slug) == status_now(expected["status"])
    ruleset = expected["status"]["ruleset"]
    assert trek_json(old_store, "log", "--campaign", slug) == as_shown_now(expected["log"],
                                                                            ruleset)


def test_an_old_store_verifies_rebuilds_and_records(old_store: Path) -> None:
    assert trek_json(old_store, "verify")["verified"] is True
    # Its read models are in release 0.1's tables until something rebuilds them.
    old_views = CliRunner().invoke(trek, ["--db", str(old_store), "replay", "--verify"])
    assert old_views.exit_code == 1
    assert "older release's tables" in old_views.output
    trek_json(old_store, "replay")
    assert trek_json(old_store, "replay", "--verify")["verified"] is True
    expected = json.loads((FIXTURES / "release-0.1.expected.json").read_text())
    for slug in CAMPAIGNS:
        shown = trek_json(old_store, "status", "--campaign", slug)
        assert shown == status_now(expected[slug]["status"])
    # A new event lands after the old ones: 36 events, then the 37th.
    [event] = trek_json(old_store, "supplies", "add", "ammo=2", "--campaign", "ashes-road")
    assert event["seq"] == 37
    status = trek_json(old_store, "status", "--campaign", "ashes-road")
    assert status["supplies"]["ammo"] == expected["ashes-road"]["status"]["supplies"]["ammo"] + 2
    # Undo reaches back into the old history: the day 2 repair (event 34) is cancelled.
    log = trek_json(old_store, "log", "--campaign", "ashes-road")
    assert log[33]["type"] == "Repaired"
    [undo] = trek_json(old_store, "undo", "34", "--campaign", "ashes-road")
    assert (undo["type"], undo["cancels"]) == ("EventsCancelled", [34])
    assert trek_json(old_store, "verify")["verified"] is True


def test_an_old_store_moves_its_read_models_on_the_first_recording(old_store: Path) -> None:
    expected = json.loads((FIXTURES / "release-0.1.expected.json").read_text())
    trek_json(old_store, "supplies", "add", "fuel=1", "--campaign", "what-if")
    assert trek_json(old_store, "replay", "--verify")["verified"] is True
    for slug in ("ashes-road", "road-to-qi"):
        shown = trek_json(old_store, "status", "--campaign", slug)
        assert shown == status_now(expected[slug]["status"])
    assert trek_json(old_store, "log", "--campaign", "ashes-road") == as_shown_now(
        expected["ashes-road"]["log"], "besm")


# -- release 0.2: encounters under every ruleset, chain format 2, snapshots with digests -------

CAMPAIGNS_0_2 = ("ashes-road", "mill-road", "seattle", "reef", "derelict")


@pytest.fixture
def store_0_2(tmp_path: Path) -> Path:
    copy = tmp_path / "release-0.2.db"
    shutil.copyfile(FIXTURES / "release-0.2.db", copy)
    return copy


def labelled(status: dict[str, Any]) -> dict[str, Any]:
    """Release 0.2's status, plus the keys added since: each combatant's token label (its
    encounter's roster in order of entry, as RULES §13 gives them), the encounter's walls
    and doors (none on a map of that release, RULES §16), and the one party."""
    encounter = status.get("encounter")
    if encounter is None:
        return one_party(status)
    labels = labels_of({}, list(encounter["combatants"]))
    combatants = {name: {"label": labels[name], **c}
                  for name, c in encounter["combatants"].items()}
    drawn = encounter["map"] and {**encounter["map"], "walls": []}
    return one_party({**status, "encounter": {**encounter, "combatants": combatants,
                                              "map": drawn, "doors": []}})


@pytest.mark.parametrize("slug", CAMPAIGNS_0_2)
def test_a_release_0_2_store_shows_the_same_status_and_log(store_0_2: Path, slug: str) -> None:
    expected = json.loads((FIXTURES / "release-0.2.expected.json").read_text())[slug]
    assert trek_json(store_0_2, "status", "--campaign", slug) == labelled(expected["status"])
    assert trek_json(store_0_2, "log", "--campaign", slug) == [
        by_their_gm(stats_gathered(entry)) for entry in expected["log"]]


def test_a_release_0_2_store_verifies_rebuilds_and_records(store_0_2: Path) -> None:
    report = trek_json(store_0_2, "verify")
    assert report["verified"] is True
    assert sorted(c["campaign"] for c in report["campaigns"]) == sorted(CAMPAIGNS_0_2)
    trek_json(store_0_2, "replay")
    assert trek_json(store_0_2, "replay", "--verify")["verified"] is True
    expected = json.loads((FIXTURES / "release-0.2.expected.json").read_text())
    for slug in CAMPAIGNS_0_2:
        assert trek_json(store_0_2, "status", "--campaign", slug) == labelled(
            expected[slug]["status"])
    # 217 events with snapshots at 100 and 200: the 218th loads from the second snapshot.
    [event] = trek_json(store_0_2, "supplies", "add", "ammo=2", "--campaign", "ashes-road")
    assert event["seq"] == 218
    status = trek_json(store_0_2, "status", "--campaign", "ashes-road")
    assert status["supplies"]["ammo"] == expected["ashes-road"]["status"]["supplies"]["ammo"] + 2
    # An encounter of the same store takes its next round.
    [round_] = trek_json(store_0_2, "encounter", "round", "--campaign", "mill-road")
    assert (round_["type"], round_["number"]) == ("RoundStarted", 2)
    assert trek_json(store_0_2, "verify")["verified"] is True


def test_a_store_whose_log_copied_every_event_is_rebuilt_when_opened_to_record(
        tmp_path: Path) -> None:
    """Release 0.2's log table held a copy of every event. A store still in that shape has its
    read models rebuilt when a command first opens it to record, so a command that names no
    campaign finds the store's one campaign, and the log reads the same afterwards."""
    db = tmp_path / "one.db"
    trek_json(db, "init", "Lone Road", "--seed", "5")
    trek_json(db, "supplies", "add", "provisions=3")
    trek_json(db, "day", "start")
    trek_json(db, "move", "E")
    log = trek_json(db, "log")
    # The read models as release 0.2 kept them: a log table, no index.
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE trek_view_entries")
        conn.execute("DELETE FROM trek_meta WHERE key = 'schema'")
        conn.execute(
            "CREATE TABLE trek_view_log (campaign_id TEXT NOT NULL, seq BIGINT NOT NULL, "
            "type TEXT NOT NULL, day BIGINT NOT NULL, session BIGINT, gm TEXT NOT NULL, "
            "recorded_at TEXT NOT NULL, cancelled_by BIGINT, event_json TEXT NOT NULL, "
            "PRIMARY KEY (campaign_id, seq))")
    [undo] = trek_json(db, "undo", "4")
    assert (undo["seq"], undo["type"], undo["cancels"]) == (5, "EventsCancelled", [4])
    with sqlite3.connect(db) as conn:
        tables = {name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "trek_view_entries" in tables
    assert "trek_view_log" not in tables
    after = trek_json(db, "log")
    assert after[:3] == log[:3]
    assert after[3] == {**log[3], "cancelled_by": 5}
    assert trek_json(db, "replay", "--verify")["verified"] is True


@pytest.mark.parametrize(("fixture", "slug", "events"), [("release-0.1.db", "ashes-road", 36),
                                                         ("release-0.2.db", "mill-road", 9)])
def test_events_of_an_earlier_release_read_as_their_gms_beside_a_new_actors(
        tmp_path: Path, fixture: str, slug: str, events: int) -> None:
    """Events stored before actors were stamped carry none and read as their GM's own; an
    event recorded now carries its actor, and the old events' hashes still verify beside it."""
    db = tmp_path / fixture
    shutil.copyfile(FIXTURES / fixture, db)
    with sqlite3.connect(db) as conn:
        stored = [json.loads(state) for (state,) in conn.execute(
            "SELECT state FROM stored_events")]
    assert len(stored) > events
    assert not any("actor" in s or "requested_by" in s for s in stored)
    trek_json(db, "supplies", "add", "ammo=1", "--campaign", slug, "--gm", "Ana")
    log = trek_json(db, "log", "--campaign", slug)
    assert len(log) == events + 1
    assert {(e["gm"], e["actor"], e["requested_by"]) for e in log[:-1]} == {
        ("fixture", "fixture", None)}
    assert (log[-1]["gm"], log[-1]["actor"], log[-1]["requested_by"]) == ("Ana", "Ana", None)
    assert trek_json(db, "verify")["verified"] is True

"""Events recorded by an older release still load: the mapper upcasts them, step by step.

Every shipped event class is still at class_version 1, so these tests make the newer versions
themselves: a test-local event class at version 3 with two upcasters, and a real event class
(CharacterAdded) raised to version 2 for the length of a test, reading a hand-written version 1
row out of a real SQLite store.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import pytest
from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import get_topic
from rulesets import RULESETS

from domain.campaign import Campaign, campaign_id
from domain.commands.roster import AddCharacter
from domain.errors import NewerStore
from domain.events import CharacterAdded, TrekEvent, canonical_bytes
from domain.options import CharacterOptions
from tracker.app import Trek
from tracker.mapper import CanonicalJSONTranscoder, PydanticMapper
from tracker.topics import Topics

UPCASTS: list[str] = []
WHEN = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


class ScoutReported(TrekEvent):
    """A test-only event with a history.

    v1 stored {"who": ...}; v2 renamed it "scout"; v3 added "weather", which v1 and v2
    never recorded.
    """

    class_version: ClassVar[int] = 3

    scout: str
    weather: str

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        UPCASTS.append("v1->v2")
        state["scout"] = state.pop("who")

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        UPCASTS.append("v2->v3")
        state["weather"] = "not recorded"


class ScoutReportedWithoutUpcasters(TrekEvent):
    """The same v3 shape with no way to read older states: what upcasting saves us from."""

    scout: str
    weather: str


@pytest.fixture
def mapper() -> PydanticMapper:
    # The test-only events join the store's allow-list of topics, as a ruleset's would.
    topics = Topics(RULESETS, others=[ScoutReported, ScoutReportedWithoutUpcasters])
    return PydanticMapper(CanonicalJSONTranscoder(), topics, lambda _campaign: None)


@pytest.fixture(autouse=True)
def _fresh_upcast_record() -> Iterator[None]:
    UPCASTS.clear()
    yield
    UPCASTS.clear()


def stored(cls: type[Any], state: dict[str, Any], version: int = 2,
           originator: uuid.UUID | None = None) -> StoredEvent:
    return StoredEvent(
        originator_id=originator or uuid.UUID(int=7), originator_version=version,
        topic=get_topic(cls), state=canonical_bytes(state),
    )


def old_state(**fields: Any) -> dict[str, Any]:
    return {"timestamp": WHEN.isoformat(), "gm": "old-release", "session": None,
            "prev_hash": "", **fields}


def test_a_version_1_state_is_upcast_through_every_step(mapper: PydanticMapper) -> None:
    record = stored(ScoutReported, old_state(who="Kira"))  # no class_version: version 1

    event = mapper.to_domain_event(record)

    assert UPCASTS == ["v1->v2", "v2->v3"]
    assert isinstance(event, ScoutReported)
    assert (event.scout, event.weather) == ("Kira", "not recorded")
    assert (event.originator_id, event.seq, event.gm) == (uuid.UUID(int=7), 2, "old-release")


def test_a_version_2_state_runs_only_the_later_upcaster(mapper: PydanticMapper) -> None:
    event = mapper.to_domain_event(
        stored(ScoutReported, old_state(scout="Oren", class_version=2)))

    assert UPCASTS == ["v2->v3"]
    assert (event.scout, event.weather) == ("Oren", "not recorded")


def test_a_current_event_is_stored_with_its_version_and_read_back_unchanged(
        mapper: PydanticMapper) -> None:
    event = ScoutReported(originator_id=uuid.UUID(int=7), originator_version=4, timestamp=WHEN,
                          gm="gm", scout="Kira", weather="sleet")

    record = mapper.to_stored_event(event)
    state = json.loads(record.state)
    assert state["class_version"] == 3
    assert "originator_id" not in state

    again = mapper.to_domain_event(record)
    assert UPCASTS == []
    assert again.model_dump() == event.model_dump()
    # At the current version the stored bytes are exactly the event's own serialisation.
    assert again.event_hash() == event.event_hash() == hashlib.sha256(record.state).hexdigest()


def test_without_upcasters_an_old_state_does_not_load(mapper: PydanticMapper) -> None:
    # A field the class does not know, at the class's own version, is what a later release's
    # event looks like: it is refused with that sentence instead of pydantic's.
    with pytest.raises(NewerStore, match=r"written by a newer Trek \(its event 2, a "
                                         r"ScoutReportedWithoutUpcasters, has who"):
        mapper.to_domain_event(stored(ScoutReportedWithoutUpcasters, old_state(who="Kira")))


def test_an_event_from_a_later_class_version_is_refused_as_newer(mapper: PydanticMapper) -> None:
    newer = stored(ScoutReported, old_state(scout="Oren", weather="fog", class_version=4))
    with pytest.raises(NewerStore, match=r"newer Trek \(event ScoutReported version 4; this "
                                         r"release reads up to version 3\)"):
        mapper.to_domain_event(newer)


def test_an_upcast_event_keeps_the_hash_of_the_bytes_it_was_stored_as(
        mapper: PydanticMapper) -> None:
    record = stored(ScoutReported, old_state(who="Kira"))

    event = mapper.to_domain_event(record)

    # The hash chain links what is in the store, which the upcast event no longer serialises to.
    assert event.event_hash() == hashlib.sha256(record.state).hexdigest()
    assert canonical_bytes(event.stored_state()) != record.state


def v1_character_state() -> dict[str, Any]:
    """What releases 0.1 and 0.2 stored for `roster add-character Kira --body 6 --mind 5
    --soul 4 --skill ride=2`: the stats as fields of the event, the unused pools empty."""
    return old_state(name="Kira", body=6, mind=5, soul=4, pools={}, skills={"ride": 2},
                     attributes={}, health_max=50, energy_max=45, stats={})


def test_a_version_1_character_reads_with_its_stats_gathered(mapper: PydanticMapper) -> None:
    event = mapper.to_domain_event(stored(CharacterAdded, v1_character_state()))

    assert isinstance(event, CharacterAdded)
    # The three stats move into `stats`; the empty pools said nothing and are dropped.
    assert event.stats == {"body": 6, "mind": 5, "soul": 4}
    assert (event.skills, event.health_max, event.energy_max) == ({"ride": 2}, 50, 45)
    assert mapper.to_stored_event(event).state.count(b'"class_version":2') == 1


def test_a_version_1_cypher_character_keeps_its_pools_as_stats(mapper: PydanticMapper) -> None:
    state = old_state(name="Ana", body=0, mind=0, soul=0, pools={"might": 12, "speed": 9},
                      skills={}, attributes={}, health_max=0, energy_max=0, stats={})

    event = mapper.to_domain_event(stored(CharacterAdded, state))

    assert event.stats == {"might": 12, "speed": 9}


def test_without_its_upcaster_a_version_1_character_does_not_load(
        mapper: PydanticMapper, monkeypatch: pytest.MonkeyPatch) -> None:
    # The control for the tests above: read as if version 1 were current, the old fields are
    # unknown ones, which is what a later release's event looks like.
    monkeypatch.setattr(CharacterAdded, "class_version", 1)
    with pytest.raises(NewerStore, match="has body"):
        mapper.to_domain_event(stored(CharacterAdded, v1_character_state()))


def test_a_store_with_a_hand_written_version_1_row_loads_through_the_application(
        tmp_path: Path) -> None:
    db = str(tmp_path / "old.db")
    with Trek.open(db, rulesets=RULESETS, create=True, gm="old-release") as trek:
        trek.init("Old Road", seed=3)
        campaign: Campaign = trek.app.repository.get(campaign_id("old-road"))
        first_hash = campaign.last_hash

    # What release 1 wrote for `roster add-character Kira --body 6 --mind 5 --soul 4`.
    row_state = canonical_bytes(v1_character_state() | {"prev_hash": first_hash})
    assert b"class_version" not in row_state
    conn = sqlite3.connect(db)
    try:
        [(originator,)] = conn.execute(
            "SELECT originator_id FROM stored_events WHERE originator_version = 1").fetchall()
        with conn:
            conn.execute("INSERT INTO stored_events VALUES (?, ?, ?, ?)",
                         (originator, 2, get_topic(CharacterAdded), row_state))
    finally:
        conn.close()

    with Trek.open(db, rulesets=RULESETS, gm="new-release") as trek:
        # Read before the read models have seen the row: folded in memory, upcast on the way.
        kira = trek.queries.status(None)["characters"]["Kira"]
        assert (kira["health"], kira["health_max"], kira["energy"], kira["energy_max"]) == (
            50, 50, 45, 45)
        # Recording loads the campaign through the same mapper and links to the stored bytes.
        [added] = trek.handle(None, AddCharacter(CharacterOptions(name="Oren",
            extra={"body": 5, "mind": 6, "soul": 5})))
        assert added["seq"] == 3
        [third] = [e for e in trek.app.events.get(campaign_id("old-road"))
                   if isinstance(e, TrekEvent) and e.seq == 3]
        assert third.prev_hash == hashlib.sha256(row_state).hexdigest()
        assert trek.verify_views()["verified"] is True
        trek.replay()
        assert trek.verify_views()["verified"] is True
        status = trek.queries.status(None)
        assert status["characters"]["Kira"]["health_max"] == 50
        assert status["characters"]["Oren"]["energy_max"] == 55
        log = trek.queries.log(None)
        assert [(e["seq"], e["type"]) for e in log] == [
            (1, "CampaignStarted"), (2, "CharacterAdded"), (3, "CharacterAdded")]
        assert log[1]["gm"] == "old-release"

    # The old row is still exactly as written: upcasting happens on reading, never in the store.
    conn = sqlite3.connect(db)
    try:
        [(state,)] = conn.execute(
            "SELECT state FROM stored_events WHERE originator_version = 2").fetchall()
        [(new_state,)] = conn.execute(
            "SELECT state FROM stored_events WHERE originator_version = 3").fetchall()
    finally:
        conn.close()
    assert bytes(state) == row_state
    # The event recorded now says which version wrote it.
    assert json.loads(new_state)["class_version"] == 2
    assert trek_status_stats(db) == {"Kira": {"body": 6, "mind": 5, "soul": 4},
                                     "Oren": {"body": 5, "mind": 6, "soul": 5}}


def trek_status_stats(db: str) -> dict[str, Any]:
    with Trek.open(db, rulesets=RULESETS) as trek:
        campaign: Campaign = trek.app.repository.get(campaign_id("old-road"))
        return {name: c.stats for name, c in campaign.game.characters.items()}

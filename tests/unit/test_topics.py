"""Stored topics resolve only through Trek's own list of event classes."""

from __future__ import annotations

import sys
import uuid

import pytest
from rulesets import RULESETS

from cli.bootstrap import bootstrap
from domain.besm import events as besm_events
from domain.besm import undertakings
from domain.cypher import events as cypher_events
from domain.events import CharacterAdded
from domain.ruleset import Registry
from tracker.topics import Topics, UnknownTopic

CAMPAIGN = uuid.UUID(int=3)


def resolve(topic: str, ruleset: str | None = "besm") -> type[object]:
    return Topics(RULESETS).resolve(topic, CAMPAIGN, lambda _campaign: ruleset)


def test_a_topic_naming_another_module_is_refused_and_never_imported() -> None:
    assert "this" not in sys.modules
    # No Trek release stores events outside its own packages: an edit, never a newer Trek.
    with pytest.raises(UnknownTopic, match="no Trek release records") as refused:
        resolve("this:x")
    assert "newer Trek" not in str(refused.value)
    assert "this" not in sys.modules


@pytest.mark.parametrize("topic", ["domain.events:Nothing", "os:system", "domain.events:",
                                   "", "domain.besm.events:Travelled"])
def test_topics_outside_the_list_are_refused(topic: str) -> None:
    with pytest.raises(UnknownTopic):
        resolve(topic)


def test_current_topics_name_their_classes() -> None:
    assert resolve("domain.events:CharacterAdded") is CharacterAdded
    assert resolve("domain.besm.events:ForcedMarched") is undertakings.ForcedMarched
    assert resolve("domain.cypher.events:Travelled") is cypher_events.Travelled


def test_release_0_1_topics_of_one_ruleset_resolve_whatever_the_campaign() -> None:
    assert resolve("domain.events:ForcedMarched", None) is undertakings.ForcedMarched
    assert resolve("domain.events:Travelled", None) is cypher_events.Travelled


@pytest.mark.parametrize(("ruleset", "module"), [("besm", besm_events),
                                                  ("cypher", cypher_events)])
def test_release_0_1_day_events_resolve_by_the_campaign_ruleset(ruleset: str,
                                                                 module: object) -> None:
    assert resolve("domain.events:DayStarted", ruleset) is module.DayStarted
    assert resolve("domain.events:DayEnded", ruleset) is module.DayEnded


def test_a_release_0_1_day_event_of_an_unknown_campaign_is_refused() -> None:
    with pytest.raises(UnknownTopic):
        resolve("domain.events:DayEnded", None)


def fresh_registry() -> Registry:
    """The shipped rulesets, each deferred again (the tests' registry may have loaded some)."""
    return bootstrap().registry


def test_a_deferred_rulesets_topic_loads_that_ruleset_alone() -> None:
    registry = fresh_registry()
    topics = Topics(registry)
    assert registry.loaded() == []
    assert resolve_in(topics, "domain.cypher.events:Travelled") is cypher_events.Travelled
    assert [ruleset.name for ruleset in registry.loaded()] == ["cypher"]


def test_a_ruleset_loaded_after_the_topics_were_made_still_resolves() -> None:
    """The campaign's ruleset is often loaded (to decide) before its first event is read."""
    registry = fresh_registry()
    topics = Topics(registry)
    registry.named("besm")
    assert resolve_in(topics, "domain.besm.events:DayStarted") is besm_events.DayStarted
    assert resolve_in(topics, "domain.events:DayStarted", "besm") is besm_events.DayStarted


def test_an_unknown_class_in_a_rulesets_package_is_still_refused() -> None:
    topics = Topics(fresh_registry())
    with pytest.raises(UnknownTopic, match="newer Trek"):
        resolve_in(topics, "domain.gurps.events:Teleported")


def resolve_in(topics: Topics, topic: str, ruleset: str | None = None) -> type[object]:
    return topics.resolve(topic, CAMPAIGN, lambda _campaign: ruleset)


def test_a_part_of_play_is_added_when_a_topic_of_its_module_is_first_met() -> None:
    """BESM's fight and the encounter's shared events are parts of play of their own: the
    allow-list holds neither until a stored topic names their module, then resolves it to
    the class (and refuses a name that module does not hold)."""
    from domain.besm.combat import CombatantMoved, WentProne
    from domain.encounter import RoundStarted

    topics = Topics(fresh_registry())
    assert resolve_in(topics, "domain.besm.events:Moved") is besm_events.Moved
    assert not {"domain.besm.combat:CombatantMoved", "domain.encounter:RoundStarted"} & set(
        topics.by_topic)
    assert resolve_in(topics, "domain.besm.combat:CombatantMoved") is CombatantMoved
    assert topics.by_topic["domain.besm.combat:WentProne"] is WentProne
    assert resolve_in(topics, "domain.encounter:RoundStarted") is RoundStarted
    with pytest.raises(UnknownTopic, match="newer Trek"):
        resolve_in(topics, "domain.besm.combat:Teleported")


def test_a_parts_topic_met_first_loads_its_ruleset_and_the_part() -> None:
    from domain.besm.combat import Acted

    registry = fresh_registry()
    topics = Topics(registry)
    assert resolve_in(topics, "domain.besm.combat:Acted") is Acted
    assert [ruleset.name for ruleset in registry.loaded()] == ["besm"]


def test_a_shared_event_kept_apart_is_stored_and_found_under_the_shared_module() -> None:
    """The roster's events beyond the first characters and the parties' are kept in modules
    of their own but stored as every release stored them, under `domain.events`: a topic of
    theirs loads its own part (and no ruleset, and not the other part), and one this release
    never had is still refused."""
    from domain.events import topic_of
    from domain.parties import PartiesMerged, PartySplit
    from domain.roster_events import Harmed, MountAdded

    assert [topic_of(cls) for cls in (MountAdded, Harmed, PartySplit, PartiesMerged)] == [
        "domain.events:MountAdded", "domain.events:Harmed", "domain.events:PartySplit",
        "domain.events:PartiesMerged"]
    registry = fresh_registry()
    topics = Topics(registry)
    assert "domain.events:MountAdded" not in topics.by_topic
    assert resolve_in(topics, "domain.events:MountAdded") is MountAdded
    assert topics.by_topic["domain.events:Harmed"] is Harmed
    assert "domain.events:PartiesMerged" not in topics.by_topic
    assert resolve_in(topics, "domain.events:PartySplit") is PartySplit
    assert topics.by_topic["domain.events:PartiesMerged"] is PartiesMerged
    assert registry.loaded() == []
    with pytest.raises(UnknownTopic, match="newer Trek"):
        resolve_in(topics, "domain.events:MountLost", "besm")


def test_sessions_are_stored_under_the_shared_module_and_load_when_met() -> None:
    """A session's start and end are kept apart and stored under `domain.events` as every
    release stored them: a session's topic loads them (tried first) and nothing of the roster."""
    from domain.events import topic_of
    from domain.sessions import SessionEnded, SessionStarted

    assert [topic_of(SessionStarted), topic_of(SessionEnded)] == [
        "domain.events:SessionStarted", "domain.events:SessionEnded"]
    registry = fresh_registry()
    topics = Topics(registry)
    assert "domain.events:SessionStarted" not in topics.by_topic
    assert resolve_in(topics, "domain.events:SessionStarted") is SessionStarted
    assert topics.by_topic["domain.events:SessionEnded"] is SessionEnded
    assert "domain.events:MountAdded" not in topics.by_topic
    assert registry.loaded() == []


def test_an_encounters_changes_are_stored_under_the_encounter_and_load_when_met() -> None:
    """A combatant leaving, a door changed and the end of a fight are kept apart from the
    encounter's opening, entries and rounds, and stored under `domain.encounter` as every
    release stored them: a round's topic loads the encounter's part alone, a door's its own."""
    from domain.encounter import RoundStarted
    from domain.encounter_changes import CombatantRemoved, DoorChanged, EncounterEnded
    from domain.events import topic_of

    assert [topic_of(cls) for cls in (CombatantRemoved, DoorChanged, EncounterEnded)] == [
        "domain.encounter:CombatantRemoved", "domain.encounter:DoorChanged",
        "domain.encounter:EncounterEnded"]
    registry = fresh_registry()
    topics = Topics(registry)
    assert resolve_in(topics, "domain.encounter:RoundStarted") is RoundStarted
    assert "domain.encounter:DoorChanged" not in topics.by_topic
    assert resolve_in(topics, "domain.encounter:DoorChanged") is DoorChanged
    assert topics.by_topic["domain.encounter:EncounterEnded"] is EncounterEnded
    assert registry.loaded() == []
    with pytest.raises(UnknownTopic, match="newer Trek"):
        resolve_in(topics, "domain.encounter:WallRaised", "besm")


def test_besms_undertakings_are_stored_under_its_events_and_load_when_met() -> None:
    """A shortcut, a forced march, night travel, foraging and a repair are kept apart from
    BESM's day clock and moves, stored under `domain.besm.events` as every release stored
    them: a move's topic loads BESM without them, a forage's loads them."""
    from domain.events import topic_of

    assert [topic_of(cls) for cls in undertakings.EVENTS] == [
        "domain.besm.events:ShortcutAttempted", "domain.besm.events:ForcedMarched",
        "domain.besm.events:NightTravelled", "domain.besm.events:Foraged",
        "domain.besm.events:Repaired"]
    topics = Topics(fresh_registry())
    assert resolve_in(topics, "domain.besm.events:Moved") is besm_events.Moved
    assert "domain.besm.events:Foraged" not in topics.by_topic
    assert resolve_in(topics, "domain.besm.events:Foraged") is undertakings.Foraged
    assert topics.by_topic["domain.besm.events:Repaired"] is undertakings.Repaired
    with pytest.raises(UnknownTopic, match="newer Trek"):
        resolve_in(topics, "domain.besm.events:Swam", "besm")


def test_the_words_undo_takes_include_every_parts_events() -> None:
    """`trek undo --last KIND` reads the kinds off every event class, parts loaded."""
    kinds = fresh_registry().undo_kinds
    assert {"move", "forage", "encounter-move", "prone", "round", "encounter-start"} <= set(kinds)


def test_a_release_0_1_topic_of_a_parts_event_resolves() -> None:
    """Release 0.1 stored every event under `domain.events`: a part's class is found by its
    name once every ruleset and part is loaded."""
    from domain.encounter import EncounterStarted

    topics = Topics(fresh_registry())
    assert resolve_in(topics, "domain.events:EncounterStarted", "besm") is EncounterStarted

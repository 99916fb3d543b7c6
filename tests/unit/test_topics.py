"""Stored topics resolve only through Trek's own list of event classes."""

from __future__ import annotations

import sys
import uuid

import pytest
from rulesets import RULESETS

from cli.bootstrap import bootstrap
from domain.besm import events as besm_events
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
    assert resolve("domain.besm.events:ForcedMarched") is besm_events.ForcedMarched
    assert resolve("domain.cypher.events:Travelled") is cypher_events.Travelled


def test_release_0_1_topics_of_one_ruleset_resolve_whatever_the_campaign() -> None:
    assert resolve("domain.events:ForcedMarched", None) is besm_events.ForcedMarched
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

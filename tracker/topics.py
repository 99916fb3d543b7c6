"""Which event class a stored topic names: an allow-list, never an import of whatever a row says.

New events are stored under their class's module path, but for the shared events kept apart
from `domain.events`, stored under its name as before (`domain.events.topic_of`). Release 0.1
stored every event under `domain.events:NAME`; those topics still resolve: to the one class of
that name, or, for the day-clock events each ruleset now has its own of, to the class of the
campaign's ruleset.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from uuid import UUID

from pydantic import BaseModel

from domain.errors import TrackerError
from domain.events import STORED_UNDER, TrekEvent, topic_of
from domain.ruleset import EventsLoader, Registry, Ruleset, event_parts

LEGACY_MODULE = "domain.events"


__all__ = ["LEGACY_MODULE", "Topics", "UnknownTopic", "topic_of"]


class UnknownTopic(TrackerError):
    """A stored row names an event class this release does not know."""


class Topics:
    """Topic -> class for every event this release knows, and release 0.1's topics."""

    def __init__(self, rulesets: Registry, others: Iterable[type[BaseModel]] = ()) -> None:
        self.rulesets = rulesets
        self.by_topic: dict[str, type[BaseModel]] = {}
        # Release 0.1 name -> {ruleset name or "" for every campaign: class}.
        self.legacy: dict[str, dict[str, type[TrekEvent]]] = {}
        self._add_shared(rulesets.shared)
        # A deferred ruleset's events are added when a topic inside its package is first met,
        # and a part of play's (shared or a ruleset's) when a topic of its module is.
        self.added: set[str] = set()
        self.parts: dict[str, tuple[str, EventsLoader]] = {
            module: ("", load) for module, load in rulesets.shared_parts.items()}
        self._add(rulesets.loaded())
        for other in others:
            self.by_topic[topic_of(other)] = other
        # The top-level packages Trek's events live in: a topic elsewhere is no Trek event.
        self.packages = {t.partition(":")[0].partition(".")[0]
                         for t in (*self.by_topic, *self.parts)}
        self.packages.add(LEGACY_MODULE.partition(".")[0])

    def _add_shared(self, classes: Iterable[type[TrekEvent]]) -> None:
        for cls in classes:
            self.by_topic[topic_of(cls)] = cls
            self.legacy.setdefault(cls.__name__, {})[""] = cls

    def _add_events(self, ruleset: str, classes: Iterable[type[TrekEvent]]) -> None:
        for own in classes:
            self.by_topic[topic_of(own)] = own
            self.legacy.setdefault(own.__name__, {})[ruleset] = own

    def _add(self, rulesets: Iterable[Ruleset]) -> None:
        for ruleset in rulesets:
            if ruleset.name in self.added:
                continue
            self.added.add(ruleset.name)
            self._add_events(ruleset.name, ruleset.events)
            self.parts.update((module, (ruleset.name, load))
                              for module, load in event_parts(ruleset).items())

    def _add_part(self, module: str) -> bool:
        """Add the events of the part of play kept in `module`, if one is, loading it; whether
        any were added."""
        found = self.parts.pop(module, None)
        if found is None:
            return False
        ruleset, load = found
        if ruleset:
            self._add_events(ruleset, load())
        else:
            self._add_shared(load())
        return True

    def _add_every_part(self) -> None:
        for module in list(self.parts):
            self._add_part(module)

    def resolve(self, topic: str, originator_id: UUID | str,
                ruleset_of: Callable[[UUID], str | None]) -> type[BaseModel]:
        """The class of `topic`; the campaign's id (a UUID, or its stored text, turned into
        one only when a release 0.1 topic needs the campaign's ruleset) picks among a day-clock
        event's classes."""
        cls = self.by_topic.get(topic)
        if cls is not None:
            return cls
        module, _, name = topic.partition(":")
        # A part of play not loaded yet, its events stored under its module's name or, for
        # the shared events kept in a module of their own, under the module that held them
        # before (`STORED_UNDER`): those parts are tried one by one until one holds it.
        if self._add_part(module) or any(self._add_part(part) for part in list(self.parts)
                                         if STORED_UNDER.get(part) == module):
            return self.resolve(topic, originator_id, ruleset_of)
        # The campaign's ruleset, met for the first time (or, for a release 0.1 topic, every
        # ruleset: that release stored them all under one module).
        news = (list(self.rulesets) if module == LEGACY_MODULE
                else self.rulesets.holding(module))
        if any(ruleset.name not in self.added for ruleset in news):
            self._add(news)
            return self.resolve(topic, originator_id, ruleset_of)
        # Every part of play, for a release 0.1 topic (that release stored them all under
        # one module too).
        if module == LEGACY_MODULE and self.parts:
            self._add_every_part()
            return self.resolve(topic, originator_id, ruleset_of)
        choices = self.legacy.get(name) if module == LEGACY_MODULE else None
        if choices:
            if "" in choices:
                return choices[""]
            if len(choices) == 1:
                return next(iter(choices.values()))
            ruleset = ruleset_of(originator_id if isinstance(originator_id, UUID)
                                 else UUID(originator_id))
            if ruleset in choices:
                return choices[ruleset]
        if module.partition(".")[0] not in self.packages:
            # No release of Trek stores events under another package's name.
            raise UnknownTopic(
                f"the store holds an event of a kind no Trek release records ({topic}): it "
                "was edited behind Trek's back (`trek verify` says more)")
        raise UnknownTopic(
            f"the store holds an event of a kind this release does not know ({topic}); it "
            "may have been written by a newer Trek, or edited behind Trek's back "
            "(`trek verify` checks)"
        )

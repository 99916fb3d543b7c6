"""The event store of campaigns: the eventsourcing library's application, with Trek's mapper."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import Mapper

from domain.campaign import CampaignSnapshot
from domain.events import TrekEvent
from domain.ruleset import Registry
from tracker.mapper import CanonicalJSONTranscoder, PydanticMapper, RowDecoder
from tracker.topics import Topics


class TrekApplication(Application[UUID]):
    """The event store of campaigns; snapshots are taken by the use cases, not per interval."""

    name = "Trek"
    is_snapshotting_enabled = True
    # The rulesets whose events this store reads, for an application built from `env` alone
    # (the library's ProjectionRunner does that): see `playing`.
    registry: Registry | None = None

    def __init__(self, env: Mapping[str, str], rulesets: Registry | None = None) -> None:
        rulesets = rulesets or self.registry
        if rulesets is None:
            raise TypeError("TrekApplication needs the rulesets it plays")
        self.rulesets = rulesets
        self._rulesets_of: dict[UUID, str | None] = {}
        self._rows: RowDecoder | None = None
        super().__init__(env=env)

    def construct_mapper(self) -> Mapper[UUID]:
        topics = Topics(self.rulesets, others=[CampaignSnapshot])
        return PydanticMapper(CanonicalJSONTranscoder(), topics, self._ruleset_of)

    def _ruleset_of(self, campaign: UUID) -> str | None:
        """The ruleset a campaign was started under, read from its first stored event."""
        if campaign not in self._rulesets_of:
            rows = self.recorder.select_events(campaign, lte=1)
            ruleset = json.loads(bytes(rows[0].state)).get("ruleset") if rows else None
            self._rulesets_of[campaign] = ruleset if isinstance(ruleset, str) else None
        return self._rulesets_of[campaign]

    def decode(self, notification: Any) -> TrekEvent | None:
        if self._rows is None:
            assert isinstance(self.mapper, PydanticMapper)
            self._rows = RowDecoder(self.mapper)
        event = self._rows(notification)
        return event if isinstance(event, TrekEvent) else None


def playing(rulesets: Registry) -> type[TrekApplication]:
    """The application class bound to `rulesets`, for code that builds it from `env` alone."""
    return type("TrekApplication", (TrekApplication,),
                {"registry": rulesets, "name": TrekApplication.name})

"""The event store of campaigns: the eventsourcing library's application, with Trek's mapper."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import ApplicationRecorder, EventStore, Mapper

from domain.campaign import CampaignSnapshot
from domain.events import TrekEvent
from domain.ruleset import Registry
from projections.db import Database
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

    def construct_recorder(self) -> ApplicationRecorder:
        if _on_postgres(self.factory):
            from tracker.postgres_recorder import SharedPostgresEventRecorder

            # The events table named as the library's factory names it.
            shared = SharedPostgresEventRecorder(
                self.factory.datastore,  # type: ignore[attr-defined]
                events_table_name=(self.factory.env.name.lower() or "stored") + "_events")
            if self.factory.env_create_table():  # type: ignore[attr-defined]
                shared.create_table()
            return shared
        if not _on_sqlite(self.factory):
            return super().construct_recorder()
        from tracker.sqlite_recorder import SharedEventRecorder

        recorder = SharedEventRecorder(self.factory.datastore)  # type: ignore[attr-defined]
        if self.factory.env_create_table():  # type: ignore[attr-defined]
            recorder.create_table()
        return recorder

    def construct_snapshot_store(self) -> EventStore[UUID]:
        if not _on_sqlite(self.factory):
            return super().construct_snapshot_store()
        from tracker.sqlite_recorder import SharedSnapshotRecorder

        recorder = SharedSnapshotRecorder(self.factory.datastore,  # type: ignore[attr-defined]
                                          events_table_name="stored_snapshots")
        if self.factory.env_create_table():  # type: ignore[attr-defined]
            recorder.create_table()
        return self.factory.event_store(mapper=self.mapper, recorder=recorder)

    def share(self, views: Database) -> None:
        """Read the event store on `views`' connection, and let `save(..., then=fold)` append
        and fold the read models in one transaction there (an SQLite file store's or a
        PostgreSQL store's; on PostgreSQL the event store is still read on its own pool)."""
        from projections.db import PostgresDatabase, SQLiteDatabase
        from tracker.sqlite_recorder import SharedEventRecorder, SharedSnapshotRecorder

        if isinstance(views, PostgresDatabase):
            from tracker.postgres_recorder import SharedPostgresEventRecorder

            if isinstance(self.recorder, SharedPostgresEventRecorder):
                self.recorder.share(views)
            return
        if isinstance(views, SQLiteDatabase) and isinstance(self.recorder, SharedEventRecorder):
            self.recorder.share(views)
            assert self.snapshots is not None
            snapshots = self.snapshots.recorder
            assert isinstance(snapshots, SharedSnapshotRecorder)
            snapshots.share(views)
            snapshots.events = self.recorder

    @property
    def folds_with_append(self) -> bool:
        """Whether `save(..., then=fold)` runs the fold in the append's transaction."""
        return getattr(self.recorder, "views", None) is not None

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

    @property
    def decode(self) -> Callable[[Any, int, str, Any], TrekEvent | None]:
        """The Trek event a stored row holds, given as its fields (None for another record):
        one call per row, as a rebuild makes it for every row (`RowDecoder.event`)."""
        rows = self._rows
        if rows is None:
            assert isinstance(self.mapper, PydanticMapper)
            rows = self._rows = RowDecoder(self.mapper)
        return rows.event


def _on_sqlite(factory: object) -> bool:
    return type(factory).__module__ == "eventsourcing.sqlite"


def _on_postgres(factory: object) -> bool:
    return type(factory).__module__ == "eventsourcing.postgres"


def playing(rulesets: Registry) -> type[TrekApplication]:
    """The application class bound to `rulesets`, for code that builds it from `env` alone."""
    return type("TrekApplication", (TrekApplication,),
                {"registry": rulesets, "name": TrekApplication.name})

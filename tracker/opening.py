"""Opening a store: the event store and the read-model database behind one location.

A memory store lives as long as the `MemoryStores` that holds it, so several `Trek.open`
calls given the same holder (one test, say) share one store; nothing is kept at module level.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from eventsourcing.persistence import PersistenceError

from domain.ruleset import Registry
from projections.db import Database, PostgresDatabase, SQLiteDatabase, create_schema
from tracker.application import TrekApplication
from tracker.postgres_driver import require_driver
from tracker.stores import (
    Location,
    StoreError,
    StoreKind,
    check_postgres_store,
    check_sqlite_store,
    lock_timeout,
    read_only_here,
)


@dataclass
class MemoryStores:
    """In-process stores by name, for as long as this holder is kept."""

    stores: dict[str, tuple[TrekApplication, Database]] = field(default_factory=dict)

    def __contains__(self, name: str) -> bool:
        return name in self.stores


@dataclass(frozen=True)
class OpenedStore:
    """What `open_store` found or made at a location."""

    app: TrekApplication
    views: Database
    # True for a store on disk made by an earlier run (its read models may be older).
    upgrade: bool


@contextmanager
def opening_errors(location: Location, *, create: bool) -> Iterator[None]:
    """A failure while a store is opened, told as one sentence without its password."""
    try:
        yield
    except PersistenceError as error:
        raise StoreError(location.scrub(f"the store {location.display} failed: {error}")
                         ) from None
    except (sqlite3.Error, OSError) as error:
        doing = "created" if create else "opened"
        raise StoreError(location.scrub(
            f"the store {location.display} cannot be {doing}: {error}")) from None


def open_store(location: Location, rulesets: Registry, *, create: bool, writable: bool,
               memory: MemoryStores) -> OpenedStore:
    """The event store and read models at `location`; `create` allows making a new store."""
    with opening_errors(location, create=create):
        if location.kind is StoreKind.MEMORY:
            return _open_memory(location, rulesets, create=create, memory=memory)
        frozen = False
        if location.kind is StoreKind.SQLITE:
            exists = check_sqlite_store(location.target, create=create)
            frozen = exists and read_only_here(location.target)
            if frozen and writable:
                raise StoreError(f"the store {location.display} is read-only here; "
                                 "reading works, recording does not")
            views: Database = SQLiteDatabase(
                location.target, read_only=exists and not writable, frozen=frozen,
                timeout=lock_timeout())
        else:
            require_driver(location.target)
            exists = check_postgres_store(location, create=create)
            views = PostgresDatabase(location.target)
        # The event tables first and the store's format mark last, so a store marked as
        # Trek's has every table; `init` makes any that an interrupted one did not.
        app = TrekApplication(
            location.eventsourcing_env(create=create or not exists, frozen=frozen), rulesets)
        if not exists:
            create_schema(views)
        return OpenedStore(app, views, upgrade=exists)


def _open_memory(location: Location, rulesets: Registry, *, create: bool,
                 memory: MemoryStores) -> OpenedStore:
    if location.target not in memory:
        if not create:
            raise StoreError(f"there is no Trek store at {location.display}; "
                             "create one with `trek init NAME`")
        app = TrekApplication(location.eventsourcing_env(create=True), rulesets)
        views: Database = SQLiteDatabase(":memory:")
        create_schema(views)
        memory.stores[location.target] = (app, views)
    else:
        app, views = memory.stores[location.target]
    return OpenedStore(app, views, upgrade=False)

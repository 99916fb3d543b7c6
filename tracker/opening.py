"""Opening a store: the event store and the read-model database behind one location.

A memory store lives as long as the `MemoryStores` that holds it, so several `Trek.open`
calls given the same holder (one test, say) share one store; nothing is kept at module level.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from eventsourcing.persistence import PersistenceError

from domain.ruleset import Registry
from projections.db import (
    SCHEMA_MARK,
    Database,
    PostgresDatabase,
    SQLiteDatabase,
    create_schema,
)
from tracker.application import TrekApplication
from tracker.postgres_driver import require_driver
from tracker.stores import (
    Location,
    StoreError,
    StoreKind,
    check_postgres_store,
    inspect_sqlite_store,
    lock_timeout,
    read_only_here,
)


class MemoryStores:
    """In-process stores by name, for as long as this holder is kept."""

    def __init__(self) -> None:
        self.stores: dict[str, tuple[TrekApplication, Database]] = {}

    def __contains__(self, name: str) -> bool:
        return name in self.stores


class OpenedStore(NamedTuple):
    """What `open_store` found or made at a location."""

    app: TrekApplication
    views: Database
    # True for a store on disk made by an earlier run (its read models may be older).
    upgrade: bool
    # An SQLite file store not yet marked as in this release's schema: opening it to record
    # checks its tables and then marks it (`projections.db.mark_schema`).
    unmarked: bool = False


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
            exists, schema = inspect_sqlite_store(location.target, create=create)
            frozen = exists and read_only_here(location.target)
            if frozen and writable:
                raise StoreError(f"the store {location.display} is read-only here; "
                                 "reading works, recording does not")
            sqlite = SQLiteDatabase(
                location.target, read_only=exists and not writable, frozen=frozen,
                timeout=lock_timeout())
            sqlite.current = schema == SCHEMA_MARK
            views: Database = sqlite
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
        # Events are read, and a command's event and read models written, on one connection.
        app.share(views)
        unmarked = isinstance(views, SQLiteDatabase) and not views.current
        return OpenedStore(app, views, upgrade=exists, unmarked=unmarked)


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


# The files SQLite may make beside a store file while it is open.
SQLITE_SIDECARS = ("-wal", "-shm", "-journal")


class NewFiles(NamedTuple):
    """The files of an SQLite store that were not there before a command made the store: what
    that command may take away again if it fails before anything is recorded."""

    store: Path | None
    paths: tuple[Path, ...] = ()

    @classmethod
    def before_opening(cls, location: Location) -> NewFiles:
        if location.kind is not StoreKind.SQLITE:
            return cls(None)
        store = Path(location.target)
        if store.exists() or store.is_symlink():
            return cls(None)
        return cls(store, tuple(p for p in (store, *(Path(f"{store}{s}")
                                                       for s in SQLITE_SIDECARS))
                                if not p.exists()))

    def remove(self) -> None:
        """Remove them (the store's connections closed first), unless the store now holds an
        event: then another command made it meanwhile, and it is left as it is."""
        if self.store is None or _in_use(self.store) or _holds_events(self.store):
            return
        for path in self.paths:
            with suppress(FileNotFoundError):
                path.unlink()


def _in_use(store: Path) -> bool:
    """A -wal file left once this process closed the store: another program has it open."""
    return Path(f"{store}-wal").exists()


def _holds_events(store: Path) -> bool:
    """Whether the SQLite file holds a stored event (read without locks or files beside it);
    True when that cannot be told, so a file in doubt is kept."""
    if not store.exists():
        return False
    try:
        conn = sqlite3.connect(f"file:{quote(str(store))}?mode=ro&immutable=1", uri=True)
        try:
            tables = {name for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "stored_events" not in tables:
                return False
            return conn.execute("SELECT 1 FROM stored_events LIMIT 1").fetchone() is not None
        finally:
            conn.close()
    except sqlite3.Error:
        return store.stat().st_size > 0

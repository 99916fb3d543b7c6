"""Whether the PostgreSQL driver is installed, asked only when a PostgreSQL store is used."""

from __future__ import annotations

import importlib.util

from domain.errors import TrackerError
from tracker.stores import Location, StoreError, StoreKind

INSTALL_HINT = "pip install 'trek[postgres]'"


def driver_installed() -> bool:
    return importlib.util.find_spec("psycopg") is not None


def require_driver(db: str) -> None:
    """Refuse a postgresql:// store in one sentence when the driver is not installed."""
    if db.startswith(("postgresql://", "postgres://")) and not driver_installed():
        raise StoreError(
            "this is a PostgreSQL store, and the PostgreSQL driver is not installed; "
            f"add it with `{INSTALL_HINT}` (SQLite stores need nothing more)"
        )


class NeedsPostgres(TrackerError):
    """`trek watch` was pointed at a store that has no live subscription."""


def require_postgres_for_watch(location: Location) -> None:
    if location.kind is not StoreKind.POSTGRES:
        kind = "an SQLite" if location.kind is StoreKind.SQLITE else "a memory"
        raise NeedsPostgres(
            "`trek watch` needs a PostgreSQL store (--db postgresql://...); the read "
            f"models of {kind} store already catch up after every command")

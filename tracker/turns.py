"""Servers sharing a PostgreSQL store take turns at a campaign: one records while the other
waits, instead of both deciding on the same version and one of them deciding again."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from uuid import UUID

from projections.db import Database, PostgresDatabase
from tracker.stores import Location, lock_timeout, store_errors

# The first key of the campaigns' advisory locks (the second is drawn from the campaign's id);
# the read models' writer lock is the single key 7265727.
TURN_KEY = 7265728


def turn_key(cid: UUID) -> int:
    """A campaign's advisory lock key: 32 bits of its id, as PostgreSQL's int4."""
    return int(cid.hex[:8], 16) - 2**31


@contextmanager
def campaign_turn(views: Database, cid: UUID, location: Location) -> Iterator[None]:
    """Hold campaign `cid`'s advisory lock (PostgreSQL; on another store nothing) from loading
    it to the read models' update. A session's lock: a process that dies lets it go. What
    does not take it still records safely, by the version check, as before."""
    if not isinstance(views, PostgresDatabase):
        yield
        return
    conn = views.conn
    key = turn_key(cid)
    with store_errors(location), conn.transaction(), conn.cursor() as cursor:
        # Waited for as long as a command waits for a busy store, and then refused as busy.
        cursor.execute(f"SET LOCAL lock_timeout = '{lock_timeout()}s'")
        cursor.execute("SELECT pg_advisory_lock(%s, %s)", (TURN_KEY, key))
    try:
        yield
    finally:
        # A connection that failed meanwhile has let the lock go already.
        with suppress(Exception), conn.transaction(), conn.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", (TURN_KEY, key))

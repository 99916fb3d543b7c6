"""Which events a campaign's reversals cancelled, read from the event store itself.

A snapshot holds the campaign's state, not every cancellation ever made. A campaign loaded from
one is given `StoredCancellations`: the first time it is asked, it reads the campaign's undos
and redos up to the snapshot (only those rows, which an index of the event table keeps apart)
and answers every later question from them in memory. The write side so decides on the log as
it is stored, never on a read model that may be behind or damaged.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from uuid import UUID

from domain.campaign import overlay
from domain.errors import TamperedLog
from domain.events import EventsCancelled, EventsRestored, topic_of
from domain.links import stored_bytes
from projections.db import Database, PostgresDatabase, SQLiteDatabase
from tracker.topics import LEGACY_MODULE

# Each topic a reversal is stored under (this release's, and release 0.1's spelling of it,
# which is the same for these two) -> the field naming its events, and whether it cancels them.
REVERSALS: dict[str, tuple[str, bool]] = {}
for _cls, _field, _cancels in ((EventsCancelled, "cancels", True),
                               (EventsRestored, "restores", False)):
    REVERSALS[topic_of(_cls)] = (_field, _cancels)
    REVERSALS[f"{LEGACY_MODULE}:{_cls.__name__}"] = (_field, _cancels)

# Written out in the SQL itself, the same in the index and in every query, so the index (which
# holds the reversals' rows only) can serve the query.
_TOPICS_SQL = ", ".join(f"'{topic}'" for topic in sorted(REVERSALS))
INDEX_NAME = "trek_reversals"

# One stored reversal: its version (seq), topic and stored state.
Row = tuple[int, str, Any]


class StoredCancellations:
    """One campaign's cancellations as they stood at version `upto`, from its reversals.

    `read` gives the campaign's reversal rows up to `upto`, oldest first; it is called once,
    when the campaign first asks, so a command that never asks reads nothing.
    """

    def __init__(self, upto: int, read: Callable[[], Iterable[Row]],
                 refuse: Callable[[int], TamperedLog] | None = None) -> None:
        self.upto = upto
        self._read = read
        self._refuse = refuse
        # Event seq -> the reversal that cancelled it, for every event that stood cancelled.
        self._cancelled: dict[int, int] | None = None
        self._seqs: list[int] = []
        # Event seq -> the latest reversal that cancelled or restored it.
        self._last_named: dict[int, int] = {}

    def _ready(self) -> dict[int, int]:
        if self._cancelled is None:
            cancelled: dict[int, int] = {}
            last_named: dict[int, int] = {}
            for version, topic, state in sorted(self._read(), key=lambda row: int(row[0])):
                version = int(version)
                if version > self.upto or topic not in REVERSALS:
                    continue
                named, cancels = REVERSALS[topic]
                seqs = self._named(version, state, named)
                overlay(cancelled, ((seq, version if cancels else None) for seq in seqs))
                last_named.update(dict.fromkeys(seqs, version))
            self._cancelled = cancelled
            self._seqs = sorted(cancelled)
            self._last_named = last_named
        return self._cancelled

    def _named(self, version: int, state: Any, field: str) -> list[int]:
        """The events a stored reversal names, read from its JSON."""
        try:
            seqs = json.loads(stored_bytes(state))[field]
            if not isinstance(seqs, list) or not all(type(seq) is int for seq in seqs):
                raise TypeError(field)
        except (ValueError, KeyError, TypeError):
            if self._refuse is not None:
                raise self._refuse(version) from None
            raise TamperedLog(f"event {version} (a reversal) cannot be read any more: it was "
                              "changed after it was recorded; `trek verify` says more") from None
        return seqs

    def cancelled_in(self, first: int, last: int) -> dict[int, int]:
        cancelled = self._ready()
        seqs = self._seqs[bisect_left(self._seqs, first):bisect_right(self._seqs, last)]
        return {seq: cancelled[seq] for seq in seqs}

    def named_after(self, first: int) -> set[int] | None:
        self._ready()
        return {seq for seq, reversal in self._last_named.items()
                if seq < first and reversal >= first}


def reversal_rows(recorder: Any, views: Database, table: str | None, campaign: UUID,
                  upto: int) -> list[Row]:
    """A campaign's reversal rows with version <= `upto`, oldest first, in one query.

    On SQLite and PostgreSQL the events `table` is read on the read models' connection (the
    same database), with the index's own condition; a store in memory has no table (None), and
    its campaign's rows are looked through instead.
    """
    if table is None:
        return [(row.originator_version, row.topic, row.state)
                for row in recorder.select_events(campaign, lte=upto)
                if row.topic in REVERSALS]
    key: Any = campaign.hex if isinstance(views, SQLiteDatabase) else campaign
    return [(int(version), str(topic), state) for version, topic, state in views.query(
        f"SELECT originator_version, topic, state FROM {table} WHERE originator_id = ? "
        f"AND originator_version <= ? AND topic IN ({_TOPICS_SQL}) "
        "ORDER BY originator_version", (key, upto))]


def events_table(recorder: Any, views: Database) -> str | None:
    """The name of the events table when the read models' connection reaches it."""
    table = getattr(recorder, "events_table_name", None)
    if (not isinstance(table, str) or not table.isidentifier()
            or not isinstance(views, SQLiteDatabase | PostgresDatabase)):
        return None
    # A store in memory keeps its read models in an SQLite database of their own.
    if isinstance(views, SQLiteDatabase) and not views.has_table(table):
        return None
    return table


def index_reversals(recorder: Any, views: Database) -> bool:
    """Make the index of the events table that holds the reversals' rows only, if it is not
    there yet (a store made by an earlier release); True if it was made. Reading works without
    it, looking through the campaign's rows instead."""
    table = events_table(recorder, views)
    if table is None or _has_index(views):
        return False
    with views.transaction() as cursor:
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX_NAME} ON {table} "
            f"(originator_id, originator_version) WHERE topic IN ({_TOPICS_SQL})")
    return True


def _has_index(views: Database) -> bool:
    if isinstance(views, SQLiteDatabase):
        if views.current:
            return True
        rows: Sequence[Any] = views.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (INDEX_NAME,))
        return bool(rows)
    rows = views.query("SELECT to_regclass(?)", (INDEX_NAME,))
    return bool(rows and rows[0][0] is not None)

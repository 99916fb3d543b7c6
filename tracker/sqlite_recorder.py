"""The event store's SQLite recorders on the read models' connection: a command's event and the
read models it changes commit in one transaction, and a campaign loads in two statements."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteApplicationRecorder, SQLiteCursor

from projections.db import SQLiteDatabase

# What `insert_events` runs after the append, inside its transaction, with its cursor and the
# rows just appended as the events table holds them (rowid, originator_id, originator_version,
# topic, state): the read models' fold (`Trek._save`), which need not read them back. An
# exception from it rolls the append back too.
Then = Callable[[sqlite3.Cursor, Sequence[tuple[Any, ...]]], None]


class _Shared:
    """Reads on the read models' connection once `share` was called: one statement each, in
    SQLite's own read transaction, instead of the library's connection and its BEGIN ...
    ROLLBACK round each read."""

    views: SQLiteDatabase | None = None
    events_table_name: str
    select_events_statement: str

    def share(self, views: SQLiteDatabase) -> None:
        self.views = views

    def _select(self, originator_id: UUID | str, gt: int | None, lte: int | None, desc: bool,
                limit: int | None) -> list[StoredEvent]:
        assert self.views is not None
        statement = self.select_events_statement
        params: list[Any] = [originator_id.hex if isinstance(originator_id, UUID)
                             else originator_id]
        if gt is not None:
            statement += "AND originator_version>? "
            params.append(gt)
        if lte is not None:
            statement += "AND originator_version<=? "
            params.append(lte)
        statement += "ORDER BY originator_version " + ("DESC " if desc else "ASC ")
        if limit is not None:
            statement += "LIMIT ? "
            params.append(limit)
        convert = self.convert_originator_id
        return [StoredEvent(originator_id=convert(row[0]), originator_version=row[1],
                            topic=row[2], state=row[3])
                for row in self.views.conn.execute(statement, params).fetchall()]

    if TYPE_CHECKING:  # the library's recorder, which each recorder below also is, has it
        def convert_originator_id(self, originator_id: str) -> UUID | str: ...


class SharedEventRecorder(_Shared, SQLiteApplicationRecorder):
    """The events table's recorder; `insert_events(..., then=fold)` appends and folds in one
    transaction on the read models' connection (BEGIN IMMEDIATE: the write lock up front)."""

    # The events after a snapshot, read with it (`SharedSnapshotRecorder`): the aggregate's id,
    # the snapshot's version (None: none), the bound asked for, and the rows. Used once, by
    # the read that asks for exactly those.
    prefetched: tuple[str, int | None, int | None, list[StoredEvent]] | None = None

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any
                      ) -> Sequence[int] | None:
        then: Then | None = kwargs.get("then")
        if then is None or self.views is None:
            return super().insert_events(stored_events, **kwargs)
        try:
            with self.views.transaction() as cursor:
                ids = self._insert_events(SQLiteCursor(cursor), stored_events)
                assert ids is not None
                then(cursor, [(rowid, s.originator_id.hex if isinstance(s.originator_id, UUID)
                               else s.originator_id, s.originator_version, s.topic, s.state)
                              for rowid, s in zip(ids, stored_events, strict=True)])
        except sqlite3.IntegrityError as error:
            # Another command took the version first: the caller decides again.
            raise IntegrityError(error) from error
        return ids

    def select_events(self, originator_id: UUID | str, *, gt: int | None = None,
                      lte: int | None = None, desc: bool = False, limit: int | None = None
                      ) -> Sequence[StoredEvent]:
        if self.views is None:
            return super().select_events(originator_id, gt=gt, lte=lte, desc=desc, limit=limit)
        prefetched, self.prefetched = self.prefetched, None
        if prefetched is not None and not desc and limit is None and prefetched[:3] == (
                originator_id.hex if isinstance(originator_id, UUID) else originator_id,
                gt, lte):
            return prefetched[3]
        return self._select(originator_id, gt, lte, desc, limit)


class SharedSnapshotRecorder(_Shared, SQLiteAggregateRecorder):
    """The snapshots table's recorder, reading on the read models' connection.

    Loading an aggregate asks for its newest snapshot and then for the events after it: the
    first question reads both in one statement, and the events recorder answers the second
    from what was read (`SharedEventRecorder.prefetched`)."""

    events: SharedEventRecorder | None = None

    def select_events(self, originator_id: UUID | str, *, gt: int | None = None,
                      lte: int | None = None, desc: bool = False, limit: int | None = None
                      ) -> Sequence[StoredEvent]:
        if self.views is None:
            return super().select_events(originator_id, gt=gt, lte=lte, desc=desc, limit=limit)
        if self.events is None or not (gt is None and desc and limit == 1):
            return self._select(originator_id, gt, lte, desc, limit)
        key = originator_id.hex if isinstance(originator_id, UUID) else originator_id
        upto = "" if lte is None else "AND originator_version<=? "
        bound: list[Any] = [] if lte is None else [lte]
        rows = self.views.conn.execute(
            "SELECT * FROM (SELECT 0, originator_id, originator_version, topic, state FROM "
            f"{self.events_table_name} WHERE originator_id=? {upto}"
            "ORDER BY originator_version DESC LIMIT 1) UNION ALL "
            "SELECT 1, originator_id, originator_version, topic, state FROM "
            f"{self.events.events_table_name} WHERE originator_id=? {upto}AND "
            "originator_version>COALESCE((SELECT MAX(originator_version) FROM "
            f"{self.events_table_name} WHERE originator_id=? {upto}), 0) ORDER BY 1, 3",
            [key, *bound, key, *bound, key, *bound]).fetchall()
        convert = self.convert_originator_id
        found = [(kind, StoredEvent(originator_id=convert(row[0]), originator_version=row[1],
                                    topic=row[2], state=row[3])) for kind, *row in rows]
        snapshots = [stored for kind, stored in found if kind == 0]
        after = snapshots[0].originator_version if snapshots else None
        self.events.prefetched = (key, after, lte, [stored for kind, stored in found if kind])
        return snapshots

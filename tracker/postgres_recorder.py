"""The event store's PostgreSQL recorder on the read models' connection: a command's event and
the read models it changes commit in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row
from psycopg.types.composite import register_composite

from projections.db import PostgresDatabase


class SharedPostgresEventRecorder(PostgresApplicationRecorder):
    """The events table's recorder; `insert_events(..., then=fold)` appends and folds in one
    transaction on the read models' connection.

    Locks are taken in one order by every transaction that takes more than one: the read
    models' writer lock (`PostgresDatabase.transaction`), then the events table's EXCLUSIVE
    lock (the library's, so notification ids commit in order). A campaign's turn
    (tracker/turns.py) is a session lock taken before either, outside the transaction."""

    views: PostgresDatabase | None = None

    def share(self, views: PostgresDatabase) -> None:
        # The composite type the library's insert statement sends, known to this connection.
        self.datastore.register_type_adapters()
        for info in self.datastore.psycopg_type_adapters.values():
            register_composite(info, views.conn)
        self.views = views

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any
                      ) -> Sequence[int] | None:
        then = kwargs.pop("then", None)
        conn = None if self.views is None else self.views.conn
        if (then is None or conn is None or not stored_events
                or conn.info.transaction_status != TransactionStatus.IDLE):
            # No fold to join, or the read models' connection still inside a read's implicit
            # transaction, where `transaction()` would only make a savepoint that nothing
            # commits: the library appends on its own connection, and the read models catch
            # up after (`Trek._finish`).
            appended: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
            return appended
        assert self.views is not None
        try:
            with self.views.transaction() as cursor, conn.cursor(row_factory=dict_row) as curs:
                # The table lock, NOTIFY, and the insert returning the notification ids.
                self._insert_stored_events(curs, stored_events)
                ids = self._fetch_ids_after_insert_events(curs, stored_events)
                assert ids is not None
                then(cursor, [(nid, s.originator_id, s.originator_version, s.topic, s.state)
                              for nid, s in zip(ids, stored_events, strict=True)])
        except psycopg.IntegrityError as error:
            # Another command took the version first: the caller decides again.
            raise IntegrityError(error) from error
        return ids

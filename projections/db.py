"""A thin, shared SQL layer over sqlite3 and psycopg for the read-model tables."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol
from urllib.parse import quote

Row = tuple[Any, ...]

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS trek_meta (
        key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS trek_view_tracking (
        name TEXT PRIMARY KEY, notification_id BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS trek_view_campaigns (
        campaign_id TEXT PRIMARY KEY, slug TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
        ruleset TEXT NOT NULL, seed BIGINT NOT NULL, map_json TEXT, events BIGINT NOT NULL,
        last_hash TEXT NOT NULL, session BIGINT, sessions BIGINT NOT NULL,
        cancelled_json TEXT NOT NULL)""",
    # Each campaign's state (the whole fold, its ruleset's slices and any encounter included)
    # as one JSON document, and beside it its `trek status` document as last folded
    # (projections/stored_status.py): the number of events both cover and a stamp of the code
    # that made the document. One row, written by one statement each fold.
    """CREATE TABLE IF NOT EXISTS trek_view_state (
        campaign_id TEXT PRIMARY KEY, game_json TEXT NOT NULL, events BIGINT, code TEXT,
        status_json TEXT)""",
    # The travel log's index: what the fold knows of each event beyond the event itself (the
    # day it left the party on, its session, the reversal that cancelled it) and its type to
    # filter by. The event's own JSON is read from the event store, never copied here.
    """CREATE TABLE IF NOT EXISTS trek_view_entries (
        campaign_id TEXT NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL, day BIGINT NOT NULL,
        session BIGINT, cancelled_by BIGINT, PRIMARY KEY (campaign_id, seq))""",
]

# Each event a reversal cancelled (cancels 1) or restored (0), kept by key for the read side and
# `trek replay --verify` (projections/cancellations.py); recording reads the reversals themselves.
CANCELLATIONS = "trek_view_cancellations"
SCHEMA += [
    f"""CREATE TABLE IF NOT EXISTS {CANCELLATIONS} (
        campaign_id TEXT NOT NULL, seq BIGINT NOT NULL, reversal BIGINT NOT NULL,
        cancels SMALLINT NOT NULL, PRIMARY KEY (campaign_id, seq, reversal))""",
    f"""CREATE INDEX IF NOT EXISTS {CANCELLATIONS}_by_reversal
        ON {CANCELLATIONS} (campaign_id, reversal)""",
]

# The head of each campaign's hash chain (the newest event's seq and hash) as folded. Not a
# read model: a rebuild leaves it, and it only moves forward, so an edit to the newest event or
# its deletion is still noticed after `trek replay`.
CHAIN_HEADS = """CREATE TABLE IF NOT EXISTS trek_chain_heads (
        campaign_id TEXT PRIMARY KEY, seq BIGINT NOT NULL, hash TEXT NOT NULL)"""
SCHEMA.append(CHAIN_HEADS)
VIEW_TABLES = ("trek_view_campaigns", "trek_view_state", "trek_view_entries", CANCELLATIONS)
# The columns `trek_view_state` gained when the status document moved into its row (from its
# own table, `OLD_STATUS_TABLE`, in stores marked up to views-4): `keep_status_with_state`.
STATUS_COLUMNS = (("events", "BIGINT"), ("code", "TEXT"), ("status_json", "TEXT"))
OLD_STATUS_TABLE = "trek_view_status"
# Read-model tables of earlier releases: release 0.1's, replaced by trek_view_state, and the
# log that copied every event (release 0.2), replaced by trek_view_entries. A store that still
# has them has its read models rebuilt on the first command that records (`upgrade_schema`).
OLD_VIEW_TABLES = ("trek_view_position", "trek_view_supplies", "trek_view_characters",
                   "trek_view_conveyances", "trek_view_log")


class Cursor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

    def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> Any: ...

    def fetchall(self) -> list[Row]: ...


class Database(Protocol):
    """Where the read models live: the same database as the events."""

    def transaction(self) -> Any:
        """A context manager giving a cursor; commits on success, rolls back on error."""

    def reading(self) -> Any:
        """A context manager giving a cursor that sees one consistent state and writes nothing."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    def has_table(self, name: str) -> bool: ...

    def has_column(self, table: str, column: str) -> bool: ...

    def bulk(self) -> Any:
        """A context manager for many transactions in a row that may trade durability for speed
        (a rebuild: anything lost to a crash is folded again)."""

    def close(self) -> None: ...


# The read-model schema this release writes, kept in `trek_meta` under 'schema' once a store's
# tables (its events table and the index of reversals included) are all this release's. A
# store carrying it is opened without looking its tables up one by one (`SQLiteDatabase.current`).
SCHEMA_MARK = "views-5"
# The tables a store carrying the mark has, besides its events table.
MARKED_TABLES = frozenset({*VIEW_TABLES, "trek_chain_heads", "trek_meta"})


class SQLiteDatabase:
    # True when the store's schema mark says every table and index this release uses exists.
    current = False

    def __init__(self, path: str, *, read_only: bool = False, frozen: bool = False,
                 timeout: int = 30) -> None:
        if path == ":memory:":
            self.conn = sqlite3.connect(":memory:", isolation_level=None,
                                        check_same_thread=False)
        else:
            # Quoted, so a # or ? in the path is part of the file name, not URI syntax. A
            # read-only store is opened with writes switched off rather than mode=ro: a mode=ro
            # connection that closes last leaves the WAL's -wal and -shm files behind.
            # `frozen`: a file on a read-only mount or of another user, which cannot change
            # while it is read, opened without locks or an -shm file.
            suffix = "?immutable=1" if frozen else ""
            self.conn = sqlite3.connect(f"file:{quote(path)}{suffix}", uri=True,
                                        isolation_level=None, timeout=timeout,
                                        check_same_thread=False)
        # A writer waits `timeout` seconds for the lock: sqlite3.connect set that busy timeout.
        if read_only:
            self.conn.execute("PRAGMA query_only = ON")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Cursor]:
        cursor = self.conn.cursor()
        # IMMEDIATE takes the write lock up front, so two processes never fold the same events.
        cursor.execute("BEGIN IMMEDIATE")
        try:
            yield cursor
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        cursor.execute("COMMIT")

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Cursor]:
        cursor = self.conn.cursor()
        cursor.execute("BEGIN")
        try:
            yield cursor
        finally:
            cursor.execute("ROLLBACK")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return self.conn.execute(sql, tuple(params)).fetchall()

    def has_table(self, name: str) -> bool:
        # The schema mark vouches for the read models' tables and the events table only;
        # tables of their own (seats, requests, pictures) are made on first use and looked up.
        if self.current and (name in MARKED_TABLES or not name.startswith("trek_")):
            return True
        return bool(self.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)))

    def has_column(self, table: str, column: str) -> bool:
        # The schema mark vouches for the columns this release added to its tables.
        if self.current and table == "trek_view_state" and column in dict(STATUS_COLUMNS):
            return True
        return bool(self.query(_SQLITE_COLUMN, (table, column)))

    @contextmanager
    def bulk(self) -> Iterator[None]:
        # In WAL mode, NORMAL still never corrupts the file; it only skips the sync at each
        # commit. Rows deleted to be rebuilt need not be zeroed on disk (secure_delete): the
        # events they were made from are still there.
        saved = {name: int(self.query(f"PRAGMA {name}")[0][0])
                 for name in ("synchronous", "secure_delete")}
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute("PRAGMA secure_delete = OFF")
        try:
            yield
        finally:
            for name, value in saved.items():
                self.conn.execute(f"PRAGMA {name} = {value}")

    def close(self) -> None:
        self.conn.close()


def insert_rows(cursor: Cursor, table: str, columns: Sequence[str],
                rows: Sequence[Sequence[Any]]) -> None:
    """Insert many rows at once: PostgreSQL's COPY where the cursor has it (a rebuild writes a
    log entry per event, and row-by-row inserts over the wire are most of its time there),
    else one prepared INSERT run for every row."""
    copy_rows = getattr(cursor, "copy_rows", None)
    if copy_rows is not None:
        copy_rows(table, columns, rows)
        return
    cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) "
                       f"VALUES ({', '.join('?' for _ in columns)})", rows)


class _PsycopgCursor:
    """Lets the shared SQL (written with ?) run on psycopg (which wants %s)."""

    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor

    def copy_rows(self, table: str, columns: Sequence[str],
                  rows: Sequence[Sequence[Any]]) -> None:
        with self.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.cursor.execute(sql.replace("?", "%s"), tuple(params))

    def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> Any:
        return self.cursor.executemany(sql.replace("?", "%s"), [tuple(p) for p in params])

    def fetchall(self) -> list[Row]:
        return list(self.cursor.fetchall())


class PostgresDatabase:
    def has_table(self, name: str) -> bool:
        rows = self.query("SELECT to_regclass(?)", (name,))
        return bool(rows and rows[0][0] is not None)

    def has_column(self, table: str, column: str) -> bool:
        return bool(self.query(_POSTGRES_COLUMN, (table, column)))

    def __init__(self, conninfo: str) -> None:
        import psycopg

        self.conn = psycopg.connect(conninfo, autocommit=False, connect_timeout=10)

    @contextmanager
    def transaction(self) -> Iterator[_PsycopgCursor]:
        with self.conn.transaction(), self.conn.cursor() as cursor:
            wrapped = _PsycopgCursor(cursor)
            # One writer of the read models at a time; readers are never blocked.
            wrapped.execute("SELECT pg_advisory_xact_lock(7265727)")
            yield wrapped

    @contextmanager
    def reading(self) -> Iterator[_PsycopgCursor]:
        try:
            with self.conn.cursor() as cursor:
                yield _PsycopgCursor(cursor)
        finally:
            self.conn.rollback()

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self.conn.cursor() as cursor:
            cursor.execute(sql.replace("?", "%s"), tuple(params))
            rows = list(cursor.fetchall())
        self.conn.commit()
        return rows

    @contextmanager
    def bulk(self) -> Iterator[None]:
        yield

    def close(self) -> None:
        self.conn.close()


def has_current_schema(db: Database) -> bool:
    """Whether the read models are in this release's tables (else they are folded anew)."""
    return db.has_table("trek_view_entries") and db.has_table(CANCELLATIONS)


def upgrade_schema(db: Database, tracking_name: str) -> bool:
    """Bring an older store's read-model tables to this release's; True if it did.

    The old tables are dropped and the tracking position reset, so the next catch-up folds
    every event into the new ones (read models can always be rebuilt from the log).
    """
    if has_current_schema(db):
        return False
    with db.transaction() as cursor:
        for statement in SCHEMA:
            cursor.execute(statement)
        for table in (*OLD_VIEW_TABLES, *VIEW_TABLES):
            cursor.execute(f"DELETE FROM {table}" if table in VIEW_TABLES
                           else f"DROP TABLE IF EXISTS {table}")
        cursor.execute("DELETE FROM trek_view_tracking WHERE name = ?", (tracking_name,))
    return True


# Whether a table has a column, asked of each kind of database.
_SQLITE_COLUMN = "SELECT 1 FROM pragma_table_info(?) WHERE name = ?"
_POSTGRES_COLUMN = ("SELECT 1 FROM information_schema.columns WHERE table_schema = "
                    "current_schema() AND table_name = ? AND column_name = ?")


def keep_status_with_state(db: Database) -> bool:
    """Give an earlier release's `trek_view_state` the status document's columns and drop the
    table that held the documents; True if it did.

    The documents are not carried over: each names the code that made it, which is not this
    release's, so none would be served; each campaign's is written again by its next fold, and
    until then `trek status` works it out as it does without one.
    """
    sql = _SQLITE_COLUMN if isinstance(db, SQLiteDatabase) else _POSTGRES_COLUMN
    with db.transaction() as cursor:
        # Asked again under the write lock, so two processes upgrading at once add them once.
        cursor.execute(sql, ("trek_view_state", "status_json"))
        if cursor.fetchall():
            return False
        for column, kind in STATUS_COLUMNS:
            cursor.execute(f"ALTER TABLE trek_view_state ADD COLUMN {column} {kind}")
        cursor.execute(f"DROP TABLE IF EXISTS {OLD_STATUS_TABLE}")
    return True


def create_schema(db: Database) -> None:
    with db.transaction() as cursor:
        for statement in SCHEMA:
            cursor.execute(statement)
        cursor.execute(
            "INSERT INTO trek_meta (key, value) VALUES ('format', 'trek-1') "
            "ON CONFLICT (key) DO NOTHING"
        )


def mark_schema(db: Database) -> None:
    """Note in the store that its tables are all this release's (`SCHEMA_MARK`)."""
    with db.transaction() as cursor:
        cursor.execute("INSERT INTO trek_meta (key, value) VALUES ('schema', ?) "
                       "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (SCHEMA_MARK,))

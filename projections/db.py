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
    """CREATE TABLE IF NOT EXISTS trek_view_position (
        campaign_id TEXT PRIMARY KEY, day BIGINT NOT NULL, day_open INTEGER NOT NULL,
        x BIGINT NOT NULL, y BIGINT NOT NULL, flying INTEGER NOT NULL,
        movement_json TEXT NOT NULL, day_json TEXT NOT NULL, transit_json TEXT,
        rules_json TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS trek_view_supplies (
        campaign_id TEXT NOT NULL, kind TEXT NOT NULL, amount BIGINT NOT NULL,
        PRIMARY KEY (campaign_id, kind))""",
    """CREATE TABLE IF NOT EXISTS trek_view_characters (
        campaign_id TEXT NOT NULL, name TEXT NOT NULL, ord INTEGER NOT NULL,
        health BIGINT NOT NULL, health_max BIGINT NOT NULL, energy BIGINT NOT NULL,
        energy_max BIGINT NOT NULL, with_party INTEGER NOT NULL, x BIGINT, y BIGINT,
        conveyance TEXT, role TEXT, sheet_json TEXT NOT NULL,
        PRIMARY KEY (campaign_id, name))""",
    """CREATE TABLE IF NOT EXISTS trek_view_conveyances (
        campaign_id TEXT NOT NULL, name TEXT NOT NULL, ord INTEGER NOT NULL,
        kind TEXT NOT NULL, attribute TEXT, level BIGINT NOT NULL, base_level BIGINT NOT NULL,
        pending_strain BIGINT NOT NULL, state TEXT NOT NULL, with_party INTEGER NOT NULL,
        x BIGINT, y BIGINT, miles BIGINT,
        PRIMARY KEY (campaign_id, name))""",
    """CREATE TABLE IF NOT EXISTS trek_view_log (
        campaign_id TEXT NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL, day BIGINT NOT NULL,
        session BIGINT, gm TEXT NOT NULL, recorded_at TEXT NOT NULL, cancelled_by BIGINT,
        event_json TEXT NOT NULL, PRIMARY KEY (campaign_id, seq))""",
]

VIEW_TABLES = (
    "trek_view_campaigns", "trek_view_position", "trek_view_supplies",
    "trek_view_characters", "trek_view_conveyances", "trek_view_log",
)


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

    def bulk(self) -> Any:
        """A context manager for many transactions in a row that may trade durability for speed
        (a rebuild: anything lost to a crash is folded again)."""

    def close(self) -> None: ...


class SQLiteDatabase:
    def __init__(self, path: str, *, read_only: bool = False) -> None:
        if path == ":memory:":
            self.conn = sqlite3.connect(":memory:", isolation_level=None,
                                        check_same_thread=False)
        else:
            # Quoted, so a # or ? in the path is part of the file name, not URI syntax. A
            # read-only store is opened with writes switched off rather than mode=ro: a mode=ro
            # connection that closes last leaves the WAL's -wal and -shm files behind.
            self.conn = sqlite3.connect(f"file:{quote(path)}", uri=True, isolation_level=None,
                                        timeout=30, check_same_thread=False)
        if read_only:
            self.conn.execute("PRAGMA query_only = ON")
        else:
            self.conn.execute("PRAGMA busy_timeout = 30000")

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
        return bool(self.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)))

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


class _PsycopgCursor:
    """Lets the shared SQL (written with ?) run on psycopg (which wants %s)."""

    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.cursor.execute(sql.replace("?", "%s"), tuple(params))

    def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> Any:
        return self.cursor.executemany(sql.replace("?", "%s"), [tuple(p) for p in params])

    def fetchall(self) -> list[Row]:
        return list(self.cursor.fetchall())


class PostgresDatabase:
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


def create_schema(db: Database) -> None:
    with db.transaction() as cursor:
        for statement in SCHEMA:
            cursor.execute(statement)
        cursor.execute(
            "INSERT INTO trek_meta (key, value) VALUES ('format', 'trek-1') "
            "ON CONFLICT (key) DO NOTHING"
        )

"""Where a Trek store lives (SQLite file, PostgreSQL URL, or memory) and whether it is one."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple
from urllib.parse import parse_qs, quote, unquote, urlsplit

from eventsourcing.persistence import IntegrityError, OperationalError, RecordConflictError

from domain.errors import TrackerError

STORE_FORMAT = "trek-1"
# The options a PostgreSQL URL may carry after `?`.
_QUERY_KEYS = frozenset({"password", "sslmode", "connect_timeout", "application_name"})
# A URL of some other kind of database (mysql://, sqlite:///): its scheme.
_OTHER_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")


def _userinfo(url: str) -> tuple[str, str] | None:
    """The user and password fields of a URL's userinfo as the URL spells them (None: the URL
    has no password there). Read without parsing, so a malformed URL's is found too."""
    rest = url.split("://", 1)[-1]
    netloc = rest.split("/", 1)[0] if "@" in rest.split("/", 1)[0] else rest
    if "@" not in netloc:
        return None
    user, sep, password = netloc.rpartition("@")[0].partition(":")
    return (user, password) if sep and password else None


def mask_password(text: str, url: str, password: str | None = None) -> str:
    """`text` with the password field of `url` masked wherever the URL's userinfo (or a
    conninfo's `password=`) appears in it, as the URL spells it or decoded; any other
    characters of `text` are left as they are, even where they spell the password."""
    found = _userinfo(url)
    if found is not None:
        user, field = found
        for shown_user, shown in {(user, field), (unquote(user), unquote(field))}:
            text = text.replace(f"{shown_user}:{shown}@", f"{shown_user}:***@")
    query = parse_qs(url.partition("?")[2].partition("#")[0], keep_blank_values=True)
    given = {password} if password else set()
    for value in {*given, *query.get("password", ())} - {""}:
        for written in {value, quote(value, safe="")}:
            for quote_mark in ("", "'"):
                text = text.replace(f"password={quote_mark}{written}{quote_mark}",
                                    f"password={quote_mark}***{quote_mark}")
    return text


class StoreError(TrackerError):
    """The store is missing, unreachable or not a Trek store; nothing was changed."""


class StoreKind(StrEnum):
    SQLITE = "sqlite"
    POSTGRES = "postgres"
    MEMORY = "memory"


class Location(NamedTuple):
    """Where a store is: its kind, its target (a path or URL) and the password apart."""

    kind: StoreKind
    target: str
    password: str | None = None

    def __repr__(self) -> str:
        # The password never reaches a log or a traceback through a location shown whole.
        return f"Location({self.kind.value}, {self.display!r})"

    @classmethod
    def parse(cls, text: str) -> Location:
        if text.startswith(("postgresql://", "postgres://")):
            return cls._postgres(text)
        if not text.strip():
            raise StoreError("the store path is empty; give --db a file path such as trek.db "
                             "or a postgresql:// URL")
        if text == ":memory:" or text.startswith("memory:"):
            return cls(StoreKind.MEMORY, text)
        scheme = _OTHER_URL.match(text)
        if scheme:
            # Only the scheme is named: the rest of a URL may hold a password.
            raise StoreError(f"Trek keeps a store in an SQLite file or in PostgreSQL, not at a "
                             f"{scheme.group(1)}:// URL; give --db a file path such as trek.db "
                             "or a postgresql:// URL")
        return cls(StoreKind.SQLITE, text)

    @classmethod
    def _postgres(cls, text: str) -> Location:
        shape = "a PostgreSQL store is written postgresql://USER:PASSWORD@HOST:PORT/DBNAME"
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError as error:
            reason = mask_password(str(error).split(" as ")[0], text).lower()
            raise StoreError(f"the PostgreSQL URL is malformed ({reason}); {shape}") from None
        if port is not None and not 1 <= port <= 65535:
            raise StoreError(f"the PostgreSQL port {port} is not 1 to 65535; {shape}")
        if not parts.hostname or not parts.path.strip("/"):
            raise StoreError(shape)
        query = parse_qs(parts.query, keep_blank_values=True)
        unknown = sorted(set(query) - _QUERY_KEYS)
        if unknown:
            raise StoreError(f"the PostgreSQL URL has an option Trek does not pass on "
                             f"({unknown[0]}); it takes {', '.join(sorted(_QUERY_KEYS))}")
        given = query.get("password") or [""]
        password = unquote(parts.password) if parts.password else given[0]
        return cls(StoreKind.POSTGRES, text, password or None)

    @property
    def display(self) -> str:
        """The location as it may be shown: a PostgreSQL password is never printed."""
        if self.kind is not StoreKind.POSTGRES:
            return self.target
        parts = urlsplit(self.target)
        user = parts.username or ""
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        auth = f"{user}:***@" if self.password else (f"{user}@" if user else "")
        return f"postgresql://{auth}{host}{port}{parts.path}"

    def scrub(self, text: str) -> str:
        """Mask the password before a message is shown: the URL itself is shown as its
        `display`, and its password field wherever else the message repeats it. Nothing else
        in the message changes (a password `1` leaves `127.0.0.1:1` as it is)."""
        if self.kind is not StoreKind.POSTGRES:
            return text
        text = text.replace(self.target, self.display)
        return mask_password(text, self.target, self.password)

    def eventsourcing_env(self, *, create: bool, frozen: bool = False) -> dict[str, str]:
        """`frozen`: an SQLite file that cannot change here (a read-only folder or mount),
        opened without the locks and the -shm file that reading would otherwise need."""
        env = {"CREATE_TABLE": "y" if create else "n"}
        if self.kind is StoreKind.SQLITE:
            name = f"file:{quote(self.target)}?immutable=1" if frozen else self.target
            env.update(PERSISTENCE_MODULE="eventsourcing.sqlite", SQLITE_DBNAME=name,
                       SQLITE_LOCK_TIMEOUT=str(lock_timeout()))
        elif self.kind is StoreKind.POSTGRES:
            parts = urlsplit(self.target)
            env.update(
                PERSISTENCE_MODULE="eventsourcing.postgres",
                POSTGRES_DBNAME=parts.path.strip("/"),
                POSTGRES_HOST=parts.hostname or "localhost",
                POSTGRES_PORT=str(parts.port or 5432),
                POSTGRES_USER=unquote(parts.username or ""),
                POSTGRES_PASSWORD=self.password or "",
                POSTGRES_CONNECT_TIMEOUT="10",
                POSTGRES_LOCK_TIMEOUT="30",
            )
        else:
            env.update(PERSISTENCE_MODULE="eventsourcing.popo")
        return env


def lock_timeout() -> int:
    """Seconds a command waits for another one that holds the store (TREK_LOCK_TIMEOUT)."""
    try:
        return max(1, int(os.environ.get("TREK_LOCK_TIMEOUT", "30")))
    except ValueError:
        return 30


def read_only_here(path: str) -> bool:
    """True when this process cannot write the store file or the folder its journal goes in
    (a read-only mount, or a file of another user)."""
    file = Path(path)
    return not (os.access(file, os.W_OK) and os.access(file.parent, os.W_OK))


def _is_sqlite_file(file: Path) -> bool:
    try:
        with file.open("rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _empty_leftover(path: str, *, create: bool) -> bool:
    """A zero-byte file, or an SQLite file with no tables: what a `trek init` stopped before its
    first write leaves, with nothing anyone could lose. `init` makes the store there."""
    if create:
        return False
    raise StoreError(f"there is no Trek store at {path} yet (an empty file, perhaps left by "
                     "an interrupted `trek init`); `trek init NAME` makes one there")


# What SQLite calls a file it cannot read as a database: a page that makes no sense (zeroed,
# overwritten), a file cut short, a header that is not SQLite's.
_DAMAGE = ("SQLITE_CORRUPT", "SQLITE_NOTADB")


def sqlite_damage(error: BaseException) -> str | None:
    """What SQLite said when it found its file damaged, through whatever wrapped the error
    (the event store's own DatabaseError, say); None for any other error."""
    seen: BaseException | None = error
    for _ in range(8):
        if seen is None:
            return None
        if isinstance(seen, sqlite3.DatabaseError) and (
                type(seen) is sqlite3.DatabaseError
                or str(getattr(seen, "sqlite_errorname", "")).startswith(_DAMAGE)):
            return str(seen)
        seen = seen.__cause__ or seen.__context__
    return None


def damaged_store(path: str, detail: str) -> StoreError:
    """The sentence for a store file SQLite cannot read: a damaged store, not an error of the
    command that met it."""
    return StoreError(f"the store {path} is damaged: SQLite cannot read all of it ({detail}); "
                      "restore it from a backup")


def _names_trek_tables(file: Path) -> bool:
    """Whether an SQLite file's first page (where its list of tables starts) names Trek's own
    settings table: a store SQLite can no longer read is still known for Trek's by it."""
    try:
        with file.open("rb") as handle:
            head = handle.read(100)
            size = int.from_bytes(head[16:18], "big")
            page = head + handle.read((65536 if size == 1 else size) - 100)
    except OSError:
        return False
    return b"trek_meta" in page


def check_sqlite_store(path: str, *, create: bool) -> bool:
    """True when `path` is a Trek store, False when nothing is there yet (and `create` allows).

    A file that is not a Trek store is refused after looking at it read-only, so it is left
    exactly as it was.
    """
    return inspect_sqlite_store(path, create=create)[0]


def inspect_sqlite_store(path: str, *, create: bool) -> tuple[bool, str | None]:
    """As `check_sqlite_store`, with the store's schema mark (`trek_meta` key 'schema': the
    read-model schema it is in, None when an earlier release made it), read in one query."""
    file = Path(path)
    if not file.exists():
        if not create:
            raise StoreError(
                f"there is no Trek store at {path}; create one with `trek init NAME`"
            )
        if not file.parent.exists():
            raise StoreError(f"the folder {file.parent} does not exist; create it first")
        return False, None
    if file.is_dir():
        raise StoreError(f"{path} is a folder, not a Trek store; give a file path with --db")
    if file.stat().st_size == 0:
        return _empty_leftover(path, create=create), None
    # Without a -wal file beside it, everything the file holds is in the file itself, so it is
    # looked at as immutable: no lock, and no -wal or -shm file made beside another program's
    # database. With one, it is read as any reader would (its sidecars exist already).
    no_wal = not Path(f"{path}-wal").exists()
    frozen = "&immutable=1" if read_only_here(path) or no_wal else ""
    marks: dict[str, str] = {}
    try:
        conn = sqlite3.connect(f"file:{quote(str(file))}?mode=ro{frozen}", uri=True,
                               timeout=lock_timeout())
        try:
            try:
                marks = dict(conn.execute("SELECT key, value FROM trek_meta "
                                          "WHERE key IN ('format', 'schema')").fetchall())
            except sqlite3.OperationalError as error:
                # No trek_meta table: an empty database is a leftover of an interrupted init.
                if ("no such table" in str(error)
                        and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0):
                    return _empty_leftover(path, create=create), None
                raise
        finally:
            conn.close()
        row = (marks["format"],) if "format" in marks else None
    except sqlite3.OperationalError as error:
        if not _is_sqlite_file(file):
            row = None
        elif "locked" in str(error) or "busy" in str(error):
            raise StoreError(f"the store {path} is busy: another program holds it; try again "
                             "in a moment") from None
        elif "no such table" in str(error):
            row = None
        else:
            raise StoreError(f"the store {path} cannot be read here ({error})") from None
    except sqlite3.Error as error:
        damage = sqlite_damage(error)
        if damage is not None and _names_trek_tables(file):
            raise StoreError(f"the store {path} is damaged: SQLite cannot read all of it "
                             f"({damage}); it was left untouched: restore it from a backup"
                             ) from None
        row = None
    if row is None or row[0] != STORE_FORMAT:
        raise StoreError(
            f"{path} is not a Trek store; it was left untouched (give another --db path)"
        )
    return True, marks.get("schema")


def check_postgres_store(location: Location, *, create: bool) -> bool:
    """True when the database holds a Trek store, False when it is empty (and `create` allows)."""
    import psycopg

    try:
        with psycopg.connect(location.target, connect_timeout=10) as conn:
            has_meta = conn.execute("SELECT to_regclass('trek_meta')").fetchone()
            if has_meta is not None and has_meta[0] is not None:
                row = conn.execute("SELECT value FROM trek_meta WHERE key = 'format'").fetchone()
                if row is not None and row[0] == STORE_FORMAT:
                    return True
            others = conn.execute(
                "SELECT count(*) FROM information_schema.tables "
                "WHERE table_schema = current_schema()").fetchone()
    except psycopg.Error as error:
        raise StoreError(location.scrub(
            f"cannot reach the PostgreSQL store {location.display}: "
            f"{str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__}"
        )) from None
    if not create:
        raise StoreError(
            f"the database {location.display} holds no Trek store; create one with `trek init NAME`"
        )
    if others and others[0]:
        raise StoreError(
            f"the database {location.display} already holds other tables; "
            "give Trek an empty database"
        )
    return False


@contextmanager
def store_errors(location: Location) -> Iterator[None]:
    """A busy or failing store told as one sentence; a conflicting append passes through (the
    caller decides again)."""
    try:
        yield
    except (RecordConflictError, IntegrityError):
        raise
    except (OperationalError, sqlite3.OperationalError) as error:
        # The event store's library wraps SQLite's error; the read models' connection, on
        # which an SQLite store's events are appended too, raises SQLite's own.
        if "locked" in str(error) or "busy" in str(error):
            raise StoreError(
                f"the store {location.display} is busy: another program held it for "
                f"{lock_timeout()}s; try the command again"
            ) from None
        damage = sqlite_damage(error) if isinstance(error, sqlite3.Error) else None
        if damage is not None and location.kind is StoreKind.SQLITE:
            raise damaged_store(location.display, damage) from None
        raise StoreError(location.scrub(
            f"the store {location.display} could not be written: {error}")) from None
    except Exception as error:
        damage = sqlite_damage(error)
        if damage is None or location.kind is not StoreKind.SQLITE:
            raise
        raise damaged_store(location.display, damage) from None

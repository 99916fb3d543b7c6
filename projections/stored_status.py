"""Each campaign's `trek status` document, kept beside its read models, and a reader that needs
nothing but the standard library.

The document is written in the row of the state it was worked out from (same statement, same
fold), together with the number of events it covers and a stamp of the code that made it. The
reader serves it only when all three still hold: the store is in Trek's format, the campaign's
log has no event past that number, and the code that would work it out now is the code that
did. Anything else (a memory store, a campaign to choose, read models behind the log, another
release, a lock, a server that does not answer at once) returns None, and the caller takes the
ordinary path, which folds and checks.

This module imports only the standard library for an SQLite store, and the PostgreSQL driver
(psycopg) only for a PostgreSQL one, so `trek status` can read a campaign without loading the
event-sourcing library, the rulesets or any model.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

_T = TypeVar("_T")

# Where the documents are kept: each campaign's row of its folded state (projections/db.py),
# columns events, code and status_json.
STATE_TABLE = "trek_view_state"

# The packages whose code decides what a status document says.
_PACKAGES = ("domain", "projections", "tracker")
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STORE_FORMAT = "trek-1"
# A PostgreSQL store's event table: the event store names it after the application ("Trek").
_PG_EVENTS = "trek_events"
# The options a PostgreSQL URL may carry (as tracker/stores.py accepts them); a URL with any
# other is left to the ordinary path, which refuses it in a sentence.
_PG_OPTIONS = frozenset({"password", "sslmode", "connect_timeout", "application_name"})
# Seconds to wait for the server before leaving it to the ordinary path (which waits longer
# and says what is wrong).
_PG_CONNECT_TIMEOUT = 2
_stamp: str | None = None
# The store setting (a `trek_meta` row) naming the campaign that commands naming none use,
# as `trek campaigns use` sets it.
IN_USE_KEY = "campaign_in_use"
# The stamp of code whose sources are not there to digest: never served.
UNKNOWN_CODE = "unknown"


def code_stamp() -> str:
    """What tells the code that works out a status document from other code: any change to
    its source files (an upgrade, an edit) makes documents written before it unusable here.

    Each file counts by its path, size and modification time, the very marks by which Python
    itself decides that the bytecode it runs is its source's (a `.pyc` is rewritten when
    either changes). Reading and hashing every source again cost a command about 7 ms."""
    global _stamp
    if _stamp is None:
        _stamp = source_stamp(_ROOT, _PACKAGES)
    return _stamp


def source_stamp(root: str, packages: tuple[str, ...]) -> str:
    """The stamp of the `.py` files under `root`'s `packages` (UNKNOWN_CODE when there are
    none: installed without its sources, the code cannot be told apart from another's)."""
    digest = hashlib.blake2b(digest_size=16)
    found = 0
    for package in packages:
        for folder, subfolders, files in os.walk(os.path.join(root, package)):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    mark = os.stat(path)
                    digest.update(f"{os.path.relpath(path, root)}\0{mark.st_size}\0"
                                  f"{mark.st_mtime_ns}\0".encode())
                    found += 1
    return digest.hexdigest() if found else UNKNOWN_CODE


def status_text(document: Mapping[str, Any]) -> str:
    """A status document as it is kept (`projections.views.save_view` writes it)."""
    return json.dumps(document, ensure_ascii=False)


def read_status(db: str, campaign: str | None) -> dict[str, Any] | None:
    """The kept status document of `campaign` (or of the store's only campaign) in the SQLite
    or PostgreSQL store `db`, when it is exactly what the ordinary path would work out; else
    None."""
    if db.startswith(("postgresql://", "postgres://")):
        return _read_postgres(db, campaign)
    conn = open_sqlite(db)
    if conn is None:
        return None
    try:
        kept = in_one_read(conn, lambda read: kept_status(read, campaign))
    finally:
        conn.close()
    return None if kept is None else kept.document


def open_sqlite(db: str) -> sqlite3.Connection | None:
    """A connection that only reads the SQLite store file `db`, when the ordinary path would
    open it to write (else None: that path says why it cannot)."""
    if (not db.strip() or db.startswith("memory:")
            or db == ":memory:" or not os.path.isfile(db)
            or not (os.access(db, os.W_OK) and os.access(os.path.dirname(db) or ".", os.W_OK))):
        return None
    from urllib.parse import quote

    try:
        # Opened as the ordinary path opens a store it only reads: writes switched off, and
        # never mode=ro (which leaves the WAL's files behind when it closes last).
        conn = sqlite3.connect(f"file:{quote(db)}", uri=True, isolation_level=None,
                               timeout=1)
    except sqlite3.Error:
        return None
    try:
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error:
        conn.close()
        return None
    return conn


def in_one_read(conn: sqlite3.Connection, read: Callable[[sqlite3.Connection], _T]) -> _T | None:
    """What `read` finds in one read transaction (one snapshot of the store), or None when the
    store cannot say (a lock, a table or value not as Trek writes them): the ordinary path
    then reads it and says why."""
    try:
        conn.execute("BEGIN")
        try:
            return read(conn)
        finally:
            conn.execute("COMMIT")
    except (sqlite3.Error, ValueError, TypeError, KeyError):
        return None


class Kept(NamedTuple):
    """A campaign's kept status document, current: the campaign's id and the events it covers."""

    campaign_id: str
    events: int
    document: dict[str, Any]


def kept_status(conn: sqlite3.Connection, campaign: str | None) -> Kept | None:
    """The kept status of `campaign` (or the store's only one) on an SQLite connection, when it
    covers every event the log holds and this code made it; else None."""
    tables = {name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"trek_meta", "trek_view_campaigns", STATE_TABLE, "stored_events"} <= tables:
        return None
    row = conn.execute("SELECT value FROM trek_meta WHERE key = 'format'").fetchone()
    if row is None or row[0] != _STORE_FORMAT:
        return None
    if campaign is None:
        # The campaign `trek campaigns use` chose, when the store names one.
        chosen = conn.execute("SELECT value FROM trek_meta WHERE key = ?",
                              (IN_USE_KEY,)).fetchone()
        campaign = None if chosen is None else str(chosen[0])
    if campaign is None:
        found = conn.execute("SELECT campaign_id FROM trek_view_campaigns LIMIT 2").fetchall()
    else:
        found = conn.execute("SELECT campaign_id FROM trek_view_campaigns WHERE slug = ?",
                             (campaign,)).fetchall()
    if len(found) != 1:
        return None
    campaign_id = str(found[0][0])
    # (An earlier release's store has no such columns until a command records in it: an
    # error, and so None.)
    kept = conn.execute(f"SELECT events, code, status_json FROM {STATE_TABLE} "
                        "WHERE campaign_id = ?", (campaign_id,)).fetchone()
    if kept is None or kept[1] != code_stamp() or kept[1] == UNKNOWN_CODE:
        return None
    # Caught up as the ordinary path decides it: no event of the campaign past those folded
    # (the event store keeps the campaign's id with or without its dashes).
    newest = conn.execute(
        "SELECT MAX(originator_version) FROM stored_events WHERE originator_id IN (?, ?)",
        (campaign_id, campaign_id.replace("-", ""))).fetchone()[0]
    if newest is None or int(newest) != int(kept[0]):
        return None
    document: dict[str, Any] = json.loads(kept[2])
    return Kept(campaign_id, int(kept[0]), document)


# One statement, so one snapshot of the store (and one round trip): the store's format, how
# many campaigns the read models know, and for the campaign asked for (or the only one) its
# kept document with the newest event its log holds. A store without these tables is an error
# here, and so None.
_PG_QUERY = f"""
    SELECT (SELECT value FROM trek_meta WHERE key = 'format'),
           (SELECT value FROM trek_meta WHERE key = '{IN_USE_KEY}'),
           (SELECT count(*) FROM trek_view_campaigns),
           s.events, s.code, s.status_json,
           (SELECT max(e.originator_version) FROM {_PG_EVENTS} e
             WHERE e.originator_id = s.campaign_id::uuid)
    FROM trek_view_campaigns c JOIN {STATE_TABLE} s ON s.campaign_id = c.campaign_id"""
_PG_NAMED = _PG_QUERY + " WHERE c.slug = %s"
# Without a slug: the campaign `trek campaigns use` chose, else every one (served when only
# one is there).
_PG_ONLY = _PG_QUERY + (f" WHERE c.slug = COALESCE((SELECT value FROM trek_meta WHERE key = "
                        f"'{IN_USE_KEY}'), c.slug) LIMIT 2")


def _postgres_url_usable(db: str) -> bool:
    """Whether the ordinary path would take this URL as it stands (else it is left to say why)."""
    from urllib.parse import parse_qs, urlsplit

    try:
        parts = urlsplit(db)
        port = parts.port
    except ValueError:
        return False
    return (bool(parts.hostname) and bool(parts.path.strip("/"))
            and (port is None or 1 <= port <= 65535)
            and set(parse_qs(parts.query, keep_blank_values=True)) <= _PG_OPTIONS)


def _read_postgres(db: str, campaign: str | None) -> dict[str, Any] | None:
    if not _postgres_url_usable(db):
        return None
    try:
        import psycopg
    except ImportError:
        return None
    try:
        # Connected with the URL as the ordinary path connects, but waiting less; the session
        # is read-only from its start (no statement of its own to say so).
        conn = psycopg.connect(db, autocommit=True, connect_timeout=_PG_CONNECT_TIMEOUT,
                               options="-c default_transaction_read_only=on")
    except (psycopg.Error, ValueError):
        return None
    try:
        rows = (conn.execute(_PG_ONLY) if campaign is None
                else conn.execute(_PG_NAMED, (campaign,))).fetchall()
    except psycopg.Error:
        return None
    finally:
        conn.close()
    if len(rows) != 1:
        return None
    fmt, in_use, campaigns, events, code, status_json, newest = rows[0]
    if (fmt != _STORE_FORMAT or (campaign is None and in_use is None and campaigns != 1)
            or code != code_stamp() or code == UNKNOWN_CODE
            or newest is None or int(newest) != int(events)):
        return None
    try:
        document: dict[str, Any] = json.loads(status_json)
    except (TypeError, ValueError):
        return None
    return document


# The store setting (a `trek_meta` row) holding what the kept log needs to know of a ruleset's
# event kinds (projections/kept_log.py), by ruleset; the fold keeps it (`save_kinds`).
KINDS_KEY = "log_kinds:"


def save_kinds(cursor: Any, ruleset: str, kinds: dict[str, Any]) -> None:
    """Keep what the log needs to know of a ruleset's event kinds (`views.kinds_of`), stamped
    with this code."""
    key = KINDS_KEY + ruleset
    document = json.dumps({"code": code_stamp(), **kinds})
    assert document.startswith(kinds_stamp())
    cursor.execute("INSERT INTO trek_meta (key, value) VALUES (?, ?) "
                   "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, document))


def kinds_stamp() -> str:
    """How a ruleset's kept event kinds written by this code begin (`save_kinds`)."""
    return json.dumps({"code": code_stamp()})[:-1]

"""`trek log` read straight from an SQLite store's kept read models, with the standard library.

A log's rows are the log's index (`trek_view_entries`) and each event's stored JSON. Most events'
documents are that JSON less the bookkeeping (`plain_document`). Two kinds need their model: an
event that spells out rolls, and one stored by an older version of its class (upcast when read).
The fold keeps, for each ruleset, the names of its kinds, those with rolls and each class's
version in the store's settings (`save_kinds`), with the stamp of the code that knows them.

This reader shows the log only when the ordinary path would show the same rows: the campaign's
kept status is current (projections/stored_status.py: the store's format, the campaign, no event
past the read models, the same code), the kinds were kept by this code, and the newest event is
the one the kept chain head names (an edited or deleted newest event is left to the ordinary
path, which says the log is damaged). Anything else returns None and the caller takes that path.

An entry of a kind that needs its model is made by `modelled(seq, type, state)`, which the
caller loads on first use; a short log of plain moves never loads a model.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from domain.links import link_hash, stored_bytes, stored_link
from projections.logpages import (
    BATCH,
    LogFilter,
    MissingEvent,
    actor_of,
    kind_of,
    log_entry,
    plain_document,
    stored_pages,
)
from projections.stored_status import (
    KINDS_KEY,
    code_stamp,
    in_one_read,
    kept_status,
    open_sqlite,
)

# A reversal's field naming the events it acts on, by its type.
NAMED_BY = {"EventsCancelled": "cancels", "EventsRestored": "restores"}

# The document of an event of a kind that needs its model: (seq, type, stored state).
Modelled = Callable[[int, str, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class KeptLog:
    """What `trek log` shows, as `Queries.log_stream` gives it: the ruleset, the newest seq,
    the day the campaign is on, every event kind's name (to size a long table's columns), the
    campaign's own GM (`Queries.campaign_gm`), and the entries, read a page at a time as they
    are consumed."""

    campaign: str
    ruleset: str
    events: int
    day: int
    types: list[str]
    gm: str
    entries: Iterator[dict[str, Any]]


class _Reader:
    """The log's index and the event store on one connection, a short query at a time."""

    def __init__(self, conn: sqlite3.Connection, campaign_id: str) -> None:
        self.conn = conn
        self.keys = (campaign_id, campaign_id.replace("-", ""))

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, params).fetchall()

    def states(self, gt: int, lte: int) -> list[tuple[int, str, bytes | str]]:
        return self.query("SELECT originator_version, topic, state FROM stored_events "
                          "WHERE originator_id IN (?, ?) AND originator_version > ? "
                          "AND originator_version <= ?", (*self.keys, gt, lte))


def read_log(db: str, campaign: str | None, selection: LogFilter, *, targets: bool,
             modelled: Callable[[str], Modelled]) -> KeptLog | None:
    """The log of `campaign` (or the store's only one) in the SQLite store `db`, as `selection`
    picks it, when the kept read models say exactly what the ordinary path would; else None.

    `targets`: a reversal's entry holds the documents of the events it names. `modelled(ruleset)`
    gives the maker of the documents that need a model (called only when one is met).
    """
    conn = open_sqlite(db)
    if conn is None:
        return None
    found = in_one_read(conn, lambda read: _current(read, campaign, selection))
    if found is None:
        conn.close()
        return None
    campaign_id, events, document, kinds, gm = found
    ruleset = str(document["ruleset"])
    reader = _Reader(conn, campaign_id)
    rolls = frozenset(kinds["rolls"])
    versions: dict[str, int] = kinds["versions"]
    maker: list[Modelled] = []

    def document_of(seq: int, type_name: str, state: dict[str, Any]) -> dict[str, Any]:
        if "prev_hash" not in state:
            return plain_document(seq, type_name, state)
        version = versions.get(type_name, 1)
        if type_name not in rolls and state.get("class_version", 1) == version:
            document = plain_document(seq, type_name, state)
            if version != 1:
                # Stored by the class as it is now: its own dump, less the version.
                document.pop("class_version", None)
            return document
        if not maker:
            maker.append(modelled(ruleset))
        return maker[0](seq, type_name, state)

    return KeptLog(campaign=str(document["campaign"]), ruleset=ruleset, events=events,
                   day=int(document["day"]), types=list(kinds["types"]), gm=gm,
                   entries=_entries(reader, campaign_id, selection, events, document_of,
                                    targets=targets))


def _current(conn: sqlite3.Connection, campaign: str | None, selection: LogFilter
             ) -> tuple[str, int, dict[str, Any], dict[str, Any], str] | None:
    """The campaign's id, events, status document, kept kinds and own GM, when all are current
    and its newest event is the one its chain head names."""
    kept = kept_status(conn, campaign)
    if kept is None:
        return None
    ruleset = kept.document["ruleset"]
    row = conn.execute("SELECT value FROM trek_meta WHERE key = ?",
                       (KINDS_KEY + str(ruleset),)).fetchone()
    kinds = json.loads(row[0]) if row is not None else None
    if not isinstance(kinds, dict) or kinds.get("code") != code_stamp():
        return None
    if selection.session is not None:
        (sessions,) = conn.execute("SELECT sessions FROM trek_view_campaigns "
                                   "WHERE campaign_id = ?", (kept.campaign_id,)).fetchone()
        if not 1 <= selection.session <= int(sessions):
            # The ordinary path says which sessions there are.
            return None
    # A store without kept heads (an earlier release's) fails here, and is the tracker's.
    head = conn.execute("SELECT seq, hash FROM trek_chain_heads WHERE campaign_id = ?",
                        (kept.campaign_id,)).fetchone()
    newest = conn.execute(
        "SELECT originator_version, topic, state FROM stored_events "
        "WHERE originator_id IN (?, ?) ORDER BY originator_version DESC LIMIT 1",
        (kept.campaign_id, kept.campaign_id.replace("-", ""))).fetchone()
    if head is None or newest is None or int(head[0]) != int(newest[0]):
        return None
    data = stored_bytes(newest[2])
    if link_hash(stored_link(data)[1], kept.campaign_id, int(newest[0]), str(newest[1]),
                 data) != head[1]:
        return None
    first = conn.execute(
        "SELECT state FROM stored_events WHERE originator_id IN (?, ?) "
        "AND originator_version = 1",
        (kept.campaign_id, kept.campaign_id.replace("-", ""))).fetchone()
    # Not an event's JSON (or, failing to parse, not JSON at all: `in_one_read` gives None):
    # damage the ordinary path names.
    started = json.loads(first[0]) if first is not None else None
    if not isinstance(started, dict):
        return None
    return kept.campaign_id, kept.events, kept.document, kinds, actor_of(started)


def _entries(reader: _Reader, campaign_id: str, selection: LogFilter, events: int,
             document_of: Modelled, *, targets: bool) -> Iterator[dict[str, Any]]:
    """The selected entries, a page at a time; the connection is closed when they end (or are
    left)."""
    try:
        for page in stored_pages(reader, campaign_id, selection, before=events + 1,
                                 events=reader.states, last=selection.last, batch=BATCH):
            for row in page:
                state: dict[str, Any] = json.loads(row[5])
                entry = log_entry(row, state, document_of(int(row[0]), row[1], dict(state)))
                key = NAMED_BY.get(entry["type"])
                if targets and key is not None and entry.get(key):
                    entry = {**entry, "targets": [_target(reader, seq, document_of)
                                                  for seq in entry[key]]}
                yield entry
    finally:
        reader.conn.close()


def _target(reader: _Reader, seq: int, document_of: Modelled) -> dict[str, Any]:
    """The document of the event `seq`, which a reversal names."""
    rows = reader.query("SELECT topic, state FROM stored_events WHERE originator_id IN (?, ?) "
                        "AND originator_version = ?", (*reader.keys, seq))
    if not rows:
        raise MissingEvent(seq)
    topic, state = rows[0]
    return document_of(seq, kind_of(str(topic)), json.loads(state))

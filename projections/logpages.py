"""Reading a campaign's log read model a page at a time: only the rows a selection asks for,
with nothing but the standard library.

`trek log` on a campaign of tens of thousands of events must neither read every row nor hold
them all. The selection (`LogFilter`) becomes the WHERE clause; rows come in pages of `batch`,
each page its own short query that starts after the last seq the previous page returned (so no
statement stays open while a reader, a pager say, takes its time). `--last N` first finds the
seq of the N-th newest row the other filters select (ORDER BY seq DESC, one row at OFFSET N-1),
then reads forward from it, so the newest rows still come oldest first and memory stays flat
however large N is. The log's index (`trek_view_entries`) holds what the fold knows of each
event; the event's own JSON is read from the event store for the rows of a page.

A log entry is made here from its row and its event's document; the document of most events is
their stored JSON less the bookkeeping (`plain_document`), so the kept log
(projections/kept_log.py) shows them without loading a model.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from projections.db import Row

ENTRY_COLUMNS = "seq, type, day, session, cancelled_by"
BATCH = 500

# The stored JSON of one campaign's events with gt < seq <= lte, as (seq, topic, stored
# state), read from the event store itself (the log's index holds no copy).
EventStates = Callable[[int, int], Iterable[tuple[int, str, bytes | str]]]


class MissingEvent(LookupError):
    """An event the log's index holds and the event store does not: deleted behind Trek's
    back (the tracker names it as damage)."""

    def __init__(self, seq: int) -> None:
        super().__init__(f"event {seq} is in the log's index but not in the event store")
        self.seq = seq


class IndexDiffers(LookupError):
    """A row of the log's index that names another kind of event than the event stored at its
    seq: the index (a read model) or the event was changed behind Trek's back. Read as the
    kind the index names, the event would be decoded as something it is not."""

    def __init__(self, seq: int, indexed: str, stored: str) -> None:
        super().__init__(f"the log's index names event {seq} a {indexed}, but the event "
                         f"store holds a {stored} there")
        self.seq = seq


def kind_of(topic: str) -> str:
    """The event kind (its class's name, as the log's index holds it) a stored topic names."""
    return topic.rpartition(":")[2]


class LogFilter(NamedTuple):
    """Which log entries to show; every filter given must hold (they combine with AND).

    `since`: seq >= since. `day`: entries of that day. `session`: entries stamped with that
    session, and the event that opened it (stamped with the session before it). `last`: of
    what the others select, only the `last` newest (still shown oldest first).
    """

    day: int | None = None
    session: int | None = None
    since: int | None = None
    last: int | None = None

    def matches(self, entry: Mapping[str, Any]) -> bool:
        """Whether one entry (a log document) is selected by the filters other than `last`."""
        if self.since is not None and entry["seq"] < self.since:
            return False
        if self.day is not None and entry["day"] != self.day:
            return False
        return self.session is None or entry["session"] == self.session or (
            entry["type"] == "SessionStarted" and entry.get("number") == self.session)


class Queryable(Protocol):
    """What reading the log's index takes of a database: one query at a time."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...


def session_openings(db: Queryable, campaign_id: str, session: int, before: int,
                     events: EventStates) -> list[int]:
    """The seqs of the stored SessionStarted entries (seq < before) that open session
    `session`.

    Their `session` column holds the session before them, so they are found by the number
    they open: only a campaign's session starts are read, one short JSON each.
    """
    seqs = [int(seq) for (seq,) in db.query(
        "SELECT seq FROM trek_view_entries WHERE campaign_id = ? AND seq < ? "
        "AND type = 'SessionStarted' ORDER BY seq", (campaign_id, before))]
    return [seq for seq in seqs for _, _, text in events(seq - 1, seq)
            if json.loads(text).get("number") == session]


def _where(campaign_id: str, selection: LogFilter, before: int, openings: Sequence[int]
           ) -> tuple[str, list[Any]]:
    clauses = ["campaign_id = ?", "seq < ?"]
    params: list[Any] = [campaign_id, before]
    if selection.since is not None:
        clauses.append("seq >= ?")
        params.append(selection.since)
    if selection.day is not None:
        clauses.append("day = ?")
        params.append(selection.day)
    if selection.session is not None:
        opened = "".join(" OR seq = ?" for _ in openings)
        clauses.append(f"(session = ?{opened})")
        params.extend([selection.session, *openings])
    return " AND ".join(clauses), params


def stored_pages(db: Queryable, campaign_id: str, selection: LogFilter, *, before: int,
                 events: EventStates, last: int | None = None, batch: int = BATCH
                 ) -> Iterator[list[Row]]:
    """The stored log rows (seq < before) that `selection` picks, in seq order, a page of at
    most `batch` rows at a time: (seq, type, day, session, cancelled_by, the event's JSON).

    `last` (given in place of `selection.last`, which the caller may have reduced by the rows
    it holds itself) keeps only that many of the newest.
    """
    openings = (session_openings(db, campaign_id, selection.session, before, events)
                if selection.session is not None else [])
    where, params = _where(campaign_id, selection, before, openings)
    after = 0
    if last is not None:
        if last < 1:
            return
        first = db.query(f"SELECT seq FROM trek_view_entries WHERE {where} "
                         "ORDER BY seq DESC LIMIT 1 OFFSET ?", (*params, last - 1))
        if first:
            after = int(first[0][0]) - 1
    while True:
        rows = db.query(f"SELECT {ENTRY_COLUMNS} FROM trek_view_entries WHERE {where} "
                        "AND seq > ? ORDER BY seq LIMIT ?", (*params, after, batch))
        if rows:
            yield _with_events(rows, events)
        if len(rows) < batch:
            return
        after = int(rows[-1][0])


def _with_events(rows: list[Row], events: EventStates) -> list[Row]:
    """Index rows with each event's stored JSON added, read a run of consecutive seqs at a
    time (a filtered page may skip many events between its rows). A row whose event is missing
    or of another kind than the index names is refused (`MissingEvent`, `IndexDiffers`)."""
    states: dict[int, tuple[str, bytes | str]] = {}
    start = 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or int(rows[i][0]) != int(rows[i - 1][0]) + 1:
            states.update((seq, (topic, state)) for seq, topic, state in
                          events(int(rows[start][0]) - 1, int(rows[i - 1][0])))
            start = i
    page = []
    for row in rows:
        seq = int(row[0])
        found = states.get(seq)
        if found is None:
            raise MissingEvent(seq)
        if kind_of(found[0]) != row[1]:
            raise IndexDiffers(seq, str(row[1]), kind_of(found[0]))
        page.append((*row, found[1]))
    return page


# What every stored event carries besides what it says (see TrekEvent.payload; `requested_by`
# is stored only when a seat asked).
BOOKKEEPING = frozenset({"timestamp", "gm", "actor", "requested_by", "session", "prev_hash",
                         "chain"})


def plain_document(seq: int, type_name: str, state: dict[str, Any]) -> dict[str, Any]:
    """The document of an event whose stored JSON is its own dump (no rolls to spell out, never
    upcast): that JSON less the bookkeeping, after its seq and type. A state without an event's
    bookkeeping is not a Trek event's and is returned as it is."""
    if "prev_hash" not in state:
        return state
    document = {"seq": seq, "type": type_name}
    document.update((k, v) for k, v in state.items() if k not in BOOKKEEPING)
    return document


def log_entry(row: Sequence[Any], state: Mapping[str, Any], document: Mapping[str, Any]
              ) -> dict[str, Any]:
    """A log entry from its index row (seq, type, day, session, cancelled_by, ...), its event's
    stored state (parsed) and the event's document: who recorded the event, for whom and when
    are read from the event itself (`actor_of`)."""
    seq, type_, day, session, cancelled_by = row[:5]
    return {
        "seq": int(seq), "type": type_, "day": int(day), "session": session,
        "gm": state.get("gm", ""), "actor": actor_of(state),
        "requested_by": state.get("requested_by"),
        "recorded_at": _recorded_at(state.get("timestamp")), "cancelled_by": cancelled_by,
        **{k: v for k, v in document.items() if k not in ("seq", "type")},
    }


def actor_of(state: Mapping[str, Any]) -> str:
    """Whose word recorded an event, from its stored state: its actor, else (an event stored
    before actors were stamped) its GM."""
    actor = state.get("actor")
    return actor if isinstance(actor, str) else str(state.get("gm", ""))


def _recorded_at(stored: Any) -> str | None:
    """An event's stored timestamp as the log shows it (`datetime.isoformat`)."""
    return datetime.fromisoformat(stored).isoformat() if isinstance(stored, str) else None

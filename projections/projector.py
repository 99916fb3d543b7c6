"""Keeps the read models caught up with the notification log, rebuilds and verifies them."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import singledispatch
from typing import Any, Protocol
from uuid import UUID

from domain.events import CampaignStarted, TrekEvent
from domain.links import stored_bytes, stored_link
from domain.ruleset import Registry
from projections import readmodels
from projections.cancellations import kept_map
from projections.db import (
    CHAIN_HEADS,
    VIEW_TABLES,
    Cursor,
    Database,
    PostgresDatabase,
    SQLiteDatabase,
    has_current_schema,
    keep_status_with_state,
    upgrade_schema,
)
from projections.stored_status import code_stamp, save_kinds
from projections.views import (
    CampaignView,
    drop_index_rows,
    kinds_of,
    load_view,
    load_view_at,
    save_log,
    save_view,
    status_of,
)

TRACKING_NAME = "trek-views"
BATCH = 2000
# A rebuild folds bigger batches: fewer commits, and still a bounded amount held at once.
REBUILD_BATCH = 10_000

Progress = Callable[[int, int], None]


# One stored event as a batch reads it: (notification id, originator id, version, topic, state).
Row = tuple[int, Any, int, str, Any]


class NotificationSource(Protocol):
    def select_notifications(self, start: int | None, limit: int, stop: int | None = None,
                             topics: Sequence[str] = (), *,
                             inclusive_of_start: bool = True) -> Sequence[Any]: ...

    def max_notification_id(self) -> int | None: ...


# The event of one row, from (originator id, version, topic, state); None for another record.
Decode = Callable[[Any, int, str, Any], TrekEvent | None]


class ViewsOutOfStep(Exception):
    """The stored read models differ from a rebuild of the log."""


class ChainBroken(Exception):
    """A rebuild found a hash chain that does not hold (the campaign's id); it stops."""


class Links(Protocol):
    """Checks each campaign's hash chain as a rebuild reads its rows (tracker/chain_reader.py
    `RebuildLinks`); either method raises `ChainBroken`."""

    def follow(self, originator: Any, seq: int, topic: str, data: bytes, linked: object,
               chain: int) -> None: ...

    def walked_elsewhere(self) -> bool:
        """Whether another process walks the chains on the same rows (then none is followed
        here); asked at each batch, inside the rebuild's transaction."""

    def finish(self) -> None: ...


def _position(cursor: Cursor) -> int:
    cursor.execute("SELECT notification_id FROM trek_view_tracking WHERE name = ?",
                   (TRACKING_NAME,))
    rows = cursor.fetchall()
    return int(rows[0][0]) if rows else 0


def _set_position(cursor: Cursor, notification_id: int) -> None:
    cursor.execute(
        "INSERT INTO trek_view_tracking (name, notification_id) VALUES (?, ?) "
        "ON CONFLICT (name) DO UPDATE SET notification_id = excluded.notification_id",
        (TRACKING_NAME, notification_id))


@singledispatch
def _started_view(event: TrekEvent) -> CampaignView | None:
    """The new view an event starts: only a campaign's first event starts one."""
    return None


@_started_view.register
def _(event: CampaignStarted) -> CampaignView | None:
    return CampaignView.start(event)


def fold(views: dict[str, CampaignView], event: TrekEvent,
         load: Callable[[str], CampaignView | None], indexed: bool = False) -> CampaignView:
    cid = str(event.originator_id)
    view = views.get(cid)
    if view is None:
        view = _started_view(event)
        if view is None:
            view = load(cid)
            if view is None:
                raise ViewsOutOfStep(f"event {event.seq} belongs to a campaign with no view")
        views[cid] = view
    if indexed:
        view.fold_indexed(event)
    else:
        view.apply(event)
    return view


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Hold Python's cycle collector while one batch is folded and written.

    A batch's events and log entries stay alive until the batch is written, so the collector
    keeps walking them (a third of a rebuild's time) and finds nothing: folding makes no
    reference cycles. It runs as usual between batches.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _loader(cursor: Cursor) -> Callable[[str], CampaignView | None]:
    return lambda cid: load_view(cursor, cid)


class Projector:
    """Pulls new notifications and folds them into the persisted read models."""

    def __init__(self, db: Database, source: NotificationSource, decode: Decode,
                 rulesets: Registry, batch: int = BATCH) -> None:
        self.db = db
        self.rulesets = rulesets
        self.source = source
        self.decode = decode
        self.batch = batch
        self._direct: str | None = None
        # The column of the event table's notification ids (SQLite's rowid).
        self._id = "rowid"
        self._current_schema: bool | None = None
        self._direct_checked = False

    def position(self) -> int:
        rows = self.db.query("SELECT notification_id FROM trek_view_tracking WHERE name = ?",
                             (TRACKING_NAME,))
        return int(rows[0][0]) if rows else 0

    def lag(self) -> int:
        return (self.source.max_notification_id() or 0) - self.position()

    def events_table(self) -> str | None:
        """The SQLite table of the store's events, when the read models' connection reads it
        (None on PostgreSQL, or where the events are read through the event store)."""
        return self._direct_table() if isinstance(self.db, SQLiteDatabase) else None

    def _direct_table(self) -> str | None:
        """The event table, when the read models' own connection can read it.

        A store keeps its events and read models in one database (one file on SQLite):
        reading the event rows on the read models' connection, inside the transaction that
        writes the views, skips building a notification object per event and sees exactly
        what the fold commits, the append of that transaction included.
        """
        if not self._direct_checked:
            table = getattr(self.source, "events_table_name", None)
            if (isinstance(table, str) and table.isidentifier()
                    # PostgreSQL's is made with the recorder, and asking would commit the
                    # transaction this may be asked in.
                    and (isinstance(self.db, PostgresDatabase)
                         or (isinstance(self.db, SQLiteDatabase) and self.db.has_table(table)))):
                self._direct = table
                self._id = "rowid" if isinstance(self.db, SQLiteDatabase) else "notification_id"
            self._direct_checked = True
        return self._direct

    def _notes(self, cursor: Cursor, after: int | None, limit: int) -> Sequence[Row]:
        """Up to `limit` rows past `after` (None: past the tracking position)."""
        table = self._direct_table()
        if table is None:
            if after is None:
                after = _position(cursor)
            return [(n.id, n.originator_id, n.originator_version, n.topic, n.state)
                    for n in self.source.select_notifications(after + 1, limit)]
        rowid = self._id
        if after is None:
            # The position and the rows past it in one statement.
            cursor.execute(
                f"SELECT {rowid}, originator_id, originator_version, topic, state FROM {table} "
                f"WHERE {rowid} > COALESCE((SELECT notification_id FROM trek_view_tracking "
                f"WHERE name = ?), 0) ORDER BY {rowid} LIMIT ?", (TRACKING_NAME, limit))
        else:
            cursor.execute(
                f"SELECT {rowid}, originator_id, originator_version, topic, state FROM {table} "
                f"WHERE {rowid} > ? ORDER BY {rowid} LIMIT ?", (after, limit))
        return cursor.fetchall()

    def _events(self, after: int) -> Iterator[tuple[int, list[tuple[int, TrekEvent]]]]:
        while True:
            with self.db.reading() as cursor:
                notes = self._notes(cursor, after, self.batch)
            if not notes:
                return
            decode = self.decode
            events = [(row[0], e) for row in notes
                      if (e := decode(row[1], row[2], row[3], row[4])) is not None]
            after = notes[-1][0]
            yield after, events

    def catch_up(self, progress: Progress | None = None, batch: int | None = None) -> int:
        """Fold every notification past the tracking position; returns how many were folded.

        Each batch is one transaction: the views it changed and the new position together. A
        batch that reads fewer rows than it may is the last: it read, under the write lock, up
        to the log's end, so no further transaction is opened to find nothing.
        """
        done = 0
        total = 0
        if progress:
            total = (self.source.max_notification_id() or 0) - self.position()
        limit = batch or self.batch
        while True:
            with self.db.transaction() as cursor, _collector_paused():
                position = _position(cursor)
                folded = self._fold_batch(cursor, position, limit)
            if not folded and not done:
                end = self.source.max_notification_id() or 0
                if position > end:
                    # Nothing would ever be folded again: the tracking row was changed.
                    raise ViewsOutOfStep(f"the read models stand at notification {position}, "
                                         f"past the log's end at {end}")
            done += folded
            if folded and progress:
                progress(done, max(total, done))
            if folded < limit:
                return done

    def fold_appended(self, cursor: Cursor, appended: Sequence[Sequence[Any]] = ()) -> int:
        """Fold, with `cursor` inside the transaction that just appended events, every
        notification past the tracking position (at most one batch); returns how many were
        folded. Folding none means the position stands past the append: `ViewsOutOfStep`.

        `appended`: the rows just appended, as the events table holds them (rowid first). The
        tracking position is read with the campaign's read models; when it stands right behind
        the first of them, they are exactly the rows past it (the append holds the write lock,
        and a new rowid is past every other), so they are folded as they are, not read back.
        Else (read models behind the log) the rows past the position are read, theirs too.
        """
        with _collector_paused():
            if appended and len(appended) <= self.batch and self._direct_table() is not None:
                notes = list(appended)
                cid = str(UUID(hex=str(notes[0][1])))
                position, view = load_view_at(cursor, cid, TRACKING_NAME)
                load = _loader(cursor)
                folded = self._fold_batch(
                    cursor, position, self.batch,
                    notes=notes if position == notes[0][0] - 1 else None,
                    load=lambda c: view if c == cid else load(c))
            else:
                folded = self._fold_batch(cursor, None, self.batch)
        if not folded:
            raise ViewsOutOfStep(f"the read models stand at notification {_position(cursor)}, "
                                 "past the event just appended")
        return folded

    def _fold_batch(self, cursor: Cursor, after: int | None, limit: int, *,
                    notes: Sequence[Any] | None = None,
                    load: Callable[[str], CampaignView | None] | None = None) -> int:
        """Fold up to `limit` notifications after `after` (`notes`: those rows, already at
        hand) and write the views they changed and the new position with `cursor`; returns how
        many were read. `load`: how a campaign's stored views are read (by its id)."""
        if notes is None:
            notes = self._notes(cursor, after, limit)
        if not notes:
            return 0
        views: dict[Any, CampaignView] = {}
        self._fold_rows(notes, views, load if load is not None else _loader(cursor))
        self._save_views(cursor, views.values())
        _set_position(cursor, notes[-1][0])
        return len(notes)

    def _save_views(self, cursor: Cursor, views: Iterable[CampaignView], *,
                    kept_index: bool = False) -> None:
        """Write every read model of each view (`kept_index`: see `save_view`)."""
        for view in views:
            save_view(cursor, view, status_of(view, self.rulesets.named(view.ruleset)),
                      kept_index=kept_index)
            if not view.kinds_kept:
                save_kinds(cursor, view.ruleset,
                           kinds_of(self.rulesets.event_types(view.ruleset)))
                view.kinds_kept = True

    def _fold_rows(self, notes: Sequence[Any], views: dict[Any, CampaignView],
                   load: Callable[[str], CampaignView | None], links: Links | None = None,
                   indexed: bool = False) -> None:
        """Fold stored rows into `views`, keyed by the rows' own campaign id values (so no
        UUID is formatted per event); a campaign not there yet is started, or read with
        `load`. With `links`, each row's link in its campaign's hash chain is checked as it is
        decoded. `indexed`: keep of each event only its row of the log's index, as a rebuild
        does (`CampaignView.fold_indexed`), so the event is let go as soon as it is folded."""
        decode = self.decode

        def fold_in(originator: Any, event: TrekEvent) -> None:
            view = views.get(originator)
            if view is None:
                views[originator] = fold({}, event, load, indexed)
            elif indexed:
                view.fold_indexed(event)
            else:
                view.apply(event)

        if links is None:
            for _, originator, version, topic, state in notes:
                event = decode(originator, version, topic, state)
                if event is not None:
                    fold_in(originator, event)
            return
        if links.walked_elsewhere():
            # Another process walks the chains on these rows. A row that does not decode or
            # fold may be damage that walk finds (an event missing, one edited): as below,
            # the chains are walked again in full, and only if they hold is the error told.
            originator = None
            try:
                for _, originator, version, topic, state in notes:
                    event = decode(originator, version, topic, state)
                    if event is not None:
                        fold_in(originator, event)
            except Exception as error:
                raise ChainBroken(str(originator)) from error
            return
        follow = links.follow
        for _, originator, version, topic, state in notes:
            data = state if type(state) is bytes else stored_bytes(state)
            try:
                event = decode(originator, version, topic, data)
            except Exception as error:
                # A row that does not decode may be damage later rows reveal (a topic
                # edited, say): the chains are walked in full, and only if they hold is
                # the decoder's error told.
                raise ChainBroken(str(originator)) from error
            if event is None:
                linked, chain = stored_link(data)
                follow(originator, version, topic, data, linked, chain)
                continue
            # Each row's link in its campaign's chain, checked before the event is folded.
            follow(originator, version, topic, data, event.prev_hash, event.chain)
            fold_in(originator, event)

    def rebuild(self, progress: Progress | None = None, links: Links | None = None) -> int:
        """Empty the read models and fold the whole log again, all in one transaction: a
        rebuild that fails part-way leaves the read models as they were.

        With `links`, every campaign's hash chain is checked on the rows as they are folded
        (and `links.finish()` before the commit): a break raises `ChainBroken` and leaves the
        read models as they were.
        """
        total = (self.source.max_notification_id() or 0) if progress else 0
        done = 0
        # Each campaign's view stays in memory from one batch to the next: a batch writes the
        # log rows it made (so memory stays flat), and the rest of the read models, which each
        # batch would write over, are written once, at the end.
        views: dict[Any, CampaignView] = {}
        with self.db.bulk(), self.db.transaction() as cursor:
            for table in VIEW_TABLES:
                if table != "trek_view_entries":
                    # The log's index is kept, its rows compared as they are folded again:
                    # most stand as they were.
                    cursor.execute(f"DELETE FROM {table}")
            _set_position(cursor, 0)
            load = _loader(cursor)
            after = 0
            while True:
                with _collector_paused():
                    notes = self._notes(cursor, after, REBUILD_BATCH)
                    if not notes:
                        break
                    self._fold_rows(notes, views, load, links, indexed=True)
                    for view in views.values():
                        save_log(cursor, view, kept_index=True)
                after = notes[-1][0]
                done += len(notes)
                if progress:
                    progress(done, max(total, done))
            if links is not None:
                links.finish()
            with _collector_paused():
                self._save_views(cursor, views.values(), kept_index=True)
            if done:
                _set_position(cursor, after)
            drop_index_rows(cursor, {view.campaign_id: view.events for view in views.values()})
        return done

    def verify(self, progress: Progress | None = None) -> tuple[list[str], int]:
        """Fold the whole log in memory and list every way the stored read models differ.

        Read models a few events behind the log (a process stopped between an append and the
        update) are not a difference: those events are folded onto them in memory, as every
        read does, and the count behind is returned with the differences.
        """
        if not has_current_schema(self.db):
            return ["the read models are still in an older release's tables; `trek replay` "
                    "(or any command that records) rebuilds them"], 0
        views: dict[str, CampaignView] = {}
        problems: list[str] = []
        total = self.source.max_notification_id() or 0
        stored_position = self.position()
        # Events past the stored position, by campaign: folded onto its stored views below.
        unstored: dict[str, list[TrekEvent]] = {}
        seen = 0
        for after, events in self._events(0):
            for note_id, event in events:
                view = fold(views, event, lambda _cid: None)
                if note_id > stored_position:
                    unstored.setdefault(view.campaign_id, []).append(event)
                    view.new_log = []
                    view.marks = {}
                    view.reversals = []
                    continue
                # The log's index is compared as it streams, so memory stays flat.
                for entry in view.new_log:
                    rows = self.db.query(
                        "SELECT type, day, session FROM trek_view_entries "
                        "WHERE campaign_id = ? AND seq = ?", (view.campaign_id, entry.seq))
                    if not rows:
                        problems.append(f"{view.slug}: log entry {entry.seq} is missing")
                    elif (rows[0][0], int(rows[0][1]), rows[0][2]) != (
                            entry.type, entry.day, entry.session):
                        problems.append(f"{view.slug}: log entry {entry.seq} differs")
                view.new_log = []
                view.marks = {}
                view.reversals = []
            seen = after
            if progress:
                progress(seen, max(total, seen))
        if stored_position > seen:
            problems.append(f"read models are at notification {stored_position}, "
                            f"but the log ends at {seen}")
        for view in views.values():
            stored = self.stored_view(view.campaign_id)
            late = unstored.get(view.campaign_id, [])
            if stored is None and late:
                stored = _started_view(late[0])
                if stored is not None:
                    late = late[1:]
            if stored is None:
                problems.append(f"{view.slug}: no stored read models")
                continue
            for event in late:
                stored.apply(event)
            ruleset = self.rulesets.named(view.ruleset)
            expected: Mapping[str, Any] = status_of(view, ruleset)
            actual: Mapping[str, Any] = status_of(stored, ruleset)
            for key in expected:
                if expected[key] != actual.get(key):
                    problems.append(f"{view.slug}: {key} is stored as {actual.get(key)!r} "
                                    f"but the log gives {expected[key]!r}")
            marks = {int(seq): int(by) for seq, by in self.db.query(
                "SELECT seq, cancelled_by FROM trek_view_entries WHERE campaign_id = ? "
                "AND cancelled_by IS NOT NULL", (view.campaign_id,))} if not unstored.get(
                view.campaign_id) else stored.cancelled
            if marks != view.cancelled:
                problems.append(f"{view.slug}: cancelled events are stored as {marks} "
                                f"but the log gives {view.cancelled}")
            if not unstored.get(view.campaign_id) and (
                    by_key := kept_map(self.db, view.campaign_id)) != view.cancelled:
                problems.append(f"{view.slug}: the cancellations kept by key are {by_key} "
                                f"but the log gives {view.cancelled}")
            if (stored.events, stored.last_hash) != (view.events, view.last_hash):
                problems.append(f"{view.slug}: the stored event count or hash differs")
            kept = self.kept_status(view.campaign_id)
            if kept is not None and kept[0] == view.events and kept[1] != _canonical(expected):
                problems.append(f"{view.slug}: the kept status document differs from the log's")
        stored_ids = {row[0] for row in self.db.query(
            "SELECT campaign_id FROM trek_view_campaigns")}
        for extra in stored_ids - set(views):
            problems.append(f"campaign {extra} has read models but no events")
        return problems, max(0, seen - stored_position)

    def kept_status(self, campaign_id: str) -> tuple[int, Any] | None:
        """A campaign's kept status document (the events it covers, the document), when this
        code made it; `trek status` may print it without folding."""
        if not self.db.has_column("trek_view_state", "status_json"):
            return None  # an earlier release's store, not yet opened to record
        rows = self.db.query("SELECT events, code, status_json FROM trek_view_state "
                             "WHERE campaign_id = ?", (campaign_id,))
        if not rows or rows[0][1] != code_stamp():
            return None
        return int(rows[0][0]), json.loads(rows[0][2])

    def upgrade(self) -> bool:
        """Move an older release's read models to this release's tables (rebuilt on the next
        catch-up); True if there was anything to move."""
        upgraded = upgrade_schema(self.db, TRACKING_NAME)
        if not upgraded and not self.db.has_table("trek_chain_heads"):
            folded = has_current_schema(self.db)
            with self.db.transaction() as cursor:
                cursor.execute(CHAIN_HEADS)
                # The heads of what the read models have folded: a campaign they know and no
                # head is kept for is one whose head was deleted (`head_missing`).
                if folded:
                    cursor.execute(
                        "INSERT INTO trek_chain_heads (campaign_id, seq, hash) "
                        "SELECT campaign_id, events, last_hash FROM trek_view_campaigns")
        if not self.db.has_column("trek_view_state", "status_json"):
            # A store of an earlier release: its status documents move into the rows of the
            # states they were worked out from, written from the next fold on.
            keep_status_with_state(self.db)
        self._current_schema = True
        return upgraded

    def chain_head(self, campaign_id: str) -> tuple[int, str] | None:
        """The newest event's (seq, hash) as folded, or None when none was kept.

        The head and the campaign's read models are written in one transaction, so they name
        the same event; when the read models name a later one, the head was moved back behind
        Trek's back (to hide newest events deleted with it) and theirs is the head: a head
        never moves backwards unseen. Both are read in one statement.
        """
        if not self.db.has_table("trek_chain_heads"):
            return None
        if self._current_schema is None:
            self._current_schema = has_current_schema(self.db)
        if not self._current_schema:
            rows = self.db.query("SELECT seq, hash FROM trek_chain_heads WHERE campaign_id = ?",
                                 (campaign_id,))
            return (int(rows[0][0]), str(rows[0][1])) if rows else None
        rows = self.db.query(
            "SELECT h.seq, h.hash, c.events, c.last_hash FROM trek_chain_heads h "
            "LEFT JOIN trek_view_campaigns c ON c.campaign_id = h.campaign_id "
            "WHERE h.campaign_id = ?", (campaign_id,))
        return readmodels.head_of(*rows[0]) if rows else None

    @property
    def current_schema(self) -> bool:
        """Whether the read models are in this release's tables (`has_current_schema`)."""
        if self._current_schema is None:
            self._current_schema = has_current_schema(self.db)
        return self._current_schema

    def head_missing(self, campaign_id: str) -> bool:
        """True when no chain head is kept for a campaign the read models have folded (they
        hold its row, or they stand at the log's end): the head was deleted behind Trek's back.
        A campaign they have not folded yet (a process stopped between its first append and
        the update) has none to keep; nor has a store from before heads were kept."""
        if not self.db.has_table("trek_chain_heads") or self.chain_head(campaign_id) is not None:
            return False
        if self.stored_view(campaign_id) is not None:
            return True
        try:
            return self.lag() <= 0
        except (ValueError, TypeError):
            return False

    def forget_chain_heads(self) -> None:
        """Take the log as it now stands as the chain's truth (`replay --accept-tampering`)."""
        with self.db.transaction() as cursor:
            cursor.execute("DELETE FROM trek_chain_heads")

    def stored_view(self, campaign_id: str) -> CampaignView | None:
        """The stored read models of a campaign; None when there are none, or when they are
        still in an older release's tables (the caller folds the log instead)."""
        if self._current_schema is None:
            self._current_schema = has_current_schema(self.db)
        if not self._current_schema:
            return None
        with self.db.reading() as cursor:
            return load_view(cursor, campaign_id)


def _canonical(document: Mapping[str, Any]) -> Any:
    """A document as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(document))

"""Every read of a campaign, apart from the one door for writes (`Trek.handle`): status, log,
route, time travel, diff, audit, recap and the battle map, over the read models (folding in any
events they do not hold yet)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any, TypedDict, cast
from uuid import UUID

from domain import roster
from domain.campaign import campaign_id
from domain.errors import NotFound, TamperedLog
from domain.events import CampaignStarted, TrekEvent
from domain.links import link_hash, stored_bytes, stored_link
from domain.route import Route, build_route
from projections import readmodels
from projections.audit import AuditDocument, Auditor
from projections.compare import Change, changes
from projections.db import has_current_schema
from projections.logpages import EventStates, LogFilter, actor_of
from projections.logread import stored_entries
from projections.views import (
    CampaignView,
    EncounterDocument,
    LogEntry,
    LogEntryDocument,
    StatusDocument,
    status_of,
)
from tracker.chain import damaged, undamaged
from tracker.chain_reader import HEAD_MISSING
from tracker.mapper import page_events, row_pages
from tracker.points import Point

# How many log entries a stream reads from the store at a time.
LOG_BATCH = 500

if TYPE_CHECKING:
    from projections.recap import RecapDocument
    from tracker.app import Trek
    from tracker.reading import StoreReader


class EncounterPath(TypedDict):
    """A path moved in an encounter's round: who, in which round (and part of it, once an
    event opens the second), the cells, the event, and whether the move stopped the mover."""

    name: str
    round: int
    path: list[Any]
    seq: int
    phase: int | None
    stopped: bool


class EncounterPicture(EncounterDocument):
    """The open encounter (`encounter status --json`) with the paths moved in its rounds."""

    paths: list[EncounterPath]


class RouteDocument(Route):
    """The route (domain/route.py) with the campaign and the map it is drawn on (None: no
    map; a ruleset's map tables are laid out at its top level as `trek map show --json` shows
    them)."""

    campaign: str
    name: str
    as_of: int | None
    map: dict[str, Any] | None


class DiffEnd(TypedDict):
    """One end of a diff: the campaign, the point as given, the event it names, its day."""

    campaign: str
    point: str
    seq: int
    day: int


class DiffDocument(TypedDict):
    """`trek diff --json`: both ends and every status leaf that differs between them."""

    a: DiffEnd
    b: DiffEnd
    changes: list[Change]



@dataclass(frozen=True)
class LogStream:
    """A selection of a campaign's log, read as `entries` is consumed.

    `events` is the campaign's newest seq and `day` the day it is on: no entry has a larger
    seq, and (days only ever open one after another) hardly ever a larger day, so a table can
    size its columns before reading a row.
    """

    ruleset: str
    events: int
    day: int
    entries: Iterator[LogEntryDocument]


class Queries:
    """The reads of one open store (`Trek.queries`); nothing here records."""

    def __init__(self, trek: Trek, reader: StoreReader) -> None:
        self._trek = trek
        self._reader = reader

    def rules(self, slug: str | None) -> dict[str, int]:
        view = self.view(slug)
        return roster.house_rules(self._trek.rulesets.named(view.ruleset), view.game)

    def encounter_status(self, slug: str | None) -> EncounterDocument | None:
        """The open encounter as `encounter status --json` shows it, or None."""
        return self.status(slug)["encounter"]

    def encounter_picture(self, slug: str | None, *, as_of: int | None = None,
                          round_number: int | None = None) -> EncounterPicture | None:
        """The encounter open at `as_of` (default: now) with the paths moved in each of its
        rounds so far (only round `round_number`'s, when given), each path with its round.

        A path is live when it was not cancelled as of that point; a round's start that
        carried combatants along (a drift) gives their paths to that round.
        """
        view = self.view(slug) if as_of is None else self.view_as_of(slug, as_of)
        doc = self.status_of_view(view)["encounter"]
        if doc is None:
            return None
        if round_number is not None and not 1 <= round_number <= doc["round"]:
            held = (f"rounds 1 to {doc['round']}" if doc["round"]
                    else "no round yet; `trek encounter round` starts one")
            raise NotFound(f"there is no round {round_number} in {doc['name']}; it has {held}")
        last = view.events
        # The fields each event adds to its entry are its own.
        entries: list[Mapping[str, Any]] = [e for e in self.log(view.slug) if e["seq"] <= last]
        start = max(e["seq"] for e in entries
                    if e["type"] == "EncounterStarted" and e["seq"] not in view.cancelled)
        paths: list[EncounterPath] = []
        current = 0
        # A round's phase (its later moves told apart), once an event opens its second.
        phase: int | None = None
        types = self._trek.rulesets.event_types(view.ruleset)
        for entry in entries:
            if entry["seq"] <= start or entry["seq"] in view.cancelled:
                continue
            kind = types.get(entry["type"], TrekEvent)
            moved: list[tuple[str, list[Any]]] = []
            if entry["type"] == "RoundStarted":
                current, phase = entry["number"], None
                moved = list((entry.get("paths") or {}).items())
            elif kind.opens_phase:
                phase = int(entry["number"])
            elif len(entry.get("path") or ()) > 1:
                moved = [(entry["name"], entry["path"])]
            for name, path in moved:
                cells = [{"x": cell[0], "y": cell[1]} if isinstance(cell, list) else cell
                         for cell in path]
                paths.append({"name": name, "round": current, "path": cells,
                              "seq": entry["seq"], "phase": phase,
                              "stopped": kind.stops_mover})
        return {**doc, "paths": [p for p in paths
                                 if round_number is None or p["round"] == round_number]}

    def view(self, slug: str | None) -> CampaignView:
        """A campaign's read models, with any events not yet projected folded in memory."""
        name = self._trek.resolve(slug)
        cid = str(campaign_id(name))
        self._check_tail(name)
        view = self._reader.projector.stored_view(cid)
        if view is None:
            events = self._reader.events(name)
            if not events:
                raise self._reader.no_campaign(name)
            first = events[0]
            assert isinstance(first, CampaignStarted)
            view = CampaignView.start(first)
        else:
            events = self._reader.events(name, gt=view.events)
        for event in events:
            view.apply(event)
        return view

    def _check_tail(self, name: str) -> None:
        """Refuse to show a campaign whose newest events were deleted or whose newest event
        was edited, as its kept chain head tells (two reads of one row each): a command shows
        what the log holds or says it is damaged, never the read models' memory of it."""
        cid = campaign_id(name)
        # The head is read before the log: events are only ever added.
        head = self._reader.projector.chain_head(str(cid))
        with self._reader.store_errors():
            newest = self._reader.app.recorder.select_events(cid, desc=True, limit=1)
        last = newest[0].originator_version if newest else 0
        if head is None:
            if last and self._reader.projector.head_missing(str(cid)):
                raise TamperedLog(damaged(name, last, HEAD_MISSING))
            return
        seq, digest = head
        if seq > last:
            what = f"event {seq} was" if seq == last + 1 else f"events {last + 1} to {seq} were"
            raise TamperedLog(damaged(name, last + 1, f"{what} recorded and cannot be found now"))
        if seq == last:
            data = stored_bytes(newest[0].state)
            if link_hash(stored_link(data)[1], str(cid), seq, newest[0].topic, data) != digest:
                raise TamperedLog(damaged(name, seq, f"event {seq} was changed after it was "
                                                     "recorded"))

    def ruleset_of(self, slug: str | None) -> str:
        """The name of the ruleset a campaign is played under (its events' words are its own):
        one row of the campaigns' read model, the whole view only for a campaign not in it yet."""
        name = self._trek.resolve(slug)
        return readmodels.ruleset_of(self._reader.views, name) or self.view(name).ruleset

    def status(self, slug: str | None, as_of: int | None = None, *,
               party: str | None = None) -> StatusDocument:
        if as_of is None:
            return self.status_of_view(self.view(slug), party)
        return self.status_of_view(self.view_as_of(slug, as_of), party)

    def status_of_view(self, view: CampaignView, party: str | None = None) -> StatusDocument:
        """The `trek status --json` document of read models already read (`view`), told from
        party `party`'s side (None: the party in use)."""
        side = self._trek.acting_party(view.slug, view.game, party)
        return status_of(view, self._trek.rulesets.named(view.ruleset), side)

    def view_as_of(self, slug: str | None, seq: int) -> CampaignView:
        """The read models right after event `seq`: the same fold, cut short at `seq`."""
        name = self._trek.resolve(slug)
        last = self.last_seq(name)
        if last == 0:
            raise self._reader.no_campaign(name)
        # Checked before loading: a SEQ below 1 loads nothing, which is not a missing campaign.
        if seq < 1 or seq > last:
            raise NotFound(f"there is no event {seq}; the log runs 1 to {last}")
        # The write model at that version: the nearest snapshot at or before it, then the rest.
        past = self._reader.get(campaign_id(name), version=seq)
        return CampaignView(
            campaign_id=str(past.id), slug=past.slug, name=past.name, ruleset=past.ruleset_name,
            seed=past.seed, map=past.map, game=past.game, events=past.version,
            last_hash=past.last_hash, session=past.session, sessions=past.sessions,
            cancelled=past.cancelled_in(1, seq),
        )

    def last_seq(self, slug: str) -> int:
        """The seq of a campaign's newest event (0 for none): one row read, for a poller."""
        last = self._reader.events_desc(slug, 2**62, limit=1)
        return last[0].seq if last else 0

    def campaign_gm(self, slug: str | None) -> str | None:
        """The campaign's own GM: whose word recorded its first event, read from the event's
        stored JSON (None when that is not an event's: the log says it is damaged). `trek log`
        names the actor of every event recorded for anyone else."""
        name = self._trek.resolve(slug)
        for _, _topic, state in self._event_states(campaign_id(name))(0, 1):
            try:
                started = json.loads(stored_bytes(state))
            except ValueError:
                return None
            return actor_of(started) if isinstance(started, dict) else None
        raise self._reader.no_campaign(name)

    def log(self, slug: str | None, *, day: int | None = None,
            session: int | None = None) -> list[LogEntryDocument]:
        """Every entry of the campaign's log (of day `day`, of session `session`), in order."""
        return list(self.log_stream(slug, LogFilter(day=day, session=session)).entries)

    def log_stream(self, slug: str | None, selection: LogFilter | None = None, *,
                   batch: int = LOG_BATCH, targets: bool = False) -> LogStream:
        """The log entries `selection` picks, read from the store a page at a time as they
        are consumed, never all at once. A missing campaign or session is refused here, before
        any entry is read. With `targets`, a reversal's entry holds the documents of the
        events it names (as `undo` returns it), for a line that says what they were."""
        selection = selection or LogFilter()
        view = self.view(slug)
        if selection.session is not None:
            self._check_session(view, selection.session)
        marks = view.marks

        def cancelled_by(seq: int, stored: int | None) -> int | None:
            # A reversal folded in memory (not yet in the read models) overrides the row.
            return marks.get(seq, stored)

        # The entries stored in the log's index are read from it (each with its event from the
        # event store); the events past them were folded just now (few, unless the campaign's
        # read models are not stored, or are still an older release's: then all of them).
        before = view.new_log[0].seq if view.new_log else view.events + 1
        if before == 1 and has_current_schema(self._reader.views):
            before = (readmodels.newest_entry(self._reader.views, view.campaign_id) or 0) + 1
        pending = [doc for doc in (self._pending_document(e, cancelled_by(e.seq, None))
                                   for e in view.new_log if e.seq >= before)
                   if selection.matches(doc)]
        last = selection.last
        if last is not None:
            pending = pending[-last:]
            last -= len(pending)
        stored = (stored_entries(self._reader.views, view.campaign_id, selection,
                                 before=before, types=self._trek.rulesets.event_types(view.ruleset),
                                 events=self._event_states(UUID(view.campaign_id)),
                                 cancelled_by=cancelled_by, last=last, batch=batch)
                  if before > 1 and (last is None or last > 0) else iter(()))
        entries = chain(undamaged(view.slug, stored), pending)
        return LogStream(ruleset=view.ruleset, events=view.events, day=view.game.day.number,
                         entries=(self._reader.with_targets(view.slug, entries) if targets
                                  else entries))

    def _event_states(self, cid: UUID) -> EventStates:
        """Reads one campaign's stored events by seq range, as the log shows them."""

        select = row_pages(self._reader.app.recorder, cid)

        def states(gt: int, lte: int) -> list[tuple[int, str, bytes | str]]:
            with self._reader.store_errors():
                rows = select(gt, lte, lte - gt)
            return [(row.originator_version, row.topic, row.state) for row in rows]

        return states

    @staticmethod
    def _pending_document(entry: LogEntry, cancelled_by: int | None) -> LogEntryDocument:
        return cast(LogEntryDocument, {"seq": entry.seq, "type": entry.type, "day": entry.day,
                "session": entry.session, "gm": entry.gm, "actor": entry.recorded_for.name,
                "requested_by": entry.recorded_for.seat, "recorded_at": entry.recorded_at,
                "cancelled_by": cancelled_by,
                **{k: v for k, v in entry.event.items() if k not in ("seq", "type")}})

    @staticmethod
    def _check_session(view: CampaignView, session: int) -> None:
        if not 1 <= session <= view.sessions:
            held = (f"sessions 1 to {view.sessions}" if view.sessions
                    else "no session yet; `trek session start` opens one")
            raise NotFound(f"there is no session {session}; {view.slug} has {held}")

    def _map_document(self, view: CampaignView) -> dict[str, Any] | None:
        """The campaign's map as `trek map show --json` shows it (None: no map)."""
        game_map = view.map
        if game_map is None:
            return None
        return {
            "name": game_map.name, "width": game_map.width, "height": game_map.height,
            "square_miles": game_map.square_miles, "rows": list(game_map.rows),
            "legend": {k: v.model_dump(mode="json") for k, v in game_map.legend.items()},
            **{key: self._shown(key, value) for key, value in game_map.extras.items()},
            **({"image": game_map.image} if game_map.image is not None else {}),
            **({"rivers": [river.model_dump(mode="json") for river in game_map.rivers]}
               if game_map.rivers else {}),
        }

    def _shown(self, key: str, value: Any) -> Any:
        """A map extra as the ruleset that reads it lays it out."""
        section = self._trek.rulesets.map_section(key)
        return section.shown(value) if section is not None else value

    def picture(self, sha256: str) -> tuple[str, bytes] | None:
        """A map's picture kept in the store, by its SHA-256: its media type and bytes."""
        from tracker import pictures

        with self._reader.store_errors():
            return pictures.get(self._trek.views, sha256)

    def route(self, slug: str | None, *, as_of: int | None = None,
              session: int | None = None, party: str | None = None) -> RouteDocument:
        """The route document (domain/route.py) with the map it is drawn on, up to `as_of`."""
        view = self.view(slug)
        name = view.slug
        if session is not None:
            self._check_session(view, session)
        if as_of is not None and not 1 <= as_of <= view.events:
            raise NotFound(f"there is no event {as_of}; the log runs 1 to {view.events}")
        game = view.game if as_of is None else self._reader.get(campaign_id(name),
                                                                 version=as_of).game
        side = self._trek.acting_party(name, game, party)
        doc = build_route(page_events(self._reader.app.events, campaign_id(name), lte=as_of),
                          session=session, party=side)
        return {"campaign": name, "name": view.name, "as_of": as_of,
                "map": self._map_document(view), **doc}

    def seq_of(self, slug: str | None, point: Point) -> int:
        """The event a point names: SEQ itself, the last event of day N, or the latest."""
        name = self._trek.resolve(point.campaign or slug)
        last = self.last_seq(name)
        if last == 0:
            raise self._reader.no_campaign(name)
        if point.kind == "now":
            return last
        if point.kind == "seq":
            if not 1 <= point.number <= last:
                raise NotFound(f"there is no event {point.number}; the log runs 1 to {last}")
            return point.number
        view = self.view(name)
        if point.number > view.game.day.number:
            raise NotFound(f"{name} has not reached day {point.number}; it is on day "
                           f"{view.game.day.number}")
        stored = readmodels.newest_entry(self._reader.views, view.campaign_id, day=point.number)
        found = [] if stored is None else [stored]
        found += [entry.seq for entry in view.new_log if entry.day == point.number]
        if not found:
            raise NotFound(f"no event of {name} falls on day {point.number}")
        return max(found)

    def status_at(self, slug: str | None, point: Point, *,
                  party: str | None = None) -> StatusDocument:
        return self._seq_and_status(self._trek.resolve(point.campaign or slug), point,
                                    party)[1]

    def _seq_and_status(self, name: str, point: Point, party: str | None = None
                        ) -> tuple[int, StatusDocument]:
        """The event a point names and the status right after it (now: the read models)."""
        seq = self.seq_of(name, point)
        if point.kind == "now":
            return seq, self.status(name, party=party)
        return seq, self.status_of_view(self.view_as_of(name, seq), party)

    def diff(self, slug: str | None, a: Point, b: Point) -> DiffDocument:
        """What changed from point `a` to point `b` (each in its own campaign, if it names one)."""
        ends: list[tuple[DiffEnd, StatusDocument]] = []
        for point in (a, b):
            name = self._trek.resolve(point.campaign or slug)
            seq, status = self._seq_and_status(name, point)
            ends.append(({"campaign": name, "point": str(point), "seq": seq,
                          "day": status["day"]}, status))
        (about_a, status_a), (about_b, status_b) = ends
        return {"a": about_a, "b": about_b, "changes": changes(status_a, status_b)}

    def audit(self, slug: str | None, session: int | None = None) -> AuditDocument:
        """Per session: days, squares, rolls, supplies, the rulesets' own sections and undos."""
        view = self.view(slug)
        if session is not None:
            self._check_session(view, session)
        auditor = Auditor(view.cancelled.get, self._trek.rulesets.audit_sections)
        auditor.fold(page_events(self._reader.app.events, campaign_id(view.slug)))
        # Each session counts the requests asked while it was open; the part outside any
        # session, those asked outside every session.
        counted = self.requests_by_seat(view.slug, [
            (audit["session"], audit["started_at"], audit["ended_at"])
            for audit in auditor.documents() if audit["session"] is not None])
        return {"campaign": view.slug, "sessions": [
            {**audit, "requests": counted.get(audit["session"], {})}
            for audit in auditor.documents(session)]}

    def requests_by_seat(self, slug: str,
                         spans: Sequence[tuple[int | None, str | None, str | None]]
                         ) -> dict[int | None, dict[str, dict[str, int]]]:
        """How many requests each seat asked in each session's span, and what became of
        them (RULES §14; tracker/seats.py `Seats.counts`)."""
        from tracker.seats import Seats

        return Seats(self._trek.views, writable=False).counts(slug, spans)

    def recap(self, slug: str | None, session: int | None = None) -> RecapDocument:
        """What a GM hands the players after session N (default: the latest, open or ended).

        A campaign played without sessions is recapped whole, and its document says so: a GM
        who never opened a session still has a story to hand out.
        """
        view = self.view(slug)
        if session is not None:
            self._check_session(view, session)
        whole = session is None and view.sessions == 0
        number = None if whole else session or view.sessions
        square_miles = view.map.square_miles if view.map is not None else None
        from projections.recap import Recapper

        recapper = Recapper(view.cancelled.get, square_miles=square_miles, whole=whole,
                            sections=self._trek.rulesets.audit_sections)
        recapper.fold(page_events(self._reader.app.events, campaign_id(view.slug)))
        document = recapper.recap(number)
        assert document is not None, "a session that exists has at least its opening event"
        # The requests asked while the session was open (the whole campaign's: all of them).
        span = (None, None, None) if whole else (
            number, document["started_at"], document["ended_at"])
        requests = self.requests_by_seat(view.slug, [span]).get(span[0], {})
        return {"campaign": view.slug, "name": view.name, "ruleset": view.ruleset,
                "map": view.map.name if view.map is not None else None, **document,
                "requests": requests}

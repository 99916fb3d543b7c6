"""What keeps long campaigns fast, checked to change nothing a GM or a script can see.

Undo and redo stream the later events a page at a time; the log keeps each event's stored JSON
and derives its document when read; read models fold from raw rows; snapshots are taken when a
save reaches or passes a multiple of SNAPSHOT_EVERY. Each is compared with the plain way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

import pytest
from journeys import record_full_day
from rulesets import RULESETS

import tracker.app
from domain.besm.commands import Repair, TravelByNight
from domain.campaign import Campaign, campaign_id
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.history import Redo, Undo
from domain.commands.roster import Harm
from domain.commands.sessions import EndSession, StartSession
from domain.commands.travel import Move, MoveOptions
from domain.errors import RuleViolation
from domain.events import EventsCancelled, EventsRestored, TrekEvent, canonical_bytes
from domain.history import fold_live
from domain.patch import apply
from domain.state import Game
from projections.views import event_document, log_entries
from tracker.app import Trek
from tracker.mapper import PydanticMapper, RowDecoder, decode_event, page_events, upcast

OpenTrek = Callable[..., Trek]


def events_of(trek: Trek) -> list[TrekEvent]:
    return [e for e in trek.app.events.get(campaign_id(trek.resolve(None)))
            if isinstance(e, TrekEvent)]


def outcome(document: dict[str, Any]) -> tuple[Any, ...]:
    """What a reversal decided, without when and by whom."""
    targets = document.get("cancels", document.get("restores"))
    return document["type"], targets, document["corrections"]


def the_plain_way(trek: Trek, seqs: list[int], *, undo: bool,
                  cascade: bool = False) -> tuple[Any, ...] | str:
    """Undo or redo as the application did before streaming: every event in one list, and the
    game before the first target folded from the campaign's start."""
    campaign: Campaign = trek._load(trek.resolve(None))
    campaign.stamp = trek._stamp()
    events = events_of(trek)
    first = min(seqs)
    before = fold_live(events[:first - 1], campaign.is_live)
    try:
        if undo:
            event = campaign.cancel(seqs, before=before, later=events[first - 1:],
                                    cascade=cascade, reason=None)
        else:
            event = campaign.restore(seqs, before=before, later=events[first - 1:], reason=None)
    except RuleViolation as refusal:
        return str(refusal)
    return outcome(event_document(event))


def streamed(action: Callable[[], list[dict[str, Any]]]) -> tuple[Any, ...] | str:
    try:
        return outcome(action()[0])
    except RuleViolation as refusal:
        return str(refusal)


@pytest.fixture
def pages_of_two(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """Undo and redo read the later events two at a time; every read's size is recorded."""
    asked: list[int | None] = []

    def small_pages(store: Any, originator_id: UUID, **options: Any) -> Iterator[TrekEvent]:
        real_select = store.recorder.select_events

        class Recorder:
            def select_events(self, *args: Any, **kwargs: Any) -> Any:
                asked.append(kwargs.get("limit"))
                return real_select(*args, **kwargs)

        class Spy:
            mapper = store.mapper
            recorder = Recorder()

        return page_events(Spy(), originator_id, page=2, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(tracker.app, "page_events", small_pages)
    return asked


def test_streamed_undo_and_redo_decide_and_refuse_exactly_as_the_plain_way(
        store: str, open_trek: OpenTrek, pages_of_two: list[int | None]) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)                                    # 1 .. 14

    # Refused: the move to 6,1 starts where the move E E E ended.
    expected = the_plain_way(trek, [9], undo=True)
    assert isinstance(expected, str)
    assert "event 11 (Moved)" in expected
    assert streamed(lambda: trek.handle(None, Undo(9))) == expected
    assert pages_of_two
    assert all(limit == 2 for limit in pages_of_two)

    # Refused as the stream reaches it: the campaign's start keeps the books.
    expected = the_plain_way(trek, [1], undo=True)
    assert "keeps the books" in str(expected)
    assert streamed(lambda: trek.handle(None, Undo(1))) == expected

    # A cascade cancels the move and everything that needed it, as before.
    expected = the_plain_way(trek, [9], undo=True, cascade=True)
    assert not isinstance(expected, str)
    assert expected[1][:2] == [9, 11]
    assert streamed(lambda: trek.handle(None, Undo(9, cascade=True))) == expected     # 15

    # Already cancelled, and a redo refused or allowed the same way.
    expected = the_plain_way(trek, [11], undo=True)
    assert "already cancelled by event 15" in str(expected)
    assert streamed(lambda: trek.handle(None, Undo(11))) == expected
    expected = the_plain_way(trek, [11], undo=False)
    assert "restoring it would break the rules" in str(expected)
    assert streamed(lambda: trek.handle(None, Redo(11))) == expected
    expected = the_plain_way(trek, [9, 11], undo=False)
    assert streamed(lambda: trek.handle(None, Redo(15))) == expected                 # 16
    assert trek.queries.status(None)["position"] == {"x": 6, "y": 1}


def test_the_game_before_an_event_is_right_when_a_later_reversal_changed_earlier_events(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)                                    # 1 .. 14
    trek.handle(None, Undo(13))                                      # 15: the harm
    trek.handle(None, StartDay())                                     # 16
    trek.handle(None, Move(MoveOptions(steps=("E",))))               # 17
    trek.handle(None, EndDay(DayEndOptions()))                      # 18

    # Undoing 14: the harm before it counted when 14 was recorded and does not now, so the
    # stored state at 13 does not serve and the game is folded from the start.
    for seq in (14, 12, 17):
        expected = the_plain_way(trek, [seq], undo=True, cascade=True)
        assert streamed(lambda seq=seq: trek.handle(None, Undo(seq, cascade=True))) == expected
        trek.handle(None, Redo(trek.queries.status(None)["events"]))
    assert trek.verify_views()["verified"]


def test_page_events_reads_every_event_once_in_order_in_pages(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)
    # Another campaign's rows in the same table, interleaved: none of them is read.
    trek.init("Other Road", map_text=None)
    trek.handle("ashes-road", Harm("Kira", 1, 0, reason=None))
    trek.handle("other-road", StartSession("first"))
    cid = campaign_id("ashes-road")
    # Each event as eventsourcing's own repository reads it, and its link in the chain (the
    # hash of the row it was read from).
    every = [(type(e), e.model_dump(), e.event_hash()) for e in trek.app.events.get(cid)]
    assert len(every) == 15

    def read(**bounds: Any) -> list[Any]:
        return [(type(e), e.model_dump(), e.event_hash())
                for e in page_events(trek.app.events, cid, **bounds)]

    for page in (1, 3, 14, 500):
        assert read(page=page) == every
        assert read(gt=4, lte=11, page=page) == every[4:11]
        assert read(gt=13, page=page) == every[13:]
        assert read(lte=2, page=page) == every[:2]
        assert read(gt=15, page=page) == []


# -- the log ------------------------------------------------------------------------------------


def old_log_entry(event: TrekEvent, day: int, cancelled_by: int | None) -> dict[str, Any]:
    """A log entry as the log made it when each row stored the event's document, with who the
    event was for after its GM (added since)."""
    document = json.loads(json.dumps(event_document(event), sort_keys=True,
                                     separators=(",", ":")))
    return {"seq": event.seq, "type": type(event).__name__, "day": day,
            "session": event.session, "gm": event.gm, "actor": event.recorded_for.name,
            "requested_by": event.recorded_for.seat,
            "recorded_at": event.timestamp.isoformat(), "cancelled_by": cancelled_by,
            **{k: v for k, v in document.items() if k not in ("seq", "type")}}


def journey_with_every_roll(trek: Trek) -> None:
    record_full_day(trek)                                    # shortcut, forced march, forage
    trek.handle(None, StartSession("Night"))
    trek.handle(None, StartDay())
    trek.handle(None, TravelByNight(roll=8))
    trek.handle(None, Move(MoveOptions(steps=("E",))))
    trek.handle(None, Undo(reason="wrong fork"))
    trek.handle(None, EndDay(DayEndOptions(hours=6)))
    trek.handle(None, StartDay())
    trek.handle(None, Repair(conveyance="Dusty", by="Oren", roll=6))
    trek.handle(None, EndDay(DayEndOptions()))
    trek.handle(None, EndSession())


def test_the_log_reads_the_same_documents_in_the_same_key_order_as_before(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    journey_with_every_roll(trek)
    log = trek.queries.log(None)
    events = events_of(trek)
    assert [e["seq"] for e in log] == [e.seq for e in events]
    for entry, event in zip(log, events, strict=True):
        expected = old_log_entry(event, entry["day"], entry["cancelled_by"])
        assert entry == expected
        # The same keys in the same order, so `trek log --json` prints the same text.
        assert json.dumps(entry) == json.dumps(expected)

    # A rebuild gives the same log and status, and the views verify.
    status = trek.queries.status(None)
    trek.replay()
    assert trek.queries.log(None) == log
    assert trek.queries.status(None) == status
    assert trek.verify_views()["verified"]


def test_a_log_entry_read_from_the_event_store_reads_as_the_event_made_it() -> None:
    # given an event and its index row (seq, type, day, session, cancelled_by)
    trek = Trek.open(f"memory:{UUID(int=7)}", rulesets=RULESETS, create=True, gm="gm")
    try:
        record_full_day(trek)
        forage = events_of(trek)[11]
        row = (forage.seq, "Foraged", 1, forage.session, None)
        types = RULESETS.event_types("besm")
        # when the log reads the event's own stored JSON beside it
        [entry] = log_entries([(*row, canonical_bytes(forage.stored_state()))], types)
        # then the entry is the one the log made when it kept the event's document
        assert entry == old_log_entry(forage, 1, None)
    finally:
        trek.close()


# -- folding ------------------------------------------------------------------------------------


def test_a_reversal_corrects_only_what_it_touches_to_the_same_game_as_patching_it_whole(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    journey_with_every_roll(trek)
    trek.handle(None, Undo(9, cascade=True))
    trek.handle(None, Redo(trek.queries.status(None)["events"]))
    game = Game()
    reversals = 0
    for event in events_of(trek):
        if isinstance(event, EventsCancelled | EventsRestored):
            reversals += 1
            whole = Game.model_validate(apply(game.dump(), event.corrections))
            event.apply_to(game)
            assert game.dump() == whole.dump()
        else:
            event.apply_to(game)
    assert reversals == 3


def test_decoding_stored_bytes_directly_gives_the_same_event_as_decoding_the_dict(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    journey_with_every_roll(trek)
    cid = campaign_id("ashes-road")
    stored = list(trek.app.recorder.select_events(cid))
    assert trek.app.snapshots is not None
    stored += list(trek.app.snapshots.recorder.select_events(cid))
    assert isinstance(trek.app.mapper, PydanticMapper)
    rows = RowDecoder(trek.app.mapper)
    for row in stored:
        # The class the store's allow-list names (a shared event kept apart from
        # `domain.events` is stored under its name all the same).
        cls = trek.app.mapper.topics.resolve(row.topic, row.originator_id, lambda _: None)
        state = upcast(cls, json.loads(row.state))
        plain = cls.model_validate({**state, "originator_id": row.originator_id,
                                    "originator_version": row.originator_version})
        for originator_id in (row.originator_id, str(row.originator_id),
                              UUID(str(row.originator_id)).hex):
            fast = decode_event(cls, row.state, originator_id, row.originator_version,
                                row.topic)
            # A rebuild's decoder: the stored JSON validated as it is, the row's place set.
            batch = rows.fields(originator_id, row.originator_version, row.topic,
                                bytes(row.state))
            for made in (fast, batch):
                assert type(made) is cls
                assert repr(made.model_dump()) == repr(plain.model_dump())
                assert made == plain
                assert made.model_fields_set == plain.model_fields_set
                if isinstance(made, TrekEvent):
                    assert made.event_hash() == plain.event_hash()


def test_a_save_that_passes_a_multiple_of_the_snapshot_interval_takes_a_snapshot(
        store: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tracker.app, "SNAPSHOT_EVERY", 5)
    trek = open_trek(store, create=True)
    record_full_day(trek)                         # one event a save: snapshots at 5 and 10
    campaign = trek._load("ashes-road")
    for _ in range(3):                            # 15, 16, 17 in one save: passes 15
        campaign.stamp = trek._stamp()
        campaign.handle(Harm("Kira", 1, 0, None))
    trek._save(campaign)
    trek.catch_up()
    assert trek.app.snapshots is not None
    versions = [s.originator_version for s in
                trek.app.snapshots.recorder.select_events(campaign_id("ashes-road"))]
    assert versions == [5, 10, 17]
    assert trek.verify_views()["verified"]

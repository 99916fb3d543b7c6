"""Snapshots hold the campaign's state; which events were cancelled is read by key.

A snapshot no longer carries the map of every cancellation ever made: the write side asks the
read model `trek_view_cancellations` about the events it needs, after making sure it has
folded at least as far as the snapshot. Checked on memory, SQLite and PostgreSQL: a new
snapshot has no map, a command after a process stopped between an append and the read-model
update still decides on the cancellations as they are, and random undo/redo histories give
the same answers by key as the map folded from the events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tracker.app
from domain.campaign import campaign_id
from domain.commands.history import Redo, Undo
from domain.commands.roster import AddCharacter, Harm
from domain.errors import RuleViolation
from domain.events import EventsCancelled, EventsRestored, TrekEvent
from domain.history import fold_live
from domain.options import CharacterOptions
from domain.roster_events import Harmed
from tracker.app import Trek

OpenTrek = Callable[..., Trek]
SLUG = "ashes-road"


def started(trek: Trek) -> None:
    trek.init("Ashes Road", seed=3)
    trek.handle(None, AddCharacter(CharacterOptions(
        name="Kira", extra={"body": 6, "mind": 5, "soul": 4})))


def harm(trek: Trek, times: int) -> None:
    for _ in range(times):
        trek.handle(None, Harm("Kira", 1, 0, None))


def folded_map(trek: Trek, slug: str = SLUG, upto: int | None = None) -> dict[int, int]:
    """The cancellations folded straight from the stored events, the plain way."""
    cancelled: dict[int, int] = {}
    for event in trek.app.events.get(campaign_id(slug), lte=upto):
        if isinstance(event, EventsCancelled):
            cancelled.update(dict.fromkeys(event.cancels, event.seq))
        elif isinstance(event, EventsRestored):
            for seq in event.restores:
                cancelled.pop(seq, None)
    return cancelled


def snapshot_states(trek: Trek) -> list[tuple[int, dict[str, Any]]]:
    assert trek.app.snapshots is not None
    return [(s.originator_version, s.state)  # type: ignore[attr-defined]
            for s in trek.app.snapshots.get(campaign_id(SLUG))]


@pytest.fixture
def snapshot_every_ten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tracker.app, "SNAPSHOT_EVERY", 10)


def test_a_new_snapshot_holds_no_map_of_cancellations(
        store: str, open_trek: OpenTrek, snapshot_every_ten: None) -> None:
    trek = open_trek(store, create=True)
    started(trek)                                            # 1, 2
    harm(trek, 3)                                            # 3, 4, 5
    trek.handle(None, Undo(4))                                       # 6 cancels 4
    harm(trek, 6)                                            # 7 .. 12

    states = snapshot_states(trek)
    assert [version for version, _ in states] == [10]
    assert "cancelled" not in states[0][1]

    # Loaded from that snapshot, the campaign still knows event 4 is cancelled, by event 6.
    campaign = trek._load(SLUG)
    assert campaign.kept_at == 10
    assert campaign.cancelled_by(4) == 6
    assert campaign.cancelled_in(1, 12) == {4: 6}
    with pytest.raises(RuleViolation, match="event 4 was already cancelled by event 6"):
        trek.handle(None, Undo(4))
    [redo] = trek.handle(None, Redo(6))
    assert redo["restores"] == [4]
    assert trek.queries.status(None)["characters"]["Kira"]["health"] == 50 - 9
    assert trek.verify_views()["verified"] is True


def test_a_command_after_a_stop_between_append_and_update_decides_on_todays_map(
        store: str, open_trek: OpenTrek, snapshot_every_ten: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    trek = open_trek(store, create=True)
    started(trek)                                            # 1, 2
    harm(trek, 7)                                            # 3 .. 9
    # The undo lands at version 10, so its snapshot is written; the process then stops before
    # the read models fold it.
    with monkeypatch.context() as patch:
        patch.setattr(Trek, "_finish", lambda self, events: None)
        patch.setattr(Trek, "_fold_appended", lambda self, *_args: None)
        [undo] = trek.handle(None, Undo(5))
    assert undo["seq"] == 10
    assert [version for version, _ in snapshot_states(trek)] == [10]
    assert trek.views.query("SELECT events FROM trek_view_campaigns")[0][0] == 9
    assert trek.views.query("SELECT COUNT(*) FROM trek_view_cancellations")[0][0] == 0

    # A read-only look folds what the read models lack from the event store ...
    if not store.startswith("memory:"):
        reader = open_trek(store, writable=False)
        assert reader._load(SLUG).cancelled_by(5) == 10
        assert reader.views.query("SELECT events FROM trek_view_campaigns")[0][0] == 9

    # ... and the next command catches them up before it decides: event 5 stays cancelled once.
    again = open_trek(store)
    with pytest.raises(RuleViolation, match="event 5 was already cancelled by event 10"):
        again.handle(None, Undo(5))
    assert again.views.query("SELECT events FROM trek_view_campaigns")[0][0] == 10
    [redo] = again.handle(None, Redo(10))
    assert redo["restores"] == [5]
    assert folded_map(again) == {}
    assert again.queries.status(None)["characters"]["Kira"]["health"] == 50 - 7


# One step of a history: harm Kira, undo the n-th live harm, or redo the n-th cancelled one.
STEP = st.one_of(st.tuples(st.just("harm"), st.integers(1, 3)),
                 st.tuples(st.just("undo"), st.integers(0, 50), st.booleans()),
                 st.tuples(st.just("redo"), st.integers(0, 50)))
_examples = iter(range(1, 10**6))


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEP, min_size=4, max_size=24))
def test_cancellations_read_by_key_agree_with_the_map_folded_from_the_events(
        store: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch,
        steps: list[tuple[Any, ...]]) -> None:
    monkeypatch.setattr(tracker.app, "SNAPSHOT_EVERY", 4)
    # Each example plays a campaign of its own in the test's store.
    number = next(_examples)
    trek = open_trek(store, create=True)
    slug = trek.init(f"Road {number}", seed=number)[0]["slug"]
    trek.handle(slug, AddCharacter(CharacterOptions(
        name="Kira", extra={"body": 6, "mind": 5, "soul": 4})))
    cid = campaign_id(slug)
    for step in steps:
        folded = folded_map(trek, slug)
        harms = [e.seq for e in trek.app.events.get(cid) if isinstance(e, Harmed)]
        try:
            if step[0] == "harm":
                trek.handle(slug, Harm("Kira", step[1], 0, None))
            elif step[0] == "undo":
                live = [s for s in harms if s not in folded]
                if live:
                    trek.handle(slug, Undo(live[step[1] % len(live)], cascade=step[2]))
            else:
                gone = sorted(folded)
                if gone:
                    trek.handle(slug, Redo(gone[step[1] % len(gone)]))
        except RuleViolation:
            pass
        campaign = trek._load(slug)
        expected = folded_map(trek, slug)
        assert campaign.cancelled_in(1, campaign.version) == expected
        assert all(campaign.cancelled_by(seq) == expected.get(seq)
                   for seq in range(1, campaign.version + 1))
        live_now = campaign.live_in_order()
        assert [seq for seq in range(1, campaign.version + 1) if not live_now(seq)] == sorted(
            expected)
    # ... and at every earlier version too, as time travel and undo load them.
    last = trek._load(slug).version
    for version in range(1, last + 1):
        past = trek.reader.get(cid, version=version)
        assert past.cancelled_in(1, version) == folded_map(trek, slug, version)
    expected = folded_map(trek, slug)
    health = trek.queries.status(slug)["characters"]["Kira"]["health"]
    assert health == max(0, 50 - sum(e.health for e in trek.app.events.get(cid)
                                     if isinstance(e, Harmed) and e.seq not in expected))


def test_verify_names_a_damaged_table_of_cancellations_and_replay_mends_it(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    started(trek)                                            # 1, 2
    harm(trek, 2)                                            # 3, 4
    trek.handle(None, Undo(3))                                       # 5 cancels 3
    assert trek.verify_views()["verified"] is True
    with trek.views.transaction() as cursor:
        cursor.execute("DELETE FROM trek_view_cancellations")
    report = trek.verify_views()
    assert report["verified"] is False
    assert any("the cancellations kept by key are {} but the log gives {3: 5}" in problem
               for problem in report["differences"])
    trek.replay()
    assert trek.verify_views()["verified"] is True
    assert trek._load(SLUG).cancelled_in(1, 5) == {3: 5}


def test_the_game_before_any_event_is_the_fold_of_the_events_live_today(
        store: str, open_trek: OpenTrek, snapshot_every_ten: None) -> None:
    """`_game_before` starts from a stored state when it can (before the earliest event a
    later reversal changed); it must give what folding the live events from the start gives."""
    trek = open_trek(store, create=True)
    started(trek)                                            # 1, 2
    harm(trek, 12)                                           # 3 .. 14
    trek.handle(None, Undo(6))                                       # 15
    harm(trek, 3)                                            # 16 .. 18
    trek.handle(None, Undo(12))                                      # 19
    trek.handle(None, Undo(17))                                      # 20
    trek.handle(None, Redo(15))                                      # 21 restores 6
    trek.handle(None, Undo(4))                                       # 22
    harm(trek, 5)                                            # 23 .. 27
    campaign = trek._load(SLUG)
    events = [e for e in trek.app.events.get(campaign_id(SLUG)) if isinstance(e, TrekEvent)]
    for first in range(1, campaign.version + 1):
        expected = fold_live(events[:first - 1], campaign.is_live)
        assert trek._game_before(campaign, first).dump() == expected.dump(), first
    # An undo refused for a target already cancelled says so before anything is folded.
    with pytest.raises(RuleViolation, match="event 17 was already cancelled by event 20"):
        trek.handle(None, Undo(17))

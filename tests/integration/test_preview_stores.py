"""A previewing Trek decides each event as recording would and stores nothing, on every store:
no event, no read model, no snapshot, and no store where there was none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import tracker.app
from domain.campaign import campaign_id
from domain.commands.days import StartDay
from domain.commands.history import Undo
from domain.commands.roster import AddCharacter
from domain.commands.supplies import AddSupplies, SetSupplies
from domain.errors import RuleViolation
from domain.options import CharacterOptions
from tracker.app import Trek
from tracker.stores import StoreError

OpenTrek = Callable[..., Trek]


def kept(trek: Trek) -> tuple[Any, ...]:
    """What a preview must leave as it was: the log, the read models and the snapshots."""
    cid = campaign_id("long-road")
    assert trek.app.snapshots is not None
    return (trek.app.recorder.max_notification_id(), trek.queries.status(None),
            trek.queries.log(None),
            [s.originator_version for s in trek.app.snapshots.recorder.select_events(cid)])


def test_a_preview_of_the_event_due_a_snapshot_stores_nothing_and_equals_the_record(
        store: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tracker.app, "SNAPSHOT_EVERY", 5)
    # given a campaign of 4 events, the next one due a snapshot
    trek = open_trek(store, create=True)
    trek.init("Long Road", seed=5)
    trek.handle(None, AddCharacter(CharacterOptions(name="Kira",
                                              extra={"body": 6, "mind": 5, "soul": 4})))
    trek.handle(None, SetSupplies({"provisions": 10}))
    trek.handle(None, StartDay())
    before = kept(trek)
    assert before[-1] == []
    # when a previewing Trek previews the fifth and an undo
    previewing = open_trek(store, preview=True)
    shown = previewing.handle(None, AddSupplies({"provisions": 2}))
    undo_shown = previewing.handle(None, Undo())
    # then it is the event recording gives, and nothing was stored
    assert shown == [{"seq": 5, "type": "SuppliesAdded", "party": "main",
                      "amounts": {"provisions": 2}}]
    assert undo_shown[0]["seq"] == 5
    assert undo_shown[0]["cancels"] == [4]
    assert kept(trek) == before
    assert kept(previewing) == before
    assert previewing.appended == []
    # and recording it takes the snapshot a preview did not
    assert trek.handle(None, AddSupplies({"provisions": 2})) == shown
    assert kept(trek)[-1] == [5]


def test_a_preview_never_makes_a_store_and_init_has_no_preview(
        store: str, open_trek: OpenTrek) -> None:
    with pytest.raises(StoreError):
        open_trek(store, create=True, preview=True)
    # the store was not made: opening it plainly finds nothing either
    with pytest.raises(StoreError):
        open_trek(store)
    open_trek(store, create=True).init("Long Road", seed=5)
    with pytest.raises(RuleViolation, match="no preview"):
        open_trek(store, preview=True).init("Other Road", seed=5)
    assert [c["slug"] for c in open_trek(store).campaigns()] == ["long-road"]


def test_handle_with_preview_on_a_store_open_to_record_stores_nothing(
        store: str, open_trek: OpenTrek) -> None:
    # given a campaign of 3 events on a store open to record
    trek = open_trek(store, create=True)
    trek.init("Long Road", seed=5)
    trek.handle(None, AddCharacter(CharacterOptions(name="Kira",
                                                    extra={"body": 6, "mind": 5, "soul": 4})))
    trek.handle(None, SetSupplies({"provisions": 10}))
    before = kept(trek)
    # when the same Trek previews a supply and an undo of event 3
    shown = trek.handle(None, AddSupplies({"provisions": 2}), preview=True)
    undo_shown = trek.handle(None, Undo(3), preview=True)
    # then each is the event recording would give, as event 4, and nothing was stored
    assert shown == [{"seq": 4, "type": "SuppliesAdded", "party": "main",
                      "amounts": {"provisions": 2}}]
    assert undo_shown[0]["seq"] == 4
    assert undo_shown[0]["cancels"] == [3]
    assert undo_shown[0]["targets"][0]["type"] == "SuppliesSet"
    assert kept(trek) == before
    assert trek.appended[-1].seq == 3
    # and recording the supply gives the event the preview showed
    assert trek.handle(None, AddSupplies({"provisions": 2})) == shown

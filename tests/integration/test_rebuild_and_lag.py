"""Rebuilds are all or nothing, and read models a few events behind the log never show.

Run on memory, SQLite and PostgreSQL (the `store` fixture).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import OpenTrek
from journeys import record_full_day

import projections.projector
import tracker.app
from domain.commands.supplies import AddSupplies
from tracker.stores import StoreError


def test_a_rebuild_that_fails_part_way_leaves_the_read_models_as_they_were(
        store: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)                 # 14 events
    before = trek.queries.status(None)
    log_before = trek.queries.log(None)
    position = trek.projector.position()
    assert position > 0
    # Batches of 5, and the third batch's write of its log rows fails: two batches are
    # written by then.
    monkeypatch.setattr(projections.projector, "REBUILD_BATCH", 5)
    real_save = projections.projector.save_log
    saves: list[int] = []

    def failing_save(cursor: Any, view: Any, **options: Any) -> None:
        saves.append(view.events)
        if len(saves) == 3:
            raise OSError("disk full")
        real_save(cursor, view, **options)

    monkeypatch.setattr(projections.projector, "save_log", failing_save)
    with pytest.raises(StoreError, match=r"the rebuild failed \(OSError: disk full\); the read "
                                         r"models were left as they were"):
        trek.replay()
    assert saves == [5, 10, 14]
    # Nothing of the half-done rebuild shows: the stored read models are the old ones.
    monkeypatch.setattr(projections.projector, "save_log", real_save)
    assert trek.projector.position() == position
    assert trek.campaigns() == [{"slug": "ashes-road", "name": "Ashes Road", "ruleset": "besm",
                                 "events": 14}]
    assert trek.queries.status(None) == before
    assert trek.queries.log(None) == log_before
    assert trek.verify_views()["verified"] is True


def test_read_models_behind_the_log_are_folded_in_by_every_read(
        store: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)
    provisions = trek.queries.status(None)["supplies"]["provisions"]
    # A process stopped between its append and the read-model update: the event is in the
    # log, the read models never heard of it.
    monkeypatch.setattr(tracker.app.Trek, "_finish", lambda self, events: None)
    monkeypatch.setattr(tracker.app.Trek, "_fold_appended", lambda self, *_args: None)
    trek.handle(None, AddSupplies({"provisions": 3}))
    monkeypatch.undo()
    assert trek.projector.lag() == 1
    status = trek.queries.status(None)
    assert (status["events"], status["supplies"]["provisions"]) == (15, provisions + 3)
    assert [entry["seq"] for entry in trek.queries.log(None)][-1] == 15
    # Verify says the stored read models are behind, which is not a difference.
    assert trek.verify_views() == {"verified": True, "differences": [], "behind": 1}
    # The next recording command stores them.
    trek.handle(None, AddSupplies({"ammo": 1}))
    assert trek.projector.lag() == 0
    assert trek.verify_views() == {"verified": True, "differences": [], "behind": 0}

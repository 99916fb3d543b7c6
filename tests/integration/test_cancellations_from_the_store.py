"""Undo and redo decide on the campaign's undos and redos as the event store holds them.

Loaded from a snapshot, a campaign learns which events stood cancelled from the reversals
stored before it, never from the read models: with the kept table of cancellations emptied and
filled with false rows behind Trek's back, undo, redo and their re-checks decide exactly as
the log says, on memory, SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import tracker.reading
from domain.campaign import campaign_id
from domain.commands.history import Redo, Undo
from domain.commands.roster import AddCharacter, Harm
from domain.commands.supplies import AddSupplies
from domain.errors import RuleViolation
from domain.options import CharacterOptions
from tracker.app import SNAPSHOT_EVERY, Trek
from tracker.reversals import INDEX_NAME
from tracker.stores import StoreKind

OpenTrek = Callable[..., Trek]
SLUG = "long-road"
CID = campaign_id(SLUG)


def long_campaign(trek: Trek) -> None:
    """104 events, a snapshot at 100; at the end 5 stands cancelled by 16 and 8 by 14."""
    trek.init("Long Road", seed=5)                                        # 1
    trek.handle(None, AddCharacter(CharacterOptions(
        name="Kira", extra={"body": 6, "mind": 5, "soul": 4})))           # 2
    for _ in range(10):
        trek.handle(None, Harm("Kira", 1, 0, None))                       # 3 .. 12
    trek.handle(None, Undo(5))                                            # 13 cancels 5
    trek.handle(None, Undo(8))                                            # 14 cancels 8
    trek.handle(None, Redo(13))                                           # 15 restores 5
    trek.handle(None, Undo(5))                                            # 16 cancels 5
    trek.handle(None, Undo(10))                                           # 17 cancels 10
    trek.handle(None, Redo(17))                                           # 18 restores 10
    while trek._load(SLUG).version < SNAPSHOT_EVERY + 4:
        trek.handle(None, AddSupplies({"provisions": 1}))                       # 19 .. 104


def falsify_kept_cancellations(trek: Trek) -> None:
    """Behind Trek's back: every kept row deleted, and rows that say otherwise written."""
    with trek.views.transaction() as cursor:
        cursor.execute("DELETE FROM trek_view_cancellations")
        cursor.executemany(
            "INSERT INTO trek_view_cancellations (campaign_id, seq, reversal, cancels) "
            "VALUES (?, ?, ?, ?)", [(str(CID), 7, 13, 1), (str(CID), 8, 15, 0),
                                    (str(CID), 5, 15, 0)])


def health(trek: Trek) -> Any:
    return trek.queries.status(None)["characters"]["Kira"]["health"]


def test_undo_and_redo_decide_on_the_stored_reversals_not_the_read_model(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    long_campaign(trek)
    assert health(trek) == 50 - 8
    falsify_kept_cancellations(trek)

    trek = open_trek(store)
    campaign = trek._load(SLUG)
    assert (campaign.kept_at, campaign.version) == (SNAPSHOT_EVERY, SNAPSHOT_EVERY + 4)
    assert campaign.cancelled_in(1, campaign.version) == {5: 16, 8: 14}
    assert [campaign.cancelled_by(seq) for seq in (5, 7, 8, 10)] == [16, None, 14, None]
    # As time travel loads it, at the version of a reversal before the snapshot too.
    assert trek.reader.get(CID, version=SNAPSHOT_EVERY).cancelled_in(1, 20) == {5: 16, 8: 14}

    with pytest.raises(RuleViolation, match="event 5 was already cancelled by event 16"):
        trek.handle(None, Undo(5))
    with pytest.raises(RuleViolation, match="event 8 was already cancelled by event 14"):
        trek.handle(None, Undo(8))
    # 13 cancelled 5, which 15 restored and 16 cancelled again: nothing of 13's is left.
    with pytest.raises(RuleViolation, match="everything event 13 cancelled is already restored"):
        trek.handle(None, Redo(13))

    [undo] = trek.handle(None, Undo(7))
    assert (undo["seq"], undo["cancels"]) == (105, [7])
    [redo] = trek.handle(None, Redo(16))
    assert (redo["seq"], redo["restores"]) == (106, [5])
    [redo] = trek.handle(None, Redo(14))
    assert (redo["seq"], redo["restores"]) == (107, [8])
    [undo] = trek.handle(None, Undo(10))
    assert (undo["seq"], undo["cancels"]) == (108, [10])

    after = open_trek(store)._load(SLUG)
    assert after.cancelled_in(1, after.version) == {7: 105, 10: 108}
    # Harms 3 .. 12 stand but for 7 and 10.
    assert health(trek) == 50 - 8
    # The read model is mended by a replay; the log never needed it.
    trek.replay()
    assert trek.verify_views()["verified"] is True
    assert health(trek) == 50 - 8


def test_a_command_that_never_asks_reads_no_reversal(
        store: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch) -> None:
    trek = open_trek(store, create=True)
    long_campaign(trek)
    reads: list[tuple[Any, ...]] = []
    real = tracker.reading.reversal_rows

    def counted(*args: Any) -> Any:
        reads.append(args)
        return real(*args)

    monkeypatch.setattr(tracker.reading, "reversal_rows", counted)
    trek = open_trek(store)
    trek.handle(None, Harm("Kira", 1, 0, None))
    assert reads == []
    assert trek.handle(None, Undo(7))[0]["cancels"] == [7]
    assert len(reads) == 1


def test_a_store_without_the_index_of_reversals_is_read_and_given_it_on_recording(
        db: str, open_trek: OpenTrek) -> None:
    trek = open_trek(db, create=True)
    long_campaign(trek)
    with trek.views.transaction() as cursor:
        cursor.execute(f"DROP INDEX {INDEX_NAME}")
        cursor.execute("DELETE FROM trek_meta WHERE key = 'schema'")

    reader = open_trek(db, writable=False)
    assert reader._load(SLUG).cancelled_in(1, 20) == {5: 16, 8: 14}
    assert not _has_index(reader)

    writer = open_trek(db)
    assert _has_index(writer)
    with pytest.raises(RuleViolation, match="event 5 was already cancelled by event 16"):
        writer.handle(None, Undo(5))


def _has_index(trek: Trek) -> bool:
    if trek.location.kind is StoreKind.POSTGRES:
        return trek.views.query("SELECT to_regclass(?)", (INDEX_NAME,))[0][0] is not None
    return bool(trek.views.query(
        "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (INDEX_NAME,)))


"""Which events were cancelled, kept by key: one row per event a reversal named.

The write side asks whether event N stands cancelled, or which events of a range of seqs do,
and never needs every cancellation a long campaign has made. Snapshots therefore hold the
campaign's state only, and this read model answers by key: a row (campaign, seq, reversal,
cancels) for each event a reversal cancelled (`cancels` 1) or restored (0). Keeping every
reversal's rows, not only the latest, answers as of any version: what stood at version V is
each seq's row with the largest reversal at or before V. It is written in the transaction that
folds the reversals, with the other read models and their tracking position.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache, singledispatch
from typing import Any

from domain.campaign import overlay
from domain.events import EventsCancelled, EventsRestored, TrekEvent
from projections.db import CANCELLATIONS as TABLE
from projections.db import Cursor, Database


def save_cancellations(cursor: Cursor, reversals: Iterable[TrekEvent]) -> None:
    """Write the rows of the reversals just folded (any other event is passed over)."""
    rows: list[tuple[str, int, int, int]] = []
    for event in reversals:
        rows.extend(_rows(event))
    if rows:
        cursor.executemany(
            f"INSERT INTO {TABLE} (campaign_id, seq, reversal, cancels) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (campaign_id, seq, reversal) DO NOTHING", rows)


@singledispatch
def _rows(event: TrekEvent) -> list[tuple[str, int, int, int]]:
    """A reversal's rows (campaign, seq, reversal, cancels); any other event has none."""
    return []


@_rows.register
def _(event: EventsCancelled) -> list[tuple[str, int, int, int]]:
    cid = str(event.originator_id)
    return [(cid, seq, event.seq, 1) for seq in event.cancels]


@_rows.register
def _(event: EventsRestored) -> list[tuple[str, int, int, int]]:
    cid = str(event.originator_id)
    return [(cid, seq, event.seq, 0) for seq in event.restores]


def kept_map(db: Database, campaign_id: str) -> dict[int, int]:
    """Every event the table says stands cancelled now -> its reversal (`trek replay
    --verify` compares it with the fold)."""
    return _standing(db.query(
        f"SELECT seq, reversal, cancels FROM {TABLE} WHERE campaign_id = ? "
        "ORDER BY seq, reversal", (campaign_id,)))


def _standing(rows: Iterable[Sequence[Any]]) -> dict[int, int]:
    """The rows (seq, reversal, cancels), ordered by seq and reversal, as what stands
    cancelled: each seq's latest row decides."""
    found: dict[int, int] = {}
    overlay(found, ((int(seq), int(reversal) if cancels else None)
                    for seq, reversal, cancels in rows))
    return found


# What the read models have not folded yet: cancelled seq -> reversal, or None (restored).
Unfolded = dict[int, int | None]


def unfolded(events: Iterable[TrekEvent]) -> Unfolded:
    """What the reversals among `events` (in order) did to the events they named."""
    changes: Unfolded = {}
    for event in events:
        _unfold_of(type(event))(event, changes)
    return changes


@singledispatch
def _unfold(event: TrekEvent, changes: Unfolded) -> None:
    """Note what a reversal did to the events it named: any other event did nothing."""


@_unfold.register
def _(event: EventsCancelled, changes: Unfolded) -> None:
    changes.update(dict.fromkeys(event.cancels, event.seq))


@_unfold.register
def _(event: EventsRestored, changes: Unfolded) -> None:
    changes.update(dict.fromkeys(event.restores, None))


# Asked once per event class, not once per event (see projections/views.py's `_fold_of`).
_unfold_of = cache(_unfold.dispatch)


class KeptCancellations:
    """One campaign's cancellations as they stood at version `upto`, read by key.

    `prepare` is called before the first read: it brings the read models up to `upto` where it
    can and returns whether the table may be read and what the events it could not fold did
    (read from the event store), so no answer is taken from a read model that is behind.
    """

    def __init__(self, db: Database, campaign_id: str, upto: int,
                 prepare: Callable[[], tuple[bool, Unfolded]]) -> None:
        self.db = db
        self.campaign_id = campaign_id
        self.upto = upto
        self._prepare = prepare
        self._prepared: tuple[bool, Unfolded] | None = None

    def _ready(self) -> tuple[bool, Unfolded]:
        if self._prepared is None:
            self._prepared = self._prepare()
        return self._prepared

    def cancelled_in(self, first: int, last: int) -> dict[int, int]:
        table, late = self._ready()
        found = _standing(self.db.query(
            f"SELECT seq, reversal, cancels FROM {TABLE} WHERE campaign_id = ? "
            "AND seq >= ? AND seq <= ? AND reversal <= ? ORDER BY seq, reversal",
            (self.campaign_id, first, last, self.upto))) if table and first <= last else {}
        overlay(found, ((seq, by) for seq, by in late.items() if first <= seq <= last))
        return found

    def named_after(self, first: int) -> set[int] | None:
        table, late = self._ready()
        named = {seq for seq in late if seq < first}
        if table:
            named.update(int(seq) for (seq,) in self.db.query(
                f"SELECT DISTINCT seq FROM {TABLE} WHERE campaign_id = ? AND reversal >= ? "
                "AND reversal <= ? AND seq < ?", (self.campaign_id, first, self.upto, first)))
        return named

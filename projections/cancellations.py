"""Which events were cancelled, kept by key: one row per event a reversal named.

A read model: a row (campaign, seq, reversal, cancels) for each event a reversal cancelled
(`cancels` 1) or restored (0), written in the transaction that folds the reversals, with the
other read models and their tracking position. Keeping every reversal's rows, not only the
latest, answers as of any version: what stood at version V is each seq's row with the largest
reversal at or before V. `trek replay --verify` compares it with the fold. The write side never
reads it: it reads a campaign's undos and redos from the event store (tracker/reversals.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import singledispatch
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

"""`StoredCancellations` answers which events stand cancelled from a campaign's stored undos and
redos alone, with the answers the kept table of cancellations gives: the latest reversal to
name an event decides, whatever came before it."""

from __future__ import annotations

import json

import pytest

from domain.errors import TamperedLog
from tracker.reversals import Row, StoredCancellations

CANCELLED = "domain.events:EventsCancelled"
RESTORED = "domain.events:EventsRestored"


def cancels(seq: int, *targets: int) -> Row:
    return seq, CANCELLED, json.dumps({"cancels": list(targets), "reason": None}).encode()


def restores(seq: int, *targets: int) -> Row:
    return seq, RESTORED, json.dumps({"restores": list(targets)}).encode()


# Event 10 cancels 3, 11 cancels 5, 12 restores 3, 13 cancels 3 and 4, 14 restores 5,
# 15 cancels 5 again; 20 restores 3, after the version asked about (16).
HISTORY = [cancels(10, 3), cancels(11, 5), restores(12, 3), cancels(13, 3, 4),
           restores(14, 5), cancels(15, 5), restores(20, 3)]


def kept(upto: int, rows: list[Row] = HISTORY) -> StoredCancellations:
    return StoredCancellations(upto, lambda: [row for row in rows if row[0] <= upto])


def test_the_latest_reversal_to_name_an_event_decides() -> None:
    at = kept(16)
    assert at.cancelled_in(1, 20) == {3: 13, 4: 13, 5: 15}
    assert at.cancelled_in(1, 4) == {3: 13, 4: 13}
    assert at.cancelled_in(5, 5) == {5: 15}
    assert at.cancelled_in(6, 9) == {}
    assert at.cancelled_in(4, 3) == {}


def test_each_version_answers_as_things_stood_then() -> None:
    assert kept(9).cancelled_in(1, 9) == {}
    assert kept(10).cancelled_in(1, 9) == {3: 10}
    assert kept(11).cancelled_in(1, 9) == {3: 10, 5: 11}
    assert kept(12).cancelled_in(1, 9) == {5: 11}
    assert kept(13).cancelled_in(1, 9) == {3: 13, 4: 13, 5: 11}
    assert kept(14).cancelled_in(1, 9) == {3: 13, 4: 13}
    assert kept(20).cancelled_in(1, 9) == {4: 13, 5: 15}


def test_rows_past_the_version_are_not_counted_even_when_given() -> None:
    assert StoredCancellations(16, lambda: HISTORY).cancelled_in(1, 9) == {3: 13, 4: 13, 5: 15}


def test_named_after_gives_the_events_a_reversal_from_there_on_named() -> None:
    at = kept(16)
    assert at.named_after(4) == {3}
    assert at.named_after(11) == {3, 4, 5}
    assert at.named_after(12) == {3, 4, 5}
    assert at.named_after(14) == {5}
    assert at.named_after(16) == set()
    # A reversal after the version asked about is not counted.
    assert kept(16).named_after(17) == set()
    assert kept(20).named_after(17) == {3}


def test_rows_given_out_of_order_are_put_in_order() -> None:
    assert StoredCancellations(16, lambda: list(reversed(HISTORY))).cancelled_in(1, 9) == {
        3: 13, 4: 13, 5: 15}


def test_nothing_is_read_until_asked_and_then_once() -> None:
    reads: list[int] = []

    def read() -> list[Row]:
        reads.append(1)
        return HISTORY

    at = StoredCancellations(16, read)
    assert reads == []
    at.cancelled_in(3, 3)
    at.cancelled_in(1, 9)
    at.named_after(12)
    assert reads == [1]


def test_a_reversal_that_cannot_be_read_is_refused_as_a_damaged_log() -> None:
    damaged = [cancels(10, 3), (11, CANCELLED, b'{"cancels": "three"}')]
    with pytest.raises(TamperedLog, match="event 11"):
        StoredCancellations(16, lambda: damaged).cancelled_in(1, 9)
    with pytest.raises(TamperedLog, match="event 12"):
        StoredCancellations(16, lambda: [(12, RESTORED, b"not json")]).named_after(3)

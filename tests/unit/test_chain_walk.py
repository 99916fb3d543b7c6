"""The chain walk names what it finds: an edited event, or rows swapped or moved (which leave
every event as recorded, only in the wrong place), at the right seq."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from domain.links import link_hash
from tracker.chain import check_chain

CAMPAIGN = "00000000-0000-0000-0000-000000000007"
TOPIC = "domain.events:SuppliesAdded"
Rows = list[tuple[int, str, bytes]]


def recorded(n: int) -> Rows:
    """A campaign's rows 1..n as Trek records them, each linked to the one before."""
    rows: Rows = []
    previous = ""
    for seq in range(1, n + 1):
        data = json.dumps({"chain": 2, "prev_hash": previous, "n": seq},
                          sort_keys=True).encode()
        rows.append((seq, TOPIC, data))
        previous = link_hash(2, CAMPAIGN, seq, TOPIC, data)
    return rows


def swapped(rows: Rows, a: int, b: int) -> Rows:
    """Rows `a` and `b` exchanged: each event's bytes stored at the other's seq."""
    out = list(rows)
    out[a - 1], out[b - 1] = (a, *rows[b - 1][1:]), (b, *rows[a - 1][1:])
    return out


@given(st.integers(2, 30).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n - 1))))
def test_adjacent_rows_swapped_are_named_as_swapped(case: tuple[int, int]) -> None:
    n, first = case
    found = check_chain(swapped(recorded(n), first, first + 1), CAMPAIGN)
    assert found.broken_at == first
    assert found.problem is not None
    assert found.problem.startswith(f"events {first} and {first + 1} were swapped")


@given(st.integers(3, 30).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(1, n - 2)).flatmap(lambda c: st.tuples(
        st.just(c[0]), st.just(c[1]), st.integers(c[1] + 2, c[0])))))
def test_a_row_moved_further_is_named_with_where_it_went(case: tuple[int, int, int]) -> None:
    n, a, b = case
    found = check_chain(swapped(recorded(n), a, b), CAMPAIGN)
    assert found.broken_at == a
    assert found.problem == (f"event {a} was moved behind Trek's back: the event recorded as "
                             f"event {a} is now stored as event {b}")


@given(st.integers(2, 30).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n - 1))))
def test_an_edited_event_is_blamed_itself(case: tuple[int, int]) -> None:
    n, edited = case
    rows = recorded(n)
    seq, topic, data = rows[edited - 1]
    rows[edited - 1] = (seq, topic, data.replace(b'"n": ', b'"n": 1'))
    found = check_chain(rows, CAMPAIGN)
    assert found.broken_at == edited
    assert found.problem is not None
    assert found.problem.endswith(f"event {edited} was changed after it was recorded")


@given(st.integers(1, 30))
def test_an_intact_chain_ends_at_its_newest_event(n: int) -> None:
    rows = recorded(n)
    found = check_chain(rows, CAMPAIGN)
    assert (found.intact, found.events) == (True, n)
    assert found.head == link_hash(2, CAMPAIGN, n, TOPIC, rows[-1][2])

"""Trek.queries.log_stream: the log a selection picks, read a page at a time, equal to filtering the
whole log; also when the read models are behind the log. Run on memory, SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import Any

import pytest
from conftest import OpenTrek
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journeys import record_full_day

import tracker.app
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.history import Redo, Undo
from domain.commands.roster import Harm
from domain.commands.sessions import EndSession, StartSession
from domain.commands.supplies import AddSupplies
from projections.logpages import LogFilter
from tracker.app import Trek


def play(trek: Trek) -> None:
    """Events 1-14 of the README's day 1, then two sessions, an undo and a redo (15-27)."""
    record_full_day(trek)                                        # 1-14, day 1, no session
    trek.handle(None, StartSession("One"))                              # 15 opens session 1
    trek.handle(None, StartDay())                                         # 16 day 2
    trek.handle(None, AddSupplies({"ammo": 1}))                      # 17
    trek.handle(None, Undo(None))                                        # 18 cancels 17
    trek.handle(None, Harm("Kira", 1, 0, None))                          # 19
    trek.handle(None, EndSession())                                       # 20
    trek.handle(None, AddSupplies({"wealth": 2}))                    # 21 day 2, no session
    trek.handle(None, StartSession("Two"))                              # 22 opens session 2
    trek.handle(None, Redo(17))                                          # 23 restores 17
    trek.handle(None, EndDay(DayEndOptions()))                          # 24
    trek.handle(None, StartDay())                                         # 25 day 3
    trek.handle(None, Harm("Oren", 2, 0, None))                          # 26
    trek.handle(None, Undo(None))                                        # 27 cancels 26


def picked(whole: Sequence[dict[str, Any]], selection: LogFilter) -> list[dict[str, Any]]:
    """What a selection picks, by filtering the whole log: a session's opening event is the
    SessionStarted whose number it is (it is stamped with the session before)."""
    day, session, since, last = selection.day, selection.session, selection.since, selection.last
    entries = [e for e in whole
               if (day is None or e["day"] == day)
               and (since is None or e["seq"] >= since)
               and (session is None or e["session"] == session
                    or (e["type"] == "SessionStarted" and e["number"] == session))]
    return entries[-last:] if last is not None else entries


SELECTIONS = st.builds(
    LogFilter, day=st.none() | st.integers(0, 4), session=st.none() | st.integers(1, 2),
    since=st.none() | st.integers(1, 30), last=st.none() | st.integers(1, 30))


def check_every_selection(trek: Trek, whole: list[dict[str, Any]]) -> None:
    @settings(max_examples=60, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(selection=SELECTIONS, batch=st.integers(1, 8))
    def check(selection: LogFilter, batch: int) -> None:
        stream = trek.queries.log_stream(None, selection, batch=batch)
        assert list(stream.entries) == picked(whole, selection)

    check()


def test_the_hand_worked_stamps(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    play(trek)
    whole = trek.queries.log(None)
    assert [e["seq"] for e in whole] == list(range(1, 28))
    # Worked by hand (see `play`).
    assert [e["seq"] for e in whole if e["day"] == 2] == list(range(16, 25))
    assert [e["seq"] for e in whole if e["session"] == 1] == [16, 17, 18, 19, 20]
    assert {e["seq"]: e["cancelled_by"] for e in whole if e["cancelled_by"]} == {26: 27}
    stream = trek.queries.log_stream(None, LogFilter(session=1))
    assert [e["seq"] for e in stream.entries] == [15, 16, 17, 18, 19, 20]
    assert (stream.ruleset, stream.events, stream.day) == ("besm", 27, 3)
    assert [e["seq"] for e in trek.queries.log_stream(
        None, LogFilter(session=2, day=2, last=2)).entries] == [23, 24]


def test_every_selection_equals_filtering_the_whole_log(store: str,
                                                        open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    play(trek)
    check_every_selection(trek, trek.queries.log(None))


def test_read_models_behind_the_log_still_give_every_selection(
        store: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch) -> None:
    trek = open_trek(store, create=True)
    play(trek)
    stored = trek.queries.log(None)
    # Three events reach the log but not the read models: a redo of a stored event, a new
    # one and an undo of it, so a stored row's mark changes in memory only.
    monkeypatch.setattr(tracker.app.Trek, "_finish", lambda self, events: None)
    monkeypatch.setattr(tracker.app.Trek, "_fold_appended", lambda self, *_args: None)
    trek.handle(None, Redo(26))                                          # 28 restores 26
    trek.handle(None, AddSupplies({"fuel": 1}))                      # 29
    trek.handle(None, Undo(29))                                          # 30 cancels 29
    monkeypatch.undo()
    assert trek.projector.lag() == 3
    whole = trek.queries.log(None)
    assert [e["seq"] for e in whole] == list(range(1, 31))
    assert whole[:25] == stored[:25]
    assert {e["seq"]: e["cancelled_by"] for e in whole if e["cancelled_by"]} == {29: 30}
    check_every_selection(trek, whole)


def test_rows_are_read_a_page_at_a_time_and_only_as_far_as_asked(
        store: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch) -> None:
    trek = open_trek(store, create=True)
    play(trek)
    fetched: list[int] = []
    real_query = trek.views.query

    def counting(sql: str, params: Sequence[Any] = ()) -> list[Any]:
        rows = real_query(sql, params)
        if "SELECT seq, type, day, session, cancelled_by FROM trek_view_entries" in sql:
            fetched.append(len(rows))
        return rows

    monkeypatch.setattr(trek.views, "query", counting)
    entries = trek.queries.log_stream(None, batch=4).entries
    assert [e["seq"] for e in islice(entries, 3)] == [1, 2, 3]
    assert fetched == [4]                  # one page so far
    assert [e["seq"] for e in entries][-1] == 27
    assert fetched == [4, 4, 4, 4, 4, 4, 3]
    fetched.clear()
    stream = trek.queries.log_stream(None, LogFilter(last=5), batch=4)
    assert [e["seq"] for e in stream.entries] == [23, 24, 25, 26, 27]
    assert sum(fetched) == 5               # the five newest rows, nothing before them

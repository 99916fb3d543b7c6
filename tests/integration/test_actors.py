"""Every command carries its actor (domain/actors.py) onto the event it records, and the log
says it: on memory, SQLite and PostgreSQL, read by the Trek that recorded it, by a fresh one,
and (on disk) by `trek log --json`; the audit counts the GMs whose word recorded a session."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from cliruns import ok
from conftest import OpenTrek, TrekRun

from domain.actors import Actor
from domain.commands.history import Undo
from domain.commands.sessions import StartSession
from domain.commands.supplies import AddSupplies
from domain.errors import RuleViolation

Who = tuple[str, str, str | None]


def who(entries: list[dict[str, Any]]) -> list[Who]:
    """(gm, actor, requested_by) of each log entry, in order."""
    return [(e["gm"], e["actor"], e["requested_by"]) for e in entries]


def test_an_event_recorded_for_an_actor_carries_it_in_the_log(
        store: str, open_trek: OpenTrek, trek_run: Callable[..., TrekRun]) -> None:
    trek = open_trek(store, create=True)  # opened as the GM "gm-test"
    trek.init("Ashes Road")
    trek.handle(None, AddSupplies({"provisions": 1}))
    trek.handle(None, AddSupplies({"provisions": 2}), actor=Actor.gm("Bob"))
    trek.handle(None, StartSession(), actor=Actor.request("mia", approved_by="Bob"))
    trek.handle(None, Undo(seq=3), actor=Actor("Cleo"))
    # Worked out by hand: the store's GM stamps every event; the actor is who the command was
    # for (the store's GM when none is given); only the request names a seat.
    expected: list[Who] = [("gm-test", "gm-test", None), ("gm-test", "gm-test", None),
                           ("gm-test", "Bob", None), ("gm-test", "Bob", "mia"),
                           ("gm-test", "Cleo", None)]
    assert who(list(trek.queries.log(None))) == expected
    fresh = open_trek(store, writable=False)
    assert who(list(fresh.queries.log(None))) == expected
    if not store.startswith("memory:"):
        shown = json.loads(ok(trek_run("log", "--json", db=store)).stdout)
        assert who(shown) == expected
    # Session 1 is its opening (asked by mia, approved by Bob) and Cleo's undo; the events
    # outside any session come last.
    [first, outside] = fresh.queries.audit(None)["sessions"]
    assert (outside["session"], outside["gms"]) == (None, ["gm-test", "Bob"])
    assert (first["session"], first["gms"]) == (1, ["Bob", "Cleo"])
    assert [u["gm"] for u in first["undos"]] == ["Cleo"]


def test_an_actor_with_a_bad_name_or_a_preview_records_nothing(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    trek.init("Ashes Road")
    for actor, said in ((Actor("a=b"), "GM name"), (Actor("Bob", "mia\x07"), "seat name")):
        with pytest.raises(RuleViolation, match=said):
            trek.handle(None, AddSupplies({"provisions": 1}), actor=actor)
    [preview] = trek.handle(None, AddSupplies({"provisions": 1}), preview=True,
                            actor=Actor("Bob"))
    assert preview["seq"] == 2
    assert who(list(open_trek(store, writable=False).queries.log(None))) == [
        ("gm-test", "gm-test", None)]

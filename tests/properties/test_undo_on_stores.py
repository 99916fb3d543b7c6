"""Undo on real stores: for a random legal history and a random undo, the campaign ends up as
if that history had been played without the cancelled events.

The expected state is not folded from the recorded events: the same commands, minus the ones
the undo cancelled, are played again from scratch into a second campaign in the same store,
through the application, with the same given rolls. Runs on memory, SQLite and PostgreSQL.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journeys import MAP

from domain.besm.commands import Forage, ForcedMarch, TakeShortcut, TravelByNight
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.history import Undo
from domain.commands.roster import AddCharacter, AddMount, Harm
from domain.commands.supplies import AddSupplies, SetSupplies
from domain.commands.travel import Move, MoveOptions
from domain.errors import RuleViolation
from domain.geometry import Square
from domain.options import CharacterOptions
from tracker.app import Trek

OpenTrek = Callable[..., Trek]
Command = tuple[Any, ...]

# The party of the README journey on the Ashen Reach, with some fuel and a spare provision.
SETUP: list[Command] = [
    ("character", "Kira", 6, 5, 4, {"ride": 2, "navigation": 2, "survival": 1}),
    ("character", "Oren", 5, 6, 5, {"medicine": 2, "survival": 2}),
    ("mount", "Dusty", "Kira"),
    ("mount", "Bramble", "Oren"),
    ("supplies", {"provisions": 5, "fuel": 1}),
]

ROLL = st.integers(2, 12)
TRAVEL = st.one_of(
    st.tuples(st.just("move"), st.lists(st.sampled_from(["N", "E", "S", "W", "NE", "SE"]),
                                        min_size=1, max_size=2).map(tuple)),
    st.tuples(st.just("forage"), ROLL, st.sampled_from(["Kira", "Oren"])),
    st.tuples(st.just("forced march"), ROLL, ROLL),
    st.tuples(st.just("night travel"), ROLL),
    st.tuples(st.just("shortcut"), ROLL),
    st.tuples(st.just("harm"), st.sampled_from(["Kira", "Oren"]), st.integers(1, 15)),
    st.tuples(st.just("supplies add"), st.integers(1, 3)),
)
# Days of play: each opens, travels a little and (usually) closes.
DAY = st.tuples(st.lists(TRAVEL, max_size=5), st.booleans()).map(
    lambda day: [("day start",), *day[0], *([("day end",)] if day[1] else [])])
HISTORIES = st.lists(DAY, min_size=1, max_size=3).map(
    lambda days: [command for day in days for command in day])


def play(trek: Trek, slug: str, command: Command) -> None:
    """One command through the application, every roll and roller given."""
    kind, *args = command
    if kind == "character":
        name, body, mind, soul, skills = args
        trek.handle(slug, AddCharacter(CharacterOptions(
            name=name, skills=skills, extra={"body": body, "mind": mind, "soul": soul})))
    elif kind == "mount":
        trek.handle(slug, AddMount(args[0], ("ground-speed", 1), args[1]))
    elif kind == "supplies":
        trek.handle(slug, SetSupplies(args[0]))
    elif kind == "supplies add":
        trek.handle(slug, AddSupplies({"provisions": args[0]}))
    elif kind == "day start":
        trek.handle(slug, StartDay())
    elif kind == "day end":
        trek.handle(slug, EndDay(DayEndOptions()))
    elif kind == "move":
        trek.handle(slug, Move(MoveOptions(steps=args[0])))
    elif kind == "forage":
        trek.handle(slug, Forage(by=args[1], take="provisions", roll=args[0]))
    elif kind == "forced march":
        trek.handle(slug, ForcedMarch(rolls={"Kira": args[0], "Oren": args[1]}))
    elif kind == "night travel":
        trek.handle(slug, TravelByNight(by="Kira", roll=args[0]))
    elif kind == "shortcut":
        trek.handle(slug, TakeShortcut(name="Kessel Pass", roll=args[0]))
    elif kind == "harm":
        trek.handle(slug, Harm(args[0], args[1], 0, None))
    else:  # pragma: no cover - the strategy makes no other kind
        raise AssertionError(kind)


def start(trek: Trek, name: str) -> str:
    [started] = trek.init(name, map_text=MAP, at=Square(1, 1), seed=7)
    return str(started["slug"])


def state(trek: Trek, slug: str) -> dict[str, Any]:
    labels = {"campaign", "name", "events", "session"}
    return {k: v for k, v in trek.queries.status(slug).items() if k not in labels}


EXAMPLES = {"memory": 60, "sqlite": 15, "postgres": 15}
_names = itertools.count()


@pytest.mark.slow
def test_an_undo_equals_playing_the_history_without_what_it_cancelled(
        store: str, open_trek: OpenTrek, request: pytest.FixtureRequest) -> None:
    trek = open_trek(store, create=True)
    kind = request.node.callspec.params["store"]

    @settings(max_examples=EXAMPLES[kind], deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(commands=HISTORIES, pick=st.integers(0, 10**6),
           cascade=st.booleans())
    def check(commands: list[Command], pick: int, cascade: bool) -> None:
        n = next(_names)
        slug = start(trek, f"played {n}")
        played: dict[int, Command] = {}
        for command in [*SETUP, *commands]:
            try:
                play(trek, slug, command)
            except RuleViolation:
                continue  # refused: nothing recorded, so it is not part of the history
            played[trek.queries.status(slug)["events"]] = command
        target = sorted(played)[pick % len(played)]
        before = trek.queries.status(slug)

        refusal = ""
        try:
            [reversal] = trek.handle(slug, Undo(target, cascade=cascade))
        except RuleViolation as refused:
            refusal = str(refused)
        if refusal:
            assert not cascade
            assert "add --cascade" in refusal
            assert trek.queries.status(slug) == before  # a refused undo records nothing
            [reversal] = trek.handle(slug, Undo(target, cascade=True))
            # It was refused for the later events that depend on it, each named by its seq.
            dependents = sorted(set(reversal["cancels"]) - {target})
            assert dependents
            assert all(f"event {seq} (" in refusal for seq in dependents)
        cancelled = set(reversal["cancels"])
        assert target in cancelled
        assert cancelled <= set(played)

        again = start(trek, f"expected {n}")
        for seq, command in sorted(played.items()):
            if seq not in cancelled:
                play(trek, again, command)  # every event the undo kept still stands
        assert state(trek, slug) == state(trek, again)

    check()

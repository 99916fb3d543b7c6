"""A plan of one trial with given dice goes exactly as recording the same commands would.

The planner decides each step with the ruleset's own code on an in-memory state; here each step
it took is recorded on a real store through the application, with the totals the plan drew
given as `--roll`, and the store's game state must equal the plan's after every step.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulesets import RULESETS

from domain.besm.commands import (
    FORAGE_ROLL,
    NIGHT_TRAVEL_ROLL,
    SHORTCUT_ROLL,
    Forage,
    ForcedMarch,
    TakeShortcut,
    TravelByNight,
)
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.roster import AddCharacter, AddMount, SetRule
from domain.commands.supplies import SetSupplies
from domain.commands.travel import Move, MoveOptions
from domain.geometry import Square
from domain.options import CharacterOptions
from domain.plan import Planner, Step
from tracker.app import Trek
from tracker.opening import MemoryStores

MAP = """\
[map]
name = "Ridge"
rows = [
  "..........",
  "..^^.,....",
  "..^!.,....",
  "..........",
]

[legend]
"." = { terrain = "open" }
"," = { terrain = "open", penalty = 1 }
"^" = { terrain = "feature", name = "mountains" }
"!" = { terrain = "hazard", name = "ley storm", penalty = 2 }

[[shortcut]]
name = "Kessel Pass"
path = [[2, 1], [3, 1]]
bonus = 2
penalty = 1
"""

_names = itertools.count()


def campaign(trek: Trek, upkeep: int, provisions: int) -> str:
    [started] = trek.init(f"plan {next(_names)}", ruleset="besm", map_text=MAP,
                          at=Square(1, 1), seed=11)
    slug = str(started["slug"])
    trek.handle(slug, AddCharacter(CharacterOptions(
        name="Kira", skills={"ride": 2, "navigation": 2, "survival": 1},
        extra={"body": 6, "mind": 5, "soul": 4})))
    trek.handle(slug, AddCharacter(CharacterOptions(
        name="Oren", skills={"survival": 2}, extra={"body": 5, "mind": 6, "soul": 5})))
    trek.handle(slug, AddMount("Dusty", ("ground-speed", 1), "Kira"))
    trek.handle(slug, AddMount("Bramble", ("ground-speed", 0), "Oren"))
    trek.handle(slug, SetSupplies({"provisions": provisions, "ammo": 2}))
    if upkeep:
        trek.handle(slug, SetRule("upkeep-provisions", upkeep))
    return slug


def record(trek: Trek, slug: str, step: Step) -> None:
    """The command the step stands for, its rolls given as the plan drew them."""
    kind = step.action[0]
    if kind == "start":
        trek.handle(slug, StartDay())
    elif kind == "end":
        trek.handle(slug, EndDay(DayEndOptions()))
    elif kind == "move":
        # The plan walks the cheapest path's steps; `move --to` its last square must agree.
        trek.handle(slug, Move(MoveOptions(to=step.event.route_path()[-1])))
    elif kind == "march":
        trek.handle(slug, ForcedMarch(rolls=step.totals))
    elif kind == "night":
        trek.handle(slug, TravelByNight(roll=step.totals[NIGHT_TRAVEL_ROLL]))
    elif kind == "forage":
        trek.handle(slug, Forage(roll=step.totals[FORAGE_ROLL]))
    else:
        trek.handle(slug, TakeShortcut(name=step.action[1], roll=step.totals[SHORTCUT_ROLL]))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(
    totals=st.lists(st.integers(2, 12), max_size=60),
    marches=st.integers(0, 2),
    night=st.booleans(),
    shortcuts=st.booleans(),
    forage=st.booleans(),
    upkeep=st.integers(0, 2),
    provisions=st.integers(0, 6),
    target=st.sampled_from([Square(9, 3), Square(4, 1), Square(0, 3), Square(7, 0)]),
)
def test_one_trial_with_given_dice_goes_as_recording_it_would(
        totals: list[int], marches: int, night: bool, shortcuts: bool, forage: bool,
        upkeep: int, provisions: int, target: Square) -> None:
    # given a campaign on a store, and the plan's dice fixed in advance
    trek = Trek.open(f"memory:plan-{next(_names)}", rulesets=RULESETS, create=True, gm="gm",
                     memory=MemoryStores())
    try:
        slug = campaign(trek, upkeep, provisions)
        view = trek.queries.view(slug)
        policy = {"forced_march": marches, "night": night, "shortcuts": shortcuts,
                  "forage": forage}
        planner = Planner(RULESETS.named("besm"), view.game, view.map, target, policy)
        dice: Iterator[int] = itertools.chain(totals, itertools.repeat(7))

        # when the plan plays the journey once
        trial = planner.trial(lambda: next(dice), 5, trace=True)

        # then recording each step it took leaves the store where the plan said it would be
        assert trial.steps is not None
        assert trial.steps, "a plan of five days takes at least a day's start"
        for step in trial.steps:
            record(trek, slug, step)
            stored = trek.queries.view(slug).game
            assert stored.model_dump() == step.game.model_dump(), step.action
        last = trek.queries.view(slug).game
        assert (last.position == target) == (trial.arrived_day is not None)
        if trial.arrived_day is not None:
            assert trial.on_arrival is not None
            assert trial.on_arrival.position == target
    finally:
        trek.close()

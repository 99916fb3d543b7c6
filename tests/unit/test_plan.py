"""The planner's shortcuts to speed change nothing: kept days, copied states, kept paths."""

from __future__ import annotations

import random

from rulesets import RULESETS

from domain.commands.days import DayEndOptions
from domain.commands.roster import AddCharacter, AddMount, SetRule
from domain.commands.supplies import SetSupplies
from domain.geometry import Square
from domain.options import CharacterOptions
from domain.plan import Planner, copied, seeded_draw
from tracker.app import Trek
from tracker.mapformats.tomlfile import load_map
from tracker.opening import MemoryStores

MAP = """\
[map]
name = "Ridge"
rows = [
  "............",
  "....^^^.....",
  "..,.^!^.....",
  "............",
]

[legend]
"." = { terrain = "open" }
"," = { terrain = "open", penalty = 1 }
"^" = { terrain = "feature", name = "ridge" }
"!" = { terrain = "hazard", name = "ley storm", penalty = 2 }

[[shortcut]]
name = "Notch"
path = [[4, 1], [5, 1], [6, 1]]
bonus = 1
penalty = 1
"""
TARGET = Square(11, 1)
POLICY = {"forced_march": 1, "night": True, "shortcuts": True, "forage": True}


def planner() -> Planner:
    trek = Trek.open("memory:unit-plan", rulesets=RULESETS, create=True, gm="gm",
                     memory=MemoryStores())
    try:
        [started] = trek.init("Ridge", ruleset="besm", map_text=MAP, at=Square(0, 1), seed=3)
        slug = str(started["slug"])
        trek.handle(slug, AddCharacter(CharacterOptions(
            name="Kira", skills={"ride": 2, "navigation": 2, "survival": 1},
            extra={"body": 6, "mind": 5, "soul": 4})))
        trek.handle(slug, AddCharacter(CharacterOptions(
            name="Oren", skills={"survival": 2}, extra={"body": 5, "mind": 6, "soul": 5})))
        trek.handle(slug, AddMount("Dusty", ("ground-speed", 1), "Kira"))
        trek.handle(slug, AddMount("Bramble", ("ground-speed", 0), "Oren"))
        trek.handle(slug, SetSupplies({"provisions": 3}))
        trek.handle(slug, SetRule("upkeep-provisions", 1))
        view = trek.queries.view(slug)
        return Planner(RULESETS.named("besm"), view.game, view.map, TARGET, POLICY)
    finally:
        trek.close()


def test_days_kept_by_their_totals_give_every_trial_as_playing_it_through_would() -> None:
    # given two planners of one journey, with the same dice
    fast, slow = planner(), planner()
    fast_draw = seeded_draw(random.Random(8))
    slow_draw = seeded_draw(random.Random(8))

    # when one plays from its kept days and the other decides every step (tracing)
    for _ in range(400):
        kept = fast.trial(fast_draw, 6)
        played = slow.trial(slow_draw, 6, trace=True)

        # then every trial ends the same, at the same state, having rolled as often
        assert kept.arrived_day == played.arrived_day
        assert kept.rolled == played.rolled
        assert kept.last is not None
        assert played.last is not None
        assert kept.last.model_dump() == played.last.model_dump()
    assert any(fast.trial(fast_draw, 6).arrived_day for _ in range(50))


def test_no_state_is_changed_after_it_was_reached() -> None:
    # a state is shared by every trial that reaches it: folding an event into the next one
    # must leave it as it was first recorded
    plan = planner()
    draw = seeded_draw(random.Random(2))
    for _ in range(300):
        plan.trial(draw, 6)
    nodes = list(plan._nodes.values())
    assert len(nodes) > 50
    assert all(node.game.model_dump_json() == node.key for node in nodes)


def test_a_copied_state_is_equal_and_its_own() -> None:
    game = planner().root.game
    copy = copied(game)
    assert copy.model_dump() == game.model_dump()
    before = game.model_dump()

    ruleset = RULESETS.named("besm")
    situation_map = load_map(MAP, ruleset)
    from domain.ruleset import Situation

    started = ruleset.start_day(Situation(game=copy, map=situation_map, ruleset="besm"))
    started.apply_to(copy)
    ended = ruleset.end_day(Situation(game=copy, map=situation_map, ruleset="besm"),
                            DayEndOptions())
    ended.apply_to(copy)
    copy.supplies["provisions"] = 99
    copy.characters["Kira"].skills["ride"] = 9
    copy.conveyances["Dusty"].travel["pending_strain"] = 4

    assert game.model_dump() == before

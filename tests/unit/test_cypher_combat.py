"""Cypher rounds and chases, each rule worked by hand from RULES §11, §12.11-12 and the seed.

The numbers come from the rules' text: a cell is 5 feet; a short move reaches 50 feet, a long
one 100; a Speed task of difficulty D succeeds on a d20 of at least 3 × D; difficult ground
costs twice the cell, water four times (twice when swimming); a zero-gravity push of F feet is
a Might task of difficulty ⌈F ÷ 4⌉ and drifts ⌊F ÷ 2⌋ feet a round.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from encounter_play import cancel_cascade
from refusals import refused
from rulesets import RULESETS

from domain.campaign import Campaign, Stamp
from domain.commands.encounter import EnterCombatant, MoveCombatant, StartEncounter, StartRound
from domain.commands.roster import AddCharacter
from domain.cypher.combat import (
    ChaseRolled,
    ChaseStarted,
    CypherMoved,
    Push,
    PushedOff,
    RollChase,
    StartChase,
    chase_outcome,
    difficulty_of,
)
from domain.encounter import RoundStarted
from domain.errors import MapError, NotFound, NotOffered, RuleViolation
from domain.geometry import Square
from domain.history import fold_live
from domain.options import CharacterOptions
from domain.state import Side
from projections.views import encounter_of
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
CYPHER = RULESETS.named("cypher")

# x: 0123456789
# y0 ..........
# y1 .,:~^.....     rough 1,1; difficult 2,1; water 3,1; high gravity 4,1
# y2 llll#.....     low gravity 0..3,2; a wall at 4,2
# y3 #zzzz#....     zero gravity 1..4,3 between walls at 0,3 and 5,3
# y4 #zzzz.....     zero gravity 1..4,4; open 5,4 on
HOLD = """\
[map]
name = "Derelict hold"
rows = [
  "..........",
  ".,:~^.....",
  "llll#.....",
  "#zzzz#....",
  "#zzzz.....",
]

[legend]
"." = { terrain = "open" }
"," = { terrain = "rough" }
":" = { terrain = "difficult" }
"~" = { terrain = "water" }
"^" = { terrain = "high-gravity" }
"l" = { terrain = "low-gravity" }
"z" = { terrain = "zero-gravity" }
"#" = { terrain = "wall" }
"""


def campaign() -> Campaign:
    c = Campaign.start(STAMP, name="Hold", ruleset="cypher", rulesets=RULESETS, seed=5,
                       game_map=None, at=None)
    c.handle(AddCharacter(CharacterOptions(name="Kira",
                                           extra={"might": 10, "speed": 12, "intellect": 9})))
    c.handle(AddCharacter(CharacterOptions(name="Oren",
                                     skills={"swimming": 1, "high-gravity": 1},
                                         extra={"speed": 10})))
    return c


def fight(map_text: str | None = HOLD) -> Campaign:
    c = campaign()
    battle_map = load_battle_map(map_text, CYPHER.battle_legend) if map_text else None
    c.handle(StartEncounter("Boarding", battle_map))
    return c


def join(c: Campaign, name: str, x: int, y: int) -> None:
    c.handle(EnterCombatant(name=name, at=Square(x, y)))


def add(c: Campaign, name: str, x: int, y: int, side: Side = Side.ENEMY) -> None:
    c.handle(EnterCombatant(name=name, at=Square(x, y), side=side, from_roster=False,
                                     options=CharacterOptions(name=name, extra={"speed": 8})))


def move(c: Campaign, name: str, *steps: str, **options: Any) -> Any:
    return c.handle(MoveCombatant(name=name, steps=steps, options=options))


def status(c: Campaign, name: str) -> dict[str, Any]:
    doc = encounter_of(c.situation(), CYPHER)
    assert doc is not None
    combatant: dict[str, Any] = doc["combatants"][name]
    return combatant


def ready(map_text: str | None = HOLD) -> Campaign:
    c = fight(map_text)
    join(c, "Kira", 0, 0)
    c.handle(StartRound())
    return c


def outcome(event: Any) -> tuple[Any, ...]:
    return (event.difficulty, event.roll, event.target, event.success)


# -- Speed tasks ----------------------------------------------------------------------------------


def test_difficulty_is_eased_and_hindered_by_steps_and_kept_between_0_and_10() -> None:
    assert difficulty_of(4, 1, 0) == 3       # 4 eased a step
    assert difficulty_of(4, 0, 2) == 6       # 4 hindered two steps
    assert difficulty_of(4, 6, 0) == 0       # 4 - 6 = -2, kept at 0
    assert difficulty_of(4, 0, 9) == 10      # 4 + 9 = 13, kept at 10


def test_a_long_move_is_a_speed_task_of_difficulty_4_needing_12() -> None:
    c = ready(None)
    # 12 steps east on the plain: 12 × 5 = 60 feet, within a long move's 100.
    event = move(c, "Kira", *["E"] * 12, long=True, roll=12)
    assert isinstance(event, CypherMoved)
    assert outcome(event) == (4, 12, 12, True)      # target 3 × 4 = 12; 12 ≥ 12
    assert (event.cost, event.path[-1]) == (60, Square(12, 0))
    assert status(c, "Kira")["action"] == "long"
    assert status(c, "Kira")["moved"] == 60
    assert status(c, "Kira")["remaining"] is None


def test_a_failed_long_move_stops_at_the_farthest_cell_within_half_the_cost() -> None:
    c = ready(None)
    event = move(c, "Kira", *["E"] * 12, long=True, roll=11)   # 11 < 12: a failure
    assert outcome(event) == (4, 11, 12, False)
    # Half of 60 feet is 30: the sixth cell (6 × 5 = 30) is the farthest within it.
    assert event.path[-1] == Square(6, 0)
    assert len(event.planned) == 13
    assert (event.cost, status(c, "Kira")["moved"]) == (30, 30)
    assert c.game.encounter is not None
    assert c.game.encounter.combatants["Kira"].at == Square(6, 0)
    assert status(c, "Kira")["success"] is False


def test_a_failed_move_stops_where_the_gm_says_on_its_path() -> None:
    c = ready(None)
    event = move(c, "Kira", *["E"] * 4, long=True, roll=1, stop_at=Square(1, 0))
    assert event.path == [Square(0, 0), Square(1, 0)]
    assert event.cost == 5                     # one open cell
    c.handle(StartRound())
    event = move(c, "Kira", "E", long=True, roll=2, stop_at=Square(1, 0))
    assert event.path == [Square(1, 0)]        # it may stop on its start: 0 feet
    assert event.cost == 0
    c.handle(StartRound())
    refused(c, lambda: move(c, "Kira", "E", "E", long=True, roll=2, stop_at=Square(9, 9)),
            "not on the path")
    # On a success --stop-at is ignored: 2 × 5 = 10 feet, to the end.
    event = move(c, "Kira", "E", "E", long=True, roll=20, stop_at=Square(1, 0))
    assert (event.path[-1], event.cost) == (Square(3, 0), 10)


def test_a_failed_move_never_stops_on_a_friend_but_on_the_free_cell_before_it() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    join(c, "Oren", 3, 0)
    c.handle(StartRound())
    # 6 steps east = 30 feet; half is 15: the third cell (3,0), where Oren stands, so 2,0.
    event = move(c, "Kira", *["E"] * 6, long=True, roll=3)
    assert event.path[-1] == Square(2, 0)
    assert event.cost == 10


def test_with_action_is_a_short_move_of_50_feet_with_a_speed_task_of_4() -> None:
    c = ready(None)
    event = move(c, "Kira", *["E"] * 10, with_action=True, roll=12)   # 10 × 5 = 50 feet
    assert outcome(event) == (4, 12, 12, True)
    assert status(c, "Kira")["action"] == "with-action"
    c.handle(StartRound())
    refused(c, lambda: move(c, "Kira", *["E"] * 11, with_action=True, roll=12),
            "costs 55 feet and a with-action move reaches 50")


def test_short_and_immediate_moves_roll_nothing_even_hindered() -> None:
    c = ready(None)
    event = move(c, "Kira", *["E"] * 10, hinder=3, roll=5)   # 50 feet, the short reach
    assert outcome(event) == (0, None, 0, True)            # no roll; the given one ignored
    assert event.dice is None
    assert status(c, "Kira")["action"] == "short"          # the default kind
    c.handle(StartRound())
    refused(c, lambda: move(c, "Kira", *["E"] * 11), "costs 55 feet and a short move "
            "reaches 50")
    refused(c, lambda: move(c, "Kira", "E", "E", "E", immediate=True),
            "costs 15 feet and an immediate move reaches 10")
    event = move(c, "Kira", "E", "E", immediate=True)      # 2 × 5 = 10 feet
    assert (event.cost, status(c, "Kira")["action"]) == (10, "immediate")


def test_easing_to_difficulty_0_needs_no_roll_and_ignores_a_given_one() -> None:
    c = ready(None)
    event = move(c, "Kira", "E", long=True, ease=4, roll=1)   # 4 - 4 = 0
    assert outcome(event) == (0, None, 0, True)
    assert event.rolls() == []


def test_hindering_raises_the_target_and_is_capped_at_10() -> None:
    c = ready(None)
    event = move(c, "Kira", "E", long=True, hinder=2, roll=17)     # 6: target 18
    assert outcome(event) == (6, 17, 18, False)
    c.handle(StartRound())
    event = move(c, "Kira", "W", long=True, hinder=9, roll=20)     # 13 kept at 10: 30
    assert outcome(event) == (10, 20, 30, False)


def test_a_roll_left_out_is_rolled_on_a_d20_from_the_seed() -> None:
    c = ready(None)
    event = move(c, "Kira", "E", long=True)
    assert event.dice is not None
    assert len(event.dice) == 1
    assert event.roll == event.dice[0]
    assert 1 <= event.roll <= 20
    assert event.target == 12
    assert event.success == (event.roll >= 12)


def test_an_impossible_d20_roll_is_refused() -> None:
    c = ready(None)
    refused(c, lambda: move(c, "Kira", "E", long=True, roll=21), "give 1 to 20")


def test_one_move_a_round_and_one_kind_per_move() -> None:
    c = ready(None)
    refused(c, lambda: move(c, "Kira", "E", long=True, short=True), "cannot be combined")
    move(c, "Kira", "E")
    refused(c, lambda: move(c, "Kira", "E"), "already made its move this round")
    c.handle(StartRound())
    assert (status(c, "Kira")["moved"], status(c, "Kira")["action"]) == (0, None)
    assert move(c, "Kira", "E").path[-1] == Square(2, 0)


def test_nothing_moves_in_round_0() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    refused(c, lambda: move(c, "Kira", "E"), "no round has started")


# -- terrain and gravity --------------------------------------------------------------------------


def test_terrain_costs_the_cell_once_twice_or_four_times() -> None:
    c = ready()
    # Kira 0,0 -> SE 1,1 rough (5) -> E 2,1 difficult (10) -> E 3,1 water (20) = 35 feet.
    event = move(c, "Kira", "SE", "E", "E")
    assert event.cost == 35
    c.handle(StartRound())
    # 3,1 -> E 4,1 untrained high gravity (10): 10 feet.
    assert move(c, "Kira", "E").cost == 10


def test_swimming_and_high_gravity_training_soften_the_cost() -> None:
    c = fight()
    join(c, "Oren", 2, 0)
    c.handle(StartRound())
    # 2,0 -> SE 3,1 water, swimming: 2 × 5 = 10; -> E 4,1 high gravity, trained: 5. 15 feet.
    assert move(c, "Oren", "SE", "E").cost == 15


def test_a_hindering_cell_hinders_the_roll_once_per_move() -> None:
    c = ready()
    # Rough, difficult and water on the way: hindered one step only, 4 + 1 = 5, target 15.
    event = move(c, "Kira", "SE", "E", "E", long=True, roll=15)
    assert outcome(event) == (5, 15, 15, True)


def test_trained_high_gravity_does_not_hinder() -> None:
    c = fight()
    join(c, "Oren", 4, 0)
    c.handle(StartRound())
    event = move(c, "Oren", "S", long=True, roll=12)       # into 4,1: trained, still 4
    assert outcome(event) == (4, 12, 12, True)
    assert event.cost == 5


def test_a_path_wholly_in_low_gravity_is_eased_a_step() -> None:
    c = fight()
    join(c, "Kira", 0, 2)
    c.handle(StartRound())
    event = move(c, "Kira", "E", "E", long=True, roll=9)    # 0,2 -> 2,2 all low: 4 - 1 = 3
    assert outcome(event) == (3, 9, 9, True)
    assert event.cost == 10                                 # low gravity costs the cell once
    c.handle(StartRound())
    event = move(c, "Kira", "NE", long=True, roll=9)        # into 3,1 water: not eased, hindered
    assert outcome(event) == (5, 9, 15, False)


def test_a_start_outside_low_gravity_is_not_eased() -> None:
    c = fight()
    join(c, "Kira", 0, 1)
    c.handle(StartRound())
    event = move(c, "Kira", "S", long=True, roll=12)         # open 0,1 into low 0,2: still 4
    assert outcome(event) == (4, 12, 12, True)


def test_cell_feet_comes_from_the_map() -> None:
    wide = HOLD.replace('name = "Derelict hold"', 'name = "Hall"\ncell_feet = 10')
    c = ready(wide)
    event = move(c, "Kira", *["E"] * 5)                       # 5 × 10 = 50 feet
    assert event.cost == 50
    c.handle(StartRound())
    refused(c, lambda: move(c, "Kira", *["W"] * 4, "S", "S"), "costs 60 feet")


def test_to_takes_the_cheapest_path_within_the_kind_of_move() -> None:
    c = ready()
    # 0,0 to 4,0 along row 0: four open cells, 20 feet.
    event = c.handle(MoveCombatant(name="Kira", to=Square(4, 0)))
    assert event.cost == 20
    c.handle(StartRound())
    refused(c, lambda: c.handle(MoveCombatant(name="Kira", to=Square(0, 0),
                                                      options={"immediate": True})),
            "within the 10 feet")


# -- zero gravity ---------------------------------------------------------------------------------


def test_ordinary_moves_are_refused_from_or_into_zero_gravity() -> None:
    c = fight()
    join(c, "Kira", 1, 3)
    join(c, "Oren", 5, 4)
    c.handle(StartRound())
    refused(c, lambda: move(c, "Kira", "E"), "zero gravity")
    refused(c, lambda: move(c, "Oren", "W"), "zero gravity")


def test_a_push_is_a_might_task_of_a_quarter_of_the_feet_and_then_drifts() -> None:
    c = fight()
    join(c, "Kira", 1, 4)                    # beside the walls at 0,3 and 0,4
    c.handle(StartRound())
    # 10 feet: difficulty ⌈10 ÷ 4⌉ = 3, target 9; 2 cells to 3,4; 4,4 ahead is free.
    event = c.handle(Push(name="Kira", direction="E", feet=10, roll=9))
    assert isinstance(event, PushedOff)
    assert outcome(event) == (3, 9, 9, True)
    assert event.path == [Square(1, 4), Square(2, 4), Square(3, 4)]
    assert event.cost == 10
    assert status(c, "Kira")["drifting"] == {"direction": "E", "feet": 5}   # ⌊10 ÷ 2⌋
    assert status(c, "Kira")["action"] == "push"
    refused(c, lambda: move(c, "Kira", "E"), "already made its move")
    # Round 2: it drifts 5 feet = 1 cell to 4,4; 5,4 is open, so it drifts on.
    event = c.handle(StartRound())
    assert isinstance(event, RoundStarted)
    assert event.paths == {"Kira": [Square(3, 4), Square(4, 4)]}
    assert status(c, "Kira")["position"] == {"x": 4, "y": 4}
    assert status(c, "Kira")["drifting"] == {"direction": "E", "feet": 5}
    assert status(c, "Kira")["moved"] == 0


def test_drift_ends_against_a_wall_an_edge_or_a_combatant() -> None:
    c = fight()
    join(c, "Kira", 1, 3)
    c.handle(StartRound())
    # 20 feet: difficulty 5, target 15; 4 cells east would pass 5,3, a wall: 1,3 -> 4,3.
    event = c.handle(Push(name="Kira", direction="E", feet=20, roll=15))
    assert event.path[-1] == Square(4, 3)
    assert status(c, "Kira")["drifting"] is None           # the wall ahead: it has landed
    c.handle(StartRound())
    assert status(c, "Kira")["position"] == {"x": 4, "y": 3}
    # Back west 12 feet: ⌈12 ÷ 4⌉ = 3, target 9; ⌊12 ÷ 5⌋ = 2 cells to 2,3; drifts 6 feet
    # = 1 cell a round: 1,3 in round 3, then the wall at 0,3 stops it.
    c.handle(Push(name="Kira", direction="W", feet=12, roll=9))
    assert status(c, "Kira")["drifting"] == {"direction": "W", "feet": 6}
    c.handle(StartRound())
    assert status(c, "Kira")["position"] == {"x": 1, "y": 3}
    assert status(c, "Kira")["drifting"] is None


def test_a_drift_of_no_whole_cell_means_it_has_landed() -> None:
    c = fight()
    join(c, "Kira", 1, 4)
    c.handle(StartRound())
    # 5 feet: 1 cell; ⌊5 ÷ 2⌋ = 2 feet is no cell, so it has landed.
    event = c.handle(Push(name="Kira", direction="E", feet=5, roll=6))   # ⌈5/4⌉ = 2: 6
    assert (event.path[-1], event.drifting) == (Square(2, 4), None)


def test_a_failed_push_does_not_move_and_the_hardest_push_is_10() -> None:
    c = fight()
    join(c, "Kira", 1, 4)
    c.handle(StartRound())
    # 60 feet: ⌈60 ÷ 4⌉ = 15, at most 10: target 30, which no d20 reaches.
    event = c.handle(Push(name="Kira", direction="E", feet=60, roll=20))
    assert outcome(event) == (10, 20, 30, False)
    assert event.path == [Square(1, 4)]
    assert (event.cost, status(c, "Kira")["drifting"]) == (0, None)


def test_a_push_is_refused_outside_zero_gravity_without_a_wall_or_covering_nothing() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    join(c, "Oren", 2, 4)                     # zero gravity, no wall among its eight cells
    add(c, "Drone", 1, 3)
    c.handle(StartRound())
    refused(c, lambda: c.handle(Push(name="Kira", direction="E", feet=10, roll=20)),
            "not in zero gravity")
    refused(c, lambda: c.handle(Push(name="Oren", direction="E", feet=10, roll=20)),
            "no wall beside it")
    refused(c, lambda: c.handle(Push(name="Drone", direction="E", feet=4, roll=20)),
            "covers no cell")
    refused(c, lambda: c.handle(Push(name="Drone", direction="W", feet=10, roll=20)),
            "blocked")
    refused(c, lambda: c.handle(Push(name="Drone", direction="UP", feet=10, roll=20)),
            "not a direction")


# -- chases ---------------------------------------------------------------------------------------


def test_a_chase_is_one_speed_task_of_the_npc_level() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    # No round needed. Level 3: target 9; 9 succeeds.
    event = c.handle(StartChase(name="Kira", level=3, roll=9))
    assert isinstance(event, ChaseStarted)
    assert outcome(event) == (3, 9, 9, True)
    assert status(c, "Kira")["chase"] == {"level": 3, "successes": 1, "failures": 0,
                                          "outcome": "succeeded"}
    assert status(c, "Kira")["action"] is None             # not the round's move
    # Level 5 as the quarry, eased one step: 4, target 12; 8 fails.
    event = c.handle(StartChase(name="Kira", level=5, ease=1, roll=8, role="quarry"))
    assert outcome(event) == (4, 8, 12, False)
    assert event.role == "quarry"
    assert status(c, "Kira")["chase"] == {"level": 5, "successes": 0, "failures": 1,
                                          "outcome": "failed"}
    # Eased three steps from 3: no roll, a success.
    event = c.handle(StartChase(name="Kira", level=3, ease=3, roll=1))
    assert outcome(event) == (0, None, 0, True)


def test_an_extended_chase_succeeds_once_successes_reach_level_plus_failures() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    event = c.handle(StartChase(name="Kira", level=2, extended=True))
    assert event.roll is None
    assert status(c, "Kira")["chase"] == {"level": 2, "successes": 0, "failures": 0,
                                          "outcome": None}
    # Level 2: target 6. Success, failure, success, success: 3 successes ≥ 2 + 1 failure.
    for roll, shown in ((6, (1, 0, None)), (5, (1, 1, None)), (19, (2, 1, None)),
                        (6, (3, 1, "succeeded"))):
        event = c.handle(RollChase(name="Kira", roll=roll))
        assert isinstance(event, ChaseRolled)
        chase = status(c, "Kira")["chase"]
        assert (chase["successes"], chase["failures"], chase["outcome"]) == shown
    refused(c, lambda: c.handle(RollChase(name="Kira", roll=10)), "already succeeded")


def test_an_extended_chase_fails_as_soon_as_failures_outnumber_successes() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    c.handle(StartChase(name="Kira", level=4, extended=True, role="quarry"))
    event = c.handle(RollChase(name="Kira", roll=11, hinder=0))        # 11 < 12
    assert outcome(event) == (4, 11, 12, False)
    assert status(c, "Kira")["chase"] == {"level": 4, "successes": 0, "failures": 1,
                                          "outcome": "failed"}
    refused(c, lambda: c.handle(RollChase(name="Kira", roll=12)), "already failed")


def test_chase_rolls_ease_and_hinder_and_the_rule_decides_the_end() -> None:
    assert chase_outcome(3, 3, 0) == "succeeded"    # 3 ≥ 3 + 0
    assert chase_outcome(3, 3, 1) is None           # 3 < 3 + 1, and 1 ≤ 3
    assert chase_outcome(3, 1, 2) == "failed"       # 2 > 1
    assert chase_outcome(3, 1, 1) is None
    c = fight(None)
    join(c, "Kira", 0, 0)
    c.handle(StartChase(name="Kira", level=3, extended=True))
    event = c.handle(RollChase(name="Kira", ease=1, hinder=3, roll=15))   # 3 - 1 + 3 = 5
    assert outcome(event) == (5, 15, 15, True)


def test_chase_refusals() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    refused(c, lambda: c.handle(RollChase(name="Kira", roll=10)), "no extended chase")
    refused(c, lambda: c.handle(StartChase(name="Nobody", level=3)), "no combatant",
            NotFound)
    refused(c, lambda: c.handle(StartChase(name="Kira", level=0)), "1 to 10")
    refused(c, lambda: c.handle(StartChase(name="Kira", level=11)), "1 to 10")
    c.handle(StartChase(name="Kira", level=3, roll=15))
    refused(c, lambda: c.handle(RollChase(name="Kira", roll=10)), "no extended chase")
    c.handle(StartChase(name="Kira", level=3, extended=True))
    refused(c, lambda: c.handle(StartChase(name="Kira", level=2)), "still in a chase")
    refused(c, lambda: c.handle(StartChase(name="Kira", level=2, extended=True, roll=3)),
            "still in a chase")


def test_a_chase_persists_across_rounds() -> None:
    c = ready(None)
    c.handle(StartChase(name="Kira", level=2, extended=True))
    c.handle(RollChase(name="Kira", roll=6))
    c.handle(StartRound())
    assert status(c, "Kira")["chase"] == {"level": 2, "successes": 1, "failures": 0,
                                          "outcome": None}


# -- the encounter, the map and history -----------------------------------------------------------


def test_status_fields() -> None:
    c = ready(None)
    assert status(c, "Kira") == {
        "label": "K",
        "side": "party", "position": {"x": 0, "y": 0}, "facing": None, "moved": 0,
        "remaining": None, "action": None, "difficulty": None, "success": None,
        "drifting": None, "chase": None}


def test_added_combatants_take_cypher_pools_and_skills() -> None:
    c = fight()
    c.handle(EnterCombatant(
        name="Eel", at=Square(2, 0), side=Side.ENEMY, from_roster=False,
        options=CharacterOptions(name="Eel", skills={"swimming": 1}, extra={"speed": 6})))
    c.handle(StartRound())
    assert move(c, "Eel", "SE").cost == 10      # 3,1 water, swimming: 2 × 5
    refused(c, lambda: c.handle(EnterCombatant(
        name="Brute", at=Square(8, 0), side=Side.ENEMY, from_roster=False,
        options=CharacterOptions(name="Brute", extra={"body": 5}))), "another ruleset's option")


def test_another_rulesets_move_options_are_refused() -> None:
    c = ready(None)
    refused(c, lambda: move(c, "Kira", "E", shift=True), "--shift", NotOffered)


def test_enemies_block_and_friends_are_passed_but_not_stood_on() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    join(c, "Oren", 1, 0)
    add(c, "Ghoul", 3, 0)
    c.handle(StartRound())
    refused(c, lambda: move(c, "Kira", "E"), "a move may pass a friend")
    refused(c, lambda: move(c, "Kira", "E", "E", "E"), "step 3 is refused: Ghoul, an enemy")
    assert move(c, "Kira", "E", "E").path[-1] == Square(2, 0)


@pytest.mark.parametrize(("legend", "line", "reason"), [
    ('"." = { terrain = "lava" }', 8, "terrain 'lava'"),
    ('"." = { terrain = "open", cost = 2 }', 8, "unknown key 'cost'"),
])
def test_a_battle_map_is_refused_at_load_with_the_line(legend: str, line: int,
                                                       reason: str) -> None:
    text = f'[map]\nname = "M"\nrows = [\n  "..",\n]\n\n[legend]\n{legend}\n'
    with pytest.raises(MapError, match=reason) as error:
        load_battle_map(text, CYPHER.battle_legend)
    assert error.value.line == line


def test_cell_feet_must_be_a_whole_number_of_at_least_1() -> None:
    text = '[map]\nname = "M"\ncell_feet = 0\nrows = ["."]\n[legend]\n"." = { terrain = "open" }\n'
    with pytest.raises(MapError, match="cell_feet") as error:
        load_battle_map(text, CYPHER.battle_legend)
    assert error.value.line == 3


def test_undoing_a_push_needs_the_drifting_round_cancelled_too_and_redo_restores_it() -> None:
    c = fight()
    join(c, "Kira", 1, 4)
    c.handle(StartRound())
    c.handle(Push(name="Kira", direction="E", feet=10, roll=9))
    c.handle(StartRound())                 # drifts 1 cell: 3,4 -> 4,4
    events = c.collect_events()
    state = c.game.dump()
    push_seq = next(e.seq for e in events if isinstance(e, PushedOff))
    before = fold_live(events[:push_seq - 1], c.is_live)
    # Without the push the next round would carry no drift: it no longer follows.
    with pytest.raises(RuleViolation, match=f"event {push_seq + 1} \\(RoundStarted\\)"):
        c.cancel([push_seq], before=before, later=events[push_seq - 1:], cascade=False,
                 reason=None)
    reversal = c.cancel([push_seq], before=before, later=events[push_seq - 1:],
                        cascade=True, reason=None)
    assert reversal.cancels == [push_seq, push_seq + 1]
    events += c.collect_events()
    assert status(c, "Kira")["position"] == {"x": 1, "y": 4}
    assert c.game.encounter is not None
    assert c.game.encounter.round == 1
    earlier = fold_live(events[:push_seq - 1], c.is_live)
    c.restore(list(reversal.cancels), before=earlier, later=events[push_seq - 1:],
              reason=None)
    assert c.game.dump() == state


def test_undoing_a_move_that_a_later_failed_move_depends_on_is_checked() -> None:
    c = ready(None)
    move(c, "Kira", "E", "E")
    c.handle(StartRound())
    move(c, "Kira", "E", "E", long=True, roll=3)        # fails: half of 10 is 5: 3,0
    events = c.collect_events()
    first = next(e.seq for e in events if isinstance(e, CypherMoved))
    before = fold_live(events[:first - 1], c.is_live)
    with pytest.raises(RuleViolation, match="stands on 0,0"):
        c.cancel([first], before=before, later=events[first - 1:], cascade=False,
                 reason=None)


def test_a_drift_goes_on_until_blocked_and_walking_ends_it() -> None:
    c = fight()
    join(c, "Kira", 1, 4)
    c.handle(StartRound())
    c.handle(Push(name="Kira", direction="E", feet=10, roll=9))   # to 3,4, drifting 5 ft
    c.handle(StartRound())                                   # 4,4
    c.handle(StartRound())                                   # 5,4: open, 6,4 is free
    assert status(c, "Kira")["position"] == {"x": 5, "y": 4}
    assert status(c, "Kira")["drifting"] == {"direction": "E", "feet": 5}
    # Walking from the open 5,4 to 6,4 (5 feet) ends the drift.
    assert move(c, "Kira", "E").cost == 5
    assert status(c, "Kira")["drifting"] is None
    c.handle(StartRound())
    assert status(c, "Kira")["position"] == {"x": 6, "y": 4}


def test_drifts_in_one_round_never_end_on_the_same_cell() -> None:
    room = HOLD.replace('''rows = [
  "..........",
  ".,:~^.....",
  "llll#.....",
  "#zzzz#....",
  "#zzzz.....",
]''', '''rows = [
  "###########",
  "#zzzzzzzzz#",
  "#zzzzzzzzz#",
  "###########",
]''')
    c = fight(room)
    join(c, "Kira", 1, 2)
    add(c, "Drone", 9, 2)
    c.handle(StartRound())
    # Kira: 10 feet east, 2 cells to 3,2, drifting 5 feet (1 cell) a round.
    c.handle(Push(name="Kira", direction="E", feet=10, roll=9))
    # The drone: 20 feet west (⌈20 ÷ 4⌉ = 5, target 15), 4 cells to 5,2, drifting 10 feet.
    c.handle(Push(name="Drone", direction="W", feet=20, roll=15))
    event = c.handle(StartRound())
    # Kira drifts first, into 4,2, and the drone beyond it stops her; the drone then finds
    # 4,2 taken at once: it stays on 5,2. Both have landed.
    assert event.paths == {"Kira": [Square(3, 2), Square(4, 2)]}
    assert status(c, "Kira")["position"] == {"x": 4, "y": 2}
    assert status(c, "Drone")["position"] == {"x": 5, "y": 2}
    assert (status(c, "Kira")["drifting"], status(c, "Drone")["drifting"]) == (None, None)


# -- undo: later events stand while they are still legal (RULES §4) ------------------------------


def test_undoing_a_chase_keeps_the_move_after_it() -> None:
    c = ready()
    chase = c.handle(StartChase(name="Kira", level=2, extended=True))
    moved = move(c, "Kira", "E", "E")                     # a short move: no roll

    assert cancel_cascade(c, chase.seq) == [chase.seq]

    assert c.is_live(moved.seq)
    doc = status(c, "Kira")
    assert (doc["position"], doc["action"], doc["chase"]) == ({"x": 2, "y": 0}, "short", None)


def test_undoing_a_move_keeps_the_chase_roll_after_it() -> None:
    c = ready()
    c.handle(StartChase(name="Kira", level=2, extended=True))
    moved = move(c, "Kira", "E")
    rolled = c.handle(RollChase(name="Kira", roll=19))

    assert cancel_cascade(c, moved.seq) == [moved.seq]

    assert c.is_live(rolled.seq)
    doc = status(c, "Kira")
    assert (doc["position"], doc["action"], doc["chase"]["successes"]) == ({"x": 0, "y": 0},
                                                                            None, 1)

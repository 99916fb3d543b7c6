"""GURPS hex movement, each rule worked by hand from the seed and RULES §6, §8 and §12.8.

Hexes are flat-topped, odd columns half a hex down (RULES §6): from an even column NE is
(x+1, y-1) and SE is (x+1, y); from an odd column NE is (x+1, y) and SE is (x+1, y+1); N and S
change y only. Facing index order N NE SE S SW NW: a hex in the facing or beside it costs 1,
a side hex (facing ±2) or the back hex (facing +3) costs 2.
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
from domain.errors import MapError, NotOffered, RuleViolation
from domain.events import EventsCancelled, TrekEvent
from domain.geometry import Square
from domain.gurps.commands import ChangePosture
from domain.history import fold_live
from domain.options import CharacterOptions
from domain.state import Side
from projections.views import encounter_of
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
GURPS = RULESETS.named("gurps")

# x: 0123456
# y0 ....v..     v shallow water at 4,0
# y1 ts~=w#X     treacherous, stairs, shallow, treacherous extra 3, deep, wall, severe
# y2 m3.....     one minor obstruction at 0,2; obstructions = 3 at 1,2
# y3 .......
FOOTING = """\
[map]
name = "Mill yard"
grid = "hex"
rows = [
  "....v..",
  "ts~=w#X",
  "m3.....",
  ".......",
]

[legend]
"." = { terrain = "open" }
"t" = { terrain = "treacherous" }
"s" = { terrain = "stairs" }
"~" = { terrain = "shallow-water" }
"v" = { terrain = "shallow-water" }
"=" = { terrain = "treacherous", extra = 3 }
"w" = { terrain = "deep-water" }
"#" = { terrain = "wall" }
"X" = { terrain = "open", obstruction = "severe" }
"m" = { terrain = "open", obstruction = "minor" }
"3" = { terrain = "open", obstructions = 3 }
"""


def gurps_options(name: str, **extra: Any) -> CharacterOptions:
    skills = extra.pop("skills", {})
    return CharacterOptions(name=name, skills=skills, extra=extra)


def campaign() -> Campaign:
    c = Campaign.start(STAMP, name="Mill Road", ruleset="gurps", rulesets=RULESETS, seed=5,
                       game_map=None, at=None)
    c.handle(AddCharacter(gurps_options("Kira", basic_move=5, basic_speed=5.75)))
    return c


def fight(map_text: str | None = None) -> Campaign:
    c = campaign()
    battle_map = load_battle_map(map_text, GURPS.battle_legend) if map_text else None
    c.handle(StartEncounter("Brawl", battle_map))
    return c


def join(c: Campaign, name: str, x: int, y: int, facing: str | None = None) -> None:
    c.handle(EnterCombatant(name=name, at=Square(x, y), facing=facing))


def add(c: Campaign, name: str, x: int, y: int, side: Side = Side.ENEMY,
        facing: str | None = None, **extra: Any) -> None:
    c.handle(EnterCombatant(name=name, at=Square(x, y), side=side, facing=facing,
                                     from_roster=False, options=gurps_options(name, **extra)))


def kira_at(x: int, y: int, map_text: str | None = None, facing: str | None = None
            ) -> Campaign:
    c = fight(map_text)
    join(c, "Kira", x, y, facing)
    c.handle(StartRound())
    return c


def move(c: Campaign, name: str, *steps: str, **options: Any) -> Any:
    return c.handle(MoveCombatant(name=name, steps=steps, options=options))


def posture(c: Campaign, name: str, value: str) -> Any:
    return c.handle(ChangePosture(name=name, posture=value))


def status(c: Campaign, name: str) -> dict[str, Any]:
    doc = encounter_of(c.situation(), GURPS)
    assert doc is not None
    combatant: dict[str, Any] = doc["combatants"][name]
    return combatant


def cells(event: Any) -> list[tuple[int, int]]:
    return [(cell.x, cell.y) for cell in event.path]


# -- the character's Moves ------------------------------------------------------------------


def stats(**extra: Any) -> dict[str, Any]:
    c = campaign()
    c.handle(AddCharacter(gurps_options("Vel", **extra)))
    fighter = c.game.characters["Vel"]
    c.handle(StartEncounter("Brawl", None))
    join(c, "Vel", 0, 0)
    s = status(c, "Vel")
    return {"stats": fighter.stats, "ground": s["ground_move"], "water": s["water_move"],
            "air": s["air_move"]}


def test_ground_water_and_air_move_from_basic_move_and_speed() -> None:
    # Ground Move = Basic Move 5; water Move = ⌊5 ÷ 5⌋ = 1; air Move 0 without a trait.
    got = stats(basic_move=5, basic_speed=5.75)
    assert (got["ground"], got["water"], got["air"]) == (5, 1, 0)
    assert got["stats"] == {"basic_move": 5, "basic_speed": 5.75, "trait": [],
                            "water_move_bonus": 0, "air_move_bonus": 0}
    # Basic Move 14: water Move ⌊14 ÷ 5⌋ = 2.
    assert stats(basic_move=14, basic_speed=7)["water"] == 2


def test_flight_gives_twice_basic_speed_rounded_down_plus_the_air_bonus() -> None:
    # 2 × 5.75 = 11.5, rounded down 11 (not 2 × Basic Move 5 = 10).
    assert stats(basic_move=5, basic_speed=5.75, trait=["flight"])["air"] == 11
    # 11 + air bonus 2 = 13; a bonus of -3 gives 8.
    assert stats(basic_move=5, basic_speed=5.75, trait=["flight"], air_move_bonus=2)[
        "air"] == 13
    assert stats(basic_move=5, basic_speed=5.75, trait=["flight"], air_move_bonus=-3)[
        "air"] == 8


def test_walk_on_air_gives_the_ground_move_and_with_flight_the_larger() -> None:
    # Walk on Air: air Move = ground Move = 5.
    assert stats(basic_move=5, basic_speed=5.75, trait=["walk-on-air"])["air"] == 5
    # Both: flight ⌊2 × 5.75⌋ = 11 against ground 5 → 11; Basic Move 12: 12 against 11 → 12.
    assert stats(basic_move=5, basic_speed=5.75, trait=["flight", "walk-on-air"])["air"] == 11
    assert stats(basic_move=12, basic_speed=5.75, trait=["walk-on-air", "flight"])[
        "air"] == 12


def test_amphibious_and_aquatic_water_move() -> None:
    # Amphibious: water = ground = Basic Move 5; the bonus 3 needs no swimming and no cap: 8.
    got = stats(basic_move=5, basic_speed=5, trait=["amphibious"], water_move_bonus=3)
    assert (got["ground"], got["water"]) == (5, 8)
    # Aquatic: water Move = Basic Move 6, ground Move 0.
    got = stats(basic_move=6, basic_speed=6, trait=["aquatic"])
    assert (got["ground"], got["water"]) == (0, 6)


def test_a_land_dweller_raises_water_move_only_with_swimming_and_by_two_at_most() -> None:
    # ⌊5 ÷ 5⌋ + 2 = 3 with the swimming skill.
    assert stats(basic_move=5, basic_speed=5, water_move_bonus=2,
                 skills={"swimming": 1})["water"] == 3
    c = campaign()
    refused(c, lambda: c.handle(AddCharacter(gurps_options("Vel", basic_move=5,
                                                     water_move_bonus=1))), "swimming")
    refused(c, lambda: c.handle(AddCharacter(gurps_options(
        "Vel", basic_move=5, water_move_bonus=3, skills={"swimming": 2}))), "at most \\+2")
    # Lowering it needs no skill: ⌊10 ÷ 5⌋ - 1 = 1.
    assert stats(basic_move=10, basic_speed=5, water_move_bonus=-1)["water"] == 1


def test_nonsense_stats_are_refused_with_a_sentence() -> None:
    c = campaign()
    for extra, match in (
            ({"basic_move": -1}, "--basic-move is 0 to 100"),
            ({"basic_move": 101}, "--basic-move is 0 to 100"),
            ({"basic_speed": 5.3}, "quarters"),
            ({"basic_speed": float("nan")}, "number"),
            ({"basic_speed": -1.0}, "--basic-speed is 0 to"),
            ({"trait": ["gills"]}, "not a trait"),
            ({"air_move_bonus": 2}, "flight"),
            ({"water_move_bonus": 500, "trait": ["aquatic"]}, "-100 to 100")):
        refused(c, lambda extra=extra: c.handle(AddCharacter(gurps_options("Vel", **extra))), match)
    refused(c, lambda: c.handle(AddCharacter(CharacterOptions(name="Vel", extra={"body": 5}))),
            "--body", kind=NotOffered)
    refused(c, lambda: c.handle(AddCharacter(CharacterOptions(name="Vel", extra={"full_move": 3}))),
            "another ruleset's option", kind=NotOffered)


def test_defaults_when_basic_move_or_speed_is_left_out() -> None:
    # Neither: the average Basic Speed 5 and Basic Move 5; Basic Speed 6.5 alone: Move ⌊6.5⌋.
    assert stats()["stats"]["basic_move"] == 5
    assert stats()["stats"]["basic_speed"] == 5
    assert stats(basic_speed=6.5)["stats"]["basic_move"] == 6
    assert stats(basic_move=7)["stats"]["basic_speed"] == 7


# -- direction, facing and turning ----------------------------------------------------------


def test_front_hexes_cost_one_and_a_sidestep_two() -> None:
    c = kira_at(2, 2)
    # N → 2,1 (front, 1); NE from even column 2 → 3,0 (front side, 1); SE from odd column 3
    # → 4,1 (facing N ±2: a side hex, 2). Total 4 of Basic Move 5; facing stays N.
    event = move(c, "Kira", "N", "NE", "SE")
    assert cells(event) == [(2, 2), (2, 1), (3, 0), (4, 1)]
    assert event.cost == 4
    assert event.facing == "N"
    s = status(c, "Kira")
    assert (s["moved"], s["remaining"], s["move"], s["facing"]) == (4, 1, 5, "N")


def test_backward_costs_two_a_hex_and_the_total_may_not_exceed_the_move() -> None:
    c = kira_at(2, 2)
    # S is the back hex (facing +3): 2 each; three of them 6 > 5.
    refused(c, lambda: move(c, "Kira", "S", "S", "S"), "costs 6 MP but Kira has 5")
    event = move(c, "Kira", "S", "S")
    assert (cells(event)[-1], event.cost) == ((2, 4), 4)


def test_turning_costs_one_per_hex_side_and_changes_what_is_in_front() -> None:
    c = kira_at(2, 2)
    # R: N → NE (1); SE is now beside the facing NE: 1; from 2,2 (even) SE is 3,2. Total 2.
    event = move(c, "Kira", "R", "SE")
    assert (cells(event), event.cost, event.facing) == ([(2, 2), (3, 2)], 2, "NE")


def test_a_move_of_turns_only() -> None:
    c = kira_at(2, 2)
    # L L: N → NW → SW, 2 MP, no hex entered.
    event = move(c, "Kira", "L", "L")
    assert (cells(event), event.cost, event.facing) == ([(2, 2)], 2, "SW")
    assert status(c, "Kira")["remaining"] == 3


def test_one_move_a_turn_and_a_fresh_turn_each_round() -> None:
    c = kira_at(2, 2)
    move(c, "Kira", "N")
    refused(c, lambda: move(c, "Kira", "N"), "already moved this turn")
    c.handle(StartRound())
    s = status(c, "Kira")
    assert (s["moved"], s["remaining"], s["move"]) == (0, 5, 5)
    move(c, "Kira", "N")


def test_steps_that_are_not_hex_directions_and_to_are_refused() -> None:
    c = kira_at(2, 2)
    refused(c, lambda: move(c, "Kira", "E"), "hex directions")
    refused(c, lambda: c.handle(MoveCombatant(name="Kira", to=Square(2, 0))),
            "not with --to")
    refused(c, lambda: move(c, "Kira", "N", swim=True, fly=True), "not both")
    refused(c, lambda: move(c, "Kira", "N", shift=True), "--shift", kind=NotOffered)


# -- the one hex always allowed ---------------------------------------------------------------


def test_a_single_hex_is_allowed_over_the_move_even_after_turns() -> None:
    c = fight()
    add(c, "Slug", 2, 2, side=Side.ALLY, basic_move=1, basic_speed=1)
    c.handle(StartRound())
    # R R (2) then S, now beside the facing SE (1): 3 MP of Move 1, but a single hex.
    event = move(c, "Slug", "R", "R", "S")
    assert (cells(event), event.facing, event.single) == ([(2, 2), (2, 3)], "SE", True)
    s = status(c, "Slug")
    # `moved` is the MP the move got (1), `remaining` 0.
    assert (s["moved"], s["remaining"], s["move"]) == (1, 0, 1)


def test_the_single_hex_takes_no_turn_after_it_and_two_hexes_over_are_refused() -> None:
    c = fight()
    add(c, "Slug", 2, 2, side=Side.ALLY, basic_move=1, basic_speed=1)
    c.handle(StartRound())
    refused(c, lambda: move(c, "Slug", "S", "L"), "no turn may follow")
    # N N: 2 MP of 1, two hexes.
    refused(c, lambda: move(c, "Slug", "N", "N"), "costs 2 MP but Slug has 1")


def test_a_move_of_zero_refuses_even_a_single_hex() -> None:
    c = fight()
    add(c, "Eel", 2, 2, side=Side.ALLY, basic_move=6, basic_speed=6, trait=["aquatic"])
    c.handle(StartRound())
    refused(c, lambda: move(c, "Eel", "N"), "ground Move is 0")
    refused(c, lambda: move(c, "Eel", "N", step=True), "ground Move is 0")


# -- posture ----------------------------------------------------------------------------------


def test_crouching_adds_a_half_per_hex() -> None:
    c = kira_at(2, 2)
    posture(c, "Kira", "crouching")
    # (1 + ½) × 3 = 4.5 of 5; remaining 0.5, reported as numbers.
    event = move(c, "Kira", "N", "N", "N")
    assert event.cost == 4.5
    s = status(c, "Kira")
    assert (s["moved"], s["remaining"], s["posture"]) == (4.5, 0.5, "crouching")


@pytest.mark.parametrize("low", ["kneeling", "crawling"])
def test_kneeling_and_crawling_add_two_per_hex(low: str) -> None:
    c = kira_at(2, 2)
    posture(c, "Kira", low)
    # (1 + 2) × 2 = 6 > 5.
    refused(c, lambda: move(c, "Kira", "N", "N"), "costs 6 MP")
    assert move(c, "Kira", "N").cost == 3


def test_lying_down_takes_all_the_mp_for_one_hex() -> None:
    c = kira_at(2, 2)
    posture(c, "Kira", "lying")
    refused(c, lambda: move(c, "Kira", "N", "N"), "only one hex")
    event = move(c, "Kira", "N")
    assert (event.cost, event.single) == (5, True)
    s = status(c, "Kira")
    assert (s["moved"], s["remaining"]) == (5, 0)


def test_sitting_cannot_move_or_step() -> None:
    c = kira_at(2, 2)
    posture(c, "Kira", "sitting")
    refused(c, lambda: move(c, "Kira", "N"), "sitting")
    refused(c, lambda: move(c, "Kira", "N", step=True), "sitting")


def test_posture_changes_are_recorded_and_kept_across_rounds() -> None:
    c = kira_at(2, 2)
    event = posture(c, "Kira", "Kneeling")
    assert (event.posture, event.previous) == ("kneeling", "standing")
    refused(c, lambda: posture(c, "Kira", "kneeling"), "already kneeling")
    refused(c, lambda: posture(c, "Kira", "floating"), "not a posture")
    c.handle(StartRound())
    assert status(c, "Kira")["posture"] == "kneeling"


# -- footing and obstructions -------------------------------------------------------------------


def test_treacherous_ground_and_a_minor_obstruction() -> None:
    c = kira_at(0, 3, FOOTING)
    # 0,2 minor obstruction: 1 + 1; 0,1 treacherous: 1 + 1. Total 4.
    assert move(c, "Kira", "N", "N").cost == 4


def test_stairs_shallow_water_and_a_given_extra() -> None:
    c = kira_at(1, 2, FOOTING)
    # 1,1 stairs: 1 + 1 = 2.
    assert move(c, "Kira", "N").cost == 2
    c = kira_at(2, 2, FOOTING)
    # 2,1 shallow water 1 + 1, then 2,0 open 1: 3.
    assert move(c, "Kira", "N", "N").cost == 3
    c = kira_at(3, 2, FOOTING)
    # 3,1 treacherous with extra = 3: 1 + 3 = 4.
    assert move(c, "Kira", "N").cost == 4


def test_several_obstructions_count_each() -> None:
    c = kira_at(1, 3, FOOTING)
    # 1,2 obstructions = 3: 1 + 3 = 4.
    assert move(c, "Kira", "N").cost == 4


def test_deep_water_on_foot_takes_all_the_mp_for_its_only_hex() -> None:
    c = kira_at(4, 2, FOOTING)
    refused(c, lambda: move(c, "Kira", "N", "N"), "only one hex")
    event = move(c, "Kira", "N")
    assert (cells(event)[-1], event.cost, event.single) == ((4, 1), 5, True)


def test_walls_severe_obstructions_and_the_map_edge_are_refused() -> None:
    c = kira_at(5, 2, FOOTING)
    refused(c, lambda: move(c, "Kira", "N"), "wall")
    c = kira_at(6, 2, FOOTING)
    refused(c, lambda: move(c, "Kira", "N"), "severe obstruction")
    refused(c, lambda: move(c, "Kira", "N", step=True), "severe obstruction")
    c = kira_at(0, 0, FOOTING)
    refused(c, lambda: move(c, "Kira", "N"), "off the map")


def test_a_friend_counts_as_an_obstruction_standing_or_lying_and_an_enemy_is_refused() -> None:
    c = fight()
    join(c, "Kira", 2, 3)
    add(c, "Oren", 2, 2, side=Side.ALLY)
    add(c, "Orc", 3, 3)
    c.handle(StartRound())
    # 2,2 holds a friend: 1 + 1; 2,1 open: 1. Total 3.
    assert move(c, "Kira", "N", "N").cost == 3
    c = fight()
    join(c, "Kira", 2, 3)
    add(c, "Oren", 2, 2, side=Side.ALLY)
    add(c, "Orc", 3, 3)
    posture(c, "Oren", "lying")
    c.handle(StartRound())
    refused(c, lambda: move(c, "Kira", "N"), "may pass a friend, not stop there")
    # 2,3 is an even column: SE is 3,3, where the Orc stands.
    refused(c, lambda: move(c, "Kira", "R", "SE"), "an enemy")
    # A friend lying down is one minor obstruction, not two: 2 + 1 = 3.
    assert move(c, "Kira", "N", "N").cost == 3


# -- water and air --------------------------------------------------------------------------


def test_swimming_enters_only_water_and_pays_the_direction_cost() -> None:
    c = fight(FOOTING)
    add(c, "Nix", 4, 2, side=Side.ALLY, basic_move=5, basic_speed=5, trait=["amphibious"])
    c.handle(StartRound())
    # Water Move 5: 4,1 deep water 1 and 4,0 shallow water 1 (no footing while swimming): 2.
    event = move(c, "Nix", "N", "N", swim=True)
    assert (cells(event)[-1], event.cost, event.mode) == ((4, 0), 2, "water")
    s = status(c, "Nix")
    assert (s["move"], s["moved"], s["remaining"]) == (5, 2, 3)
    c = fight(FOOTING)
    add(c, "Nix", 4, 1, side=Side.ALLY, basic_move=5, basic_speed=5, trait=["amphibious"])
    c.handle(StartRound())
    refused(c, lambda: move(c, "Nix", "NE", swim=True), "swimming enters only")


def test_flying_ignores_obstructions_footing_and_posture_but_not_walls() -> None:
    c = fight(FOOTING)
    add(c, "Hawk", 6, 2, side=Side.ALLY, basic_move=5, basic_speed=6, trait=["flight"])
    posture(c, "Hawk", "kneeling")
    c.handle(StartRound())
    # Air Move ⌊2 × 6⌋ = 12: over the severe obstruction 1, on to 6,0 1: 2.
    event = move(c, "Hawk", "N", "N", fly=True)
    assert (cells(event)[-1], event.cost) == ((6, 0), 2)
    assert status(c, "Hawk")["move"] == 12
    c = fight(FOOTING)
    add(c, "Hawk", 4, 2, side=Side.ALLY, basic_move=5, basic_speed=6, trait=["flight"])
    c.handle(StartRound())
    # Deep water 4,1 and shallow 4,0 from the air: 1 + 1.
    assert move(c, "Hawk", "N", "N", fly=True).cost == 2
    c = fight(FOOTING)
    add(c, "Hawk", 5, 2, side=Side.ALLY, basic_move=5, basic_speed=6, trait=["flight"])
    c.handle(StartRound())
    refused(c, lambda: move(c, "Hawk", "N", fly=True), "wall")


def test_a_move_type_of_zero_is_refused() -> None:
    c = kira_at(2, 2)
    refused(c, lambda: move(c, "Kira", "N", fly=True), "air Move is 0")


# -- end facing and step ------------------------------------------------------------------------


def test_any_end_facing_within_half_the_mp() -> None:
    c = kira_at(2, 2)
    # 1 MP ≤ 5 ÷ 2: any facing, free.
    event = move(c, "Kira", "N", end_facing="S")
    assert (event.facing, event.cost) == ("S", 1)
    assert status(c, "Kira")["facing"] == "S"
    c = fight()
    add(c, "Dov", 2, 2, side=Side.ALLY, basic_move=4, basic_speed=4)
    c.handle(StartRound())
    # Exactly half: 2 of 4 MP still allows any facing.
    assert move(c, "Dov", "N", "N", end_facing="S").facing == "S"


def test_more_than_half_allows_one_hex_side_from_the_facing() -> None:
    c = kira_at(2, 2)
    # 3 MP > 2.5: from N only NW, N or NE.
    refused(c, lambda: move(c, "Kira", "N", "N", "N", end_facing="SE"),
            "at most one hex-side from N")
    assert move(c, "Kira", "N", "N", "N", end_facing="NW").facing == "NW"
    c = kira_at(2, 2)
    refused(c, lambda: move(c, "Kira", "N", end_facing="up"), "not a hex direction")


def test_after_the_single_hex_half_the_move_is_passed() -> None:
    c = kira_at(2, 2)
    posture(c, "Kira", "lying")
    # The hex took all 5 MP (> 2.5): one hex-side only.
    refused(c, lambda: move(c, "Kira", "N", end_facing="S"), "one hex-side")
    assert move(c, "Kira", "N", end_facing="NE").facing == "NE"


def test_a_step_goes_one_hex_any_way_whatever_the_cost_and_keeps_the_facing() -> None:
    c = kira_at(4, 2, FOOTING)
    posture(c, "Kira", "kneeling")
    # Into deep water backward-sideways would cost everything; a step does not care.
    event = move(c, "Kira", "N", step=True)
    assert (cells(event), event.facing, event.step) == ([(4, 2), (4, 1)], "N", True)
    s = status(c, "Kira")
    # A step gets no MP: move stays the ground Move 5, moved 0, remaining 0.
    assert (s["move"], s["moved"], s["remaining"]) == (5, 0, 0)
    refused(c, lambda: move(c, "Kira", "N"), "already moved this turn")


def test_a_step_is_one_direction_without_turns_swim_fly_or_end_facing() -> None:
    c = kira_at(2, 2)
    refused(c, lambda: move(c, "Kira", "N", "N", step=True), "exactly one hex")
    refused(c, lambda: move(c, "Kira", "L", step=True), "exactly one hex")
    refused(c, lambda: move(c, "Kira", "N", step=True, fly=True), "on foot")
    refused(c, lambda: move(c, "Kira", "N", step=True, end_facing="S"), "facing as it is")
    # S is the back hex: a step still goes there and faces N.
    assert move(c, "Kira", "S", step=True).facing == "N"


def test_no_move_before_a_round_and_no_round_options() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    refused(c, lambda: move(c, "Kira", "N"), "no round has started")
    refused(c, lambda: c.handle(StartRound(options={"passes": [("Kira", 2)]})),
            "no round options")


# -- the battle map -------------------------------------------------------------------------


def test_battle_map_words_and_keys() -> None:
    # Line 12: [map], name, grid, rows = [, four rows, ], a blank line, [legend], then ".".
    with pytest.raises(MapError, match="line 12"):
        load_battle_map(FOOTING.replace('"open" }\n"t"', '"difficult" }\n"t"'),
                        GURPS.battle_legend)
    with pytest.raises(MapError, match="extra is only for"):
        load_battle_map(FOOTING.replace('"m" = { terrain = "open", obstruction = "minor" }',
                                        '"m" = { terrain = "open", extra = 2 }'),
                        GURPS.battle_legend)
    with pytest.raises(MapError, match="obstruction must be"):
        load_battle_map(FOOTING.replace('"severe"', '"huge"'), GURPS.battle_legend)
    c = campaign()
    square_map = load_battle_map(FOOTING.replace('grid = "hex"\n', ""), GURPS.battle_legend)
    refused(c, lambda: c.handle(StartEncounter("Brawl", square_map)), "plays on hexes")


# -- undo: re-checking later moves --------------------------------------------------------------


def test_undoing_a_posture_change_refuses_while_a_move_depended_on_it() -> None:
    c = kira_at(2, 2)
    events: list[TrekEvent] = list(c.collect_events())
    posture(c, "Kira", "crouching")
    move(c, "Kira", "N")          # 1.5 MP while crouching; 1 MP standing
    events += c.collect_events()
    seq = events[-2].seq
    before = fold_live(events[:seq - 1], c.is_live)
    with pytest.raises(RuleViolation, match=f"event {seq + 1}"):
        c.cancel([seq], before=before, later=events[seq - 1:], cascade=False, reason=None)
    reversal = c.cancel([seq], before=before, later=events[seq - 1:], cascade=True,
                        reason=None)
    assert isinstance(reversal, EventsCancelled)
    assert sorted(reversal.cancels) == [seq, seq + 1]


def test_undoing_an_unrelated_event_keeps_a_move_that_still_follows() -> None:
    c = fight()
    join(c, "Kira", 2, 2)
    add(c, "Orc", 5, 5)
    c.handle(StartRound())
    posture(c, "Orc", "kneeling")
    move(c, "Kira", "N", "N")
    events: list[TrekEvent] = list(c.collect_events())
    seq = events[-2].seq
    reversal = c.cancel([seq], before=fold_live(events[:seq - 1], c.is_live),
                        later=events[seq - 1:], cascade=False, reason=None)
    assert isinstance(reversal, EventsCancelled)
    assert list(reversal.cancels) == [seq]
    assert status(c, "Kira")["moved"] == 2


def test_a_new_round_does_not_depend_on_postures_so_undoing_one_reaches_no_round() -> None:
    c = kira_at(2, 2)
    posture(c, "Kira", "kneeling")
    round_two = c.handle(StartRound())
    assert round_two.states == {}
    events: list[TrekEvent] = list(c.collect_events())
    seq = events[-2].seq
    reversal = c.cancel([seq], before=fold_live(events[:seq - 1], c.is_live),
                        later=events[seq - 1:], cascade=False, reason=None)
    assert list(reversal.cancels) == [seq]
    s = status(c, "Kira")
    assert (s["posture"], s["remaining"]) == ("standing", 5)


def test_a_fallen_enemy_is_a_body_to_step_over_not_a_hex_to_refuse() -> None:
    c = fight()
    join(c, "Kira", 2, 3)
    add(c, "Orc", 2, 2)
    posture(c, "Orc", "lying")
    c.handle(StartRound())
    # Stopping on it is refused (one fighter to a hex).
    refused(c, lambda: move(c, "Kira", "N"),
            "Orc, an enemy, is on 2,2; no move stops there")
    # 2,2 holds the fallen orc: 1 + 1; 2,1 open: 1. Total 3.
    event = move(c, "Kira", "N", "N")
    assert (cells(event), event.cost) == ([(2, 3), (2, 2), (2, 1)], 3)


# -- undo: later events stand while they are still legal (RULES §4) ------------------------------


def test_undoing_a_posture_keeps_a_later_change_that_is_still_a_change() -> None:
    c = kira_at(0, 0)
    crouched = posture(c, "Kira", "crouching")
    knelt = posture(c, "Kira", "kneeling")        # recorded "from crouching"

    assert cancel_cascade(c, crouched.seq) == [crouched.seq]

    assert c.is_live(knelt.seq)
    assert status(c, "Kira")["posture"] == "kneeling"
    # One that would change nothing in the new history is still cancelled.
    c2 = kira_at(0, 0)
    down = posture(c2, "Kira", "crouching")
    posture(c2, "Kira", "standing")
    up = posture(c2, "Kira", "crouching")
    assert cancel_cascade(c2, down.seq) == [down.seq, up.seq - 1]

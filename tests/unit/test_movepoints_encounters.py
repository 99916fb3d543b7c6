"""Move-Point movement in encounters, each rule worked by hand from RULES §6, §10, §12.10 and
§12.12 and the seed move-points-system.txt.

The numbers come from the rules' text: a Move Action gives half the highest Full Move, a
Full-Round Action all of it; one free MP is held until the first such action; a tile costs its
`cost` (default 1); no movement type spends more in a round than its Full Move.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from encounter_play import cancel_cascade
from refusals import refused
from rulesets import RULESETS

from domain.campaign import Campaign, Stamp
from domain.commands.encounter import Act, EnterCombatant, MoveCombatant, StartEncounter, StartRound
from domain.commands.roster import AddCharacter
from domain.errors import MapError, NotOffered, RuleViolation
from domain.geometry import Square
from domain.movepoints.commands import SetCondition, Step
from domain.options import CharacterOptions
from domain.state import Side
from projections.views import encounter_of
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
MOVEPOINTS = RULESETS.named("movepoints")

# x: 0123456789
# y0 ..........
# y1 ..~~~#....     water at 2..4,1; a wall at 5,1
# y2 ..~~~..^..     water at 2..4,2; 7,2 costs 8 and has poor footing
# y3 .....+..=.     5,3 costs 2; 8,3 costs 8 on firm ground
FORD = """\
[map]
name = "The Ford"
rows = [
  "..........",
  "..~~~#....",
  "..~~~..^..",
  ".....+..=.",
]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
"~" = { terrain = "water" }
"^" = { terrain = "open", cost = 8, poor_footing = true }
"+" = { terrain = "open", cost = 2 }
"=" = { terrain = "open", cost = 8 }
"""


def campaign() -> Campaign:
    c = Campaign.start(STAMP, name="Reef", ruleset="movepoints", rulesets=RULESETS, seed=5,
                       game_map=None, at=None)
    # The seed's own example: a Full Move of 13.
    c.handle(AddCharacter(CharacterOptions(name="Kira", extra={"full_move": [("land", 13)]})))
    # The seed's mermaid: a Full Swimming Move of 18 and a normal Full Move of 1.
    c.handle(AddCharacter(CharacterOptions(name="Mara",
                                     extra={"full_move": [("land", 1), ("swim", 18)]})))
    return c


def fight() -> Campaign:
    c = campaign()
    c.handle(StartEncounter("Ford", load_battle_map(FORD, MOVEPOINTS.battle_legend)))
    return c


def join(c: Campaign, name: str, x: int, y: int) -> None:
    c.handle(EnterCombatant(name=name, at=Square(x, y)))


def add(c: Campaign, name: str, x: int, y: int, side: Side = Side.ENEMY,
        **full_move: int) -> Any:
    return c.handle(EnterCombatant(
        name=name, at=Square(x, y), side=side, from_roster=False,
        options=CharacterOptions(name=name, extra={"full_move": list(full_move.items())})))


def act(c: Campaign, name: str, kind: str | None, ranged: bool = False) -> Any:
    return c.handle(Act(name=name, kind=kind, options={"ranged": ranged}))


def move(c: Campaign, name: str, *steps: str, **options: Any) -> Any:
    return c.handle(MoveCombatant(name=name, steps=steps, options=options))


def step(c: Campaign, name: str, direction: str) -> Any:
    return c.handle(Step(name=name, direction=direction))


def condition(c: Campaign, name: str, word: str) -> Any:
    return c.handle(SetCondition(name=name, condition=word))


def round_(c: Campaign) -> Any:
    return c.handle(StartRound())


def status(c: Campaign, name: str) -> dict[str, Any]:
    doc = encounter_of(c.situation(), MOVEPOINTS)
    assert doc is not None
    combatant: dict[str, Any] = doc["combatants"][name]
    return combatant


# -- characters and maps --------------------------------------------------------------------


def test_full_moves_are_recorded_by_type_and_bad_ones_refused() -> None:
    c = campaign()
    event = c.handle(AddCharacter(CharacterOptions(
        name="Rook", extra={"full_move": [("land", 6), ("fly", 10)]})))
    # Recorded in the order land, swim, fly, each type once.
    assert event.stats == {"full_move": {"land": 6, "fly": 10}}
    refused(c, lambda: c.handle(AddCharacter(CharacterOptions(
        name="Bad", extra={"full_move": [("walk", 3)]}))), "'walk' is not a movement type")
    refused(c, lambda: c.handle(AddCharacter(CharacterOptions(
        name="Bad", extra={"full_move": [("land", 3), ("land", 4)]}))), "twice")
    refused(c, lambda: c.handle(AddCharacter(CharacterOptions(
        name="Bad", extra={"full_move": [("swim", -1)]}))), "swim Full Move must be 0 to 100")
    # RULES §10: MP come from the Full Move; without one a fighter could never gain a point.
    refused(c, lambda: c.handle(AddCharacter(CharacterOptions(name="Fish"))),
            "Fish needs --full-move")
    c.handle(StartEncounter("Pit"))
    refused(c, lambda: c.handle(EnterCombatant(name="Eel", at=Square(2, 2), side=Side.ENEMY,
                                               from_roster=False)), "Eel needs --full-move")
    refused(c, lambda: c.handle(AddCharacter(CharacterOptions(name="Bad", extra={"body": 4}))),
            "--body is another ruleset's option", NotOffered)
    refused(c, lambda: c.handle(AddCharacter(CharacterOptions(name="Bad",
                                                              extra={"basic_move": 5}))),
            "another ruleset's option", NotOffered)


def test_battle_maps_take_open_water_cost_and_poor_footing_only() -> None:
    spec = MOVEPOINTS.battle_legend
    doc = load_battle_map(FORD, spec)
    assert doc["legend"]["^"] == {"terrain": "open", "cost": 8, "poor_footing": True}
    with pytest.raises(MapError, match=r"line 13.*terrain 'lava'"):
        load_battle_map(FORD.replace('"water" }', '"lava" }'), spec)
    with pytest.raises(MapError, match=r"line 15.*cost must be a whole number of at least 1"):
        load_battle_map(FORD.replace("cost = 2", "cost = 0"), spec)
    with pytest.raises(MapError, match=r"line 14.*poor_footing must be true or false"):
        load_battle_map(FORD.replace("poor_footing = true", 'poor_footing = "yes"'), spec)


def test_nothing_moves_or_acts_in_round_0() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    refused(c, lambda: move(c, "Kira", "E"), "no round has started")
    refused(c, lambda: act(c, "Kira", "move"), "no round has started")
    refused(c, lambda: step(c, "Kira", "E"), "no round has started")
    # Before round 1 nothing is held.
    assert (status(c, "Kira")["mp"], status(c, "Kira")["free_point"]) == (0, False)


# -- gaining MP ------------------------------------------------------------------------------


def test_a_move_action_gives_half_the_highest_full_move_and_a_full_action_all_of_it() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    join(c, "Mara", 2, 0)
    round_(c)
    # Kira: half of 13 is 6.5 exactly; the free point is absorbed (6.5, not 7.5).
    event = act(c, "Kira", "move")
    assert (event.amount, event.mp) == (6.5, 6.5)
    # Mara: her highest Full Move is the swim 18, so a Full-Round Action gives 18.
    assert act(c, "Mara", "full").mp == 18
    assert status(c, "Mara")["mp"] == 18


def test_the_seeds_worked_example_full_move_13() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    round_(c)
    act(c, "Kira", "move")                                  # half of 13 = 6.5 MP
    move(c, "Kira", "E", "E", "E", "E", "E", "E")           # six tiles of 1: 0.5 left
    assert (status(c, "Kira")["mp"], status(c, "Kira")["moved"]) == (0.5, 6)
    # Half a tile cannot be bought: the seventh tile is refused.
    refused(c, lambda: move(c, "Kira", "E"), "holds 0.5 MP")
    act(c, "Kira", "move")                                  # 0.5 + 6.5 = 7
    assert status(c, "Kira")["mp"] == 7
    move(c, "Kira", "E", "E", "E", "S", "S", "W", "SW")     # seven tiles of 1, to 7,3
    assert (status(c, "Kira")["mp"], status(c, "Kira")["moved"]) == (0, 13)
    assert status(c, "Kira")["spent"] == {"land": 13, "swim": 0, "fly": 0}


def test_mp_gained_add_up_and_what_is_left_is_lost_when_the_next_round_starts() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    round_(c)
    act(c, "Kira", "move")                                  # 6.5
    act(c, "Kira", "full")                                  # 6.5 + 13 = 19.5
    assert status(c, "Kira")["mp"] == 19.5
    move(c, "Kira", "E", "E", "E")                          # 19.5 - 3 = 16.5
    assert status(c, "Kira")["remaining"] == 16.5
    round_(c)
    # 16.5 are lost; the new round brings the free point only.
    assert status(c, "Kira") | {} == {
        "label": "K",
        "side": "party", "position": {"x": 3, "y": 0}, "facing": None, "moved": 0,
        "remaining": 1, "mp": 1, "spent": {"land": 0, "swim": 0, "fly": 0},
        "free_point": True, "stepped": False, "in_transit": None, "condition": None}


def test_the_free_point_moves_one_tile_before_any_action() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    round_(c)
    event = move(c, "Kira", "E")
    assert (event.cost, event.provokes) == (1, True)
    assert (status(c, "Kira")["mp"], status(c, "Kira")["free_point"]) == (0, False)
    refused(c, lambda: move(c, "Kira", "E"), "holds 0 MP")


def test_the_first_action_absorbs_the_free_point_spent_or_not() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    add(c, "Gob", 0, 3, land=13)
    round_(c)
    # Kira spends the free point first: the Move Action brings her round to 6.5, so it
    # gives 6.5 - 1 = 5.5.
    move(c, "Kira", "E")
    event = act(c, "Kira", "move")
    assert (event.gained, event.mp) == (5.5, 5.5)
    # Gob keeps it: the action gives 6.5 and the free point is gone (6.5, not 7.5).
    event = act(c, "Gob", "move")
    assert (event.gained, event.mp) == (5.5, 6.5)
    # Only the first action is cut: a second adds its whole 6.5.
    assert act(c, "Gob", "move").mp == 13
    assert act(c, "Kira", "move").mp == 12


def test_act_needs_move_or_full_and_has_no_ranged() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    round_(c)
    refused(c, lambda: act(c, "Kira", None), "`move`.*or `full`")
    refused(c, lambda: act(c, "Kira", "run"), "not 'run'")
    refused(c, lambda: act(c, "Kira", "move", ranged=True), "no --ranged")


# -- the step ----------------------------------------------------------------------------------


def test_a_step_is_one_tile_for_the_free_point_and_provokes_nothing() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    round_(c)
    event = step(c, "Kira", "e")
    assert (event.path, event.cost, event.provokes) == ([Square(0, 0), Square(1, 0)], 1, False)
    doc = status(c, "Kira")
    assert (doc["position"], doc["mp"], doc["moved"], doc["free_point"], doc["stepped"]) == (
        {"x": 1, "y": 0}, 0, 1, False, True)
    assert doc["spent"] == {"land": 1, "swim": 0, "fly": 0}
    # After the step no action may gain MP this round, and there is one step a round.
    refused(c, lambda: act(c, "Kira", "move"), "took a step this round")
    refused(c, lambda: step(c, "Kira", "E"), "already took its step")
    round_(c)
    assert act(c, "Kira", "full").mp == 13


def test_a_step_comes_before_any_action_or_spending() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    add(c, "Gob", 9, 0, land=6)
    round_(c)
    act(c, "Kira", "move")
    refused(c, lambda: step(c, "Kira", "E"), "already took an action that gained MP")
    move(c, "Gob", "W")                                     # the free point, spent
    refused(c, lambda: step(c, "Gob", "W"), "already spent MP")


def test_a_step_enters_only_a_tile_costing_at_most_1() -> None:
    c = fight()
    join(c, "Kira", 4, 3)
    join(c, "Mara", 1, 1)
    round_(c)
    refused(c, lambda: step(c, "Kira", "E"), "5,3 costs 2")            # cost 2
    refused(c, lambda: step(c, "Kira", "N"), "swim Full Move and Kira has none")  # water
    refused(c, lambda: step(c, "Kira", "up"), "'up' is not a direction")
    # The mermaid steps into water on her swim Full Move.
    event = step(c, "Mara", "E")
    assert event.path[-1] == Square(2, 1)
    assert status(c, "Mara")["spent"] == {"land": 0, "swim": 1, "fly": 0}


# -- spending ---------------------------------------------------------------------------------


def test_the_mermaid_spends_freely_between_types_but_at_most_1_on_land() -> None:
    c = fight()
    join(c, "Mara", 1, 0)
    round_(c)
    act(c, "Mara", "full")                                  # 18 MP from the swim Move
    move(c, "Mara", "E")                                    # 2,0 on land: 1 of her land 1
    refused(c, lambda: move(c, "Mara", "E"), "2 MP on land movement this round, more than "
            "its land Full Move of 1")
    move(c, "Mara", "S", "E", "S")                          # 2,1 3,1 3,2: water, swim 3
    doc = status(c, "Mara")
    assert (doc["mp"], doc["moved"]) == (14, 4)             # 18 - 1 - 3
    assert doc["spent"] == {"land": 1, "swim": 3, "fly": 0}


def test_flying_spends_the_fly_full_move_and_a_type_not_had_is_refused() -> None:
    c = fight()
    join(c, "Mara", 1, 0)
    add(c, "Rook", 0, 3, side=Side.ALLY, land=6, fly=10)
    round_(c)
    act(c, "Rook", "full")                                  # highest: fly 10
    move(c, "Rook", "N", "N", "N", fly=True)                # 0,0 on the fly Move: 3
    refused(c, lambda: move(c, "Rook", "E", "E", "E", "E", "E", "E", "E", "E", fly=True),
            "11 MP on fly movement")                        # 3 + 8 > 10
    move(c, "Rook", "E", "E", "E", "E", "E", "E")           # land 6 of 6 (1 MP left)
    assert status(c, "Rook")["spent"] == {"land": 6, "swim": 0, "fly": 3}
    act(c, "Mara", "move")
    refused(c, lambda: move(c, "Mara", "S", fly=True), "fly Full Move and Mara has none")


def test_tile_costs_are_spent_and_a_move_is_all_or_nothing() -> None:
    c = fight()
    join(c, "Kira", 4, 3)
    round_(c)
    act(c, "Kira", "move")                                  # 6.5
    refused(c, lambda: move(c, "Kira", "W", "W", "N", "N"), "step 3 is refused.*swim")
    refused(c, lambda: move(c, "Kira", "NE", "N"), "step 2 is refused: 5,1 is a wall")
    event = move(c, "Kira", "E", "E")                       # 5,3 costs 2, 6,3 costs 1
    assert event.cost == 3
    assert status(c, "Kira")["mp"] == 3.5
    refused(c, lambda: c.handle(MoveCombatant(name="Kira", steps=("W",),
                                                      options={"shift": True})),
            "--shift is not an option of a movepoints move", NotOffered)


def test_move_to_takes_the_cheapest_path_by_tile_cost() -> None:
    c = fight()
    join(c, "Kira", 4, 3)
    round_(c)
    act(c, "Kira", "move")
    # Straight east costs 2 + 1 = 3; around the dear tile by 5,2 costs 1 + 1 = 2.
    event = c.handle(MoveCombatant(name="Kira", to=Square(6, 3)))
    assert (event.path, event.cost) == ([Square(4, 3), Square(5, 2), Square(6, 3)], 2)


@pytest.mark.parametrize(("to", "message"), [
    (Square(5, 1), "^5,1 is a wall, so no move takes Gob there$"),
    (Square(10, 0), r"^10,0 is off the map \(the map runs 0\.\.9 × 0\.\.3\), so no move"),
    (Square(3, 0), "^3,0 is occupied by Kira, so no move takes Gob there"),
    (Square(3, 2), "^3,2 is water and Gob has no swim Full Move, so no move takes Gob there$"),
])
def test_move_to_a_tile_never_reached_names_the_tile_before_the_mp(to: Square,
                                                                    message: str) -> None:
    c = fight()
    join(c, "Kira", 3, 0)
    add(c, "Gob", 6, 0, land=6)
    round_(c)
    act(c, "Gob", "move")                                   # 3 MP: none of these is in reach
    refused(c, lambda: c.handle(MoveCombatant(name="Gob", to=to)), message)


# -- in transit -------------------------------------------------------------------------------


def test_a_tile_dearer_than_the_full_move_is_paid_over_rounds() -> None:
    c = fight()
    add(c, "Gob", 8, 3, land=6)
    round_(c)
    act(c, "Gob", "full")                                   # 6 MP
    # 7,2 costs 8, more than the Full Move 6: all 6 go toward it; Gob stays on 8,3.
    event = move(c, "Gob", "NW")
    assert (event.path, event.toward, event.paid, event.cost) == (
        [Square(8, 3)], Square(7, 2), 6, 6)
    doc = status(c, "Gob")
    assert doc["position"] == {"x": 8, "y": 3}
    assert doc["in_transit"] == {"to": {"x": 7, "y": 2}, "cost": 8, "paid": 6}
    assert (doc["mp"], doc["moved"]) == (0, 6)
    round_(c)
    assert status(c, "Gob")["in_transit"] == {"to": {"x": 7, "y": 2}, "cost": 8, "paid": 6}
    move(c, "Gob", "NW")                                    # the free point: 7 of 8
    assert status(c, "Gob")["in_transit"]["paid"] == 7
    act(c, "Gob", "move")                                   # free point spent: 3 - 1 = 2
    event = move(c, "Gob", "NW")                            # 1 more arrives; 1 left over
    assert (event.path, event.arrived, event.cost) == ([Square(8, 3), Square(7, 2)], True, 1)
    doc = status(c, "Gob")
    assert (doc["position"], doc["in_transit"], doc["mp"], doc["moved"]) == (
        {"x": 7, "y": 2}, None, 1, 2)


def test_transit_payments_count_toward_the_type_cap_and_the_rest_stays_unspent() -> None:
    c = fight()
    add(c, "Gob", 8, 3, land=6)
    round_(c)
    act(c, "Gob", "full")                                   # 6
    move(c, "Gob", "W")                                     # 7,3: land 1, 5 MP left
    act(c, "Gob", "full")                                   # 5 + 6 = 11
    # Toward 7,2 (cost 8): the land Full Move 6 allows 5 more this round; 6 stay unspent.
    event = move(c, "Gob", "N")
    assert (event.paid, event.cost) == (5, 5)
    doc = status(c, "Gob")
    assert (doc["mp"], doc["spent"]["land"]) == (6, 6)
    refused(c, lambda: move(c, "Gob", "N"), "allows 0 more this round")


def test_a_round_without_an_action_and_a_payment_loses_the_progress() -> None:
    c = fight()
    add(c, "Gob", 8, 3, land=6)
    round_(c)
    act(c, "Gob", "full")
    move(c, "Gob", "NW")                                    # toward 7,2 (poor footing): 6
    round_(c)                                               # round 1 began them: kept
    assert status(c, "Gob")["in_transit"] is not None
    move(c, "Gob", "NW")                                    # paid with the free point only
    event = round_(c)                                       # round 2 had no action: lost
    assert event.clock["knockdown_risk"] is True
    assert [(loss["name"], loss["paid"], loss["knockdown_risk"])
            for loss in event.clock["transit_lost"]] == [("Gob", 7, True)]
    assert status(c, "Gob")["in_transit"] is None


def test_moving_elsewhere_loses_the_progress_and_notes_the_knockdown_risk() -> None:
    c = fight()
    add(c, "Gob", 8, 3, land=6)
    round_(c)
    act(c, "Gob", "full")
    move(c, "Gob", "NW")
    round_(c)
    act(c, "Gob", "full")
    event = move(c, "Gob", "E")
    assert event.transit_lost is not None
    assert (event.transit_lost.to, event.transit_lost.paid, event.knockdown_risk) == (
        Square(7, 2), 6, True)
    assert status(c, "Gob")["in_transit"] is None
    assert status(c, "Gob")["position"] == {"x": 9, "y": 3}


def test_an_enemy_stopping_on_the_tile_ends_the_transit() -> None:
    c = fight()
    add(c, "Gob", 9, 2, land=6)
    join(c, "Kira", 9, 3)
    round_(c)
    act(c, "Gob", "full")
    move(c, "Gob", "SW")                                    # toward 8,3 (cost 8, firm): 6
    act(c, "Kira", "full")                                  # 13
    event = move(c, "Kira", "W")                            # Kira enters 8,3 for 8
    assert [(b.name, b.paid, b.knockdown_risk) for b in event.broken] == [("Gob", 6, False)]
    assert status(c, "Gob")["in_transit"] is None
    assert status(c, "Kira")["mp"] == 5


# -- losing MP ---------------------------------------------------------------------------------


def test_stunned_or_immobile_loses_every_mp_held_and_any_transit() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    add(c, "Gob", 8, 3, land=6)
    round_(c)
    act(c, "Kira", "full")
    move(c, "Kira", "E", "E")                               # 13 - 2 = 11
    event = condition(c, "Kira", "stunned")
    assert (event.lost, event.condition) == (11, "stunned")
    assert (status(c, "Kira")["mp"], status(c, "Kira")["condition"]) == (0, "stunned")
    refused(c, lambda: act(c, "Kira", "move"), "stunned")
    act(c, "Gob", "full")
    move(c, "Gob", "NW")
    event = condition(c, "Gob", "immobile")
    assert (event.lost, event.knockdown_risk) == (0, True)
    assert status(c, "Gob")["in_transit"] is None
    refused(c, lambda: move(c, "Gob", "W"), "immobile")
    # Immobile, Gob may still act, but cannot spend what it gains: it is lost at once.
    assert (act(c, "Gob", "full").mp, status(c, "Gob")["mp"]) == (0, 0)
    refused(c, lambda: step(c, "Gob", "W"), "immobile")
    refused(c, lambda: condition(c, "Gob", "immobile"), "already immobile")
    refused(c, lambda: condition(c, "Gob", "asleep"), "not a condition")


def test_clear_ends_the_condition_and_the_free_point_returns_next_round() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    round_(c)
    refused(c, lambda: condition(c, "Kira", "clear"), "nothing to clear")
    condition(c, "Kira", "stunned")                         # the free point is lost
    round_(c)
    # Still stunned when the round starts: no free point to hold.
    assert (status(c, "Kira")["mp"], status(c, "Kira")["free_point"]) == (0, False)
    event = condition(c, "Kira", "clear")
    assert event.condition is None
    assert status(c, "Kira")["condition"] is None
    # The free point was not spent on movement, so the first action gives its whole 6.5.
    assert act(c, "Kira", "move").mp == 6.5
    round_(c)
    assert (status(c, "Kira")["mp"], status(c, "Kira")["free_point"]) == (1, True)


def test_undoing_an_action_rechecks_the_moves_that_spent_its_mp() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    round_(c)
    gained = act(c, "Kira", "move")
    move(c, "Kira", "E", "E", "E")
    events = c.collect_events()
    from domain.history import fold_live
    before = fold_live(events[:gained.seq - 1], c.is_live)
    with pytest.raises(RuleViolation, match="holds 1 MP"):
        c.cancel([gained.seq], before=before, later=events[gained.seq - 1:], cascade=False,
                 reason=None)


def gob_in_transit() -> tuple[Campaign, Any]:
    """Gob (walks 6) pays all 6 MP toward the scree at 7,2 (cost 8, poor footing)."""
    c = fight()
    add(c, "Gob", 8, 3, land=6)
    round_(c)
    act(c, "Gob", "full")
    moved = move(c, "Gob", "NW")
    assert status(c, "Gob")["in_transit"] == {"to": {"x": 7, "y": 2}, "cost": 8, "paid": 6}
    return c, moved


def test_an_enemy_put_on_the_transit_tile_ends_the_transit_at_once() -> None:
    c, _moved = gob_in_transit()

    event = add(c, "Tam", 7, 2, side=Side.ALLY, land=6)

    # Lost at once, recorded in the entry that caused it.
    assert event.broken == [{"name": "Gob", "to": {"x": 7, "y": 2}, "cost": 8, "paid": 6,
                             "knockdown_risk": True,
                             "reason": "Tam, an enemy, occupies 7,2"}]
    assert status(c, "Gob")["in_transit"] is None
    assert status(c, "Gob")["position"] == {"x": 8, "y": 3}
    # The next round has nothing more to lose.
    assert "transit_lost" not in round_(c).clock


def test_a_friend_put_on_the_transit_tile_ends_nothing() -> None:
    c, _moved = gob_in_transit()
    event = add(c, "Orc", 7, 2, land=6)
    assert event.broken == []
    assert "broken" not in event.payload()
    assert status(c, "Gob")["in_transit"] is not None


def test_undoing_the_entry_brings_the_transit_back_and_undoing_the_transit_keeps_the_entry(
        ) -> None:
    c, _moved = gob_in_transit()
    entered = add(c, "Tam", 7, 2, side=Side.ALLY, land=6)
    assert cancel_cascade(c, entered.seq) == [entered.seq]
    assert status(c, "Gob")["in_transit"] == {"to": {"x": 7, "y": 2}, "cost": 8, "paid": 6}

    c, moved = gob_in_transit()
    entered = add(c, "Tam", 7, 2, side=Side.ALLY, land=6)
    # Putting Tam there does not depend on Gob's transit: it stands.
    assert cancel_cascade(c, moved.seq) == [moved.seq]
    assert c.is_live(entered.seq)
    assert (status(c, "Gob")["in_transit"], status(c, "Gob")["mp"]) == (None, 6)


def test_undoing_an_action_keeps_the_stun_after_it_which_loses_what_is_held_then() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    round_(c)
    gained = act(c, "Kira", "move")                         # 6.5 MP
    stunned = condition(c, "Kira", "stunned")
    assert stunned.lost == 6.5

    assert cancel_cascade(c, gained.seq) == [gained.seq]

    assert c.is_live(stunned.seq)
    doc = status(c, "Kira")
    assert (doc["mp"], doc["free_point"], doc["condition"]) == (0, False, "stunned")


def test_move_to_with_fly_and_no_fly_full_move_says_so_before_the_mp() -> None:
    c = fight()
    add(c, "Gob", 6, 0, land=6)
    round_(c)
    act(c, "Gob", "move")
    refused(c, lambda: c.handle(MoveCombatant(name="Gob", to=Square(9, 3),
                                                      options={"fly": True})),
            "^Gob has no fly Full Move, so no move with --fly takes Gob to 9,3$")


def test_undoing_the_entry_of_the_one_in_transit_cancels_the_entry_that_ended_its_transit(
        ) -> None:
    c = fight()
    gob = add(c, "Gob", 8, 3, land=6)
    round_(c)
    act(c, "Gob", "full")
    move(c, "Gob", "NW")
    tam = add(c, "Tam", 7, 2, side=Side.ALLY, land=6)
    # Without Gob, Tam's entry would record a loss nobody had: it no longer follows.
    cancelled = cancel_cascade(c, gob.seq)
    assert gob.seq in cancelled
    assert tam.seq in cancelled

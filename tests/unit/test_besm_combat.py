"""BESM combat movement in encounters, each rule worked by hand from RULES §6, §7 and §12.

The numbers in each test come from the rules' text: Speed is Body plus the best movement
attribute, an open square costs 1 and difficult ground 2 (or its cost), and so on.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from encounter_play import cancel_cascade
from refusals import refused
from rulesets import RULESETS

from domain.besm.commands import Act, GoProne, StandUp
from domain.campaign import Campaign, Stamp
from domain.commands.days import StartDay
from domain.commands.encounter import (
    EndEncounter,
    EnterCombatant,
    MoveCombatant,
    RemoveCombatant,
    StartEncounter,
    StartRound,
)
from domain.commands.roster import AddCharacter, Harm
from domain.commands.supplies import AddSupplies
from domain.encounter import EncounterOpen, NoEncounter
from domain.errors import MapError, NotFound, NotOffered
from domain.geometry import Square
from domain.options import CharacterOptions
from domain.state import Side
from projections.views import encounter_of
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
BESM = RULESETS.named("besm")

# x: 0123456789
# y0 ..........
# y1 ..##......     walls at 2,1 and 3,1
# y2 ..#::=....     difficult at 3,2 and 4,2 (cost 2); 5,2 costs 3
# y3 ..........
ARENA = """\
[map]
name = "Kessel Pass"
rows = [
  "..........",
  "..##......",
  "..#::=....",
  "..........",
]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
":" = { terrain = "difficult" }
"=" = { terrain = "difficult", cost = 3 }
"""


def campaign() -> Campaign:
    c = Campaign.start(STAMP, name="Ashes Road", ruleset="besm", rulesets=RULESETS, seed=5,
                       game_map=None, at=None)
    c.handle(AddCharacter(CharacterOptions(name="Kira",
                                     attributes={"ground-speed": 2, "speed": 1},
                                         extra={"body": 6, "mind": 5, "soul": 4})))
    c.handle(AddCharacter(CharacterOptions(name="Oren", extra={"body": 5, "mind": 6, "soul": 5})))
    return c


def fight(map_text: str | None = ARENA) -> Campaign:
    c = campaign()
    battle_map = load_battle_map(map_text, BESM.battle_legend) if map_text else None
    c.handle(StartEncounter("Ambush", battle_map))
    return c


def join(c: Campaign, name: str, x: int, y: int) -> None:
    c.handle(EnterCombatant(name=name, at=Square(x, y)))


def enemy(c: Campaign, name: str, x: int, y: int, body: int = 5,
          **attributes: int) -> None:
    c.handle(EnterCombatant(
        name=name, at=Square(x, y), side=Side.ENEMY, from_roster=False,
        options=CharacterOptions(name=name,
                                 attributes=attributes,
                                     extra={"body": body, "mind": 3, "soul": 3})))


def ally(c: Campaign, name: str, x: int, y: int, body: int = 4, **attributes: int) -> None:
    c.handle(EnterCombatant(
        name=name, at=Square(x, y), side=Side.ALLY, from_roster=False,
        options=CharacterOptions(name=name,
                                 attributes=attributes,
                                     extra={"body": body, "mind": 3, "soul": 3})))


def move(c: Campaign, name: str, *steps: str, **options: Any) -> Any:
    return c.handle(MoveCombatant(name=name, steps=steps, options=options))


def move_to(c: Campaign, name: str, x: int, y: int) -> Any:
    return c.handle(MoveCombatant(name=name, to=Square(x, y)))


def status(c: Campaign, name: str) -> dict[str, Any]:
    doc = encounter_of(c.situation(), BESM)
    assert doc is not None
    combatant: dict[str, Any] = doc["combatants"][name]
    return combatant


def test_speed_is_body_plus_the_best_movement_attribute() -> None:
    c = fight()
    join(c, "Kira", 0, 0)          # Body 6 + ground-speed 2 (the best of 2 and 1) = 8
    join(c, "Oren", 0, 3)          # Body 5, no movement attribute = 5
    c.handle(StartRound())
    assert (status(c, "Kira")["speed"], status(c, "Kira")["remaining"]) == (8, 8)
    assert (status(c, "Oren")["speed"], status(c, "Oren")["remaining"]) == (5, 5)


def test_nothing_moves_in_round_0() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    refused(c, lambda: move(c, "Kira", "E"), "no round has started")


def test_one_move_a_round_and_the_squares_left_are_lost() -> None:
    c = fight()
    join(c, "Oren", 0, 0)
    c.handle(StartRound())
    event = move(c, "Oren", "E", "E")
    assert (event.path, event.cost) == ([Square(0, 0), Square(1, 0), Square(2, 0)], 2)
    assert (status(c, "Oren")["moved"], status(c, "Oren")["remaining"]) == (2, 0)
    refused(c, lambda: move(c, "Oren", "E"), "one move a round")
    c.handle(StartRound())
    assert (status(c, "Oren")["moved"], status(c, "Oren")["remaining"]) == (0, 5)


def test_speed_burst_allows_several_moves_while_speed_lasts() -> None:
    c = fight()
    enemy(c, "Wolf", 0, 3, body=4, **{"speed-burst": 1, "speed": 2})   # Speed 6
    c.handle(StartRound())
    move(c, "Wolf", "E", "E", "E")
    move(c, "Wolf", "E", "E")
    assert status(c, "Wolf")["remaining"] == 1
    refused(c, lambda: move(c, "Wolf", "E", "E"), "has 1 left")
    move(c, "Wolf", "E")
    assert (status(c, "Wolf")["moved"], status(c, "Wolf")["remaining"]) == (6, 0)


def test_difficult_ground_costs_two_or_its_own_cost() -> None:
    c = fight()
    join(c, "Kira", 2, 3)
    c.handle(StartRound())
    # 2,3 -> NE 3,2 (difficult, 2) -> E 4,2 (difficult, 2) -> E 5,2 (cost 3): 7 of 8.
    event = move(c, "Kira", "NE", "E", "E")
    assert event.cost == 7
    assert status(c, "Kira")["moved"] == 7


def test_a_move_is_all_or_nothing_and_names_the_step() -> None:
    c = fight()
    join(c, "Kira", 1, 1)
    c.handle(StartRound())
    refused(c, lambda: move(c, "Kira", "N", "E", "SE"), "step 3 is refused: 3,1 is a wall")
    refused(c, lambda: move(c, "Kira", "N", "N"), "step 2 is refused: 1,-1 is off the map")
    refused(c, lambda: move(c, "Kira", *["E"] * 9), "step 1 is refused")


def test_enemies_are_never_entered_and_friends_passed_but_not_stood_on() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    join(c, "Oren", 1, 0)
    enemy(c, "Bandit", 0, 3)
    c.handle(StartRound())
    refused(c, lambda: move(c, "Kira", "E"), "a move may pass a friend, not stop there")
    assert move(c, "Kira", "E", "E").path[-1] == Square(2, 0)      # through Oren's cell
    refused(c, lambda: move(c, "Oren", "SW", "S", "S"), "an enemy, stands on 0,3")


def test_shift_is_one_square_costing_one_with_no_defence_penalty() -> None:
    c = fight()
    join(c, "Oren", 6, 0)
    enemy(c, "Bandit", 7, 0)
    c.handle(StartRound())
    event = move(c, "Oren", "W", shift=True)
    assert (event.cost, event.shift, event.defense_penalty) == (1, True, 0)
    assert status(c, "Oren")["remaining"] == 0     # the shift is the round's one move
    c.handle(StartRound())
    refused(c, lambda: move(c, "Oren", "W", "W", shift=True), "exactly one square")


def test_a_shift_into_difficult_ground_is_refused() -> None:
    c = fight()
    join(c, "Oren", 4, 3)
    c.handle(StartRound())
    refused(c, lambda: move(c, "Oren", "N", shift=True), "difficult")


def test_leaving_melee_range_gives_the_defence_penalty_for_this_round_and_the_next() -> None:
    c = fight()
    join(c, "Oren", 6, 0)
    enemy(c, "Bandit", 7, 0)
    c.handle(StartRound())                    # round 1
    event = move(c, "Oren", "W", "W")              # leaves 6,0, next to the bandit
    assert event.defense_penalty == 2
    assert status(c, "Oren")["defense_penalty"] == 2
    c.handle(StartRound())                    # round 2: still -2
    assert status(c, "Oren")["defense_penalty"] == 2
    c.handle(StartRound())                    # round 3: cleared
    assert status(c, "Oren")["defense_penalty"] == 0


def test_moving_into_melee_range_gives_no_penalty() -> None:
    c = fight()
    join(c, "Oren", 4, 0)
    enemy(c, "Bandit", 7, 0)
    c.handle(StartRound())
    # 4,0 -> 5,0 -> 6,0: only the last square is next to the bandit.
    assert move(c, "Oren", "E", "E").defense_penalty == 0


def test_a_path_that_passes_through_melee_range_gives_the_penalty() -> None:
    c = fight()
    join(c, "Kira", 5, 3)
    enemy(c, "Bandit", 7, 2)
    c.handle(StartRound())
    # 5,3 -> 6,3 (next to the bandit) -> 7,3 -> 8,3 ... leaving 6,3 counts.
    assert move(c, "Kira", "E", "E", "E", "E").defense_penalty == 2


def test_prone_halves_speed_and_standing_spends_one_of_the_full_speed() -> None:
    c = fight()
    join(c, "Oren", 0, 3)                          # Speed 5
    c.handle(StartRound())
    c.handle(GoProne(name="Oren"))
    assert (status(c, "Oren")["speed"], status(c, "Oren")["prone"]) == (2, True)
    c.handle(StartRound())                    # still prone: 5 // 2 = 2
    assert status(c, "Oren")["remaining"] == 2
    c.handle(StandUp(name="Oren"))                 # full Speed 5, the stand spends 1
    assert (status(c, "Oren")["moved"], status(c, "Oren")["remaining"]) == (1, 4)
    refused(c, lambda: move(c, "Oren", *["E"] * 5), "has 4 left")
    move(c, "Oren", "E", "E", "E", "E")
    assert status(c, "Oren")["remaining"] == 0


def test_a_move_while_still_prone_has_half_the_speed() -> None:
    c = fight()
    join(c, "Kira", 0, 3)                          # Speed 8, prone 4
    c.handle(StartRound())
    c.handle(GoProne(name="Kira"))
    refused(c, lambda: move(c, "Kira", *["E"] * 5), "has 4 left")
    assert move(c, "Kira", *["E"] * 4).cost == 4


def test_standing_needs_to_be_prone() -> None:
    c = fight()
    join(c, "Oren", 0, 3)
    c.handle(StartRound())
    refused(c, lambda: c.handle(StandUp(name="Oren")), "not prone")


def test_stealth_is_half_speed_plus_the_stealth_level_capped_by_speed() -> None:
    c = fight()
    enemy(c, "Shade", 0, 3, body=6, stealth=2)     # 6 // 2 + 2 = 5
    enemy(c, "Ghost", 0, 0, body=6, stealth=5)     # 3 + 5 = 8, capped at 6
    c.handle(StartRound())
    move(c, "Shade", "E", stealthy=True)
    assert status(c, "Shade")["speed"] == 5
    move(c, "Ghost", "E", stealthy=True)
    assert status(c, "Ghost")["speed"] == 6


def test_stealth_must_be_the_first_move_of_the_round() -> None:
    c = fight()
    enemy(c, "Wolf", 0, 3, body=6, stealth=1, **{"speed-burst": 1})
    c.handle(StartRound())
    move(c, "Wolf", "E")
    refused(c, lambda: move(c, "Wolf", "E", stealthy=True), "first move")


def test_stealth_while_prone_works_from_the_halved_speed() -> None:
    c = fight()
    enemy(c, "Shade", 0, 3, body=6, stealth=2)     # prone: 3; stealth 3 // 2 + 2 = 3
    c.handle(StartRound())
    c.handle(GoProne(name="Shade"))
    refused(c, lambda: move(c, "Shade", "E", "E", "E", "E", stealthy=True), "has 3 left")
    assert move(c, "Shade", "E", "E", "E", stealthy=True).cost == 3


def test_a_ranged_act_in_a_round_with_a_move_gives_the_ranged_penalty_either_order() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    join(c, "Oren", 0, 3)
    c.handle(StartRound())
    move(c, "Kira", "E")
    assert c.handle(Act(name="Kira", options={"ranged": True})).ranged_penalty == 2
    c.handle(Act(name="Oren", options={"ranged": True}))
    assert status(c, "Oren")["ranged_penalty"] == 0
    assert move(c, "Oren", "E").ranged_penalty == 2
    c.handle(StartRound())                    # clears with the next round
    assert (status(c, "Kira")["ranged_penalty"], status(c, "Oren")["ranged_penalty"]) == (0, 0)


def test_gun_bunny_never_takes_the_ranged_penalty() -> None:
    c = fight()
    ally(c, "Vex", 0, 0, **{"gun-bunny": 1})
    c.handle(StartRound())
    move(c, "Vex", "E")
    assert c.handle(Act(name="Vex", options={"ranged": True})).ranged_penalty == 0


def test_a_stand_alone_is_not_a_move_for_the_ranged_penalty() -> None:
    c = fight()
    join(c, "Oren", 0, 3)
    c.handle(StartRound())
    c.handle(GoProne(name="Oren"))
    c.handle(StartRound())
    c.handle(StandUp(name="Oren"))
    assert c.handle(Act(name="Oren", options={"ranged": True})).ranged_penalty == 0


def test_one_act_a_round() -> None:
    c = fight()
    join(c, "Oren", 0, 3)
    c.handle(StartRound())
    c.handle(Act(name="Oren"))
    refused(c, lambda: c.handle(Act(name="Oren", options={"ranged": True})), "one action a round")
    assert status(c, "Oren")["acted"] is True


def test_moving_after_acting_is_allowed_only_before_any_move() -> None:
    c = fight()
    enemy(c, "Wolf", 0, 3, body=4, **{"speed-burst": 1})
    c.handle(StartRound())
    move(c, "Wolf", "E")
    c.handle(Act(name="Wolf"))
    refused(c, lambda: move(c, "Wolf", "E"), "moved and acted")


def test_to_takes_the_cheapest_legal_path() -> None:
    c = fight()
    join(c, "Kira", 2, 3)
    c.handle(StartRound())
    # To 4,2: through the difficult 3,2 costs 1 + 2 = 3... straight NE then E costs 2 + 2 = 4;
    # along row 3 then N into 4,2 costs 1 + 2 = 3 as well; the fewest steps wins: 2 steps.
    event = move_to(c, "Kira", 4, 2)
    assert event.cost == 3
    assert event.path[0] == Square(2, 3)
    assert event.path[-1] == Square(4, 2)
    assert len(event.path) == 3


def test_to_is_refused_when_no_path_fits_the_allowance() -> None:
    c = fight()
    join(c, "Oren", 0, 3)                          # Speed 5
    c.handle(StartRound())
    refused(c, lambda: move_to(c, "Oren", 9, 0), "no legal path")


def test_joining_and_adding_are_checked() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    refused(c, lambda: join(c, "Kira", 1, 0), "already in")
    refused(c, lambda: c.handle(EnterCombatant(name="Oren", at=Square(5, 0),
                                                        facing="UP")), "not a direction")
    refused(c, lambda: join(c, "Oren", 0, 0), "already stands on 0,0")
    refused(c, lambda: join(c, "Oren", 2, 1), "wall")
    refused(c, lambda: join(c, "Oren", 10, 0), "off the map")
    refused(c, lambda: join(c, "Zed", 5, 0), "no character called 'Zed'", NotFound)
    refused(c, lambda: enemy(c, "Oren", 5, 0), "on the roster")
    refused(c, lambda: c.handle(EnterCombatant(
        name="Ghoul", at=Square(5, 0), side=Side.ENEMY, from_roster=False,
        options=CharacterOptions(name="Ghoul", extra={"might": 5}))),
        "--might is another ruleset's option", NotOffered)


def test_one_encounter_at_a_time_and_none_means_no_encounter_commands() -> None:
    c = campaign()
    refused(c, lambda: c.handle(StartRound()), "no encounter is open", NoEncounter)
    c.handle(StartEncounter("First", None))
    refused(c, lambda: c.handle(StartEncounter("Second", None)), "still open", EncounterOpen)
    c.handle(EndEncounter())
    assert c.game.encounter is None
    refused(c, lambda: c.handle(EndEncounter()), "no encounter", NoEncounter)


def test_overland_commands_are_refused_while_an_encounter_is_open() -> None:
    c = fight()
    refused(c, lambda: c.handle(StartDay()), "while the encounter Ambush is open", EncounterOpen)
    c.handle(AddSupplies({"ammo": 2}))                    # supplies and harm still work
    c.handle(Harm("Kira", 3, 0, "arrow"))
    assert c.game.supplies["ammo"] == 2


def test_an_open_plain_has_no_edges_and_no_walls() -> None:
    c = fight(None)
    join(c, "Oren", -40, 7)
    c.handle(StartRound())
    assert move(c, "Oren", "NW", "NW").path[-1] == Square(-42, 5)


def test_removing_frees_the_cell() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    join(c, "Oren", 1, 0)
    c.handle(RemoveCombatant("Oren"))
    c.handle(StartRound())
    assert move(c, "Kira", "E").path[-1] == Square(1, 0)


def test_another_rulesets_move_options_are_refused() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    c.handle(StartRound())
    refused(c, lambda: move(c, "Kira", "E", swim=True), "--swim", NotOffered)


@pytest.mark.parametrize(("legend", "line", "reason"), [
    ('"." = { terrain = "forest" }', 8, "terrain 'forest'"),
    ('"." = { terrain = "difficult", cost = 1 }', 8, "at least 2"),
    ('"." = { terrain = "open", cost = 2 }', 8, "only for difficult"),
    ('"." = { terrain = "open", extra = 1 }', 8, "unknown key 'extra'"),
])
def test_a_battle_map_is_refused_at_load_with_the_line(legend: str, line: int,
                                                       reason: str) -> None:
    text = f'[map]\nname = "M"\nrows = [\n  "..",\n]\n\n[legend]\n{legend}\n'
    with pytest.raises(MapError, match=reason) as error:
        load_battle_map(text, BESM.battle_legend)
    assert error.value.line == line


def test_a_hex_map_is_refused_for_besm() -> None:
    c = campaign()
    hexes = load_battle_map('[map]\ngrid = "hex"\nrows = ["."]\n[legend]\n'
                            '"." = { terrain = "open" }\n', BESM.battle_legend)
    refused(c, lambda: c.handle(StartEncounter("Hexes", hexes)), "plays on squares")


# -- undo: later events stand while they are still legal (RULES §4) ------------------------------


def test_undoing_an_act_keeps_the_move_after_it() -> None:
    c = fight()
    join(c, "Oren", 0, 3)
    c.handle(StartRound())
    acted = c.handle(Act(name="Oren"))
    moved = move(c, "Oren", "E", "E")            # moving after acting, before any move: legal

    assert cancel_cascade(c, acted.seq) == [acted.seq]

    assert c.is_live(moved.seq)
    doc = status(c, "Oren")
    assert (doc["position"], doc["moved"], doc["acted"]) == ({"x": 2, "y": 3}, 2, False)


def test_undoing_a_move_keeps_the_act_after_it_unless_its_ranged_penalty_came_from_the_move(
        ) -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    join(c, "Oren", 0, 3)
    c.handle(StartRound())
    kira_moved = move(c, "Kira", "E")
    kira_acted = c.handle(Act(name="Kira"))
    oren_moved = move(c, "Oren", "E")
    oren_shot = c.handle(Act(name="Oren", options={"ranged": True}))   # ranged penalty 2

    assert cancel_cascade(c, kira_moved.seq) == [kira_moved.seq]
    assert c.is_live(kira_acted.seq)
    assert (status(c, "Kira")["acted"], status(c, "Kira")["moved"]) == (True, 0)

    # Oren's recorded ranged penalty followed from the move: it no longer would.
    assert cancel_cascade(c, oren_moved.seq) == [oren_moved.seq, oren_shot.seq]


def test_a_shift_ends_the_round_even_for_speed_burst_and_reads_as_recorded_before() -> None:
    # §12.7: a shift is the round's one move. Wolf: Body 4 + speed 2 = Speed 6, speed-burst.
    c = fight()
    enemy(c, "Wolf", 0, 3, body=4, **{"speed-burst": 1, "speed": 2})
    started = c.handle(StartRound())
    assert "shifted" not in started.states["Wolf"]      # as rounds were always recorded
    event = move(c, "Wolf", "E", shift=True)
    assert event.state["shifted"] is True
    assert (status(c, "Wolf")["moved"], status(c, "Wolf")["remaining"]) == (1, 0)
    refused(c, lambda: move(c, "Wolf", "E"), "a shift is the round's one move")
    # A shift stored before `shifted` was kept in the state still ends the round when folded.
    old = event.model_copy(update={"state": {k: v for k, v in event.state.items()
                                             if k != "shifted"}})
    game = c.game.model_copy(deep=True)
    assert game.encounter is not None
    game.encounter.combatants["Wolf"].state.pop("shifted")
    old.apply_to(game)
    assert game.encounter.combatants["Wolf"].state["shifted"] is True

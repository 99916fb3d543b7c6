"""Shadowrun movement by Initiative Pass, each rule worked by hand from RULES §6, §9, §12.9 and
the seed shadowrun-movement.txt.

The cast: Kira, an elf of Quickness 5 with Athletics 3 (walk 5 m a turn, run 5 × 3 = 15 m);
Dvorak, a dwarf of Quickness 4 (walk 4 m, run 4 × 2 = 8 m); enemies added for the fight.
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
from domain.errors import MapError, NotFound, NotOffered
from domain.geometry import Square
from domain.options import CharacterOptions
from domain.shadowrun.commands import Intercept, NextPass, Sprint
from domain.state import Side
from projections.views import encounter_of
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
SR = RULESETS.named("shadowrun")

# x: 0123456789
# y0 ..........
# y1 ..##......     walls at 2,1 and 3,1
# y2 ..,,......     rough at 2,2 and 3,2
# y3 ..........
ARENA = """\
[map]
name = "Alley"
rows = [
  "..........",
  "..##......",
  "..,,......",
  "..........",
]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
"," = { terrain = "rough" }
"""


def campaign() -> Campaign:
    c = Campaign.start(STAMP, name="Seattle", ruleset="shadowrun", rulesets=RULESETS, seed=5,
                       game_map=None, at=None)
    c.handle(AddCharacter(CharacterOptions(name="Kira", skills={"athletics": 3},
                                     extra={"quickness": 5, "metatype": "elf"})))
    c.handle(AddCharacter(CharacterOptions(name="Dvorak",
                                     extra={"quickness": 4, "metatype": "dwarf"})))
    return c


def fight(map_text: str | None = ARENA) -> Campaign:
    c = campaign()
    c.handle(StartEncounter("Ambush", load_battle_map(map_text, SR.battle_legend)
                      if map_text else None))
    return c


def join(c: Campaign, name: str, x: int, y: int) -> None:
    c.handle(EnterCombatant(name=name, at=Square(x, y)))


def add(c: Campaign, name: str, x: int, y: int, side: Side = Side.ENEMY, quickness: int = 4,
        metatype: str = "ork", athletics: int = 0) -> None:
    c.handle(EnterCombatant(
        name=name, at=Square(x, y), side=side, from_roster=False,
        options=CharacterOptions(name=name, skills={"athletics": athletics},
                                 extra={"quickness": quickness, "metatype": metatype})))


def turn(c: Campaign, **passes: int) -> None:
    c.handle(StartRound(options={"passes": list(passes.items())} if passes else {}))


def move(c: Campaign, name: str, *steps: str, **options: Any) -> Any:
    return c.handle(MoveCombatant(name=name, steps=steps, options=options))


def status(c: Campaign, name: str) -> dict[str, Any]:
    doc = encounter_of(c.situation(), SR)
    assert doc is not None
    combatant: dict[str, Any] = doc["combatants"][name]
    return combatant


def clock(c: Campaign) -> tuple[int, int]:
    doc = encounter_of(c.situation(), SR)
    assert doc is not None
    return doc["pass"], doc["passes"]


# -- characters ----------------------------------------------------------------------------------


def test_quickness_and_metatype_are_recorded_as_the_characters_stats() -> None:
    c = campaign()
    event = c.handle(AddCharacter(CharacterOptions(name="Mika",
                                             extra={"quickness": 6, "metatype": "Troll"})))
    assert event.payload()["stats"] == {"quickness": 6, "metatype": "troll"}
    # Without --metatype a character is human.
    event = c.handle(AddCharacter(CharacterOptions(name="Jo", extra={"quickness": 3})))
    assert event.payload()["stats"] == {"quickness": 3, "metatype": "human"}


@pytest.mark.parametrize(("options", "match"), [
    (CharacterOptions(name="X", extra={"metatype": "elf"}), "needs --quickness"),
    (CharacterOptions(name="X", extra={"quickness": 0}), "Quickness must be 1 to 30, not 0"),
    (CharacterOptions(name="X", extra={"quickness": 31}), "Quickness must be 1 to 30"),
    (CharacterOptions(name="X", extra={"quickness": 4, "metatype": "gnome"}),
     "--metatype must be human, dwarf, elf, ork or troll, not 'gnome'"),
    (CharacterOptions(name="X", skills={"athletics": 31}, extra={"quickness": 4}),
     "Athletics must be 0 to 30"),
])
def test_nonsense_stats_are_refused_with_a_sentence(options: CharacterOptions,
                                                    match: str) -> None:
    c = campaign()
    refused(c, lambda: c.handle(AddCharacter(options)), match)


def test_another_rulesets_stat_options_are_refused() -> None:
    c = campaign()
    refused(c, lambda: c.handle(AddCharacter(CharacterOptions(name="X",
                                                        extra={"quickness": 4, "body": 4}))),
            "--body is another ruleset's option", NotOffered)
    refused(c, lambda: c.handle(AddCharacter(CharacterOptions(
        name="X", extra={"quickness": 4, "basic_move": 5}))), "--basic-move", NotOffered)


# -- the battle map ----------------------------------------------------------------------------


def test_battle_maps_take_open_rough_wall_and_cell_meters() -> None:
    loaded = load_battle_map(ARENA.replace('name = "Alley"', 'name = "Alley"\ncell_meters = 2'),
                             SR.battle_legend)
    assert loaded["cell_meters"] == 2
    with pytest.raises(MapError, match="terrain 'difficult'"):
        load_battle_map(ARENA.replace('"rough" }', '"difficult" }'), SR.battle_legend)
    with pytest.raises(MapError, match="cell_meters must be a whole number of at least 1"):
        load_battle_map(ARENA.replace('name = "Alley"', 'name = "Alley"\ncell_meters = 0'),
                        SR.battle_legend)


# -- Combat Turns and passes ---------------------------------------------------------------------


def test_a_turn_has_as_many_passes_as_the_highest_and_starts_in_pass_1() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    join(c, "Dvorak", 0, 3)
    add(c, "Ganger", 9, 0)
    assert clock(c) == (0, 0)                # no turn yet
    turn(c, Kira=2, Ganger=3)                # Dvorak: 1 by default; the highest is 3
    assert clock(c) == (1, 3)
    c.handle(NextPass())
    assert clock(c) == (2, 3)
    c.handle(NextPass())
    assert clock(c) == (3, 3)
    refused(c, lambda: c.handle(NextPass()), "pass 3 is the last")
    turn(c)                                  # every combatant 1 pass: a turn of 1 pass
    assert clock(c) == (1, 1)
    refused(c, lambda: c.handle(NextPass()), "pass 1 is the last")


def test_passes_must_name_combatants_once_with_1_to_10() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    refused(c, lambda: turn(c, Nobody=2), "'Nobody', who is not in Ambush", NotFound)
    refused(c, lambda: c.handle(StartRound(options={"passes": [("Kira", 2),
                                                                    ("Kira", 3)]})),
            "gives Kira twice")
    refused(c, lambda: turn(c, Kira=0), "1 to 10, not 0")
    refused(c, lambda: turn(c, Kira=11), "1 to 10, not 11")
    refused(c, lambda: c.handle(StartRound(options={"shift": True})),
            "--shift is not an option")
    refused(c, lambda: c.handle(NextPass()), "no round has started")


def test_nothing_moves_before_the_first_turn() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    refused(c, lambda: move(c, "Kira", "E"), "no round has started")


# -- gait, rates and the per-pass limit ----------------------------------------------------------


def test_before_its_first_move_gait_rate_limit_and_remaining_are_null() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    turn(c)
    assert status(c, "Kira") == {
        "label": "K",
        "side": "party", "position": {"x": 0, "y": 0}, "facing": None, "moved": 0,
        "remaining": None, "gait": None, "rate": None, "pass_limit": None, "moved_turn": 0,
        "tn_modifier": 0, "quickness_bonus": 0, "intercepted": False}


def test_walk_rate_is_quickness_and_run_rate_quickness_times_the_running_modifier() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    join(c, "Dvorak", 0, 5)
    add(c, "Mika", 0, 10, side=Side.ALLY, quickness=6, metatype="troll")
    turn(c)
    move(c, "Kira", "E")                     # walk by default: 5
    move(c, "Dvorak", "E", run=True)         # dwarf ×2: 4 × 2 = 8
    move(c, "Mika", "E", run=True)           # troll ×3: 6 × 3 = 18
    assert (status(c, "Kira")["gait"], status(c, "Kira")["rate"]) == ("walk", 5)
    assert (status(c, "Dvorak")["gait"], status(c, "Dvorak")["rate"]) == ("run", 8)
    assert (status(c, "Mika")["gait"], status(c, "Mika")["rate"]) == ("run", 18)
    # One pass: the limit is the whole rate; remaining = rate − 1 metre moved.
    assert (status(c, "Mika")["pass_limit"], status(c, "Mika")["remaining"]) == (18, 17)


def test_each_pass_allows_the_rate_over_the_passes_rounded_up() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    turn(c, Kira=3)
    event = move(c, "Kira", "E", "E", "E", "E", run=True)    # run 15; ⌈15 ÷ 3⌉ = 5 a pass
    assert (event.cost, event.gait) == (4, "run")
    assert status(c, "Kira")["pass_limit"] == 5
    assert (status(c, "Kira")["moved"], status(c, "Kira")["remaining"]) == (4, 1)
    refused(c, lambda: move(c, "Kira", "E", "E"), "covers 2 metre\\(s\\) but Kira may move "
            "only 1 more")
    move(c, "Kira", "E")                     # several moves a pass, up to the limit
    assert (status(c, "Kira")["moved"], status(c, "Kira")["remaining"]) == (5, 0)
    c.handle(NextPass())
    # A new pass: 0 moved this pass, 5 of it left (15 − 5 = 10 of the turn).
    assert (status(c, "Kira")["moved"], status(c, "Kira")["moved_turn"],
            status(c, "Kira")["remaining"]) == (0, 5, 5)


def test_the_pass_limit_rounds_up() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    turn(c, Kira=2)                          # walk 5 over 2 passes: ⌈2.5⌉ = 3
    move(c, "Kira", "E")
    assert (status(c, "Kira")["pass_limit"], status(c, "Kira")["remaining"]) == (3, 2)


def test_the_whole_turn_moves_at_most_the_rate() -> None:
    c = fight(None)
    join(c, "Dvorak", 0, 0)
    add(c, "Fast", 0, 9, side=Side.ALLY)
    turn(c, Fast=3)                          # Dvorak walks 4; ⌈4 ÷ 3⌉ = 2 a pass
    move(c, "Dvorak", "E", "E")
    c.handle(NextPass())
    move(c, "Dvorak", "E", "E")              # 4 of 4 this turn
    c.handle(NextPass())
    # min(2 − 0, 4 − 4) = 0: the pass limit is fresh but the turn's rate is spent.
    assert (status(c, "Dvorak")["pass_limit"], status(c, "Dvorak")["remaining"]) == (2, 0)
    refused(c, lambda: move(c, "Dvorak", "E"), "4 a turn, 4 moved this turn")


def test_movement_needs_no_action_in_that_pass() -> None:
    c = fight(None)
    join(c, "Dvorak", 0, 0)                  # 1 Initiative Pass of its own
    add(c, "Fast", 0, 9, side=Side.ALLY)
    turn(c, Fast=2)                          # a turn of 2 passes; Dvorak walks ⌈4 ÷ 2⌉ = 2
    c.handle(NextPass())                     # pass 2, where Dvorak has no action
    assert move(c, "Dvorak", "E", "E").cost == 2


def test_the_first_move_declares_the_gait_for_the_turn() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    turn(c)
    move(c, "Kira", "E", run=True)
    refused(c, lambda: move(c, "Kira", "E", walk=True), "Kira is running this Combat Turn")
    assert move(c, "Kira", "E").gait == "run"          # no flag: the turn's gait
    assert move(c, "Kira", "E", run=True).gait == "run"
    refused(c, lambda: move(c, "Kira", "E", run=True, walk=True), "not both")
    turn(c)                                  # a new turn: undeclared again
    assert status(c, "Kira")["gait"] is None
    assert move(c, "Kira", "E", walk=True).gait == "walk"
    refused(c, lambda: move(c, "Kira", "E", run=True), "Kira is walking this Combat Turn")


def test_another_rulesets_move_option_is_refused() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    turn(c)
    refused(c, lambda: move(c, "Kira", "E", shift=True), "--shift is not an option",
            NotOffered)


def test_a_step_costs_the_cells_metres() -> None:
    c = fight(ARENA.replace('name = "Alley"', 'name = "Alley"\ncell_meters = 2'))
    join(c, "Kira", 0, 0)
    turn(c)
    assert move(c, "Kira", "E", "E").cost == 4           # 2 cells × 2 m
    # 1 metre left of 5: another 2-metre cell is too far.
    refused(c, lambda: move(c, "Kira", "E"), "covers 2 metre\\(s\\) but Kira may move only 1")
    assert (status(c, "Kira")["moved"], status(c, "Kira")["remaining"]) == (4, 1)


def test_walls_enemies_and_friends_cells_follow_the_shared_rules() -> None:
    c = fight()
    join(c, "Kira", 1, 1)
    join(c, "Dvorak", 1, 2)
    add(c, "Ganger", 1, 3)
    turn(c)
    refused(c, lambda: move(c, "Kira", "E"), "step 1 is refused: 2,1 is a wall")
    refused(c, lambda: move(c, "Kira", "S"), "may pass a friend, not stop there")
    refused(c, lambda: move(c, "Kira", "S", "S", run=True),
            "step 2 is refused: Ganger, an enemy, stands on 1,3")
    refused(c, lambda: move(c, "Kira", "X"), "'X' is not a direction")


def test_to_takes_the_cheapest_path_within_what_remains() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    turn(c, Kira=1)
    # 0,0 → 4,0 along row 0: 4 cells, 4 m of the 5 walking.
    event = c.handle(MoveCombatant(name="Kira", to=Square(4, 0)))
    assert (event.path[0], event.path[-1], event.cost) == (Square(0, 0), Square(4, 0), 4)
    refused(c, lambda: c.handle(MoveCombatant(name="Kira", to=Square(6, 0))),
            "within the 1 metre")


# -- TN modifiers --------------------------------------------------------------------------------


def test_tn_modifier_walking_1_running_4_and_rough_2_and_6() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    join(c, "Dvorak", 0, 3)
    add(c, "Ganger", 9, 3, side=Side.ALLY)
    add(c, "Rook", 9, 0, side=Side.ALLY)
    turn(c)
    assert status(c, "Kira")["tn_modifier"] == 0          # not moved yet
    assert move(c, "Kira", "S").tn_modifier == 1           # walking, open ground (0,1)
    assert move(c, "Dvorak", "E", run=True).tn_modifier == 4   # running, open ground (1,3)
    assert move(c, "Ganger", "W", "NW", "W").tn_modifier == 1  # 8,3 7,2 6,3: all open
    assert move(c, "Kira", "SE", "E").tn_modifier == 2     # 1,2 then 2,2, rough: +2
    assert move(c, "Dvorak", "E", "NE", run=True).tn_modifier == 6   # 2,3 then 3,2 rough
    # Leaving the rough ground does not undo it for this turn.
    assert move(c, "Kira", "W").tn_modifier == 2           # back on open 1,2: still +2
    turn(c)
    assert status(c, "Kira")["tn_modifier"] == 0
    assert move(c, "Rook", "W").tn_modifier == 1


# -- sprinting ----------------------------------------------------------------------------------


def test_sprint_successes_add_to_quickness_for_the_next_pass_only() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    turn(c, Kira=3)
    move(c, "Kira", "E")                     # walk 5; ⌈5 ÷ 3⌉ = 2 a pass
    event = c.handle(Sprint(name="Kira", successes=2))
    doc = event.payload()
    assert (doc["successes"], doc["roll"]["dice"], doc["roll"]["target"]) == (2, None, 4)
    assert status(c, "Kira")["quickness_bonus"] == 0       # not in this pass
    refused(c, lambda: c.handle(Sprint(name="Kira", successes=1)), "already made a sprint")
    c.handle(NextPass())
    # Pass 2: Quickness 5 + 2 = 7: rate 7, ⌈7 ÷ 3⌉ = 3; remaining min(3 − 0, 7 − 1) = 3.
    assert (status(c, "Kira")["quickness_bonus"], status(c, "Kira")["rate"],
            status(c, "Kira")["pass_limit"], status(c, "Kira")["remaining"]) == (2, 7, 3, 3)
    move(c, "Kira", "E", "E", "E")
    c.handle(NextPass())
    # Pass 3: back to Quickness 5: rate 5, limit 2; remaining min(2 − 0, 5 − 4) = 1.
    assert (status(c, "Kira")["quickness_bonus"], status(c, "Kira")["rate"],
            status(c, "Kira")["pass_limit"], status(c, "Kira")["remaining"]) == (0, 5, 2, 1)


def test_the_gm_may_give_successes_beyond_the_athletics_dice() -> None:
    c = fight(None)
    join(c, "Dvorak", 0, 0)                  # no Athletics: only given successes
    join(c, "Kira", 0, 3)                    # Athletics 3, plus Combat Pool dice
    turn(c, Kira=2)
    assert c.handle(Sprint(name="Dvorak", successes=1)).payload()["successes"] == 1
    assert c.handle(Sprint(name="Kira", successes=5)).payload()["successes"] == 5
    c.handle(NextPass())
    move(c, "Dvorak", "E")                   # Quickness 4 + 1 = 5 walking; ⌈5 ÷ 2⌉ = 3
    assert (status(c, "Dvorak")["rate"], status(c, "Dvorak")["pass_limit"]) == (5, 3)


def test_a_sprint_in_the_last_pass_loses_its_bonus() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    turn(c)                                  # one pass: it is the last
    event = c.handle(Sprint(name="Kira", successes=3))
    assert event.payload()["bonus_lost"] is True
    turn(c)
    assert status(c, "Kira")["quickness_bonus"] == 0


def test_a_rolled_sprint_records_athletics_d6_and_counts_those_at_least_the_tn() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    turn(c, Kira=2)
    event = c.handle(Sprint(name="Kira", tn=5))
    roll = event.payload()["roll"]
    assert len(roll["dice"]) == 3                          # Athletics 3: three dice
    assert all(1 <= face <= 6 for face in roll["dice"])
    assert roll["target"] == 5
    assert event.payload()["successes"] == sum(1 for f in roll["dice"] if f >= 5)


def test_sprint_refusals() -> None:
    c = fight(None)
    join(c, "Kira", 0, 0)
    join(c, "Dvorak", 0, 3)                  # no Athletics
    refused(c, lambda: c.handle(Sprint(name="Kira")), "no round has started")
    turn(c)
    refused(c, lambda: c.handle(Sprint(name="Dvorak")), "Dvorak has no Athletics rating")
    refused(c, lambda: c.handle(Sprint(name="Kira", successes=31)),
            "--roll is the number of successes: 0 to 30, not 31")
    refused(c, lambda: c.handle(Sprint(name="Kira", successes=-1)), "0 to 30, not -1")
    refused(c, lambda: c.handle(Sprint(name="Kira", tn=1)), "--tn must be 2 to 30, not 1")
    refused(c, lambda: c.handle(Sprint(name="Nobody")), "no combatant called 'Nobody'",
            NotFound)


# -- passing an opponent -----------------------------------------------------------------------


def test_free_attacks_list_enemies_passed_within_one_cell_once_in_order_met() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    add(c, "Ganger", 7, 1)                   # entered first, met second
    add(c, "Thug", 4, 1)
    add(c, "Rook", 1, 1, side=Side.ALLY)     # a friend: no free attack
    turn(c)
    event = move(c, "Kira", "E", "E", "E", "E", "E", "E", "E", "E", run=True)
    # Row 0 from 1,0 to 8,0: 3,0 4,0 5,0 are next to Thug (4,1); 6,0 7,0 8,0 to Ganger (7,1).
    assert event.free_attacks == ["Thug", "Ganger"]


def test_the_start_cell_does_not_count_only_the_cells_entered() -> None:
    c = fight()
    join(c, "Kira", 5, 0)
    add(c, "Thug", 4, 1)                     # next to 5,0 where Kira starts
    turn(c)
    assert move(c, "Kira", "E", "E").free_attacks == []   # 6,0 and 7,0 are 2+ cells away


def test_intercept_stops_the_mover_at_a_cell_of_its_latest_move_for_the_turn() -> None:
    c = fight()
    join(c, "Kira", 0, 0)
    add(c, "Ganger", 7, 1)
    add(c, "Rook", 0, 3, side=Side.ALLY)
    turn(c, Kira=2)
    refused(c, lambda: c.handle(Intercept(name="Kira", by="Ganger", at=Square(6, 0))),
            "Kira has not moved this Combat Turn")
    move(c, "Kira", "E", "E", "E", "E", "E", "E", "E", "E", run=True)   # run 15, ⌈15/2⌉ = 8
    refused(c, lambda: c.handle(Intercept(name="Kira", by="Ganger", at=Square(0, 0))),
            "0,0 is not a cell Kira's latest move entered")
    refused(c, lambda: c.handle(Intercept(name="Kira", by="Ganger", at=Square(2, 0))),
            "2,0 is not within 1 metre \\(one cell\\) of Ganger at 7,1")
    refused(c, lambda: c.handle(Intercept(name="Kira", by="Rook", at=Square(6, 0))),
            "Rook is not Kira's opponent")
    event = c.handle(Intercept(name="Kira", by="Ganger", at=Square(6, 0)))
    assert event.path == [Square(8, 0), Square(6, 0)]
    assert status(c, "Kira")["position"] == {"x": 6, "y": 0}
    assert (status(c, "Kira")["intercepted"], status(c, "Kira")["remaining"]) == (True, 0)
    refused(c, lambda: move(c, "Kira", "W"), "Kira was intercepted")
    refused(c, lambda: c.handle(Intercept(name="Kira", by="Ganger", at=Square(6, 0))),
            "already intercepted")
    c.handle(NextPass())
    refused(c, lambda: move(c, "Kira", "W"), "Kira was intercepted")
    turn(c)
    assert status(c, "Kira")["intercepted"] is False
    assert move(c, "Kira", "W").cost == 1


# -- undo: a later event stands while it is still legal (RULES §4) ---------------------------------


def sprint_then_pass(c: Campaign) -> tuple[int, int]:
    """Kira (walk 5) in a turn of 2 passes sprints in pass 1 for 2 successes: in pass 2 her
    Quickness is 7, so she walks 7 m a turn and ⌈7 ÷ 2⌉ = 4 m a pass (3 without the sprint)."""
    join(c, "Kira", 0, 3)
    turn(c, Kira=2)
    sprinted = c.handle(Sprint(name="Kira", successes=2))
    started = c.handle(NextPass())
    assert status(c, "Kira")["quickness_bonus"] == 2
    return sprinted.seq, started.seq


def test_undoing_a_sprint_keeps_the_pass_it_did_not_decide_and_cancels_the_move_it_allowed(
        ) -> None:
    c = fight()
    sprinted, started = sprint_then_pass(c)
    moved = move(c, "Kira", "E", "E", "E", "E")             # 4 m: only with the sprint

    assert cancel_cascade(c, sprinted) == [sprinted, moved.seq]

    assert c.is_live(started)
    assert clock(c) == (2, 2)
    doc = status(c, "Kira")
    assert (doc["position"], doc["quickness_bonus"], doc["moved"], doc["remaining"]) == (
        {"x": 0, "y": 3}, 0, 0, None)


def test_undoing_a_sprint_keeps_a_later_move_that_is_legal_without_it() -> None:
    c = fight()
    sprinted, started = sprint_then_pass(c)
    moved = move(c, "Kira", "E", "E", "E")                  # 3 m: legal either way

    assert cancel_cascade(c, sprinted) == [sprinted]

    assert c.is_live(started)
    assert c.is_live(moved.seq)
    doc = status(c, "Kira")
    # Walking 5 m a turn from Quickness 5: 3 a pass, all 3 moved.
    assert (doc["position"], doc["quickness_bonus"], doc["rate"], doc["pass_limit"],
            doc["remaining"]) == ({"x": 3, "y": 3}, 0, 5, 3, 0)


def test_undoing_a_move_keeps_a_later_sprint_in_the_same_pass() -> None:
    c = fight()
    join(c, "Kira", 0, 3)
    turn(c, Kira=2)
    moved = move(c, "Kira", "E")
    sprinted = c.handle(Sprint(name="Kira", successes=1))

    assert cancel_cascade(c, moved.seq) == [moved.seq]

    assert c.is_live(sprinted.seq)
    doc = status(c, "Kira")
    assert (doc["position"], doc["moved"], doc["gait"]) == ({"x": 0, "y": 3}, 0, None)
    c.handle(NextPass())
    assert status(c, "Kira")["quickness_bonus"] == 1

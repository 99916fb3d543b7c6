"""The BESM overland rules of RULES.md §3, one group of tests per rule.

Every expected number is worked out by hand from the rules text, in a comment next to it; none is
obtained by calling the code under test.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import pytest
from journeys import besm_command
from refusals import refused
from rulesets import RULESETS

from domain.besm.commands import Forage, ForcedMarch, Repair, TakeShortcut, TravelByNight
from domain.besm.events import DayEnded, Moved, Recovery, StrainLanded, Upkeep
from domain.besm.rules import Besm, attribute_rate, stat_value
from domain.besm.state import pending_strain, today
from domain.besm.undertakings import (
    Foraged,
    ForcedMarched,
    NightTravelled,
    Repaired,
    ShortcutAttempted,
)
from domain.campaign import Campaign, Stamp
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.roster import (
    AddCharacter,
    AddMount,
    AddVehicle,
    Assign,
    Dismount,
    Harm,
    Leave,
    Rejoin,
    SetRule,
)
from domain.commands.supplies import AddSupplies, SetSupplies, SpendSupplies
from domain.commands.travel import Move, MoveOptions
from domain.dice import KeyedDice, check
from domain.errors import NotFound
from domain.events import TrekEvent
from domain.geometry import Square
from domain.maps import GameMap
from domain.options import CharacterOptions
from domain.state import Character, ConveyanceState, Role
from tracker.mapformats.tomlfile import load_map

# x is the column, y the row; N is y-1.
#   (0,1) rough ground, penalty 1     (1,1) (2,1) mountains, a feature
#   (1,2) a ley storm, a hazard with penalty 2
REACH = load_map("""\
[map]
name = "Test Reach"
rows = [
  "......",
  ",^^...",
  ".!....",
  "......",
]

[legend]
"." = { terrain = "open" }
"," = { terrain = "open", penalty = 1 }
"^" = { terrain = "feature", name = "mountains" }
"!" = { terrain = "hazard", name = "ley storm", penalty = 2 }

[[shortcut]]
name = "Kessel Pass"
path = [[1, 1], [2, 1]]
bonus = 2
penalty = 1

[[shortcut]]
name = "Old Road"
path = [[4, 0], [5, 0]]
bonus = 1
penalty = 0
""", RULESETS.named("besm"))

# A wall of mountains in column 2, open only at its foot (2,2).
WALL = load_map("""\
[map]
name = "The Wall"
rows = [
  "..^..",
  "..^..",
  ".....",
]

[legend]
"." = { terrain = "open" }
"^" = { terrain = "feature", name = "cliffs" }
""", RULESETS.named("besm"))

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
BESM = Besm()


def campaign_at(x: int = 0, y: int = 0, game_map: GameMap | None = REACH) -> Campaign:
    return Campaign.start(STAMP, name="Ashes Road", ruleset="besm", rulesets=RULESETS, seed=7,
                          game_map=game_map, at=Square(x, y))


def hero(name: str, *, body: int = 6, mind: int = 5, soul: int = 4,
         skills: Mapping[str, int] | None = None, attributes: Mapping[str, int] | None = None,
         health_max: int | None = None, energy_max: int | None = None) -> CharacterOptions:
    return CharacterOptions(name=name,
                            skills=dict(skills or {}), attributes=dict(attributes or {}),
                            health_max=health_max, energy_max=energy_max,
                                extra={"body": body, "mind": mind, "soul": soul})


def movement(campaign: Campaign) -> dict[str, Any]:
    return BESM.movement_status(campaign.situation())


def move(campaign: Campaign, *steps: str, through_hazard: bool = False) -> TrekEvent:
    return campaign.handle(Move(MoveOptions(steps=steps, through_hazard=through_hazard)))


def end_day(campaign: Campaign, rests: Mapping[str, str] | None = None,
            hours: int = 8) -> DayEnded:
    event = campaign.handle(EndDay(DayEndOptions(rests=dict(rests or {}), hours=hours)))
    assert isinstance(event, DayEnded)
    return event


# -- stats and checks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("body-soul", 5),  # (7 + 4) / 2 = 5.5, rounded down: 5
        ("body-mind", 6),  # (7 + 6) / 2 = 6.5, rounded down: 6
        ("mind-soul", 5),  # (6 + 4) / 2 = 5
        ("body", 7),  # a single stat is itself
    ],
)
def test_a_combined_stat_is_the_average_of_the_two_rounded_down(expression: str,
                                                                 expected: int) -> None:
    kira = Character(name="Kira", stats={"body": 7, "mind": 6, "soul": 4})

    assert stat_value(kira, expression) == expected


def test_a_check_target_is_stat_plus_skill_minus_the_square_penalty() -> None:
    # given Kira (Mind 5, navigation 2, survival 1) standing on rough ground (penalty 1)
    campaign = campaign_at(0, 1)
    campaign.handle(AddCharacter(hero("Kira", mind=5, skills={"navigation": 2, "survival": 1})))
    campaign.handle(StartDay())

    # when she navigates by night
    event = campaign.handle(TravelByNight(roll=6))

    # then the target is Mind 5 + the higher skill 2 − square penalty 1 = 6
    assert isinstance(event, NightTravelled)
    assert event.roll.target == 6


@pytest.mark.parametrize(
    ("total", "target", "success", "points"),
    [
        (5, 8, True, 3),  # 5 ≤ 8: success by 8 − 5 = 3 points
        (8, 8, True, 1),  # spot-on: 8 − 8 = 0, yet a spot-on roll counts one point
        (2, 12, True, 10),  # 12 − 2 = 10 points
        (9, 8, False, 1),  # 9 > 8: failure by 9 − 8 = 1 point
        (12, 4, False, 8),  # failure by 12 − 4 = 8 points
    ],
)
def test_a_check_succeeds_when_the_roll_is_at_most_the_target(total: int, target: int,
                                                              success: bool,
                                                              points: int) -> None:
    roll = check("test", target, KeyedDice(1, 1, {"test": total}))

    assert roll.success is success
    assert roll.points == points
    assert roll.total == total
    assert roll.dice is None  # the GM gave the total


def test_a_spot_on_forage_still_buys_one_provision() -> None:
    # given a forager with target Body-Mind (6+5)/2 = 5 + survival 2 = 7
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira", body=6, mind=5, skills={"survival": 2})))
    campaign.handle(StartDay())

    # when the roll is exactly 7
    event = campaign.handle(Forage(roll=7))

    # then spot-on gives 1 point, which buys 1 provisions
    assert isinstance(event, Foraged)
    assert event.gained == 1
    assert campaign.game.supplies["provisions"] == 1


# -- Health and Energy -----------------------------------------------------------------------


def test_health_and_energy_maxima_default_from_the_stats_and_characters_start_full() -> None:
    campaign = campaign_at()

    campaign.handle(AddCharacter(hero("Kira", body=6, mind=5, soul=4)))

    kira = campaign.game.characters["Kira"]
    # Health (6 + 4) × 5 = 50; Energy (5 + 4) × 5 = 45
    assert (kira.health_max, kira.energy_max) == (50, 45)
    assert (kira.health, kira.energy) == (50, 45)


def test_health_and_energy_maxima_can_be_given_at_creation() -> None:
    campaign = campaign_at()

    campaign.handle(AddCharacter(hero("Kira", health_max=30, energy_max=20)))

    kira = campaign.game.characters["Kira"]
    assert (kira.health_max, kira.health, kira.energy_max, kira.energy) == (30, 30, 20, 20)


def test_harm_subtracts_health_and_energy() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))  # 50 Health, 45 Energy

    campaign.handle(Harm("Kira", 12, 5, "ambush"))

    kira = campaign.game.characters["Kira"]
    assert (kira.health, kira.energy) == (38, 40)  # 50 − 12, 45 − 5


def test_harm_never_takes_health_or_energy_below_zero() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))  # 50 Health, 45 Energy

    campaign.handle(Harm("Kira", 80, 100, None))

    kira = campaign.game.characters["Kira"]
    assert (kira.health, kira.energy) == (0, 0)


@pytest.mark.parametrize(
    ("name", "health", "energy"),
    [("Kira", 0, 0), ("Kira", -1, 3), ("Nobody", 5, 0)],
)
def test_harm_of_nothing_negative_or_nobody_is_refused(name: str, health: int,
                                                       energy: int) -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))

    refused(campaign, lambda: campaign.handle(Harm(name, health, energy, None)))


@pytest.mark.parametrize(
    "options",
    [
        CharacterOptions(name="Kira",
            extra={"body": 6, "mind": 5}),  # no Soul
        CharacterOptions(name="Kira",
            extra={"body": 13, "mind": 5, "soul": 4}),  # stats are 1 to 12
        CharacterOptions(name="Kira", extra={"body": 0, "mind": 5, "soul": 4}),
        CharacterOptions(name="Kira", skills={"ride": -1}, extra={"body": 6, "mind": 5, "soul": 4}),
    ],
)
def test_a_character_outside_the_stat_ranges_is_refused(options: CharacterOptions) -> None:
    campaign = campaign_at()

    refused(campaign, lambda: campaign.handle(AddCharacter(options)))


# -- travel rates ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "level", "rate"),
    [
        ("speed", 3, 3),  # speed L
        ("ground-speed", 3, 6),  # ground-speed 2L
        ("flight", 3, 3),  # flight L
        ("ground-speed", 1, 2),
        ("speed", 0, 0),  # level 0 gives no rate of its own
    ],
)
def test_each_movement_attribute_gives_its_rate(attribute: str, level: int, rate: int) -> None:
    assert attribute_rate(attribute, level) == rate


@pytest.mark.parametrize(
    ("attributes", "budget"),
    [
        ({}, 1),  # on foot without attributes: 1
        ({"speed": 3}, 3),  # speed L = 3
        ({"ground-speed": 2}, 4),  # 2L = 4
        ({"flight": 2}, 2),  # flight L = 2
        ({"speed": 2, "ground-speed": 1, "flight": 3}, 3),  # best of 2, 2, 3
        ({"ground-speed": 1, "speed": 3}, 3),  # best of 2 and 3
        ({"speed": 0}, 1),  # level 0 gives nothing: 1 on foot
        ({"strength": 5}, 1),  # not a movement attribute
    ],
)
def test_a_walker_moves_at_the_best_rate_its_attributes_give(attributes: dict[str, int],
                                                             budget: int) -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira", attributes=attributes)))

    campaign.handle(StartDay())

    assert today(campaign.game).budget == budget
    assert movement(campaign)["base"] == budget


@pytest.mark.parametrize(
    ("move_attribute", "budget"),
    [
        (("speed", 2), 2),  # speed L = 2
        (("ground-speed", 3), 6),  # 2L = 6
        (("flight", 2), 2),  # flight L = 2
        (("ground-speed", 0), 1),  # a conveyance at level 0 moves 1
    ],
)
def test_a_rider_moves_at_the_rate_of_the_mount(move_attribute: tuple[str, int],
                                                budget: int) -> None:
    # given a rider whose own ground-speed 5 (10 squares) would be far faster
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira", attributes={"ground-speed": 5})))
    campaign.handle(AddMount("Dusty", move_attribute, "Kira"))

    campaign.handle(StartDay())

    # then only the mount's rate counts
    assert today(campaign.game).budget == budget


def test_driver_and_passengers_move_at_the_rate_of_the_vehicle() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Vic")))
    campaign.handle(AddCharacter(hero("Pax", attributes={"speed": 6})))
    campaign.handle(AddVehicle("Rig", ("ground-speed", 2), "Vic", ["Pax"]))

    campaign.handle(StartDay())

    assert today(campaign.game).budget == 4  # ground-speed 2 → 2 × 2 = 4


@pytest.mark.parametrize(
    ("attribute", "level"),
    [("velocity", 2), ("ground-speed", -1)],
)
def test_a_conveyance_without_a_valid_movement_attribute_is_refused(attribute: str,
                                                                    level: int) -> None:
    campaign = campaign_at()

    refused(campaign, lambda: campaign.handle(AddMount("Dusty", (attribute, level), None)))
    refused(campaign, lambda: campaign.handle(AddVehicle("Rig", (attribute, level), None, [])))
    refused(campaign, lambda: campaign.handle(AddMount("Dusty", None, None)))


# -- base movement and flying ----------------------------------------------------------------


def test_the_slowest_travelling_unit_sets_the_base_movement() -> None:
    # given Kira on foot at speed 3 (3), Bo on foot (1) and Cy riding Dusty, ground-speed 2 (4)
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira", attributes={"speed": 3})))
    campaign.handle(AddCharacter(hero("Bo")))
    campaign.handle(AddCharacter(hero("Cy")))
    campaign.handle(AddMount("Dusty", ("ground-speed", 2), "Cy"))

    campaign.handle(StartDay())

    assert today(campaign.game).budget == 1  # min(3, 1, 4)


def test_a_member_left_behind_no_longer_sets_the_pace() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira", attributes={"speed": 3})))
    campaign.handle(AddCharacter(hero("Bo")))
    assert movement(campaign)["base"] == 1  # min(3, 1)

    campaign.handle(Leave("Bo"))

    assert movement(campaign)["base"] == 3  # Kira alone
    campaign.handle(StartDay())
    assert today(campaign.game).budget == 3


def test_a_group_that_all_flies_crosses_a_feature() -> None:
    # given Kira flying on foot (flight 1) and Bo (no flight) riding a flying griffin
    campaign = campaign_at(0, 0)
    campaign.handle(AddCharacter(hero("Kira", attributes={"flight": 1})))
    campaign.handle(AddCharacter(hero("Bo")))
    campaign.handle(AddMount("Griffin", ("flight", 2), "Bo"))
    campaign.handle(StartDay())
    assert BESM.flying(campaign.situation())
    assert today(campaign.game).budget == 1  # min(flight 1, flight 2)

    # when the group steps onto the mountains at (1,1)
    event = move(campaign, "SE")

    # then it is allowed
    assert isinstance(event, Moved)
    assert campaign.game.position == Square(1, 1)


def test_a_member_left_behind_does_not_keep_the_group_from_flying() -> None:
    campaign = campaign_at(0, 0)
    campaign.handle(AddCharacter(hero("Kira", attributes={"flight": 1})))
    campaign.handle(AddCharacter(hero("Cy")))  # no flight
    campaign.handle(Leave("Cy"))
    campaign.handle(StartDay())

    move(campaign, "SE")

    assert campaign.game.position == Square(1, 1)  # the mountains


@pytest.mark.parametrize(
    "grounded",
    [
        "walker",  # one character on foot without flight
        "vehicle",  # a flight vehicle strained down to level 0 does not fly
    ],
)
def test_a_group_flies_only_when_every_travelling_unit_has_flight(grounded: str) -> None:
    campaign = campaign_at(0, 0)
    campaign.handle(AddCharacter(hero("Kira", attributes={"flight": 1})))
    if grounded == "walker":
        campaign.handle(AddCharacter(hero("Cy")))
    else:
        campaign.handle(AddCharacter(hero("Vic")))
        campaign.handle(AddVehicle("Glider", ("flight", 0), "Vic", []))
    campaign.handle(StartDay())

    assert not BESM.flying(campaign.situation())
    refused(campaign, lambda: move(campaign, "SE"), match="mountains")


# -- the day ---------------------------------------------------------------------------------


def test_day_start_opens_the_next_day_with_the_base_movement_as_budget() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira", attributes={"ground-speed": 1})))  # 2 squares
    assert movement(campaign) == {"base": 2, "budget": 0, "used": 0, "remaining": 0}

    campaign.handle(StartDay())
    assert campaign.game.day.number == 1
    assert movement(campaign) == {"base": 2, "budget": 2, "used": 0, "remaining": 2}

    end_day(campaign)
    assert movement(campaign) == {"base": 2, "budget": 0, "used": 0, "remaining": 0}
    campaign.handle(StartDay())
    assert campaign.game.day.number == 2


def test_a_day_cannot_be_started_while_one_is_open() -> None:
    campaign = campaign_at()
    campaign.handle(StartDay())

    refused(campaign, lambda: campaign.handle(StartDay()), match="still open")


def test_a_day_cannot_be_ended_when_none_is_open() -> None:
    campaign = campaign_at()

    refused(campaign, lambda: end_day(campaign))


def test_each_step_costs_one_and_a_move_records_every_square_from_the_one_left() -> None:
    campaign = campaign_at(2, 3)
    campaign.handle(AddCharacter(hero("Kira", attributes={"speed": 3})))
    campaign.handle(StartDay())

    event = move(campaign, "N", "NE")

    # (2,3) → N (2,2) → NE (3,1)
    assert isinstance(event, Moved)
    assert event.path == [Square(2, 3), Square(2, 2), Square(3, 1)]
    assert event.cost == 2
    assert campaign.game.position == Square(3, 1)
    assert movement(campaign) == {"base": 3, "budget": 3, "used": 2, "remaining": 1}


@pytest.mark.parametrize(
    ("start", "steps", "reason"),
    [
        (Square(0, 0), ("N",), "off the map"),  # y −1
        (Square(5, 3), ("SE",), "off the map"),  # (6,4)
        (Square(0, 0), ("SE",), "mountains"),  # (1,1) is a feature
        (Square(0, 2), ("E",), "through-hazard"),  # (1,2) is a ley storm
        (Square(3, 3), ("E", "E"), "only 1 remain"),  # two steps on a budget of 1
    ],
)
def test_a_step_is_refused_off_the_map_into_a_feature_into_a_hazard_or_over_budget(
        start: Square, steps: tuple[str, ...], reason: str) -> None:
    campaign = campaign_at(start.x, start.y)
    campaign.handle(AddCharacter(hero("Kira")))  # budget 1
    campaign.handle(StartDay())

    refused(campaign, lambda: move(campaign, *steps), match=reason)


def test_a_hazard_may_be_entered_with_through_hazard() -> None:
    campaign = campaign_at(0, 2)
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(StartDay())

    event = move(campaign, "E", through_hazard=True)

    assert isinstance(event, Moved)
    assert event.through_hazard
    assert campaign.game.position == Square(1, 2)


def test_a_move_of_several_steps_is_all_or_nothing() -> None:
    # given a budget of 3 at (3,0): E to (4,0) and (5,0) are fine, the third E leaves the map
    campaign = campaign_at(3, 0)
    campaign.handle(AddCharacter(hero("Kira", attributes={"speed": 3})))
    campaign.handle(StartDay())

    refused(campaign, lambda: move(campaign, "E", "E", "E"), match="off the map")

    assert campaign.game.position == Square(3, 0)
    assert today(campaign.game).used == 0


def test_a_move_without_directions_is_refused() -> None:
    campaign = campaign_at()
    campaign.handle(StartDay())

    refused(campaign, lambda: move(campaign))


def test_move_to_takes_the_cheapest_path_in_eight_directions() -> None:
    # given the cliffs of column 2 open only at (2,2), and a budget of 4
    campaign = campaign_at(0, 0, WALL)
    campaign.handle(AddCharacter(hero("Kira", attributes={"speed": 4})))
    campaign.handle(StartDay())

    event = campaign.handle(Move(MoveOptions(to=Square(4, 0))))

    # x must grow by 1 each of 4 steps and pass (2,2): (0,0) (1,1) (2,2) (3,1) (4,0)
    assert isinstance(event, Moved)
    assert event.path == [Square(0, 0), Square(1, 1), Square(2, 2), Square(3, 1), Square(4, 0)]
    assert event.cost == 4
    assert campaign.game.position == Square(4, 0)


def test_move_to_goes_diagonally_on_open_ground() -> None:
    campaign = campaign_at(2, 0)
    campaign.handle(AddCharacter(hero("Kira", attributes={"speed": 3})))
    campaign.handle(StartDay())

    event = campaign.handle(Move(MoveOptions(to=Square(5, 3))))

    # three diagonal SE steps: (2,0) (3,1) (4,2) (5,3)
    assert isinstance(event, Moved)
    assert event.path == [Square(2, 0), Square(3, 1), Square(4, 2), Square(5, 3)]


def test_move_to_is_refused_when_no_legal_path_fits_the_budget() -> None:
    # the only way round the cliffs takes 4 steps, 3 remain
    campaign = campaign_at(0, 0, WALL)
    campaign.handle(AddCharacter(hero("Kira", attributes={"speed": 3})))
    campaign.handle(StartDay())

    refused(campaign, lambda: campaign.handle(Move(MoveOptions(to=Square(4, 0)))),
            match="no legal path")


@pytest.mark.parametrize(
    ("to", "match"),
    [
        (Square(2, 0), r"^2,0 is cliffs, which the group can only cross flying"),
        (Square(9, 9), r"^9,9 is off the map \(the map runs 0\.\.4 × 0\.\.2\)$"),
    ],
)
def test_move_to_a_square_never_entered_names_the_square_not_the_budget(to: Square,
                                                                         match: str) -> None:
    campaign = campaign_at(0, 0, WALL)
    campaign.handle(AddCharacter(hero("Kira", attributes={"speed": 4})))
    campaign.handle(StartDay())

    refused(campaign, lambda: campaign.handle(Move(MoveOptions(to=to))), match=match)


def test_move_to_avoids_hazards_unless_allowed_through_them() -> None:
    # given Kira at (0,3) with a budget of 1, and the ley storm at (1,2) next to her
    campaign = campaign_at(0, 3)
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(StartDay())

    refused(campaign, lambda: campaign.handle(Move(MoveOptions(to=Square(1, 2)))),
            match="add --through-hazard to go through it")
    event = campaign.handle(Move(MoveOptions(to=Square(1, 2), through_hazard=True)))

    assert isinstance(event, Moved)
    assert event.path == [Square(0, 3), Square(1, 2)]


def test_move_to_through_hazard_goes_round_the_hazard_when_that_is_as_short() -> None:
    # given Kira at (0,2): E E crosses the ley storm at (1,2); SE NE via (1,3) is as short
    campaign = campaign_at(0, 2)
    campaign.handle(AddCharacter(hero("Kira", attributes={"speed": 3})))
    campaign.handle(StartDay())

    event = campaign.handle(Move(MoveOptions(to=Square(2, 2), through_hazard=True)))

    assert isinstance(event, Moved)
    assert event.path == [Square(0, 2), Square(1, 3), Square(2, 2)]
    assert not event.through_hazard


def test_move_to_through_hazard_crosses_it_when_that_is_shorter() -> None:
    # given Kira at (0,2) with budget 1: only the storm at (1,2) is within one step of (1,2)
    campaign = campaign_at(0, 2)
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(StartDay())

    event = campaign.handle(Move(MoveOptions(to=Square(1, 2), through_hazard=True)))

    assert isinstance(event, Moved)
    assert event.through_hazard


@pytest.mark.parametrize("phase", ["before any day", "after the day ended"])
def test_nothing_moves_while_no_day_is_open(phase: str) -> None:
    campaign = campaign_at(3, 3)
    campaign.handle(AddCharacter(hero("Kira")))
    if phase == "after the day ended":
        campaign.handle(StartDay())
        end_day(campaign)

    refused(campaign, lambda: move(campaign, "N"), match="no day is open")
    refused(campaign, lambda: campaign.handle(Move(MoveOptions(to=Square(3, 2)))),
            match="no day is open")


# -- shortcuts -------------------------------------------------------------------------------


def test_a_shortcut_is_refused_away_from_its_first_square() -> None:
    # given the party at (3,0): two squares from Kessel Pass's first square (1,1)
    campaign = campaign_at(3, 0)
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(StartDay())

    refused(campaign, lambda: campaign.handle(TakeShortcut(name="Kessel Pass", roll=2)),
            match="starts at 1,1")


def test_a_shortcut_may_be_tried_standing_on_its_first_square() -> None:
    campaign = campaign_at(4, 0)  # Old Road starts at (4,0)
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(StartDay())

    event = campaign.handle(TakeShortcut(name="Old Road", roll=2))

    assert isinstance(event, ShortcutAttempted)


def test_an_unknown_shortcut_is_refused() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(StartDay())

    with pytest.raises(NotFound):
        campaign.handle(TakeShortcut(name="Nowhere", roll=2))
    refused(campaign, lambda: campaign.handle(TakeShortcut(name="Nowhere", roll=2)))


def test_the_best_navigator_rolls_for_a_shortcut() -> None:
    # Kira: Mind 5 + navigation 1 = 6; Bo: Mind 4 + survival 3 = 7; Dee: Mind 6 + 0 = 6
    campaign = campaign_at(0, 0)
    campaign.handle(AddCharacter(hero("Kira", mind=5, skills={"navigation": 1})))
    campaign.handle(AddCharacter(hero("Bo", mind=4, skills={"survival": 3})))
    campaign.handle(AddCharacter(hero("Dee", mind=6)))
    campaign.handle(StartDay())

    event = campaign.handle(TakeShortcut(name="Kessel Pass", roll=12))

    assert isinstance(event, ShortcutAttempted)
    assert event.roll.by == "Bo"
    assert event.roll.target == 6  # Bo's 7 − the shortcut's penalty 1 (open square: 0)


@pytest.mark.parametrize(
    ("order", "navigator"),
    [(("Kira", "Bo"), "Kira"), (("Bo", "Kira"), "Bo")],
)
def test_a_tie_for_best_navigator_goes_to_the_one_added_first(order: tuple[str, str],
                                                              navigator: str) -> None:
    # Kira: Mind 5 + navigation 2 = 7; Bo: Mind 4 + survival 3 = 7
    skills = {"Kira": (5, {"navigation": 2}), "Bo": (4, {"survival": 3})}
    campaign = campaign_at(0, 0)
    for name in order:
        mind, known = skills[name]
        campaign.handle(AddCharacter(hero(name, mind=mind, skills=known)))
    campaign.handle(StartDay())

    event = campaign.handle(TakeShortcut(name="Kessel Pass", roll=12))

    assert isinstance(event, ShortcutAttempted)
    assert event.roll.by == navigator


def shortcut_party() -> Campaign:
    """Kira on rough ground (0,1), next to Kessel Pass; target 5 + 2 − 1 − 1 = 5; budget 1."""
    campaign = campaign_at(0, 1)
    campaign.handle(AddCharacter(hero("Kira", mind=5, skills={"navigation": 2})))
    campaign.handle(StartDay())
    return campaign


def test_a_shortcut_roll_subtracts_the_shortcut_and_square_penalties() -> None:
    campaign = shortcut_party()

    event = campaign.handle(TakeShortcut(name="Kessel Pass", roll=9))

    # Mind 5 + navigation 2 − shortcut penalty 1 − rough ground 1 = 5
    assert isinstance(event, ShortcutAttempted)
    assert event.roll.target == 5


def test_a_successful_shortcut_adds_its_bonus_and_opens_its_path_for_today() -> None:
    campaign = shortcut_party()

    event = campaign.handle(TakeShortcut(name="Kessel Pass", roll=5))

    assert isinstance(event, ShortcutAttempted)
    assert event.roll.success
    assert event.bonus == 2
    assert today(campaign.game).budget == 3  # 1 + bonus 2
    # the mountains at (1,1) and (2,1) can now be crossed
    move(campaign, "E", "E")
    assert campaign.game.position == Square(2, 1)
    assert movement(campaign)["remaining"] == 1  # 3 − 2


def test_a_failed_shortcut_gains_nothing() -> None:
    campaign = shortcut_party()

    event = campaign.handle(TakeShortcut(name="Kessel Pass", roll=6))

    assert isinstance(event, ShortcutAttempted)
    assert not event.roll.success  # 6 > 5
    assert event.bonus == 0
    assert event.opened == []
    assert today(campaign.game).budget == 1
    refused(campaign, lambda: move(campaign, "E"), match="mountains")


def test_a_shortcut_may_be_tried_once_a_day_and_its_path_closes_at_day_end() -> None:
    campaign = shortcut_party()
    campaign.handle(TakeShortcut(name="Kessel Pass", roll=5))

    refused(campaign, lambda: campaign.handle(TakeShortcut(name="Kessel Pass", roll=2)),
            match="already tried")

    # the next day the pass is closed again, and may be tried again
    end_day(campaign)
    campaign.handle(StartDay())
    refused(campaign, lambda: move(campaign, "E"), match="mountains")
    event = campaign.handle(TakeShortcut(name="Kessel Pass", roll=6))
    assert isinstance(event, ShortcutAttempted)


def test_a_shortcut_needs_an_open_day() -> None:
    campaign = campaign_at(0, 1)
    campaign.handle(AddCharacter(hero("Kira")))

    refused(campaign, lambda: campaign.handle(TakeShortcut(name="Kessel Pass", roll=2)),
            match="no day is open")


# -- forced march ----------------------------------------------------------------------------


def rider_party(x: int = 0, y: int = 0, provisions: int = 3, level: int = 1) -> Campaign:
    """Kira riding Dusty (ground-speed `level`); rider target (7+4)/2 = 5 + ride 3 = 8."""
    campaign = campaign_at(x, y)
    campaign.handle(AddCharacter(hero("Kira", body=7, mind=6, soul=4,
                                skills={"animal-ken": 1, "ride": 3})))
    campaign.handle(AddMount("Dusty", ("ground-speed", level), "Kira"))
    campaign.handle(SetSupplies({"provisions": provisions}))
    campaign.handle(StartDay())
    return campaign


def test_a_forced_march_spends_provisions_and_adds_the_base_movement() -> None:
    campaign = rider_party()
    assert today(campaign.game).budget == 2  # ground-speed 1 → 2

    event = campaign.handle(ForcedMarch(rolls={"Kira": 8}))

    assert isinstance(event, ForcedMarched)
    assert today(campaign.game).budget == 4  # 2 + base 2
    assert campaign.game.supplies["provisions"] == 2  # 3 − 1 for the one mount


@pytest.mark.parametrize(
    ("roll", "strain"),
    [
        (8, 0),  # spot-on the target 8: success, no strain
        (3, 0),
        (9, 1),  # 9 > 8: the mount takes one pending strain
    ],
)
def test_each_rider_rolls_body_soul_plus_the_better_of_animal_ken_and_ride(roll: int,
                                                                          strain: int) -> None:
    campaign = rider_party()

    event = campaign.handle(ForcedMarch(rolls={"Kira": roll}))

    assert isinstance(event, ForcedMarched)
    [rider_roll] = event.strain_rolls
    assert (rider_roll.by, rider_roll.target) == ("Kira", 8)  # (7 + 4)/2 = 5, + max(1, 3)
    dusty = campaign.game.conveyances["Dusty"]
    assert pending_strain(dusty) == strain
    assert dusty.level == 1  # strain lands only at the end of the day


def test_each_driver_rolls_body_mind_plus_the_better_of_drive_and_pilot() -> None:
    # Vic: Body-Mind (6 + 5)/2 = 5.5 → 5, + max(drive 2, pilot 1) = 7
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Vic", body=6, mind=5, skills={"drive": 2, "pilot": 1})))
    campaign.handle(AddCharacter(hero("Pax")))
    campaign.handle(AddVehicle("Rig", ("ground-speed", 1), "Vic", ["Pax"]))
    campaign.handle(SetSupplies({"fuel": 1}))
    campaign.handle(StartDay())

    event = campaign.handle(ForcedMarch(rolls={"Vic": 8}))

    assert isinstance(event, ForcedMarched)
    [driver_roll] = event.strain_rolls
    assert (driver_roll.by, driver_roll.target, driver_roll.success) == ("Vic", 7, False)
    assert event.strain == {"Rig": 1}
    assert campaign.game.supplies["fuel"] == 0  # 1 − 1 for the one vehicle
    assert today(campaign.game).budget == 4  # 2 + 2


def test_a_forced_march_roll_takes_the_square_penalty() -> None:
    campaign = rider_party(0, 1)  # rough ground, penalty 1

    event = campaign.handle(ForcedMarch(rolls={"Kira": 8}))

    assert isinstance(event, ForcedMarched)
    assert event.strain_rolls[0].target == 7  # 8 − 1
    assert event.strain == {"Dusty": 1}


def test_a_forced_march_costs_one_provisions_per_mount_and_one_fuel_per_vehicle() -> None:
    campaign = campaign_at()
    for name in ("Ann", "Ben", "Vic"):
        campaign.handle(AddCharacter(hero(name)))
    campaign.handle(AddMount("Dusty", ("ground-speed", 1), "Ann"))
    campaign.handle(AddMount("Flint", ("ground-speed", 1), "Ben"))
    campaign.handle(AddVehicle("Rig", ("ground-speed", 1), "Vic", []))
    campaign.handle(SetSupplies({"provisions": 5, "fuel": 5}))
    campaign.handle(StartDay())

    event = campaign.handle(ForcedMarch(rolls={"Ann": 2, "Ben": 2, "Vic": 2}))

    assert isinstance(event, ForcedMarched)
    assert (event.provisions, event.fuel) == (2, 1)
    assert campaign.game.supplies["provisions"] == 3  # 5 − 2 mounts
    assert campaign.game.supplies["fuel"] == 4  # 5 − 1 vehicle


def test_a_mount_left_behind_neither_costs_provisions_nor_rolls() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Ann")))
    campaign.handle(AddCharacter(hero("Ben")))
    campaign.handle(AddMount("Dusty", ("ground-speed", 1), "Ann"))
    campaign.handle(AddMount("Flint", ("ground-speed", 1), "Ben"))
    campaign.handle(Leave("Flint"))  # Ben walks on
    campaign.handle(SetSupplies({"provisions": 1}))
    campaign.handle(StartDay())

    event = campaign.handle(ForcedMarch(rolls={"Ann": 2}))

    assert isinstance(event, ForcedMarched)
    assert event.provisions == 1  # Dusty only
    assert [roll.by for roll in event.strain_rolls] == ["Ann"]
    assert campaign.game.supplies["provisions"] == 0


def test_a_forced_march_may_be_repeated_while_supplies_last() -> None:
    campaign = rider_party(provisions=2)

    campaign.handle(ForcedMarch(rolls={"Kira": 9}))
    campaign.handle(ForcedMarch(rolls={"Kira": 9}))

    assert today(campaign.game).budget == 6  # 2 + 2 + 2
    assert pending_strain(campaign.game.conveyances["Dusty"]) == 2
    assert campaign.game.supplies["provisions"] == 0
    refused(campaign, lambda: campaign.handle(ForcedMarch(rolls={"Kira": 2})),
            match="needs 1 provisions but the party has 0")


def test_a_forced_march_needs_an_open_day() -> None:
    campaign = rider_party()
    end_day(campaign)

    refused(campaign, lambda: campaign.handle(ForcedMarch(rolls={"Kira": 2})),
            match="no day is open")


def test_a_forced_march_needs_a_travelling_mount_or_vehicle() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(AddCharacter(hero("Bo")))
    campaign.handle(AddMount("Dusty", ("ground-speed", 1), "Bo"))
    campaign.handle(SetSupplies({"provisions": 3}))
    campaign.handle(Leave("Dusty"))  # Bo goes on foot; Dusty stays
    campaign.handle(StartDay())

    refused(campaign, lambda: campaign.handle(ForcedMarch()),
            match="at least one mount or vehicle")


def test_a_forced_march_names_the_mount_without_a_rider() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(AddMount("Dusty", ("ground-speed", 1), "Kira"))
    campaign.handle(AddMount("Flint", ("ground-speed", 1), None))
    campaign.handle(SetSupplies({"provisions": 3}))
    campaign.handle(StartDay())

    error = refused(campaign, lambda: campaign.handle(ForcedMarch(rolls={"Kira": 2})))

    assert "Flint" in str(error)
    assert "rider" in str(error)


def test_a_forced_march_names_the_vehicle_without_a_driver() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Pax")))
    campaign.handle(AddVehicle("Rig", ("ground-speed", 1), None, ["Pax"]))
    campaign.handle(SetSupplies({"fuel": 3}))
    campaign.handle(StartDay())

    error = refused(campaign, lambda: campaign.handle(ForcedMarch()))

    assert "Rig" in str(error)
    assert "driver" in str(error)


@pytest.mark.parametrize(
    ("provisions", "fuel", "short"),
    [(0, 1, "provisions"), (1, 0, "fuel")],
)
def test_a_forced_march_without_enough_supplies_is_refused(provisions: int, fuel: int,
                                                           short: str) -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Ann")))
    campaign.handle(AddCharacter(hero("Vic")))
    campaign.handle(AddMount("Dusty", ("ground-speed", 1), "Ann"))
    campaign.handle(AddVehicle("Rig", ("ground-speed", 1), "Vic", []))
    campaign.handle(SetSupplies({"provisions": provisions, "fuel": fuel}))
    campaign.handle(StartDay())

    refused(campaign, lambda: campaign.handle(ForcedMarch(rolls={"Ann": 2, "Vic": 2})),
            match=f"needs 1 {short}")


# -- end of day: strain ----------------------------------------------------------------------


def test_pending_strain_lowers_the_level_at_the_end_of_the_day() -> None:
    campaign = rider_party(level=2)  # ground-speed 2: budget 4
    campaign.handle(ForcedMarch(rolls={"Kira": 9}))  # fails: 1 pending strain

    event = end_day(campaign)

    assert event.strain == {"Dusty": StrainLanded(lost=1, level=1, state=ConveyanceState.OK)}
    dusty = campaign.game.conveyances["Dusty"]
    assert (dusty.level, pending_strain(dusty), dusty.base_level) == (1, 0, 2)
    campaign.handle(StartDay())
    assert today(campaign.game).budget == 2  # ground-speed 1 → 2


def test_a_mount_strained_below_zero_dies_and_its_rider_goes_on_foot() -> None:
    # given Kira (speed 3 on foot) riding Dusty at ground-speed 0, which moves 1
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira", body=7, soul=4, skills={"ride": 3},
                                attributes={"speed": 3})))
    campaign.handle(AddMount("Dusty", ("ground-speed", 0), "Kira"))
    campaign.handle(SetSupplies({"provisions": 1}))
    campaign.handle(StartDay())
    assert today(campaign.game).budget == 1
    campaign.handle(ForcedMarch(rolls={"Kira": 9}))  # 9 > 8: 0 − 1 = −1 at day end

    event = end_day(campaign)

    assert event.strain["Dusty"].state is ConveyanceState.DEAD
    assert event.on_foot == ["Kira"]
    assert campaign.game.conveyances["Dusty"].state is ConveyanceState.DEAD
    kira = campaign.game.characters["Kira"]
    assert (kira.conveyance, kira.role) == (None, None)
    # a dead mount is gone for good: nobody rides it, it sets no pace
    refused(campaign, lambda: campaign.handle(Assign("Kira", "Dusty", Role.RIDER)), match="dead")
    campaign.handle(StartDay())
    assert today(campaign.game).budget == 3  # Kira on foot at speed 3; the dead mount sets no pace
    refused(campaign, lambda: campaign.handle(ForcedMarch()))


def test_a_vehicle_strained_below_zero_breaks_and_everyone_aboard_goes_on_foot() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Vic")))
    campaign.handle(AddCharacter(hero("Pax")))
    campaign.handle(AddVehicle("Rig", ("speed", 0), "Vic", ["Pax"]))
    campaign.handle(SetSupplies({"fuel": 1}))
    campaign.handle(StartDay())
    campaign.handle(ForcedMarch(rolls={"Vic": 12}))

    event = end_day(campaign)

    assert event.strain["Rig"] == StrainLanded(lost=1, level=-1, state=ConveyanceState.BROKEN)
    assert sorted(event.on_foot) == ["Pax", "Vic"]
    assert campaign.game.conveyances["Rig"].state is ConveyanceState.BROKEN
    assert all(c.conveyance is None for c in campaign.game.characters.values())


# -- end of day: rest ------------------------------------------------------------------------


def rested(mode: str | None, *, hours: int = 8, harm: tuple[int, int] = (20, 40),
           body: int = 6, mind: int = 5, soul: int = 4) -> tuple[Recovery, Character]:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira", body=body, mind=mind, soul=soul)))
    campaign.handle(Harm("Kira", harm[0], harm[1], None))
    campaign.handle(StartDay())
    event = end_day(campaign, {"Kira": mode} if mode else {}, hours)
    return event.recovery["Kira"], campaign.game.characters["Kira"]


@pytest.mark.parametrize(
    ("mode", "health_gain", "energy_gain"),
    [
        # Body 6, Mind 5, Soul 4: Mind-Soul (5 + 4)/2 = 4.5 → 4; 8 hours
        ("camp", 6, 32),  # Health + Body 6; Energy + 4 × 8
        ("saddle", 4, 16),  # Health + (6 − 2); Energy + (4 − 2) × 8
        ("vehicle", 5, 24),  # Health + (6 − 1); Energy + (4 − 1) × 8
        ("none", 0, 0),
    ],
)
def test_each_rest_mode_restores_health_once_and_energy_per_hour(mode: str, health_gain: int,
                                                                 energy_gain: int) -> None:
    # given Kira harmed from 50/45 to 30/5
    recovery, kira = rested(mode)

    assert recovery == Recovery(mode=mode, health=health_gain, energy=energy_gain)
    assert (kira.health, kira.energy) == (30 + health_gain, 5 + energy_gain)


def test_camp_is_the_default_rest() -> None:
    recovery, kira = rested(None)

    assert recovery.mode == "camp"
    assert (kira.health, kira.energy) == (36, 37)  # 30 + 6, 5 + 4 × 8


@pytest.mark.parametrize(
    ("hours", "health", "energy"),
    [
        (3, 36, 17),  # Health 30 + 6 whatever the hours; Energy 5 + 4 × 3
        (0, 36, 5),  # no sleep: no Energy, Health still regained once
    ],
)
def test_hours_slept_affect_only_energy(hours: int, health: int, energy: int) -> None:
    _recovery, kira = rested("camp", hours=hours)

    assert (kira.health, kira.energy) == (health, energy)


def test_rest_never_raises_health_or_energy_above_the_maximum() -> None:
    # 50 − 2 = 48 + 6 would be 54; 45 − 2 = 43 + 32 would be 75
    _recovery, kira = rested("camp", harm=(2, 2))

    assert (kira.health, kira.energy) == (50, 45)


def test_an_uncomfortable_rest_never_takes_anything_away() -> None:
    # Body 1: max(0, 1 − 2) = 0; Mind-Soul (1 + 2)/2 = 1: max(0, 1 − 2) = 0 per hour
    recovery, _kira = rested("saddle", body=1, mind=1, soul=2, harm=(1, 1))

    assert (recovery.health, recovery.energy) == (0, 0)


def night_party() -> Campaign:
    """Ann rides Dusty, Vic drives Rig carrying Pax, Wal walks."""
    campaign = campaign_at()
    for name in ("Ann", "Vic", "Pax", "Wal"):
        campaign.handle(AddCharacter(hero(name)))
    campaign.handle(AddMount("Dusty", ("ground-speed", 0), "Ann"))
    campaign.handle(AddVehicle("Rig", ("ground-speed", 1), "Vic", ["Pax"]))
    campaign.handle(SetSupplies({"provisions": 1, "fuel": 1}))
    campaign.handle(StartDay())
    return campaign


def test_after_night_travel_riders_doze_in_the_saddle_and_passengers_in_the_vehicle() -> None:
    campaign = night_party()
    campaign.handle(TravelByNight(roll=2))

    event = end_day(campaign)

    modes = {name: rest.mode for name, rest in event.recovery.items()}
    assert modes == {"Ann": "saddle", "Vic": "none", "Pax": "vehicle", "Wal": "none"}


def test_without_night_travel_everyone_camps() -> None:
    campaign = night_party()

    event = end_day(campaign)

    assert {rest.mode for rest in event.recovery.values()} == {"camp"}


def test_the_gm_may_give_any_rest_mode_to_any_character() -> None:
    campaign = night_party()
    campaign.handle(TravelByNight(roll=2))

    event = end_day(campaign, {"Wal": "camp", "Ann": "vehicle"})

    modes = {name: rest.mode for name, rest in event.recovery.items()}
    assert modes == {"Ann": "vehicle", "Vic": "none", "Pax": "vehicle", "Wal": "camp"}


def test_night_rest_is_judged_by_the_roster_as_it_travelled_even_if_the_mount_dies() -> None:
    # given Ann's level-0 mount strained during a day that ended with night travel
    campaign = night_party()
    campaign.handle(ForcedMarch(rolls={"Ann": 12, "Vic": 2}))
    campaign.handle(TravelByNight(roll=2))

    event = end_day(campaign)

    # then Dusty dies (0 − 1 < 0) and Ann goes on foot, but she dozed in the saddle that night
    assert event.strain["Dusty"].state is ConveyanceState.DEAD
    assert event.recovery["Ann"].mode == "saddle"
    assert campaign.game.characters["Ann"].conveyance is None


@pytest.mark.parametrize(
    ("rests", "hours", "match"),
    [
        ({"Wal": "hammock"}, 8, "not a rest mode"),
        ({}, 25, "--hours"),
        ({}, -1, "--hours"),
        ({"Ghost": "camp"}, 8, "no character"),
        ({"Left": "camp"}, 8, "left behind"),
    ],
)
def test_a_day_end_with_bad_rest_options_is_refused(rests: dict[str, str], hours: int,
                                                    match: str) -> None:
    campaign = night_party()
    campaign.handle(AddCharacter(hero("Left")))
    campaign.handle(Leave("Left"))

    refused(campaign, lambda: end_day(campaign, rests, hours), match=match)


def test_a_character_left_behind_does_not_rest_with_the_party() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(AddCharacter(hero("Bo")))
    campaign.handle(Harm("Bo", 10, 0, None))
    campaign.handle(Leave("Bo"))
    campaign.handle(StartDay())

    event = end_day(campaign)

    assert list(event.recovery) == ["Kira"]
    assert campaign.game.characters["Bo"].health == 40  # 50 − 10, no rest


# -- end of day: upkeep ----------------------------------------------------------------------


def test_there_is_no_upkeep_by_default() -> None:
    campaign = campaign_at()
    campaign.handle(SetSupplies({"provisions": 5, "fuel": 2}))
    campaign.handle(StartDay())

    event = end_day(campaign)

    assert event.upkeep == {}
    assert campaign.game.supplies["provisions"] == 5


@pytest.mark.parametrize(
    ("provisions", "upkeep", "left"),
    [
        (5, Upkeep(needed=2, spent=2, shortfall=0), 3),  # 5 − 2
        (1, Upkeep(needed=2, spent=1, shortfall=1), 0),  # only 1 of 2: shortfall 1, left at 0
        (0, Upkeep(needed=2, spent=0, shortfall=2), 0),
    ],
)
def test_the_upkeep_house_rule_spends_supplies_and_records_a_shortfall(
        provisions: int, upkeep: Upkeep, left: int) -> None:
    campaign = campaign_at()
    campaign.handle(SetRule("upkeep-provisions", 2))
    campaign.handle(SetSupplies({"provisions": provisions}))
    campaign.handle(StartDay())

    event = end_day(campaign)

    assert event.upkeep == {"provisions": upkeep}
    assert campaign.game.supplies["provisions"] == left


def test_fuel_upkeep_is_spent_as_well() -> None:
    campaign = campaign_at()
    campaign.handle(SetRule("upkeep-fuel", 1))
    campaign.handle(SetSupplies({"fuel": 3}))
    campaign.handle(StartDay())

    end_day(campaign)

    assert campaign.game.supplies["fuel"] == 2  # 3 − 1


def test_the_camp_rate_is_a_house_rule() -> None:
    # given camp Health modifier +2 and Energy modifier −1
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira", body=6, mind=5, soul=4)))
    campaign.handle(Harm("Kira", 20, 40, None))  # 30 / 5
    campaign.handle(SetRule("camp-health-modifier", 2))
    campaign.handle(SetRule("camp-energy-modifier", -1))
    campaign.handle(StartDay())

    event = end_day(campaign)

    # Health + (6 + 2) = 8; Energy + (4 − 1) × 8 = 24
    assert event.recovery["Kira"] == Recovery(mode="camp", health=8, energy=24)


@pytest.mark.parametrize(
    ("key", "value"),
    [("upkeep-provisions", -1), ("sleeping-bags", 1), ("upkeep-fuel", 0)],
)
def test_a_bad_or_unchanged_house_rule_is_refused(key: str, value: int) -> None:
    campaign = campaign_at()

    refused(campaign, lambda: campaign.handle(SetRule(key, value)))


# -- night travel ----------------------------------------------------------------------------


def night_walker() -> Campaign:
    """Kira on foot at speed 3 (budget 3); night target Mind 5 + navigation 2 = 7."""
    campaign = campaign_at(3, 3)
    campaign.handle(AddCharacter(hero("Kira", mind=5, skills={"navigation": 2},
                                attributes={"speed": 3})))
    campaign.handle(StartDay())
    return campaign


@pytest.mark.parametrize(
    ("roll", "budget"),
    [
        (7, 6),  # success: 3 + base 3
        (2, 6),
        (8, 5),  # fails by 1: 3 + max(1, 3 − 1) = 5
        (9, 4),  # fails by 2: 3 + max(1, 3 − 2) = 4
        (10, 4),  # fails by 3: 3 + max(1, 0) = 4
        (12, 4),  # fails by 5: 3 + max(1, −2) = 4
    ],
)
def test_night_travel_adds_the_base_or_less_for_each_point_of_failure(roll: int,
                                                                      budget: int) -> None:
    campaign = night_walker()

    event = campaign.handle(TravelByNight(roll=roll))

    assert isinstance(event, NightTravelled)
    assert (event.roll.by, event.roll.target) == ("Kira", 7)
    assert today(campaign.game).budget == budget


def test_night_travel_is_allowed_once_a_day() -> None:
    campaign = night_walker()
    campaign.handle(TravelByNight(roll=2))

    refused(campaign, lambda: campaign.handle(TravelByNight(roll=2)),
            match="once a day")


def test_night_travel_needs_an_open_day() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))

    refused(campaign, lambda: campaign.handle(TravelByNight(roll=2)),
            match="no day is open")


def test_night_travel_may_be_led_by_a_chosen_character() -> None:
    campaign = night_walker()
    campaign.handle(AddCharacter(hero("Bo", mind=3)))  # Mind 3 + 0 = 3

    event = campaign.handle(TravelByNight(by="Bo", roll=2))

    assert isinstance(event, NightTravelled)
    assert (event.roll.by, event.roll.target) == ("Bo", 3)


# -- foraging --------------------------------------------------------------------------------


def forager() -> Campaign:
    """Kira on foot at speed 3; forage target Body-Mind (6 + 5)/2 = 5 + survival 2 = 7."""
    campaign = campaign_at(3, 3)
    campaign.handle(AddCharacter(hero("Kira", body=6, mind=5, skills={"survival": 2},
                                attributes={"speed": 3})))
    campaign.handle(StartDay())
    return campaign


def test_foraging_spends_one_square_of_the_days_budget() -> None:
    campaign = forager()

    campaign.handle(Forage(roll=12))

    assert movement(campaign) == {"base": 3, "budget": 3, "used": 1, "remaining": 2}


@pytest.mark.parametrize("command", [Forage(roll=2, by="Nobody"),
                                     TravelByNight(roll=2, by="Nobody")])
def test_an_unknown_roller_is_named_before_the_spent_day(command: Forage | TravelByNight
                                                         ) -> None:
    campaign = forager()
    move(campaign, "N", "N", "N")  # all 3 squares

    refused(campaign, lambda: campaign.handle(command),
            match="^there is no character called 'Nobody'; the roster has Kira$")


def test_foraging_is_refused_when_no_budget_remains() -> None:
    campaign = forager()
    move(campaign, "N", "N", "N")  # all 3 squares

    refused(campaign, lambda: campaign.handle(Forage(roll=2)),
            match="none remains")


def test_each_earlier_forage_today_costs_one_point() -> None:
    campaign = forager()

    targets = []
    for _ in range(3):
        event = campaign.handle(Forage(roll=12))
        assert isinstance(event, Foraged)
        targets.append(event.roll.target)
    end_day(campaign)
    campaign.handle(StartDay())
    event = campaign.handle(Forage(roll=12))
    assert isinstance(event, Foraged)

    assert targets == [7, 6, 5]  # 7, 7 − 1, 7 − 2
    assert event.roll.target == 7  # a new day starts afresh


@pytest.mark.parametrize(
    ("roll", "take", "gained"),
    [
        (2, "provisions", 5),  # 7 − 2 = 5 points; 5 ÷ 1
        (2, "fuel", 1),  # 5 ÷ 3 = 1.67 → 1
        (2, "ammo", 1),  # 5 ÷ 3 → 1
        (2, "wealth", 1),  # 5 ÷ 5 = 1
        (4, "fuel", 1),  # 3 points ÷ 3 = 1
        (5, "ammo", 0),  # 2 points ÷ 3 → 0
        (4, "wealth", 0),  # 3 points ÷ 5 → 0
        (7, "provisions", 1),  # spot-on: 1 point
        (8, "provisions", 0),  # failure gains nothing
    ],
)
def test_forage_points_buy_one_kind_of_supply(roll: int, take: str, gained: int) -> None:
    campaign = forager()

    event = campaign.handle(Forage(take=take, roll=roll))

    assert isinstance(event, Foraged)
    assert event.gained == gained
    assert campaign.game.supplies[take] == gained


def test_foraging_finds_provisions_by_default() -> None:
    campaign = forager()

    event = campaign.handle(Forage(roll=4))  # 3 points

    assert isinstance(event, Foraged)
    assert event.take == "provisions"
    assert campaign.game.supplies == {"provisions": 3, "fuel": 0, "ammo": 0, "wealth": 0}


def test_the_forager_is_the_character_with_the_highest_target_unless_one_is_named() -> None:
    campaign = forager()  # Kira: 7
    campaign.handle(AddCharacter(hero("Bo", body=8, mind=6, skills={"survival": 1})))  # 7 + 1 = 8

    best = campaign.handle(Forage(roll=12))
    named = campaign.handle(Forage(by="Kira", roll=12))

    assert isinstance(best, Foraged)
    assert isinstance(named, Foraged)
    assert (best.roll.by, best.roll.target) == ("Bo", 8)
    assert (named.roll.by, named.roll.target) == ("Kira", 6)  # 7 − 1 for the earlier forage


def test_a_forage_roll_takes_the_square_penalty() -> None:
    campaign = campaign_at(0, 1)  # rough ground, penalty 1
    campaign.handle(AddCharacter(hero("Kira", body=6, mind=5, skills={"survival": 2})))
    campaign.handle(StartDay())

    event = campaign.handle(Forage(roll=12))

    assert isinstance(event, Foraged)
    assert event.roll.target == 6  # 7 − 1


@pytest.mark.parametrize("command", ["forage", "night travel"])
def test_a_character_left_behind_cannot_roll_for_the_party(command: str) -> None:
    campaign = forager()
    campaign.handle(AddCharacter(hero("Bo")))
    campaign.handle(Leave("Bo"))

    refused(campaign, lambda: campaign.handle(besm_command(command, {command: 2}, by="Bo")),
            match="left behind")


def test_foraging_for_something_that_is_not_a_supply_is_refused() -> None:
    campaign = forager()

    refused(campaign, lambda: campaign.handle(Forage(take="gold", roll=2)))


# -- repair ----------------------------------------------------------------------------------


def strained_mount(level: int = 2) -> Campaign:
    """Day 2, Kira riding Dusty strained from ground-speed `level` to `level − 1`.

    Kira: Mind 5 + medicine 2 = 7 for a mount, Mind 5 + technology 3 = 8 for a vehicle.
    """
    campaign = campaign_at(3, 3)
    campaign.handle(AddCharacter(hero("Kira", mind=5, skills={"medicine": 2, "technology": 3})))
    campaign.handle(AddMount("Dusty", ("ground-speed", level), "Kira"))
    campaign.handle(SetSupplies({"provisions": 1}))
    campaign.handle(StartDay())
    campaign.handle(ForcedMarch(rolls={"Kira": 12}))
    end_day(campaign)
    campaign.handle(StartDay())
    return campaign


def test_a_successful_repair_restores_every_level_lost_and_takes_the_day() -> None:
    campaign = strained_mount()
    assert campaign.game.conveyances["Dusty"].level == 1

    event = campaign.handle(Repair(conveyance="Dusty", by="Kira", roll=7))

    assert isinstance(event, Repaired)
    assert (event.roll.target, event.restored) == (7, 1)  # Mind 5 + medicine 2
    assert campaign.game.conveyances["Dusty"].level == 2
    assert movement(campaign)["remaining"] == 0
    # the next day the mount is back to full pace: ground-speed 2 → 4
    end_day(campaign)
    campaign.handle(StartDay())
    assert today(campaign.game).budget == 4


def test_a_failed_repair_changes_nothing_but_spends_the_day() -> None:
    campaign = strained_mount()

    event = campaign.handle(Repair(conveyance="Dusty", by="Kira", roll=8))

    assert isinstance(event, Repaired)
    assert event.restored == 0
    assert campaign.game.conveyances["Dusty"].level == 1
    assert movement(campaign)["remaining"] == 0
    refused(campaign, lambda: move(campaign, "N"))


def test_a_vehicle_is_repaired_with_mind_plus_technology() -> None:
    campaign = campaign_at(3, 3)
    campaign.handle(AddCharacter(hero("Kira", mind=5, skills={"medicine": 2, "technology": 3})))
    campaign.handle(AddVehicle("Rig", ("speed", 3), "Kira", []))
    campaign.handle(SetSupplies({"fuel": 1}))
    campaign.handle(StartDay())
    campaign.handle(ForcedMarch(rolls={"Kira": 12}))
    end_day(campaign)
    campaign.handle(StartDay())

    event = campaign.handle(Repair(conveyance="Rig", by="Kira", roll=8))

    assert isinstance(event, Repaired)
    assert (event.roll.target, event.restored) == (8, 1)  # Mind 5 + technology 3; 3 − 2 lost
    assert campaign.game.conveyances["Rig"].level == 3


@pytest.mark.parametrize(
    ("command", "rolls", "options"),
    [
        ("move", {}, {}),
        ("shortcut", {"shortcut": 2}, {"name": "Old Road"}),
        ("forced march", {"Kira": 2}, {}),
        ("night travel", {"night travel": 2}, {}),
        ("forage", {"forage": 2}, {}),
    ],
)
def test_after_a_repair_nothing_else_moves_or_spends_budget_that_day(
        command: str, rolls: dict[str, int], options: dict[str, Any]) -> None:
    campaign = strained_mount()
    campaign.handle(AddSupplies({"provisions": 3}))
    campaign.handle(Repair(conveyance="Dusty", by="Kira", roll=7))
    assert movement(campaign)["remaining"] == 0

    if command == "move":
        refused(campaign, lambda: move(campaign, "N"))
    else:
        refused(campaign, lambda: campaign.handle(besm_command(command, rolls, **options)),
                match="repair")


@pytest.mark.parametrize("spend", ["move", "forage"])
def test_a_repair_is_refused_once_any_budget_was_spent(spend: str) -> None:
    campaign = strained_mount()
    if spend == "move":
        move(campaign, "N")
    else:
        campaign.handle(Forage(roll=12))

    refused(campaign, lambda: campaign.handle(Repair(conveyance="Dusty", by="Kira", roll=2)),
            match="whole day")


def test_a_dead_mount_cannot_be_repaired() -> None:
    campaign = strained_mount(level=0)
    assert campaign.game.conveyances["Dusty"].state is ConveyanceState.DEAD

    refused(campaign, lambda: campaign.handle(Repair(conveyance="Dusty", by="Kira", roll=2)),
            match="for good")


def test_a_conveyance_without_lost_levels_has_nothing_to_repair() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(AddMount("Dusty", ("ground-speed", 2), "Kira"))
    campaign.handle(StartDay())

    refused(campaign, lambda: campaign.handle(Repair(conveyance="Dusty", by="Kira", roll=2)),
            match="nothing to repair")


def test_a_repair_needs_an_open_day_and_a_known_conveyance() -> None:
    campaign = strained_mount()

    refused(campaign, lambda: campaign.handle(Repair(conveyance="Nope", by="Kira", roll=2)))
    end_day(campaign)
    refused(campaign, lambda: campaign.handle(Repair(conveyance="Dusty", by="Kira", roll=2)),
            match="no day is open")


# -- leaving someone behind ------------------------------------------------------------------


def test_a_member_left_behind_stays_on_the_square_and_rejoins_only_there() -> None:
    # given Kira at speed 3 and slow Bo at (3,3)
    campaign = campaign_at(3, 3)
    campaign.handle(AddCharacter(hero("Kira", attributes={"speed": 3})))
    campaign.handle(AddCharacter(hero("Bo")))

    # when Bo is left behind and the party moves on at Kira's pace
    campaign.handle(Leave("Bo"))
    campaign.handle(StartDay())
    assert today(campaign.game).budget == 3
    move(campaign, "N")

    # then Bo waits at (3,3), and can be picked up only there
    bo = campaign.game.characters["Bo"]
    assert (bo.with_party, bo.left_at) == (False, Square(3, 3))
    refused(campaign, lambda: campaign.handle(Rejoin("Bo")), match="waits at 3,3")
    move(campaign, "S")
    campaign.handle(Rejoin("Bo"))
    assert campaign.game.characters["Bo"].with_party
    assert movement(campaign)["base"] == 1  # Bo sets the pace again


def test_leaving_a_mount_behind_puts_its_rider_on_foot() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(AddMount("Dusty", ("ground-speed", 2), "Kira"))

    campaign.handle(Leave("Dusty"))

    assert campaign.game.characters["Kira"].conveyance is None
    assert movement(campaign)["base"] == 1  # Kira on foot


def test_leaving_twice_rejoining_a_present_member_or_leaving_nobody_is_refused() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(AddCharacter(hero("Bo")))
    campaign.handle(Leave("Bo"))

    refused(campaign, lambda: campaign.handle(Leave("Bo")), match="already left")
    refused(campaign, lambda: campaign.handle(Rejoin("Kira")), match="already with the party")
    refused(campaign, lambda: campaign.handle(Leave("Nobody")))


# -- the roster's own checks -----------------------------------------------------------------


def test_roster_changes_that_break_the_roster_are_refused() -> None:
    campaign = campaign_at()
    campaign.handle(AddCharacter(hero("Kira")))
    campaign.handle(AddCharacter(hero("Bo")))
    campaign.handle(AddMount("Dusty", ("ground-speed", 1), "Kira"))
    campaign.handle(AddVehicle("Rig", ("ground-speed", 1), "Bo", []))

    refused(campaign, lambda: campaign.handle(AddCharacter(hero("Kira"))), match="already has")
    refused(campaign, lambda: campaign.handle(Assign("Kira", "Rig", Role.PASSENGER)),
            match="aboard")
    refused(campaign, lambda: campaign.handle(Dismount("Nobody")))
    campaign.handle(Dismount("Kira"))
    refused(campaign, lambda: campaign.handle(Dismount("Kira")), match="on foot")
    refused(campaign, lambda: campaign.handle(Assign("Kira", "Rig", Role.DRIVER)),
            match="driven by")
    refused(campaign, lambda: campaign.handle(Assign("Kira", "Rig", Role.RIDER)), match="vehicle")
    refused(campaign, lambda: campaign.handle(Assign("Kira", "Dusty", Role.DRIVER)), match="mount")


@pytest.mark.parametrize(
    ("command", "amounts"),
    [
        ("set", {"gold": 1}),
        ("set", {"provisions": -1}),
        ("add", {"provisions": 0}),
        ("spend", {"provisions": 3}),  # only 2
        ("add", {}),
    ],
)
def test_bad_supply_changes_are_refused(command: str, amounts: dict[str, int]) -> None:
    campaign = campaign_at()
    campaign.handle(SetSupplies({"provisions": 2}))
    actions: dict[str, Callable[[], object]] = {
        "set": lambda: campaign.handle(SetSupplies(amounts)),
        "add": lambda: campaign.handle(AddSupplies(amounts)),
        "spend": lambda: campaign.handle(SpendSupplies(amounts)),
    }

    refused(campaign, actions[command])


def test_a_given_roll_outside_two_to_twelve_is_refused() -> None:
    campaign = night_walker()

    refused(campaign, lambda: campaign.handle(TravelByNight(roll=13)))
    refused(campaign, lambda: campaign.handle(Forage(roll=1)))

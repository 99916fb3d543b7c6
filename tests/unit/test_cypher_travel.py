"""Cypher long-term travel, worked by hand from cypher-movement.txt and RULES.md §5."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from refusals import refused
from rulesets import RULESETS

from domain.besm.commands import ForcedMarch
from domain.campaign import Campaign, Stamp
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.roster import AddCharacter, AddMount, AddVehicle, Harm
from domain.commands.travel import Move, MoveOptions
from domain.cypher.state import journey
from domain.errors import RuleViolation
from domain.events import TrekEvent
from domain.geometry import Square
from domain.history import fold_live
from domain.options import CharacterOptions
from tracker.mapformats.tomlfile import load_map

MAP = """\
[map]
name = "Road to Qi"
square_miles = 6
rows = ["=.rwgd^", "......."]
[legend]
"=" = { terrain = "open", road = true }
"." = { terrain = "open" }
"r" = { terrain = "rough" }
"w" = { terrain = "water" }
"g" = { terrain = "high-gravity" }
"d" = { terrain = "difficult" }
"^" = { terrain = "feature", name = "cliffs" }
"""

STAMP = Stamp("gm", datetime(2026, 1, 1, tzinfo=UTC))


ORIGIN = Square(0, 0)


def campaign(*, at: Square = ORIGIN) -> Campaign:
    return Campaign.start(STAMP, name="Qi", ruleset="cypher", rulesets=RULESETS, seed=1,
                          game_map=load_map(MAP, RULESETS.named("cypher")), at=at)


def status(c: Campaign) -> dict[str, object]:
    return c.ruleset.movement_status(c.situation())


def test_a_walker_crosses_a_six_mile_open_square_in_half_a_day() -> None:
    # given one walker: 12 miles a day off the road, so 6 miles take 6/12 = 1/2 day
    c = campaign()
    c.handle(AddCharacter(CharacterOptions(name="Ana")))
    c.handle(StartDay())
    # when
    c.handle(Move(MoveOptions(steps=("E",))))
    # then
    assert status(c) == {"unit": "day", "used": "1/2", "remaining": "1/2", "miles_today": 6,
                         "in_transit": None}


def test_a_river_on_the_map_costs_nothing_to_cross() -> None:
    # A river drawn down column 1 (a Text Mapper import's [[river]]): no rule prices the
    # crossing, so 0,1 to 1,1 to 2,1 is two open squares, 1/2 day each, as without it.
    river = MAP + '[[river]]\nname = "Qi Water"\npath = [[1, 0], [1, 1]]\n'
    game_map = load_map(river, RULESETS.named("cypher"))
    assert [r.name for r in game_map.rivers] == ["Qi Water"]
    c = Campaign.start(STAMP, name="Qi", ruleset="cypher", rulesets=RULESETS, seed=1,
                       game_map=game_map, at=Square(0, 1))
    c.handle(AddCharacter(CharacterOptions(name="Ana")))
    c.handle(StartDay())
    c.handle(Move(MoveOptions(steps=("E",))))
    assert status(c)["used"] == "1/2"
    c.handle(Move(MoveOptions(steps=("E",))))
    assert status(c) == {"unit": "day", "used": "1", "remaining": "0", "miles_today": 12,
                         "in_transit": None}


def test_a_text_mapper_road_is_travelled_at_twenty_miles_a_day() -> None:
    # `0101-0301 road` on squares makes 0,0, 1,0 and 2,0 road (`road = true`): each 6-mile
    # square costs 6/20 = 3/10 of a day; 0,1 is off the road, 6/12 = 1/2.
    from tracker.mapformats import Target, convert, parse

    text = "0101 grass\n0201 grass\n0301 grass\n0102 grass\n0101-0301 road\n"
    target = Target(frozenset({"open", "rough", "difficult", "water", "high-gravity",
                               "feature"}), battle=False)
    toml = convert(parse("textmapper", text, "Road", grid="square"), target).toml
    c = Campaign.start(STAMP, name="Qi", ruleset="cypher", rulesets=RULESETS, seed=1,
                       game_map=load_map(toml, RULESETS.named("cypher")), at=ORIGIN)
    c.handle(AddCharacter(CharacterOptions(name="Ana")))
    c.handle(StartDay())
    c.handle(Move(MoveOptions(steps=("E",))))
    assert status(c)["used"] == "3/10"
    c.handle(Move(MoveOptions(steps=("E",))))
    assert status(c)["used"] == "3/5"
    # Off the road to 1,1 (unlisted, open): 1/2 a day, more than the 2/5 left, so in transit
    # with 1/10 still to pay.
    c.handle(Move(MoveOptions(steps=("SW",))))
    assert status(c) == {"unit": "day", "used": "1", "remaining": "0", "miles_today": 12,
                         "in_transit": {"to": {"x": 1, "y": 1}, "remaining": "1/10"}}


def test_a_road_square_takes_six_twentieths_of_a_day() -> None:
    # given the party at 1,0 heading west onto the road: 20 miles a day, 6/20 = 3/10
    c = campaign(at=Square(1, 0))
    c.handle(AddCharacter(CharacterOptions(name="Ana")))
    c.handle(StartDay())
    c.handle(Move(MoveOptions(steps=("W",))))
    assert status(c)["used"] == "3/10"


def test_riding_doubles_the_rate_and_the_slowest_unit_sets_the_pace() -> None:
    # a rider alone: 24 miles a day, 6/24 = 1/4; with a walker too: back to 1/2
    c = campaign()
    c.handle(AddCharacter(CharacterOptions(name="Ana")))
    c.handle(AddMount("Nag", None, "Ana"))
    c.handle(StartDay())
    c.handle(Move(MoveOptions(steps=("S",))))
    assert status(c)["used"] == "1/4"
    c.handle(AddCharacter(CharacterOptions(name="Bo")))
    c.handle(Move(MoveOptions(steps=("E",))))
    assert status(c)["used"] == "3/4"


def test_a_vehicle_travels_its_declared_miles_and_carries_its_crew() -> None:
    # a 36-mile cart with Ana driving: passengers do not count, 6/36 = 1/6
    c = campaign(at=Square(0, 1))
    c.handle(AddCharacter(CharacterOptions(name="Ana")))
    c.handle(AddVehicle("Cart", ("miles", 36), "Ana", []))
    c.handle(StartDay())
    c.handle(Move(MoveOptions(steps=("E",))))
    assert status(c)["used"] == "1/6"


@pytest.mark.parametrize(
    ("start", "step", "swimmer", "expected"),
    [
        # rough: 12 × 1/2 = 6 miles a day, 6 miles take a whole day
        (Square(1, 0), "E", False, "1"),
        # deep water: 12 × 1/4 = 3 a day, 2 days; swimmers 12 × 1/2 = 6 a day, 1 day
        (Square(2, 0), "E", False, "2"),
        (Square(2, 0), "E", True, "1"),
        # high gravity: 12 × 1/3 = 4 a day, 6/4 = 3/2
        (Square(3, 0), "E", False, "3/2"),
        # difficult: 12 × 1/3 = 4 a day, 3/2
        (Square(4, 0), "E", False, "3/2"),
    ],
)
def test_terrain_multiplies_the_daily_rate(start: Square, step: str, swimmer: bool,
                                           expected: str) -> None:
    from domain.cypher.rules import square_cost

    c = campaign(at=start)
    c.handle(AddCharacter(CharacterOptions(name="Ana", skills={"swimming": 1} if swimmer else {})))
    assert square_cost(c.situation(), start.step(step)) == Fraction(expected)


def test_high_gravity_training_negates_the_penalty_only_when_everyone_has_it() -> None:
    from domain.cypher.rules import square_cost

    c = campaign(at=Square(3, 0))
    c.handle(AddCharacter(CharacterOptions(name="Ana", skills={"high-gravity": 1})))
    assert square_cost(c.situation(), Square(4, 0)) == Fraction(1, 2)
    c.handle(AddCharacter(CharacterOptions(name="Bo")))
    assert square_cost(c.situation(), Square(4, 0)) == Fraction(3, 2)


def test_a_costly_square_is_reached_in_transit_across_days() -> None:
    # given 1/2 day spent reaching 1,0; the rough square 2,0 costs a whole day
    c = campaign()
    c.handle(AddCharacter(CharacterOptions(name="Ana")))
    c.handle(StartDay())
    c.handle(Move(MoveOptions(steps=("E",))))
    # when the party heads into the rough square
    c.handle(Move(MoveOptions(steps=("E",))))
    # then it spends the rest of the day and still owes half a day
    assert status(c) == {"unit": "day", "used": "1", "remaining": "0", "miles_today": 6,
                         "in_transit": {"to": {"x": 2, "y": 0}, "remaining": "1/2"}}
    assert c.game.position == Square(1, 0)
    c.handle(EndDay(DayEndOptions()))
    c.handle(StartDay())
    c.handle(Move(MoveOptions(steps=("E",))))
    assert c.game.position == Square(2, 0)
    assert status(c)["used"] == "1/2"
    assert status(c)["in_transit"] is None


def test_turning_elsewhere_drops_the_progress_and_records_it() -> None:
    # given deep water at 3,0 costs a non-swimmer 2 days: after one day 1 day is still owed
    c = campaign(at=Square(2, 0))
    c.handle(AddCharacter(CharacterOptions(name="Ana")))
    c.handle(StartDay())
    c.handle(Move(MoveOptions(steps=("E",))))
    assert status(c)["in_transit"] == {"to": {"x": 3, "y": 0}, "remaining": "1"}
    c.handle(EndDay(DayEndOptions()))
    c.handle(StartDay())
    # when the party turns south instead
    event = c.handle(Move(MoveOptions(steps=("S",))))
    # then the owed day is given up, and the record says so
    assert event.payload()["dropped"] == {"to": [3, 0], "remaining": "1"}
    assert c.game.position == Square(2, 1)
    assert journey(c.game).transit is None
    assert status(c)["used"] == "1/2"


def test_moves_need_an_open_day_with_time_left_and_features_are_impassable() -> None:
    c = campaign(at=Square(5, 1))
    c.handle(AddCharacter(CharacterOptions(name="Ana")))
    with pytest.raises(RuleViolation, match="no day is open"):
        c.handle(Move(MoveOptions(steps=("E",))))
    c.handle(StartDay())
    with pytest.raises(RuleViolation, match="impassable"):
        c.handle(Move(MoveOptions(steps=("NE",))))
    c.handle(Move(MoveOptions(steps=("W",))))
    c.handle(Move(MoveOptions(steps=("W",))))
    with pytest.raises(RuleViolation, match="nothing remains"):
        c.handle(Move(MoveOptions(steps=("W",))))


def test_besm_only_commands_and_options_are_refused_with_a_sentence() -> None:
    c = campaign()
    before = c.game.model_dump()
    with pytest.raises(RuleViolation, match="no forced march"):
        c.handle(ForcedMarch())
    with pytest.raises(RuleViolation, match="another ruleset's option"):
        c.handle(AddCharacter(CharacterOptions(name="Ana", extra={"body": 5})))
    with pytest.raises(RuleViolation, match="miles=N"):
        c.handle(AddVehicle("Cart", ("ground-speed", 1), None, []))
    assert c.game.model_dump() == before


def test_options_cypher_has_no_use_for_are_refused_and_change_nothing() -> None:
    # RULES §5: no rest rules (so no hours slept), no Health or Energy, no hazards.
    c = campaign()
    c.handle(AddCharacter(CharacterOptions(name="Ana")))
    c.handle(StartDay())
    for command, option in ((Harm("Ana", 3, 0, None), "--health"),
                            (Harm("Ana", 0, 2, None), "--energy"),
                            (EndDay(DayEndOptions(hours=6)), "--hours"),
                            (Move(MoveOptions(steps=("E",), through_hazard=True)),
                             "--through-hazard")):
        refused(c, lambda command=command: c.handle(command), f"leave out {option}")
    refused(c, lambda: c.handle(Harm("Ana", 0, 0, None)), "no Health or Energy")
    assert c.handle(EndDay(DayEndOptions())).model_dump()["hours"] == 8


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["E", "end"]), min_size=1, max_size=14))
def test_a_day_never_spends_more_than_one_whole_day_and_arrival_costs_the_square(
        plan: list[str]) -> None:
    # walking east along the top row, ending days at random: each square is entered for
    # exactly its cost, however the cost is split across days
    c = campaign()
    c.handle(AddCharacter(CharacterOptions(name="Ana", skills={"swimming": 1})))
    c.handle(StartDay())
    events: list[TrekEvent] = []
    for step in plan:
        try:
            if step == "end":
                events.append(c.handle(EndDay(DayEndOptions())))
                events.append(c.handle(StartDay()))
            else:
                events.append(c.handle(Move(MoveOptions(steps=("E",)))))
        except RuleViolation:
            continue
        assert Fraction(journey(c.game).spent) <= 1
    from domain.cypher.rules import square_cost

    spent = sum((Fraction(e.payload()["spent"]) for e in events if type(e).__name__ ==
                 "Travelled"), Fraction(0))
    owed = Fraction(journey(c.game).transit.remaining) if journey(c.game).transit else Fraction(0)
    fresh = campaign()
    fresh.handle(AddCharacter(CharacterOptions(name="Ana", skills={"swimming": 1})))
    expected = Fraction(0)
    for x in range(1, c.game.position.x + 1):
        expected += square_cost(fresh.situation(), Square(x, 0))
    if journey(c.game).transit is not None:
        expected += square_cost(fresh.situation(), journey(c.game).transit.to)
    assert spent + owed == expected
    assert fold_live([*c.collect_events()], lambda _s: True) == c.game

"""Walls between squares and doors (RULES §16), worked by hand on one small map and played in
every ruleset that plays on squares.

Cell (x, y) has grid point (x, y) as its top-left corner; the lines between the rows below are
the grid lines y = 2 and so on:

     x:  0   1   2   3   4   5
    y0   .   .   . ┃ .   .   .     ┃ on x = 3 beside row 0: the cellar door (closed)
    y1   .   .   .   .   .   .
        ━━━━━━━━━━━┓     ┄┄┄       ━ a wall from (0,2) to (3,2), then down x = 3 to (3,5)
    y2   .   .   . ┃ .   .   .     ┄ on y = 2 from x = 4 to 5: the door at 4,2 (open)
    y3   .   .   . ┃ .   .   .
    y4   .   .   . ┃ .   .   .
    y5   .   .   .   .   .   .
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

import pytest
from refusals import refused
from rulesets import RULESETS

from domain.campaign import Campaign, Stamp
from domain.commands.encounter import (
    Act,
    ChangeDoor,
    EnterCombatant,
    MoveCombatant,
    StartEncounter,
    StartRound,
)
from domain.commands.roster import AddCharacter
from domain.edges import edge_refusal
from domain.errors import MapError, NotFound, RuleViolation
from domain.events import EventsCancelled, TrekEvent
from domain.geometry import Square
from domain.history import fold_live
from domain.options import CharacterOptions
from domain.state import Side
from projections.views import encounter_of
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))

ROOM = """\
[map]
name = "Cellar"
rows = [
  "......",
  "......",
  "......",
  "......",
  "......",
  "......",
]

[legend]
"." = { terrain = "open" }

[[wall]]
points = [[0, 2], [3, 2], [3, 5]]

[[door]]
from = [3, 0]
to = [3, 1]
name = "cellar door"

[[door]]
from = [4, 2]
to = [5, 2]
closed = false
"""

# What each square ruleset's hero needs: its stats, and how it gets its movement in a round.
HEROES: dict[str, dict[str, Any]] = {
    "besm": {"extra": {"body": 6, "mind": 5, "soul": 4}},
    "shadowrun": {"extra": {"quickness": 5, "metatype": "human"}},
    "movepoints": {"extra": {"full_move": [("land", 13)]}},
    "cypher": {"extra": {"might": 10, "speed": 12, "intellect": 9}},
}
SQUARE_RULESETS = sorted(HEROES)


def fight(ruleset: str, x: int, y: int) -> Campaign:
    """Kira on (x, y) of the cellar, a round begun and her movement in hand."""
    c = Campaign.start(STAMP, name="Cellar", ruleset=ruleset, rulesets=RULESETS, seed=5,
                       game_map=None, at=None)
    c.handle(AddCharacter(CharacterOptions(name="Kira", extra=HEROES[ruleset]["extra"])))
    legend = RULESETS.named(ruleset).battle_legend
    c.handle(StartEncounter("Cellar", load_battle_map(ROOM, legend)))
    c.handle(EnterCombatant(name="Kira", at=Square(x, y)))
    ready(c, ruleset)
    return c


def ready(c: Campaign, ruleset: str) -> None:
    c.handle(StartRound())
    if ruleset == "movepoints":
        c.handle(Act(name="Kira", kind="full"))


def move(c: Campaign, *steps: str) -> Any:
    return c.handle(MoveCombatant(name="Kira", steps=steps))


def at(c: Campaign) -> Square:
    encounter = c.game.encounter
    assert encounter is not None
    return encounter.combatants["Kira"].at


@pytest.mark.parametrize("ruleset", SQUARE_RULESETS)
def test_an_orthogonal_step_across_a_wall_is_refused_naming_it(ruleset: str) -> None:
    c = fight(ruleset, 1, 1)
    # 1,1 to 1,2 crosses the edge from (1,2) to (2,2), part of the wall along y = 2.
    refused(c, lambda: move(c, "S"), "step 1 is refused: a wall stands between 1,1 and 1,2")
    move(c, "E")                              # along the wall, not across it
    assert at(c) == Square(2, 1)


@pytest.mark.parametrize("ruleset", SQUARE_RULESETS)
def test_a_diagonal_step_may_not_cut_the_corner_where_two_walls_meet(ruleset: str) -> None:
    # 2,2 sits in the wall's corner: its top and right edges are wall, meeting at (3,2).
    c = fight(ruleset, 2, 2)
    refused(c, lambda: move(c, "NE"), "a wall meets the corner 3,2 that the diagonal step "
                                       "from 2,2 to 3,1 passes")
    # Nor may a diagonal step slip past the wall's end: 2,1 to 3,2 passes (3,2) too.
    c = fight(ruleset, 2, 1)
    refused(c, lambda: move(c, "SE"), "the diagonal step from 2,1 to 3,2")
    # A diagonal step whose corner no wall or closed door touches is allowed: (4,1) to (5,0)
    # passes point (5,1).
    c = fight(ruleset, 4, 1)
    move(c, "NE")
    assert at(c) == Square(5, 0)


@pytest.mark.parametrize("ruleset", SQUARE_RULESETS)
def test_an_open_door_passes_and_a_closed_door_blocks(ruleset: str) -> None:
    c = fight(ruleset, 4, 1)
    move(c, "S")                              # through the open door at 4,2
    assert at(c) == Square(4, 2)
    c = fight(ruleset, 2, 0)
    refused(c, lambda: move(c, "E"), "the cellar door is closed between 2,0 and 3,0")
    # A closed door's end is a corner too: 2,0 to 3,1 passes (3,1), where the door ends.
    refused(c, lambda: move(c, "SE"), r"the cellar door \(closed\) meets the corner 3,1")


@pytest.mark.parametrize("ruleset", SQUARE_RULESETS)
def test_a_door_opened_by_the_command_passes_and_undoing_it_needs_cascade(ruleset: str
                                                                          ) -> None:
    c = fight(ruleset, 2, 0)
    events: list[TrekEvent] = list(c.collect_events())
    opened = c.handle(ChangeDoor(door="cellar door", closed=False))
    # Free: the door costs no movement, so the whole move is still there.
    move(c, "E")
    assert at(c) == Square(3, 0)
    events += c.collect_events()
    seq = opened.seq
    before = fold_live(events[:seq - 1], c.is_live)
    with pytest.raises(RuleViolation, match=f"event {seq + 1}"):
        c.cancel([seq], before=before, later=events[seq - 1:], cascade=False, reason=None)
    reversal = c.cancel([seq], before=before, later=events[seq - 1:], cascade=True,
                        reason=None)
    assert isinstance(reversal, EventsCancelled)
    assert sorted(reversal.cancels) == [seq, seq + 1]
    assert at(c) == Square(2, 0)
    encounter = c.game.encounter
    assert encounter is not None
    assert encounter.doors["cellar door"] is True


@pytest.mark.parametrize("ruleset", SQUARE_RULESETS)
def test_closing_an_open_door_blocks_it_and_the_door_is_found_by_its_point(ruleset: str
                                                                           ) -> None:
    c = fight(ruleset, 4, 1)
    c.handle(ChangeDoor(door="4,2", closed=True))
    refused(c, lambda: move(c, "S"), "the door at 4,2 is closed between 4,1 and 4,2")


def test_door_refusals_name_what_is_wrong() -> None:
    c = fight("besm", 0, 0)
    refused(c, lambda: c.handle(ChangeDoor(door="cellar door", closed=True)),
            "the cellar door is already closed")
    refused(c, lambda: c.handle(ChangeDoor(door="door at 4,2", closed=False)),
            "the door at 4,2 is already open")
    refused(c, lambda: c.handle(ChangeDoor(door="vault", closed=False)),
            "no door called 'vault'.*its doors: cellar door, door at 4,2", kind=NotFound)
    refused(c, lambda: c.handle(ChangeDoor(door="0,5", closed=False)), "no door", NotFound)
    # A map without doors, and no encounter at all.
    plain = Campaign.start(STAMP, name="Plain", ruleset="besm", rulesets=RULESETS, seed=5,
                           game_map=None, at=None)
    refused(plain, lambda: plain.handle(ChangeDoor(door="cellar door", closed=False)),
            "no encounter is open")
    plain.handle(StartEncounter("Field", None))
    refused(plain, lambda: plain.handle(ChangeDoor(door="cellar door", closed=False)),
            "Field has no doors", NotFound)


def besm_mover(body: int) -> Callable[[Campaign], None]:
    def add(c: Campaign) -> None:
        c.handle(EnterCombatant(name="Zed", at=Square(1, 1), side=Side.ALLY, from_roster=False,
                                options=CharacterOptions(name="Zed", extra={
                                    "body": body, "mind": 3, "soul": 3})))
    return add


def test_the_path_finder_routes_around_walls() -> None:
    c = fight("besm", 0, 5)
    besm_mover(12)(c)
    c.handle(StartRound())
    # From 1,1 to 1,3 the wall is in the way: east to 3,1, down the wall's right side to 3,5,
    # round its foot to 2,5 (3,4 to 2,5 would cut its corner), then up to 1,3: 9 squares.
    event = c.handle(MoveCombatant(name="Zed", to=Square(1, 3)))
    path = [Square(*cell) for cell in event.path]
    assert (path[0], path[-1], event.cost) == (Square(1, 1), Square(1, 3), 9)
    encounter = c.game.encounter
    assert encounter is not None
    for a, b in pairwise(path):
        assert edge_refusal(encounter.map, encounter.doors, a, b) is None, (a, b)
    assert Square(3, 5) in path or Square(2, 5) in path


def test_the_path_finder_goes_through_a_door_once_it_is_open() -> None:
    c = fight("besm", 2, 0)
    encounter = c.game.encounter
    # Closed: round the door's end, 2,0 - 2,1 - 3,1 - 4,0 (the diagonals at (3,1) cut it).
    event = c.handle(MoveCombatant(name="Kira", to=Square(4, 0)))
    assert ([tuple(cell) for cell in event.path], event.cost) == (
        [(2, 0), (2, 1), (3, 1), (4, 0)], 3)
    c = fight("besm", 2, 0)
    c.handle(ChangeDoor(door="cellar door", closed=False))
    event = c.handle(MoveCombatant(name="Kira", to=Square(4, 0)))
    assert ([tuple(cell) for cell in event.path], event.cost) == ([(2, 0), (3, 0), (4, 0)], 2)
    assert encounter is not None


def test_status_lists_the_doors_as_they_are_and_the_map_its_walls() -> None:
    c = fight("besm", 2, 0)
    doc = encounter_of(c.situation(), RULESETS.named("besm"))
    assert doc is not None
    assert doc["doors"] == [
        {"name": "cellar door", "from": {"x": 3, "y": 0}, "to": {"x": 3, "y": 1},
         "closed": True},
        {"name": "door at 4,2", "from": {"x": 4, "y": 2}, "to": {"x": 5, "y": 2},
         "closed": False}]
    assert doc["map"] is not None
    assert doc["map"]["walls"] == [[{"x": 0, "y": 2}, {"x": 3, "y": 2}, {"x": 3, "y": 5}]]
    c.handle(ChangeDoor(door="cellar door", closed=False))
    doc = encounter_of(c.situation(), RULESETS.named("besm"))
    assert doc is not None
    assert doc["doors"][0]["closed"] is False


def test_a_map_without_edge_walls_keeps_its_old_document() -> None:
    legend = RULESETS.named("besm").battle_legend
    plain = load_battle_map(ROOM.split("[[wall]]")[0], legend)
    assert set(plain) == {"name", "grid", "rows", "legend"}


BASE = """\
[map]
name = "x"
rows = ["......", "......", "......", "......", "......", "......"]
[legend]
"." = { terrain = "open" }
[[door]]
from = [3, 0]
to = [3, 1]
name = "cellar door"
[[door]]
from = [5, 5]
to = [6, 5]
"""


@pytest.mark.parametrize(("table", "line", "words"), [
    ("[[wall]]\npoints = [[0, 0], [2, 1]]\n", 14, "is diagonal"),
    ("[[wall]]\npoints = [[0, 0], [7, 0]]\n", 14, r"\[7, 0\] is off the map; its grid points "
                                                  r"run from \[0, 0\] to \[6, 6\]"),
    ("[[wall]]\npoints = [[0, 0], [1.5, 0]]\n", 14, "not a grid point"),
    ("[[wall]]\npoints = [[0, 0]]\n", 14, "at least two grid points"),
    ("[[door]]\nfrom = [0, 0]\nto = [1, 1]\n", 15, "is diagonal"),
    ("[[door]]\nfrom = [0, 0]\nto = [1, 0]\nname = \"cellar door\"\n", 16,
     "two doors are called 'cellar door'"),
    ("[[door]]\nfrom = [5, 5]\nto = [5, 4]\n", 13, "two doors are called 'door at 5,5'"),
    ("[[door]]\nfrom = [0, 0]\nto = [1, 0]\nlocked = true\n", 16, "unknown key 'locked'"),
    ("[[door]]\nfrom = [0, 0]\nto = [1, 0]\nname = \"a\\u0007b\"\n", 16, "control character"),
])
def test_a_bad_wall_or_door_is_refused_at_load_naming_its_line(table: str, line: int,
                                                               words: str) -> None:
    with pytest.raises(MapError, match=words) as caught:
        load_battle_map(BASE + table, RULESETS.named("besm").battle_legend)
    assert caught.value.line == line


def test_a_hex_map_takes_no_edge_walls() -> None:
    text = ROOM.replace("[map]\n", "[map]\ngrid = \"hex\"\n")
    with pytest.raises(MapError, match="walls and doors on edges are for square maps"):
        load_battle_map(text, RULESETS.named("gurps").battle_legend)


# A Cypher hold in zero gravity, 6 × 2 squares of 5 feet: a wall on the map's left line beside
# 0,0, and one across the line x = 3 in row 0 only.
HOLD = """\
[map]
name = "Hold"
rows = ["zzzzzz", "zzzzzz"]

[legend]
"z" = { terrain = "zero-gravity" }

[[wall]]
points = [[0, 0], [0, 1]]

[[wall]]
points = [[3, 0], [3, 1]]
"""


def hold(x: int, y: int) -> Campaign:
    c = Campaign.start(STAMP, name="Hold", ruleset="cypher", rulesets=RULESETS, seed=5,
                       game_map=None, at=None)
    c.handle(AddCharacter(CharacterOptions(name="Kira", extra=HEROES["cypher"]["extra"])))
    c.handle(StartEncounter("Hold", load_battle_map(HOLD, RULESETS.named("cypher")
                                                    .battle_legend)))
    c.handle(EnterCombatant(name="Kira", at=Square(x, y)))
    c.handle(StartRound())
    return c


def test_a_cypher_push_starts_from_a_wall_between_squares_and_stops_against_one() -> None:
    from domain.cypher.combat import Push

    # 0,0 has the wall on its left edge to push off; 20 feet is 4 cells, difficulty
    # ⌈20 ÷ 4⌉ = 5 (target 15), but the wall on x = 3 stops it on 2,0: landed, no drift.
    c = hold(0, 0)
    event = c.handle(Push(name="Kira", direction="E", feet=20, roll=15))
    assert event.path == [Square(0, 0), Square(1, 0), Square(2, 0)]
    encounter = c.game.encounter
    assert encounter is not None
    assert encounter.combatants["Kira"].state["drifting"] is None
    # 1,1 has no wall on any edge and no wall cell around it: nothing to push off.
    c = hold(1, 1)
    refused(c, lambda: c.handle(Push(name="Kira", direction="E", feet=20, roll=15)), "wall")

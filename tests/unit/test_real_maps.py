"""Map files made by other tools and published in public repositories (tests/fixtures/maps,
SOURCES.md), imported as they are: what comes in is checked against the file's own walls.

A segment off the grid lines becomes the run of edges nearest to it (RULES §16): every grid
point of that run lies within one square of the segment, and the runs of a wall drawn in
several segments join up, so a wall the file draws from one edge of the map to the other still
divides it, and no diagonal step slips through at a corner.
"""

from __future__ import annotations

import json
import math
from collections import deque
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rulesets import RULESETS

from domain.edges import edge_refusal, run_edges
from domain.geometry import Square
from tracker.mapformats import Target, convert, parse
from tracker.mapformats.tomlfile import load_battle_map
from tracker.mapformats.uvtt import edges_along, nearest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "maps"
BESM_BATTLE = Target(frozenset({"open", "difficult", "wall"}), battle=True)
Point = tuple[Fraction, Fraction]


def distance(p: tuple[float, float], a: Point, b: Point) -> float:
    """How far point `p` is from the segment from `a` to `b`."""
    ax, ay, bx, by = (float(v) for v in (*a, *b))
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy)
                                              / length))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)


def run_points(a: Point, b: Point) -> list[tuple[int, int]]:
    """The grid points the run of edges for the segment from `a` to `b` passes, in order."""
    points = [(nearest(a[0]), nearest(a[1]))]
    for x, y, kind in edges_along(a, b):
        ends = [(x, y), (x + 1, y) if kind == "h" else (x, y + 1)]
        points.append(ends[1] if ends[0] == points[-1] else ends[0])
    return points


coordinates = st.fractions(min_value=-3, max_value=12, max_denominator=20)


@given(st.tuples(coordinates, coordinates), st.tuples(coordinates, coordinates))
def test_a_segment_becomes_a_joined_run_of_edges_never_a_square_away(a: Point, b: Point
                                                                    ) -> None:
    points = run_points(a, b)
    # It starts and ends at the grid points nearest the segment's ends...
    assert points[0] == (nearest(a[0]), nearest(a[1]))
    assert points[-1] == (nearest(b[0]), nearest(b[1]))
    # ...each edge joins the last (one square along x or y)...
    for p, q in pairwise(points):
        assert abs(p[0] - q[0]) + abs(p[1] - q[1]) == 1
    # ...as few as the way between them needs, and none a square or more from the segment.
    assert len(points) - 1 == abs(points[-1][0] - points[0][0]) + abs(points[-1][1] - points[0][1])
    assert all(distance(p, a, b) < 1 for p in points)


def ballroom() -> tuple[dict[str, Any], dict[str, Any]]:
    text = (FIXTURES / "prismatic_ballroom_main.uvtt").read_text(encoding="utf-8")
    imported = convert(parse("uvtt", text, "ballroom", folder=FIXTURES), BESM_BATTLE)
    return json.loads(text), {
        "report": imported.report,
        "map": load_battle_map(imported.toml, RULESETS.named("besm").battle_legend)}


def test_the_ballroom_comes_in_with_every_wall_where_the_file_draws_it() -> None:
    doc, got = ballroom()
    assert (got["report"]["width"], got["report"]["height"]) == (33, 46)
    assert "90 wall segments off the grid lines (each on the edges nearest to it)" in (
        got["report"]["used"])
    assert any(item.startswith("image 'modules/czepeku-249-prismatic-ballroom/") and
               "not found beside the file" in item for item in got["report"]["ignored"])
    written = {edge for wall in got["map"]["walls"]
               for a, b in pairwise(wall) for edge in run_edges(tuple(a), tuple(b))}
    expected: set[tuple[int, int, str]] = set()
    for line in doc["line_of_sight"]:
        for p, q in pairwise(line):
            a = (Fraction(p["x"]), Fraction(p["y"]))
            b = (Fraction(q["x"]), Fraction(q["y"]))
            expected.update(edges_along(a, b))
            assert all(distance(point, a, b) < 1 for point in run_points(a, b))
    assert written == expected


def test_the_ballrooms_arc_divides_the_map_with_no_corner_to_slip_through() -> None:
    doc, got = ballroom()
    # The file's arc over the ballroom is a chain of segments from the map's left edge at
    # (0, 18.75) to its right edge at (33, 17.75).
    joined: dict[tuple[float, float], set[tuple[float, float]]] = {}
    for p, q in (tuple((pt["x"], pt["y"]) for pt in line) for line in doc["line_of_sight"]):
        joined.setdefault(p, set()).add(q)
        joined.setdefault(q, set()).add(p)
    reached = {(0.0, 18.75)}
    queue = deque(reached)
    while queue:
        for nxt in joined[queue.popleft()] - reached:
            reached.add(nxt)
            queue.append(nxt)
    assert (33.0, 17.75) in reached
    # So no step, straight or diagonal, takes anyone from above the arc to the floor below.
    battle_map = got["map"]
    above = {Square(16, 0)}
    queue = deque(above)
    while queue:
        here = queue.popleft()
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                there = Square(here.x + dx, here.y + dy)
                if (there in above or not (0 <= there.x < 33 and 0 <= there.y < 46)
                        or edge_refusal(battle_map, {}, here, there) is not None):
                    continue
                above.add(there)
                queue.append(there)
    assert Square(0, 0) in above
    assert Square(32, 0) in above
    assert Square(16, 20) not in above
    assert Square(16, 30) not in above


def imported(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A fixture's JSON and the battle map Trek makes of it."""
    text = (FIXTURES / name).read_text(encoding="utf-8")
    made = convert(parse("uvtt", text, Path(name).stem, folder=FIXTURES), BESM_BATTLE)
    return json.loads(text), load_battle_map(made.toml, RULESETS.named("besm").battle_legend)


def shifted(doc: dict[str, Any], point: dict[str, float]) -> Point:
    origin = doc["resolution"].get("map_origin", {"x": 0, "y": 0})
    return (Fraction(point["x"]) - Fraction(origin["x"]),
            Fraction(point["y"]) - Fraction(origin["y"]))


FILES = ["prismatic_ballroom_main.uvtt", "dd2vtt_importer_test.dd2vtt",
         "uvtt2fgu_sampleMap.dd2vtt"]


@pytest.mark.parametrize("name", FILES)
def test_every_wall_and_door_of_the_file_comes_in(name: str) -> None:
    doc, battle_map = imported(name)
    width, height = (int(doc["resolution"]["map_size"][axis]) for axis in ("x", "y"))
    doors = battle_map.get("doors", [])
    # Every portal is a door, open or closed as the file says, in the file's order.
    assert [door["closed"] for door in doors] == [p["closed"] for p in doc["portals"]]
    in_doors = {edge for door in doors
                for edge in run_edges(tuple(door["from"]), tuple(door["to"]))}
    # Every segment of every wall and object outline is its run of edges, the doors' edges
    # being doors.
    expected: set[tuple[int, int, str]] = set()
    for key in ("line_of_sight", "objects_line_of_sight"):
        for line in doc.get(key, []):
            for p, q in pairwise(line):
                expected.update(edges_along(shifted(doc, p), shifted(doc, q)))
    expected = {(x, y, kind) for x, y, kind in expected
                if 0 <= x <= width and 0 <= y <= height} - in_doors
    written = {edge for wall in battle_map.get("walls", [])
               for a, b in pairwise(wall) for edge in run_edges(tuple(a), tuple(b))}
    assert written == expected


def step_to(battle_map: dict[str, Any], closed: dict[str, bool], start: Square,
            goal: Square) -> int | None:
    """The fewest steps from `start` to `goal` under RULES §16 (`closed`: doors' states)."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            return seen[here]
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                there = Square(here.x + dx, here.y + dy)
                if (there in seen or not (0 <= there.x < 40 and 0 <= there.y < 40)
                        or edge_refusal(battle_map, closed, here, there) is not None):
                    continue
                seen[there] = seen[here] + 1
                queue.append(there)
    return None


def test_the_dungeondraft_sample_keeps_its_room_its_open_door_and_its_closed_one() -> None:
    # The file draws a room from (3, 2) to (11, 10) with map_origin (2, 1): the room is (1, 1)
    # to (9, 9) on the map. A wall down x = 7 (5 on the map) halves it, with a closed door
    # from y 2.5 to 3.5 (2 to 3 on the map, once rounded) and an open one centred on y = 9.
    _doc, battle_map = imported("uvtt2fgu_sampleMap.dd2vtt")
    doors = {door["name"]: (door["from"], door["to"], door["closed"])
             for door in battle_map["doors"]}
    assert doors == {"door at 5,2": ([5, 2], [5, 3], True),
                     "door at 5,8": ([5, 8], [5, 9], False)}
    as_given = {name: closed for name, (_, _, closed) in doors.items()}
    # From 4,6 to 6,7: down to the open door's row, through it, and up: 4 steps (4,7 to 5,8
    # would cut the wall's end at (5, 8)).
    assert step_to(battle_map, as_given, Square(4, 6), Square(6, 7)) == 4
    # With that door closed too, the halves are apart, and nothing ever leaves the room.
    shut = dict.fromkeys(as_given, True)
    assert step_to(battle_map, shut, Square(4, 6), Square(6, 7)) is None
    assert step_to(battle_map, as_given, Square(4, 6), Square(0, 0)) is None
    # 4,6 to 8,8: the same 3 steps to 5,8 through the door, then 3 along row 8.
    assert step_to(battle_map, as_given, Square(4, 6), Square(8, 8)) == 6


def test_a_door_half_a_square_off_the_lines_still_fills_its_gap() -> None:
    # The test map's door from (10.5, 14) to (9.5, 14) lies between walls that end at its
    # ends; rounded, the door is the edge from (10, 14) to (11, 14) with wall on either side.
    _doc, battle_map = imported("dd2vtt_importer_test.dd2vtt")
    names = [door["name"] for door in battle_map["doors"]]
    assert names == ["door at 11,6", "door at 12,15", "door at 10,14"]
    walls = {edge for wall in battle_map["walls"]
             for a, b in pairwise(wall) for edge in run_edges(tuple(a), tuple(b))}
    assert {(9, 14, "h"), (11, 14, "h")} <= walls
    assert (10, 14, "h") not in walls
    closed = dict.fromkeys(names, True)
    assert edge_refusal(battle_map, closed, Square(10, 13), Square(10, 14)) == (
        "the door at 10,14 is closed between 10,13 and 10,14")
    assert edge_refusal(battle_map, {**closed, "door at 10,14": False}, Square(10, 13),
                        Square(10, 14)) is None

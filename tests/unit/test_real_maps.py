"""Map files made by other tools and published in public repositories (tests/fixtures/maps,
SOURCES.md), imported as they are: what comes in is checked against the file's own walls.

A segment off the grid lines becomes the run of edges nearest to it (RULES §16): every grid
point of that run lies within one square of the segment, and the runs of a wall drawn in
several segments join up, so a wall the file draws from one edge of the map to the other still
divides it, and no diagonal step slips through at a corner.
"""

from __future__ import annotations

import base64
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
         "uvtt2fgu_sampleMap.dd2vtt", "vtt_maps_the-litch-and-his-tomb.dd2vtt",
         "vtt_maps_headmasters-quarters.dd2vtt", "vtt_maps_red-tower-base.dd2vtt",
         "vtt_maps_gold-room.dd2vtt", "vtt_maps_azheim-meeting.dd2vtt"]


def on_this_map(doc: dict[str, Any], portal: dict[str, Any]) -> bool:
    """Whether both ends of a portal lie on the map (the Red Tower is one room of a school
    whose file lists every portal of the floor)."""
    width, height = (doc["resolution"]["map_size"][axis] for axis in ("x", "y"))
    return all(0 <= x <= width and 0 <= y <= height
               for x, y in (shifted(doc, bound) for bound in portal["bounds"]))


@pytest.mark.parametrize("name", FILES)
def test_every_wall_and_door_of_the_file_comes_in(name: str) -> None:
    doc, battle_map = imported(name)
    width, height = (int(doc["resolution"]["map_size"][axis]) for axis in ("x", "y"))
    doors = battle_map.get("doors", [])
    # Every portal on the map is a door, open or closed as the file says, in the file's order.
    portals = [p for p in doc.get("portals", []) if on_this_map(doc, p)]
    assert [door["closed"] for door in doors] == [p["closed"] for p in portals]
    in_doors = {edge for door in doors
                for edge in run_edges(tuple(door["from"]), tuple(door["to"]))}
    # Every segment of every wall and object outline is its run of edges, and so is every
    # portal (a slanting one is a staircase of edges: its door on one straight run, wall on
    # the rest), the doors' edges being doors.
    expected: set[tuple[int, int, str]] = set()
    for key in ("line_of_sight", "objects_line_of_sight"):
        for line in doc.get(key, []):
            for p, q in pairwise(line):
                expected.update(edges_along(shifted(doc, p), shifted(doc, q)))
    for portal in portals:
        expected.update(edges_along(*(shifted(doc, bound) for bound in portal["bounds"])))
    # An edge is on the map when both its ends are: x to x+1 along a row, y to y+1 down a
    # column, within 0..width and 0..height.
    expected = {(x, y, kind) for x, y, kind in expected
                if 0 <= x <= width - (kind == "h") and 0 <= y <= height - (kind == "v")
                } - in_doors
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


def reached(battle_map: dict[str, Any], closed: dict[str, bool], start: Square,
            size: tuple[int, int]) -> set[Square]:
    """Every square reachable from `start` in steps of RULES §16, straight or diagonal."""
    seen = {start}
    queue = deque(seen)
    while queue:
        here = queue.popleft()
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                there = Square(here.x + dx, here.y + dy)
                if (there in seen or not (0 <= there.x < size[0] and 0 <= there.y < size[1])
                        or edge_refusal(battle_map, closed, here, there) is not None):
                    continue
                seen.add(there)
                queue.append(there)
    return seen


def test_the_red_towers_way_out_stays_two_wide_and_its_round_wall_holds() -> None:
    # The file (map_origin 2, 12; 10×12 cells) draws the tower as a circle of radius 5 round
    # (5, 5) on the map, and the way out south between walls down x = 4 and x = 6 from
    # y = 9.89 to the map's edge at 12: columns 4 and 5, two squares wide. Its four portals
    # on this map are closed doors to alcoves.
    _doc, battle_map = imported("vtt_maps_red-tower-base.dd2vtt")
    closed = {door["name"]: door["closed"] for door in battle_map["doors"]}
    assert list(closed.values()) == [True] * 4
    inside = reached(battle_map, closed, Square(5, 5), (10, 12))
    # Both columns of the way out, down to the map's edge, side by side.
    assert {Square(4, 10), Square(5, 10), Square(4, 11), Square(5, 11)} <= inside
    assert edge_refusal(battle_map, closed, Square(4, 10), Square(5, 10)) is None
    assert edge_refusal(battle_map, closed, Square(4, 11), Square(5, 11)) is None
    for row in (10, 11):
        assert edge_refusal(battle_map, closed, Square(3, row), Square(4, row)) is not None
        assert edge_refusal(battle_map, closed, Square(5, row), Square(6, row)) is not None
    # Outside the circle (the map's corners, the grass beside the way out) is never reached,
    # straight or slipping diagonally past a corner of the wall.
    for outside in ((0, 0), (9, 0), (0, 11), (9, 11), (3, 11), (6, 11), (0, 9), (9, 9)):
        assert Square(*outside) not in inside


def test_the_liches_tomb_keeps_its_two_wide_corridors_and_leaks_at_no_corner() -> None:
    # The tomb (48×27, map_origin 0, 0) is a building from (15, 4) to (30, 19) round an
    # inner hall, its ring corridor two squares wide (walls on x = 15 and 17, 28 and 30,
    # y = 4 and 6, 17 and 19), reached from the west by a corridor between walls on y = 10
    # and y = 12 through a door on x = 13 from y 10.49 to 11.51; the inner hall's doors on
    # x = 17 and x = 26 and the east wing's on x = 30 are alike. Water lies all round.
    doc, battle_map = imported("vtt_maps_the-litch-and-his-tomb.dd2vtt")
    assert [p["closed"] for p in doc["portals"]] == [True] * 5
    doors = {door["name"]: (door["from"], door["to"]) for door in battle_map["doors"]}
    # The 1.02-square door in its two-square doorway is a door across both squares.
    assert doors["door at 13,10"] == ([13, 10], [13, 12])
    shut = dict.fromkeys(doors, True)
    ring = reached(battle_map, shut, Square(16, 5), (48, 27))
    # Two wide all round: both columns of the west and east sides, both rows of the north and
    # south sides, and the stub west to the door.
    for y in range(4, 19):
        assert {Square(15, y), Square(16, y), Square(28, y), Square(29, y)} <= ring
    for x in range(15, 30):
        assert {Square(x, 4), Square(x, 5), Square(x, 17), Square(x, 18)} <= ring
    assert {Square(13, 10), Square(14, 10), Square(13, 11), Square(14, 11)} <= ring
    # With every door shut, nothing reaches the water, the shore, the hall or the east wing.
    for outside in ((14, 3), (31, 3), (14, 19), (31, 20), (10, 2), (12, 10), (20, 10),
                    (35, 10), (40, 22)):
        assert Square(*outside) not in ring
    # The west door open: both squares of the doorway let through, side by side.
    opened = {**shut, "door at 13,10": False}
    for row in (10, 11):
        assert edge_refusal(battle_map, opened, Square(12, row), Square(13, row)) is None
        assert edge_refusal(battle_map, shut, Square(12, row), Square(13, row)) == (
            f"the door at 13,10 is closed between 12,{row} and 13,{row}")
    assert Square(12, 10) in reached(battle_map, opened, Square(16, 5), (48, 27))


def test_the_headmasters_slanting_windows_leave_no_gap_beside_them() -> None:
    # The quarters (10×10) are closed at the top by windows (portals): four along y = 1 from
    # x = 3 to 7 and two slanting ones, from (1, 2) to (0, 3) and from (9, 2) to (10, 3),
    # between walls that step down from (3, 1) to (1, 2) and from (7, 1) to (9, 2). A slanting
    # window is the staircase of edges nearest to it, as a wall would be: its door the run
    # along y = 2, its step down the map's edge wall. With the windows shut the grass above
    # is not reached, straight or past a corner; one opened lets the room out.
    _doc, battle_map = imported("vtt_maps_headmasters-quarters.dd2vtt")
    doors = {door["name"]: (door["from"], door["to"]) for door in battle_map["doors"]}
    assert doors["door at 0,2"] == ([0, 2], [1, 2])
    assert doors["door at 9,2"] == ([9, 2], [10, 2])
    shut = dict.fromkeys(doors, True)
    room = reached(battle_map, shut, Square(5, 5), (10, 10))
    assert room == {Square(x, y) for x in range(10) for y in range(10)} - {
        Square(x, 0) for x in range(10)} - {Square(0, 1), Square(1, 1), Square(8, 1),
                                            Square(9, 1)}
    opened = {**shut, "door at 0,2": False}
    assert edge_refusal(battle_map, opened, Square(0, 2), Square(0, 1)) is None
    assert Square(0, 0) in reached(battle_map, opened, Square(5, 5), (10, 10))


def test_the_gold_cave_holds_at_its_corners() -> None:
    # The gold room (20×10) is one cave outline drawn round the sand, crossing the map's edge
    # on the left near y = 2 to 4 and the right near y = 3 to 6: the rock in the map's four
    # corners lies outside it.
    _doc, battle_map = imported("vtt_maps_gold-room.dd2vtt")
    cave = reached(battle_map, {}, Square(10, 5), (20, 10))
    for corner in ((0, 0), (19, 0), (0, 9), (19, 9), (3, 9), (17, 9), (1, 0)):
        assert Square(*corner) not in cave
    assert {Square(1, 5), Square(18, 5), Square(10, 1), Square(10, 8)} <= cave


def test_a_dungeondraft_picture_comes_in_with_its_grid() -> None:
    # The Azheim meeting (8×8 cells at 256 pixels a cell) has no walls; its WebP picture,
    # 2048 pixels square, comes in as it is, placed by pixels_per_grid.
    text = (FIXTURES / "vtt_maps_azheim-meeting.dd2vtt").read_text(encoding="utf-8")
    doc = json.loads(text)
    made = convert(parse("uvtt", text, "azheim", folder=FIXTURES), BESM_BATTLE)
    assert (made.report["width"], made.report["height"]) == (8, 8)
    assert (made.report["walls"], made.report["doors"]) == (0, 0)
    assert made.picture == base64.b64decode(doc["image"])
    assert made.picture is not None
    assert made.picture[8:12] == b"WEBP"
    assert made.pixels_per_square == 256

"""Universal VTT (`.dd2vtt`, `.df2vtt`, `.uvtt`): a battle map's size in cells, and its walls
and doors on the edges between the squares (RULES §16)."""

from __future__ import annotations

import base64
import binascii
import itertools
import math
from collections.abc import Iterable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

from domain.edges import Edge, run_edges
from domain.errors import MapError
from tracker.mapformats import OPEN, SourceDoor, SourceMap, check_size, json_object

_USED = {"resolution", "line_of_sight", "objects_line_of_sight", "portals", "image"}
# The longest door name kept from a file (the loader's limit).
_NAME_LIMIT = 80
# The largest base64 text read: a picture of 50 MB (tracker/mapformats/picture.py refuses
# more once decoded, with the size).
_MAX_BASE64 = (50 * 1024 * 1024 + 2) // 3 * 4 + 4

Point = tuple[Fraction, Fraction]
GridPoint = tuple[int, int]


def _fail(reason: str) -> MapError:
    return MapError(f"the Universal VTT file {reason}")


def _number(value: object, what: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _fail(f"has {what} {value!r}, which is not a number")
    return Fraction(value)


def _point(raw: object, what: str) -> Point:
    if not isinstance(raw, dict):
        raise _fail(f"has {what} that is not a point like {{\"x\": 1, \"y\": 2}}")
    return _number(raw.get("x"), f"x of {what}"), _number(raw.get("y"), f"y of {what}")


def _size(resolution: dict[str, Any]) -> tuple[int, int]:
    size = resolution.get("map_size")
    if not isinstance(size, dict):
        raise _fail("has no resolution.map_size (the map's width and height in cells)")
    dims = []
    for axis in ("x", "y"):
        value = _number(size.get(axis), f"map_size.{axis}")
        if value.denominator != 1 or value < 1:
            raise _fail(f"has map_size.{axis} {size.get(axis)!r}; it must be a whole number "
                        "of cells")
        dims.append(int(value))
    return dims[0], dims[1]


def nearest(value: Fraction) -> int:
    """The nearest whole number (a half goes up)."""
    return math.floor(value + Fraction(1, 2))


def clip(a: Point, b: Point, low: Point, high: Point) -> tuple[Point, Point] | None:
    """The part of the segment inside the box from `low` to `high` (Liang and Barsky), or None
    when it misses the box, so a wall from far away costs nothing."""
    t0, t1 = Fraction(0), Fraction(1)
    for axis in (0, 1):
        d = b[axis] - a[axis]
        for p, q in ((-d, a[axis] - low[axis]), (d, high[axis] - a[axis])):
            if p == 0:
                if q < 0:
                    return None
                continue
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
    if t0 > t1:
        return None

    def at(t: Fraction) -> Point:
        return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t

    return at(t0), at(t1)


def edges_along(a: Point, b: Point) -> Iterator[Edge]:
    """The edges a segment runs along: from the grid point nearest one end to the grid point
    nearest the other, one edge at a time, each step the one (across or down) whose end stays
    nearer the segment's line. A segment on a grid line gives exactly the edges under it; one
    off the lines, the run of edges nearest to it (a staircase for a slanting wall)."""
    here: GridPoint = (nearest(a[0]), nearest(a[1]))
    end: GridPoint = (nearest(b[0]), nearest(b[1]))
    dx, dy = b[0] - a[0], b[1] - a[1]

    def off(p: GridPoint) -> Fraction:
        return abs(dx * (p[1] - a[1]) - dy * (p[0] - a[0]))

    while here != end:
        sx = (end[0] > here[0]) - (end[0] < here[0])
        sy = (end[1] > here[1]) - (end[1] < here[1])
        options = [p for p, moves in (((here[0] + sx, here[1]), sx), ((here[0], here[1] + sy), sy))
                   if moves]
        there = min(options, key=off)
        yield from run_edges(here, there)
        here = there


def on_map(edge: Edge, width: int, height: int) -> bool:
    x, y, kind = edge
    if kind == "h":
        return 0 <= x < width and 0 <= y <= height
    return 0 <= x <= width and 0 <= y < height


def runs(edges: Iterable[Edge]) -> list[list[GridPoint]]:
    """Edges as straight runs from grid point to grid point: each row's horizontal edges
    joined where they touch, then each column's vertical ones."""
    found: list[list[GridPoint]] = []
    for kind in ("h", "v"):
        # Along a row (h) x varies; along a column (v) y does.
        lines: dict[int, list[int]] = {}
        for x, y, k in edges:
            if k == kind:
                fixed, moving = (y, x) if kind == "h" else (x, y)
                lines.setdefault(fixed, []).append(moving)
        for fixed in sorted(lines):
            steps = sorted(set(lines[fixed]))
            start = previous = steps[0]
            for step in [*steps[1:], None]:
                if step is not None and step == previous + 1:
                    previous = step
                    continue
                ends = [(start, fixed), (previous + 1, fixed)]
                if kind == "v":
                    ends = [(fixed, start), (fixed, previous + 1)]
                found.append(ends)
                if step is not None:
                    start = previous = step
    return found


def _polylines(raw: object, what: str) -> Iterable[list[Point]]:
    if raw is None:
        return
    if not isinstance(raw, list):
        raise _fail(f"has {what} that is not a list of lines")
    for index, line in enumerate(raw):
        if not isinstance(line, list):
            raise _fail(f"has {what} entry {index + 1} that is not a list of points")
        yield [_point(p, f"a point of {what} entry {index + 1}") for p in line]


def _door_run(a: Point, b: Point) -> tuple[GridPoint, GridPoint] | None:
    """A portal's two bounds as a straight run of edges: the nearest grid points when they
    share a row or column; else the run along the longer direction, at the grid line nearest
    the portal's middle; a portal shorter than half a square covers the one edge nearest its
    middle. None when its bounds are the same point."""
    if a == b:
        return None
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    across = abs(b[0] - a[0]) >= abs(b[1] - a[1])
    if across:
        x0, x1 = sorted((nearest(a[0]), nearest(b[0])))
        if x0 == x1:
            x0, x1 = math.floor(mx), math.floor(mx) + 1
        return (x0, nearest(my)), (x1, nearest(my))
    y0, y1 = sorted((nearest(a[1]), nearest(b[1])))
    if y0 == y1:
        y0, y1 = math.floor(my), math.floor(my) + 1
    return (nearest(mx), y0), (nearest(mx), y1)


def _portal_name(portal: dict[str, Any]) -> str | None:
    """A portal's own name, as plain text, when the file gives one."""
    name = portal.get("name")
    if not isinstance(name, str):
        return None
    plain = " ".join("".join(ch if ch.isprintable() else " " for ch in name).split())
    return plain[:_NAME_LIMIT].strip() or None


def _image(image: object, folder: Path | None) -> str:
    """What the report says of a picture the file does not carry (base64 is read by
    `_picture`): a path is looked for beside the file, and that picture is not kept."""
    if not isinstance(image, str):
        return "image (not a picture Trek reads)"
    shown = image if len(image) <= 60 else image[:57] + "..."
    beside = folder is not None and (folder / Path(image.replace("\\", "/")).name).is_file()
    where = "found beside the file" if beside else "not found beside the file"
    return f"image {shown!r} (a picture file, {where}; Trek does not keep the picture)"


def parse(text: str, stem: str, folder: Path | None = None) -> SourceMap:
    """Walls and object outlines become walls on the edges between squares; portals become
    doors, open or closed as the file says. `folder`: where the file is, to look for a picture
    it names by path."""
    doc = json_object(text, "the Universal VTT file")
    resolution = doc.get("resolution")
    if not isinstance(resolution, dict):
        raise _fail("has no resolution (map_size and pixels_per_grid)")
    width, height = _size(resolution)
    check_size(width, height)
    origin: Point = (Fraction(0), Fraction(0))
    if "map_origin" in resolution:
        origin = _point(resolution["map_origin"], "resolution.map_origin")
    low: Point = (Fraction(-1), Fraction(-1))
    high: Point = (Fraction(width + 1), Fraction(height + 1))
    outside = 0
    off_lines = 0

    def shifted(p: Point) -> Point:
        return p[0] - origin[0], p[1] - origin[1]

    walls: set[Edge] = set()
    for key in ("line_of_sight", "objects_line_of_sight"):
        for line in _polylines(doc.get(key), key):
            for a, b in itertools.pairwise(shifted(p) for p in line):
                part = clip(a, b, low, high)
                if part is None:
                    outside += 1
                    continue
                if part != (a, b):
                    outside += 1
                if not ((a[0] == b[0] and a[0].denominator == 1)
                        or (a[1] == b[1] and a[1].denominator == 1)):
                    off_lines += 1
                for edge in edges_along(*part):
                    if on_map(edge, width, height):
                        walls.add(edge)
                    else:
                        outside += 1
    portals = doc.get("portals", [])
    if not isinstance(portals, list):
        raise _fail("has portals that are not a list")
    doors: list[SourceDoor] = []
    names: set[str] = set()
    beyond = 0
    for index, portal in enumerate(portals):
        what = f"portal {index + 1}"
        if not isinstance(portal, dict):
            raise _fail(f"has {what} that is not a JSON object")
        bounds = portal.get("bounds")
        if not isinstance(bounds, list) or len(bounds) != 2:
            raise _fail(f"has {what} without bounds (its two end points)")
        closed = portal.get("closed", True)
        if not isinstance(closed, bool):
            raise _fail(f"has {what} whose closed is not true or false")
        ends = [shifted(_point(p, f"a bound of {what}")) for p in bounds]
        run = _door_run(ends[0], ends[1])
        if run is None or not all(on_map(edge, width, height) for edge in run_edges(*run)):
            beyond += 1
            continue
        # A slanting portal is the staircase of edges nearest to it, as a wall would be: its
        # door the longest straight run of the staircase, the rest wall, so the doorway has no
        # gap beside its door and the door opens where the portal is.
        stair = {edge for edge in edges_along(*ends) if on_map(edge, width, height)}
        straight = runs(stair)
        if len(straight) > 1:
            start, end = max(straight, key=lambda r: sum(abs(r[1][i] - r[0][i]) for i in (0, 1)))
            run = (start, end)
            walls.update(stair)
        name = _portal_name(portal) or f"door at {run[0][0]},{run[0][1]}"
        taken = name
        number = 2
        while taken in names:
            taken = f"{name} ({number})"
            number += 1
        names.add(taken)
        doors.append(SourceDoor(name=taken, start=run[0], end=run[1], closed=closed))
    used = ["resolution.map_size (cells)", "resolution.map_origin",
            "line_of_sight (walls on the edges between squares)",
            "objects_line_of_sight (walls on the edges between squares)",
            "portals (doors, open or closed as the file says)"]
    if off_lines:
        used.append(f"{off_lines} wall segments off the grid lines (each on the edges "
                    "nearest to it)")
    ignored = sorted(k for k in doc if k not in _USED)
    picture, per_grid, note = _picture(doc, resolution, folder)
    if picture is not None:
        used.append("image (the picture under the grid, placed by "
                    "resolution.pixels_per_grid)")
    else:
        if note is not None:
            ignored.append(note)
        ignored.append("resolution.pixels_per_grid (points are already in cells)")
    if outside:
        ignored.append("walls beyond the map's edge (cut off there)")
    if beyond:
        ignored.append(f"{beyond} portals beyond the map's edge or without length")
    # A wall drawn on through a door is the door there (a door in a wall).
    in_doors = {edge for door in doors for edge in run_edges(door.start, door.end)}
    cells = [[OPEN] * width for _ in range(height)]
    return SourceMap(format="uvtt", name=stem, grid="square", cells=cells, used=used,
                     ignored=ignored, battle_only=True, walls=runs(walls - in_doors),
                     doors=doors, picture=picture, pixels_per_square=per_grid)


def _picture(doc: dict[str, Any], resolution: dict[str, Any],
             folder: Path | None) -> tuple[bytes | None, float, str | None]:
    """The picture's bytes (base64 in `image`) and a cell's side in its pixels; an empty or
    missing `image` is no picture, and an `image` that is not base64 (a path) comes back as
    what the report says of it instead."""
    raw = doc.get("image")
    if raw is None or raw == "":
        return None, 0.0, None
    if not isinstance(raw, str) or "." in raw or "\\" in raw:
        return None, 0.0, _image(raw, folder)
    if len(raw) > _MAX_BASE64:
        raise _fail("has a picture over 50 MB; a map's picture may be 50 MB at most")
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise _fail("has an image that is not base64 text") from None
    size = _number(resolution.get("pixels_per_grid"), "resolution.pixels_per_grid")
    if not 1 <= size <= 16_384:
        raise _fail(f"has resolution.pixels_per_grid {resolution.get('pixels_per_grid')!r}; "
                    "it must be from 1 to 16384")
    return data, float(size), None

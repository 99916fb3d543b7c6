"""Universal VTT (`.dd2vtt`, `.uvtt`): a battle map's size in cells, its walls and doors."""

from __future__ import annotations

import base64
import binascii
import itertools
import math
from collections.abc import Iterable, Iterator
from fractions import Fraction
from typing import Any

from domain.errors import MapError
from tracker.mapformats import MAX_SIDE, OPEN, SourceCell, SourceMap, check_size, json_object

WALL = SourceCell("wall")
DOOR = SourceCell("wall", name="closed door")
_USED = {"resolution", "line_of_sight", "objects_line_of_sight", "portals", "image"}
# The largest base64 text read: a picture of 50 MB (tracker/mapformats/picture.py refuses
# more once decoded, with the size).
_MAX_BASE64 = (50 * 1024 * 1024 + 2) // 3 * 4 + 4

Point = tuple[Fraction, Fraction]


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


def cells_crossed(a: Point, b: Point, size: tuple[int, int] = (MAX_SIDE, MAX_SIDE)
                  ) -> Iterator[tuple[int, int]]:
    """The cells a segment passes through: the cell holding the middle of each piece between
    two grid lines it crosses. A wall drawn along a grid line lands in the cells below it
    (or right of it), so each wall is one cell thick. Only grid lines from -1 to a side past
    `size` are cut at, so a far-flung point costs nothing; pieces beyond are off the map."""
    (x0, y0), (x1, y1) = a, b
    if (x0, y0) == (x1, y1):
        yield math.floor(x0), math.floor(y0)
        return
    cuts = {Fraction(0), Fraction(1)}
    for start, end, side in ((x0, x1, size[0]), (y0, y1, size[1])):
        if start != end:
            low, high = sorted((start, end))
            for k in range(max(math.ceil(low), -1), min(math.floor(high), side + 1) + 1):
                cuts.add((k - start) / (end - start))
    ordered = sorted(cuts)
    for t0, t1 in itertools.pairwise(ordered):
        mid = (t0 + t1) / 2
        yield math.floor(x0 + (x1 - x0) * mid), math.floor(y0 + (y1 - y0) * mid)


def _polylines(raw: object, what: str) -> Iterable[list[Point]]:
    if raw is None:
        return
    if not isinstance(raw, list):
        raise _fail(f"has {what} that is not a list of lines")
    for index, line in enumerate(raw):
        if not isinstance(line, list):
            raise _fail(f"has {what} entry {index + 1} that is not a list of points")
        yield [_point(p, f"a point of {what} entry {index + 1}") for p in line]


def parse(text: str, stem: str) -> SourceMap:
    """Walls, object outlines and closed doors become wall cells; open doors stay open."""
    doc = json_object(text, "the Universal VTT file")
    resolution = doc.get("resolution")
    if not isinstance(resolution, dict):
        raise _fail("has no resolution (map_size and pixels_per_grid)")
    width, height = _size(resolution)
    check_size(width, height)
    origin: Point = (Fraction(0), Fraction(0))
    if "map_origin" in resolution:
        origin = _point(resolution["map_origin"], "resolution.map_origin")
    cells = [[OPEN] * width for _ in range(height)]
    outside = 0

    def draw(a: Point, b: Point, cell: SourceCell) -> None:
        nonlocal outside
        shifted = [(p[0] - origin[0], p[1] - origin[1]) for p in (a, b)]
        for x, y in cells_crossed(shifted[0], shifted[1], (width, height)):
            if 0 <= x < width and 0 <= y < height:
                if cells[y][x] != WALL:
                    cells[y][x] = cell
            else:
                outside += 1

    for key in ("line_of_sight", "objects_line_of_sight"):
        for line in _polylines(doc.get(key), key):
            if len(line) == 1:
                draw(line[0], line[0], WALL)
            for a, b in itertools.pairwise(line):
                draw(a, b, WALL)
    portals = doc.get("portals", [])
    if not isinstance(portals, list):
        raise _fail("has portals that are not a list")
    open_doors = 0
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
        ends = [_point(p, f"a bound of {what}") for p in bounds]
        if closed:
            draw(ends[0], ends[1], DOOR)
        else:
            open_doors += 1
    used = ["resolution.map_size (cells)", "resolution.map_origin",
            "line_of_sight (walls)", "objects_line_of_sight (walls)",
            "portals (closed doors become walls; open doors are left open)"]
    ignored = sorted(k for k in doc if k not in _USED)
    picture, per_grid = _picture(doc, resolution)
    if picture is not None:
        used.append("image (the picture under the grid, placed by "
                    "resolution.pixels_per_grid)")
    else:
        ignored.append("resolution.pixels_per_grid (points are already in cells)")
    if open_doors:
        ignored.append(f"{open_doors} open doors")
    if outside:
        ignored.append("walls beyond the map's edge (cut off there)")
    return SourceMap(format="uvtt", name=stem, grid="square", cells=cells, used=used,
                     ignored=ignored, battle_only=True, picture=picture,
                     pixels_per_square=per_grid)


def _picture(doc: dict[str, Any], resolution: dict[str, Any]) -> tuple[bytes | None, float]:
    """The picture's bytes (base64 in `image`) and a cell's side in its pixels; an empty or
    missing `image` is no picture."""
    raw = doc.get("image")
    if raw is None or raw == "":
        return None, 0.0
    if not isinstance(raw, str):
        raise _fail("has an image that is not base64 text")
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
    return data, float(size)

"""Text Mapper (Alex Schroeder's hex mapper) text: `0101 forest` lines, column then row."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from domain.errors import MapError
from tracker.mapformats import MAX_SIDE, OPEN, Grid, SourceCell, SourceMap, check_size

# Four digits, column then row (six on big maps), then the types; a quoted label may follow.
_CELL = re.compile(r"^(\d{4}|\d{6})(?:\s+(.*))?$")
_PATH = re.compile(r"^\d{4,6}(?:-\d{4,6})+\s")
_ROAD = re.compile(r"^((?:\d{4}|\d{6})(?:-(?:\d{4}|\d{6}))+)\s+road\b")
_LABEL = re.compile(r'"[^"]*"')


def _kind(line: str) -> str:
    """What an ignored line is, for the report."""
    if line.startswith("#"):
        return "comments"
    if _PATH.match(line):
        return "paths (rivers and trails between hexes)"
    if " attributes " in f" {line} ":
        return "attributes lines (colours and styles)"
    if line.startswith("include"):
        return "include lines"
    if " path " in f" {line} " or line.endswith(" path"):
        return "path styles"
    if line.startswith(("text ", "label ", "glow ")):
        return "text and label styles"
    return "other lines"


def _road_cells(points: list[str], grid: Grid) -> set[tuple[int, int]]:
    """The cells a road runs through: each listed hex and the straight line of cells from each
    to the next (Text Mapper draws the road through their centres)."""
    from domain.geometry import Square
    from domain.grid import GRIDS

    cells: set[tuple[int, int]] = set()
    here: Square | None = None
    for digits in points:
        half = len(digits) // 2
        x, y = int(digits[:half]) - 1, int(digits[half:]) - 1
        if x < 0 or y < 0 or max(x, y) > MAX_SIDE:
            here = None
            continue
        there = Square(x, y)
        if here is not None:
            for direction in GRIDS[grid].steps_toward(here, there):
                here = GRIDS[grid].step(here, direction)
                cells.add(here)
        cells.add(there)
        here = there
    return cells


def parse(text: str, stem: str, *, grid: Grid = "hex") -> SourceMap:
    """Hexes (or squares) from `XXYY word...` lines; every other line is counted as ignored."""
    placed: dict[tuple[int, int], tuple[str, ...]] = {}
    named: dict[tuple[int, int], str] = {}
    on_lines: dict[tuple[int, int], int] = {}
    roads: set[tuple[int, int]] = set()
    ignored: Counter[str] = Counter()
    labels = 0
    repeated = 0
    bare = 0
    road_lines = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        road = _ROAD.match(line)
        if road is not None:
            road_lines += 1
            roads |= _road_cells(road.group(1).split("-"), grid)
            continue
        match = _CELL.match(line)
        if match is None:
            ignored[_kind(line)] += 1
            continue
        digits, rest = match.groups()
        half = len(digits) // 2
        x, y = int(digits[:half]), int(digits[half:])
        if x < 1 or y < 1:
            raise MapError(f"coordinate {digits} has a column or row of 0; Text Mapper "
                           "coordinates count from 01", lineno)
        check_size(x, y, lineno)
        without_labels, found = _LABEL.subn(" ", rest or "")
        labels += found
        label = next((text[1:-1].strip() for text in _LABEL.findall(rest or "")
                      if text[1:-1].strip()), None)
        # Text Mapper's numbers after a label are its size; they are no type.
        words = tuple(w for w in without_labels.split() if not w.isdigit())
        if not words:
            # A bare coordinate or a label alone: the hex is there, its ground unsaid.
            bare += 1
            words = ("open",)
        if (x - 1, y - 1) in placed:
            repeated += 1
        placed[(x - 1, y - 1)] = words
        on_lines[(x - 1, y - 1)] = lineno
        if label is not None:
            named[(x - 1, y - 1)] = label
        else:
            named.pop((x - 1, y - 1), None)
    if not placed:
        raise MapError("the Text Mapper file has no hex lines such as 0101 forest")
    width = max(x for x, _ in placed) + 1
    height = max(y for _, y in placed) + 1
    cells = [[OPEN] * width for _ in range(height)]
    for (x, y), words in placed.items():
        cells[y][x] = SourceCell(words[0], name=named.get((x, y)), others=words[1:])
    outside = 0
    for x, y in sorted(roads):
        if x < width and y < height:
            cells[y][x] = replace(cells[y][x], road=True)
        else:
            outside += 1
    used = ["XXYY type lines (column then row, from 0101)",
            "the first type word of each line Trek knows (or --terrain names) as its terrain; "
            "a colour such as light-green only when no other word is known"]
    if road_lines:
        used.append(f"{road_lines} road lines (the hexes they join are roads)")
    if bare:
        used.append(f"{bare} coordinates with no type (open ground)")
    if labels:
        used.append(f"{labels} quoted labels (the first on a line names its hex)")
    notes = [f"{count} {kind}" for kind, count in sorted(ignored.items())]
    if repeated:
        notes.append(f"{repeated} repeated coordinates (the later line wins)")
    if outside:
        notes.append(f"{outside} road hexes beyond the listed hexes")
    missing = width * height - len(placed)
    if missing:
        notes.append(f"{missing} unlisted cells (made open ground)")
    return SourceMap(format="textmapper", name=stem, grid=grid, cells=cells, used=used,
                     ignored=notes, cell_lines=on_lines)

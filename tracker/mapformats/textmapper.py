"""Text Mapper (Alex Schroeder's hex mapper) text: `0101 forest` lines, column then row."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from domain.errors import MapError
from tracker.mapformats import OPEN, Grid, SourceCell, SourceMap, SourceRiver, check_size

# A coordinate as Text Mapper reads one: XXYY, XXYYZZ (ZZ a level of a map with several), or
# X.Y[.Z] with as many digits as a big map needs; both count from 01 (00 lies off Trek's map).
_COORD = r"(?:\d{4}(?:\d\d)?(?!\d)|\d\d+\.\d\d+(?:\.\d\d+)?)"
_CELL = re.compile(rf"^({_COORD})(?:\s+(.*))?$")
# A line between hexes: its points, its type (one word) and a quoted label (Text Mapper draws
# rivers, roads, trails, borders ... this way).
_LINE = re.compile(rf"^({_COORD}(?:-{_COORD})+)\s+(\S+)(?:\s*[\"“]([^\"”]*)[\"”])?")
_POINT = re.compile(_COORD)
# `name="..."` names the hex; any other `tag="..."` (Traveller's `uwp=`) is information drawn
# beside it. A number after either is its size.
_TAG = re.compile(r"\b([a-z]+)=[\"“]([^\"”]*)[\"”]\s*(\d+)?")
# A quoted label, its size and the SVG transforms that move it.
_LABEL = re.compile(r"[\"“]([^\"”]*)[\"”]\s*(\d+)?((?:\s*[a-z]+\([^)]+\))*)")
# The line types Trek keeps: roads (the hexes they join are roads) and rivers (drawn).
ROAD = "road"
RIVER = "river"


def _kind(line: str) -> str:
    """What an ignored line is, for the report."""
    if line.startswith("#"):
        return "comments"
    if " attributes " in f" {line} ":
        return "attributes lines (colours and styles)"
    if line.startswith("include"):
        return "include lines"
    if " path " in f" {line} " or line.endswith(" path"):
        return "path styles"
    if line.startswith(("text ", "label ", "glow ")):
        return "text and label styles"
    return "other lines"


def _point(text: str) -> tuple[int, int, int]:
    """Column, row and level of a coordinate, each as written (from 01; level 00 the map)."""
    if "." in text:
        parts = [int(p) for p in text.split(".")]
        return parts[0], parts[1], parts[2] if len(parts) > 2 else 0
    return int(text[:2]), int(text[2:4]), int(text[4:6] or 0)


def _line_cells(points: list[tuple[int, int]], grid: Grid) -> set[tuple[int, int]]:
    """The cells a line runs through: each listed hex and the straight line of cells from each
    to the next (Text Mapper draws the line through their centres); 0-based."""
    from domain.geometry import Square
    from domain.grid import GRIDS

    cells: set[tuple[int, int]] = set()
    here: Square | None = None
    for x, y in points:
        there = Square(x, y)
        if here is not None:
            for direction in GRIDS[grid].steps_toward(here, there):
                here = GRIDS[grid].step(here, direction)
                cells.add(here)
        cells.add(there)
        here = there
    return cells


def _pieces(points: list[tuple[int, int, int]], shift: tuple[int, int], width: int,
            height: int) -> tuple[list[list[tuple[int, int]]], int]:
    """A line's points on the map (level 00, within `width` by `height` once moved by `shift`)
    in unbroken pieces, a piece ending where the line leaves the map, and how many points lay
    off it."""
    pieces: list[list[tuple[int, int]]] = [[]]
    off = 0
    for x, y, z in points:
        at = (x + shift[0], y + shift[1])
        if z == 0 and 0 <= at[0] < width and 0 <= at[1] < height:
            pieces[-1].append(at)
        else:
            off += 1
            if pieces[-1]:
                pieces.append([])
    return [piece for piece in pieces if piece], off


def parse(text: str, stem: str, *, grid: Grid = "hex") -> SourceMap:
    """Hexes (or squares) from `XXYY word...` lines, roads and rivers from the lines between
    them; every other line is counted as ignored."""
    placed: dict[tuple[int, int], tuple[str, ...]] = {}
    named: dict[tuple[int, int], str] = {}
    on_lines: dict[tuple[int, int], int] = {}
    roads: list[list[tuple[int, int, int]]] = []
    rivers: list[tuple[str | None, list[tuple[int, int, int]]]] = []
    ignored: Counter[str] = Counter()
    other_lines: Counter[str] = Counter()
    labels = tags = extra_labels = repeated = bare = levels = road_lines = river_lines = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        between = _LINE.match(line)
        if between is not None:
            points = [_point(p) for p in _POINT.findall(between.group(1))]
            kind = between.group(2)
            if kind == ROAD:
                road_lines += 1
                roads.append(points)
            elif kind == RIVER:
                river_lines += 1
                # The label names the river; control characters are no part of a name.
                river = "".join(ch for ch in between.group(3) or "" if ch.isprintable())
                rivers.append((river.strip() or None, points))
            else:
                other_lines[kind] += 1
            continue
        match = _CELL.match(line)
        if match is None:
            ignored[_kind(line)] += 1
            continue
        coordinate, rest = match.groups()
        x, y, z = _point(coordinate)
        if z != 0:
            levels += 1
            continue
        check_size(max(x, 1), max(y, 1), lineno)
        rest = rest or ""
        label: str | None = None
        for tag, value, _size in _TAG.findall(rest):
            if tag == "name" and label is None and value.strip():
                label = value.strip()
                labels += 1
            else:
                tags += 1
        rest = _TAG.sub(" ", rest)
        for value, _size, _moves in _LABEL.findall(rest):
            if label is None and value.strip():
                label = value.strip()
                labels += 1
            else:
                extra_labels += 1
        # Text Mapper's numbers after a label are its size; they are no type.
        words = tuple(w for w in _LABEL.sub(" ", rest).split() if not w.isdigit())
        if not words:
            # A bare coordinate or a label alone: the hex is there, its ground unsaid.
            bare += 1
            words = ("open",)
        if (x, y) in placed:
            repeated += 1
        placed[(x, y)] = words
        on_lines[(x, y)] = lineno
        if label is not None:
            named[(x, y)] = label
        else:
            named.pop((x, y), None)
    if not placed:
        raise MapError("the Text Mapper file has no hex lines such as 0101 forest")
    # Text Mapper counts from 01 but draws a column or row 00 too: then Trek's column or row 0
    # is 00. On hexes a column 00 becomes Trek's column 1 after an open column 0, so the even
    # columns still sit half a hex lower.
    low_x, low_y = min(x for x, _ in placed), min(y for _, y in placed)
    # What to add to Text Mapper's column and row for Trek's.
    shift = (-1 if low_x else (1 if grid == "hex" else 0), -1 if low_y else 0)
    width = max(x for x, _ in placed) + shift[0] + 1
    height = max(y for _, y in placed) + shift[1] + 1
    check_size(width, height)
    cells = [[OPEN] * width for _ in range(height)]
    for (x, y), words in placed.items():
        cells[y + shift[1]][x + shift[0]] = SourceCell(words[0], name=named.get((x, y)),
                                                       others=words[1:])
    outside = 0
    for points in roads:
        pieces, off = _pieces(points, shift, width, height)
        outside += off
        for x, y in set().union(*(_line_cells(piece, grid) for piece in pieces)):
            cells[y][x] = replace(cells[y][x], road=True)
    kept_rivers: list[SourceRiver] = []
    cut = 0
    for label, points in rivers:
        pieces, off = _pieces(points, shift, width, height)
        cut += off
        kept_rivers += [SourceRiver(RIVER, label, piece, sorted(_line_cells(piece, grid)))
                        for piece in pieces if len(piece) >= 2]
    used = ["XXYY type lines (column then row, from 0101)",
            "the first type word of each line Trek knows (or --terrain names) as its terrain; "
            "a colour such as light-green only when no other word is known, and a hex with "
            "only colours Trek does not know is open ground"]
    if not low_x:
        used.append("hexes in column 00 (Trek's column 1, after an open column 0 so the even "
                    "columns still sit half a hex lower)" if grid == "hex"
                    else "squares in column 00 (Trek's column 0)")
    if not low_y:
        used.append("hexes in row 00 (Trek's row 0)")
    if road_lines:
        used.append(f"{road_lines} road lines (the hexes they join are roads)")
    if river_lines:
        used.append(f"{river_lines} river lines (drawn on the map; --terrain river=TERRAIN "
                    "gives the hexes they run through a terrain)")
    if bare:
        used.append(f"{bare} coordinates with no type (open ground)")
    if labels:
        used.append(f"{labels} labels (each names its hex in the legend)")
    notes = [f"{count} {kind}" for kind, count in sorted(ignored.items())]
    notes += [f"{count} {kind} {'line' if count == 1 else 'lines'} (Trek keeps roads and rivers)"
              for kind, count in sorted(other_lines.items())]
    if extra_labels:
        notes.append(f"{extra_labels} further labels on a hex that already has one")
    if tags:
        notes.append(f"{tags} other fields such as uwp=\"...\" (drawn beside a hex)")
    if levels:
        notes.append(f"{levels} hexes on levels other than 00")
    if repeated:
        notes.append(f"{repeated} repeated coordinates (the later line wins)")
    if outside:
        notes.append(f"{outside} road points beyond the listed hexes (the road is cut there)")
    if cut:
        notes.append(f"{cut} river points beyond the listed hexes (the river is cut there)")
    missing = width * height - len(placed)
    if missing:
        notes.append(f"{missing} unlisted cells (made open ground)")
    lines_at = {(x + shift[0], y + shift[1]): line for (x, y), line in on_lines.items()}
    return SourceMap(format="textmapper", name=stem, grid=grid, cells=cells, used=used,
                     ignored=notes, cell_lines=lines_at, rivers=kept_rivers)

"""Battle maps: the map format with a grid (squares or hexes) and the legend words of the
encounter's ruleset, checked at load with the line and the reason (the file's tables and their
lines are read by tracker/mapformats/tomlfile.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from domain.bounds import MAX_CAMPAIGN_NAME
from domain.errors import MapError
from domain.maps import MapPositions, is_whole_number, listing
from domain.values import NOTHING

GRIDS = ("square", "hex")
# What a legend key's value must be: a problem sentence, or None when it is fine.
Check = Callable[[object], str | None]


def whole_number(low: int) -> Check:
    def check(value: object) -> str | None:
        if not is_whole_number(value) or int(value) < low:  # type: ignore[call-overload]
            return f"must be a whole number of at least {low}"
        return None
    return check


def flag(value: object) -> str | None:
    return None if isinstance(value, bool) else "must be true or false"


def one_of(*choices: str) -> Check:
    def check(value: object) -> str | None:
        return None if value in choices else f"must be {listing(repr(c) for c in choices)}"
    return check


def text(value: object) -> str | None:
    return None if isinstance(value, str) and value.strip() else "must be text in quotes"


class LegendSpec(NamedTuple):
    """The legend a ruleset's battle maps may use: its terrain words, the extra keys an entry
    may carry (`wall` is always allowed), and the extra keys of the [map] table."""

    words: frozenset[str]
    keys: Mapping[str, Check] = NOTHING
    map_keys: Mapping[str, Check] = NOTHING
    # Extra keys allowed only on some words (e.g. a cost only on some ground).
    only_on: Mapping[str, frozenset[str]] = NOTHING


def read_battle_map(doc: Mapping[str, Any], src: MapPositions, spec: LegendSpec
                    ) -> dict[str, Any]:
    """The battle map of a map file's tables (`doc`, as parsed) as a plain document; a MapError
    names the line (`src`) and the reason."""
    for key in doc:
        if key not in ("map", "legend", "wall", "door"):
            raise MapError(f"a battle map has an unknown table {key!r}; it takes [map], "
                           "[legend], [[wall]] and [[door]]", src.entry((), key))
    table = doc.get("map")
    if not isinstance(table, dict):
        raise MapError("the battle map has no [map] table; it needs rows (and a name)")
    allowed_map = ("name", "rows", "grid", *spec.map_keys)
    for key, value in table.items():
        line = src.key(("map",), key)
        if key not in allowed_map:
            raise MapError(f"[map] has an unknown key {key!r}; the keys allowed there are "
                           f"{listing(allowed_map)}", line)
        if key in spec.map_keys and (problem := spec.map_keys[key](value)):
            raise MapError(f"[map] {key} {problem}", line)
    grid = table.get("grid", "square")
    if grid not in GRIDS:
        raise MapError(f'grid is {grid!r}; it must be "square" or "hex"',
                       src.key(("map",), "grid"))
    name = table.get("name", "Battle map")
    if not isinstance(name, str):
        raise MapError("name must be text in quotes", src.key(("map",), "name"))
    rows = table.get("rows")
    rows_line = src.key(("map",), "rows") or src.header(("map",))
    if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
        raise MapError("rows must be a list of strings in quotes, one per row of cells",
                       rows_line)
    width = len(rows[0])
    for y, row in enumerate(rows):
        if len(row) != width or not row:
            raise MapError(f"row {y + 1} has {len(row)} cell(s) but the first row has {width}; "
                           "every row must be as wide", src.array_string(("map",), "rows", y))
    legend = doc.get("legend")
    if not isinstance(legend, dict) or not legend:
        raise MapError('the battle map has no [legend]; add one such as "." = '
                       '{ terrain = "open" }')
    words = spec.words | {"wall"}
    entries: dict[str, dict[str, Any]] = {}
    for key, entry in legend.items():
        line = src.entry(("legend",), key)
        if len(key) != 1:
            raise MapError(f"legend key {key!r} must be one character", line)
        if not isinstance(entry, dict):
            raise MapError(f"legend entry {key!r} must be a table such as "
                           '{ terrain = "open" }', line)
        terrain = entry.get("terrain")
        if terrain not in words:
            raise MapError(f"legend entry {key!r} has terrain {terrain!r}; this ruleset's "
                           f"battle maps use {listing(sorted(words))}", line)
        for extra, value in entry.items():
            if extra in ("terrain", "name"):
                continue
            check = spec.keys.get(extra)
            if check is None:
                allowed = ", ".join(sorted(spec.keys)) or "none"
                raise MapError(f"legend entry {key!r} has an unknown key {extra!r} (the keys "
                               f"this ruleset allows: terrain, name, {allowed})", line)
            if extra in spec.only_on and terrain not in spec.only_on[extra]:
                raise MapError(f"legend entry {key!r}: {extra} is only for "
                               f"{listing(sorted(spec.only_on[extra]))} terrain", line)
            problem = check(value)
            if problem is not None:
                raise MapError(f"legend entry {key!r}: {extra} {problem}", line)
        entries[key] = dict(entry)
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            if char not in entries:
                raise MapError(f"row {y + 1} uses {char!r} at column {x}, which the legend "
                               "does not define", src.array_string(("map",), "rows", y))
    document: dict[str, Any] = {"name": name, "grid": grid, "rows": list(rows),
                                "legend": entries}
    document.update((k, v) for k, v in table.items() if k in spec.map_keys)
    walls, doors = _edges(doc, src, grid, width, len(rows))
    if walls:
        document["walls"] = walls
    if doors:
        document["doors"] = doors
    return document


def _tables(doc: Mapping[str, Any], key: str, src: MapPositions) -> list[dict[str, Any]]:
    tables = doc.get(key, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise MapError(f"{key} must be written as [[{key}]] tables", src.entry((), key))
    return tables


def _grid_point(value: object, width: int, height: int) -> tuple[int, int] | str:
    """A grid point [x, y] of a map `width` × `height` cells, or why it is not one."""
    if (not isinstance(value, list) or len(value) != 2
            or not all(is_whole_number(v) for v in value)):
        return f"{value!r} is not a grid point; write it as [x, y] with whole numbers"
    x, y = int(value[0]), int(value[1])
    if not (0 <= x <= width and 0 <= y <= height):
        return (f"[{x}, {y}] is off the map; its grid points run from [0, 0] to "
                f"[{width}, {height}]")
    return x, y


def _plain(value: object) -> str | None:
    assert isinstance(value, str)
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        return "has a control character; write plain text"
    if len(value.strip()) > MAX_CAMPAIGN_NAME:
        return f"is longer than {MAX_CAMPAIGN_NAME} characters"
    return None


def _straight(a: tuple[int, int], b: tuple[int, int]) -> str | None:
    if a == b:
        return f"[{a[0]}, {a[1]}] follows itself; each run must go somewhere"
    if a[0] != b[0] and a[1] != b[1]:
        return (f"[{a[0]}, {a[1]}] to [{b[0]}, {b[1]}] is diagonal; walls and doors run "
                "along the grid lines, so keep x or y the same from point to point")
    return None


def _edges(doc: Mapping[str, Any], src: MapPositions, grid: str, width: int, height: int
           ) -> tuple[list[list[list[int]]], list[dict[str, Any]]]:
    """The [[wall]] and [[door]] tables (RULES §16) as the map document keeps them: each wall
    its points, each door its two ends, name and state."""
    walls_raw, doors_raw = _tables(doc, "wall", src), _tables(doc, "door", src)
    if (walls_raw or doors_raw) and grid != "square":
        raise MapError("walls and doors on edges are for square maps; a hex map marks walls "
                       "with wall cells", src.header(("wall" if walls_raw else "door",)))
    walls: list[list[list[int]]] = []
    for index, table in enumerate(walls_raw):
        line = src.key(("wall",), "points", index) or src.header(("wall",), index)
        for key in table:
            if key != "points":
                raise MapError(f"[[wall]] has an unknown key {key!r}; a wall takes points",
                               src.key(("wall",), key, index) or line)
        points = table.get("points")
        if not isinstance(points, list) or len(points) < 2:
            raise MapError("a wall's points must be a list of at least two grid points such "
                           "as [[0, 2], [3, 2]]", line)
        run: list[tuple[int, int]] = []
        for raw in points:
            point = _grid_point(raw, width, height)
            if isinstance(point, str):
                raise MapError(f"a wall's point {point}", line)
            if run and (problem := _straight(run[-1], point)) is not None:
                raise MapError(f"a wall's points: {problem}", line)
            run.append(point)
        walls.append([list(p) for p in run])
    doors: list[dict[str, Any]] = []
    names: set[str] = set()
    for index, table in enumerate(doors_raw):
        header = src.header(("door",), index)
        for key in table:
            if key not in ("from", "to", "name", "closed"):
                raise MapError(f"[[door]] has an unknown key {key!r}; a door takes from, to, "
                               "name and closed", src.key(("door",), key, index) or header)
        ends = []
        for key in ("from", "to"):
            line = src.key(("door",), key, index) or header
            if key not in table:
                raise MapError(f"a door needs {key} = [x, y], a grid point at one end", header)
            point = _grid_point(table[key], width, height)
            if isinstance(point, str):
                raise MapError(f"a door's {key}: {point}", line)
            ends.append(point)
        if (problem := _straight(ends[0], ends[1])) is not None:
            raise MapError(f"a door from {problem}", src.key(("door",), "to", index) or header)
        closed = table.get("closed", True)
        if not isinstance(closed, bool):
            raise MapError("a door's closed must be true or false",
                           src.key(("door",), "closed", index) or header)
        given = table.get("name")
        if given is not None and (problem := text(given) or _plain(given)) is not None:
            raise MapError(f"a door's name {problem}", src.key(("door",), "name", index) or header)
        name = given.strip() if isinstance(given, str) else f"door at {ends[0][0]},{ends[0][1]}"
        if name in names:
            raise MapError(f"two doors are called {name!r}; give each door its own name",
                           src.key(("door",), "name", index) or header)
        names.add(name)
        doors.append({"name": name, "from": list(ends[0]), "to": list(ends[1]),
                      "closed": closed})
    return walls, doors

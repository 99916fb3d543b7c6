"""Walls and doors on the edges between squares (RULES §16): which edges a battle map closes,
and whether a step between two neighbouring squares crosses or cuts the corner of one.

Grid point (x, y) is the top-left corner of cell (x, y). An edge is one cell long and is kept
as (x, y, "h"), from point (x, y) to (x + 1, y) (the top edge of cell (x, y)), or (x, y, "v"),
from point (x, y) to (x, y + 1) (its left edge). A map keeps its walls as lists of points and
its doors as tables (`from`, `to`, `name`, `closed`); the encounter keeps each door's state
now, by name.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import pairwise
from typing import Any, NamedTuple

from domain.geometry import Square

Edge = tuple[int, int, str]
Point = tuple[int, int]


def point_of(raw: Sequence[int]) -> Point:
    return int(raw[0]), int(raw[1])


def run_edges(a: Point, b: Point) -> Iterator[Edge]:
    """The edges of a straight run along a grid line from point `a` to point `b`."""
    (x0, y0), (x1, y1) = a, b
    if y0 == y1:
        for x in range(min(x0, x1), max(x0, x1)):
            yield x, y0, "h"
    else:
        for y in range(min(y0, y1), max(y0, y1)):
            yield x0, y, "v"


def door_name(door: Mapping[str, Any]) -> str:
    """A door's name: its own, else "door at X,Y" after its first point."""
    name = door.get("name")
    if isinstance(name, str) and name:
        return name
    x, y = point_of(door["from"])
    return f"door at {x},{y}"


class EdgeMap(NamedTuple):
    """The walled edges of a battle map and, for each door's edges, the door's name (a door in
    a wall's run stands in place of the wall there)."""

    walls: frozenset[Edge]
    doors: Mapping[Edge, str]


def edge_map(battle_map: Mapping[str, Any] | None) -> EdgeMap | None:
    """The map's edge walls and doors, None when it has none (read once per map document)."""
    if battle_map is None or not (battle_map.get("walls") or battle_map.get("doors")):
        return None
    key = id(battle_map)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is battle_map:
        return cached[1]
    doors: dict[Edge, str] = {}
    for door in battle_map.get("doors", ()):
        name = door_name(door)
        for edge in run_edges(point_of(door["from"]), point_of(door["to"])):
            doors[edge] = name
    walls: set[Edge] = set()
    for points in battle_map.get("walls", ()):
        for a, b in pairwise(points):
            walls.update(run_edges(point_of(a), point_of(b)))
    found = EdgeMap(walls=frozenset(walls - doors.keys()), doors=doors)
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[key] = (battle_map, found)
    return found


# Keyed by the map document's id, holding the document so the id is not reused meanwhile.
_CACHE: dict[int, tuple[Mapping[str, Any], EdgeMap]] = {}


def shared_edge(a: Square, b: Square) -> Edge:
    """The edge between two orthogonal neighbours."""
    if a.y == b.y:
        return max(a.x, b.x), a.y, "v"
    return a.x, max(a.y, b.y), "h"


def corner_edges(a: Square, b: Square) -> tuple[Point, tuple[Edge, ...]]:
    """The corner point a diagonal step from `a` to `b` passes, and the four edges ending
    there."""
    px, py = max(a.x, b.x), max(a.y, b.y)
    return (px, py), ((px - 1, py, "h"), (px, py, "h"), (px, py - 1, "v"), (px, py, "v"))


def _blocker(edges: EdgeMap, closed: Mapping[str, bool], edge: Edge) -> str | None:
    """What closes an edge: "a wall", "the cellar door" (a closed door), or None."""
    if edge in edges.walls:
        return "a wall"
    name = edges.doors.get(edge)
    if name is not None and closed.get(name, True):
        return f"the {name}"
    return None


def edge_refusal(battle_map: Mapping[str, Any] | None, closed: Mapping[str, bool],
                 here: Square, there: Square) -> str | None:
    """Why the step from `here` to its neighbour `there` is refused by a wall or a closed door
    on the edges (`closed`: each door's state by name), or None."""
    edges = edge_map(battle_map)
    if edges is None or max(abs(here.x - there.x), abs(here.y - there.y)) != 1:
        return None
    a, b = f"{here.x},{here.y}", f"{there.x},{there.y}"
    if here.x == there.x or here.y == there.y:
        blocker = _blocker(edges, closed, shared_edge(here, there))
        if blocker is None:
            return None
        standing = "stands" if blocker == "a wall" else "is closed"
        return f"{blocker} {standing} between {a} and {b}"
    (px, py), around = corner_edges(here, there)
    for edge in around:
        blocker = _blocker(edges, closed, edge)
        if blocker is not None:
            what = blocker if blocker == "a wall" else f"{blocker} (closed)"
            return (f"{what} meets the corner {px},{py} that the diagonal step from {a} to {b} "
                    "passes (no cutting a wall's corner)")
    return None


def edge_beside(battle_map: Mapping[str, Any] | None, closed: Mapping[str, bool],
                cell: Square) -> bool:
    """Whether a wall or a closed door lies on one of the cell's four edges."""
    edges = edge_map(battle_map)
    if edges is None:
        return False
    x, y = cell
    return any(_blocker(edges, closed, edge) is not None
               for edge in ((x, y, "h"), (x, y + 1, "h"), (x, y, "v"), (x + 1, y, "v")))


def doors_of(battle_map: Mapping[str, Any] | None) -> dict[str, bool]:
    """Each door's state as the map gives it, by name."""
    if battle_map is None:
        return {}
    return {door_name(door): bool(door.get("closed", True))
            for door in battle_map.get("doors", ())}

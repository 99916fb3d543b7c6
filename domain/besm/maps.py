"""BESM's part of an overland map: the terrain words its rules read, and shortcuts.

A shortcut is a named route the group may roll to take, opening its path for the day. A map
file gives them as `[[shortcut]]` tables; the core loader hands those to `read_shortcuts`
(through `MAP_SECTIONS`) and keeps what it returns in `GameMap.extras["shortcuts"]`, which is
also where stored maps have always held them.
"""

import re
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from domain.errors import MapError
from domain.geometry import Square
from domain.maps import (
    GameMap,
    MapSection,
    MapTable,
    NamedPath,
    Terrain,
    check_keys,
    is_whole_number,
)

if TYPE_CHECKING:
    from pydantic import TypeAdapter

TERRAINS: frozenset[Terrain] = frozenset({Terrain.OPEN, Terrain.FEATURE, Terrain.HAZARD})

# Where a map keeps its shortcuts: the `GameMap.extras` key, and the key in stored map JSON.
SHORTCUTS = "shortcuts"
_SHORTCUT_KEYS = ("name", "path", "bonus", "penalty")
_PATH_EXAMPLE = "path = [[2, 1]]"


class Shortcut(BaseModel):
    """A named route the group may roll to take, opening its path for the day."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    path: tuple[Square, ...] = Field(min_length=1)
    bonus: int = Field(ge=0)
    penalty: int = Field(default=0, ge=0)


@cache
def _stored() -> "TypeAdapter[tuple[Shortcut, ...]]":
    """The shortcuts as a map stores them, built the first time a command reads them (a move
    or a day's clock does not)."""
    from pydantic import TypeAdapter

    return TypeAdapter(tuple[Shortcut, ...])


def shortcuts(game_map: GameMap) -> tuple[Shortcut, ...]:
    """The map's shortcuts, read back from its extras (a map from any source: its file, an
    event, a snapshot); one that could not be taken on this map is refused."""
    found = _stored().validate_python(game_map.extras.get(SHORTCUTS, ()))
    problem = _shape_problem(found, game_map.width, game_map.height)
    if problem is not None:
        raise ValueError(problem)
    return found


def find_shortcut(game_map: GameMap, name: str) -> Shortcut | None:
    """The shortcut called exactly `name`: names match exactly everywhere, capitals included."""
    for shortcut in shortcuts(game_map):
        if shortcut.name == name:
            return shortcut
    return None


def near_shortcut(game_map: GameMap, name: str) -> Shortcut | None:
    """The shortcut `name` may have meant: the same but for its capitals and surrounding
    spaces (a map never holds two such, see `read_shortcuts`), for the refusal to name."""
    wanted = name.strip().casefold()
    for shortcut in shortcuts(game_map):
        if shortcut.name.casefold() == wanted:
            return shortcut
    return None


def _shape_problem(found: tuple[Shortcut, ...], width: int, height: int) -> str | None:
    seen: set[str] = set()
    for shortcut in found:
        folded = shortcut.name.casefold()
        if folded in seen:
            return f"shortcut {shortcut.name!r} is defined twice"
        seen.add(folded)
        for sq in shortcut.path:
            if not (0 <= sq.x < width and 0 <= sq.y < height):
                return f"shortcut {shortcut.name!r} goes through {sq.x},{sq.y}, off the map"
    return None


# ---------------------------------------------------------------------------------------------
# Reading `[[shortcut]]` tables, each refusal on the line at fault.


def read_shortcuts(raw: object, table: MapTable) -> tuple[Shortcut, ...]:
    """The `[[shortcut]]` tables of a map file (None when it has none), checked in full."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(s, dict) for s in raw):
        raise MapError("shortcuts must each be written as a [[shortcut]] table", table.line())
    seen: set[str] = set()
    found: list[Shortcut] = []
    for index, entry in enumerate(raw):
        shortcut = _shortcut(index, entry, table)
        folded = shortcut.name.casefold()
        if folded in seen:
            raise MapError(
                f"shortcut {shortcut.name!r} is defined twice (names are compared ignoring "
                "capitals); give each shortcut its own name",
                table.key("name", index),
            )
        seen.add(folded)
        found.append(shortcut)
    return tuple(found)


def _shortcut(index: int, entry: Mapping[str, Any], table: MapTable) -> Shortcut:
    header = table.header(index)

    def line_of(field_name: str) -> int | None:
        return table.key(field_name, index) or header

    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise MapError(
            'every [[shortcut]] needs a name in quotes, such as name = "Kessel Pass"',
            line_of("name"),
        )
    what = f"shortcut {name!r}"
    check_keys(entry, _SHORTCUT_KEYS, what, lambda key: table.entry(key, index))
    path = _path(what, entry.get("path"), line_of("path"), table, index)
    bonus = entry.get("bonus")
    if bonus is None:
        raise MapError(
            f"{what} has no bonus; give the extra squares it grants, such as bonus = 2",
            line_of("name"),
        )
    for field_name, value in (("bonus", bonus), ("penalty", entry.get("penalty", 0))):
        if not is_whole_number(value) or value < 0:
            raise MapError(
                f"{what} has {field_name} {value!r}; it must be a whole number of 0 or more",
                line_of(field_name),
            )
    return Shortcut(name=name, path=path, bonus=bonus, penalty=entry.get("penalty", 0))


def _path(
    what: str, path: object, line: int | None, table: MapTable, index: int
) -> tuple[Square, ...]:
    if path is None or path == []:
        raise MapError(
            f"{what} has no path; give the squares it crosses as [x, y] pairs, such as "
            f"{_PATH_EXAMPLE}",
            line,
        )
    if not isinstance(path, list):
        raise MapError(
            f"{what} has a path that is not a list; write it as [x, y] pairs, such as "
            f"{_PATH_EXAMPLE}",
            line,
        )
    squares: list[Square] = []
    for step in path:
        if not (isinstance(step, list) and len(step) == 2 and all(map(is_whole_number, step))):
            raise MapError(
                f"{what} has {step!r} in its path; write each square as [x, y] with whole "
                f"numbers, such as {_PATH_EXAMPLE}",
                line,
            )
        sq = Square(step[0], step[1])
        if not table.contains(sq):
            raise MapError(
                f"{what} goes through square {sq.x},{sq.y}, which is off the map; squares "
                f"run from 0,0 to {table.width - 1},{table.height - 1}",
                _square_line(table, index, sq, line),
            )
        squares.append(sq)
    return tuple(squares)


def _square_line(table: MapTable, index: int, sq: Square, fallback: int | None) -> int | None:
    # A long path may be spread over several lines; point at the one holding the square.
    if fallback is None:
        return fallback
    pattern = re.compile(rf"\[\s*{sq.x}\s*,\s*{sq.y}\s*\]")
    return table.search(index, pattern, fallback) or fallback


def shortcut_paths(stored: Any) -> tuple[NamedPath, ...]:
    """Each shortcut as the named path pictures draw and `trek map show` lists."""
    return tuple(
        NamedPath(
            kind="shortcut",
            name=s.name,
            squares=s.path,
            key=f"shortcut {s.name} (+{s.bonus} squares)",
            listing=f"shortcut {s.name}: bonus {s.bonus}, penalty {s.penalty}",
        )
        for s in _stored().validate_python(stored)
    )


def shown(stored: Any) -> Any:
    """The stored shortcuts as JSON with each one's fields in their own order."""
    adapter = _stored()
    return adapter.dump_python(adapter.validate_python(stored), mode="json")


# The tables BESM adds to a map file, by table name.
MAP_SECTIONS: Mapping[str, MapSection] = MappingProxyType(
    {
        "shortcut": MapSection(
            key=SHORTCUTS, read=read_shortcuts, paths=shortcut_paths, shown=shown
        )
    }
)

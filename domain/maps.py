"""Travel maps: the grid of squares, what each square is, and the checks of a map file.

The core map knows rows, a legend of cells, the square size, the rivers drawn on it and
`extras`: what a ruleset's own tables (its `map_sections`) read from the file. `read_map` is
given the file's tables as plain values and where each part sits (`MapPositions`; reading the
file's own format is the map formats' work, tracker/mapformats/), hands each declared table to
its ruleset's reader and refuses every table nobody declared, each refusal with its line.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from typing import Any, NamedTuple, Protocol, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import to_jsonable_python

from domain.errors import MapError
from domain.geometry import Square


def extent(width: int, height: int) -> str:
    """Where a map's squares run, as a refusal names them."""
    return f"the map runs 0..{width - 1} × 0..{height - 1}"


class Terrain(StrEnum):
    """Every terrain word a map may use: one vocabulary, so a stored cell is always a known word
    and map imports and pictures read the same words; each ruleset's `terrains` picks the words
    its rules accept."""

    OPEN = "open"
    FEATURE = "feature"
    HAZARD = "hazard"
    ROUGH = "rough"
    DIFFICULT = "difficult"
    WATER = "water"
    HIGH_GRAVITY = "high-gravity"



class Cell(BaseModel):
    """One legend entry: what every square drawn with its character is."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    terrain: Terrain
    name: str | None = None
    penalty: int = Field(default=0, ge=0)
    road: bool = False


class River(BaseModel):
    """A river drawn across the map through the squares of its `path` (Text Mapper's
    `0102-0203 river`). It is a picture's line only: no rule prices crossing it; a GM who wants
    it to matter gives its squares a terrain (an import's `--terrain river=hazard`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str | None = None
    path: tuple[Square, ...] = Field(min_length=2)


class GameMap(BaseModel):
    """A rectangular grid of squares, each drawn with one legend character."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    rows: tuple[str, ...]
    legend: dict[str, Cell]
    # What a ruleset's own tables read (its `map_sections`), by the key each is stored under,
    # as plain JSON values: the ruleset reads them back into its own models.
    extras: dict[str, Any] = Field(default_factory=dict)
    square_miles: int = Field(default=6, gt=0)
    # The picture under the grid (its SHA-256, size and placing; tracker/mapformats/picture.py),
    # left out of maps without one so their stored JSON reads as before.
    image: dict[str, Any] | None = Field(default=None, exclude_if=lambda v: v is None)
    # Rivers drawn on the map, left out of maps without any so their stored JSON reads as
    # before.
    rivers: tuple[River, ...] = Field(default=(), exclude_if=lambda v: not v)

    @model_validator(mode="before")
    @classmethod
    def _gather_extras(cls, data: Any) -> Any:
        # Stored maps keep each extra at the top level, where maps of earlier releases have
        # always held them, so the keys that are not the core's own are gathered into `extras`.
        if not isinstance(data, Mapping) or "extras" in data:
            return data
        core = {k: v for k, v in data.items() if k in cls.model_fields}
        extras = {k: v for k, v in data.items() if k not in cls.model_fields}
        return {**core, "extras": extras} if extras else core

    @field_validator("extras")
    @classmethod
    def _plain_extras(cls, extras: dict[str, Any]) -> dict[str, Any]:
        # A ruleset's models become the JSON they are stored as, so a map read back from an
        # event equals the one its file gave.
        return {key: to_jsonable_python(value) for key, value in extras.items()}

    @model_validator(mode="after")
    def _check_consistent(self) -> Self:
        # The loader already explains these with line numbers; this guards maps built in code
        # or read back from stored events, so every GameMap in the program is usable.
        problem = _shape_problem(self.rows, self.legend)
        if problem is not None:
            raise ValueError(problem)
        for river in self.rivers:
            if not all(self.contains(sq) for sq in river.path):
                raise ValueError(f"river {river.name or ''!r} runs off the map")
        return self

    @model_serializer(mode="wrap")
    def _flatten_extras(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Each extra is written where it always was: at the top level, in the field order.
        dumped: dict[str, Any] = handler(self)
        flat: dict[str, Any] = {}
        for key, value in dumped.items():
            if key == "extras":
                flat.update(value)
            else:
                flat[key] = value
        return flat

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @property
    def height(self) -> int:
        return len(self.rows)

    def contains(self, sq: Square) -> bool:
        return 0 <= sq.x < self.width and 0 <= sq.y < self.height

    def cell(self, sq: Square) -> Cell:
        # Negative indices would silently wrap round to the far edge of the map.
        if not self.contains(sq):
            raise IndexError(f"square {sq.x},{sq.y} is off the map")
        return self.legend[self.rows[sq.y][sq.x]]

    def penalty(self, sq: Square) -> int:
        return self.cell(sq).penalty


def _shape_problem(rows: tuple[str, ...], legend: Mapping[str, Cell]) -> str | None:
    if not rows or not rows[0]:
        return "a map needs at least one row of at least one square"
    width = len(rows[0])
    for y, row in enumerate(rows):
        if len(row) != width:
            return f"row {y + 1} has {len(row)} squares but every row must have {width}"
        for ch in row:
            if ch not in legend:
                return f"character {ch!r} in row {y + 1} is not in the legend"
    for key in legend:
        if len(key) != 1:
            return f"legend key {key!r} must be exactly one character"
    return None


class MapPositions(Protocol):
    """Where the parts of a map file sit, for refusals: a table by its path (and, for the
    `index`th of an array of tables, its index), a key in a table, a string of an array. Each
    answer is a line number, or None when the file's reader cannot place it; the map file's
    own format knows how to find them (tracker/mapformats/tomlfile.py for TOML)."""

    def header(self, path: tuple[str, ...], index: int = 0) -> int | None:
        """The line of the table's header."""

    def key(self, path: tuple[str, ...], key: str, index: int = 0) -> int | None:
        """The line of `key = ...` in the table."""

    def entry(self, path: tuple[str, ...], key: str, index: int = 0) -> int | None:
        """The line of `key = ...` in a table, or of the `[path.key]` header that opens it."""

    def array_string(self, path: tuple[str, ...], key: str, position: int) -> int | None:
        """The line of the `position`th string of the array `key` (else of the key)."""

    def search(self, path: tuple[str, ...], index: int, pattern: re.Pattern[str],
               start: int) -> int | None:
        """The first line from `start` to the table's end that `pattern` matches."""


# ---------------------------------------------------------------------------------------------
# The loader.

_CORE_TABLES = ("map", "legend", "river")
_MAP_KEYS = ("name", "rows", "square_miles")
_CELL_KEYS = ("terrain", "name", "penalty", "road")
_RIVER_KEYS = ("name", "path")
_RIVER_EXAMPLE = "path = [[0, 1], [1, 1], [2, 2]]"


def listing(items: Iterable[str]) -> str:
    """Words joined for a message: `a, b or c`."""
    words = list(items)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} or {words[-1]}"


def _squares(count: int) -> str:
    return f"{count} square" if count == 1 else f"{count} squares"


def is_whole_number(value: object) -> bool:
    """Whether a TOML value is an integer: booleans arrive as Python bools, which are ints,
    and `penalty = true` is a mistake."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_keys(
    table: Mapping[str, object],
    allowed: tuple[str, ...],
    what: str,
    line: Callable[[str], int | None],
) -> None:
    """Refuse the first key of `table` not in `allowed`, on the line `line(key)` gives."""
    for key in table:
        if key not in allowed:
            raise MapError(
                f"{what} has an unknown key {key!r}; the keys allowed there are "
                f"{listing(allowed)}",
                line(key),
            )


class MapTable:
    """One ruleset table of a map file as its reader sees it: the map's size, and where the
    table's parts sit in the text, so that a refusal names the line at fault."""

    def __init__(self, name: str, positions: MapPositions, width: int, height: int) -> None:
        self.name = name
        self.width = width
        self.height = height
        self._src = positions

    def contains(self, sq: Square) -> bool:
        return 0 <= sq.x < self.width and 0 <= sq.y < self.height

    def line(self) -> int | None:
        """The line of a `name = ...` written in place of the table."""
        return self._src.key((), self.name)

    def header(self, index: int = 0) -> int | None:
        """The line of the table's (the `index`th `[[name]]`'s) header."""
        return self._src.header((self.name,), index)

    def key(self, key: str, index: int = 0) -> int | None:
        """The line of `key = ...` in the table, or None."""
        return self._src.key((self.name,), key, index)

    def entry(self, key: str, index: int = 0) -> int | None:
        """The line of `key = ...` in the table, or of the `[name.key]` header that opens it."""
        return self._src.entry((self.name,), key, index)

    def search(self, index: int, pattern: re.Pattern[str], start: int) -> int | None:
        """The first line from `start` to the table's end that `pattern` matches."""
        return self._src.search((self.name,), index, pattern, start)


# A ruleset's reader of one table: the table as the file gave it (None when the file has none)
# and its place in the text, to what the map keeps (a pydantic model, a tuple of them ...).
SectionReader = Callable[[object, MapTable], Any]


class NamedPath(NamedTuple):
    """Something a ruleset's table puts on the map that is shown as a named line of squares:
    pictures draw it and `trek map show` lists it, knowing nothing of what it means."""

    # A slug for what it is: the picture's class for it and its entry in the key.
    kind: str
    name: str
    squares: tuple[Square, ...]
    # Its words in a picture's key, and its line in `trek map show`.
    key: str
    listing: str


def _no_paths(value: Any) -> tuple[NamedPath, ...]:
    return ()


def _as_stored(value: Any) -> Any:
    return value


class MapSection(NamedTuple):
    """A table a ruleset adds to its map files: the `GameMap.extras` key (and stored JSON key)
    its reading is kept under, and the reader. Given the stored JSON value (as a map read back
    from an event holds it, its keys sorted), `paths` gives what of it is shown as named paths
    and `shown` lays it out as the ruleset writes it (its fields in their own order)."""

    key: str
    read: SectionReader
    paths: Callable[[Any], tuple[NamedPath, ...]] = _no_paths
    shown: Callable[[Any], Any] = _as_stored


class MapRules(Protocol):
    """What the loader asks of a ruleset: its terrain words and its own tables, by name."""

    @property
    def terrains(self) -> frozenset[Terrain]: ...

    @property
    def map_sections(self) -> Mapping[str, MapSection]: ...


class _Loader:
    def __init__(self, doc: Mapping[str, Any], positions: MapPositions,
                 rules: MapRules) -> None:
        self.doc = doc
        self.src = positions
        self.terrains = rules.terrains
        self.sections = rules.map_sections

    def load(self) -> GameMap:
        table = self._map_table()
        name = self._map_name(table)
        rows = self._rows(table)
        square_miles = self._square_miles(table)
        legend = self._legend()
        self._check_rows_in_legend(rows, legend)
        # After the core tables, so a map of another ruleset is refused for what its squares
        # are before the tables this ruleset does not read.
        self._check_unknown_keys(self.doc, (), (*_CORE_TABLES, *self.sections), "the map file")
        rivers = self._rivers(len(rows[0]), len(rows))
        extras = {
            section.key: section.read(
                self.doc.get(table_name), MapTable(table_name, self.src, len(rows[0]), len(rows))
            )
            for table_name, section in self.sections.items()
        }
        try:
            return GameMap(
                name=name,
                rows=rows,
                legend=legend,
                extras=extras,
                square_miles=square_miles,
                rivers=rivers,
            )
        except ValidationError as exc:
            # Every rule GameMap enforces is checked above with a line number; this is a net.
            reason = exc.errors()[0]["msg"]
            raise MapError(f"the map cannot be used: {reason}") from None

    def _check_unknown_keys(
        self,
        table: Mapping[str, object],
        path: tuple[str, ...],
        allowed: tuple[str, ...],
        what: str,
        index: int = 0,
    ) -> None:
        check_keys(table, allowed, what, lambda key: self.src.entry(path, key, index))

    def _map_table(self) -> dict[str, Any]:
        table = self.doc.get("map")
        if table is None:
            raise MapError("the map file has no [map] table; it needs one with a name and rows")
        if not isinstance(table, dict):
            raise MapError(
                "map must be a [map] table with a name and rows", self.src.key((), "map")
            )
        self._check_unknown_keys(table, ("map",), _MAP_KEYS, "[map]")
        return table

    def _map_name(self, table: Mapping[str, Any]) -> str:
        name = table.get("name")
        if not isinstance(name, str):
            line = self.src.key(("map",), "name") or self.src.header(("map",))
            raise MapError('[map] needs a name in quotes, such as name = "The Ashen Reach"', line)
        return name

    def _rows(self, table: Mapping[str, Any]) -> tuple[str, ...]:
        rows = table.get("rows")
        rows_line = self.src.key(("map",), "rows")
        if rows is None:
            raise MapError(
                "[map] has no rows; add rows = [...] with one string of legend characters per row",
                self.src.header(("map",)),
            )
        if not isinstance(rows, list) or not all(isinstance(r, str) for r in rows):
            raise MapError(
                "rows must be a list of strings in quotes, one string of legend characters per row",
                rows_line,
            )
        if not rows:
            raise MapError(
                "rows is empty; the map needs at least one row of at least one square", rows_line
            )
        width = len(rows[0])
        if width == 0:
            raise MapError(
                "row 1 is empty; every row needs at least one square",
                self.src.array_string(("map",), "rows", 0),
            )
        for y, row in enumerate(rows):
            if len(row) != width:
                raise MapError(
                    f"row {y + 1} has {_squares(len(row))} but the first row has {width}; every "
                    f"row must be {width} squares wide",
                    self.src.array_string(("map",), "rows", y),
                )
        return tuple(rows)

    def _square_miles(self, table: Mapping[str, Any]) -> int:
        miles = table.get("square_miles", 6)
        if not is_whole_number(miles) or miles <= 0:
            raise MapError(
                f"square_miles is {miles!r} but it must be a whole number of miles greater than "
                "0, such as 6",
                self.src.key(("map",), "square_miles"),
            )
        return int(miles)

    def _legend(self) -> dict[str, Cell]:
        legend = self.doc.get("legend")
        if legend is None:
            raise MapError(
                "the map file has no [legend] table; add one saying what each row character is, "
                'such as "." = { terrain = "open" }'
            )
        if not isinstance(legend, dict):
            raise MapError(
                "legend must be a [legend] table of characters", self.src.key((), "legend")
            )
        return {key: self._cell(key, entry) for key, entry in legend.items()}

    def _cell(self, key: str, entry: object) -> Cell:
        entry_line = self.src.entry(("legend",), key)

        def fail(reason: str, field_name: str | None = None) -> MapError:
            line = None
            if field_name is not None:
                line = self.src.key(("legend", key), field_name)
            return MapError(f"legend entry {key!r} {reason}", line or entry_line)

        if len(key) != 1:
            raise MapError(
                f"legend key {key!r} must be exactly one character, the one drawn in the rows",
                entry_line,
            )
        if not isinstance(entry, dict):
            raise fail('must be a table such as { terrain = "open" }')
        for field_name in entry:
            if field_name not in _CELL_KEYS:
                raise fail(
                    f"has an unknown key {field_name!r}; the keys allowed there are "
                    f"{listing(_CELL_KEYS)}",
                    field_name,
                )
        allowed = listing(t.value for t in Terrain if t in self.terrains)
        terrain = entry.get("terrain")
        if terrain is None:
            raise fail(f"has no terrain; give it one of {allowed}")
        if not isinstance(terrain, str) or terrain not in {t.value for t in self.terrains}:
            raise fail(
                f"has terrain {terrain!r}, which this map cannot use; use one of {allowed}",
                "terrain",
            )
        name = entry.get("name")
        if name is not None and not isinstance(name, str):
            raise fail('has a name that is not in quotes; write it as name = "..."', "name")
        penalty = entry.get("penalty", 0)
        if not is_whole_number(penalty) or penalty < 0:
            raise fail(
                f"has penalty {penalty!r}; a penalty must be a whole number of 0 or more",
                "penalty",
            )
        road = entry.get("road", False)
        if not isinstance(road, bool):
            raise fail(f"has road {road!r}; road must be true or false", "road")
        return Cell(terrain=Terrain(terrain), name=name, penalty=penalty, road=road)

    def _rivers(self, width: int, height: int) -> tuple[River, ...]:
        raw = self.doc.get("river")
        if raw is None:
            return ()
        if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
            raise MapError("rivers must each be written as a [[river]] table",
                           self.src.key((), "river"))
        return tuple(self._river(index, entry, width, height) for index, entry in enumerate(raw))

    def _river(self, index: int, entry: Mapping[str, Any], width: int, height: int) -> River:
        header = self.src.header(("river",), index)

        def line_of(key: str) -> int | None:
            return self.src.key(("river",), key, index) or header

        self._check_unknown_keys(entry, ("river",), _RIVER_KEYS, "[[river]]", index)
        name = entry.get("name")
        if name is not None and (not isinstance(name, str) or not name.strip()
                                 or any(ord(ch) < 32 or ord(ch) == 127 for ch in name)):
            raise MapError('a [[river]] name must be plain words in quotes, such as '
                           'name = "Blue River"', line_of("name"))
        what = "a river" if name is None else f"river {name!r}"
        path = entry.get("path")
        if not isinstance(path, list) or len(path) < 2:
            raise MapError(f"{what} needs a path of at least two squares as [x, y] pairs, "
                           f"such as {_RIVER_EXAMPLE}", line_of("path"))
        squares: list[Square] = []
        for step in path:
            if not (isinstance(step, list) and len(step) == 2
                    and all(map(is_whole_number, step))):
                raise MapError(f"{what} has {step!r} in its path; write each square as "
                               f"[x, y] with whole numbers, such as {_RIVER_EXAMPLE}",
                               line_of("path"))
            sq = Square(step[0], step[1])
            if not (0 <= sq.x < width and 0 <= sq.y < height):
                raise MapError(f"{what} goes through square {sq.x},{sq.y}, which is off "
                               f"the map; squares run from 0,0 to {width - 1},{height - 1}",
                               line_of("path"))
            squares.append(sq)
        return River(name=name, path=tuple(squares))

    def _check_rows_in_legend(self, rows: tuple[str, ...], legend: Mapping[str, Cell]) -> None:
        known = listing(repr(k) for k in legend) or "nothing"
        for y, row in enumerate(rows):
            for x, ch in enumerate(row):
                if ch not in legend:
                    raise MapError(
                        f"character {ch!r} in row {y + 1}, column {x + 1} (square {x},{y}) is "
                        f"not in [legend], which defines {known}",
                        self.src.array_string(("map",), "rows", y),
                    )


def read_map(doc: Mapping[str, Any], positions: MapPositions, rules: MapRules) -> GameMap:
    """A map from a map file's tables (`doc`, as parsed), refusing anything unusable with the
    line at fault (`positions`): the terrain words and extra tables are the ones `rules` (a
    ruleset) declares."""
    return _Loader(doc, positions, rules).load()

"""Maps drawn in other tools, turned into Trek's TOML map text.

Each format module only parses: it turns a file's text into a `SourceMap` (a grid of source
words such as "forest") and says which fields it read and which it left alone. This package
then maps the words to the target's terrain words and writes the TOML of RULES §2/§6, which
the ordinary loaders check, so every rule on maps is applied in one place.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from domain.errors import MapError
from tracker.mapformats.terrains import check_overrides, is_colour, knows, resolve_terrains

Grid = Literal["square", "hex"]
Format = Literal["tiled", "textmapper", "uvtt"]

# A map larger than this is almost certainly a mistake (or a world map, not a travel map).
MAX_SIDE = 200

# The extensions each format is recognised by; `.json` is looked into (a Universal VTT file
# has a `resolution`, a Tiled map does not).
EXTENSIONS: dict[str, Format | None] = {
    ".tmx": "tiled",
    ".tmj": "tiled",
    ".json": None,
    ".txt": "textmapper",
    ".textmapper": "textmapper",
    ".dd2vtt": "uvtt",
    ".df2vtt": "uvtt",
    ".uvtt": "uvtt",
}
FORMAT_TITLES: dict[Format, str] = {
    "tiled": "Tiled",
    "textmapper": "Text Mapper",
    "uvtt": "Universal VTT",
}


@dataclass(frozen=True)
class SourceCell:
    """What the source says one cell is: its word, and the name and penalty it may give."""

    word: str
    name: str | None = None
    penalty: int = 0
    # Further words the source gives the cell (Text Mapper's `0203 hills river`); the first
    # word with a meaning names the terrain, a colour only when no other word has one.
    others: tuple[str, ...] = ()
    # A road runs through it (Text Mapper's `0101-0203 road`): overland maps keep it.
    road: bool = False


OPEN = SourceCell("open")


@dataclass(frozen=True)
class SourceDoor:
    """A door on the edges between squares (RULES §16): from grid point `start` to `end` in a
    straight line."""

    name: str
    start: tuple[int, int]
    end: tuple[int, int]
    closed: bool


@dataclass(frozen=True)
class SourceRiver:
    """A river the source draws (Text Mapper's `0102-0203 river`): its type word, its label,
    the cells it is drawn through in order, and every cell it runs through."""

    word: str
    name: str | None
    points: list[tuple[int, int]]
    cells: list[tuple[int, int]]


@dataclass
class SourceMap:
    """A parsed file: the grid of source cells and what the parser read and skipped."""

    format: Format
    name: str
    grid: Grid
    cells: list[list[SourceCell]]
    used: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    battle_only: bool = False
    # Rivers the source draws across its cells (Text Mapper's river lines).
    rivers: list[SourceRiver] = field(default_factory=list)
    # A picture the file carries (Universal VTT's `image`), and a cell's side in its pixels.
    picture: bytes | None = None
    pixels_per_square: float = 0.0
    # Walls and doors on the edges between squares (battle maps on squares only): each wall
    # its grid points, from point to point along the grid lines.
    walls: list[list[tuple[int, int]]] = field(default_factory=list)
    doors: list[SourceDoor] = field(default_factory=list)
    # The line each cell was given on, by (x, y), where the format has lines (for refusals).
    cell_lines: dict[tuple[int, int], int] = field(default_factory=dict)
    # Where each word is used, in words, where the format has no lines (Tiled: the tilesets it
    # comes from and the cells that have it), for refusals.
    word_places: dict[str, str] = field(default_factory=dict)

    @property
    def width(self) -> int:
        return len(self.cells[0])

    @property
    def height(self) -> int:
        return len(self.cells)


@dataclass(frozen=True)
class Target:
    """What the map is for: the terrain words allowed there and whether it is a battle map
    (battle maps carry `grid`; overland maps are squares and may carry penalties)."""

    words: frozenset[str]
    battle: bool


@dataclass
class Imported:
    """The TOML text written for a source file and the report shown to the GM."""

    toml: str
    report: dict[str, Any]
    picture: bytes | None = None
    pixels_per_square: float = 0.0


def format_of(filename: str, text: str) -> Format:
    """The format a file is in, from its extension (and, for `.json`, its top-level keys)."""
    suffix = "." + filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    if suffix not in EXTENSIONS:
        raise MapError(unread_extension(filename, suffix))
    found = EXTENSIONS[suffix]
    if found is not None:
        return found
    try:
        doc = json.loads(text)
    except ValueError:
        return "tiled"  # the Tiled parser explains the JSON error
    return "uvtt" if isinstance(doc, dict) and "resolution" in doc else "tiled"


def unread_extension(filename: str, suffix: str) -> str:
    """The refusal of a file whose extension Trek does not read, naming the ones it does."""
    known = ", ".join(sorted(EXTENSIONS))
    tiled = (" (a Tiled tileset: Trek reads it from beside the .tmx or .tmj map that uses "
             "it, so import the map)" if suffix in (".tsx", ".tsj") else "")
    return (f"Trek cannot tell what kind of map {filename!r} is{tiled}; it reads .toml maps "
            f"and imports {known} files")


def parse(fmt: Format, text: str, stem: str, *, grid: Grid | None = None,
          folder: Path | None = None) -> SourceMap:
    """The file's text as a SourceMap; a MapError gives the reason it cannot be read. `folder`:
    where the file is (files it names, such as a picture, are looked for there)."""
    from tracker.mapformats import textmapper, tiled, uvtt

    if fmt == "tiled":
        source = tiled.parse(text, stem, folder)
    elif fmt == "textmapper":
        source = textmapper.parse(text, stem, grid=grid or "hex")
    else:
        source = uvtt.parse(text, stem, folder)
    if grid is not None and fmt != "textmapper":
        source.ignored.append(f"--grid {grid} (the {FORMAT_TITLES[fmt]} file gives its grid)")
    return source


def convert(source: SourceMap, target: Target,
            overrides: Mapping[str, str] | None = None) -> Imported:
    """The Trek TOML text for a parsed map and the report of what was used and ignored."""
    title = FORMAT_TITLES[source.format]
    if source.battle_only and not target.battle:
        raise MapError(f"a {title} file is a battle map; use it with `trek encounter start "
                       "--map` or import it with --battle")
    overrides = overrides or {}
    check_overrides(overrides, target.words)
    ignored = list(source.ignored)
    source, extra = _chosen_words(source, target.words, overrides)
    if extra:
        ignored.append(f"{extra} further type words after a cell's terrain word")
    source, rivers = _rivers(source, target, overrides, ignored)
    words = _words_in_order(source)
    terrains = resolve_terrains(words, target.words, overrides, _word_lines(source),
                                source.word_places)
    source, unnamed = _fitting_names(source)
    if unnamed:
        ignored.append(f"the names of {unnamed} cells (more kinds of cell than legend "
                       "characters; each keeps its word)")
    grid: Grid = source.grid
    if grid == "hex" and not target.battle:
        ignored.append("the hex layout (overland maps are squares: each hex becomes the square "
                       "at its column and row)")
        grid = "square"
    keys = _legend_keys(source, terrains)
    lines = ["[map]", f"name = {toml_string(source.name)}"]
    if target.battle:
        lines.append(f"grid = {toml_string(grid)}")
    lines.append("rows = [")
    lines.extend(f"  {toml_string(''.join(keys[c] for c in row))},"
                 for row in source.cells)
    lines += ["]", "", "[legend]"]
    dropped_penalty = dropped_road = False
    for cell, key in keys.items():
        parts = [f"terrain = {toml_string(terrains[cell.word])}",
                 f"name = {toml_string(cell.name or cell.word)}"]
        if cell.penalty:
            if target.battle:
                dropped_penalty = True
            else:
                parts.append(f"penalty = {cell.penalty}")
        if cell.road:
            if target.battle:
                dropped_road = True
            else:
                parts.append("road = true")
        lines.append(f"{toml_string(key)} = {{ {', '.join(parts)} }}")
    if dropped_penalty:
        ignored.append("tile penalties (battle maps have no penalty key)")
    if dropped_road:
        ignored.append("roads (battle maps have no road key)")
    lines += rivers
    for wall in source.walls:
        points = ", ".join(f"[{x}, {y}]" for x, y in wall)
        lines += ["", "[[wall]]", f"points = [{points}]"]
    for door in source.doors:
        lines += ["", "[[door]]", f"from = [{door.start[0]}, {door.start[1]}]",
                  f"to = [{door.end[0]}, {door.end[1]}]", f"name = {toml_string(door.name)}",
                  f"closed = {'true' if door.closed else 'false'}"]
    report: dict[str, Any] = {
        "format": source.format,
        "grid": grid,
        "width": source.width,
        "height": source.height,
        "used": list(source.used),
        "ignored": ignored,
        "terrains": {word: terrains[word] for word in words},
        "walls": len(source.walls),
        "doors": len(source.doors),
        "wrote": None,
    }
    return Imported(toml="\n".join(lines) + "\n", report=report, picture=source.picture,
                    pixels_per_square=source.pixels_per_square)


def _chosen_words(source: SourceMap, allowed: frozenset[str],
                  overrides: Mapping[str, str]) -> tuple[SourceMap, int]:
    """The source with each cell down to one word: the first with a meaning that is not a
    colour, else the first colour with one, and how many further words were left out. A Text
    Mapper hex with only colours none of which has a meaning is open ground (Text Mapper draws
    them as its fill, never as what is there). When no word has a meaning, the cell keeps the
    word another such cell also names, so a refusal asks for as few words as it can."""
    extra = 0
    unplaced: Counter[str] = Counter()
    for row in source.cells:
        for cell in row:
            named = [w for w in (cell.word, *cell.others) if not is_colour(w)]
            if named and not any(knows(w, allowed, overrides) for w in named):
                unplaced[named[0]] += 1
    rows: list[list[SourceCell]] = []
    for row in source.cells:
        new_row: list[SourceCell] = []
        for cell in row:
            words = (cell.word, *cell.others)
            if not cell.others and not (source.format == "textmapper" and is_colour(cell.word)):
                new_row.append(cell)
                continue
            types = [w for w in words if not is_colour(w)]
            colours = [w for w in words if is_colour(w)]
            known = [w for w in [*types, *colours] if knows(w, allowed, overrides)]
            if known:
                word = known[0]
            elif types:
                # Its own first word counts once for itself: another cell's vote decides.
                word = max(types, key=lambda w: unplaced[w] - (w == types[0]))
            else:
                word = "open" if source.format == "textmapper" else words[0]
            extra += len(words) - 1
            new_row.append(replace(cell, word=word, others=()))
        rows.append(new_row)
    return replace(source, cells=rows), extra


def _rivers(source: SourceMap, target: Target, overrides: Mapping[str, str],
            ignored: list[str]) -> tuple[SourceMap, list[str]]:
    """The source with the cells its rivers run through given the river's terrain where
    --terrain names one, and the `[[river]]` tables drawing them on an overland map."""
    if not source.rivers:
        return source, []
    folded = {word.casefold(): word for word in overrides}
    rows = [list(row) for row in source.cells]
    marked = 0
    for river in source.rivers:
        if river.word.casefold() in folded:
            for x, y in river.cells:
                rows[y][x] = SourceCell(folded[river.word.casefold()],
                                        name=river.name or rows[y][x].name,
                                        road=rows[y][x].road)
                marked += 1
    if marked:
        source = replace(source, cells=rows)
    if target.battle:
        ignored.append(f"{len(source.rivers)} rivers as lines (battle maps draw none; "
                       "--terrain river=TERRAIN gives their hexes a terrain)")
        return source, []
    tables: list[str] = []
    for river in source.rivers:
        path = ", ".join(f"[{x}, {y}]" for x, y in river.points)
        tables += ["", "[[river]]"]
        if river.name is not None:
            tables.append(f"name = {toml_string(river.name)}")
        tables.append(f"path = [{path}]")
    return source, tables


def _fitting_names(source: SourceMap) -> tuple[SourceMap, int]:
    """The source as it is when every kind of cell (word, name, penalty, road) can have its own
    legend character; else with the names dropped (each cell keeps its word), and how many
    named cells lost theirs."""
    kinds = {cell for row in source.cells for cell in row}
    if len(kinds) <= _SPARE_COUNT:
        return source, 0
    lost = sum(1 for row in source.cells for cell in row if cell.name is not None)
    rows = [[replace(cell, name=None) for cell in row] for row in source.cells]
    return replace(source, cells=rows), lost


def _word_lines(source: SourceMap) -> dict[str, list[int]]:
    """The lines each cell's chosen word was given on, in order."""
    found: dict[str, list[int]] = {}
    for (x, y), line in sorted(source.cell_lines.items(), key=lambda item: item[1]):
        found.setdefault(source.cells[y][x].word, []).append(line)
    return found


def _words_in_order(source: SourceMap) -> list[str]:
    seen: dict[str, None] = {}
    for row in source.cells:
        for cell in row:
            seen.setdefault(cell.word)
    return list(seen)


# Legend characters handed out when a word's own initial is taken; none needs quoting care.
_SPARE_KEYS = "#~^%&*+=-:;!?$0123456789" + "abcdefghijklmnopqrstuvwxyz".upper()
# How many legend characters are always there to hand out: `.` and the spares.
_SPARE_COUNT = len(set(_SPARE_KEYS + "abcdefghijklmnopqrstuvwxyz."))


def _legend_keys(source: SourceMap, terrains: Mapping[str, str]) -> dict[SourceCell, str]:
    """One legend character per distinct source cell: `.` for open ground, `#` for walls,
    otherwise the word's initial where it is free, so the rows stay readable."""
    keys: dict[SourceCell, str] = {}
    taken: set[str] = set()
    for row in source.cells:
        for cell in row:
            if cell in keys:
                continue
            terrain = terrains[cell.word]
            preferred = []
            if cell.word.casefold() == "open" and not cell.penalty and not cell.road:
                preferred.append(".")
            if terrain == "wall":
                preferred.append("#")
            initial = (cell.name or cell.word)[:1]
            preferred += [initial.lower(), initial.upper()]
            choice = next((k for k in preferred if k.isprintable() and k.strip()
                           and k not in taken), None)
            if choice is None:
                choice = next((k for k in _SPARE_KEYS + "abcdefghijklmnopqrstuvwxyz"
                               if k not in taken), None)
            if choice is None:
                raise MapError("the map has more different kinds of cell than Trek has legend "
                               "characters for (about 60); merge some with --terrain")
            keys[cell] = choice
            taken.add(choice)
    return keys


def toml_string(value: str) -> str:
    """A TOML basic string: quotes, backslashes and every control character escaped."""
    out = ['"']
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def check_size(width: int, height: int, line: int | None = None) -> None:
    """Refuse an empty map or one beyond MAX_SIDE cells a side."""
    if width < 1 or height < 1:
        raise MapError(f"the map is {width}×{height} cells; it needs at least one cell", line)
    if width > MAX_SIDE or height > MAX_SIDE:
        raise MapError(f"the map is {width}×{height} cells, larger than Trek imports "
                       f"({MAX_SIDE}×{MAX_SIDE} at most)", line)


def json_object(text: str, title: str) -> dict[str, Any]:
    """A JSON map file's top-level object; `title` names the format in the refusal ("the Tiled
    map")."""
    try:
        doc = json.loads(text)
    except ValueError as error:
        raise MapError(f"{title} is not valid JSON ({error})") from None
    if not isinstance(doc, dict):
        raise MapError(f"{title} is not a JSON object")
    return doc

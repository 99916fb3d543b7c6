"""Battle maps: the map format with a grid (squares or hexes) and the legend words of the
encounter's ruleset, checked at load with the line and the reason (the file's tables and their
lines are read by tracker/mapformats/tomlfile.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.errors import MapError
from domain.maps import MapPositions, is_whole_number, listing

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


@dataclass(frozen=True)
class LegendSpec:
    """The legend a ruleset's battle maps may use: its terrain words, the extra keys an entry
    may carry (`wall` is always allowed), and the extra keys of the [map] table."""

    words: frozenset[str]
    keys: Mapping[str, Check] = field(default_factory=dict)
    map_keys: Mapping[str, Check] = field(default_factory=dict)
    # Extra keys allowed only on some words (e.g. a cost only on some ground).
    only_on: Mapping[str, frozenset[str]] = field(default_factory=dict)


def read_battle_map(doc: Mapping[str, Any], src: MapPositions, spec: LegendSpec
                    ) -> dict[str, Any]:
    """The battle map of a map file's tables (`doc`, as parsed) as a plain document; a MapError
    names the line (`src`) and the reason."""
    for key in doc:
        if key not in ("map", "legend"):
            raise MapError(f"a battle map has an unknown table {key!r}; it takes [map] and "
                           "[legend]", src.entry((), key))
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
    return document

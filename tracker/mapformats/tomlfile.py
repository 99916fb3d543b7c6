"""Trek's own map files: TOML text read into the plain values the map checks take
(domain/maps.py, domain/battlemap.py), with where each part of the text sits, so that every
refusal names its line."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from domain.battlemap import LegendSpec, read_battle_map
from domain.errors import MapError
from domain.maps import GameMap, MapRules, read_map


def read_toml(text: str) -> tuple[dict[str, Any], TomlPositions]:
    """A map file's tables as tomllib reads them, and where each part sits in its text; text
    that is not TOML is refused on the line tomllib names."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_error(exc, text) from None
    return doc, TomlPositions(text)


def load_map(text: str, rules: MapRules) -> GameMap:
    """Read an overland map from its TOML text, refusing anything unusable with the line at
    fault: the terrain words and extra tables are the ones `rules` (a ruleset) declares. Its
    picture keys are checked here and left to the caller (`picture_request`)."""
    doc, positions = read_toml(text)
    take_picture(doc, positions)
    return read_map(doc, positions, rules)


def load_battle_map(text: str, spec: LegendSpec) -> dict[str, Any]:
    """The battle map as a plain document; a MapError names the line and the reason."""
    doc, positions = read_toml(text)
    take_picture(doc, positions)
    return read_battle_map(doc, positions, spec)


# The [map] keys that place a picture under the grid; the command that reads the file reads
# the picture itself (tracker/mapformats/picture.py) and puts its hash in the map.
PICTURE_KEYS = ("image", "pixels_per_square", "origin")


@dataclass(frozen=True)
class PictureRequest:
    """What a map file says of its picture: the file (beside the map), a cell's side in the
    picture's pixels and the pixel of cell 0,0's top-left corner."""

    file: str
    pixels_per_square: float
    origin: tuple[float, float]


def picture_request(text: str) -> PictureRequest | None:
    """The picture a TOML map names, or None; a MapError names the line and the reason."""
    doc, positions = read_toml(text)
    return take_picture(doc, positions)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value \
        and abs(value) != float("inf")


def take_picture(doc: dict[str, Any], positions: TomlPositions) -> PictureRequest | None:
    """Check and take the picture keys out of the [map] table of `doc`."""
    table = doc.get("map")
    if not isinstance(table, dict) or not any(k in table for k in PICTURE_KEYS):
        return None
    found = {k: table.pop(k) for k in PICTURE_KEYS if k in table}

    def line(key: str) -> int | None:
        return positions.key(("map",), key)

    image = found.get("image")
    if image is None:
        key = next(iter(found))
        raise MapError(f"[map] {key} goes with image, the picture file under the grid",
                       line(key))
    if not isinstance(image, str) or not image.strip() or not image.isprintable():
        raise MapError('[map] image must be the picture file\'s name in quotes, such as '
                       '"vale.webp"', line("image"))
    size = found.get("pixels_per_square")
    if size is None:
        raise MapError("[map] image needs pixels_per_square, the side of a cell in the "
                       "picture's pixels", line("image"))
    if not _number(size) or not 1 <= size <= 16_384:
        raise MapError("[map] pixels_per_square must be a number from 1 to 16384 (the side "
                       "of a cell in the picture's pixels)", line("pixels_per_square"))
    origin = found.get("origin", [0, 0])
    if (not isinstance(origin, list) or len(origin) != 2
            or not all(_number(v) and abs(v) <= 16_384 for v in origin)):
        raise MapError("[map] origin must be two numbers such as [0, 0], the pixel of cell "
                       "0,0's top-left corner in the picture", line("origin"))
    return PictureRequest(image, float(size), (float(origin[0]), float(origin[1])))


# ---------------------------------------------------------------------------------------------
# Finding lines in the TOML text.
#
# tomllib hands back plain values with no positions, so semantic errors are located by reading
# the source again, just well enough to know which table each line belongs to and where each
# key and each string in an array starts. Anything it cannot place gets no line number rather
# than a wrong one.

_BASIC = r'"(?:[^"\\\n]|\\.)*"'
_LITERAL = r"'[^'\n]*'"
_SIMPLE_KEY = rf"(?:{_BASIC}|{_LITERAL}|[A-Za-z0-9_-]+)"
_DOTTED_KEY = rf"{_SIMPLE_KEY}(?:\s*\.\s*{_SIMPLE_KEY})*"
_HEADER_RE = re.compile(rf"\s*(\[\[?)\s*({_DOTTED_KEY})\s*\]\]?\s*(?:#.*)?$")
_KEY_RE = re.compile(rf"\s*({_DOTTED_KEY})\s*=")
_TOML_POSITION_RE = re.compile(r"\s*\(at (?:line (\d+), column \d+|end of document)\)$")


def _key_path(raw: str) -> tuple[str, ...] | None:
    # Letting tomllib decode the key handles quoting and escapes exactly as the real parse did.
    try:
        node: Any = tomllib.loads(f"{raw} = 0")
    except tomllib.TOMLDecodeError:
        return None
    path: list[str] = []
    while isinstance(node, dict) and len(node) == 1:
        ((key, node),) = node.items()
        path.append(key)
    return tuple(path)


@dataclass
class _Section:
    path: tuple[str, ...]
    index: int
    header_line: int | None
    last_line: int = 0
    keys: dict[str, int] = field(default_factory=dict)
    array_strings: dict[str, list[int]] = field(default_factory=dict)


class TomlPositions:
    """Where tables, keys and array strings sit in a TOML text that tomllib has accepted (the
    `MapPositions` of domain/maps.py)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        root = _Section(path=(), index=0, header_line=None)
        self.sections: list[_Section] = [root]
        self._current = root
        self._key: str | None = None
        self._depth = 0
        self._multiline: str | None = None
        for lineno, line in enumerate(self.lines, start=1):
            self._read_line(lineno, line)
        self._current.last_line = len(self.lines)

    def _read_line(self, lineno: int, line: str) -> None:
        if self._depth == 0 and self._multiline is None:
            header = _HEADER_RE.match(line)
            if header is not None:
                self._open_section(lineno, header.group(1) == "[[", header.group(2))
                return
            key = _KEY_RE.match(line)
            if key is not None:
                path = _key_path(key.group(1))
                self._key = path[0] if path else None
                if self._key is not None:
                    self._current.keys.setdefault(self._key, lineno)
                self._scan_value(lineno, line, key.end())
                return
        self._scan_value(lineno, line, 0)

    def _open_section(self, lineno: int, is_array: bool, raw: str) -> None:
        path = _key_path(raw) or ()
        index = 0
        if is_array:
            index = sum(1 for s in self.sections if s.path == path and s.header_line is not None)
        self._current.last_line = lineno - 1
        self._current = _Section(path=path, index=index, header_line=lineno)
        self.sections.append(self._current)
        self._key = None

    def _scan_value(self, lineno: int, line: str, pos: int) -> None:
        # Tracks bracket depth and strings (including multi-line ones) so that a `[` or `#`
        # inside a row string is never mistaken for structure.
        n = len(line)
        while pos < n:
            if self._multiline is not None:
                end = line.find(self._multiline, pos)
                if end < 0:
                    return
                pos = end + 3
                while pos < n and line[pos] == self._multiline[0]:
                    pos += 1
                self._multiline = None
                continue
            ch = line[pos]
            if ch == "#":
                return
            if ch in "[{":
                self._depth += 1
            elif ch in "]}":
                self._depth = max(0, self._depth - 1)
            elif ch in "\"'":
                if self._depth == 1 and self._key is not None:
                    self._current.array_strings.setdefault(self._key, []).append(lineno)
                if line.startswith(ch * 3, pos):
                    self._multiline = ch * 3
                    pos += 3
                    continue
                pos += 1
                while pos < n and line[pos] != ch:
                    pos += 2 if ch == '"' and line[pos] == "\\" else 1
            pos += 1

    def section(self, path: tuple[str, ...], index: int = 0) -> _Section | None:
        for s in self.sections:
            if s.path == path and s.index == index:
                return s
        return None

    def header(self, path: tuple[str, ...], index: int = 0) -> int | None:
        s = self.section(path, index)
        return s.header_line if s is not None else None

    def key(self, path: tuple[str, ...], key: str, index: int = 0) -> int | None:
        s = self.section(path, index)
        return s.keys.get(key) if s is not None else None

    def entry(self, path: tuple[str, ...], key: str, index: int = 0) -> int | None:
        """The line of `key = ...` in a table, or of the `[path.key]` header that opens it."""
        found = self.key(path, key, index)
        return found if found is not None else self.header((*path, key))

    def array_string(self, path: tuple[str, ...], key: str, position: int) -> int | None:
        s = self.section(path)
        if s is None:
            return None
        lines = s.array_strings.get(key, [])
        return lines[position] if position < len(lines) else s.keys.get(key)

    def search(self, path: tuple[str, ...], index: int, pattern: re.Pattern[str],
               start: int) -> int | None:
        section = self.section(path, index)
        if section is None:
            return None
        for lineno in range(start, section.last_line + 1):
            if pattern.search(self.lines[lineno - 1]):
                return lineno
        return None




def toml_error(exc: tomllib.TOMLDecodeError, text: str) -> MapError:
    """tomllib's refusal of a map file, in Trek's words and on its line."""
    message = str(exc)
    position = _TOML_POSITION_RE.search(message)
    line: int | None = None
    if position is not None:
        message = message[: position.start()]
        if position.group(1) is not None:
            line = int(position.group(1))
        else:
            line = max(1, len(text.splitlines()))
    detail = message[:1].lower() + message[1:]
    if detail == "illegal character '\\n'":
        # tomllib's wording for a string whose closing quote is missing.
        detail = "a string in quotes is not closed before the end of the line"
    return MapError(
        f"the map file is not valid TOML ({detail}); check the quotes, brackets, commas and "
        "equals signs here",
        line,
    )

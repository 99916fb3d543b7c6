"""Tiled JSON maps (`.tmj`): tile layers of gids, terrain from embedded tilesets' properties."""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from domain.errors import MapError
from tracker.mapformats import OPEN, Grid, SourceCell, SourceMap, check_size, json_object

# The top bits of a gid say how the tile is flipped or rotated; they are not part of its id.
_FLIP_BITS = 0xF0000000
_USED_TOP = {"orientation", "width", "height", "layers", "tilesets", "properties",
             "staggeraxis", "staggerindex", "infinite"}


@dataclass(frozen=True)
class _Tileset:
    firstgid: int
    count: int | None
    cells: dict[int, SourceCell]


def _fail(reason: str) -> MapError:
    return MapError(f"the Tiled map {reason}")


def _int(value: object, what: str, low: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise _fail(f"has {what} {value!r}; it must be a whole number of at least {low}")
    return value


def _properties(raw: object, where: str) -> dict[str, object]:
    """Tiled writes properties as a list of {name, type, value}; older files as a table."""
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return dict(raw)
    if not isinstance(raw, list):
        raise _fail(f"has properties on {where} that are neither a list nor a table")
    found: dict[str, object] = {}
    for prop in raw:
        if not isinstance(prop, dict) or not isinstance(prop.get("name"), str):
            raise _fail(f"has a property on {where} without a name")
        found[prop["name"]] = prop.get("value")
    return found


def _tile_cell(props: dict[str, object], where: str, word: str | None = None
               ) -> SourceCell | None:
    """The tile's cell: its `terrain` property, else `word` (its class, or its terrain set's
    colour); None when it has neither."""
    terrain = props.get("terrain", word)
    if terrain is None:
        return None
    if not isinstance(terrain, str) or not terrain.strip():
        raise _fail(f"gives {where} a terrain property that is not text")
    name = props.get("name")
    if name is not None and not isinstance(name, str):
        raise _fail(f"gives {where} a name property that is not text")
    penalty = props.get("penalty", 0)
    penalty = _int(penalty, f"penalty on {where}")
    return SourceCell(terrain.strip(), name=name or None, penalty=penalty)


_EMBED = ("embed it in Tiled (the Embed Tileset button of the Tilesets panel) or export "
          "with `tiled --embed-tilesets`")


def _external(raw: dict[str, Any], folder: Path | None) -> dict[str, Any]:
    """An external tileset read from beside the map (JSON: `.tsj` or `.json`), as if it
    were embedded with the map's `firstgid`."""
    source = raw["source"]
    if not isinstance(source, str) or not source.strip():
        raise _fail("has an external tileset whose source is not a file name")
    suffix = Path(source).suffix.lower()
    if suffix not in (".tsj", ".json"):
        raise _fail(f"uses the external tileset {source!r}, which is not JSON; save it as a "
                    f".tsj beside the map, or {_EMBED}")
    path = (folder or Path(".")) / source
    try:
        if folder is None:
            raise OSError("no folder to look in")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise _fail(f"uses the external tileset {source!r}, which Trek cannot read beside the "
                    f"map ({path}); put it there, or {_EMBED}") from None
    tileset = json_object(text, f"the tileset {source!r}")
    return {**tileset, "firstgid": raw.get("firstgid")}


def _class_of(tile: dict[str, Any]) -> str | None:
    """A tile's class (`class` since Tiled 1.9, `type` before)."""
    for key in ("class", "type"):
        value = tile.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _wang_words(raw: dict[str, Any], index: int) -> dict[int, str]:
    """Each tile's word from the tileset's terrain sets (Tiled's Wang sets): the colour named
    most often among its corners and edges (the first such in the tile's own order on a tie)."""
    words: dict[int, str] = {}
    wangsets = raw.get("wangsets", [])
    if not isinstance(wangsets, list):
        raise _fail(f"has wangsets in tileset {index + 1} that are not a list")
    for wangset in wangsets:
        if not isinstance(wangset, dict):
            continue
        colours = [c.get("name") if isinstance(c, dict) else None
                   for c in wangset.get("colors", [])]
        for tile in wangset.get("wangtiles", []):
            if not isinstance(tile, dict) or not isinstance(tile.get("wangid"), list):
                continue
            ids = [i for i in tile["wangid"] if isinstance(i, int) and 0 < i <= len(colours)]
            if not ids:
                continue
            best = max(ids, key=lambda i: (ids.count(i), -ids.index(i)))
            name = colours[best - 1]
            tile_id = tile.get("tileid")
            if isinstance(name, str) and name.strip() and isinstance(tile_id, int):
                words.setdefault(tile_id, name.strip())
    return words


def _tileset(raw: object, index: int, folder: Path | None = None) -> _Tileset:
    if not isinstance(raw, dict):
        raise _fail(f"has tileset {index + 1} that is not a JSON object")
    if "source" in raw:
        raw = _external(raw, folder)
    firstgid = _int(raw.get("firstgid"), f"firstgid in tileset {index + 1}", 1)
    count = raw.get("tilecount")
    if count is not None:
        count = _int(count, f"tilecount in tileset {index + 1}")
    tiles = raw.get("tiles", [])
    if not isinstance(tiles, list):
        raise _fail(f"has tiles in tileset {index + 1} that are not a list")
    cells: dict[int, SourceCell] = {}
    wang = _wang_words(raw, index)
    for tile in tiles:
        if not isinstance(tile, dict):
            raise _fail(f"has a tile in tileset {index + 1} that is not a JSON object")
        tile_id = _int(tile.get("id"), f"a tile id in tileset {index + 1}")
        where = f"tile {tile_id} of tileset {index + 1}"
        cell = _tile_cell(_properties(tile.get("properties"), where), where,
                          _class_of(tile) or wang.get(tile_id))
        if cell is not None:
            cells[tile_id] = cell
    # Tiles that only a terrain set names have no entry in `tiles`.
    for tile_id, word in wang.items():
        cells.setdefault(tile_id, SourceCell(word))
    return _Tileset(firstgid, count, cells)


def _gids(layer: dict[str, Any], name: str, size: int) -> list[int]:
    data = layer.get("data")
    encoding = layer.get("encoding", "csv")
    if encoding == "base64":
        gids = _base64_gids(data, layer.get("compression", ""), name, size)
    elif encoding == "csv":
        if isinstance(data, str):
            try:
                gids = [int(part) for part in data.replace("\n", "").split(",") if part.strip()]
            except ValueError:
                raise _fail(f"has layer {name!r} whose CSV data is not whole numbers") from None
        elif isinstance(data, list):
            gids = data
        else:
            raise _fail(f"has layer {name!r} without data (an infinite map's chunks are not "
                        "read; untick Infinite in Tiled's map properties)")
    else:
        raise _fail(f"has layer {name!r} with encoding {encoding!r}; Trek reads csv and base64")
    if len(gids) != size:
        raise _fail(f"has layer {name!r} with {len(gids)} tiles but the map is {size} cells")
    for gid in gids:
        if not isinstance(gid, int) or isinstance(gid, bool) or not 0 <= gid < 2**32:
            raise _fail(f"has layer {name!r} with the tile {gid!r}, which is not a gid")
    return [gid & ~_FLIP_BITS for gid in gids]


def _base64_gids(data: object, compression: object, name: str, size: int) -> list[int]:
    if not isinstance(data, str):
        raise _fail(f"has layer {name!r} whose base64 data is not text")
    # Never inflate more than the layer can hold (plus one byte to notice a longer one).
    limit = 4 * size + 1
    try:
        raw = base64.b64decode(data, validate=True)
        if compression in ("zlib", "gzip"):
            inflater = zlib.decompressobj(wbits=15 if compression == "zlib" else 31)
            raw = inflater.decompress(raw, limit)
        elif compression not in ("", None):
            raise _fail(f"has layer {name!r} compressed with {compression!r}; Trek reads "
                        "uncompressed, zlib or gzip base64 (or CSV)")
    except (binascii.Error, zlib.error):
        raise _fail(f"has layer {name!r} whose base64 data cannot be decoded") from None
    if len(raw) % 4 or len(raw) > 4 * size:
        raise _fail(f"has layer {name!r} whose base64 data is not {size} 4-byte gids")
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


def _tile_layers(layers: object, out: list[dict[str, Any]], skipped: list[str]) -> None:
    """Tile layers in drawing order (bottom first), group layers opened; a layer hidden in
    Tiled (with everything in it, for a group) is left out, as the GM does not see it."""
    if not isinstance(layers, list):
        raise _fail("has layers that are not a list")
    for layer in layers:
        if not isinstance(layer, dict):
            raise _fail("has a layer that is not a JSON object")
        kind = layer.get("type")
        if layer.get("visible", True) is False:
            skipped.append("hidden")
            continue
        if kind == "tilelayer":
            out.append(layer)
        elif kind == "group":
            _tile_layers(layer.get("layers", []), out, skipped)
        else:
            skipped.append(str(kind))


def _grid(doc: dict[str, Any]) -> tuple[Grid, bool]:
    """The grid, and whether the columns must move one right (Tiled's even stagger)."""
    orientation = doc.get("orientation", "orthogonal")
    if orientation == "orthogonal":
        return "square", False
    if orientation != "hexagonal":
        raise _fail(f"is {orientation!r}; Trek imports orthogonal and hexagonal maps")
    if doc.get("staggeraxis", "y") != "x":
        raise _fail("has pointy-topped hexes (staggeraxis y); Trek's hexes are flat-topped "
                    "columns (staggeraxis x), so redraw it with Stagger Axis X")
    index = doc.get("staggerindex", "odd")
    if index not in ("odd", "even"):
        raise _fail(f"has staggerindex {index!r}; it must be odd or even")
    return "hex", index == "even"


def parse(text: str, stem: str, folder: Path | None = None) -> SourceMap:
    """The map's cells: the top-most tile layer whose tile has a word wins. A tile's word is
    its `terrain` property, else its class, else the colour its terrain set gives it most;
    `folder`: where the map is, for external tilesets beside it."""
    doc = json_object(text, "the Tiled map")
    if doc.get("infinite") is True:
        raise _fail("is infinite; Trek needs a fixed size (untick Infinite in Tiled's map "
                    "properties)")
    width = _int(doc.get("width"), "width", 1)
    height = _int(doc.get("height"), "height", 1)
    check_size(width, height)
    grid, shift = _grid(doc)
    raw_tilesets = doc.get("tilesets", [])
    if not isinstance(raw_tilesets, list):
        raise _fail("has tilesets that are not a list")
    tilesets = sorted((_tileset(t, i, folder) for i, t in enumerate(raw_tilesets)),
                      key=lambda t: t.firstgid)
    layers: list[dict[str, Any]] = []
    skipped: list[str] = []
    _tile_layers(doc.get("layers"), layers, skipped)
    if not layers:
        raise _fail("has no tile layers")
    cells = [[OPEN] * width for _ in range(height)]
    for layer in layers:
        name = str(layer.get("name", "?"))
        for i, gid in enumerate(_gids(layer, name, width * height)):
            if gid == 0:
                continue
            cell = _cell_of(gid, tilesets, name)
            if cell is not None:
                cells[i // width][i % width] = cell
    map_name = _properties(doc.get("properties"), "the map").get("name")
    used = ["width", "height", "orientation", "tile layers (data, encoding, compression)",
            "tilesets, embedded or JSON beside the map (firstgid, tilecount, tiles[].properties "
            "terrain, name and penalty; else a tile's class, else its terrain set's colour)"]
    if grid == "hex":
        used.append("staggeraxis and staggerindex")
    if isinstance(map_name, str) and map_name.strip():
        used.append("the map property name")
    else:
        map_name = stem
    ignored = sorted(k for k in doc if k not in _USED_TOP)
    ignored += [f"{kind} layers" for kind in sorted(set(skipped))]
    ignored.append("tile images, flips and other tile properties")
    if shift:
        # Tiled's even stagger pushes even columns down; one open column on the left makes
        # every column one further right, so the pushed-down ones are odd as Trek draws them.
        cells = [[OPEN, *row] for row in cells]
        check_size(width + 1, height)
        used.append("staggerindex even: an open column was added on the left so the shifted "
                    "columns are odd as Trek draws them (Tiled column c is Trek column c+1)")
    return SourceMap(format="tiled", name=str(map_name), grid=grid, cells=cells, used=used,
                     ignored=ignored)


def _cell_of(gid: int, tilesets: list[_Tileset], layer: str) -> SourceCell | None:
    owner = None
    for tileset in tilesets:
        if tileset.firstgid <= gid:
            owner = tileset
    local = gid - owner.firstgid if owner is not None else -1
    if owner is None or (owner.count is not None and local >= owner.count):
        raise _fail(f"has layer {layer!r} with the tile gid {gid}, which is in no tileset")
    return owner.cells.get(local)

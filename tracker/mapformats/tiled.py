"""Tiled maps (`.tmx`, `.tmj`): tile layers of gids, each tile's word from its tileset (its
`terrain` property, class, a true property or its terrain set), external tilesets read from
beside the map. XML files come through tmx.py in the shape of Tiled's JSON."""

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
    # Where each tile's word comes from ("the class of tiles in tileset 'Ground'"), for the
    # refusal that asks what the words are.
    origins: dict[int, str]
    # What the tileset has that Trek leaves out (terrains saved by Tiled before 1.5).
    notes: list[str]


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


_OWN_PROPERTIES = ("terrain", "name", "penalty")


def _tile_word(tile: dict[str, Any], props: dict[str, object], where: str,
               wang: tuple[str, str] | None) -> tuple[str, str] | None:
    """A tile's word and where it comes from: its `terrain` property, else its class, else
    the first of its properties set true (`water`, `collides`; older files write "true" as
    text), else the terrain its terrain set gives it; None when it has none of these."""
    terrain = props.get("terrain")
    if terrain is not None:
        if not isinstance(terrain, str) or not terrain.strip():
            raise _fail(f"gives {where} a terrain property that is not text")
        return terrain.strip(), "the terrain property of tiles"
    kind = _class_of(tile)
    if kind is not None:
        return kind, "the class of tiles"
    flag = next((k for k, v in props.items() if k.strip() and k not in _OWN_PROPERTIES
                 and (v is True or (isinstance(v, str) and v.strip().lower() == "true"))),
                None)
    if flag is not None:
        return flag.strip(), f"the property {flag.strip()!r} of tiles"
    if wang is not None:
        return wang[0], f"terrain set {wang[1]!r}"
    return None


def _tile_cell(props: dict[str, object], where: str, word: str) -> SourceCell:
    """The tile's cell: its word, with the name and penalty its properties give it."""
    name = props.get("name")
    if name is not None and not isinstance(name, str):
        raise _fail(f"gives {where} a name property that is not text")
    penalty = props.get("penalty", 0)
    penalty = _int(penalty, f"penalty on {where}")
    return SourceCell(word, name=name or None, penalty=penalty)


_EMBED = ("embed it in Tiled (the Embed Tileset button of the Tilesets panel) or export "
          "with `tiled --embed-tilesets`")


def _external(raw: dict[str, Any], folder: Path | None) -> dict[str, Any]:
    """An external tileset read from beside the map (`.tsx`, `.tsj` or `.json`), as if it
    were embedded with the map's `firstgid`."""
    source = raw["source"]
    if not isinstance(source, str) or not source.strip():
        raise _fail("has an external tileset whose source is not a file name")
    path = (folder or Path(".")) / source
    try:
        if folder is None:
            raise OSError("no folder to look in")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise _fail(f"uses the external tileset {source!r}, which Trek cannot read beside the "
                    f"map ({path}); put it there, or {_EMBED}") from None
    text = text.lstrip("\ufeff")
    if text.lstrip().startswith("<"):
        from tracker.mapformats import tmx

        tileset = tmx.tileset_document(text, source)
    else:
        tileset = json_object(text, f"the tileset {source!r}")
    return {**tileset, "firstgid": raw.get("firstgid")}


def _class_of(tile: dict[str, Any]) -> str | None:
    """A tile's class (`class` since Tiled 1.9, `type` before)."""
    for key in ("class", "type"):
        value = tile.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _wang_words(raw: dict[str, Any], label: str, notes: list[str]
                ) -> dict[int, tuple[str, str]]:
    """Each tile's word from the tileset's terrain sets (Tiled's Wang sets), with the set's
    name: the terrain named most often among its corners and edges (the first such in the
    tile's own order on a tie); a terrain without a name is called by its set's. Terrain sets
    and terrains from before Tiled 1.5 are noted as left out."""
    words: dict[int, tuple[str, str]] = {}
    wangsets = raw.get("wangsets", [])
    if not isinstance(wangsets, list):
        raise _fail(f"has wangsets in {label} that are not a list")
    if raw.get("terrains"):
        notes.append(f"the terrains of {label} (saved by a Tiled before 1.5; open and save "
                     "the tileset in a newer Tiled to make them a terrain set)")
    for wangset in wangsets:
        if not isinstance(wangset, dict):
            continue
        set_name = str(wangset.get("name") or "").strip()
        if "colors" not in wangset and ("cornercolors" in wangset or "edgecolors" in wangset):
            notes.append(f"terrain set {set_name!r} of {label} (saved by a Tiled before 1.5; "
                         "open and save the tileset in a newer Tiled)")
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
            word = name.strip() if isinstance(name, str) and name.strip() else set_name
            tile_id = tile.get("tileid")
            if word and isinstance(tile_id, int):
                words.setdefault(tile_id, (word, set_name or word))
    return words


def _tileset(raw: object, index: int, folder: Path | None = None) -> _Tileset:
    if not isinstance(raw, dict):
        raise _fail(f"has tileset {index + 1} that is not a JSON object")
    if "source" in raw:
        raw = _external(raw, folder)
    name = raw.get("name")
    label = (f"tileset {name.strip()!r}" if isinstance(name, str) and name.strip()
             else f"tileset {index + 1}")
    firstgid = _int(raw.get("firstgid"), f"firstgid in {label}", 1)
    count = raw.get("tilecount")
    if count is not None:
        count = _int(count, f"tilecount in {label}")
    tiles = raw.get("tiles", [])
    if not isinstance(tiles, list):
        raise _fail(f"has tiles in {label} that are not a list")
    cells: dict[int, SourceCell] = {}
    origins: dict[int, str] = {}
    notes: list[str] = []
    wang = _wang_words(raw, label, notes)
    for tile in tiles:
        if not isinstance(tile, dict):
            raise _fail(f"has a tile in {label} that is not a JSON object")
        tile_id = _int(tile.get("id"), f"a tile id in {label}")
        where = f"tile {tile_id} of {label}"
        props = _properties(tile.get("properties"), where)
        found = _tile_word(tile, props, where, wang.get(tile_id))
        if found is not None:
            cells[tile_id] = _tile_cell(props, where, found[0])
            origins[tile_id] = f"{found[1]} in {label}"
    # Tiles that only a terrain set names have no entry in `tiles`.
    for tile_id, (word, set_name) in wang.items():
        if tile_id not in cells:
            cells[tile_id] = SourceCell(word)
            origins[tile_id] = f"terrain set {set_name!r} in {label}"
    return _Tileset(firstgid, count, cells, origins, notes)


def _gids(layer: dict[str, Any], name: str, size: int) -> list[int]:
    data = layer.get("data")
    encoding = layer.get("encoding", "csv")
    if encoding == "base64":
        gids = base64_gids(data, layer.get("compression", ""), name, size)
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


def base64_gids(data: object, compression: object, name: str, size: int) -> list[int]:
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
                        "uncompressed, zlib or gzip base64 (or CSV): pick one as the Tile "
                        "Layer Format in Tiled's map properties")
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
    """The map's cells: the top-most tile layer whose tile has a word wins (see _tile_word);
    `text` is Tiled's XML (`.tmx`) or JSON (`.tmj`); `folder`: where the map is, for external
    tilesets beside it."""
    # A byte-order mark is not whitespace; an editor may have put one before either kind.
    text = text.lstrip("\ufeff")
    if text.lstrip().startswith("<"):
        from tracker.mapformats import tmx

        doc, xml = tmx.map_document(text), True
    else:
        doc, xml = json_object(text, "the Tiled map"), False
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
    origins: dict[str, list[str]] = {}
    for layer in layers:
        name = str(layer.get("name", "?"))
        for i, gid in enumerate(_gids(layer, name, width * height)):
            if gid == 0:
                continue
            found = _cell_of(gid, tilesets, name)
            if found is not None:
                cell, origin = found
                cells[i // width][i % width] = cell
                if origin not in origins.setdefault(cell.word, []):
                    origins[cell.word].append(origin)
    map_name = _properties(doc.get("properties"), "the map").get("name")
    used = ["width", "height", "orientation", "tile layers (data, encoding, compression)",
            "tilesets, embedded or beside the map as .tsx, .tsj or .json (firstgid, tilecount; "
            "a tile's terrain property, else its class, else its first property set true, "
            "else the terrain its terrain set gives it most; name and penalty properties)"]
    if xml:
        used.insert(0, "Tiled's XML (.tmx, .tsx), read with pytiled-parser")
    if grid == "hex":
        used.append("staggeraxis and staggerindex")
    if isinstance(map_name, str) and map_name.strip():
        used.append("the map property name")
    else:
        map_name = stem
    ignored = sorted(k for k in doc if k not in _USED_TOP)
    ignored += [f"{kind} layers" for kind in sorted(set(skipped))]
    ignored.append("tile images, flips and other tile properties")
    ignored += [note for tileset in tilesets for note in tileset.notes]
    if shift:
        # Tiled's even stagger pushes even columns down; one open column on the left makes
        # every column one further right, so the pushed-down ones are odd as Trek draws them.
        cells = [[OPEN, *row] for row in cells]
        check_size(width + 1, height)
        used.append("staggerindex even: an open column was added on the left so the shifted "
                    "columns are odd as Trek draws them (Tiled column c is Trek column c+1)")
    return SourceMap(format="tiled", name=str(map_name), grid=grid, cells=cells, used=used,
                     ignored=ignored, word_places=_places(cells, origins))


def _places(cells: list[list[SourceCell]], origins: dict[str, list[str]]) -> dict[str, str]:
    """Where each word is used, for the refusal that asks what it is: where in the tilesets
    it comes from, how many cells have it and the first of them (x,y from the top left)."""
    counts: dict[str, int] = {}
    first: dict[str, tuple[int, int]] = {}
    for y, row in enumerate(cells):
        for x, cell in enumerate(row):
            counts[cell.word] = counts.get(cell.word, 0) + 1
            first.setdefault(cell.word, (x, y))
    places = {}
    for word, where in origins.items():
        if word in counts:
            n = counts[word]
            x, y = first[word]
            places[word] = (f"{' and '.join(where)}; {n} {'cell' if n == 1 else 'cells'}, "
                            f"the first at {x},{y}")
    return places


def _cell_of(gid: int, tilesets: list[_Tileset], layer: str
             ) -> tuple[SourceCell, str] | None:
    """The cell a gid's tile gives and where its word comes from (None: the tile has none)."""
    owner = None
    for tileset in tilesets:
        if tileset.firstgid <= gid:
            owner = tileset
    local = gid - owner.firstgid if owner is not None else -1
    if owner is None or (owner.count is not None and local >= owner.count):
        raise _fail(f"has layer {layer!r} with the tile gid {gid}, which is in no tileset")
    cell = owner.cells.get(local)
    return None if cell is None else (cell, owner.origins[local])

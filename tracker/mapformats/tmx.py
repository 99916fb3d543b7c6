"""Tiled's XML files (`.tmx` maps, `.tsx` tilesets), read with pytiled-parser and handed on in
the shape of Tiled's JSON, so one reader (tiled.py) turns both into cells."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

from domain.errors import MapError
from tracker.mapformats import MAX_SIDE

_LAYER_TAGS = ("layer", "objectgroup", "imagelayer", "group")
# What pytiled-parser raises on an element it cannot read (a missing attribute, a number that
# is not one); each becomes a sentence naming the element.
_READ_ERRORS = (KeyError, ValueError, TypeError, AttributeError, IndexError, RuntimeError)
# Attributes pytiled-parser requires of a tileset that older Tiled versions leave out (and an
# image's size); Trek uses none of them but the tile count, which it then leaves open.
_TILESET_DEFAULTS = {"name": "", "tilewidth": "0", "tileheight": "0", "tilecount": "0",
                     "columns": "0"}


def _fail(reason: str) -> MapError:
    return MapError(f"the Tiled map {reason}")


def _why(error: Exception) -> str:
    if isinstance(error, KeyError):
        return f"it has no {error.args[0]!r} attribute"
    if isinstance(error, ValueError) and str(error):
        return str(error)  # a number or colour that is not one, quoted
    return "it is not written as Tiled writes it"


def _root(text: str, what: str) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise MapError(f"{what} is not valid XML ({error})") from None


def _number(value: str | None) -> object:
    """A whole-number attribute as an int; anything else as it is, for the reader to refuse."""
    if value is not None and value.strip().isdigit():
        return int(value)
    return value


def map_document(text: str) -> dict[str, Any]:
    """The `.tmx` map as Tiled's JSON would have it: its attributes, properties, tilesets
    (embedded ones read, external ones left as `source` for the reader to find beside the map)
    and layers (tile layers' gids decoded; left out when the map is infinite or too large,
    which the reader refuses first)."""
    from pytiled_parser.parsers.tmx.properties import parse as parse_properties

    root = _root(text, "the Tiled map")
    if root.tag == "tileset":
        raise MapError("the file is a Tiled tileset, not a map; import the .tmx or .tmj map "
                       "that uses it (Trek reads the tileset from beside it)")
    if root.tag != "map":
        raise _fail(f"starts with <{root.tag}>, not <map>")
    doc: dict[str, Any] = dict(root.attrib)
    doc["width"] = width = _number(root.get("width"))
    doc["height"] = height = _number(root.get("height"))
    doc["infinite"] = root.get("infinite") == "1"
    properties = root.find("properties")
    if properties is not None:
        try:
            doc["properties"] = parse_properties(properties)
        except _READ_ERRORS as error:
            raise _fail(f"has map properties that pytiled-parser cannot read "
                        f"({_why(error)})") from None
    doc["tilesets"] = [_tileset_entry(element) for element in root.findall("tileset")]
    doc["layers"] = []
    if (not doc["infinite"] and isinstance(width, int) and isinstance(height, int)
            and 0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        doc["layers"] = [_layer(element, width, height) for element in root
                         if element.tag in _LAYER_TAGS]
    return doc


def tileset_document(text: str, source: str) -> dict[str, Any]:
    """An external `.tsx` tileset as Tiled's JSON would have it."""
    root = _root(text, f"the tileset {source!r}")
    if root.tag != "tileset":
        raise MapError(f"the tileset {source!r} starts with <{root.tag}>, not <tileset>")
    return _tileset(root, 1)


def _tileset_entry(element: ElementTree.Element) -> dict[str, Any]:
    firstgid = _number(element.get("firstgid"))
    source = element.get("source")
    if source is not None:
        return {"firstgid": firstgid, "source": source}
    return {**_tileset(element, firstgid if isinstance(firstgid, int) else 1),
            "firstgid": firstgid}


def _tileset(element: ElementTree.Element, firstgid: int) -> dict[str, Any]:
    """One tileset element, read by pytiled-parser: its name, count, tiles (class and
    properties) and terrain sets. Terrain sets and terrains saved by a Tiled older than 1.5
    are passed on in their old JSON shape (the reader names them as left out)."""
    from pytiled_parser.parsers.tmx.tileset import parse as parse_tileset

    name = element.get("name", "")
    counted = element.get("tilecount") is not None
    for key, default in _TILESET_DEFAULTS.items():
        element.attrib.setdefault(key, default)
    for image in element.iter("image"):
        image.attrib.setdefault("width", "0")
        image.attrib.setdefault("height", "0")
    old: list[dict[str, Any]] = []
    wangsets = element.find("wangsets")
    if wangsets is not None:
        for wangset in list(wangsets.findall("wangset")):
            if wangset.find("wangcolor") is None:
                wangsets.remove(wangset)
                old.append({"name": wangset.get("name", ""), "cornercolors": []})
    terrains = [{"name": terrain.get("name", "")}
                for terrain in element.findall("terraintypes/terrain")]
    try:
        tileset = parse_tileset(element, firstgid, "utf-8")
    except _READ_ERRORS as error:
        called = f"the tileset {name!r}" if name.strip() else "a tileset without a name"
        raise _fail(f"has {called}, which pytiled-parser cannot read "
                    f"({_why(error)})") from None
    tiles = [{"id": tile_id, "class": tile.class_, "properties": dict(tile.properties or {})}
             for tile_id, tile in sorted((tileset.tiles or {}).items())]
    sets = [{"name": wangset.name,
             "colors": [{"name": colour.name} for colour in wangset.wang_colors],
             "wangtiles": [{"tileid": tile.tile_id, "wangid": list(tile.wang_id)}
                           for tile in wangset.wang_tiles.values()]}
            for wangset in tileset.wang_sets or []]
    doc: dict[str, Any] = {"name": tileset.name, "tiles": tiles, "wangsets": sets + old}
    if counted:
        doc["tilecount"] = tileset.tile_count
    if terrains:
        doc["terrains"] = terrains
    return doc


def _layer(element: ElementTree.Element, width: int, height: int) -> dict[str, Any]:
    """A layer as Tiled's JSON has it; only a visible tile layer's gids are decoded."""
    from pytiled_parser.layer import TileLayer
    from pytiled_parser.parsers.tmx.layer import parse as parse_layer

    name = element.get("name", "")
    visible = element.get("visible", "1") != "0"
    kind = {"layer": "tilelayer", "group": "group"}.get(element.tag, element.tag)
    doc: dict[str, Any] = {"type": kind, "name": name, "visible": visible}
    if element.tag == "group":
        doc["layers"] = [_layer(child, width, height) for child in element
                         if child.tag in _LAYER_TAGS]
    if element.tag != "layer" or not visible:
        return doc
    data = element.find("data")
    if data is None or data.find("chunk") is not None:
        return doc  # the reader says the layer has no data
    _check_data(data, name, width * height)
    element.attrib.setdefault("width", str(width))
    element.attrib.setdefault("height", str(height))
    try:
        layer = parse_layer(element, "utf-8")
    except _READ_ERRORS as error:
        raise _fail(f"has layer {name!r}, which pytiled-parser cannot read "
                    f"({_why(error)})") from None
    if isinstance(layer, TileLayer) and layer.data is not None:
        doc["data"] = [gid for row in layer.data for gid in row]
    return doc


def _check_data(data: ElementTree.Element, name: str, size: int) -> None:
    """Make a layer's data safe and plain for pytiled-parser: base64 is checked to hold no
    more than the map's gids before it is inflated (so a small file cannot inflate to a huge
    one) and in a compression Trek reads; the old one-element-per-tile form becomes CSV."""
    from tracker.mapformats.tiled import base64_gids

    encoding = data.get("encoding")
    if encoding == "base64":
        compact = "".join((data.text or "").split())
        base64_gids(compact, data.get("compression", ""), name, size)
        data.text = compact
    elif encoding is None:
        gids = [tile.get("gid", "0") for tile in data.findall("tile")]
        for tile in data.findall("tile"):
            data.remove(tile)
        data.text = ",".join(gids) or "0"
        data.set("encoding", "csv")
    elif encoding != "csv":
        raise _fail(f"has layer {name!r} with encoding {encoding!r}; Trek reads csv and "
                    "base64")
    elif not (data.text or "").strip():
        raise _fail(f"has layer {name!r} whose CSV data is empty")

"""Tiled maps published in public repositories (tests/fixtures/maps/tiled, SOURCES.md), imported
as they are, their tilesets read from beside them.

Every expected cell is worked out by reading the file: a layer's gid at (x, y) is entry
y * width + x of its data (decoded by hand for the base64 ones), the gid's tile is gid minus
the tileset's firstgid, and the tile's word is what its tileset gives it (for a terrain set,
the terrain its wangid names most, the first in the wangid's order on a tie).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from rulesets import RULESETS

from domain.errors import MapError
from tracker.mapformats import Imported, SourceMap, Target, convert, format_of, parse
from tracker.mapformats.tomlfile import load_battle_map

TILED = Path(__file__).resolve().parents[1] / "fixtures" / "maps" / "tiled"
BESM_BATTLE = Target(frozenset({"open", "difficult", "wall"}), battle=True)
CYPHER_OVERLAND = Target(frozenset({"open", "rough", "difficult", "water", "high-gravity",
                                    "low-gravity", "zero-gravity"}), battle=False)


def read(name: str) -> SourceMap:
    path = TILED / name
    text = path.read_text(encoding="utf-8")
    return parse(format_of(path.name, text), text, path.stem, folder=path.parent)


def imported(name: str, target: Target, **terrains: str) -> Imported:
    return convert(read(name), target, terrains)


def terrain_at(toml: str, x: int, y: int) -> tuple[str, str]:
    """The (terrain, name) of cell (x, y) in an imported map's TOML."""
    doc: dict[str, Any] = tomllib.loads(toml)
    entry = doc["legend"][doc["map"]["rows"][y][x]]
    return entry["terrain"], entry["name"]


def test_every_tiled_fixture_is_listed_in_sources() -> None:
    sources = (TILED.parent / "SOURCES.md").read_text(encoding="utf-8")
    for path in sorted(TILED.rglob("*")):
        if path.suffix in (".tmx", ".tsx", ".json"):
            assert f"`tiled/{path.relative_to(TILED).as_posix()}`" in sources


# -- desert.tmx (Tiled's own example): one terrain set, its tileset in desert.tsx beside it ----

def test_desert_asks_for_its_two_unknown_terrains_at_once_saying_where_each_is() -> None:
    # desert.tsx's terrain set "Desert" has four terrains: Desert and Dirt are ground Trek
    # knows; Brick and Cobblestone it cannot place. Rows 0-4 hold only Desert and Dirt tiles;
    # row 5 has gids 25-27 from x=11 (tiles 24-26, each naming Desert most or first) and gid 9
    # at x=24 (tile 8, wangid 0,2,0,2,0,1,0,1: Brick and Desert twice each, Brick first), so
    # Brick's first cell is (24,5). Cobblestone's is (11,6): gid 34, tile 33, all
    # Cobblestone.
    source = read("desert.tmx")
    assert (source.width, source.height, source.grid) == (40, 40, "square")
    with pytest.raises(MapError) as caught:
        convert(source, CYPHER_OVERLAND)
    message = str(caught.value)
    assert message.startswith("the map uses 2 words Trek cannot turn into a terrain here: "
                              "'Brick' (terrain set 'Desert' in tileset 'Desert'; ")
    assert "cells, the first at 24,5) and 'Cobblestone' (terrain set 'Desert' in tileset " \
           "'Desert'; " in message
    assert "the first at 11,6); say what each is with --terrain Brick=TERRAIN --terrain " \
           "Cobblestone=TERRAIN" in message


def test_desert_once_mapped_gives_each_cell_the_terrain_its_tile_shows() -> None:
    result = imported("desert.tmx", BESM_BATTLE, Brick="wall", Cobblestone="difficult")
    assert result.report["terrains"] == {"Desert": "open", "Dirt": "open", "Brick": "wall",
                                         "Cobblestone": "difficult"}
    # (0,0): gid 30, tile 29, all Desert. (25,0): gid 15, tile 14, all Dirt. (25,6): gid 10,
    # tile 9, all Brick. (12,6): gid 34, tile 33, all Cobblestone. (24,0): gid 14, tile 13,
    # wangid 0,4,0,4,0,1,0,1: Dirt and Desert twice each, Dirt named first.
    assert terrain_at(result.toml, 0, 0) == ("open", "Desert")
    assert terrain_at(result.toml, 25, 0) == ("open", "Dirt")
    assert terrain_at(result.toml, 24, 0) == ("open", "Dirt")
    assert terrain_at(result.toml, 25, 6) == ("wall", "Brick")
    assert terrain_at(result.toml, 12, 6) == ("difficult", "Cobblestone")
    # The battle map's loader takes it as it is.
    load_battle_map(result.toml, RULESETS.named("besm").battle_legend)


# -- perspective_walls.tmx: tile properties written as text ("true"), in an old tileset ------

def test_perspective_walls_take_the_property_its_tiles_have() -> None:
    # perspective_walls.tsx (no tile count, no image size: Tiled 1.0) marks tiles 13 and 14
    # with door = "true" and tile 15 with pickup = "true". The Walls layer uses gids 14 and 15
    # (tiles 13 and 14) along the room's sides, never gid 16, so only "door" is asked about;
    # Trek knows a door as open ground, and the GM says otherwise with --terrain.
    source = read("perspective_walls.tmx")
    assert (source.width, source.height) == (32, 32)
    assert set(source.word_places) == {"door"}
    assert source.word_places["door"].startswith(
        "the property 'door' of tiles in tileset 'perspective_walls'; ")
    as_is = convert(source, BESM_BATTLE)
    assert terrain_at(as_is.toml, 7, 11) == ("open", "door")
    walled = imported("perspective_walls.tmx", BESM_BATTLE, door="wall")
    # Row 11 is 6 blank cells, gid 5 (tile 4, no property), then gid 14 six times.
    assert terrain_at(walled.toml, 6, 11) == ("open", "open")
    assert [terrain_at(walled.toml, x, 11)[0] for x in range(7, 13)] == ["wall"] * 6
    # Row 12: gid 15 (tile 14, door) at x=6.
    assert terrain_at(walled.toml, 6, 12) == ("wall", "door")


# -- simple-map-collision-mapped.tmx: a game level whose tiles say whether they collide -----

def test_a_game_levels_collides_property_is_its_word_and_its_hidden_layer_is_left_out(
        ) -> None:
    # The embedded tileset gives 336 tiles collides=true and 38 collides=false (no word). The
    # layers are Ground, Ground-Demo (visible="0") and Lava, each 29 CSV gids a row.
    source = read("simple-map-collision-mapped.tmx")
    assert (source.width, source.height) == (29, 12)
    assert set(source.word_places) == {"collides"}
    assert source.word_places["collides"].startswith(
        "the property 'collides' of tiles in tileset 'kenney-tileset-64px-extruded'; ")
    result = imported("simple-map-collision-mapped.tmx", BESM_BATTLE, collides="wall")
    # Ground row 2 starts 159 (tile 158, collides) then 0: a wall, then open ground.
    assert terrain_at(result.toml, 0, 2)[0] == "wall"
    assert terrain_at(result.toml, 1, 2) == ("open", "open")
    # Only the hidden Ground-Demo layer has a tile at (7,1) (gid 59): it stays open.
    assert terrain_at(result.toml, 7, 1) == ("open", "open")
    # Column 6 is empty on Ground down to row 10; Lava fills rows 8 to 11 (gids 290, 312).
    assert terrain_at(result.toml, 6, 7) == ("open", "open")
    assert [terrain_at(result.toml, 6, y)[0] for y in range(8, 12)] == ["wall"] * 4
    assert "hidden layers" in result.report["ignored"]


# -- maps whose tiles carry no word: every cell is open ground, and that is reported ---------

@pytest.mark.parametrize(("name", "size", "ignored"), [
    # Tiled 1.0: an embedded tileset with no tile count, two base64 zlib layers.
    ("sewers.tmx", (50, 50), "tile images, flips and other tile properties"),
    # Three tile layers and an object layer; beach_tileset.tsx beside it gives tiles only
    # animations.
    ("rpg/island.tmx", (58, 47), "objectgroup layers"),
])
def test_a_map_without_words_is_open_ground(name: str, size: tuple[int, int],
                                            ignored: str) -> None:
    result = imported(name, CYPHER_OVERLAND)
    assert (result.report["width"], result.report["height"]) == size
    assert result.report["terrains"] == {"open": "open"}
    assert ignored in result.report["ignored"]
    rows = tomllib.loads(result.toml)["map"]["rows"]
    assert rows == ["." * size[0]] * size[1]


def test_pointy_topped_hexes_are_refused_with_what_to_change() -> None:
    # hexagonal-mini.tmx: orientation hexagonal, staggeraxis y.
    with pytest.raises(MapError, match=r"pointy-topped hexes \(staggeraxis y\)"):
        read("hexagonal-mini.tmx")


# -- pytiled-parser's map with its tileset in a folder of its own, as .tmx and as .json ------

def test_a_tile_class_is_the_word_and_the_xml_and_json_twins_agree() -> None:
    # Layer 1's data decodes to gids 4, 3, 2, 1 at (0,0)-(3,0), then empty cells; tileset.tsx
    # (and tileset.json) gives its four tiles the class "tile".
    for name in ("pytiled/map.tmx", "pytiled/map.json"):
        source = read(name)
        assert (source.width, source.height) == (8, 6)
        assert source.word_places == {
            "tile": "the class of tiles in tileset 'tileset'; 4 cells, the first at 0,0"}
    xml = imported("pytiled/map.tmx", BESM_BATTLE, tile="difficult")
    json_twin = imported("pytiled/map.json", BESM_BATTLE, tile="difficult")
    assert xml.toml == json_twin.toml
    rows = tomllib.loads(xml.toml)["map"]["rows"]
    assert rows[0] == "tttt...."
    assert rows[1:] == ["........"] * 5
    assert terrain_at(xml.toml, 3, 0) == ("difficult", "tile")
    assert "Tiled's XML (.tmx, .tsx), read with pytiled-parser" in xml.report["used"]

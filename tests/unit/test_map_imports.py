"""Maps from Tiled, Text Mapper and Universal VTT, turned into Trek's TOML maps.

Every small file here is written by hand from the format's public description, and every
expected grid is worked out by hand from it: Text Mapper's XXYY is column then row from 01;
a Tiled layer's `data` lists gids row by row, a gid belongs to the tileset with the greatest
firstgid not above it, and its top four bits are flip flags; a Universal VTT file gives the
map's size in cells and its walls and doors as points in cells.
"""

from __future__ import annotations

import base64
import gzip
import json
import struct
import tomllib
import zlib
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rulesets import RULESETS

from domain.errors import MapError
from tracker.mapformats import Target, convert, format_of, parse
from tracker.mapformats.tomlfile import load_battle_map, load_map
from tracker.mapformats.uvtt import cells_crossed

BESM_OVERLAND = Target(frozenset({"open", "feature", "hazard"}), battle=False)
CYPHER_OVERLAND = Target(frozenset({"open", "rough", "difficult", "water", "high-gravity",
                                    "feature"}), battle=False)
GURPS_BATTLE = Target(frozenset({"open", "treacherous", "stairs", "shallow-water",
                                 "deep-water", "wall"}), battle=True)
BESM_BATTLE = Target(frozenset({"open", "difficult", "wall"}), battle=True)


def toml_of(fmt: Any, text: str, target: Target, stem: str = "vale",
            overrides: dict[str, str] | None = None, grid: Any = None) -> dict[str, Any]:
    return tomllib.loads(convert(parse(fmt, text, stem, grid=grid), target, overrides).toml)


def refusal(fmt: Any, text: str, target: Target = BESM_BATTLE) -> MapError:
    with pytest.raises(MapError) as caught:
        convert(parse(fmt, text, "bad"), target)
    return caught.value


# -- Text Mapper ------------------------------------------------------------------------------

VALE = """\
# The vale, drawn in Text Mapper
forest attributes fill="green"
include https://example.org/gnomeyland.txt
0101 forest
0201 hills river "Old Mill"
0302 mountain
0102 swamp
0101-0302 river
"""


def test_text_mapper_lines_become_rows_column_then_row_with_unlisted_cells_open() -> None:
    # Cells: (0,0) forest, (1,0) hills, (2,1) mountain, (0,1) swamp; (2,0) and (1,1) unlisted.
    doc = toml_of("textmapper", VALE, CYPHER_OVERLAND)
    assert doc["map"] == {"name": "vale", "rows": ["fh.", "s.m"]}
    assert doc["legend"] == {
        "f": {"terrain": "difficult", "name": "forest"},
        "h": {"terrain": "rough", "name": "hills"},
        ".": {"terrain": "open", "name": "open"},
        "s": {"terrain": "difficult", "name": "swamp"},
        "m": {"terrain": "feature", "name": "mountain"},
    }


def test_text_mapper_report_counts_what_it_ignored() -> None:
    report = convert(parse("textmapper", VALE, "vale"), CYPHER_OVERLAND).report
    assert (report["format"], report["width"], report["height"]) == ("textmapper", 3, 2)
    assert report["terrains"] == {"forest": "difficult", "hills": "rough", "open": "open",
                                  "swamp": "difficult", "mountain": "feature"}
    ignored = report["ignored"]
    for expected in ("1 comments", "1 attributes lines (colours and styles)", "1 include lines",
                     "1 paths (rivers, roads and trails between hexes)", "1 quoted labels",
                     "2 unlisted cells (made open ground)",
                     "1 further type words after a cell's terrain word"):
        assert expected in ignored
    # An overland map is squares: the hexes are laid out as squares, and the report says so.
    assert report["grid"] == "square"
    assert any("hex layout" in item for item in ignored)


def test_text_mapper_hexes_make_a_hex_battle_map_the_loader_accepts() -> None:
    text = "0101 grass\n0201 lake\n0102 forest\n0202 stairs\n"
    imported = convert(parse("textmapper", text, "ford"), GURPS_BATTLE)
    loaded = load_battle_map(imported.toml, RULESETS.named("gurps").battle_legend)
    assert loaded["grid"] == "hex"
    assert loaded["rows"] == ["gl", "fs"]
    assert {k: v["terrain"] for k, v in loaded["legend"].items()} == {
        "g": "open", "l": "deep-water", "f": "treacherous", "s": "stairs"}


def test_text_mapper_grid_square_chooses_squares() -> None:
    doc = toml_of("textmapper", "0101 grass\n", BESM_BATTLE, grid="square")
    assert doc["map"]["grid"] == "square"


def test_the_first_word_with_a_meaning_names_the_terrain() -> None:
    # Gnomeyland-style colour words come before the type; `light-grey` means nothing to Trek.
    doc = toml_of("textmapper", "0101 light-grey mountain\n0201 green forest\n", BESM_OVERLAND)
    assert doc["map"]["rows"] == ["mf"]
    assert doc["legend"]["m"] == {"terrain": "feature", "name": "mountain"}
    assert doc["legend"]["f"] == {"terrain": "open", "name": "forest"}


def test_terrain_overrides_win_over_the_built_in_words() -> None:
    doc = toml_of("textmapper", "0101 forest\n0201 glade\n", BESM_OVERLAND,
                  overrides={"forest": "hazard", "glade": "open"})
    assert doc["legend"]["f"] == {"terrain": "hazard", "name": "forest"}
    assert doc["legend"]["g"] == {"terrain": "open", "name": "glade"}


def test_an_unknown_word_is_refused_naming_it_and_the_option() -> None:
    error = refusal("textmapper", "0101 glade\n", BESM_OVERLAND)
    assert "'glade'" in str(error)
    assert "--terrain glade=TERRAIN" in str(error)
    assert "feature, hazard, open" in str(error)


def test_an_override_to_a_terrain_the_map_cannot_use_is_refused() -> None:
    with pytest.raises(MapError, match="--terrain forest=water names a terrain"):
        convert(parse("textmapper", "0101 forest\n", "v"), BESM_OVERLAND, {"forest": "water"})


@pytest.mark.parametrize(("text", "line", "reason"), [
    ("0101 forest\n0001 hills\n", 2, "column or row of 0"),
    ("0101 forest\n\n0301\n", 3, "no type after it"),
    ("0101 forest\n201001 hills\n", 2, "201×1 cells, larger than Trek imports"),
])
def test_malformed_text_mapper_lines_are_refused_with_their_line(text: str, line: int,
                                                                 reason: str) -> None:
    error = refusal("textmapper", text)
    assert error.line == line
    assert reason in error.reason


def test_a_text_mapper_file_without_hexes_is_refused() -> None:
    assert "no hex lines" in str(refusal("textmapper", "# only a comment\n"))


# -- Tiled JSON -------------------------------------------------------------------------------

def tiled(data: list[Any], *, width: int = 3, height: int = 2, over: list[Any] | None = None,
          **extra: Any) -> str:
    """A map with one embedded tileset: tile 0 grass, 1 forest (named, penalty 1), 2 wall,
    3 a decoration with no terrain; firstgid 1, so gids 1-4."""
    tileset = {"firstgid": 1, "name": "terrain", "tilecount": 4, "tiles": [
        {"id": 0, "properties": [{"name": "terrain", "type": "string", "value": "grass"}]},
        {"id": 1, "properties": [{"name": "terrain", "type": "string", "value": "forest"},
                                 {"name": "name", "type": "string", "value": "Elderwood"},
                                 {"name": "penalty", "type": "int", "value": 1}]},
        {"id": 2, "properties": [{"name": "terrain", "type": "string", "value": "wall"}]},
        {"id": 3, "properties": [{"name": "colour", "type": "string", "value": "red"}]},
    ]}
    layers = [{"type": "tilelayer", "name": "ground", "width": width, "height": height,
               "data": data}]
    if over is not None:
        layers.append({"type": "tilelayer", "name": "top", "width": width, "height": height,
                       "data": over})
    layers.append({"type": "objectgroup", "name": "notes", "objects": []})
    doc = {"type": "map", "orientation": "orthogonal", "width": width, "height": height,
           "tilewidth": 32, "tileheight": 32, "infinite": False, "renderorder": "right-down",
           "layers": layers, "tilesets": [tileset], **extra}
    return json.dumps(doc)


def test_a_tiled_map_takes_the_top_most_layer_with_a_terrain() -> None:
    # Ground: grass everywhere but (2,1) forest. Top: wall at (1,0); the decoration (gid 4,
    # no terrain) at (0,1) lets the grass below show; gid 3 with the horizontal-flip bit set
    # at (2,0) is still tile 2, the wall.
    flipped_wall = 3 | 0x80000000
    text = tiled([1, 1, 1, 1, 1, 2], over=[0, 3, flipped_wall, 4, 0, 0],
                 properties=[{"name": "name", "type": "string", "value": "Keep"}])
    doc = toml_of("tiled", text, CYPHER_OVERLAND)
    assert doc["map"] == {"name": "Keep", "rows": ["gww", "gge"]}
    assert doc["legend"] == {
        "g": {"terrain": "open", "name": "grass"},
        "w": {"terrain": "feature", "name": "wall"},
        "e": {"terrain": "difficult", "name": "Elderwood", "penalty": 1},
    }


def test_a_layer_hidden_in_tiled_is_left_out_and_reported() -> None:
    # The top layer would put walls on the whole first row, but it is hidden in Tiled, and so
    # is a group holding a second wall layer: only the ground (all grass) is read.
    doc = json.loads(tiled([1, 1, 1, 1, 1, 1], over=[3, 3, 3, 0, 0, 0]))
    doc["layers"][1]["visible"] = False
    doc["layers"].append({"type": "group", "name": "plans", "visible": False, "layers": [
        {"type": "tilelayer", "name": "walls", "width": 3, "height": 2,
         "data": [0, 0, 0, 3, 3, 3]}]})
    imported = convert(parse("tiled", json.dumps(doc), "keep"), BESM_BATTLE)
    assert tomllib.loads(imported.toml)["map"]["rows"] == ["ggg", "ggg"]
    assert "hidden layers" in imported.report["ignored"]


def test_a_tiled_battle_map_keeps_walls_and_drops_penalties_with_a_note() -> None:
    imported = convert(parse("tiled", tiled([1, 3, 1, 2, 2, 1]), "keep"), BESM_BATTLE)
    doc = tomllib.loads(imported.toml)
    assert doc["map"] == {"name": "keep", "grid": "square", "rows": ["g#g", "eeg"]}
    assert doc["legend"]["e"] == {"terrain": "difficult", "name": "Elderwood"}
    assert "tile penalties (battle maps have no penalty key)" in imported.report["ignored"]
    assert "objectgroup layers" in imported.report["ignored"]
    load_battle_map(imported.toml, RULESETS.named("besm").battle_legend)


def test_tiled_csv_and_base64_layers_read_the_same() -> None:
    gids = [1, 2, 3, 3, 2, 1]
    packed = struct.pack("<6I", *gids)
    expected = ["gew", "weg"]
    for layer in ({"encoding": "csv", "data": "1,2,3,\n3,2,1"},
                  {"encoding": "base64", "data": base64.b64encode(packed).decode()},
                  {"encoding": "base64", "compression": "zlib",
                   "data": base64.b64encode(zlib.compress(packed)).decode()}):
        doc = json.loads(tiled(gids))
        doc["layers"][0].update(layer)
        assert toml_of("tiled", json.dumps(doc), CYPHER_OVERLAND)["map"]["rows"] == expected


def test_a_base64_layer_inflating_past_the_map_is_refused() -> None:
    doc = json.loads(tiled([1] * 6))
    doc["layers"][0].update(encoding="base64", compression="gzip",
                            data=base64.b64encode(gzip.compress(bytes(4 * 10**6))).decode())
    assert "is not 6 4-byte gids" in str(refusal("tiled", json.dumps(doc)))


def hex_map(index: str, axis: str = "x") -> str:
    doc = json.loads(tiled([1, 2, 1, 2, 1, 2]))
    doc.update(orientation="hexagonal", staggeraxis=axis, staggerindex=index,
               hexsidelength=16)
    return json.dumps(doc)


def test_tiled_odd_stagger_is_trek_hexes_as_they_are() -> None:
    doc = toml_of("tiled", hex_map("odd"), GURPS_BATTLE)
    assert doc["map"]["grid"] == "hex"
    assert doc["map"]["rows"] == ["geg", "ege"]


def test_tiled_even_stagger_gets_an_open_column_on_the_left() -> None:
    # Tiled's even columns are pushed down; Trek pushes odd ones. With one more column on the
    # left, Tiled column 0 is Trek column 1, odd, so it is pushed down as it should be.
    imported = convert(parse("tiled", hex_map("even"), "h"), GURPS_BATTLE)
    doc = tomllib.loads(imported.toml)
    assert doc["map"]["rows"] == [".geg", ".ege"]
    assert doc["legend"]["."] == {"terrain": "open", "name": "open"}
    assert imported.report["width"] == 4
    assert any("column c+1" in item for item in imported.report["used"])


def test_tiled_pointy_topped_hexes_are_refused_with_the_reason() -> None:
    assert "pointy-topped hexes (staggeraxis y)" in str(refusal("tiled", hex_map("odd", "y")))


def external_tileset() -> str:
    doc = json.loads(tiled([1] * 6))
    doc["tilesets"] = [{"firstgid": 1, "source": "terrain.tsj"}]
    return json.dumps(doc)


@pytest.mark.parametrize(("text", "reason"), [
    ("{not json", "is not valid JSON"),
    ("[1, 2]", "is not a JSON object"),
    (json.dumps({"width": 2, "layers": []}), "has height None"),
    (tiled([1, 1, 1]), "layer 'ground' with 3 tiles but the map is 6 cells"),
    (tiled([1, 1, 1, 1, 1, 9]), "the tile gid 9, which is in no tileset"),
    (tiled(["a"] * 6), "the tile 'a', which is not a gid"),
    (external_tileset(), "external tileset 'terrain.tsj'"),
    (tiled([1] * 6, infinite=True), "is infinite"),
    (tiled([1] * (201 * 2), width=201), "201×2 cells, larger than Trek imports"),
    (tiled([1] * 6, orientation="isometric"), "'isometric'; Trek imports orthogonal"),
])
def test_malformed_tiled_maps_are_refused_with_the_reason(text: str, reason: str) -> None:
    assert reason in str(refusal("tiled", text))


# -- Universal VTT ----------------------------------------------------------------------------

def uvtt(**changes: Any) -> str:
    doc: dict[str, Any] = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 3},
                       "pixels_per_grid": 70},
        # A wall along the grid line y=1 from x=0 to x=3, and one down the middle of column 3.
        "line_of_sight": [[{"x": 0, "y": 1}, {"x": 3, "y": 1}],
                          [{"x": 3.5, "y": 0}, {"x": 3.5, "y": 3}]],
        "objects_line_of_sight": [],
        "portals": [
            {"position": {"x": 0.5, "y": 2.5}, "bounds": [{"x": 0, "y": 2.5}, {"x": 1, "y": 2.5}],
             "rotation": 0, "closed": True, "freestanding": False},
            {"position": {"x": 1.5, "y": 2.5}, "bounds": [{"x": 1, "y": 2.5}, {"x": 2, "y": 2.5}],
             "rotation": 0, "closed": False, "freestanding": False},
        ],
        "environment": {"baked_lighting": True, "ambient_light": "ffffffff"},
        "lights": [],
        "image": "iVBORw0KGgo=",
    }
    doc.update(changes)
    return json.dumps(doc)


def test_uvtt_walls_and_closed_doors_become_wall_cells() -> None:
    # The wall on y=1 lands in row 1 (the cells below the line): (0,1) (1,1) (2,1); the
    # x=3.5 wall is column 3 from top to bottom; the closed door is (0,2); the open one
    # leaves (1,2) open.
    imported = convert(parse("uvtt", uvtt(), "cellar"), BESM_BATTLE)
    doc = tomllib.loads(imported.toml)
    assert doc["map"] == {"name": "cellar", "grid": "square",
                          "rows": ["...#", "####", "c..#"]}
    assert doc["legend"] == {".": {"terrain": "open", "name": "open"},
                             "#": {"terrain": "wall", "name": "wall"},
                             "c": {"terrain": "wall", "name": "closed door"}}
    report = imported.report
    assert report["terrains"] == {"open": "open", "wall": "wall"}
    # The picture is carried as its bytes, a cell 70 of its pixels a side.
    assert imported.picture == base64.b64decode("iVBORw0KGgo=")
    assert imported.pixels_per_square == 70
    assert "resolution.pixels_per_grid (points are already in cells)" not in report["ignored"]
    assert "1 open doors" in report["ignored"]
    assert {"environment", "format", "lights"} <= set(report["ignored"])


def test_uvtt_map_origin_moves_the_walls() -> None:
    text = uvtt(resolution={"map_origin": {"x": 10, "y": 20}, "map_size": {"x": 2, "y": 2},
                            "pixels_per_grid": 50},
                line_of_sight=[[{"x": 11.5, "y": 20}, {"x": 11.5, "y": 22}]], portals=[])
    assert toml_of("uvtt", text, BESM_BATTLE)["map"]["rows"] == [".#", ".#"]


def test_segments_cross_the_cells_worked_by_hand() -> None:
    def crossed(a: tuple[float, float], b: tuple[float, float]) -> set[tuple[int, int]]:
        return set(cells_crossed((Fraction(a[0]), Fraction(a[1])),
                                 (Fraction(b[0]), Fraction(b[1]))))

    # Corner to corner: only the diagonal cells, not their neighbours.
    assert crossed((0, 0), (3, 3)) == {(0, 0), (1, 1), (2, 2)}
    # x from 0.5 to 2.5 while y goes 0.5 to 1.5: crosses x=1 at t=1/4, y=1 at t=1/2, x=2 at 3/4.
    assert crossed((0.5, 0.5), (2.5, 1.5)) == {(0, 0), (1, 0), (1, 1), (2, 1)}
    # Drawn backwards, the same cells.
    assert crossed((2.5, 1.5), (0.5, 0.5)) == {(0, 0), (1, 0), (1, 1), (2, 1)}


def test_a_wall_from_far_away_marks_only_the_cells_on_the_map() -> None:
    # From x = -10^300 to x = 10^300 along the middle of row 1 of a 4×3 map: row 1, all of it,
    # worked out without walking a googol of cells.
    text = uvtt(line_of_sight=[[{"x": -1e300, "y": 1.5}, {"x": 1e300, "y": 1.5}]], portals=[])
    imported = convert(parse("uvtt", text, "far"), BESM_BATTLE)
    assert tomllib.loads(imported.toml)["map"]["rows"] == ["....", "####", "...."]
    assert "walls beyond the map's edge (cut off there)" in imported.report["ignored"]


def test_uvtt_is_for_battle_maps_only() -> None:
    assert "is a battle map" in str(refusal("uvtt", uvtt(), BESM_OVERLAND))


@pytest.mark.parametrize(("text", "reason"), [
    (json.dumps({"format": 0.3}), "has no resolution"),
    (uvtt(resolution={"map_size": {"x": 2.5, "y": 2}}), "map_size.x 2.5"),
    (uvtt(resolution={"map_size": {"x": 300, "y": 2}}), "300×2 cells, larger than"),
    (uvtt(line_of_sight=[[{"x": "a", "y": 1}]]), "'a', which is not a number"),
    (uvtt(line_of_sight={"x": 1}), "line_of_sight that is not a list"),
    (uvtt(portals=[{"closed": True}]), "portal 1 without bounds"),
])
def test_malformed_uvtt_files_are_refused_with_the_reason(text: str, reason: str) -> None:
    assert reason in str(refusal("uvtt", text))


# -- formats and words ------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "text", "fmt"), [
    ("a.tmj", "", "tiled"), ("a.TXT", "", "textmapper"), ("a.textmapper", "", "textmapper"),
    ("a.dd2vtt", "", "uvtt"), ("a.uvtt", "", "uvtt"),
    ("a.json", '{"orientation": "orthogonal"}', "tiled"),
    ("a.json", '{"resolution": {}}', "uvtt"),
])
def test_formats_are_known_by_extension(name: str, text: str, fmt: str) -> None:
    assert format_of(name, text) == fmt


def test_an_unknown_extension_is_refused_listing_the_known_ones() -> None:
    with pytest.raises(MapError, match=r"cannot tell what kind of map 'a\.png' is"):
        format_of("a.png", "")


@pytest.mark.parametrize(("ruleset", "battle", "expected"), [
    ("besm", False, {"forest": "open", "swamp": "hazard", "lake": "feature"}),
    ("cypher", False, {"forest": "difficult", "swamp": "difficult", "lake": "water"}),
    ("besm", True, {"forest": "difficult", "swamp": "difficult", "lake": "wall"}),
    ("gurps", True, {"forest": "treacherous", "swamp": "treacherous", "lake": "deep-water"}),
    ("shadowrun", True, {"forest": "rough", "swamp": "rough", "lake": "wall"}),
    ("movepoints", True, {"forest": "open", "swamp": "water", "lake": "water"}),
])
def test_built_in_words_follow_what_each_target_allows(ruleset: str, battle: bool,
                                                       expected: dict[str, str]) -> None:
    rules = RULESETS.named(ruleset)
    words = (rules.battle_legend.words | {"wall"} if battle
             else frozenset(t.value for t in rules.terrains))
    text = "0101 forest\n0201 swamp\n0301 lake\n"
    report = convert(parse("textmapper", text, "v", grid="square"),
                     Target(words, battle)).report
    assert report["terrains"] == expected


def test_names_with_quotes_and_control_characters_survive_the_toml() -> None:
    text = tiled([1] * 6, properties=[{"name": "name", "value": 'The "Keep"\\\n\x7f'}])
    imported = convert(parse("tiled", text, "k"), BESM_OVERLAND)
    assert load_map(imported.toml, RULESETS.named("besm")).name == 'The "Keep"\\\n\x7f'


# -- a property: a grid written in either format comes back as that grid ----------------------

WORDS = ("grass", "forest", "hills", "mountain", "swamp")
grids = st.integers(1, 6).flatmap(lambda w: st.lists(
    st.lists(st.sampled_from(WORDS), min_size=w, max_size=w), min_size=1, max_size=6))


@settings(max_examples=60, deadline=None)
@given(grid=grids, order=st.randoms(use_true_random=False))
def test_a_grid_written_as_text_mapper_or_tiled_csv_imports_back_exactly(
        grid: list[list[str]], order: Any) -> None:
    width, height = len(grid[0]), len(grid)
    lines = [f"{x + 1:02d}{y + 1:02d} {word}" for y, row in enumerate(grid)
             for x, word in enumerate(row)]
    order.shuffle(lines)
    tileset = {"firstgid": 1, "tilecount": len(WORDS), "tiles": [
        {"id": i, "properties": [{"name": "terrain", "value": w}]} for i, w in enumerate(WORDS)]}
    csv = ",".join(str(WORDS.index(word) + 1) for row in grid for word in row)
    tmj = json.dumps({"orientation": "orthogonal", "width": width, "height": height,
                      "layers": [{"type": "tilelayer", "encoding": "csv", "data": csv}],
                      "tilesets": [tileset]})
    for fmt, text in (("textmapper", "\n".join(lines)), ("tiled", tmj)):
        imported = convert(parse(fmt, text, "p", grid="square"), CYPHER_OVERLAND)
        game_map = load_map(imported.toml, RULESETS.named("cypher"))
        back = [[game_map.legend[ch].name for ch in row] for row in game_map.rows]
        assert back == grid

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
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rulesets import RULESETS

from domain.campaign import Campaign, Stamp
from domain.commands.encounter import EnterCombatant, MoveCombatant, StartEncounter, StartRound
from domain.commands.roster import AddCharacter
from domain.errors import MapError, RuleViolation
from domain.geometry import Square
from domain.options import CharacterOptions
from tracker.mapformats import Target, convert, format_of, parse
from tracker.mapformats.tomlfile import load_battle_map, load_map
from tracker.mapformats.uvtt import edges_along

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
    # Cells: (0,0) forest, (1,0) hills labelled "Old Mill" (its name), (2,1) mountain, (0,1)
    # swamp; (2,0) and (1,1) unlisted.
    doc = toml_of("textmapper", VALE, CYPHER_OVERLAND)
    assert doc["map"] == {"name": "vale", "rows": ["fo.", "s.m"]}
    # 0101-0302 river: from (0,0) to (2,1), drawn through the two hexes it lists.
    assert doc["river"] == [{"path": [[0, 0], [2, 1]]}]
    assert doc["legend"] == {
        "f": {"terrain": "difficult", "name": "forest"},
        "o": {"terrain": "rough", "name": "Old Mill"},
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
                     "2 unlisted cells (made open ground)",
                     "1 further type words after a cell's terrain word"):
        assert expected in ignored
    assert "1 labels (each names its hex in the legend)" in report["used"]
    assert ("1 river lines (drawn on the map; --terrain river=TERRAIN gives the hexes they run "
            "through a terrain)") in report["used"]
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
    ("0101 forest\n201.01 hills\n", 2, "201×1 cells, larger than Trek imports"),
])
def test_malformed_text_mapper_lines_are_refused_with_their_line(text: str, line: int,
                                                                 reason: str) -> None:
    error = refusal("textmapper", text)
    assert error.line == line
    assert reason in error.reason


def test_text_mappers_column_and_row_00_are_read_where_text_mapper_draws_them() -> None:
    # Text Mapper draws column and row 00 too. Row 00 is Trek's row 0; on hexes column 00 is
    # Trek's column 1 after an open column 0, so Text Mapper's even columns (00 among them)
    # still sit half a hex lower as Trek's odd ones do; on squares it is column 0.
    text = "0001 hills\n0101 forest\n0100 grass\n0001-0101 road\n"
    imported = convert(parse("textmapper", text, "vale"), GURPS_BATTLE)
    doc = tomllib.loads(imported.toml)
    names = [[doc["legend"][ch]["name"] for ch in row] for row in doc["map"]["rows"]]
    assert names == [["open", "open", "grass"], ["open", "hills", "forest"]]
    assert ("hexes in column 00 (Trek's column 1, after an open column 0 so the even columns "
            "still sit half a hex lower)") in imported.report["used"]
    assert "hexes in row 00 (Trek's row 0)" in imported.report["used"]
    doc = toml_of("textmapper", text, CYPHER_OVERLAND, grid="square")
    assert [[doc["legend"][ch]["name"] for ch in row] for row in doc["map"]["rows"]] == [
        ["open", "grass"], ["hills", "forest"]]
    # The road 0001-0101 joins the two hexes of row 01, where they now are.
    assert [doc["legend"][ch].get("road", False) for ch in doc["map"]["rows"][1]] == [True, True]


def test_every_word_trek_cannot_place_is_refused_at_once_with_its_lines() -> None:
    text = "0101 glade\n0201 moor\n# a comment\n0301 glade\n0102 forest\n"
    error = refusal("textmapper", text, BESM_OVERLAND)
    assert str(error) == (
        "the map uses 2 words Trek cannot turn into a terrain here: 'glade' (lines 1, 4) and "
        "'moor' (line 2); say what each is with --terrain glade=TERRAIN --terrain "
        "moor=TERRAIN (one of feature, hazard, open)")
    # Named once each, the map goes through.
    doc = toml_of("textmapper", text, BESM_OVERLAND,
                  overrides={"glade": "open", "moor": "hazard"})
    assert doc["map"]["rows"] == ["gmg", "f.."]


def test_a_colour_word_is_never_taken_for_the_type() -> None:
    # Gnomeyland writes the hex's colour before its type: the type beside it names the ground,
    # and a hex with a colour alone is open ground (Text Mapper draws it as a fill only)...
    doc = toml_of("textmapper",
                  '0101 light-green bushes\n0201 light-green\n0301 dark-soil "Mud Flat"\n',
                  CYPHER_OVERLAND)
    assert doc["map"]["rows"] == ["b.m"]
    assert doc["legend"]["b"] == {"terrain": "difficult", "name": "bushes"}
    assert doc["legend"]["m"] == {"terrain": "open", "name": "Mud Flat"}
    # ...unless --terrain says what the colour is; naming it still leaves the type beside it.
    doc = toml_of("textmapper", "0101 light-green bushes\n0201 light-green\n",
                  CYPHER_OVERLAND, overrides={"light-green": "rough"})
    assert doc["map"]["rows"] == ["bl"]
    assert doc["legend"]["b"] == {"terrain": "difficult", "name": "bushes"}
    assert doc["legend"]["l"] == {"terrain": "rough", "name": "light-green"}
    # A refusal names the type beside the colour, not the colour.
    error = refusal("textmapper", "0101 light-green glade\n0201 dark-soil moor\n",
                    CYPHER_OVERLAND)
    assert "'glade' (line 1) and 'moor' (line 2)" in str(error)
    assert "light-green" not in str(error)
    assert "dark-soil" not in str(error)
    # Gnomeyland's tints that are also ground words (rock is a wall, water water) give way to
    # the type beside them, and are the ground when alone.
    doc = toml_of("textmapper", "0101 rock hill\n0201 water swamp\n0301 rock\n0401 water\n",
                  CYPHER_OVERLAND)
    assert [doc["legend"][ch]["name"] for ch in doc["map"]["rows"][0]] == [
        "hill", "swamp", "rock", "water"]


def test_a_refusal_asks_for_the_word_other_lines_name_too() -> None:
    # Traveller's lines carry several words Trek does not know; line 2's first is size-3, but
    # naming starport-A (which line 1 needs anyway) places it, so only starport-A is asked.
    text = '0101 starport-A size-7 gas\n0201 red size-3 starport-A "Solace" uwp="D342635-4"\n'
    error = refusal("textmapper", text, CYPHER_OVERLAND)
    assert str(error).startswith("the map uses the word 'starport-A' (lines 1, 2), which")
    doc = toml_of("textmapper", text, CYPHER_OVERLAND, overrides={"starport-A": "open"})
    assert doc["map"]["rows"] == ["sS"]
    assert doc["legend"]["S"] == {"terrain": "open", "name": "Solace"}


def test_text_mapper_names_tags_and_curly_quotes_are_labels_not_words() -> None:
    # name="..." names the hex; another tag (uwp=) is drawn beside it and is no type; curly
    # quotes quote a label as straight ones do; a label's size and moves are no type.
    text = ('0101 forest name="Old Wood" 20 uwp="A788899-C"\n'
            '0201 hills \u201cHigh Moor\u201d 12 translate(0,45)\n'
            '0301 swamp "Fen" "second label"\n')
    imported = convert(parse("textmapper", text, "vale"), CYPHER_OVERLAND)
    doc = tomllib.loads(imported.toml)
    assert [doc["legend"][ch] for ch in doc["map"]["rows"][0]] == [
        {"terrain": "difficult", "name": "Old Wood"}, {"terrain": "rough", "name": "High Moor"},
        {"terrain": "difficult", "name": "Fen"}]
    assert "3 labels (each names its hex in the legend)" in imported.report["used"]
    assert "1 further labels on a hex that already has one" in imported.report["ignored"]
    assert '1 other fields such as uwp="..." (drawn beside a hex)' in imported.report["ignored"]


def test_text_mapper_levels_and_dotted_coordinates_read_as_text_mapper_reads_them() -> None:
    # XXYYZZ is column, row and level: level 00 is the map, others are left out; X.Y is a
    # big map's column and row.
    text = "0101 forest\n010201 mountain\n02.02 hills\n103.01 grass\n"
    imported = convert(parse("textmapper", text, "vale", grid="square"), CYPHER_OVERLAND)
    doc = tomllib.loads(imported.toml)
    assert len(doc["map"]["rows"]) == 2
    assert doc["map"]["rows"][0][0] == "f"
    assert doc["legend"][doc["map"]["rows"][1][1]]["name"] == "hills"
    assert doc["legend"][doc["map"]["rows"][0][102]]["name"] == "grass"
    assert "1 hexes on levels other than 00" in imported.report["ignored"]


def test_rivers_are_kept_with_their_labels_and_cut_where_they_leave_the_map() -> None:
    # Four hexes, 2×2. The first river runs 0101-0102-0202 (cells (0,0) (0,1) (1,1)) with its
    # label (its control character dropped); the second starts off the map at row 00 (no hex
    # lies there) and leaves it at column 03: only its piece 0201-0202 stays. A trail and a
    # border are other lines, counted.
    text = ("0101 grass\n0201 hills\n0102 grass\n0202 forest\n"
            '0101-0102-0202 river "Blue\x07 Run"\n0200-0201-0202-0302 river\n'
            "0101-0201 trail\n0102-0202 border\n0101-0202 trail\n")
    imported = convert(parse("textmapper", text, "vale", grid="square"), CYPHER_OVERLAND)
    doc = tomllib.loads(imported.toml)
    assert doc["river"] == [{"name": "Blue Run", "path": [[0, 0], [0, 1], [1, 1]]},
                            {"path": [[1, 0], [1, 1]]}]
    report = imported.report
    assert ("2 river lines (drawn on the map; --terrain river=TERRAIN gives the hexes they run "
            "through a terrain)") in report["used"]
    assert "2 river points beyond the listed hexes (the river is cut there)" in report["ignored"]
    assert "2 trail lines (Trek keeps roads and rivers)" in report["ignored"]
    assert "1 border line (Trek keeps roads and rivers)" in report["ignored"]
    # The river changes no cell: the ground is what the hex lines say.
    assert doc["map"]["rows"] == ["gh", "gf"]
    # The map loads with its rivers, and no rule prices crossing them.
    game_map = load_map(imported.toml, RULESETS.named("cypher"))
    assert [r.name for r in game_map.rivers] == ["Blue Run", None]
    assert game_map.legend == load_map(
        convert(parse("textmapper", text.split("0101-0102")[0], "vale", grid="square"),
                CYPHER_OVERLAND).toml, RULESETS.named("cypher")).legend


def test_the_gm_may_make_a_rivers_hexes_a_hazard() -> None:
    # --terrain river=hazard gives every cell a river runs through that terrain, named for
    # the river: 0101-0301 on squares is (0,0) (1,0) (2,0); 0102 stays grass.
    text = '0101 grass\n0201 grass\n0301 forest\n0102 grass\n0101-0301 river "Ley Run"\n'
    doc = toml_of("textmapper", text, BESM_OVERLAND, grid="square",
                  overrides={"river": "hazard", "forest": "open"})
    assert [doc["legend"][ch] for ch in doc["map"]["rows"][0]] == [
        {"terrain": "hazard", "name": "Ley Run"}] * 3
    assert doc["legend"][doc["map"]["rows"][1][0]] == {"terrain": "open", "name": "grass"}
    # On a battle map rivers are not drawn, and the report says how to give them ground.
    report = convert(parse("textmapper", text, "vale"), GURPS_BATTLE).report
    assert ("1 rivers as lines (battle maps draw none; --terrain river=TERRAIN gives their "
            "hexes a terrain)") in report["ignored"]
    doc = toml_of("textmapper", text, GURPS_BATTLE, overrides={"river": "shallow-water"})
    assert "river" not in doc
    assert {doc["legend"][ch]["terrain"] for ch in doc["map"]["rows"][0]} == {"shallow-water"}


def test_gnomeyland_ground_words_are_known() -> None:
    # Text Mapper's Gnomeyland library: firs are forest, fir and forest hills are hills,
    # fir and forest mountains are mountains, a thorp or a large town open ground.
    text = ("0101 dark-green fir\n0201 green fir-hill\n0301 forest-mountains\n"
            "0401 light-soil thorp\n0501 large-town\n0601 brushland\n")
    doc = toml_of("textmapper", text, CYPHER_OVERLAND)
    assert [doc["legend"][ch]["terrain"] for ch in doc["map"]["rows"][0]] == [
        "difficult", "rough", "feature", "open", "open", "difficult"]


def test_bare_and_label_only_coordinates_are_open_ground_not_refused() -> None:
    source = parse("textmapper", '0101 forest\n0201\n0301 "Old Mill" 20\n', "vale")
    imported = convert(source, CYPHER_OVERLAND)
    doc = tomllib.loads(imported.toml)
    assert doc["map"]["rows"] == ["f.o"]
    assert doc["legend"]["o"] == {"terrain": "open", "name": "Old Mill"}
    assert "2 coordinates with no type (open ground)" in imported.report["used"]


def test_labels_give_way_when_there_are_more_kinds_than_legend_characters() -> None:
    # 90 hexes in a row, each grass with a label of its own: 90 kinds of cell, more than the 77
    # legend characters Trek always has, so every hex keeps its word and loses its name.
    text = "".join(f"{x:02d}01 grass \"Farm {x}\"\n" for x in range(1, 91))
    imported = convert(parse("textmapper", text, "farms"), CYPHER_OVERLAND)
    doc = tomllib.loads(imported.toml)
    assert doc["map"]["rows"] == ["g" * 90]
    assert doc["legend"] == {"g": {"terrain": "open", "name": "grass"}}
    assert ("the names of 90 cells (more kinds of cell than legend characters; each keeps "
            "its word)") in imported.report["ignored"]


def test_road_lines_make_the_hexes_they_join_roads_on_an_overland_map() -> None:
    text = "0101 grass\n0201 grass\n0301 forest\n0102 grass\n0101-0201-0301 road\n"
    doc = toml_of("textmapper", text, CYPHER_OVERLAND)
    legend = doc["legend"]
    rows = doc["map"]["rows"]
    # (0,0) (1,0) (2,0) lie on the road; (0,1) does not.
    assert [legend[ch].get("road", False) for ch in rows[0]] == [True, True, True]
    assert legend[rows[1][0]] == {"terrain": "open", "name": "grass"}
    assert legend[rows[0][2]]["terrain"] == "difficult"
    game_map = load_map(convert(parse("textmapper", text, "vale"), CYPHER_OVERLAND).toml,
                        RULESETS.named("cypher"))
    assert [game_map.cell(Square(x, 0)).road for x in range(3)] == [True, True, True]
    assert game_map.cell(Square(0, 1)).road is False
    # A road between hexes that are not neighbours runs through the straight line of hexes
    # between them: 0101 to 0104 is column 0, rows 0 to 3; 0101 to 0401 on squares, row 0.
    for text, grid, cells in [
            ("0101 grass\n0204 grass\n0101-0104 road\n", "hex",
             [(0, 0), (0, 1), (0, 2), (0, 3)]),
            ("0101 grass\n0402 grass\n0101-0401 road\n", "square",
             [(0, 0), (1, 0), (2, 0), (3, 0)])]:
        doc = toml_of("textmapper", text, CYPHER_OVERLAND, grid=grid)
        rows, legend = doc["map"]["rows"], doc["legend"]
        on_road = {(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row)
                   if legend[ch].get("road")}
        assert on_road == set(cells), grid
    # A battle map has no roads: the report says they were left out.
    report = convert(parse("textmapper", text, "vale"), GURPS_BATTLE).report
    assert "roads (battle maps have no road key)" in report["ignored"]


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


def test_an_external_json_tileset_beside_the_map_is_read_as_if_embedded(tmp_path: Path
                                                                        ) -> None:
    embedded = json.loads(tiled([1, 1, 1, 1, 1, 2]))
    tileset = {k: v for k, v in embedded["tilesets"][0].items() if k != "firstgid"}
    (tmp_path / "terrain.tsj").write_text(json.dumps(tileset))
    external = {**embedded, "tilesets": [{"firstgid": 1, "source": "terrain.tsj"}]}
    assert (convert(parse("tiled", json.dumps(external), "keep", folder=tmp_path),
                    CYPHER_OVERLAND).toml
            == convert(parse("tiled", json.dumps(embedded), "keep"), CYPHER_OVERLAND).toml)


@pytest.mark.parametrize(("source", "reason"), [
    ("missing.tsx", "external tileset 'missing.tsx', which Trek cannot read beside the map"),
    ("missing.tsj", "external tileset 'missing.tsj', which Trek cannot read beside the map"),
])
def test_an_external_tileset_trek_cannot_read_is_refused_naming_what_tiled_offers(
        tmp_path: Path, source: str, reason: str) -> None:
    doc = json.loads(tiled([1] * 6))
    doc["tilesets"] = [{"firstgid": 1, "source": source}]
    with pytest.raises(MapError) as caught:
        parse("tiled", json.dumps(doc), "keep", folder=tmp_path)
    assert reason in str(caught.value)


def test_a_tiles_class_or_its_terrain_set_colour_is_its_word() -> None:
    # Tile 0 has the class "forest"; tiles 1 and 2 only a terrain set's colours: tile 1's
    # corners are Water 3 times and Grass once (water wins), tile 2's Grass and Water twice
    # each (the first it names, Grass, wins); tile 3 has a terrain property, which wins.
    doc = json.loads(tiled([1, 2, 3, 4, 1, 2]))
    doc["tilesets"][0]["tiles"] = [
        {"id": 0, "type": "forest"},
        {"id": 3, "class": "ignored", "properties": [
            {"name": "terrain", "type": "string", "value": "swamp"}]}]
    doc["tilesets"][0]["wangsets"] = [{"name": "Ground", "type": "corner", "colors": [
        {"name": "Grass", "color": "#00ff00"}, {"name": "Water", "color": "#0000ff"}],
        "wangtiles": [{"tileid": 1, "wangid": [0, 2, 0, 2, 0, 1, 0, 2]},
                      {"tileid": 2, "wangid": [0, 1, 0, 2, 0, 2, 0, 1]}]}]
    doc = toml_of("tiled", json.dumps(doc), CYPHER_OVERLAND)
    assert doc["map"]["rows"] == ["fwg", "sfw"]
    assert {k: (v["terrain"], v["name"]) for k, v in doc["legend"].items()} == {
        "f": ("difficult", "forest"), "w": ("water", "Water"), "g": ("open", "Grass"),
        "s": ("difficult", "swamp")}


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


# -- Tiled XML (.tmx, .tsx) -------------------------------------------------------------------

# The tileset of `tiled()` above as Tiled writes it in XML: tile 0 grass, 1 forest (named
# Elderwood, penalty 1), 2 wall, 3 a decoration with no terrain.
TERRAIN_TSX = """<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.11.0" name="terrain" tilewidth="32" tileheight="32"
         tilecount="4" columns="4">
 <image source="terrain.png" width="128" height="32"/>
 <tile id="0"><properties><property name="terrain" value="grass"/></properties></tile>
 <tile id="1"><properties>
  <property name="terrain" value="forest"/>
  <property name="name" value="Elderwood"/>
  <property name="penalty" type="int" value="1"/>
 </properties></tile>
 <tile id="2"><properties><property name="terrain" value="wall"/></properties></tile>
 <tile id="3"><properties><property name="colour" value="red"/></properties></tile>
</tileset>
"""


def tmx(data: str, *, tileset: str = '<tileset firstgid="1" source="terrain.tsx"/>',
        encoding: str = 'encoding="csv"', width: int = 3, height: int = 2,
        extra: str = "") -> str:
    """A Tiled XML map with one tile layer holding `data`."""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<map version="1.10" tiledversion="1.11.0" orientation="orthogonal" '
            f'renderorder="right-down" width="{width}" height="{height}" tilewidth="32" '
            f'tileheight="32" infinite="0" nextlayerid="2" nextobjectid="1">\n'
            f' {tileset}\n {extra}\n'
            f' <layer id="1" name="ground" width="{width}" height="{height}">\n'
            f'  <data {encoding}>\n{data}\n</data>\n </layer>\n</map>\n')


def test_a_tmx_map_with_its_tsx_beside_it_reads_as_its_json_twin(tmp_path: Path) -> None:
    (tmp_path / "terrain.tsx").write_text(TERRAIN_TSX)
    text = tmx("1,1,1,\n1,1,2")
    xml = convert(parse(format_of("keep.tmx", text), text, "keep", folder=tmp_path),
                  CYPHER_OVERLAND)
    twin = convert(parse("tiled", tiled([1, 1, 1, 1, 1, 2]), "keep"), CYPHER_OVERLAND)
    assert xml.toml == twin.toml
    assert tomllib.loads(xml.toml)["legend"]["e"] == {"terrain": "difficult",
                                                      "name": "Elderwood", "penalty": 1}


def test_an_embedded_xml_tileset_and_every_layer_encoding_read_the_same(tmp_path: Path
                                                                        ) -> None:
    embedded = TERRAIN_TSX.split("\n", 1)[1].replace('<tileset ', '<tileset firstgid="1" ')
    gids = [1, 3, 1, 2, 2, 1]
    raw = struct.pack("<6I", *gids)
    layers = {
        "csv": ('encoding="csv"', ",".join(map(str, gids))),
        "base64": ('encoding="base64"', base64.b64encode(raw).decode()),
        "zlib": ('encoding="base64" compression="zlib"',
                 base64.b64encode(zlib.compress(raw)).decode()),
        "gzip": ('encoding="base64" compression="gzip"',
                 base64.b64encode(gzip.compress(raw)).decode()),
        # Tiled's old XML form: one element per tile.
        "xml": ("", "".join(f'<tile gid="{g}"/>' for g in gids)),
    }
    for encoding, data in layers.values():
        doc = toml_of("tiled", tmx(data, tileset=embedded, encoding=encoding), CYPHER_OVERLAND)
        assert doc["map"]["rows"] == ["gwg", "eeg"]


def test_a_byte_order_mark_before_the_map_or_its_tileset_is_passed_over(tmp_path: Path
                                                                         ) -> None:
    (tmp_path / "terrain.tsx").write_text("\ufeff" + TERRAIN_TSX)
    for text in ("\ufeff" + tmx("1,1,1,\n1,1,2"),
                 "\ufeff" + tiled([1, 1, 1, 1, 1, 2]).replace(
                     '"tilesets": [{', '"tilesets": [{"source": "terrain.tsx", ', 1)):
        doc = tomllib.loads(convert(parse("tiled", text, "keep", folder=tmp_path),
                                    CYPHER_OVERLAND).toml)
        assert doc["map"]["rows"] == ["ggg", "gge"]


@pytest.mark.parametrize("index", ["odd", "even"])
def test_a_tmx_hex_map_reads_as_its_json_twin(tmp_path: Path, index: str) -> None:
    (tmp_path / "terrain.tsx").write_text(TERRAIN_TSX)
    text = tmx("1,2,1,\n2,1,2").replace(
        'orientation="orthogonal"',
        f'orientation="hexagonal" staggeraxis="x" staggerindex="{index}" hexsidelength="16"')
    xml = convert(parse("tiled", text, "h", folder=tmp_path), GURPS_BATTLE)
    assert xml.toml == convert(parse("tiled", hex_map(index), "h"), GURPS_BATTLE).toml
    assert tomllib.loads(xml.toml)["map"]["grid"] == "hex"


def test_a_tmj_map_reads_an_external_tsx_tileset(tmp_path: Path) -> None:
    (tmp_path / "terrain.tsx").write_text(TERRAIN_TSX)
    doc = json.loads(tiled([1, 1, 1, 1, 1, 2]))
    doc["tilesets"] = [{"firstgid": 1, "source": "terrain.tsx"}]
    assert (convert(parse("tiled", json.dumps(doc), "keep", folder=tmp_path),
                    CYPHER_OVERLAND).toml
            == convert(parse("tiled", tiled([1, 1, 1, 1, 1, 2]), "keep"),
                       CYPHER_OVERLAND).toml)


WORDS_TSX = """<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.11.0" name="lands" tilewidth="16" tileheight="16"
         tilecount="6" columns="6">
 <tile id="0" type="brambles"/>
 <tile id="1"><properties><property name="collides" type="bool" value="true"/>
  <property name="ford" type="bool" value="false"/></properties></tile>
 <wangsets>
  <wangset name="Moor" type="corner" tile="-1">
   <wangcolor name="Scrubland" color="#ff0000" tile="-1" probability="1"/>
   <wangcolor name="" color="#00ff00" tile="-1" probability="1"/>
   <wangtile tileid="2" wangid="0,1,0,1,0,1,0,1"/>
   <wangtile tileid="3" wangid="0,2,0,2,0,2,0,1"/>
   <wangtile tileid="4" wangid="0,1,0,1,0,1,0,1"/>
  </wangset>
 </wangsets>
</tileset>
"""


def test_every_word_trek_cannot_place_is_asked_for_at_once_with_where_it_is(
        tmp_path: Path) -> None:
    # Cells, row by row: brambles (tile 0, its class), collides (tile 1, its one property set
    # true), Scrubland (tile 2, the terrain of all its corners), then Moor (tile 3: its
    # terrain has no name, so the set's name stands for it), Scrubland (tile 4), brambles.
    (tmp_path / "lands.tsx").write_text(WORDS_TSX)
    text = tmx("1,2,3,\n4,5,1", tileset='<tileset firstgid="1" source="lands.tsx"/>')
    source = parse("tiled", text, "lands", folder=tmp_path)
    with pytest.raises(MapError) as caught:
        convert(source, BESM_BATTLE)
    assert str(caught.value) == (
        "the map uses 4 words Trek cannot turn into a terrain here: 'brambles' (the class of "
        "tiles in tileset 'lands'; 2 cells, the first at 0,0), 'collides' (the property "
        "'collides' of tiles in tileset 'lands'; 1 cell, the first at 1,0), 'Scrubland' "
        "(terrain set 'Moor' in tileset 'lands'; 2 cells, the first at 2,0) and 'Moor' "
        "(terrain set 'Moor' in tileset 'lands'; 1 cell, the first at 0,1); say what each "
        "is with --terrain brambles=TERRAIN --terrain collides=TERRAIN --terrain "
        "Scrubland=TERRAIN --terrain Moor=TERRAIN (one of difficult, open, wall)")
    doc = tomllib.loads(convert(source, BESM_BATTLE, {
        "brambles": "difficult", "collides": "wall", "Scrubland": "open",
        "Moor": "open"}).toml)
    rows = doc["map"]["rows"]
    assert [[doc["legend"][k]["terrain"] for k in row] for row in rows] == [
        ["difficult", "wall", "open"], ["open", "open", "difficult"]]


def test_terrains_from_before_tiled_1_5_are_named_as_left_out(tmp_path: Path) -> None:
    old = """<tileset name="old" tilewidth="16" tileheight="16" tilecount="2" columns="2">
 <terraintypes><terrain name="Grass" tile="0"/></terraintypes>
 <tile id="0" terrain="0,0,0,0"/>
 <wangsets><wangset name="Edges" tile="-1">
  <wangedgecolor name="Road" color="#ff0000" tile="-1" probability="1"/>
  <wangtile tileid="1" wangid="0x1010101"/>
 </wangset></wangsets>
</tileset>"""
    (tmp_path / "old.tsx").write_text(old)
    text = tmx("1,2,1,\n2,1,2", tileset='<tileset firstgid="1" source="old.tsx"/>')
    imported = convert(parse("tiled", text, "old", folder=tmp_path), BESM_BATTLE)
    assert imported.report["terrains"] == {"open": "open"}
    assert ("the terrains of tileset 'old' (saved by a Tiled before 1.5; open and save the "
            "tileset in a newer Tiled to make them a terrain set)") in imported.report["ignored"]
    assert ("terrain set 'Edges' of tileset 'old' (saved by a Tiled before 1.5; open and save "
            "the tileset in a newer Tiled)") in imported.report["ignored"]


def bomb() -> str:
    """A zlib layer that inflates to far more than a 3×2 map's 24 bytes of gids."""
    return base64.b64encode(zlib.compress(b"\0" * 1_000_000)).decode()


@pytest.mark.parametrize(("text", "reason"), [
    ("<map", "the Tiled map is not valid XML (unclosed token: line 1, column 0)"),
    (TERRAIN_TSX, "the file is a Tiled tileset, not a map; import the .tmx or .tmj map"),
    ("<svg/>", "the Tiled map starts with <svg>, not <map>"),
    (tmx(bomb(), encoding='encoding="base64" compression="zlib"'),
     "has layer 'ground' whose base64 data is not 6 4-byte gids"),
    (tmx("AAAA", encoding='encoding="base64" compression="zstd"'),
     "compressed with 'zstd'; Trek reads uncompressed, zlib or gzip base64 (or CSV): pick "
     "one as the Tile Layer Format in Tiled's map properties"),
    (tmx("1,1,x,1,1,1"), "has layer 'ground', which pytiled-parser cannot read (invalid "
                         "literal for int() with base 10: 'x')"),
    (tmx("1,1,1,1", tileset='<tileset firstgid="1" name="t" tilewidth="8" tileheight="8" '
                           'tilecount="1" columns="1"><wangsets><wangset name="W" type="corner" '
                           'tile="-1"><wangcolor name="A"/></wangset></wangsets></tileset>'),
     "has the tileset 't', which pytiled-parser cannot read (it has no 'color' attribute)"),
    (tmx(""), "has layer 'ground' whose CSV data is empty"),
    (tmx("1,1,1,1,1,1", tileset='<tileset firstgid="1"><tile/></tileset>'),
     "has a tileset without a name, which pytiled-parser cannot read (it has no 'id' "
     "attribute)"),
    (tmx("1,1,1,1,1,1", width=201), "201×2 cells, larger than Trek imports"),
    (tmx("1,1,1,1,1,1").replace('infinite="0"', 'infinite="1"'), "is infinite"),
    (tmx("1,1,1,1,1,1").replace('width="3" height="2" tilewidth', 'width="three" height="2" '
                                                                  'tilewidth'),
     "has width 'three'; it must be a whole number of at least 1"),
])
def test_malformed_tmx_maps_are_refused_with_the_reason(text: str, reason: str) -> None:
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


def test_uvtt_walls_and_doors_land_on_the_edges_between_squares() -> None:
    # The wall on the grid line y=1 from x=0 to 3 is those three edges; the wall down x=3.5
    # runs half a square off the lines, so it lands on the nearest line, x=4 (a half rounds
    # up); the portals along y=2.5 land on y=3 (the map's foot), each one square wide.
    imported = convert(parse("uvtt", uvtt(), "cellar"), BESM_BATTLE)
    doc = tomllib.loads(imported.toml)
    assert doc["map"] == {"name": "cellar", "grid": "square", "rows": ["....", "....", "...."]}
    assert doc["wall"] == [{"points": [[0, 1], [3, 1]]}, {"points": [[4, 0], [4, 3]]}]
    assert doc["door"] == [
        {"from": [0, 3], "to": [1, 3], "name": "door at 0,3", "closed": True},
        {"from": [1, 3], "to": [2, 3], "name": "door at 1,3", "closed": False}]
    report = imported.report
    assert (report["walls"], report["doors"]) == (2, 2)
    # The picture is carried as its bytes, a cell 70 of its pixels a side.
    assert imported.picture == base64.b64decode("iVBORw0KGgo=")
    assert imported.pixels_per_square == 70
    assert "resolution.pixels_per_grid (points are already in cells)" not in report["ignored"]
    assert "1 wall segments off the grid lines (each on the edges nearest to it)" in (
        report["used"])
    assert {"environment", "format", "lights"} <= set(report["ignored"])


def test_uvtt_map_origin_moves_the_walls() -> None:
    text = uvtt(resolution={"map_origin": {"x": 10, "y": 20}, "map_size": {"x": 2, "y": 2},
                            "pixels_per_grid": 50},
                line_of_sight=[[{"x": 11, "y": 20}, {"x": 11, "y": 22}]], portals=[])
    assert toml_of("uvtt", text, BESM_BATTLE)["wall"] == [{"points": [[1, 0], [1, 2]]}]


def test_segments_land_on_the_edges_nearest_them_worked_by_hand() -> None:
    def along(a: tuple[float, float], b: tuple[float, float]) -> list[tuple[int, int, str]]:
        return list(edges_along((Fraction(a[0]), Fraction(a[1])),
                                (Fraction(b[0]), Fraction(b[1]))))

    # On a grid line: exactly the edges under it, either way round.
    assert along((0, 2), (3, 2)) == [(0, 2, "h"), (1, 2, "h"), (2, 2, "h")]
    assert sorted(along((3, 2), (0, 2))) == [(0, 2, "h"), (1, 2, "h"), (2, 2, "h")]
    # A little off the line y=2 (2.1 to 1.9), and not quite reaching x=0 or 3: the same edges.
    assert along((0.2, 2.1), (2.9, 1.9)) == [(0, 2, "h"), (1, 2, "h"), (2, 2, "h")]
    # Corner to corner (0,0) to (2,2): a staircase of grid points (0,0) (1,0) (1,1) (2,1)
    # (2,2), each step the one whose end lies nearer the slanting line (a tie goes across).
    assert along((0, 0), (2, 2)) == [(0, 0, "h"), (1, 0, "v"), (1, 1, "h"), (2, 1, "v")]
    # Shorter than half a square: no edge at all.
    assert along((1.1, 1), (1.4, 1)) == []


def test_a_wall_from_far_away_marks_only_the_edges_on_the_map() -> None:
    # Along the grid line y=1 from x = -10^300 to 10^300 on a 4×3 map: the whole line across
    # the map, worked out without walking a googol of edges.
    text = uvtt(line_of_sight=[[{"x": -1e300, "y": 1}, {"x": 1e300, "y": 1}]], portals=[])
    imported = convert(parse("uvtt", text, "far"), BESM_BATTLE)
    assert tomllib.loads(imported.toml)["wall"] == [{"points": [[0, 1], [4, 1]]}]
    assert "walls beyond the map's edge (cut off there)" in imported.report["ignored"]


# A room 5 squares by 4 between grid points (1,1) and (6,5) on an 8×6 map whose file counts
# from map_origin (-2, 3): file x = x - 2, y = y + 3. Its right wall leaves a two-wide exit
# between (6,2) and (6,4); the top wall runs on through a closed door from (3,1) to (4,1);
# the foot wall breaks for an open door from (2,5) to (3,5); a pillar fills square (3,3).
def room(**changes: Any) -> str:
    def line(*points: tuple[float, float]) -> list[dict[str, float]]:
        return [{"x": x - 2, "y": y + 3} for x, y in points]

    doc: dict[str, Any] = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": -2, "y": 3}, "map_size": {"x": 8, "y": 6},
                       "pixels_per_grid": 256},
        "line_of_sight": [line((1, 1), (6, 1), (6, 2)), line((6, 4), (6, 5), (3, 5)),
                          line((2, 5), (1, 5), (1, 1))],
        "objects_line_of_sight": [line((3, 3), (4, 3), (4, 4), (3, 4), (3, 3))],
        "portals": [
            {"position": line((3.5, 1))[0], "bounds": line((3, 1), (4, 1)),
             "rotation": 0, "closed": True, "freestanding": False},
            {"position": line((2.5, 5))[0], "bounds": line((3, 5), (2, 5)),
             "rotation": 3.14159, "closed": False, "freestanding": False},
        ],
        "image": "iVBORw0KGgo=",
    }
    doc.update(changes)
    return json.dumps(doc)


def room_step(x: int, y: int, direction: str) -> Any:
    """Kira, on (x, y) of the imported room in a BESM fight, steps once toward `direction`."""
    imported = convert(parse("uvtt", room(), "room"), BESM_BATTLE)
    c = Campaign.start(Stamp("gm", datetime(2024, 5, 1, tzinfo=UTC)), name="Room",
                       ruleset="besm", rulesets=RULESETS, seed=1, game_map=None, at=None)
    c.handle(AddCharacter(CharacterOptions(name="Kira", extra={"body": 6, "mind": 5,
                                                                "soul": 4})))
    c.handle(StartEncounter("Room", load_battle_map(imported.toml,
                                                    RULESETS.named("besm").battle_legend)))
    c.handle(EnterCombatant(name="Kira", at=Square(x, y)))
    c.handle(StartRound())
    return c.handle(MoveCombatant(name="Kira", steps=(direction,)))


def test_a_uvtt_room_imports_to_the_edges_its_file_shows() -> None:
    doc = toml_of("uvtt", room(), BESM_BATTLE, stem="room")
    # Rows of edges first (by y), then columns (by x); the closed door's edge is not wall.
    assert [w["points"] for w in doc["wall"]] == [
        [[1, 1], [3, 1]], [[4, 1], [6, 1]], [[3, 3], [4, 3]], [[3, 4], [4, 4]],
        [[1, 5], [2, 5]], [[3, 5], [6, 5]],
        [[1, 1], [1, 5]], [[3, 3], [3, 4]], [[4, 3], [4, 4]], [[6, 1], [6, 2]],
        [[6, 4], [6, 5]]]
    assert doc["door"] == [
        {"from": [3, 1], "to": [4, 1], "name": "door at 3,1", "closed": True},
        {"from": [2, 5], "to": [3, 5], "name": "door at 2,5", "closed": False}]


@pytest.mark.parametrize(("x", "y", "direction"), [
    (5, 2, "E"), (5, 3, "E"),          # the exit is two wide: both squares step out
    (2, 4, "S"), (2, 5, "N"),          # the open door passes, both ways
    (6, 2, "W"), (7, 0, "SW"),         # back in by the exit; outside, clear of any corner
])
def test_the_imported_room_lets_through_where_its_file_is_open(x: int, y: int,
                                                               direction: str) -> None:
    event = room_step(x, y, direction)
    assert event.path[0] == Square(x, y)
    assert event.path[-1] == Square(x, y).step(direction)


@pytest.mark.parametrize(("x", "y", "direction", "words"), [
    (5, 1, "E", "a wall stands between 5,1 and 6,1"),
    (5, 4, "E", "a wall stands between 5,4 and 6,4"),
    # The corners where two walls meet hold against diagonal steps out of the room.
    (5, 4, "SE", "a wall meets the corner 6,5"),
    (1, 1, "NW", "a wall meets the corner 1,1"),
    (1, 4, "SW", "a wall meets the corner 1,5"),
    # Nor does the exit's edge let a diagonal step slip round the wall's end.
    (5, 1, "SE", "a wall meets the corner 6,2"),
    # The closed door blocks; the pillar's square is shut on every side.
    (3, 1, "N", "the door at 3,1 is closed between 3,1 and 3,0"),
    (0, 0, "SE", "a wall meets the corner 1,1"),
    (3, 2, "S", "a wall stands between 3,2 and 3,3"),
])
def test_the_imported_room_holds_where_its_file_has_walls(x: int, y: int, direction: str,
                                                          words: str) -> None:
    with pytest.raises(RuleViolation, match=words):
        room_step(x, y, direction)


def test_a_df2vtt_file_reads_as_a_dd2vtt_file() -> None:
    assert format_of("room.df2vtt", room()) == format_of("room.dd2vtt", room()) == "uvtt"
    assert (convert(parse(format_of("room.df2vtt", ""), room(), "room"), BESM_BATTLE).toml
            == convert(parse(format_of("room.dd2vtt", ""), room(), "room"), BESM_BATTLE).toml)


def test_an_image_given_as_a_path_is_looked_for_beside_the_file(tmp_path: Path) -> None:
    (tmp_path / "room.png").write_bytes(b"\x89PNG")
    found = convert(parse("uvtt", room(image="room.png"), "room", folder=tmp_path),
                    BESM_BATTLE).report
    assert ("image 'room.png' (a picture file, found beside the file; Trek does not keep the "
            "picture)") in found["ignored"]
    missing = convert(parse("uvtt", room(image="maps/cellar.webp"), "room", folder=tmp_path),
                      BESM_BATTLE).report
    assert ("image 'maps/cellar.webp' (a picture file, not found beside the file; Trek does "
            "not keep the picture)") in missing["ignored"]


def test_a_portal_keeps_its_name_and_names_stay_apart() -> None:
    doc = json.loads(room())
    doc["portals"][0]["name"] = "Vault\u0007 door"
    doc["portals"][1]["name"] = "Vault door"
    text = toml_of("uvtt", json.dumps(doc), BESM_BATTLE)
    assert [d["name"] for d in text["door"]] == ["Vault door", "Vault door (2)"]


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
    ("a.dd2vtt", "", "uvtt"), ("a.df2vtt", "", "uvtt"), ("a.uvtt", "", "uvtt"),
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

"""`trek map import`, `init --map` and `encounter start --map` with maps from other tools,
through the real `trek` program.

The files are written here by hand from each format's public description; the expected cells
are worked out from them by hand (see tests/unit/test_map_imports.py for the rules of each).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import docpages
import pytest
from cliruns import ok, recorded, refused, usage_error
from conftest import Browser, TrekRun
from pictures import picture_base64

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow

# Columns 01-03, rows 01-02: (0,0) forest, (1,0) hills, (2,1) mountain; the rest unlisted.
VALE_TXT = """\
# The vale
forest attributes fill="green"
0101 forest
0201 hills "Old Mill"
0302 mountain
0101-0302 river
"""

# An orthogonal 3×2 Tiled map: tile 0 grass, 1 woods, 2 lake; gids start at 1.
#   row 0: grass woods grass
#   row 1: lake  grass woods
KEEP_TMJ: dict[str, Any] = {
    "type": "map", "orientation": "orthogonal", "width": 3, "height": 2, "infinite": False,
    "tilewidth": 32, "tileheight": 32,
    "properties": [{"name": "name", "type": "string", "value": "Keep <b>[red]"}],
    "layers": [{"type": "tilelayer", "name": "ground", "width": 3, "height": 2,
                "data": [1, 2, 1, 3, 1, 2]}],
    "tilesets": [{"firstgid": 1, "tilecount": 3, "tiles": [
        {"id": 0, "properties": [{"name": "terrain", "type": "string", "value": "grass"}]},
        {"id": 1, "properties": [{"name": "terrain", "type": "string", "value": "woods"}]},
        {"id": 2, "properties": [{"name": "terrain", "type": "string", "value": "lake"}]},
    ]}],
}

# A 4×3 battle map: a wall along the grid line y=1 from x=0 to x=3 (row 1, columns 0-2),
# a wall down the middle of column 3, a closed door across (0,2), an open one across (1,2).
#   row 0: . . . #
#   row 1: # # # #
#   row 2: c . . #
CELLAR_UVTT: dict[str, Any] = {
    "format": 0.3,
    "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 3},
                   "pixels_per_grid": 70},
    "line_of_sight": [[{"x": 0, "y": 1}, {"x": 3, "y": 1}],
                      [{"x": 3.5, "y": 0}, {"x": 3.5, "y": 3}]],
    "portals": [
        {"position": {"x": 0.5, "y": 2.5}, "bounds": [{"x": 0, "y": 2.5}, {"x": 1, "y": 2.5}],
         "rotation": 0, "closed": True, "freestanding": False},
        {"position": {"x": 1.5, "y": 2.5}, "bounds": [{"x": 1, "y": 2.5}, {"x": 2, "y": 2.5}],
         "rotation": 0, "closed": False, "freestanding": False},
    ],
    "lights": [],
    "image": picture_base64(4 * 70, 3 * 70),
}


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "vale.txt").write_text(VALE_TXT)
    (tmp_path / "keep.tmj").write_text(json.dumps(KEEP_TMJ))
    (tmp_path / "cellar.uvtt").write_text(json.dumps(CELLAR_UVTT))
    return tmp_path


def cells(map_doc: dict[str, Any]) -> list[list[tuple[str, str | None]]]:
    """Each cell as (terrain, name), row by row, whatever characters the legend uses."""
    legend = map_doc["legend"]
    return [[(legend[ch]["terrain"], legend[ch].get("name")) for ch in row]
            for row in map_doc["rows"]]


def test_map_import_writes_a_map_that_init_accepts(trek_run: Run, files: Path) -> None:
    report = ok(trek_run("--json", "map", "import", "vale.txt", "--to", "vale.toml",
                         "--ruleset", "cypher")).json()
    assert report["format"] == "textmapper"
    assert (report["width"], report["height"], report["grid"]) == (3, 2, "square")
    assert report["terrains"] == {"forest": "difficult", "hills": "rough", "open": "open",
                                  "mountain": "feature"}
    assert report["wrote"] == "vale.toml"
    assert "1 quoted labels" in report["ignored"]
    assert "3 unlisted cells (made open ground)" in report["ignored"]
    assert not (files / "trek.db").exists()  # converting a file touches no store

    recorded(trek_run("--json", "init", "Vale", "--ruleset", "cypher", "--map", "vale.toml"),
             1, "CampaignStarted")
    shown = ok(trek_run("map", "show", "--json")).json()["map"]
    assert cells(shown) == [
        [("difficult", "forest"), ("rough", "hills"), ("open", "open")],
        [("open", "open"), ("open", "open"), ("feature", "mountain")],
    ]


def test_map_import_says_in_words_what_it_read_and_ignored(trek_run: Run, files: Path) -> None:
    out = ok(trek_run("map", "import", "cellar.uvtt", "--to", "cellar.toml", "--battle")).stdout
    assert "Wrote cellar.toml: 4×3 square map from a Universal VTT file." in out
    assert "wall -> wall" in out
    assert "image (the picture under the grid, placed by resolution.pixels_per_grid)" in out
    # The picture is written beside the map, which names it.
    assert "Wrote its picture to cellar.png." in out
    assert (files / "cellar.png").read_bytes() == base64.b64decode(CELLAR_UVTT["image"])
    assert 'image = "cellar.png"\npixels_per_square = 70\n' in (files / "cellar.toml").read_text()
    assert "portals (closed doors become walls; open doors are left open)" in out


def test_init_takes_a_tiled_map_directly(trek_run: Run, files: Path) -> None:
    out = ok(trek_run("init", "Keep", "--map", "keep.tmj")).stdout
    assert "Imported keep.tmj (Tiled JSON, 3×2 square)" in out
    shown = ok(trek_run("map", "show", "--json")).json()["map"]
    # BESM overland maps have open, feature and hazard: woods are open ground, a lake a
    # feature; the map's own name property names it, markup and all, as plain text.
    assert shown["name"] == "Keep <b>[red]"
    assert cells(shown) == [
        [("open", "grass"), ("open", "woods"), ("open", "grass")],
        [("feature", "lake"), ("open", "grass"), ("open", "woods")],
    ]
    assert "Keep <b>[red]" in ok(trek_run("map", "show")).stdout


def test_a_map_file_with_another_extension_is_still_read_as_toml(trek_run: Run,
                                                                 files: Path) -> None:
    ok(trek_run("map", "import", "vale.txt", "--to", "vale.toml"))
    (files / "vale.toml").rename(files / "vale.map")
    ok(trek_run("init", "Vale", "--map", "vale.map"))
    assert ok(trek_run("map", "show", "--json")).json()["map"]["name"] == "vale"


def test_init_terrain_overrides_the_built_in_word(trek_run: Run, files: Path) -> None:
    ok(trek_run("init", "Keep", "--map", "keep.tmj", "--terrain", "woods=hazard"))
    shown = ok(trek_run("map", "show", "--json")).json()["map"]
    assert cells(shown)[0][1] == ("hazard", "woods")


def test_encounter_start_takes_a_uvtt_map_with_walls_where_the_walls_are(
        trek_run: Run, files: Path) -> None:
    ok(trek_run("init", "Cellar", "--seed", "2"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"))
    recorded(trek_run("--json", "encounter", "start", "Break-in", "--map", "cellar.uvtt"),
             3, "EncounterStarted")
    status = ok(trek_run("encounter", "status", "--json")).json()
    wall, door, floor = ("wall", "wall"), ("wall", "closed door"), ("open", "open")
    assert cells(status["map"]) == [
        [floor, floor, floor, wall],
        [wall, wall, wall, wall],
        [door, floor, floor, wall],
    ]
    # The walls hold: Kira at 1,0 cannot step south into the wall at 1,1.
    ok(trek_run("encounter", "join", "Kira", "--at", "1,0"))
    ok(trek_run("encounter", "round"))
    refused(trek_run("encounter", "move", "Kira", "S"), "wall")


def log_of(trek_run: Run) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = ok(trek_run("log", "--json")).json()
    return entries


def test_refused_imports_store_nothing(trek_run: Run, files: Path) -> None:
    (files / "broken.tmj").write_text('{"width": 2,')
    (files / "glade.txt").write_text("0101 glade\n")
    refused(trek_run("init", "Broken", "--map", "broken.tmj"), "broken.tmj",
            "is not valid JSON")
    refused(trek_run("init", "Glade", "--map", "glade.txt"), "'glade'",
            "--terrain glade=TERRAIN")
    refused(trek_run("init", "Cellar", "--map", "cellar.uvtt"), "is a battle map")
    assert not (files / "trek.db").exists()

    ok(trek_run("init", "Hexes", "--ruleset", "gurps"))
    before = log_of(trek_run)
    # GURPS fights on hexes; a Universal VTT map is squares.
    refused(trek_run("encounter", "start", "Fight", "--map", "cellar.uvtt"), "plays on hexes")
    refused(trek_run("encounter", "start", "Fight", "--map", "glade.txt"), "'glade'")
    assert log_of(trek_run) == before


def test_map_import_keeps_an_existing_file_unless_forced(trek_run: Run, files: Path) -> None:
    (files / "vale.toml").write_text("mine")
    refused(trek_run("map", "import", "vale.txt", "--to", "vale.toml"), "already exists",
            "--force")
    assert (files / "vale.toml").read_text() == "mine"
    ok(trek_run("map", "import", "vale.txt", "--to", "vale.toml", "--force"))
    assert (files / "vale.toml").read_text().startswith("[map]\n")


@pytest.mark.parametrize(("name", "text", "reason"), [
    ("map.png", "", "cannot tell what kind of map"),
    ("bad.txt", "0101 forest\n0001 hills\n", "line 2: coordinate 0001"),
    ("ext.tmj", json.dumps({**KEEP_TMJ, "tilesets": [{"firstgid": 1, "source": "t.tsj"}]}),
     "external tileset 't.tsj'"),
    ("gid.tmj", json.dumps({**KEEP_TMJ, "layers": [{"type": "tilelayer",
                                                    "data": [1, 2, 1, 3, 1, 7]}]}),
     "gid 7, which is in no tileset"),
    ("huge.uvtt", json.dumps({**CELLAR_UVTT, "resolution": {"map_size": {"x": 500, "y": 2}}}),
     "larger than Trek imports"),
])
def test_malformed_files_are_refused_with_the_reason(trek_run: Run, tmp_path: Path, name: str,
                                                     text: str, reason: str) -> None:
    (tmp_path / name).write_text(text)
    refused(trek_run("map", "import", name, "--to", "out.toml", "--battle"), reason)
    assert not (tmp_path / "out.toml").exists()


def test_a_bad_terrain_option_is_a_usage_error(trek_run: Run, files: Path) -> None:
    usage_error(trek_run("map", "import", "vale.txt", "--to", "v.toml", "--terrain", "woods"))


def test_the_readme_example_runs_as_written(trek_run: Run, tmp_path: Path) -> None:
    """docs/maps.md's "Maps from other tools" block, line by line, on the committed examples."""
    import shlex
    import shutil

    root = Path(__file__).resolve().parents[2]
    section = docpages.after("docs/maps.md", "## Maps from other tools")
    start = section.index("```bash\n") + len("```bash\n")
    block = section[start:section.index("```", start)]
    shutil.copytree(root / "docs" / "examples", tmp_path / "docs" / "examples")
    lines = [line.split("  #")[0].strip() for line in block.splitlines()]
    commands = [shlex.split(line)[1:] for line in lines if line.startswith("trek ")]
    assert len(commands) == 8
    for args in commands:
        ok(trek_run(*args))
    shown = ok(trek_run("map", "show", "--json")).json()["map"]
    # Worked from greywater-vale.txt: row 3 (y 2) is 0103 swamp, 0203 grass, 0303 grass,
    # 0403 hills and 0503 unlisted.
    assert cells(shown)[2] == [("difficult", "swamp"), ("open", "grass"), ("open", "grass"),
                               ("rough", "hills"), ("open", "open")]
    status = ok(trek_run("encounter", "status", "--json")).json()
    # mill-cellar.uvtt: walls on y=2 from x 0-3 and 5-8, the closed door 3-4, the open door
    # 4-5, and a wall down x=5.5 from y 2 to 6.
    assert status["map"]["rows"][2] == "###c.###"
    assert [row[5] for row in status["map"]["rows"]] == [".", ".", "#", "#", "#", "#"]
    assert status["combatants"]["Ana"]["position"] == {"x": 4, "y": 3}


def drawn_cells(dom: str, terrain: str) -> set[tuple[int, int]]:
    """The (x, y) of every cell Chromium rendered with the given terrain class."""
    found = re.findall(rf'class="cell {terrain}" data-x="(\d+)" data-y="(\d+)"', dom)
    return {(int(x), int(y)) for x, y in found}


def test_imported_battle_maps_render_where_the_source_put_things(
        trek_run: Run, tmp_path: Path, chromium: Browser) -> None:
    root = Path(__file__).resolve().parents[2]
    # The README's cellar in a BESM fight: walls on y=2 (x 0-2, the closed door at 3, 5-7)
    # and down column 5 below them; the open door at 4,2 stays floor.
    ok(trek_run("init", "Cellar", "--db", "besm.db"))
    ok(trek_run("encounter", "start", "Break-in", "--db", "besm.db", "--map",
                str(root / "docs" / "examples" / "mill-cellar.uvtt")))
    square = tmp_path / "cellar.svg"
    ok(trek_run("encounter", "show", "--svg", str(square), "--db", "besm.db"))
    dom = chromium.dom(square)
    assert dom.count('class="cell ') == 48
    assert drawn_cells(dom, "wall") == {(0, 2), (1, 2), (2, 2), (3, 2), (5, 2), (6, 2),
                                        (7, 2), (5, 3), (5, 4), (5, 5)}
    assert chromium.screenshot(square, tmp_path / "cellar.png", "520,460").stat().st_size > 5000

    # A flat-topped Tiled hex map with odd columns shifted down, in a GURPS fight: the woods
    # (treacherous) at 1,0 and 0,1 and 2,1, as the layer's gids 1 2 1 / 2 1 2 say.
    hexes = {**KEEP_TMJ, "orientation": "hexagonal", "staggeraxis": "x",
             "staggerindex": "odd", "hexsidelength": 16,
             "layers": [{"type": "tilelayer", "data": [1, 2, 1, 2, 1, 2]}]}
    (tmp_path / "ford.tmj").write_text(json.dumps(hexes))
    ok(trek_run("init", "Ford", "--ruleset", "gurps", "--db", "gurps.db"))
    ok(trek_run("encounter", "start", "Ford", "--map", "ford.tmj", "--db", "gurps.db"))
    hex_svg = tmp_path / "ford.svg"
    ok(trek_run("encounter", "show", "--svg", str(hex_svg), "--db", "gurps.db"))
    dom = chromium.dom(hex_svg)
    assert drawn_cells(dom, "treacherous") == {(1, 0), (0, 1), (2, 1)}
    assert drawn_cells(dom, "open") == {(0, 0), (2, 0), (1, 1)}
    assert chromium.screenshot(hex_svg, tmp_path / "ford.png", "420,360").stat().st_size > 3000

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

# A 4×3 battle map, its walls and doors on the lines between squares: a wall along the grid
# line y=1 from x=0 to x=3 and one down the line x=3; on the line y=2 a closed door from x=0
# to 1 and an open one from 1 to 2.
CELLAR_UVTT: dict[str, Any] = {
    "format": 0.3,
    "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 3},
                   "pixels_per_grid": 70},
    "line_of_sight": [[{"x": 0, "y": 1}, {"x": 3, "y": 1}],
                      [{"x": 3, "y": 0}, {"x": 3, "y": 3}]],
    "portals": [
        {"position": {"x": 0.5, "y": 2}, "bounds": [{"x": 0, "y": 2}, {"x": 1, "y": 2}],
         "rotation": 0, "closed": True, "freestanding": False},
        {"position": {"x": 1.5, "y": 2}, "bounds": [{"x": 1, "y": 2}, {"x": 2, "y": 2}],
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
    assert "1 labels (each names its hex in the legend)" in report["used"]
    assert "3 unlisted cells (made open ground)" in report["ignored"]
    assert not (files / "trek.db").exists()  # converting a file touches no store

    recorded(trek_run("--json", "init", "Vale", "--ruleset", "cypher", "--map", "vale.toml"),
             1, "CampaignStarted")
    shown = ok(trek_run("map", "show", "--json")).json()["map"]
    assert cells(shown) == [
        [("difficult", "forest"), ("rough", "Old Mill"), ("open", "open")],
        [("open", "open"), ("open", "open"), ("feature", "mountain")],
    ]
    # The river 0101-0302 is on the map: listed by `map show`, drawn by --svg from the centre
    # of 0,0 to that of 2,1 (28 + 40x + 20, 48 + 40y + 20, lifted 9).
    assert shown["rivers"] == [{"name": None, "path": [[0, 0], [2, 1]]}]
    assert "river (unnamed): from 0,0 to 2,1 (drawn only; crossing costs nothing)" in ok(
        trek_run("map", "show")).stdout
    ok(trek_run("map", "show", "--svg", "vale.svg"))
    assert ('<polyline class="river" data-name="" points="48.0,59.0 128.0,99.0"'
            in (files / "vale.svg").read_text())


def test_map_import_says_in_words_what_it_read_and_ignored(trek_run: Run, files: Path) -> None:
    out = ok(trek_run("map", "import", "cellar.uvtt", "--to", "cellar.toml", "--battle")).stdout
    assert "Wrote cellar.toml: 4×3 square map from a Universal VTT file." in out
    assert "open -> open" in out
    assert "image (the picture under the grid, placed by resolution.pixels_per_grid)" in out
    # The picture is written beside the map, which names it.
    assert "Wrote its picture to cellar.png." in out
    assert (files / "cellar.png").read_bytes() == base64.b64decode(CELLAR_UVTT["image"])
    assert 'image = "cellar.png"\npixels_per_square = 70\n' in (files / "cellar.toml").read_text()
    assert "portals (doors, open or closed as the file says)" in out
    assert "Walls on the edges between squares: 2 runs; doors: 2" in out


def test_init_takes_a_tiled_map_directly(trek_run: Run, files: Path) -> None:
    out = ok(trek_run("init", "Keep", "--map", "keep.tmj")).stdout
    assert "Imported keep.tmj (Tiled, 3×2 square)" in out
    shown = ok(trek_run("map", "show", "--json")).json()["map"]
    # BESM overland maps have open, feature and hazard: woods are open ground, a lake a
    # feature; the map's own name property names it, markup and all, as plain text.
    assert shown["name"] == "Keep <b>[red]"
    assert cells(shown) == [
        [("open", "grass"), ("open", "woods"), ("open", "grass")],
        [("feature", "lake"), ("open", "grass"), ("open", "woods")],
    ]
    assert "Keep <b>[red]" in ok(trek_run("map", "show")).stdout


def test_a_map_file_trek_does_not_read_is_refused_naming_those_it_reads(trek_run: Run,
                                                                        files: Path) -> None:
    known = ".dd2vtt, .df2vtt, .json, .textmapper, .tmj, .tmx, .txt, .uvtt"
    ok(trek_run("map", "import", "vale.txt", "--to", "vale.toml"))
    (files / "vale.toml").rename(files / "vale.map")
    refused(trek_run("init", "Vale", "--map", "vale.map"),
            "cannot tell what kind of map 'vale.map' is", known)
    # A Tiled tileset is no map: the sentence says to import the map that uses it.
    (files / "keep.tsx").write_text("<tileset/>")
    tileset = "a Tiled tileset: Trek reads it from beside the .tmx or .tmj map that uses it"
    refused(trek_run("map", "import", "keep.tsx", "--to", "keep.toml"), "'keep.tsx'", tileset,
            known)
    assert not (files / "trek.db").exists()
    ok(trek_run("init", "Cellar"))
    before = log_of(trek_run)
    refused(trek_run("encounter", "start", "Fight", "--map", "keep.tsx"), "'keep.tsx'", known)
    assert log_of(trek_run) == before


DESERT = Path(__file__).resolve().parents[1] / "fixtures" / "maps" / "tiled"


def test_a_tmx_map_with_its_tsx_is_read_alike_by_every_command(trek_run: Run,
                                                               files: Path) -> None:
    # Tiled's desert example (tests/unit/test_real_tiled_maps.py works its cells out): its
    # terrain set names Desert, Dirt, Brick and Cobblestone; Trek knows the first two.
    for name in ("desert.tmx", "desert.tsx"):
        (files / name).write_bytes((DESERT / name).read_bytes())
    asked = ("2 words Trek cannot turn into a terrain here: 'Brick' (terrain set 'Desert' in "
             "tileset 'Desert'; ", "--terrain Brick=TERRAIN --terrain Cobblestone=TERRAIN")
    first = trek_run("map", "import", "desert.tmx", "--to", "d.toml", "--battle")
    refused(first, *asked)
    # docs/maps.md shows this refusal as it is.
    assert first.stderr.strip() in docpages.after("docs/maps.md", "### Tiled (`.tmx`, `.tmj`, "
                                                                 "`.json`)")
    refused(trek_run("init", "Dunes", "--map", "desert.tmx"), *asked)
    assert not (files / "trek.db").exists()
    words = ("--terrain", "Brick=wall", "--terrain", "Cobblestone=difficult")
    out = ok(trek_run("map", "import", "desert.tmx", "--to", "d.toml", "--battle", *words))
    assert "Wrote d.toml: 40×40 square map from a Tiled file." in out.stdout
    assert "Brick -> wall" in out.stdout
    assert "Tiled's XML (.tmx, .tsx), read with pytiled-parser" in out.stdout
    # BESM's overland map has open ground, features and hazards.
    init = ok(trek_run("init", "Dunes", "--map", "desert.tmx", "--terrain", "Brick=feature",
                       "--terrain", "Cobblestone=open"))
    assert "Imported desert.tmx (Tiled, 40×40 square)" in init.stdout
    shown = ok(trek_run("map", "show", "--json")).json()["map"]
    # (25,6) is Brick, (12,6) Cobblestone, (0,0) Desert (test_real_tiled_maps.py).
    assert cells(shown)[6][25] == ("feature", "Brick")
    assert cells(shown)[6][12] == ("open", "Cobblestone")
    assert cells(shown)[0][0] == ("open", "Desert")
    before = log_of(trek_run)
    refused(trek_run("encounter", "start", "Fight", "--map", "desert.tmx"), *asked)
    assert log_of(trek_run) == before
    started = ok(trek_run("encounter", "start", "Fight", "--map", "desert.tmx", *words))
    assert "Imported desert.tmx (Tiled, 40×40 square)" in started.stdout


def test_a_df2vtt_file_is_read_like_a_dd2vtt_file_everywhere(trek_run: Run,
                                                             files: Path) -> None:
    (files / "cellar.df2vtt").write_text(json.dumps(CELLAR_UVTT))
    (files / "cellar.dd2vtt").write_text(json.dumps(CELLAR_UVTT))
    ok(trek_run("map", "import", "cellar.df2vtt", "--to", "f.toml", "--battle"))
    ok(trek_run("map", "import", "cellar.dd2vtt", "--to", "d.toml", "--battle"))
    # Each map names the picture written beside it, after its own name; the rest is the same.
    assert (files / "f.toml").read_text().replace('image = "f.png"', 'image = "d.png"') == (
        files / "d.toml").read_text()
    assert (files / "f.png").read_bytes() == (files / "d.png").read_bytes()
    # Not "not valid TOML": init knows it for a battle map, and encounter start takes it.
    refused(trek_run("init", "Cellar", "--map", "cellar.df2vtt"), "is a battle map")
    ok(trek_run("init", "Cellar"))
    ok(trek_run("encounter", "start", "Break-in", "--map", "cellar.df2vtt"))
    status = ok(trek_run("encounter", "status", "--json")).json()
    assert [d["name"] for d in status["doors"]] == ["door at 0,2", "door at 1,2"]


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
    assert {ch for row in status["map"]["rows"] for ch in row} == {"."}
    assert status["map"]["walls"] == [[{"x": 0, "y": 1}, {"x": 3, "y": 1}],
                                      [{"x": 3, "y": 0}, {"x": 3, "y": 3}]]
    assert [(d["name"], d["closed"]) for d in status["doors"]] == [
        ("door at 0,2", True), ("door at 1,2", False)]
    # The walls hold: Kira at 1,0 cannot step south across the wall on y=1.
    ok(trek_run("encounter", "join", "Kira", "--at", "1,0"))
    ok(trek_run("encounter", "round"))
    refused(trek_run("encounter", "move", "Kira", "S"), "a wall stands between 1,0 and 1,1")


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
    ("bad.txt", "0101 forest\n201.01 hills\n", "line 2: the map is 201×1 cells"),
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
    # mill-cellar.uvtt: walls on the line y=2 from x 0-3 and 5-8, the closed door 3-4, the
    # open door 4-5, and a wall down the line x=5 from y 2 to 6.
    assert status["map"]["walls"] == [
        [{"x": 0, "y": 2}, {"x": 3, "y": 2}], [{"x": 5, "y": 2}, {"x": 8, "y": 2}],
        [{"x": 5, "y": 2}, {"x": 5, "y": 6}]]
    assert [(d["name"], d["closed"]) for d in status["doors"]] == [
        ("door at 3,2", True), ("door at 4,2", False)]
    assert status["combatants"]["Ana"]["position"] == {"x": 4, "y": 3}


def drawn_cells(dom: str, terrain: str) -> set[tuple[int, int]]:
    """The (x, y) of every cell Chromium rendered with the given terrain class."""
    found = re.findall(rf'class="cell {terrain}" data-x="(\d+)" data-y="(\d+)"', dom)
    return {(int(x), int(y)) for x, y in found}


def test_imported_battle_maps_render_where_the_source_put_things(
        trek_run: Run, tmp_path: Path, chromium: Browser) -> None:
    root = Path(__file__).resolve().parents[2]
    # The README's cellar in a BESM fight: walls on the line y=2 (x 0-3 and 5-8) and down the
    # line x=5, drawn as lines from grid point to grid point (28 + 40 a point); the closed
    # door 3-4 and the open door 4-5 on y=2 as doors.
    ok(trek_run("init", "Cellar", "--db", "besm.db"))
    ok(trek_run("encounter", "start", "Break-in", "--db", "besm.db", "--map",
                str(root / "docs" / "examples" / "mill-cellar.uvtt")))
    square = tmp_path / "cellar.svg"
    ok(trek_run("encounter", "show", "--svg", str(square), "--db", "besm.db"))
    dom = chromium.dom(square)
    assert dom.count('class="cell ') == 48
    assert drawn_cells(dom, "wall") == set()
    walls = re.findall(r'class="wall" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" '
                       r'y2="([\d.]+)"', dom)
    assert [tuple(float(v) for v in wall) for wall in walls] == [
        (28.0, 108.0, 148.0, 108.0), (228.0, 108.0, 348.0, 108.0), (228.0, 108.0, 228.0, 268.0)]
    assert 'class="door closed" data-door="door at 3,2"' in dom
    assert 'class="door open" data-door="door at 4,2"' in dom
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

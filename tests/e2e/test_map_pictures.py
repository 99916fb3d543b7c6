"""A picture under the grid: `init --map`, `encounter start --map` and `map import` keep the
picture a map brings (a Universal VTT file's `image`, a TOML map's `image = FILE`) in the
campaign's store by its SHA-256, draw it aligned under the grid, refuse what is not a
picture with one sentence and record nothing, and `verify` names a changed picture."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cliruns import ok, recorded, refused
from pictures import picture_base64, picture_bytes

Run = Any


# A 4×3 cellar, 50 pixels a cell, a wall along y=1 (row 1, columns 0-2).
def cellar(image: str | None, *, per_grid: int = 50) -> str:
    doc: dict[str, Any] = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 3},
                       "pixels_per_grid": per_grid},
        "line_of_sight": [[{"x": 0, "y": 1}, {"x": 3, "y": 1}]],
        "portals": [],
    }
    if image is not None:
        doc["image"] = image
    return json.dumps(doc)


VALE_TOML = """\
[map]
name = "Vale"
image = "vale.webp"
pixels_per_square = 32
origin = [10, 6]
rows = ["..f", "f.."]

[legend]
"." = { terrain = "open" }
"f" = { terrain = "feature", name = "forest" }
"""


def pictures_kept(db: str) -> list[tuple[str, int]]:
    with sqlite3.connect(db) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if "trek_pictures" not in tables:
            return []
        return [(str(s), int(n)) for s, n in
                conn.execute("SELECT sha256, length(data) FROM trek_pictures")]


def events(trek_run: Run) -> int:
    return len(ok(trek_run("log", "--json")).json())


def test_a_uvtt_picture_is_kept_by_its_hash_and_drawn_under_the_grid(
        trek_run: Run, tmp_path: Path) -> None:
    image = picture_base64(4 * 50, 3 * 50)
    data = base64.b64decode(image)
    digest = hashlib.sha256(data).hexdigest()
    (tmp_path / "cellar.uvtt").write_text(cellar(image))
    ok(trek_run("init", "Crypt"))
    recorded(trek_run("--json", "encounter", "start", "Cellar", "--map", "cellar.uvtt"),
             2, "EncounterStarted")
    # The event names the picture by its hash and says where the grid lies on it.
    started = ok(trek_run("log", "--json")).json()[-1]
    assert started["map"]["image"] == {"sha256": digest, "type": "image/png", "width": 200,
                                       "height": 150, "pixels_per_square": 50.0,
                                       "origin": [0.0, 0.0]}
    # The bytes are kept once, in the store's own table.
    assert pictures_kept(str(tmp_path / "trek.db")) == [(digest, len(data))]
    # A second fight on the same picture keeps no second copy.
    ok(trek_run("encounter", "end"))
    ok(trek_run("encounter", "start", "Again", "--map", "cellar.uvtt"))
    assert pictures_kept(str(tmp_path / "trek.db")) == [(digest, len(data))]
    ok(trek_run("encounter", "show", "--svg", "fight.svg"))
    svg = (tmp_path / "fight.svg").read_text()
    found = re.search(r'<image class="map-picture" href="data:image/png;base64,([^"]+)" '
                      r'x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)
    assert found is not None
    assert base64.b64decode(found[1]) == data
    x, y, width, height = (float(found[i]) for i in range(2, 6))
    # Each cell is 40 units and 50 pixels: the picture is drawn 4/5 its size, its corner on
    # cell 0,0's corner; the centre of cell 2,1 (pixel 125,75) lies on the cell's drawn centre.
    assert (width, height) == (160.0, 120.0)
    cell = re.search(r'<polygon class="cell [^"]*" data-x="2" data-y="1" points="([^"]+)"', svg)
    assert cell is not None
    corners = [tuple(map(float, p.split(","))) for p in cell[1].split()]
    centre = (sum(c[0] for c in corners) / 4, sum(c[1] for c in corners) / 4)
    assert (x + 125 * 0.8, y + 75 * 0.8) == pytest.approx(centre)


def test_a_toml_map_names_its_picture_and_the_route_draws_it_aligned(
        trek_run: Run, tmp_path: Path) -> None:
    data = picture_bytes(3 * 32 + 20, 2 * 32 + 12, kind="WEBP")
    (tmp_path / "vale.webp").write_bytes(data)
    (tmp_path / "vale.toml").write_text(VALE_TOML)
    ok(trek_run("init", "Vale", "--map", "vale.toml"))
    shown = ok(trek_run("map", "show", "--json")).json()["map"]
    assert shown["image"] == {"sha256": hashlib.sha256(data).hexdigest(), "type": "image/webp",
                              "width": 116, "height": 76, "pixels_per_square": 32.0,
                              "origin": [10.0, 6.0]}
    ok(trek_run("map", "show", "--svg", "vale.svg"))
    svg = (tmp_path / "vale.svg").read_text()
    found = re.search(r'<image class="map-picture" href="data:image/webp;base64,[^"]+" '
                      r'x="([-\d.]+)" y="([-\d.]+)"', svg)
    cell = re.search(r'<rect class="cell [^"]*" data-x="1" data-y="1" x="([\d.]+)" '
                     r'y="([\d.]+)" width="(\d+)"', svg)
    assert found is not None
    assert cell is not None
    side = float(cell[3])
    scale = side / 32
    # Cell 1,1's centre is pixel (10 + 1.5 × 32, 6 + 1.5 × 32) of the picture.
    centre = (float(cell[1]) + side / 2, float(cell[2]) + side / 2)
    assert (float(found[1]) + 58 * scale, float(found[2]) + 54 * scale) == pytest.approx(centre)


@pytest.mark.parametrize(("make", "fragments"), [
    (lambda: b"just some text, not a picture", ("is not a picture Trek can read",
                                                "PNG, JPEG or WebP")),
    (lambda: picture_bytes(16_385, 2), ("16385×2 px", "16,384 px a side at most")),
    (lambda: picture_bytes(4, 4, kind="GIF"), ("is a GIF picture", "PNG, JPEG or WebP")),
    (lambda: b"\x89PNG" + bytes(50 * 1024 * 1024), ("50 MB at most",)),
])
def test_what_is_not_a_usable_picture_is_refused_and_nothing_is_recorded(
        trek_run: Run, tmp_path: Path, make: Any, fragments: tuple[str, ...]) -> None:
    data = make()
    (tmp_path / "cellar.uvtt").write_text(cellar(base64.b64encode(data).decode()))
    (tmp_path / "vale.webp").write_bytes(data)
    (tmp_path / "vale.toml").write_text(VALE_TOML)
    # init makes no store at all.
    refused(trek_run("init", "Vale", "--map", "vale.toml"), *fragments)
    assert not (tmp_path / "trek.db").exists()
    ok(trek_run("init", "Crypt"))
    before = events(trek_run)
    refused(trek_run("encounter", "start", "Cellar", "--map", "cellar.uvtt"), *fragments)
    refused(trek_run("map", "import", "cellar.uvtt", "--to", "cellar.toml", "--battle"),
            *fragments)
    assert events(trek_run) == before
    assert pictures_kept(str(tmp_path / "trek.db")) == []
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("cellar")) == [
        "cellar.uvtt"]


def test_a_refused_start_takes_its_picture_away_again(trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "cellar.uvtt").write_text(cellar(picture_base64(200, 150)))
    ok(trek_run("init", "Crypt"))
    ok(trek_run("encounter", "start", "First"))
    # One encounter at a time: the rules refuse the second, and its picture is not kept.
    refused(trek_run("encounter", "start", "Cellar", "--map", "cellar.uvtt"))
    assert pictures_kept(str(tmp_path / "trek.db")) == []


def test_toml_picture_keys_are_checked_with_their_line(trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "vale.toml").write_text(VALE_TOML.replace("pixels_per_square = 32",
                                                          "pixels_per_square = 0"))
    refused(trek_run("init", "Vale", "--map", "vale.toml"),
            "line 4", "pixels_per_square must be a number from 1 to 16384")
    (tmp_path / "vale.toml").write_text(VALE_TOML.replace('image = "vale.webp"\n', ""))
    refused(trek_run("init", "Vale", "--map", "vale.toml"),
            "pixels_per_square goes with image")
    (tmp_path / "vale.toml").write_text(VALE_TOML)
    refused(trek_run("init", "Vale", "--map", "vale.toml"), "cannot read the picture")
    assert not (tmp_path / "trek.db").exists()


def test_verify_names_a_changed_picture(trek_run: Run, tmp_path: Path, db: str) -> None:
    (tmp_path / "cellar.uvtt").write_text(cellar(picture_base64(200, 150)))
    ok(trek_run("init", "Crypt", db=db))
    ok(trek_run("encounter", "start", "Cellar", "--map", "cellar.uvtt", db=db))
    ok(trek_run("verify", db=db))
    edit = "UPDATE trek_pictures SET data = ?"
    if db.startswith("postgresql"):
        import psycopg

        with psycopg.connect(db) as conn:
            conn.execute(edit.replace("?", "%s"), (b"other bytes",))
    else:
        with sqlite3.connect(db) as conn:
            conn.execute(edit, (b"other bytes",))
    run = trek_run("verify", db=db)
    assert run.returncode == 1
    assert "the map's picture" in run.stderr
    assert "was changed in the store" in run.stderr

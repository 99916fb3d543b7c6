"""`trek encounter door` and the walls between squares (RULES §16) through the `trek` command
line on SQLite: the door's event, its refusals, undo's re-check, status and the SVG picture.

The map is tests/unit/test_edge_walls.py's cellar: a wall from grid point (0,2) to (3,2) and
down to (3,5), the closed "cellar door" on the edge from (3,0) to (3,1) and the open "door at
4,2" from (4,2) to (5,2). Kira (Body 6, ground-speed 2) has Speed 8.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from cliruns import ok, recorded, refused
from conftest import TrekRun

Run = Callable[..., TrekRun]

ROOM = """\
[map]
name = "Cellar"
rows = ["......", "......", "......", "......", "......", "......"]

[legend]
"." = { terrain = "open" }

[[wall]]
points = [[0, 2], [3, 2], [3, 5]]

[[door]]
from = [3, 0]
to = [3, 1]
name = "cellar door"

[[door]]
from = [4, 2]
to = [5, 2]
closed = false
"""


def start(trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "cellar.toml").write_text(ROOM)
    ok(trek_run("init", "Ashes Road", "--seed", "3"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul",
                "4", "--attribute", "ground-speed=2"))
    refused(trek_run("encounter", "door", "cellar door", "open"), "no encounter is open")
    recorded(trek_run("encounter", "start", "Cellar", "--map", str(tmp_path / "cellar.toml"),
                      "--json"), 3, "EncounterStarted")
    recorded(trek_run("encounter", "join", "Kira", "--at", "2,0", "--json"), 4,
             "CombatantEntered")
    recorded(trek_run("encounter", "round", "--json"), 5, "RoundStarted")


def test_a_door_opens_lets_kira_through_and_its_undo_needs_cascade(
        trek_run: Run, tmp_path: Path, db: str) -> None:
    """On SQLite and on PostgreSQL (the `db` fixture)."""
    def on_db(*args: str) -> TrekRun:
        return trek_run(*args, db=db)

    run = on_db
    start(run, tmp_path)
    refused(run("encounter", "door", "cellar door", "close"),
            "the cellar door is already closed")
    refused(run("encounter", "door", "vault", "open"), "no door called 'vault'",
            "cellar door, door at 4,2")
    refused(run("encounter", "move", "Kira", "E"),
            "step 1 is refused: the cellar door is closed between 2,0 and 3,0")
    doc = ok(run("encounter", "status", "--json")).json()
    assert [(d["name"], d["closed"]) for d in doc["doors"]] == [
        ("cellar door", True), ("door at 4,2", False)]

    event = recorded(run("encounter", "door", "cellar door", "open", "--json"), 6,
                     "DoorChanged")
    assert (event["door"], event["closed"]) == ("cellar door", False)
    doc = ok(run("encounter", "status", "--json")).json()
    assert doc["doors"][0]["closed"] is False
    assert doc["combatants"]["Kira"]["remaining"] == 8          # the door cost nothing
    moved = recorded(run("encounter", "move", "Kira", "E", "--json"), 7, "CombatantMoved")
    assert moved["path"] == [{"x": 2, "y": 0}, {"x": 3, "y": 0}]

    refused(run("undo", "6"), "event 7", "--cascade")
    ok(run("undo", "6", "--cascade"))
    doc = ok(run("encounter", "status", "--json")).json()
    assert doc["doors"][0]["closed"] is True
    assert doc["combatants"]["Kira"]["position"] == {"x": 2, "y": 0}
    log = ok(run("log", "--json")).json()
    assert [e["cancelled_by"] for e in log if e["seq"] in (6, 7)] == [8, 8]


def test_a_door_found_by_its_grid_point_closes(trek_run: Run, tmp_path: Path) -> None:
    start(trek_run, tmp_path)
    refused(trek_run("encounter", "door", "4,2", "open"), "the door at 4,2 is already open")
    recorded(trek_run("encounter", "door", "4,2", "close", "--json"), 6, "DoorChanged")
    refused(trek_run("encounter", "move", "Kira", "S", "E", "E", "S"),
            "step 4 is refused: the door at 4,2 is closed between 4,1 and 4,2")
    doc = ok(trek_run("encounter", "status", "--json")).json()
    assert doc["doors"][1] == {"name": "door at 4,2", "from": {"x": 4, "y": 2},
                               "to": {"x": 5, "y": 2}, "closed": True}


def test_the_svg_draws_walls_on_the_lines_and_doors_as_doors(trek_run: Run,
                                                             tmp_path: Path) -> None:
    start(trek_run, tmp_path)
    svg_file = tmp_path / "cellar.svg"
    ok(trek_run("encounter", "show", "--svg", str(svg_file)))
    svg = svg_file.read_text()
    # Grid point (x, y) is drawn at 28 + 40x, 28 + 40y (a 28-pixel margin, 40-pixel squares).
    walls = re.findall(r'<line class="wall" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" '
                       r'y2="([\d.]+)"/>', svg)
    assert [tuple(float(v) for v in line) for line in walls] == [
        (28.0, 108.0, 148.0, 108.0), (148.0, 108.0, 148.0, 228.0)]
    closed = re.search(r'<g class="door closed" data-door="cellar door" data-closed="true">'
                       r'<title>cellar door \(closed\)</title><rect class="leaf-frame" '
                       r'x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)
    assert closed is not None
    # Across the edge x = 148 from y = 28 to 68, 9 pixels thick, inset 3 at each end.
    assert tuple(float(v) for v in closed.groups()) == (143.5, 31.0, 9.0, 34.0)
    opened = re.search(r'<g class="door open" data-door="door at 4,2" data-closed="false">'
                       r'.*?<line class="leaf" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" '
                       r'y2="([\d.]+)"', svg)
    assert opened is not None
    # Swung open about (4,2), drawn at (188, 108): down one square's length.
    assert tuple(float(v) for v in opened.groups()) == (188.0, 108.0, 188.0, 148.0)

"""`--to` onto a square no move may end on names that square's problem (a wall, off the map,
someone standing there, a mountain), before anything is said of the budget; an unknown `--by`
is named before the day's state. In process, through `trek_run`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cliruns import ok, refused
from conftest import TrekRun

Run = Callable[..., TrekRun]

#   x: 0123456789
#   y0 ..........
#   y1 ..........
#   y2 ....#.....     4,2 is a wall
#   y3 ..........
#   ...                the map runs 0..9 × 0..7
SQUARE_MAP = """\
[map]
name = "Yard"
rows = [
  "..........",
  "..........",
  "....#.....",
  "..........",
  "..........",
  "..........",
  "..........",
  "..........",
]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
"""

# The stats `encounter add` takes in each ruleset, for the Bandit standing at 6,6.
STATS = {
    "besm": ("--body", "4", "--mind", "3", "--soul", "3"),
    "cypher": (),
    "shadowrun": ("--quickness", "3"),
    "movepoints": ("--full-move", "6"),
}
# The roster character Kira, with little to spend: a budget too small for the far corner.
KIRA = {
    "besm": ("--body", "2", "--mind", "3", "--soul", "3"),
    "cypher": (),
    "shadowrun": ("--quickness", "2"),
    "movepoints": ("--full-move", "2"),
}


def _fight(run: Run, tmp_path: Path, ruleset: str) -> None:
    (tmp_path / "yard.toml").write_text(SQUARE_MAP)
    ok(run("init", "Yard", "--ruleset", ruleset, "--seed", "1"))
    ok(run("roster", "add-character", "Kira", *KIRA[ruleset]))
    ok(run("encounter", "start", "Brawl", "--map", str(tmp_path / "yard.toml")))
    ok(run("encounter", "join", "Kira", "--at", "0,0"))
    ok(run("encounter", "add", "Bandit", "--side", "enemy", "--at", "6,6", *STATS[ruleset]))
    ok(run("encounter", "round"))
    if ruleset == "movepoints":
        ok(run("encounter", "act", "Kira", "move"))


@pytest.mark.parametrize("ruleset", ["besm", "cypher", "shadowrun", "movepoints"])
def test_to_a_wall_off_the_map_or_an_occupied_cell_names_the_target(
        trek_run: Run, tmp_path: Path, ruleset: str) -> None:
    _fight(trek_run, tmp_path, ruleset)
    before = ok(trek_run("status", "--json")).json()["events"]

    refused(trek_run("encounter", "move", "Kira", "--to", "4,2"), "4,2 is a wall")
    refused(trek_run("encounter", "move", "Kira", "--to", "12,3"),
            "12,3 is off the map (the map runs 0..9 × 0..7)")
    refused(trek_run("encounter", "move", "Kira", "--to", "6,6"), "occupied by Bandit")
    for args in (("4,2",), ("12,3",), ("6,6",)):
        run = trek_run("encounter", "move", "Kira", "--to", *args)
        assert "no legal path" not in run.stderr.casefold(), run

    # A free cell out of reach still speaks of the budget.
    refused(trek_run("encounter", "move", "Kira", "--to", "9,7", "--immediate")
            if ruleset == "cypher" else trek_run("encounter", "move", "Kira", "--to", "9,7"),
            "no legal path")
    assert ok(trek_run("status", "--json")).json()["events"] == before


def test_to_a_mountain_or_off_the_overland_map_names_the_square(trek_run: Run,
                                                                 tmp_path: Path) -> None:
    (tmp_path / "reach.toml").write_text("""\
[map]
name = "Reach"
rows = [
  "........",
  "..^.....",
  "..^.!...",
]

[legend]
"." = { terrain = "open" }
"^" = { terrain = "feature", name = "mountains" }
"!" = { terrain = "hazard", name = "ley storm", penalty = 2 }
""")
    ok(trek_run("init", "Reach", "--map", str(tmp_path / "reach.toml"), "--seed", "1"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "5", "--mind", "5", "--soul",
                "5"))
    ok(trek_run("day", "start"))

    refused(trek_run("move", "--to", "2,1"), "2,1 is mountains")
    refused(trek_run("move", "--to", "20,1"), "20,1 is off the map (the map runs 0..7 × 0..2)")
    refused(trek_run("move", "--to", "4,2"), "4,2 is ley storm", "--through-hazard")
    for target in ("2,1", "20,1", "4,2"):
        assert "no legal path" not in trek_run("move", "--to", target).stderr.casefold()
    refused(trek_run("move", "--to", "7,2"), "no legal path")


def test_cypher_overland_to_a_mountain_names_the_square(trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "reach.toml").write_text("""\
[map]
name = "Reach"
rows = [
  "....",
  ".^..",
]

[legend]
"." = { terrain = "open" }
"^" = { terrain = "feature", name = "mountains" }
""")
    ok(trek_run("init", "Reach", "--ruleset", "cypher", "--map", str(tmp_path / "reach.toml")))
    ok(trek_run("roster", "add-character", "Kira"))
    ok(trek_run("day", "start"))
    refused(trek_run("move", "--to", "1,1"), "1,1 is mountains")
    refused(trek_run("move", "--to", "9,9"), "9,9 is off the map (the map runs 0..3 × 0..1)")


def test_an_unknown_forager_or_navigator_is_named_before_the_day(trek_run: Run) -> None:
    ok(trek_run("init", "Road", "--seed", "1"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "5", "--mind", "5", "--soul", "5"))
    ok(trek_run("roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider", "Kira"))
    ok(trek_run("day", "start"))
    ok(trek_run("move", "E", "E"))        # the whole day's movement is spent

    refused(trek_run("forage", "--by", "Nobody"), "no character called 'Nobody'")
    refused(trek_run("night-travel", "--by", "Nobody"), "no character called 'Nobody'")
    refused(trek_run("repair", "Dusty", "--by", "Nobody"), "no character called 'Nobody'")
    # With a name the roster knows, the day's state is still what is said.
    refused(trek_run("forage", "--by", "Kira"), "none remains")

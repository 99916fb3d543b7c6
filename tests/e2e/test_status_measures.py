"""`trek status` shows each ruleset's own measures, and none that do not apply to it.

BESM keeps Health and Energy for a character and a level and strain for a mount or vehicle.
Cypher's long-term travel (RULES §5) counts miles a day: a vehicle's own, a mount doubling its
rider's; it keeps no Health, Energy or levels. GURPS, Shadowrun and Move-Points have no overland
travel (§6): no day, square, movement budget or mount. `--json` is the same document for all.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from cliruns import ok
from conftest import TrekRun

Run = Callable[..., TrekRun]

ROSTERS: dict[str, list[list[str]]] = {
    "besm": [["roster", "add-character", "Kira", "--body", "5", "--mind", "4", "--soul", "3"],
             ["roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider", "Kira"],
             ["roster", "add-vehicle", "Cart", "--move", "speed=1"]],
    "cypher": [["roster", "add-character", "Kira", "--might", "10", "--speed", "12"],
               ["roster", "add-character", "Bo"],
               ["roster", "add-mount", "Dusty", "--rider", "Kira"],
               ["roster", "add-vehicle", "Cart", "--move", "miles=30", "--driver", "Bo"]],
    "gurps": [["roster", "add-character", "Kira", "--basic-move", "5", "--basic-speed", "5.25"]],
    "shadowrun": [["roster", "add-character", "Kira", "--quickness", "5", "--metatype", "elf"]],
    "movepoints": [["roster", "add-character", "Kira", "--full-move", "6"]],
}


def _status(trek_run: Run, ruleset: str) -> tuple[str, dict[str, object]]:
    ok(trek_run("init", "Far Road", "--ruleset", ruleset, "--seed", "1"))
    for command in ROSTERS[ruleset]:
        ok(trek_run(*command))
    return ok(trek_run("status")).stdout, ok(trek_run("status", "--json")).json()


def _header(text: str, first: str) -> list[str]:
    """The column names of the table whose first column is `first`."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("┃").split("┃")]
        if cells and cells[0] == first:
            return cells
    raise AssertionError(f"no {first} table in:\n{text}")


def test_besm_shows_health_energy_levels_and_strain(trek_run: Run) -> None:
    text, _ = _status(trek_run, "besm")
    assert text.splitlines()[0] == "Far Road (far-road, besm) — no day yet, at 0,0, 4 events"
    assert "movement: base 1, budget 0, used 0, remaining 0" in text
    assert _header(text, "character") == ["character", "Health", "Energy", "aboard", "where"]
    # (5 + 3) × 5 Health and (4 + 3) × 5 Energy, full.
    assert "40/40" in text
    assert "35/35" in text
    assert _header(text, "conveyance") == ["conveyance", "kind", "move", "level", "strain",
                                           "state", "where"]


def test_cypher_shows_miles_a_day_and_no_health_energy_or_levels(trek_run: Run) -> None:
    text, document = _status(trek_run, "cypher")
    assert _header(text, "character") == ["character", "aboard", "where"]
    assert _header(text, "conveyance") == ["conveyance", "kind", "move", "state", "where"]
    assert "0/0" not in text
    assert "- mi/day" not in text
    assert "30 mi/day" in text
    assert "rider's miles ×2" in text
    assert "movement: unit day, used 0, remaining 0, miles_today 0" in text
    # The JSON document is as it was.
    characters = document["characters"]
    assert isinstance(characters, dict)
    assert characters["Kira"]["health_max"] == 0
    conveyances = document["conveyances"]
    assert isinstance(conveyances, dict)
    assert conveyances["Dusty"]["level"] == 0
    assert conveyances["Cart"]["miles"] == 30


@pytest.mark.parametrize("ruleset", ["gurps", "shadowrun", "movepoints"])
def test_rulesets_without_overland_travel_show_no_day_square_movement_or_mount(
        trek_run: Run, ruleset: str) -> None:
    text, document = _status(trek_run, ruleset)
    assert text.splitlines()[0] == f"Far Road (far-road, {ruleset}), 2 events", text
    assert "movement:" not in text
    assert "no day yet" not in text
    assert "at 0,0" not in text
    assert "supplies: provisions=0, fuel=0, ammo=0, wealth=0" in text
    assert _header(text, "character") == ["character", "where"]
    assert "0/0" not in text
    assert document["movement"] == {"base": 0, "budget": 0, "used": 0, "remaining": 0}

"""Move-Points: an enemy put on the tile a combatant is in transit to ends the transit at
once, recorded in the `encounter add` that caused it (RULES §10). In process, through
`trek_run`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cliruns import ok, recorded
from conftest import TrekRun

Run = Callable[..., TrekRun]

#   x: 0123
#   y0 ....
#   y1 ..^.      ^ 2,1: scree, cost 8, poor footing
FORD = """\
[map]
name = "The Ford"
rows = [
  "....",
  "..^.",
]

[legend]
"." = { terrain = "open" }
"^" = { terrain = "open", name = "scree", cost = 8, poor_footing = true }
"""


def test_an_enemy_added_on_the_transit_tile_ends_the_transit_in_that_event(
        trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "ford.toml").write_text(FORD)
    ok(trek_run("init", "Reef", "--ruleset", "movepoints"))
    ok(trek_run("roster", "add-character", "Kira", "--full-move", "6"))
    ok(trek_run("encounter", "start", "Ford", "--map", str(tmp_path / "ford.toml")))
    ok(trek_run("encounter", "join", "Kira", "--at", "3,0"))
    ok(trek_run("encounter", "round"))
    ok(trek_run("encounter", "act", "Kira", "full"))                  # 6 MP
    ok(trek_run("encounter", "move", "Kira", "SW"))                    # 6 of 8 toward 2,1
    kira = ok(trek_run("encounter", "status", "--json")).json()["combatants"]["Kira"]
    assert kira["in_transit"] == {"to": {"x": 2, "y": 1}, "cost": 8, "paid": 6}

    added = recorded(trek_run("encounter", "add", "Gob", "--side", "enemy", "--at", "2,1",
                              "--full-move", "6", "--json"), 8, "CombatantEntered")

    assert added["broken"] == [{"name": "Kira", "to": {"x": 2, "y": 1}, "cost": 8, "paid": 6,
                                "knockdown_risk": True,
                                "reason": "Gob, an enemy, occupies 2,1"}]
    kira = ok(trek_run("encounter", "status", "--json")).json()["combatants"]["Kira"]
    assert (kira["in_transit"], kira["position"]) == (None, {"x": 3, "y": 0})
    line = ok(trek_run("log")).stdout
    assert "Kira loses progress toward 2,1 (knockdown risk)" in line
    # An entry that ends nobody's transit reads as before.
    other = recorded(trek_run("encounter", "add", "Orc", "--side", "enemy", "--at", "0,0",
                              "--full-move", "6", "--json"), 9, "CombatantEntered")
    assert "broken" not in other
    assert "others" not in other
    assert ok(trek_run("replay", "--verify")).returncode == 0

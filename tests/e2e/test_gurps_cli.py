"""A whole GURPS skirmish on hexes through the real `trek` program, on SQLite and PostgreSQL.

Every number is worked by hand from the seed and RULES §6, §8 and §12.8: Kira (Basic Move 5,
Basic Speed 5.75, swimming, water bonus +1) has ground Move 5, water Move ⌊5 ÷ 5⌋ + 1 = 2 and
air Move 0; Oren (Basic Move 4) has ground Move 4; the orc (Basic Move 6) ground Move 6.
Hexes are odd-q (RULES §6): from an odd column NE is (x+1, y), from an even one SE is (x+1, y).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cliruns import ok, recorded, refused
from conftest import TrekRun

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow

#   x: 012345
#   y0 ......
#   y1 ..t~..      treacherous at 2,1; shallow water at 3,1
#   y2 ..#...      wall at 2,2
#   y3 ......
MILL = """\
[map]
name = "Mill yard"
grid = "hex"
rows = [
  "......",
  "..t~..",
  "..#...",
  "......",
]

[legend]
"." = { terrain = "open" }
"t" = { terrain = "treacherous" }
"~" = { terrain = "shallow-water" }
"#" = { terrain = "wall" }
"""


def test_a_gurps_skirmish_with_undo_redo_and_the_history_tools(trek_run: Run, db: str,
                                                                tmp_path: Path) -> None:
    def run(*args: str) -> TrekRun:
        return trek_run(*args, db=db)

    def fighter(name: str) -> dict[str, Any]:
        found: dict[str, Any] = ok(run("encounter", "status", "--json")).json()[
            "combatants"][name]
        return found

    def events() -> int:
        count: int = ok(run("status", "--json")).json()["events"]
        return count

    (tmp_path / "mill.toml").write_text(MILL)
    (tmp_path / "square.toml").write_text(MILL.replace('grid = "hex"\n', ""))
    ok(run("init", "Mill Road", "--ruleset", "gurps", "--seed", "3"))
    kira = recorded(run("roster", "add-character", "Kira", "--basic-move", "5",
                        "--basic-speed", "5.75", "--skill", "swimming=1",
                        "--water-move-bonus", "1", "--json"), 2, "CharacterAdded")
    assert kira["stats"] == {"basic_move": 5, "basic_speed": 5.75, "trait": [],
                             "water_move_bonus": 1, "air_move_bonus": 0}
    recorded(run("roster", "add-character", "Oren", "--basic-move", "4", "--basic-speed",
                 "4.5", "--json"), 3, "CharacterAdded")
    refused(run("roster", "add-character", "Vel", "--basic-move", "5", "--water-move-bonus",
                "1"), "swimming")
    refused(run("roster", "add-character", "Vel", "--body", "5"), "--body")
    refused(run("roster", "add-character", "Vel", "--trait", "gills"), "not a trait")
    refused(run("roster", "add-character", "Vel", "--basic-speed", "5.3"), "quarters")
    refused(run("encounter", "start", "Mill", "--map", str(tmp_path / "square.toml")),
            "plays on hexes")
    assert events() == 3

    recorded(run("encounter", "start", "Mill", "--map", str(tmp_path / "mill.toml"),
                 "--json"), 4, "EncounterStarted")
    recorded(run("encounter", "join", "Kira", "--at", "1,3", "--json"), 5, "CombatantEntered")
    recorded(run("encounter", "join", "Oren", "--at", "4,3", "--facing", "NW", "--json"), 6,
             "CombatantEntered")
    recorded(run("encounter", "add", "Orc", "--side", "enemy", "--at", "4,0", "--facing", "S",
                 "--basic-move", "6", "--basic-speed", "6", "--json"), 7, "CombatantEntered")
    refused(run("encounter", "move", "Kira", "N"), "no round has started")
    recorded(run("encounter", "round", "--json"), 8, "RoundStarted")

    # Kira faces N: N 1,2 (1), N 1,1 (1), NE from odd column 1 to 2,1, treacherous (1 + 1).
    moved = recorded(run("encounter", "move", "Kira", "N", "N", "NE", "--json"), 9,
                     "HexMoved")
    assert moved["path"] == [{"x": 1, "y": 3}, {"x": 1, "y": 2}, {"x": 1, "y": 1},
                             {"x": 2, "y": 1}]
    assert moved["cost"] == 4
    assert fighter("Kira") == {
        "label": "K",
        "side": "party", "position": {"x": 2, "y": 1}, "facing": "N", "moved": 4,
        "remaining": 1, "move": 5, "posture": "standing", "ground_move": 5, "water_move": 2,
        "air_move": 0}
    before = events()
    refused(run("encounter", "move", "Kira", "N"), "already moved this turn")
    refused(run("encounter", "move", "Oren", "--to", "4,1"), "not with --to")
    refused(run("encounter", "move", "Oren", "N", "--shift"), "--shift is not an option")
    # N 4,2, N 4,1, N 4,0: the orc's hex.
    refused(run("encounter", "move", "Oren", "N", "N", "N"), "an enemy")
    # N (1), N (1), L to SW (1): 3 of 4 is over half, so only S, SW or NW; NE is refused.
    refused(run("encounter", "move", "Oren", "N", "N", "L", "--end-facing", "NE"),
            "at most one hex-side from SW")
    refused(run("encounter", "posture", "Oren", "floating"), "not a posture")
    assert events() == before

    # Oren faces NW: N is beside it (1); 1 of 4 is within half, so any end facing.
    oren = recorded(run("encounter", "move", "Oren", "N", "--end-facing", "S", "--json"),
                    10, "HexMoved")
    assert (oren["cost"], oren["facing"]) == (1, "S")
    recorded(run("encounter", "posture", "Orc", "crouching", "--json"), 11, "PostureChanged")
    # The orc faces S and crouches: S to 4,1 costs 1 + ½.
    assert recorded(run("encounter", "move", "Orc", "S", "--json"), 12, "HexMoved")[
        "cost"] == 1.5
    orc = fighter("Orc")
    assert (orc["moved"], orc["remaining"], orc["move"], orc["posture"]) == (
        1.5, 4.5, 6, "crouching")
    text = ok(run("encounter", "status")).stdout
    assert "Mill (gurps, hexes) on Mill yard, round 1" in text
    assert "crouching" in text
    assert ok(run("status", "--json")).json()["encounter"] == ok(
        run("encounter", "status", "--json")).json()

    recorded(run("encounter", "round", "--json"), 13, "RoundStarted")
    refused(run("encounter", "move", "Kira", "N", "--swim"), "swimming enters only")
    refused(run("encounter", "move", "Kira", "N", "--fly"), "air Move is 0")
    # Kira swims SE from even column 2 to 3,1 (shallow water): a side hex, 2 of water Move 2.
    swim = recorded(run("encounter", "move", "Kira", "SE", "--swim", "--json"), 14,
                    "HexMoved")
    assert (swim["cost"], swim["mp"], swim["mode"]) == (2, 2, "water")
    kira_now = fighter("Kira")
    assert (kira_now["move"], kira_now["moved"], kira_now["remaining"]) == (2, 2, 0)
    # Oren steps back (S) to 4,3: no MP, the facing stays S.
    recorded(run("encounter", "move", "Oren", "S", "--step", "--json"), 15, "HexMoved")
    oren_now = fighter("Oren")
    assert (oren_now["position"], oren_now["facing"], oren_now["move"], oren_now["moved"],
            oren_now["remaining"]) == ({"x": 4, "y": 3}, "S", 4, 0, 0)

    svg = tmp_path / "mill.svg"
    ok(run("encounter", "show", "--svg", str(svg)))
    picture = svg.read_text()
    assert "Kira" in picture
    assert "Orc" in picture

    # Undo the orc's crouch: its move (1.5 MP) would now cost 1, so it no longer follows.
    refused(run("undo", "11"), "event 12 (HexMoved)", "--cascade")
    cascade = recorded(run("undo", "11", "--cascade", "--json"), 16, "EventsCancelled")
    assert cascade["cancels"] == [11, 12]
    orc = fighter("Orc")
    assert (orc["position"], orc["posture"]) == ({"x": 4, "y": 0}, "standing")
    recorded(run("redo", "11", "--json"), 17, "EventsRestored")
    assert fighter("Orc")["posture"] == "crouching"
    assert fighter("Orc")["position"] == {"x": 4, "y": 0}
    recorded(run("redo", "12", "--json"), 18, "EventsRestored")
    assert fighter("Orc")["position"] == {"x": 4, "y": 1}
    log = ok(run("log", "--json")).json()
    assert [(e["seq"], e["cancelled_by"]) for e in log if e["seq"] in (11, 12)] == [
        (11, None), (12, None)]

    as_of = ok(run("status", "--as-of", "10", "--json")).json()["encounter"]
    assert as_of["round"] == 1
    assert as_of["combatants"]["Oren"]["facing"] == "S"
    assert as_of["combatants"]["Oren"]["moved"] == 1
    assert ok(run("verify", "--json")).json()["verified"] is True
    assert ok(run("replay", "--verify", "--json")).json()["verified"] is True
    recorded(run("encounter", "end", "--json"), 19, "EncounterEnded")
    assert ok(run("encounter", "status", "--json")).json() is None

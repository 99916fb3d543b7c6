"""Cypher rounds and chases through the real `trek` program, on SQLite and on PostgreSQL.

Every number is worked by hand from RULES §11 and §12.11-12: cells are 5 feet; a short move
reaches 50 feet with no roll; a long move is a Speed task of difficulty 4 (a d20 of 12 or
more), hindered a step by rough, difficult or water ground on its path; a push of F feet is a
Might task of ⌈F ÷ 4⌉ and drifts ⌊F ÷ 2⌋ feet a round; a chase is a Speed task of the level.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cliruns import ok, recorded, refused, usage_error
from conftest import TrekRun

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow

#   x: 0123456789
#   y0 ##########
#   y1 #........#
#   y2 #..::,,..#     difficult 3,2 4,2; rough 5,2 6,2
#   y3 #..ww^^..#     water 3,3 4,3; high gravity 5,3 6,3
#   y4 #zzzzzz..#     zero gravity 1..6 on rows 4 and 5
#   y5 #zzzzzz..#
#   y6 ##########
HOLD = """\
[map]
name = "Derelict hold"
rows = [
  "##########",
  "#........#",
  "#..::,,..#",
  "#..ww^^..#",
  "#zzzzzz..#",
  "#zzzzzz..#",
  "##########",
]

[legend]
"#" = { terrain = "wall" }
"." = { terrain = "open" }
":" = { terrain = "difficult" }
"," = { terrain = "rough" }
"w" = { terrain = "water" }
"^" = { terrain = "high-gravity" }
"z" = { terrain = "zero-gravity" }
"""


def test_rounds_pushes_drift_and_chases_with_undo_and_redo(trek_run: Run, db: str,
                                                           tmp_path: Path) -> None:
    def run(*args: str) -> TrekRun:
        return trek_run(*args, db=db)

    def combatant(name: str) -> dict[str, Any]:
        found: dict[str, Any] = ok(run("encounter", "status", "--json")).json()[
            "combatants"][name]
        return found

    def events() -> int:
        count: int = ok(run("status", "--json")).json()["events"]
        return count

    (tmp_path / "hold.toml").write_text(HOLD)
    ok(run("init", "Hold", "--ruleset", "cypher", "--seed", "7"))
    ok(run("roster", "add-character", "Kira", "--might", "12", "--speed", "14", "--skill",
           "swimming=1"))
    ok(run("roster", "add-character", "Oren", "--speed", "10"))
    recorded(run("encounter", "start", "Boarding", "--map", str(tmp_path / "hold.toml"),
                 "--json"), 4, "EncounterStarted")
    recorded(run("encounter", "join", "Kira", "--at", "1,1", "--json"), 5, "CombatantEntered")
    recorded(run("encounter", "join", "Oren", "--at", "1,3", "--json"), 6, "CombatantEntered")
    recorded(run("encounter", "add", "Ghoul", "--side", "enemy", "--at", "8,1", "--speed",
                 "10", "--json"), 7, "CombatantEntered")
    recorded(run("encounter", "add", "Drone", "--side", "enemy", "--at", "2,5", "--might",
                 "8", "--json"), 8, "CombatantEntered")
    refused(run("encounter", "move", "Kira", "E"), "no round has started")
    refused(run("encounter", "add", "Brute", "--side", "enemy", "--at", "7,1", "--body", "5"),
            "--body", "another ruleset's option")
    assert events() == 8

    recorded(run("encounter", "round", "--json"), 9, "RoundStarted")
    # A short move of 4 open cells: 4 × 5 = 20 feet, no roll.
    short = recorded(run("encounter", "move", "Kira", "E", "E", "E", "E", "--json"), 10,
                     "CypherMoved")
    assert (short["cost"], short["roll"], short["dice"], short["difficulty"],
            short["target"], short["success"]) == (20, None, None, 0, 0, True)
    assert combatant("Kira") == {
        "label": "K",
        "side": "party", "position": {"x": 5, "y": 1}, "facing": None, "moved": 20,
        "remaining": None, "action": "short", "difficulty": 0, "success": True,
        "drifting": None, "chase": None}
    refused(run("encounter", "move", "Kira", "E"), "already made its move")
    refused(run("encounter", "move", "Oren", "E", "--long", "--short"), "cannot be combined")
    refused(run("encounter", "move", "Oren", "E", "--shift"), "--shift")
    refused(run("encounter", "move", "Oren", "S"), "zero gravity")
    refused(run("encounter", "push", "Kira", "E", "--feet", "10"), "not in zero gravity")
    usage_error(run("encounter", "move", "Oren", "E", "--long", "--roll", "21"))
    assert events() == 10

    # Oren's long move: 1,3 -> 2,3 (5) -> NE 3,2 difficult (10) -> 4,2 difficult (10)
    # -> 5,2 rough (5) = 30 feet, hindered once: difficulty 5, target 15. 14 fails; half of
    # 30 is 15, reached at 3,2.
    long = recorded(run("encounter", "move", "Oren", "E", "NE", "E", "E", "--long", "--roll",
                        "14", "--json"), 11, "CypherMoved")
    assert (long["difficulty"], long["roll"], long["target"], long["success"]) == (
        5, 14, 15, False)
    assert long["path"][-1] == {"x": 3, "y": 2}
    assert (long["cost"], combatant("Oren")["moved"]) == (15, 15)

    # The drone pushes off the wall 20 feet east: ⌈20 ÷ 4⌉ = 5, target 15; 4 cells to 6,5;
    # 7,5 is free, so it drifts ⌊20 ÷ 2⌋ = 10 feet a round.
    push = recorded(run("encounter", "push", "Drone", "E", "--feet", "20", "--roll", "15",
                        "--json"), 12, "PushedOff")
    assert (push["difficulty"], push["target"], push["success"]) == (5, 15, True)
    assert push["path"][-1] == {"x": 6, "y": 5}
    assert combatant("Drone")["drifting"] == {"direction": "E", "feet": 10}
    assert combatant("Drone")["action"] == "push"

    # The ghoul runs a long move down to 8,5: 4 open cells, 20 feet; 20 ≥ 12 succeeds.
    ghoul = recorded(run("encounter", "move", "Ghoul", "--to", "8,5", "--long", "--roll",
                         "20", "--json"), 13, "CypherMoved")
    assert (ghoul["cost"], ghoul["success"]) == (20, True)
    # The picture: round 1's four paths (Kira, Oren, the drone's push, the ghoul) and the
    # twelve zero-gravity cells (x 1..6 on rows 4 and 5).
    svg = tmp_path / "hold.svg"
    assert ok(run("encounter", "show", "--svg", str(svg), "--json")).json()["paths"] == 4
    assert svg.read_text().count('class="cell zero-gravity"') == 12

    # Round 2: the drone drifts 2 cells east but the ghoul on 8,5 stops it on 7,5: landed.
    round_two = recorded(run("encounter", "round", "--json"), 14, "RoundStarted")
    assert round_two["paths"] == {"Drone": [{"x": 6, "y": 5}, {"x": 7, "y": 5}]}
    assert combatant("Drone")["position"] == {"x": 7, "y": 5}
    assert combatant("Drone")["drifting"] is None
    assert combatant("Kira")["moved"] == 0

    # An extended chase, level 3 (target 9): a success, then a failure eased to 2 (target 6).
    started = recorded(run("encounter", "chase", "Kira", "--level", "3", "--extended",
                           "--json"), 15, "ChaseStarted")
    assert started["roll"] is None
    assert recorded(run("encounter", "chase-roll", "Kira", "--roll", "9", "--json"), 16,
                    "ChaseRolled")["success"] is True
    assert recorded(run("encounter", "chase-roll", "Kira", "--roll", "2", "--ease", "1",
                        "--json"), 17, "ChaseRolled")["target"] == 6
    assert combatant("Kira")["chase"] == {"level": 3, "successes": 1, "failures": 1,
                                          "outcome": None}
    # A single chase as the quarry, level 2 (target 6): 5 fails.
    recorded(run("encounter", "chase", "Oren", "--level", "2", "--roll", "5", "--role",
                 "quarry", "--json"), 18, "ChaseStarted")
    assert combatant("Oren")["chase"] == {"level": 2, "successes": 0, "failures": 1,
                                          "outcome": "failed"}
    refused(run("encounter", "chase-roll", "Oren", "--roll", "20"), "no extended chase")
    refused(run("encounter", "chase", "Kira", "--level", "2"), "still in a chase")
    assert events() == 18

    text = ok(run("encounter", "status")).stdout
    assert "Boarding (cypher, squares) on Derelict hold, round 2" in text
    assert "level 3, successes 1, failures 1, outcome -" in text
    assert "level 2, successes 0, failures 1, outcome failed" in text
    for name in ("Kira", "Oren", "Ghoul", "Drone"):
        assert name in text
    log = ok(run("log")).stdout
    assert "Oren makes a long move 1,3 → 3,2 (15 ft, difficulty 5, rolled 14 vs 15: failure" \
        in log
    assert "Drone pushes off E for 20 ft 2,5 → 6,5" in log

    # Undoing the push would change round 2's drift: refused, naming it.
    refused(run("undo", "12"), "event 14 (RoundStarted)", "--cascade")
    assert events() == 18
    # Undoing Oren's move changes nothing later: he is back on 1,3, then redone.
    recorded(run("undo", "11", "--json"), 19, "EventsCancelled")
    assert combatant("Oren")["position"] == {"x": 1, "y": 3}
    recorded(run("redo", "11", "--json"), 20, "EventsRestored")
    assert combatant("Oren")["position"] == {"x": 3, "y": 2}
    as_of = ok(run("status", "--as-of", "13", "--json")).json()["encounter"]
    assert as_of["combatants"]["Drone"]["position"] == {"x": 6, "y": 5}
    assert as_of["combatants"]["Drone"]["drifting"] == {"direction": "E", "feet": 10}
    assert ok(run("verify", "--json")).json()["verified"] is True
    assert ok(run("replay", "--verify", "--json")).json()["verified"] is True
    audit = ok(run("audit", "--json")).json()
    assert audit["sessions"]

    recorded(run("encounter", "end", "--json"), 21, "EncounterEnded")
    assert ok(run("encounter", "status", "--json")).json() is None


def test_the_rounds_page_names_the_events_undo_names(trek_run: Run, tmp_path: Path) -> None:
    """docs/fights-cypher-rounds.md, played as written: its words on `trek undo 8` name the
    events the refusal names, and those `--cascade` cancels."""
    import re
    import shlex

    page = (Path(__file__).resolve().parents[2] / "docs" / "fights-cypher-rounds.md").read_text()
    hold = page.split("$ cat hold.toml\n", 1)[1].split("\n$ ", 1)[0]
    (tmp_path / "hold.toml").write_text(hold + "\n")
    for line in re.findall(r"^\$ trek (.+)$", page, re.MULTILINE):
        run = trek_run(*shlex.split(line, comments=True))
        assert "Traceback" not in run.stderr, run
    refusal = trek_run("undo", "8")
    refused(refusal, "--cascade")
    named = set(re.findall(r"event (\d+) \(", refusal.stderr))
    [said] = [p for p in page.split("\n\n") if "`trek undo 8`" in p]
    assert named == {"9"}
    assert set(re.findall(r"event (\d+)", said)) == named
    cascade = ok(trek_run("undo", "8", "--cascade", "--preview", "--json")).json()
    assert cascade[0]["cancels"] == [8, 9]

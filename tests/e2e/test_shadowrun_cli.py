"""A Shadowrun Combat Turn through the real `trek` program, on SQLite and on PostgreSQL.

Every number is worked by hand from RULES §6, §9 and §12.9: Kira, an elf of Quickness 5, runs
5 × 3 = 15 metres a turn; Dvorak, a dwarf of Quickness 4, walks 4; the turn has 3 passes (the
Ganger's), so Kira runs at most ⌈15 ÷ 3⌉ = 5 metres a pass and Dvorak walks ⌈4 ÷ 3⌉ = 2.
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

#   x: 0123456789
#   y0 ..........
#   y1 ..##......      walls at 2,1 and 3,1
#   y2 ..,,......      rough at 2,2 and 3,2
#   y3 ..........
BATTLE_MAP = """\
[map]
name = "Redmond Alley"
cell_meters = 1
rows = [
  "..........",
  "..##......",
  "..,,......",
  "..........",
]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
"," = { terrain = "rough" }
"""


def test_a_combat_turn_by_initiative_pass_with_undo_redo(trek_run: Run, db: str,
                                                          tmp_path: Path) -> None:
    def run(*args: str) -> TrekRun:
        return trek_run(*args, db=db)

    def events() -> int:
        count: int = ok(run("status", "--json")).json()["events"]
        return count

    def combatant(name: str) -> dict[str, Any]:
        found: dict[str, Any] = ok(run("encounter", "status", "--json")).json()[
            "combatants"][name]
        return found

    def refused_recording_nothing(args: tuple[str, ...], *fragments: str) -> None:
        before = events()
        refused(run(*args), *fragments)
        assert events() == before

    (tmp_path / "alley.toml").write_text(BATTLE_MAP)
    ok(run("init", "Seattle", "--ruleset", "shadowrun", "--seed", "7"))
    ok(run("roster", "add-character", "Kira", "--quickness", "5", "--metatype", "elf",
           "--skill", "athletics=3"))
    ok(run("roster", "add-character", "Dvorak", "--quickness", "4", "--metatype", "dwarf"))
    refused_recording_nothing(("roster", "add-character", "Mika", "--quickness", "4",
                               "--metatype", "gnome"), "--metatype must be")
    refused_recording_nothing(("roster", "add-character", "Mika", "--body", "4"),
                              "another ruleset's option")
    recorded(run("encounter", "start", "Ambush", "--map", str(tmp_path / "alley.toml"),
                 "--json"), 4, "EncounterStarted")
    recorded(run("encounter", "join", "Kira", "--at", "0,0", "--json"), 5, "CombatantEntered")
    recorded(run("encounter", "join", "Dvorak", "--at", "0,3", "--json"), 6,
             "CombatantEntered")
    recorded(run("encounter", "add", "Ganger", "--side", "enemy", "--at", "5,1",
                 "--quickness", "4", "--metatype", "ork", "--skill", "athletics=2", "--json"),
             7, "CombatantEntered")
    refused_recording_nothing(("encounter", "move", "Kira", "E"), "no round has started")
    refused_recording_nothing(("encounter", "round", "--passes", "Nobody=2"), "Nobody")

    recorded(run("encounter", "round", "--passes", "Kira=2", "--passes", "Ganger=3", "--json"),
             8, "RoundStarted")
    doc = ok(run("encounter", "status", "--json")).json()
    assert (doc["round"], doc["pass"], doc["passes"]) == (1, 1, 3)
    assert doc["combatants"]["Dvorak"] == {
        "label": "D",
        "side": "party", "position": {"x": 0, "y": 3}, "facing": None, "moved": 0,
        "remaining": None, "gait": None, "rate": None, "pass_limit": None, "moved_turn": 0,
        "tn_modifier": 0, "quickness_bonus": 0, "intercepted": False}

    # Kira runs 0,0 → 4,0: 4 of her 5 metres this pass; 4,0 is next to the Ganger (5,1).
    moved = recorded(run("encounter", "move", "Kira", "--run", "E", "E", "E", "E", "--json"),
                     9, "MovedInPass")
    assert (moved["cost"], moved["gait"], moved["free_attacks"], moved["tn_modifier"]) == (
        4, "run", ["Ganger"], 4)
    assert moved["path"] == [{"x": x, "y": 0} for x in range(5)]
    assert combatant("Kira") == {
        "label": "K",
        "side": "party", "position": {"x": 4, "y": 0}, "facing": None, "moved": 4,
        "remaining": 1, "gait": "run", "rate": 15, "pass_limit": 5, "moved_turn": 4,
        "tn_modifier": 4, "quickness_bonus": 0, "intercepted": False}
    refused_recording_nothing(("encounter", "move", "Kira", "E", "E"), "only 1 more")
    refused_recording_nothing(("encounter", "move", "Kira", "--walk", "E"),
                              "Kira is running this Combat Turn")
    refused_recording_nothing(("encounter", "move", "Kira", "--shift", "E"),
                              "not an option of a shadowrun move")
    # Dvorak walks 2 a pass: 3 cells are too far; 0,3 → 1,2 → 2,2 (rough) is +2.
    refused_recording_nothing(("encounter", "move", "Dvorak", "E", "NE", "E"),
                              "covers 3 metre(s) but Dvorak may move only 2 more")
    walked = recorded(run("encounter", "move", "Dvorak", "NE", "E", "--json"), 10,
                      "MovedInPass")
    assert (walked["cost"], walked["tn_modifier"], walked["free_attacks"]) == (2, 2, [])

    sprint = recorded(run("encounter", "sprint", "Kira", "--roll", "2", "--json"), 11,
                      "Sprinted")
    assert (sprint["roll"], sprint["dice"], sprint["target"], sprint["success"]) == (
        2, None, 4, True)
    refused_recording_nothing(("encounter", "sprint", "Dvorak"), "no Athletics rating")
    recorded(run("encounter", "pass", "--json"), 12, "PassStarted")
    # Pass 2: Quickness 5 + 2 = 7; run 21; ⌈21 ÷ 3⌉ = 7; remaining min(7 − 0, 21 − 4) = 7.
    assert combatant("Kira") == {
        "label": "K",
        "side": "party", "position": {"x": 4, "y": 0}, "facing": None, "moved": 0,
        "remaining": 7, "gait": "run", "rate": 21, "pass_limit": 7, "moved_turn": 4,
        "tn_modifier": 4, "quickness_bonus": 2, "intercepted": False}
    # 5,0 and 6,0 are next to the Ganger; 7,0 is two cells away.
    assert recorded(run("encounter", "move", "Kira", "E", "E", "E", "--json"), 13,
                    "MovedInPass")["free_attacks"] == ["Ganger"]
    refused_recording_nothing(("encounter", "intercept", "Kira", "--by", "Ganger", "--at",
                               "3,0"), "3,0 is not a cell Kira's latest move entered")
    recorded(run("encounter", "intercept", "Kira", "--by", "Ganger", "--at", "6,0", "--json"),
             14, "Intercepted")
    intercepted = {
        "label": "K",
        "side": "party", "position": {"x": 6, "y": 0}, "facing": None, "moved": 3,
        "remaining": 0, "gait": "run", "rate": 21, "pass_limit": 7, "moved_turn": 7,
        "tn_modifier": 4, "quickness_bonus": 2, "intercepted": True}
    assert combatant("Kira") == intercepted
    refused_recording_nothing(("encounter", "move", "Kira", "W"), "intercepted")

    # The terminal picture: the turn, the pass and each combatant's numbers.
    text = ok(run("encounter", "status")).stdout
    assert "round 1, pass 2, passes 3" in text
    for fragment in ("Kira", "Dvorak", "Ganger", "run", "walk", "21"):
        assert fragment in text

    # Undo the sprint: starting pass 2 does not depend on it, and the run after it is legal
    # at Quickness 5 too (run 15, ⌈15 ÷ 3⌉ = 5 a pass): only the sprint goes (RULES §4).
    undone = recorded(run("undo", "11", "--json"), 15, "EventsCancelled")
    assert undone["cancels"] == [11]
    assert ok(run("encounter", "status", "--json")).json()["pass"] == 2
    assert combatant("Kira") == {**intercepted, "rate": 15, "pass_limit": 5,
                                 "quickness_bonus": 0}
    recorded(run("redo", "11", "--json"), 16, "EventsRestored")
    assert combatant("Kira") == intercepted
    # Undo the pass: the run then falls in pass 1 (4 + 3 > 7 a pass), and the interception
    # stops a move that is gone.
    refused(run("undo", "12"), "event 13 (MovedInPass)", "--cascade")
    cascade = recorded(run("undo", "12", "--cascade", "--json"), 17, "EventsCancelled")
    assert cascade["cancels"] == [12, 13, 14]
    assert combatant("Kira")["position"] == {"x": 4, "y": 0}
    assert ok(run("encounter", "status", "--json")).json()["pass"] == 1
    for seq, redo in ((12, 18), (13, 19), (14, 20)):
        recorded(run("redo", str(seq), "--json"), redo, "EventsRestored")
    assert combatant("Kira") == intercepted
    log = ok(run("log", "--json")).json()
    assert [(e["seq"], e["cancelled_by"]) for e in log if e["seq"] in (11, 14)] == [
        (11, None), (14, None)]

    # A rolled sprint: the Ganger's Athletics 2 are two d6, successes those of 4 or more.
    rolled = recorded(run("encounter", "sprint", "Ganger", "--json"), 21, "Sprinted")
    assert (len(rolled["dice"]), rolled["target"]) == (2, 4)
    assert rolled["roll"] == sum(1 for face in rolled["dice"] if face >= 4)
    assert rolled["success"] is (rolled["roll"] > 0)
    recorded(run("encounter", "pass", "--json"), 22, "PassStarted")
    refused_recording_nothing(("encounter", "pass",), "pass 3 is the last")

    # History tools see the turn.
    as_of = ok(run("status", "--as-of", "9", "--json")).json()["encounter"]
    assert (as_of["pass"], as_of["combatants"]["Kira"]["moved"]) == (1, 4)
    assert ok(run("verify", "--json")).json()["verified"] is True
    assert ok(run("replay", "--verify", "--json")).json()["verified"] is True
    svg = tmp_path / "turn.svg"
    assert ok(run("encounter", "show", "--svg", str(svg), "--json")).json()["paths"] == 4

    recorded(run("encounter", "round", "--json"), 23, "RoundStarted")
    doc = ok(run("encounter", "status", "--json")).json()
    assert (doc["round"], doc["pass"], doc["passes"]) == (2, 1, 1)
    assert (doc["combatants"]["Kira"]["intercepted"], doc["combatants"]["Kira"]["gait"],
            doc["combatants"]["Ganger"]["quickness_bonus"]) == (False, None, 0)
    recorded(run("encounter", "end", "--json"), 24, "EncounterEnded")
    refused_recording_nothing(("day", "start"), "no overland rules")

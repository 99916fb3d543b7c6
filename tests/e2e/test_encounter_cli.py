"""A whole BESM skirmish through the real `trek` program, on SQLite and on PostgreSQL.

Every number is worked by hand from RULES §6, §7 and §12: Kira (Body 6, ground-speed 2) has
Speed 8; Oren (Body 5) has Speed 5; the bandit (Body 4) has Speed 4.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cliruns import ok, recorded, refused
from conftest import Browser, TrekRun

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow

#   x: 01234567
#   y0 ........
#   y1 ..##....
#   y2 ..#::...
#   y3 ........
BATTLE_MAP = """\
[map]
name = "Kessel Pass"
rows = [
  "........",
  "..##....",
  "..#::...",
  "........",
]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
":" = { terrain = "difficult" }
"""


def combatant(run: Callable[..., TrekRun], name: str) -> dict[str, Any]:
    doc = ok(run("encounter", "status", "--json")).json()
    found: dict[str, Any] = doc["combatants"][name]
    return found


def test_a_skirmish_with_undo_redo_and_the_history_tools(trek_run: Run, db: str,
                                                           tmp_path: Path) -> None:
    def run(*args: str) -> TrekRun:
        return trek_run(*args, db=db)

    (tmp_path / "pass.toml").write_text(BATTLE_MAP)
    ok(run("init", "Ashes Road", "--seed", "3"))
    ok(run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4",
           "--attribute", "ground-speed=2"))
    ok(run("roster", "add-character", "Oren", "--body", "5", "--mind", "6", "--soul", "5"))
    assert ok(run("status", "--json")).json()["encounter"] is None
    assert ok(run("encounter", "status", "--json")).json() is None

    recorded(run("encounter", "start", "Ambush", "--map", str(tmp_path / "pass.toml"),
                 "--json"), 4, "EncounterStarted")
    recorded(run("encounter", "join", "Kira", "--at", "0,0", "--json"), 5, "CombatantEntered")
    recorded(run("encounter", "join", "Oren", "--at", "0,3", "--json"), 6, "CombatantEntered")
    recorded(run("encounter", "add", "Bandit", "--side", "enemy", "--at", "5,0", "--body",
                 "4", "--mind", "3", "--soul", "3", "--json"), 7, "CombatantEntered")
    refused(run("encounter", "move", "Kira", "E"), "no round has started")
    refused(run("encounter", "join", "Oren", "--at", "1,0"), "already in")
    refused(run("encounter", "add", "Wolf", "--side", "enemy", "--at", "2,1", "--body", "3",
                "--mind", "3", "--soul", "3"), "wall")
    refused(run("day", "start"), "encounter Ambush is open")

    recorded(run("encounter", "round", "--json"), 8, "RoundStarted")
    moved = recorded(run("encounter", "move", "Kira", "E", "E", "E", "E", "--json"), 9,
                     "CombatantMoved")
    assert (moved["cost"], moved["defense_penalty"]) == (4, 0)   # 4,0 is next to the bandit
    assert moved["path"] == [{"x": x, "y": 0} for x in range(5)]
    assert combatant(run, "Kira") == {
        "label": "K",
        "side": "party", "position": {"x": 4, "y": 0}, "facing": None, "moved": 4,
        "remaining": 0, "speed": 8, "prone": False, "acted": False, "defense_penalty": 0,
        "ranged_penalty": 0}
    refused(run("encounter", "move", "Kira", "W"), "one move a round")
    # Oren: 0,3 -> 3,3 -> NE 4,2 (difficult, 2): 3 + 2 = 5 of 5.
    assert recorded(run("encounter", "move", "Oren", "E", "E", "E", "NE", "--json"), 10,
                    "CombatantMoved")["cost"] == 5
    recorded(run("encounter", "act", "Oren", "--ranged", "--json"), 11, "Acted")
    assert combatant(run, "Oren")["ranged_penalty"] == 2

    recorded(run("encounter", "round", "--json"), 12, "RoundStarted")
    # Kira leaves 4,0, next to the bandit: defence -2 this round and the next.
    assert recorded(run("encounter", "move", "Kira", "W", "W", "--json"), 13,
                    "CombatantMoved")["defense_penalty"] == 2
    recorded(run("encounter", "prone", "Oren", "--json"), 14, "WentProne")
    assert combatant(run, "Oren")["speed"] == 2

    # Undo Kira's first move: her second no longer starts where she stands.
    undo = run("undo", "9")
    refused(undo, "event 13 (CombatantMoved)", "--cascade")
    cascade = recorded(run("undo", "9", "--cascade", "--reason", "misread the map", "--json"),
                       15, "EventsCancelled")
    assert cascade["cancels"] == [9, 13]
    assert combatant(run, "Kira")["position"] == {"x": 0, "y": 0}
    recorded(run("redo", "9", "--json"), 16, "EventsRestored")
    assert combatant(run, "Kira")["position"] == {"x": 4, "y": 0}
    log = ok(run("log", "--json")).json()
    assert [(e["seq"], e["cancelled_by"]) for e in log if e["seq"] in (9, 13)] == [
        (9, None), (13, 15)]

    # Time travel, diff, audit, verify and a rebuild see the encounter too.
    as_of = ok(run("status", "--as-of", "10", "--json")).json()["encounter"]
    assert as_of["round"] == 1
    assert as_of["combatants"]["Oren"]["position"] == {"x": 4, "y": 2}
    changes = ok(run("diff", "8", "now", "--json")).json()["changes"]
    assert any(change["field"].startswith("encounter") for change in changes)
    assert ok(run("audit", "--json")).json()["sessions"]
    assert ok(run("verify", "--json")).json()["verified"] is True
    ok(run("replay"))
    assert ok(run("replay", "--verify", "--json")).json()["verified"] is True
    assert combatant(run, "Kira")["position"] == {"x": 4, "y": 0}
    ok(run("branch", "what-if", "--at", "11"))
    branched = ok(run("encounter", "status", "--json", "--campaign", "what-if")).json()
    assert (branched["round"], branched["combatants"]["Oren"]["acted"]) == (1, True)

    recorded(run("encounter", "end", "--json", "--campaign", "ashes-road"), 17,
             "EncounterEnded")
    assert ok(run("status", "--json", "--campaign", "ashes-road")).json()["encounter"] is None
    ok(run("day", "start", "--campaign", "ashes-road"))


def test_a_battle_map_with_an_unknown_word_is_refused_with_its_line(trek_run: Run,
                                                                    tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text(BATTLE_MAP.replace('"difficult" }', '"lava" }'))
    ok(trek_run("init", "Ashes Road"))
    refused(trek_run("encounter", "start", "Ambush", "--map", str(tmp_path / "bad.toml")),
            "line 13", "terrain 'lava'")
    assert ok(trek_run("status", "--json")).json()["events"] == 1


def test_rulesets_without_overland_rules_refuse_them_and_keep_the_rest(trek_run: Run) -> None:
    ok(trek_run("init", "Hexcrawl", "--ruleset", "gurps"))
    refused(trek_run("day", "start"), "gurps ruleset has no overland rules")
    refused(trek_run("roster", "add-mount", "Dusty", "--move", "ground-speed=1"),
            "no overland rules")
    refused(trek_run("forced-march"), "gurps ruleset has no forced march")
    refused(trek_run("roster", "add-character", "Kira", "--body", "5"), "--body")
    ok(trek_run("roster", "add-character", "Kira", "--skill", "swimming=1"))
    ok(trek_run("supplies", "add", "ammo=3"))
    ok(trek_run("encounter", "start", "Brawl"))
    assert ok(trek_run("status", "--json")).json()["events"] == 4


def kira_at_the_pass(trek_run: Run, tmp_path: Path) -> None:
    """A BESM campaign with Kira on its roster and the encounter Ambush open on the pass."""
    (tmp_path / "pass.toml").write_text(BATTLE_MAP)
    ok(trek_run("init", "Ashes Road"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul",
                "4"))
    ok(trek_run("encounter", "start", "Ambush", "--map", str(tmp_path / "pass.toml")))


def test_the_battle_map_svg_renders_in_chromium_with_names_as_text(
        trek_run: Run, tmp_path: Path, chromium: Browser) -> None:
    kira_at_the_pass(trek_run, tmp_path)                                         # events 1-3
    ok(trek_run("encounter", "join", "Kira", "--at", "0,0"))
    ok(trek_run("encounter", "add", "<script>alert(1)</script>", "--side", "enemy", "--at",
                "6,3", "--body", "3", "--mind", "3", "--soul", "3"))
    ok(trek_run("encounter", "round"))
    ok(trek_run("encounter", "move", "Kira", "E", "E", "E"))
    svg = tmp_path / "fight.svg"
    ok(trek_run("encounter", "show", "--svg", str(svg)))

    dom = chromium.dom(svg)
    assert dom.count('class="cell ') == 32                 # 8 × 4 cells
    assert dom.count('class="cell wall"') == 3
    assert dom.count('class="path"') == 1
    assert 'data-name="Kira"' in dom
    assert "&lt;script&gt;alert(1)&lt;/script&gt; (enemy)" in dom
    assert "<script>alert" not in dom
    png = chromium.screenshot(svg, tmp_path / "fight.png", "420,330")
    assert png.stat().st_size > 5000


def test_the_battle_map_draws_each_rounds_paths_and_limits_them_by_round_and_point(
        trek_run: Run, tmp_path: Path, chromium: Browser) -> None:
    kira_at_the_pass(trek_run, tmp_path)                                         # events 1-3
    ok(trek_run("encounter", "join", "Kira", "--at", "0,0"))                     # event 4
    ok(trek_run("encounter", "add", "Bandit", "--side", "enemy", "--at", "7,3", "--body", "3",
                "--mind", "3", "--soul", "3"))                                   # 5
    ok(trek_run("encounter", "round"))                                           # 6: round 1
    ok(trek_run("encounter", "move", "Kira", "E", "E"))                          # 7: to 2,0
    ok(trek_run("encounter", "round"))                                           # 8: round 2
    ok(trek_run("encounter", "move", "Kira", "E", "E"))                          # 9: to 4,0
    ok(trek_run("encounter", "move", "Bandit", "W"))                             # 10: to 6,3
    ok(trek_run("undo"))                                                         # 11 undoes 10
    svg = tmp_path / "fight.svg"

    def show(*options: str) -> dict[str, Any]:
        found: dict[str, Any] = ok(trek_run("encounter", "show", "--svg", str(svg), *options,
                                            "--json")).json()
        return found

    # Every round's live paths: round 1's E E and round 2's E E (the undone W is not drawn).
    assert show() == {"svg": str(svg), "round": 2, "paths": 2}
    dom = chromium.dom(svg)
    assert dom.count('class="path"') == 2
    assert dom.count('data-round="1"') == dom.count('data-round="2"') == 1
    assert "round 1</text>" in dom                                       # the key of rounds
    assert "round 2</text>" in dom
    # The latest round is the darkest; an earlier one has its own colour.
    strokes = dict(re.findall(r'data-round="(\d)" points="[^"]*" stroke="([^"]*)"', dom))
    assert strokes["2"] == "#222222"
    assert strokes["1"] not in ("#222222", "#333")

    assert show("--round", "1")["paths"] == 1
    assert 'data-round="2"' not in chromium.dom(svg)
    # As it stood after event 7: round 1 only, Kira's two steps.
    assert show("--as-of", "7") == {"svg": str(svg), "round": 1, "paths": 1}
    # At event 10 the bandit's step was live: three paths, two of them in round 2.
    assert show("--as-of", "10")["paths"] == 3
    refused(trek_run("encounter", "show", "--svg", str(svg), "--round", "3"),
            "there is no round 3 in Ambush; it has rounds 1 to 2")
    refused(trek_run("encounter", "show", "--svg", str(svg), "--as-of", "2"),
            "no encounter is open at 2")
    png = chromium.screenshot(svg, tmp_path / "rounds.png", "420,360")
    assert png.stat().st_size > 5000

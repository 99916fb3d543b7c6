"""Move-Point rounds through the real `trek` program, on SQLite and on PostgreSQL.

Every number is worked by hand from RULES §10, §12.10 and §12.12: Kira has a Full Move of 13
(the seed's example: a Move Action gives 6.5); Mara, the seed's mermaid, swims 18 and walks 1;
the goblin walks 6, so the cost-8 scree beside it is entered only in transit.
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
#   y0 ..........
#   y1 ..~~~#....
#   y2 ..~~~..^..     ^ 7,2: cost 8, poor footing
#   y3 ..........
BATTLE_MAP = """\
[map]
name = "The Ford"
rows = [
  "..........",
  "..~~~#....",
  "..~~~..^..",
  "..........",
]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
"~" = { terrain = "water" }
"^" = { terrain = "open", name = "scree", cost = 8, poor_footing = true }
"""


def test_move_point_rounds_with_transit_undo_redo_and_refusals(trek_run: Run, db: str,
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

    def refused_and_nothing_recorded(args: tuple[str, ...], *fragments: str) -> None:
        before = events()
        refused(run(*args), *fragments)
        assert events() == before

    (tmp_path / "ford.toml").write_text(BATTLE_MAP)
    ok(run("init", "Reef", "--ruleset", "movepoints", "--seed", "3"))
    recorded(run("roster", "add-character", "Kira", "--full-move", "13", "--json"), 2,
             "CharacterAdded")
    recorded(run("roster", "add-character", "Mara", "--full-move", "1", "--full-move",
                 "swim=18", "--json"), 3, "CharacterAdded")
    refused_and_nothing_recorded(("roster", "add-character", "Oren", "--full-move", "walk=4"),
                                 "'walk' is not a movement type")
    refused_and_nothing_recorded(("roster", "add-character", "Oren", "--body", "4"),
                                 "--body is another ruleset's option")
    usage_error(run("roster", "add-character", "Oren", "--full-move", "swim=fast"))

    recorded(run("encounter", "start", "Ford", "--map", str(tmp_path / "ford.toml"),
                 "--json"), 4, "EncounterStarted")
    recorded(run("encounter", "join", "Kira", "--at", "0,0", "--json"), 5, "CombatantEntered")
    recorded(run("encounter", "join", "Mara", "--at", "1,1", "--json"), 6, "CombatantEntered")
    recorded(run("encounter", "add", "Goblin", "--side", "enemy", "--at", "8,3",
                 "--full-move", "6", "--json"), 7, "CombatantEntered")
    refused_and_nothing_recorded(("encounter", "act", "Kira", "move"), "no round has started")

    # -- round 1 ---------------------------------------------------------------------------
    recorded(run("encounter", "round", "--json"), 8, "RoundStarted")
    assert combatant("Kira") == {
        "label": "K",
        "side": "party", "position": {"x": 0, "y": 0}, "facing": None, "moved": 0,
        "remaining": 1, "mp": 1, "spent": {"land": 0, "swim": 0, "fly": 0},
        "free_point": True, "stepped": False, "in_transit": None, "condition": None}
    # The seed's example: half of 13 is 6.5; six tiles leave 0.5; another 6.5 makes 7.
    gained = recorded(run("encounter", "act", "Kira", "move", "--json"), 9, "MovePointsGained")
    assert (gained["amount"], gained["mp"]) == (6.5, 6.5)
    moved = recorded(run("encounter", "move", "Kira", "E", "E", "E", "E", "E", "E", "--json"),
                     10, "MovePointsMoved")
    assert (moved["cost"], moved["provokes"]) == (6, True)
    assert moved["path"] == [{"x": x, "y": 0} for x in range(7)]
    assert (combatant("Kira")["mp"], combatant("Kira")["remaining"]) == (0.5, 0.5)
    refused_and_nothing_recorded(("encounter", "move", "Kira", "E"), "holds 0.5 MP")
    recorded(run("encounter", "act", "Kira", "move", "--json"), 11, "MovePointsGained")
    assert combatant("Kira")["mp"] == 7

    # The mermaid steps into the water for her free point: no provoking, no action after.
    stepped = recorded(run("encounter", "step", "Mara", "E", "--json"), 12, "MovePointsStepped")
    assert (stepped["provokes"], stepped["cost"]) == (False, 1)
    assert combatant("Mara")["spent"] == {"land": 0, "swim": 1, "fly": 0}
    refused_and_nothing_recorded(("encounter", "act", "Mara", "full"), "took a step")
    refused_and_nothing_recorded(("encounter", "act", "Mara", "run"), "not 'run'")
    refused_and_nothing_recorded(("encounter", "act", "Kira", "move", "--ranged"),
                                 "no --ranged")
    refused_and_nothing_recorded(("encounter", "move", "Kira", "E", "--shift"),
                                 "--shift is not an option of a movepoints move")

    # The goblin's Full-Round Action gives 6; the scree costs 8: all 6 go toward it.
    recorded(run("encounter", "act", "Goblin", "full", "--json"), 13, "MovePointsGained")
    toward = recorded(run("encounter", "move", "Goblin", "NW", "--json"), 14, "MovePointsMoved")
    assert (toward["toward"], toward["paid"], toward["arrived"]) == ({"x": 7, "y": 2}, 6, False)
    goblin = combatant("Goblin")
    assert goblin["position"] == {"x": 8, "y": 3}
    assert goblin["in_transit"] == {"to": {"x": 7, "y": 2}, "cost": 8, "paid": 6}
    svg = tmp_path / "ford.svg"
    ok(run("encounter", "show", "--svg", str(svg)))
    assert 'class="transit" data-name="Goblin" data-paid="6" data-cost="8"' in svg.read_text()
    text = ok(run("encounter", "status")).stdout
    assert "Goblin: in transit: to 7,2, cost 8, paid 6; spent: land 6, swim 0, fly 0" in text
    assert "Kira: spent: land 6, swim 0, fly 0" in text

    # -- round 2: the goblin does not pay; round 3 records the loss --------------------------
    recorded(run("encounter", "round", "--json"), 15, "RoundStarted")
    assert combatant("Kira")["mp"] == 1                     # the 7 MP left were lost
    assert combatant("Goblin")["in_transit"]["paid"] == 6
    recorded(run("encounter", "condition", "Kira", "stunned", "--json"), 16,
             "MovePointsCondition")
    assert (combatant("Kira")["mp"], combatant("Kira")["condition"]) == (0, "stunned")
    refused_and_nothing_recorded(("encounter", "act", "Kira", "full"), "stunned")
    lost = recorded(run("encounter", "round", "--json"), 17, "RoundStarted")
    assert lost["clock"]["knockdown_risk"] is True
    assert [(loss["name"], loss["to"], loss["paid"]) for loss in lost["clock"]["transit_lost"]
            ] == [("Goblin", {"x": 7, "y": 2}, 6)]
    assert combatant("Goblin")["in_transit"] is None
    recorded(run("encounter", "condition", "Kira", "clear", "--json"), 18,
             "MovePointsCondition")
    assert combatant("Kira")["condition"] is None

    # -- undo and redo -----------------------------------------------------------------------
    # Without the goblin's action its payment of 6 cannot be made: a cascade takes both.
    refused(run("undo", "13"), "event 14 (MovePointsMoved)", "--cascade")
    cascade = recorded(run("undo", "13", "--cascade", "--json"), 19, "EventsCancelled")
    assert cascade["cancels"][:2] == [13, 14]
    assert combatant("Goblin")["in_transit"] is None
    recorded(run("redo", "19", "--json"), 20, "EventsRestored")
    log = ok(run("log", "--json")).json()
    assert [e["cancelled_by"] for e in log if e["seq"] in (13, 14)] == [None, None]
    as_of = ok(run("status", "--as-of", "14", "--json")).json()["encounter"]
    assert as_of["combatants"]["Goblin"]["in_transit"] == {
        "to": {"x": 7, "y": 2}, "cost": 8, "paid": 6}
    assert combatant("Kira")["condition"] is None
    recorded(run("undo", "--json"), 21, "EventsCancelled")     # the clear
    assert combatant("Kira")["condition"] == "stunned"
    recorded(run("redo", "18", "--json"), 22, "EventsRestored")
    assert combatant("Kira")["condition"] is None
    assert ok(run("verify", "--json")).json()["verified"] is True
    assert ok(run("replay", "--verify", "--json")).json()["verified"] is True
    recorded(run("encounter", "end", "--json"), 23, "EncounterEnded")

"""Encounter rules read off RULES §6–§12 and driven through `trek` as a GM would type them.

Each expected number is worked by hand from the contract's text, not from Trek's output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cliruns import ok, refused
from conftest import TrekRun

Run = Callable[..., TrekRun]


def combatant(run: Run, name: str) -> dict[str, Any]:
    found: dict[str, Any] = ok(run("encounter", "status", "--json")).json()["combatants"][name]
    return found


def log_length(run: Run) -> int:
    return len(ok(run("log", "--json")).json())


def test_a_besm_shift_is_the_rounds_one_move_even_with_speed_burst(trek_run: Run) -> None:
    # §12.7: "A shift is the round's one move." Wolf: Body 4 + speed 2 = Speed 6, with
    # speed-burst (any number of moves while the Speed lasts) -- but not after a shift.
    ok(trek_run("init", "Ashes Road", "--ruleset", "besm"))
    ok(trek_run("encounter", "start", "Ambush"))
    ok(trek_run("encounter", "add", "Wolf", "--side", "enemy", "--at", "0,0", "--body", "4",
                "--mind", "2", "--soul", "2", "--attribute", "speed=2",
                "--attribute", "speed-burst=1"))
    ok(trek_run("encounter", "round"))
    ok(trek_run("encounter", "move", "Wolf", "E", "--shift"))
    wolf = combatant(trek_run, "Wolf")
    assert (wolf["position"], wolf["moved"], wolf["remaining"]) == ({"x": 1, "y": 0}, 1, 0)
    before = log_length(trek_run)
    refused(trek_run("encounter", "move", "Wolf", "E"), "shift")
    refused(trek_run("encounter", "move", "Wolf", "E", "--shift"), "shift")
    assert log_length(trek_run) == before
    # The next round the Wolf moves freely again: two moves of its Speed 6.
    ok(trek_run("encounter", "round"))
    ok(trek_run("encounter", "move", "Wolf", "E", "E"))
    ok(trek_run("encounter", "move", "Wolf", "E"))
    assert combatant(trek_run, "Wolf")["remaining"] == 3



def test_a_redo_that_would_put_a_stand_before_a_shift_is_refused(trek_run: Run) -> None:
    # §4: redo restores under the same check, re-checking every later live event; §7: a stand
    # counts as the round's move having begun, and §12.7 a shift is the round's one move.
    ok(trek_run("init", "Ashes Road", "--ruleset", "besm"))
    ok(trek_run("encounter", "start", "Ambush"))
    ok(trek_run("encounter", "add", "Wolf", "--side", "enemy", "--at", "0,0", "--body", "4",
                "--mind", "2", "--soul", "2"))
    ok(trek_run("encounter", "round"))
    ok(trek_run("encounter", "prone", "Wolf"))
    [stand] = ok(trek_run("encounter", "stand", "Wolf", "--json")).json()
    refused(trek_run("encounter", "move", "Wolf", "E", "--shift"), "shift")
    ok(trek_run("undo"))
    ok(trek_run("encounter", "move", "Wolf", "E", "--shift"))
    before = log_length(trek_run)
    refused(trek_run("redo", str(stand["seq"])), "would break the rules",
            f"event {stand['seq'] + 2}", "shift")
    assert log_length(trek_run) == before
    assert ok(trek_run("log", "--json")).json()[stand["seq"] - 1]["cancelled_by"] is not None

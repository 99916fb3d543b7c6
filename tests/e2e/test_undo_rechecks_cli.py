"""`trek undo --cascade` cancels only the later events that would no longer be legal (RULES
§4): events whose legality does not depend on the cancelled one stand. In process, through
`trek_run`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cliruns import ok, recorded, refused
from conftest import TrekRun

Run = Callable[..., TrekRun]


def _log(run: Run) -> dict[int, dict[str, Any]]:
    return {entry["seq"]: entry for entry in ok(run("log", "--json")).json()}


def test_undoing_a_sprint_keeps_the_next_pass_and_cancels_the_move_it_allowed(
        trek_run: Run) -> None:
    # Kira, Quickness 4, walks 4 m a turn: ⌈4 ÷ 2⌉ = 2 m a pass. Her sprint's 2 successes
    # make pass 2's Quickness 6: ⌈6 ÷ 2⌉ = 3 m, so E E E in pass 2 needs the sprint.
    ok(trek_run("init", "Seattle", "--ruleset", "shadowrun", "--seed", "1"))
    ok(trek_run("roster", "add-character", "Kira", "--quickness", "4", "--skill",
                "athletics=2"))
    ok(trek_run("encounter", "start", "Alley"))
    ok(trek_run("encounter", "join", "Kira", "--at", "0,0"))
    ok(trek_run("encounter", "round", "--passes", "Kira=2"))
    sprint = recorded(trek_run("encounter", "sprint", "Kira", "--roll", "2", "--json"), 6,
                      "Sprinted")
    recorded(trek_run("encounter", "pass", "--json"), 7, "PassStarted")
    recorded(trek_run("encounter", "move", "Kira", "E", "E", "E", "--json"), 8, "MovedInPass")

    undo = recorded(trek_run("undo", str(sprint["seq"]), "--cascade", "--json"), 9,
                    "EventsCancelled")

    assert undo["cancels"] == [6, 8]
    log = _log(trek_run)
    assert [log[seq]["cancelled_by"] for seq in (6, 7, 8)] == [9, None, 9]
    doc = ok(trek_run("encounter", "status", "--json")).json()
    assert (doc["pass"], doc["passes"]) == (2, 2)
    kira = doc["combatants"]["Kira"]
    assert (kira["position"], kira["quickness_bonus"], kira["moved"]) == (
        {"x": 0, "y": 0}, 0, 0)
    # Without the sprint, pass 2 allows Kira 2 m.
    ok(trek_run("encounter", "move", "Kira", "E", "E"))
    assert ok(trek_run("replay", "--verify")).returncode == 0


def test_undo_and_redo_refuse_to_open_a_fight_before_a_later_move(trek_run: Run) -> None:
    # RULES §4 and §6: no overland move while an encounter is open.
    ok(trek_run("init", "F", "--seed", "1"))                                    # 1
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5",
                "--soul", "4"))                                                 # 2
    ok(trek_run("day", "start"))                                                # 3
    ok(trek_run("encounter", "start", "Brawl"))                                 # 4
    ok(trek_run("encounter", "join", "Kira", "--at", "0,0"))                    # 5
    recorded(trek_run("encounter", "end", "--json"), 6, "EncounterEnded")
    recorded(trek_run("move", "E", "--json"), 7, "Moved")
    refused(trek_run("undo", "6"), "event 7 (Moved)", "encounter Brawl", "--cascade")
    assert len(_log(trek_run)) == 7
    undo = recorded(trek_run("undo", "6", "--cascade", "--json"), 8, "EventsCancelled")
    assert undo["cancels"] == [6, 7]
    status = ok(trek_run("status", "--json")).json()
    assert (status["encounter"]["name"], status["position"]) == ("Brawl", {"x": 0, "y": 0})
    ok(trek_run("encounter", "end"))                                            # 9
    ok(trek_run("undo", "9"))                                                   # 10: reopens
    ok(trek_run("undo", "4", "--cascade"))                                      # 11: 4 and 5
    recorded(trek_run("move", "E", "--json"), 12, "Moved")
    refused(trek_run("redo", "4"), "event 12 (Moved)", "encounter Brawl")
    assert len(_log(trek_run)) == 12
    assert ok(trek_run("replay", "--verify")).returncode == 0

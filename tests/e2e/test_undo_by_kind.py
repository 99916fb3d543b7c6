"""Undo without numbers (RULES §13): `trek undo --last KIND` takes back the newest live event of
that kind, and every undo says what it cancelled, in its own line and in the log.

The party starts at 1,1 on the Ashen Reach (docs/examples/ashen-reach.toml) with Kira on
foot (base 1: no mount), so a day's budget is 1 square plus what the rolls add; 2,1 east of
the start is mountains, so the party goes north and then east.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cliruns import ok, recorded, refused, usage_error
from conftest import TrekRun
from rulesets import RULESETS

from domain.events import TrekEvent

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _kinds() -> set[str]:
    return {kind for ruleset in RULESETS for cls in RULESETS.event_types(ruleset.name).values()
            for kind in cls.undo_kinds}


@pytest.fixture
def road(trek_run: Run) -> Run:
    """A BESM campaign on day 1 with a move, a forage and another move recorded (seqs 4-7)."""
    ok(trek_run("init", "Ashes Road", "--map", str(EXAMPLES / "ashen-reach.toml"), "--at",
                "1,1", "--seed", "42"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul",
                "4", "--skill", "survival=1"))
    ok(trek_run("day", "start"))                                                # 3
    ok(trek_run("night-travel", "--roll", "2"))                                 # 4: +1 square
    ok(trek_run("move", "N"))                                                   # 5: 1,1 -> 1,0
    ok(trek_run("supplies", "add", "provisions=2"))                             # 6
    ok(trek_run("move", "E"))                                                   # 7: 1,0 -> 2,0
    return trek_run


def test_undo_last_kind_takes_back_the_newest_live_event_of_that_kind(road: Run) -> None:
    # the newest move is 7 (1,0 -> 2,0), though supplies came after the first
    undo = recorded(road("undo", "--last", "move", "--json"), 8, "EventsCancelled")
    assert undo["cancels"] == [7]
    # 7 is cancelled now, so the newest live move is 5
    assert recorded(road("undo", "--last", "move", "--json"), 9, "EventsCancelled")[
        "cancels"] == [5]
    refused(road("undo", "--last", "move"), "there is no live move event to undo")
    assert recorded(road("undo", "--last", "supplies", "--json"), 10, "EventsCancelled")[
        "cancels"] == [6]
    assert recorded(road("undo", "--last", "night-travel", "--json"), 11, "EventsCancelled")[
        "cancels"] == [4]
    assert recorded(road("undo", "--last", "day-start", "--json"), 12, "EventsCancelled")[
        "cancels"] == [3]
    assert ok(road("status", "--json")).json()["position"] == {"x": 1, "y": 1}


def test_the_undo_line_says_what_it_cancelled_and_the_log_row_says_the_same(
        road: Run) -> None:
    said = ok(road("undo", "--last", "move", "--reason", "wrong fork")).stdout
    assert said == "#8 undo of #7 moved 1,0 → 2,0 (1 square(s)) (wrong fork)\n"
    rows = ok(road("log", "--no-pager")).stdout
    assert "undo of #7 moved 1,0 → 2,0 (1 square(s)) (wrong fork)" in rows
    # an undo by number and a redo say what they named too
    assert ok(road("undo", "6")).stdout == "#9 undo of #6 supplies added: provisions=2\n"
    assert ok(road("redo", "8")).stdout == "#10 redo of #7 moved 1,0 → 2,0 (1 square(s))\n"
    assert "redo of #7 moved 1,0 → 2,0 (1 square(s))" in ok(road("log", "--no-pager")).stdout
    # --json adds the documents of the events a reversal names; the log's documents stay
    redone = recorded(road("undo", "7", "--json"), 11, "EventsCancelled")
    assert [(t["seq"], t["type"], t["path"]) for t in redone["targets"]] == [
        (7, "Moved", [[1, 0], [2, 0]])]
    assert "targets" not in ok(road("log", "--json")).json()[-1]


def test_the_undo_line_is_the_cancelled_events_own_log_line(road: Run) -> None:
    ok(road("undo", "7"))                     # 8: the square foraging gives up is free again
    forage = ok(road("forage", "--roll", "9")).stdout.strip()
    seq, line = forage.split(" ", 1)
    assert seq == "#9"
    assert ok(road("undo", "--last", "forage")).stdout == f"#10 undo of #9 {line}\n"


def test_a_bare_undo_still_takes_back_the_newest_event(road: Run) -> None:
    assert ok(road("undo")).stdout == "#8 undo of #7 moved 1,0 → 2,0 (1 square(s))\n"


def test_an_unknown_kind_is_refused_with_the_kinds_and_seq_with_last_is_a_usage_error(
        road: Run) -> None:
    run = road("undo", "--last", "jump")
    refused(run, "'jump'", "move", "forage", "day-start", "encounter-move", "round")
    for kind in _kinds():
        assert kind in run.stderr
    usage_error(road("undo", "5", "--last", "move"))
    refused(road("undo", "--last", "repair"), "there is no live repair event to undo")
    assert ok(road("status", "--json")).json()["events"] == 7


def test_undo_help_lists_every_kind(trek_run: Run) -> None:
    shown = " ".join(ok(trek_run("undo", "--help")).stdout.split())
    assert "--last KIND" in shown
    for kind in sorted(_kinds()):
        assert kind in shown, kind


def test_an_undo_last_preview_is_the_undo_then_recorded(road: Run, tmp_path: Path) -> None:
    db = tmp_path / "trek.db"
    before = db.read_bytes()
    shown = ok(road("undo", "--last", "supplies", "--preview", "--json")).json()
    assert db.read_bytes() == before
    assert ok(road("undo", "--last", "supplies", "--preview")).stdout == (
        "Preview: #8 undo of #6 supplies added: provisions=2 (nothing recorded)\n")
    assert ok(road("undo", "--last", "supplies", "--json")).json() == shown


def test_every_undoable_event_has_a_kind_and_no_bookkeeping_event_has_one() -> None:
    for ruleset in RULESETS:
        for cls in RULESETS.event_types(ruleset.name).values():
            assert issubclass(cls, TrekEvent)
            assert bool(cls.undo_kinds) == cls.undoable, cls
            for kind in cls.undo_kinds:
                assert kind == kind.lower(), kind
                assert " " not in kind, kind
    assert {"move", "forage", "forced-march", "night-travel", "shortcut", "repair", "supplies",
            "harm", "day-start", "day-end", "encounter-move", "round"} <= _kinds()


def test_undo_last_in_an_encounter(trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "pass.toml").write_text(
        '[map]\nname = "Pass"\nrows = ["........", "........"]\n\n'
        '[legend]\n"." = { terrain = "open" }\n', encoding="utf-8")
    ok(trek_run("init", "Fight", "--seed", "3"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"))
    ok(trek_run("encounter", "start", "Ambush", "--map", str(tmp_path / "pass.toml")))   # 3
    ok(trek_run("encounter", "join", "Kira", "--at", "0,0"))                            # 4
    ok(trek_run("encounter", "add", "Bandit", "--side", "enemy", "--at", "7,1", "--body",
                "4", "--mind", "3", "--soul", "3"))                                     # 5
    ok(trek_run("encounter", "round"))                                                  # 6
    ok(trek_run("encounter", "move", "Kira", "E", "E"))                                 # 7
    ok(trek_run("encounter", "move", "Bandit", "W"))                                    # 8
    assert ok(trek_run("undo", "--last", "encounter-move")).stdout == (
        "#9 undo of #8 Bandit moves 7,1 → 6,1 (1 square(s))\n")
    # the bandit's entry (5) is in round 1's start, and Kira's move (7) in the round
    refused(trek_run("undo", "--last", "encounter-add"), "event 6 (RoundStarted)")
    refused(trek_run("undo", "--last", "round"), "event 7 (CombatantMoved)")
    assert recorded(trek_run("undo", "--last", "round", "--cascade", "--json"), 10,
                    "EventsCancelled")["cancels"] == [6, 7]
    assert recorded(trek_run("undo", "--last", "encounter-add", "--json"), 11,
                    "EventsCancelled")["cancels"] == [5]

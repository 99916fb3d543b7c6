"""The history commands through the real `trek` program: JSON shapes, refusals, exit codes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from cliruns import ok, recorded, refused, usage_error
from conftest import TrekRun

from domain.campaign import campaign_id

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow


def short_day(trek_run: Run) -> None:
    """On an open plain with no map: 1 init, 2 Kira, 3 session, 4 day start (on foot with no
    movement attribute: 1 square a day), 5 move E, 6 harm, 7 day end, 8 session end."""
    ok(trek_run("init", "Ashes Road", "--seed", "3"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"))
    ok(trek_run("session", "start", "First"))
    ok(trek_run("day", "start"))
    ok(trek_run("move", "E"))
    ok(trek_run("harm", "Kira", "--health", "10", "--reason", "fall"))
    ok(trek_run("day", "end"))
    ok(trek_run("session", "end"))


def test_history_commands_print_json_and_refuse_with_one_sentence(
        trek_run: Run, tmp_path: Path) -> None:
    short_day(trek_run)

    # Time travel and diff.
    at_day_0 = ok(trek_run("status", "--as-of", "day:0", "--json")).json()
    assert (at_day_0["events"], at_day_0["position"]) == (3, {"x": 0, "y": 0})
    diff = ok(trek_run("diff", "day:0", "--json")).json()
    assert (diff["a"]["seq"], diff["b"]["seq"], diff["b"]["point"]) == (3, 8, "now")
    fields = {change["field"]: (change["a"], change["b"]) for change in diff["changes"]}
    assert fields["position"] == ({"x": 0, "y": 0}, {"x": 1, "y": 0})
    assert fields["day"] == (0, 1)
    usage_error(trek_run("status", "--as-of", "day:x"))
    usage_error(trek_run("diff", "yesterday"))
    refused(trek_run("status", "--as-of", "day:9"), "has not reached day 9")
    refused(trek_run("diff", "nowhere@1", "now"), "no campaign called 'nowhere'")
    refused(trek_run("diff", "99"), "no event 99")

    # Audit.
    [session] = ok(trek_run("audit", "--session", "1", "--json")).json()["sessions"]
    assert (session["session"], session["title"], session["days"], session["squares_moved"]) == (
        1, "First", [1], 1)
    assert "Session 1: First" in ok(trek_run("audit")).stdout
    refused(trek_run("audit", "--session", "2"), "no session 2")
    usage_error(trek_run("audit", "--session", "0"))

    # Branches.
    started = recorded(trek_run("branch", "What If", "--at", "4", "--json"), 1, "CampaignStarted")
    assert (started["slug"], started["branched_from"]["seq"]) == ("what-if", 4)
    refused(trek_run("--campaign", "ashes-road", "branch", "What If"), "already has a campaign")
    refused(trek_run("--campaign", "ashes-road", "branch", "Later", "--at", "9"), "no event 9")
    slugs = [c["slug"] for c in ok(trek_run("campaigns", "--json")).json()]
    assert slugs == ["ashes-road", "what-if"]
    assert ok(trek_run("--campaign", "what-if", "status", "--json")).json()["events"] == 4
    ok(trek_run("--campaign", "what-if", "move", "S"))
    compared = ok(trek_run("diff", "ashes-road@4", "what-if@now", "--json")).json()
    assert compared["changes"] == [
        {"field": "position", "a": {"x": 0, "y": 0}, "b": {"x": 0, "y": 1}},
        {"field": "movement.used", "a": 0, "b": 1},
        {"field": "movement.remaining", "a": 1, "b": 0},
    ]

    # Tamper evidence: edit the harm's stored row behind Trek's back.
    verified = ok(trek_run("verify", "--json")).json()
    assert verified["verified"] is True
    with sqlite3.connect(tmp_path / "trek.db") as conn:
        conn.execute("UPDATE stored_events SET state = replace(state, '\"health\":10', "
                     "'\"health\":1') WHERE originator_id = ? AND originator_version = 6",
                     (campaign_id("ashes-road").hex,))
    conn.close()
    broken = trek_run("verify")
    assert broken.returncode == 1, broken
    assert "broken at event 6" in broken.stderr
    assert "Error: The log of ashes-road is damaged at event 6" in broken.stderr
    report = trek_run("verify", "--json")
    assert report.returncode == 1
    assert [(c["campaign"], c["intact"], c["broken_at"]) for c in report.json()["campaigns"]] == [
        ("ashes-road", False, 6), ("what-if", True, None)]

"""The real `trek` program, run as a subprocess, against the contract in RULES §1."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import pytest
from cliruns import ok, recorded, refused, usage_error
from conftest import TrekRun

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow

# docs/examples/ashen-reach.toml, kept here so the test does not depend on the docs.
MAP = """\
[map]
name = "The Ashen Reach"
rows = [
  "..........",
  "..^^....,,",
  "..^!....,,",
  "..........",
]

[legend]
"." = { terrain = "open" }
"," = { terrain = "open", penalty = 1 }
"^" = { terrain = "feature", name = "mountains" }
"!" = { terrain = "hazard", name = "ley storm", penalty = 2 }

[[shortcut]]
name = "Kessel Pass"
path = [[2, 1], [3, 1]]
bonus = 2
penalty = 1
"""

STATUS_KEYS = {"campaign", "ruleset", "day", "day_open", "position", "flying", "movement",
               "supplies", "characters", "conveyances", "events"}
CHARACTER_KEYS = {"health", "health_max", "energy", "energy_max", "with_party", "position"}
CONVEYANCE_KEYS = {"kind", "attribute", "level", "base_level", "pending_strain", "state",
                   "with_party"}


def events_count(trek_cli: Run) -> int:
    return int(ok(trek_cli("status", "--json")).json()["events"])


def test_help_and_version(trek_cli: Run, tmp_path: Path) -> None:
    helped = ok(trek_cli("--help"))
    assert helped.stdout.startswith("Usage: trek")
    for command in ("init", "roster", "supplies", "day", "move", "shortcut", "forced-march",
                    "night-travel", "forage", "repair", "harm", "status", "log", "undo", "redo",
                    "replay", "demo"):
        assert f"  {command} " in helped.stdout or f"  {command}\n" in helped.stdout, command
    assert version("trek") in ok(trek_cli("--version")).stdout
    assert list(tmp_path.iterdir()) == []  # neither made a store


def test_demo_shows_status_and_log_and_leaves_no_store(trek_cli: Run, tmp_path: Path) -> None:
    shown = ok(trek_cli("demo"))
    for text in ("Ashes Road", "ShortcutAttempted", "ForcedMarched", "EventsCancelled",
                 "cancelled by #16", "Repaired", "DayEnded"):
        assert text in shown.stdout, text

    document = ok(trek_cli("demo", "--json")).json()
    assert document["status"]["campaign"] == "ashes-road"
    assert set(document["status"]) >= STATUS_KEYS
    assert [e["seq"] for e in document["log"]] == list(range(1, len(document["log"]) + 1))
    assert document["status"]["events"] == len(document["log"])
    # The demo plays into a temporary store, never the user's.
    assert list(tmp_path.iterdir()) == []


def test_a_journey_prints_the_json_the_rules_promise(trek_cli: Run, tmp_path: Path) -> None:
    map_file = tmp_path / "reach.toml"
    map_file.write_text(MAP, encoding="utf-8")

    recorded(trek_cli("init", "Ashes Road", "--map", str(map_file), "--at", "1,1",
                      "--seed", "42", "--json"), 1, "CampaignStarted")
    recorded(trek_cli("roster", "add-character", "Kira", "--body", "6", "--mind", "5",
                      "--soul", "4", "--skill", "ride=2", "--skill", "navigation=2",
                      "--skill", "survival=1", "--json"), 2, "CharacterAdded")
    recorded(trek_cli("roster", "add-character", "Oren", "--body", "5", "--mind", "6",
                      "--soul", "5", "--skill", "medicine=2", "--skill", "survival=2", "--json"),
             3, "CharacterAdded")
    recorded(trek_cli("roster", "add-mount", "Dusty", "--move", "ground-speed=1",
                      "--rider", "Kira", "--json"), 4, "MountAdded")
    recorded(trek_cli("roster", "add-mount", "Bramble", "--move", "ground-speed=1",
                      "--rider", "Oren", "--json"), 5, "MountAdded")
    recorded(trek_cli("supplies", "set", "provisions=4", "ammo=2", "--json"), 6, "SuppliesSet")
    day = recorded(trek_cli("day", "start", "--json"), 7, "DayStarted")
    assert (day["number"], day["budget"]) == (1, 2)

    # A roll the GM gave: its total, no dice, the target and the outcome.
    shortcut = recorded(trek_cli("shortcut", "Kessel Pass", "--roll", "6", "--json"),
                        8, "ShortcutAttempted")
    assert (shortcut["roll"], shortcut["dice"], shortcut["target"], shortcut["success"]) == (
        6, None, 7, True)
    moved = recorded(trek_cli("move", "E", "e", "E", "--json"), 9, "Moved")
    assert moved["path"] == [[1, 1], [2, 1], [3, 1], [4, 1]]
    # Two riders rolled: one entry per roll.
    march = recorded(trek_cli("forced-march", "--roll", "Kira=9", "--roll", "Oren=5", "--json"),
                     10, "ForcedMarched")
    assert (march["roll"], march["dice"], march["target"], march["success"]) == (
        [9, 5], [None, None], [7, 5], False)
    # A roll Trek made: the faces it rolled, which add up to the total.
    forage = recorded(trek_cli("forage", "--json"), 11, "Foraged")
    assert isinstance(forage["dice"], list)
    assert len(forage["dice"]) == 2
    assert all(1 <= face <= 6 for face in forage["dice"])
    assert forage["roll"] == sum(forage["dice"])
    assert forage["target"] == 7  # Oren: (5+6)//2 + survival 2
    assert forage["success"] is (forage["roll"] <= 7)
    recorded(trek_cli("harm", "Kira", "--health", "12", "--reason", "ambush", "--json"),
             12, "Harmed")
    ended = recorded(trek_cli("day", "end", "--rest", "Kira=saddle", "--json"), 13, "DayEnded")
    # Saddle: Body - 2 = 4 Health; Mind-Soul 4 - 2 = 2 Energy an hour for 8 hours.
    assert ended["recovery"]["Kira"] == {"mode": "saddle", "health": 4, "energy": 16}
    undone = recorded(trek_cli("undo", "--reason", "not yet", "--json"), 14, "EventsCancelled")
    assert undone["cancels"] == [13]

    status = ok(trek_cli("status", "--json")).json()
    assert set(status) >= STATUS_KEYS
    assert (status["campaign"], status["ruleset"], status["day"], status["day_open"]) == (
        "ashes-road", "besm", 1, True)
    assert status["position"] == {"x": 4, "y": 1}
    assert status["flying"] is False
    assert set(status["movement"]) >= {"base", "budget", "used", "remaining"}
    assert (status["movement"]["budget"], status["movement"]["used"]) == (6, 4)
    assert set(status["supplies"]) == {"provisions", "fuel", "ammo", "wealth"}
    assert status["supplies"]["provisions"] == 2 + forage.get("gained", 0)
    assert set(status["characters"]) == {"Kira", "Oren"}
    for character in status["characters"].values():
        assert set(character) >= CHARACTER_KEYS
        assert set(character["position"]) == {"x", "y"}
    assert status["characters"]["Kira"]["health"] == 38
    assert set(status["conveyances"]) == {"Dusty", "Bramble"}
    for conveyance in status["conveyances"].values():
        assert set(conveyance) >= CONVEYANCE_KEYS
    assert status["conveyances"]["Dusty"]["pending_strain"] == 1
    assert status["conveyances"]["Dusty"]["state"] == "ok"
    assert status["events"] == 14

    before_day = ok(trek_cli("status", "--json", "--as-of", "6")).json()
    assert (before_day["day"], before_day["day_open"], before_day["events"]) == (0, False, 6)
    assert before_day["movement"] == {"base": 2, "budget": 0, "used": 0, "remaining": 0}

    log = ok(trek_cli("log", "--json")).json()
    assert [entry["seq"] for entry in log] == list(range(1, 15))
    for entry in log:
        assert {"seq", "type", "day", "cancelled_by"} <= set(entry)
    assert [entry["day"] for entry in log[:6]] == [0] * 6
    assert {entry["day"] for entry in log[6:]} == {1}
    assert {entry["seq"]: entry["cancelled_by"] for entry in log
            if entry["cancelled_by"] is not None} == {13: 14}
    assert log[13]["type"] == "EventsCancelled"
    day_one = ok(trek_cli("log", "--json", "--day", "1")).json()
    assert [entry["seq"] for entry in day_one] == list(range(7, 15))

    # Human-readable output names the same things.
    assert "Ashes Road" in ok(trek_cli("status")).stdout
    assert "cancelled by #14" in ok(trek_cli("log")).stdout

    restored = recorded(trek_cli("redo", "13", "--json"), 15, "EventsRestored")
    assert restored["restores"] == [13]
    assert ok(trek_cli("status", "--json")).json()["day_open"] is False
    assert "match" in ok(trek_cli("replay", "--verify")).stdout
    assert ok(trek_cli("replay", "--json")).json()["rebuilt"] is True
    assert events_count(trek_cli) == 15


def test_usage_errors_exit_2_and_record_nothing(trek_cli: Run) -> None:
    ok(trek_cli("init", "Ashes Road", "--seed", "1"))
    ok(trek_cli("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"))
    ok(trek_cli("roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider", "Kira"))
    ok(trek_cli("day", "start"))

    for args in [
        ("move", "NNE"),                                   # not a direction
        ("move",),                                          # no direction and no --to
        ("move", "E", "--to", "1,1"),                       # both
        ("move", "--to", "one,two"),                        # not a square
        ("shortcut", "Kessel Pass", "--roll", "13"),        # 2d6 never totals 13
        ("night-travel", "--roll", "1"),
        ("forced-march", "--roll", "Kira=13"),
        ("repair", "Dusty"),                                # missing required --by
        ("roster", "assign", "Kira", "--as", "rider"),      # missing required --to
        ("supplies", "add", "food=1"),                      # not a supply
        ("supplies", "add"),                                # nothing to add
        ("day", "end", "--rest", "Kira=sleep"),
        ("status", "--as-of", "x"),
        ("teleport",),                                      # no such command
    ]:
        usage_error(trek_cli(*args))
    assert events_count(trek_cli) == 4


def test_refusals_exit_1_with_one_sentence_and_record_nothing(trek_cli: Run) -> None:
    ok(trek_cli("init", "Ashes Road", "--seed", "1"))
    ok(trek_cli("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"))
    ok(trek_cli("roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider", "Kira"))

    refused(trek_cli("move", "E"), "no day is open", "trek day start")
    refused(trek_cli("forced-march", "--roll", "Kira=5"), "no day is open")
    refused(trek_cli("day", "end"), "no day is open")
    refused(trek_cli("undo", "99"), "no event 99")
    refused(trek_cli("undo", "1"), "cannot be undone")
    refused(trek_cli("redo", "2"), "not cancelled")
    refused(trek_cli("status", "--as-of", "9"), "no event 9")
    refused(trek_cli("status", "--as-of", "0"), "no event 0")
    refused(trek_cli("init", "Ashes Road"), "already has a campaign")
    refused(trek_cli("roster", "add-character", "Kira", "--body", "1", "--mind", "1",
                     "--soul", "1"), "already has someone called 'Kira'")
    refused(trek_cli("roster", "add-character", "Vex", "--body", "13", "--mind", "1",
                     "--soul", "1"), "1 to 12")
    refused(trek_cli("supplies", "spend", "provisions=1"), "not the 1 to spend")
    refused(trek_cli("--campaign", "nowhere", "status"), "no campaign called 'nowhere'",
            "(the store has ashes-road)")
    ok(trek_cli("day", "start"))
    refused(trek_cli("forced-march", "--roll", "Kira=5"), "needs 1 provisions")
    refused(trek_cli("repair", "Dusty", "--by", "Kira"), "nothing to repair")
    refused(trek_cli("shortcut", "Kessel Pass"), "no shortcut")
    assert events_count(trek_cli) == 4
    assert "match" in ok(trek_cli("replay", "--verify")).stdout


def test_the_db_option_beats_the_environment(trek_cli: Run, tmp_path: Path) -> None:
    chosen = str(tmp_path / "chosen.db")
    ok(trek_cli("init", "Chosen", db=chosen))
    other = str(tmp_path / "other.db")  # TREK_DB points here, where nothing exists
    assert ok(trek_cli("--db", chosen, "status", "--json", db=other)).json()["campaign"] == (
        "chosen")
    assert ok(trek_cli("status", "--db", chosen, "--json", db=other)).json()["campaign"] == (
        "chosen")
    assert not Path(other).exists()

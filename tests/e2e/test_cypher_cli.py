"""A Cypher campaign through the real `trek` program, as RULES.md §5 reads the seed.

Worked by hand: 6-mile squares; Ana rides Dusty, so the party's rate is doubled: 40 miles a
day on a road square, 24 off it. Entering road 1,0 costs 6/40 = 3/20 day, open 2,0 costs
6/24 = 1/4, rough 3,0 costs 6/(24 × 1/2) = 1/2, open 4,0 costs 1/4.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cliruns import ok, recorded, refused
from conftest import TrekRun
from journeys import ROAD_TO_QI

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow

MAP = ROAD_TO_QI


def movement(trek_run: Run) -> tuple[dict[str, Any], dict[str, int], int]:
    status = ok(trek_run("status", "--json")).json()
    return status["movement"], status["position"], status["events"]


def test_a_cypher_campaign_through_the_command_line(trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "qi.toml").write_text(MAP)
    recorded(trek_run("init", "Road to Qi", "--ruleset", "cypher", "--map", "qi.toml",
                      "--seed", "5", "--json"), 1, "CampaignStarted")
    shown = ok(trek_run("map", "show", "--json")).json()["map"]
    assert shown["square_miles"] == 6
    assert [key for key, cell in shown["legend"].items() if cell["road"]] == ["="]
    assert "6 miles" in ok(trek_run("map", "show")).stdout

    ana = recorded(trek_run("roster", "add-character", "Ana", "--might", "12", "--speed", "10",
                            "--json"), 2, "CharacterAdded")
    assert ana["stats"] == {"might": 12, "speed": 10}
    refused(trek_run("roster", "add-character", "Bo", "--body", "5", "--mind", "5",
                     "--soul", "5"), "another ruleset's option", "--might")
    recorded(trek_run("roster", "add-mount", "Dusty", "--rider", "Ana", "--json"),
             3, "MountAdded")
    refused(trek_run("move", "E"), "no day is open")
    recorded(trek_run("day", "start", "--json"), 4, "DayStarted")
    refused(trek_run("forced-march"), "no forced march", "nothing was recorded")
    refused(trek_run("forage"), "no forage", "nothing was recorded")
    assert movement(trek_run)[2] == 4

    # Day 1: road then open (3/20 + 1/4 = 2/5), rough (1/2), then half-way toward 4,0.
    walked = recorded(trek_run("move", "E", "E", "--json"), 5, "Travelled")
    assert (walked["spent"], walked["miles"]) == ("2/5", 12)
    assert movement(trek_run)[:2] == (
        {"unit": "day", "used": "2/5", "remaining": "3/5", "miles_today": 12,
         "in_transit": None}, {"x": 2, "y": 0})
    recorded(trek_run("move", "E", "--json"), 6, "Travelled")
    short = recorded(trek_run("move", "E", "--json"), 7, "Travelled")
    assert (short["spent"], short["toward"], short["still_to_pay"]) == ("1/10", [4, 0], "3/20")
    assert movement(trek_run)[:2] == (
        {"unit": "day", "used": "1", "remaining": "0", "miles_today": 18,
         "in_transit": {"to": {"x": 4, "y": 0}, "remaining": "3/20"}}, {"x": 3, "y": 0})
    refused(trek_run("move", "E"), "nothing remains of day 1")
    recorded(trek_run("day", "end", "--json"), 8, "DayEnded")

    # Day 2: turning south drops the progress toward 4,0.
    recorded(trek_run("day", "start", "--json"), 9, "DayStarted")
    turned = recorded(trek_run("move", "S", "--json"), 10, "Travelled")
    assert turned["dropped"] == {"to": [4, 0], "remaining": "3/20"}
    assert movement(trek_run)[:2] == (
        {"unit": "day", "used": "1/4", "remaining": "3/4", "miles_today": 6,
         "in_transit": None}, {"x": 3, "y": 1})

    # Undo the turn: the party is back in transit with the same 3/20 still to pay.
    undone = recorded(trek_run("undo", "--reason", "we kept to the road", "--json"),
                      11, "EventsCancelled")
    assert undone["cancels"] == [10]
    assert movement(trek_run) == (
        {"unit": "day", "used": "0", "remaining": "1", "miles_today": 0,
         "in_transit": {"to": {"x": 4, "y": 0}, "remaining": "3/20"}}, {"x": 3, "y": 0}, 11)
    arrived = recorded(trek_run("move", "E", "--json"), 12, "Travelled")
    assert (arrived["spent"], arrived["miles"], arrived["path"]) == ("3/20", 6, [[3, 0], [4, 0]])

    log = ok(trek_run("log", "--json")).json()
    assert [(e["seq"], e["cancelled_by"]) for e in log if e["cancelled_by"]] == [(10, 11)]
    assert [e["seq"] for e in ok(trek_run("log", "--day", "2", "--json")).json()] == [
        9, 10, 11, 12]
    before = ok(trek_run("status", "--json")).json()
    ok(trek_run("replay"))
    assert "match" in ok(trek_run("replay", "--verify")).stdout
    assert ok(trek_run("status", "--json")).json() == before


DETOUR = """\
[map]
name = "Detour"
rows = [".r.", ".d."]
[legend]
"." = { terrain = "open" }
"r" = { terrain = "rough" }
"d" = { terrain = "difficult" }
"""


def test_move_to_pays_the_rest_of_a_transit_when_that_is_quicker(
        trek_run: Run, tmp_path: Path) -> None:
    """A walker (12 miles a day) in transit toward difficult 1,1: 6 ÷ (12 × 1/3) = 3/2 day, 1
    paid on day 1, 1/2 owed. To reach open 2,1 on day 2, paying the 1/2 owed and then 6/12 = 1/2
    takes the whole day, while the detour over rough 1,0 (6/6 = 1) would take 3/2."""
    (tmp_path / "detour.toml").write_text(DETOUR)
    ok(trek_run("init", "Detour", "--ruleset", "cypher", "--map", "detour.toml", "--at", "0,1"))
    ok(trek_run("roster", "add-character", "Ana"))
    ok(trek_run("day", "start"))
    started = recorded(trek_run("move", "E", "--json"), 4, "Travelled")
    assert (started["toward"], started["still_to_pay"]) == ([1, 1], "1/2")
    ok(trek_run("day", "end"))
    ok(trek_run("day", "start"))
    went = recorded(trek_run("move", "--to", "2,1", "--json"), 7, "Travelled")
    assert (went["path"], went["spent"], went["miles"], went["dropped"]) == (
        [[0, 1], [1, 1], [2, 1]], "1", 12, None)
    assert movement(trek_run)[:2] == (
        {"unit": "day", "used": "1", "remaining": "0", "miles_today": 12,
         "in_transit": None}, {"x": 2, "y": 1})


def test_move_to_on_a_plain_pays_the_rest_of_a_transit_when_that_is_quicker(
        trek_run: Run) -> None:
    """On a map-less plain a 4-mile-a-day cart takes 6/4 = 3/2 day a square. In transit toward
    1,-1 with 1/2 owed, going to 2,0 by way of 1,-1 costs 1/2 + 3/2 = 2 days; straight east, 3."""
    ok(trek_run("init", "Plain", "--ruleset", "cypher"))
    ok(trek_run("roster", "add-character", "Ana"))
    ok(trek_run("roster", "add-vehicle", "Cart", "--move", "miles=4", "--driver", "Ana"))
    ok(trek_run("day", "start"))
    started = recorded(trek_run("move", "NE", "--json"), 5, "Travelled")
    assert (started["toward"], started["still_to_pay"]) == ([1, -1], "1/2")
    ok(trek_run("day", "end"))
    ok(trek_run("day", "start"))
    went = recorded(trek_run("move", "--to", "2,0", "--json"), 8, "Travelled")
    assert (went["path"], went["toward"], went["still_to_pay"], went["dropped"]) == (
        [[0, 0], [1, -1]], [2, 0], "1", None)
    assert went["miles"] == 6
    assert movement(trek_run)[:2] == (
        {"unit": "day", "used": "1", "remaining": "0", "miles_today": 6,
         "in_transit": {"to": {"x": 2, "y": 0}, "remaining": "1"}}, {"x": 1, "y": -1})

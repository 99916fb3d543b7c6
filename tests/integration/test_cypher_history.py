"""Undo, redo, replay and the log on a Cypher campaign, on memory, SQLite and PostgreSQL.

Worked by hand from RULES.md §5 on the strip below (6-mile squares, one walker at 12 miles a
day off the road): the open square 1,0 costs 6/12 = 1/2 day; the rough square 2,0 costs
6/(12 × 1/2) = 1 day, so after the open square the walker spends the other half of day 1 and
is in transit toward 2,0 with 1/2 still to pay, which day 2 pays on arrival.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.history import Redo, Undo
from domain.commands.roster import AddCharacter
from domain.commands.travel import Move, MoveOptions
from domain.errors import RuleViolation
from domain.options import CharacterOptions
from tracker.app import Trek

OpenTrek = Callable[..., Trek]

MAP = """\
[map]
name = "Road to Qi"
square_miles = 6
rows = ["=.r....", "......."]
[legend]
"=" = { terrain = "open", road = true }
"." = { terrain = "open" }
"r" = { terrain = "rough" }
"""

EAST = MoveOptions(steps=("E",))

ARRIVED_DAY_2 = {"unit": "day", "used": "1/2", "remaining": "1/2", "miles_today": 6,
                 "in_transit": None}


def two_days(trek: Trek) -> None:
    """Events 1 to 8: two days of walking east, the second ending a transit."""
    trek.init("Qi", ruleset="cypher", map_text=MAP, seed=3)      # 1
    trek.handle(None, AddCharacter(CharacterOptions(name="Ana")))       # 2
    trek.handle(None, StartDay())                                         # 3
    trek.handle(None, Move(EAST))                                        # 4: 1,0 for 1/2 day
    trek.handle(None, Move(EAST))                                        # 5: toward 2,0, 1/2 left
    trek.handle(None, EndDay(DayEndOptions()))                          # 6
    trek.handle(None, StartDay())                                         # 7
    trek.handle(None, Move(EAST))                                        # 8: arrives at 2,0


def cancelled(trek: Trek) -> dict[int, int]:
    return {e["seq"]: e["cancelled_by"] for e in trek.queries.log(None) if e["cancelled_by"]}


def test_a_cypher_transit_is_recorded_across_two_days(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_days(trek)
    day_1_end = trek.queries.status(None, as_of=5)
    assert day_1_end["position"] == {"x": 1, "y": 0}
    assert day_1_end["movement"] == {
        "unit": "day", "used": "1", "remaining": "0", "miles_today": 6,
        "in_transit": {"to": {"x": 2, "y": 0}, "remaining": "1/2"}}
    now = trek.queries.status(None)
    assert (now["day"], now["position"], now["movement"]) == (2, {"x": 2, "y": 0}, ARRIVED_DAY_2)
    assert [(e["seq"], e["type"], e["day"]) for e in trek.queries.log(None)] == [
        (1, "CampaignStarted", 0), (2, "CharacterAdded", 0), (3, "DayStarted", 1),
        (4, "Travelled", 1), (5, "Travelled", 1), (6, "DayEnded", 1), (7, "DayStarted", 2),
        (8, "Travelled", 2)]


def test_undoing_the_first_move_is_refused_then_cascades_and_redo_brings_it_back(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_days(trek)
    before: dict[str, Any] = trek.queries.status(None)

    # Without the move to 1,0 the party stands on 0,0, where neither later move starts.
    with pytest.raises(RuleViolation) as refused:
        trek.handle(None, Undo(4))
    message = str(refused.value)
    assert "event 5 (Travelled)" in message
    assert "event 8 (Travelled)" in message
    assert "--cascade" in message
    assert trek.queries.status(None) == before  # nothing recorded

    [reversal] = trek.handle(None, Undo(4, cascade=True, reason="we never left the road"))
    assert (reversal["seq"], reversal["type"], reversal["cancels"]) == (
        9, "EventsCancelled", [4, 5, 8])
    after = trek.queries.status(None)
    assert after["position"] == {"x": 0, "y": 0}
    assert after["movement"] == {"unit": "day", "used": "0", "remaining": "1",
                                 "miles_today": 0, "in_transit": None}
    assert after["events"] == 9
    assert cancelled(trek) == {4: 9, 5: 9, 8: 9}

    [restored] = trek.handle(None, Redo(9))
    assert (restored["seq"], restored["restores"]) == (10, [4, 5, 8])
    assert {k: v for k, v in trek.queries.status(None).items() if k != "events"} == {
        k: v for k, v in before.items() if k != "events"}
    assert cancelled(trek) == {}


def test_undoing_the_arrival_puts_the_party_back_in_transit(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_days(trek)
    trek.handle(None, Undo())  # the latest live event: 8, the arrival
    now = trek.queries.status(None)
    assert now["position"] == {"x": 1, "y": 0}
    assert now["movement"] == {"unit": "day", "used": "0", "remaining": "1", "miles_today": 0,
                               "in_transit": {"to": {"x": 2, "y": 0}, "remaining": "1/2"}}
    # The cost still to pay was fixed when the transit started: walking on pays the same half.
    trek.handle(None, Move(EAST))
    assert trek.queries.status(None)["movement"] == ARRIVED_DAY_2


def test_replay_rebuilds_the_same_cypher_read_models(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_days(trek)
    trek.handle(None, Undo(4, cascade=True))
    status, log = trek.queries.status(None), trek.queries.log(None)
    result = trek.replay()
    assert (result["rebuilt"], result["notifications"]) == (True, 9)
    assert trek.verify_views() == {"verified": True, "differences": [], "behind": 0}
    assert (trek.queries.status(None), trek.queries.log(None)) == (status, log)

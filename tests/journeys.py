"""Journeys shared by tests that drive the Trek application: maps and days worked by hand."""

from __future__ import annotations

from typing import Any

from domain.besm.commands import Forage, ForcedMarch, Repair, TakeShortcut, TravelByNight
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.history import Undo
from domain.commands.roster import AddCharacter, AddMount, Harm
from domain.commands.supplies import SetSupplies
from domain.commands.travel import Move, MoveOptions
from domain.geometry import Square
from domain.options import CharacterOptions
from domain.ruleset import Command
from tracker.app import Trek

# The Ashen Reach of the README without its rough squares, so every square has penalty 0
# except the hazard, which the journeys never enter.
#   x: 0123456789
#   y0 ..........
#   y1 ..^^......     mountains at 2,1 and 3,1; the party starts at 1,1
#   y2 ..^!......
#   y3 ..........
MAP = """\
[map]
name = "The Ashen Reach"
rows = [
  "..........",
  "..^^......",
  "..^!......",
  "..........",
]

[legend]
"." = { terrain = "open" }
"^" = { terrain = "feature", name = "mountains" }
"!" = { terrain = "hazard", name = "ley storm", penalty = 2 }

[[shortcut]]
name = "Kessel Pass"
path = [[2, 1], [3, 1]]
bonus = 2
penalty = 1
"""

# A Cypher overland map: two road squares, open ground and one rough square at 3,0.
ROAD_TO_QI = """\
[map]
name = "Road to Qi"
square_miles = 6
rows = ["==.r...", "......."]
[legend]
"=" = { terrain = "open", road = true }
"." = { terrain = "open" }
"r" = { terrain = "rough" }
"""


def record_full_day(trek: Trek) -> None:
    """Day 1 of the README journey, with the dice given, then one harm; events 1 to 14."""
    trek.init("Ashes Road", map_text=MAP, at=Square(1, 1), seed=42)             # 1
    trek.handle(None, AddCharacter(CharacterOptions(                                   # 2
        name="Kira",
        skills={"ride": 2, "navigation": 2, "survival": 1},
            extra={"body": 6, "mind": 5, "soul": 4})))
    trek.handle(None, AddCharacter(CharacterOptions(                                   # 3
        name="Oren", skills={"medicine": 2, "survival": 2},
            extra={"body": 5, "mind": 6, "soul": 5})))
    trek.handle(None, AddMount("Dusty", ("ground-speed", 1), "Kira"))                   # 4
    trek.handle(None, AddMount("Bramble", ("ground-speed", 1), "Oren"))                 # 5
    trek.handle(None, SetSupplies({"provisions": 4, "ammo": 2}))                     # 6
    trek.handle(None, StartDay())                                                         # 7
    trek.handle(None, TakeShortcut(name="Kessel Pass", roll=6))           # 8
    trek.handle(None, Move(MoveOptions(steps=("E", "E", "E"))))                          # 9
    trek.handle(None, ForcedMarch(rolls={"Kira": 9, "Oren": 5}))                    # 10
    trek.handle(None, Move(MoveOptions(to=Square(6, 1))))                                # 11
    trek.handle(None, Forage(roll=5))                                   # 12
    trek.handle(None, Harm("Kira", 12, 20, "ambush"))                                    # 13
    trek.handle(None, EndDay(DayEndOptions()))                                          # 14


def besm_command(what: str, rolls: dict[str, int] | None = None, **options: Any) -> Command:
    """A BESM command by the name tables use, the rolls keyed as the rules label them."""
    given = rolls or {}
    if what == "forced march":
        return ForcedMarch(rolls=given)
    roll = next(iter(given.values()), None)
    kinds: dict[str, type[Command]] = {"shortcut": TakeShortcut, "night travel": TravelByNight,
                                       "forage": Forage, "repair": Repair}
    return kinds[what](roll=roll, **options)  # type: ignore[call-arg]


def three_days(trek: Trek) -> None:
    """Three days on MAP with given dice (21 events, day 3 ended, the party at 7,1 with a
    movement base of 2): the sample campaign of the API and page tests."""
    trek.init("Ashes Road", map_text=MAP, at=Square(1, 1), seed=7)
    trek.handle(None, AddCharacter(CharacterOptions(
        name="Kira", skills={"ride": 2, "navigation": 2, "survival": 1},
        extra={"body": 6, "mind": 5, "soul": 4})))
    trek.handle(None, AddCharacter(CharacterOptions(name="Oren", skills={"medicine": 2},
                                              extra={"body": 5, "mind": 6, "soul": 5})))
    trek.handle(None, AddMount("Dusty", ("ground-speed", 1), "Kira"))
    trek.handle(None, AddMount("Bramble", ("ground-speed", 1), "Oren"))
    trek.handle(None, SetSupplies({"provisions": 4, "fuel": 0, "ammo": 2}))
    trek.handle(None, StartDay())
    trek.handle(None, TakeShortcut(name="Kessel Pass", roll=6))
    trek.handle(None, Move(MoveOptions(steps=("E", "E", "E"))))
    trek.handle(None, ForcedMarch(rolls={"Kira": 9, "Oren": 5}))
    trek.handle(None, Move(MoveOptions(to=Square(6, 1))))
    trek.handle(None, Forage(roll=5))
    trek.handle(None, EndDay(DayEndOptions()))
    trek.handle(None, StartDay())
    trek.handle(None, Move(MoveOptions(steps=("SE",))))
    trek.handle(None, Undo(reason="took the wrong fork"))
    trek.handle(None, Move(MoveOptions(steps=("E",))))
    trek.handle(None, EndDay(DayEndOptions(hours=6)))
    trek.handle(None, StartDay())
    trek.handle(None, Repair(conveyance="Dusty", by="Oren", roll=6))
    trek.handle(None, EndDay(DayEndOptions()))

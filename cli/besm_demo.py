"""BESM's sample campaign for `trek demo`: three days on the Ashen Reach (offered to `trek demo`
as `cli.besm.DEMO`)."""

from __future__ import annotations

from domain.besm.commands import Forage, ForcedMarch, Repair, TakeShortcut
from domain.geometry import Square
from domain.ruleset import CharacterOptions, DayEndOptions, MoveOptions
from tracker.app import Trek

DEMO_MAP = """\
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


def play(trek: Trek) -> None:
    """Record a small journey with given dice, so the demo reads the same every time."""
    trek.init("Ashes Road", map_text=DEMO_MAP, at=Square(1, 1), seed=7)
    trek.add_character(None, CharacterOptions(
        name="Kira", skills={"ride": 2, "navigation": 2, "survival": 1},
        extra={"body": 6, "mind": 5, "soul": 4}))
    trek.add_character(None, CharacterOptions(name="Oren", skills={"medicine": 2},
                                              extra={"body": 5, "mind": 6, "soul": 5}))
    trek.add_mount(None, "Dusty", ("ground-speed", 1), "Kira")
    trek.add_mount(None, "Bramble", ("ground-speed", 1), "Oren")
    trek.supplies(None, "set", {"provisions": 4, "fuel": 0, "ammo": 2})
    trek.start_day(None)
    trek.decide(None, TakeShortcut(name="Kessel Pass", roll=6))
    trek.move(None, MoveOptions(steps=("E", "E", "E")))
    trek.decide(None, ForcedMarch(rolls={"Kira": 9, "Oren": 5}))
    trek.move(None, MoveOptions(to=Square(6, 1)))
    trek.decide(None, Forage(roll=5))
    trek.end_day(None, DayEndOptions())
    trek.start_day(None)
    trek.move(None, MoveOptions(steps=("SE",)))
    trek.undo(None, reason="took the wrong fork")
    trek.move(None, MoveOptions(steps=("E",)))
    trek.end_day(None, DayEndOptions(hours=6))
    trek.start_day(None)
    trek.decide(None, Repair(conveyance="Dusty", by="Oren", roll=6))
    trek.end_day(None, DayEndOptions())

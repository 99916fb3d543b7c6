"""BESM's sample campaign for `trek demo`: the README's three days on the Ashen Reach (offered
to `trek demo` as `cli.besm.demo`)."""

from __future__ import annotations

from domain.besm.commands import Forage, ForcedMarch, Repair, TakeShortcut, TravelByNight
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.history import Undo
from domain.commands.roster import AddCharacter, AddMount
from domain.commands.supplies import SetSupplies
from domain.commands.travel import Move, MoveOptions
from domain.geometry import Square
from domain.options import CharacterOptions
from tracker.app import Trek

# docs/examples/ashen-reach.toml, the README's map (a test keeps the two the same).
DEMO_MAP = """\
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


def play(trek: Trek) -> None:
    """Record the README's three-day journey, line for line, with its dice given, so the demo
    reads the same every time and as the README tells it (a test plays both and compares)."""
    trek.init("Ashes Road", map_text=DEMO_MAP, at=Square(1, 1), seed=42)
    trek.handle(None, AddCharacter(CharacterOptions(
        name="Kira", skills={"ride": 2, "navigation": 2, "survival": 1},
        extra={"body": 6, "mind": 5, "soul": 4})))
    trek.handle(None, AddCharacter(CharacterOptions(
        name="Oren", skills={"medicine": 2, "survival": 2},
        extra={"body": 5, "mind": 6, "soul": 5})))
    trek.handle(None, AddMount("Dusty", ("ground-speed", 1), "Kira"))
    trek.handle(None, AddMount("Bramble", ("ground-speed", 1), "Oren"))
    trek.handle(None, SetSupplies({"provisions": 4, "ammo": 2}))
    # Day 1: Kessel Pass, a forced march, a forage.
    trek.handle(None, StartDay())
    trek.handle(None, TakeShortcut(name="Kessel Pass", roll=6))
    trek.handle(None, Move(MoveOptions(steps=("E", "E", "E"))))
    trek.handle(None, ForcedMarch(rolls={"Kira": 9, "Oren": 5}))
    trek.handle(None, Move(MoveOptions(to=Square(6, 1))))
    trek.handle(None, Forage(roll=5))
    trek.handle(None, EndDay(DayEndOptions()))
    # Day 2: a wrong turn undone, then on by night.
    trek.handle(None, StartDay())
    trek.handle(None, Move(MoveOptions(steps=("SE",))))
    trek.handle(None, Undo(last="move", reason="wrong fork"))
    trek.handle(None, Move(MoveOptions(steps=("E",))))
    trek.handle(None, TravelByNight(roll=8))
    trek.handle(None, Move(MoveOptions(steps=("E",))))
    trek.handle(None, EndDay(DayEndOptions(hours=6)))
    # Day 3: Oren tends Dusty.
    trek.handle(None, StartDay())
    trek.handle(None, Repair(conveyance="Dusty", by="Oren", roll=6))
    trek.handle(None, EndDay(DayEndOptions()))

"""The commands only BESM overland travel offers, each with the labels its rolls go under."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from domain.ruleset import Act, Command

# The labels rolls are keyed by (and recorded under); a forced march rolls one per rider or
# driver, under that character's name.
SHORTCUT_ROLL = "shortcut"
NIGHT_TRAVEL_ROLL = "night travel"
FORAGE_ROLL = "forage"
REPAIR_ROLL = "repair"


def _given(label: str, roll: int | None) -> dict[str, int]:
    return {label: roll} if roll is not None else {}


@dataclass(frozen=True)
class TakeShortcut(Command):
    """`shortcut NAME [--roll R]`: one attempt at a shortcut from the map."""

    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True
    what: ClassVar[str] = "shortcut"

    name: str
    roll: int | None = None

    def given_rolls(self) -> Mapping[str, int]:
        return _given(SHORTCUT_ROLL, self.roll)


@dataclass(frozen=True)
class ForcedMarch(Command):
    """`forced-march [--roll CHAR=R]...`: the base movement again, at a cost."""

    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True
    what: ClassVar[str] = "forced march"

    # Rider or driver name -> the total the GM rolled for them.
    rolls: Mapping[str, int] = field(default_factory=dict)

    def given_rolls(self) -> Mapping[str, int]:
        return dict(self.rolls)


@dataclass(frozen=True)
class TravelByNight(Command):
    """`night-travel [--roll R] [--by CHAR]`: on after dark, once a day."""

    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True
    what: ClassVar[str] = "night travel"

    roll: int | None = None
    by: str | None = None

    def given_rolls(self) -> Mapping[str, int]:
        return _given(NIGHT_TRAVEL_ROLL, self.roll)


@dataclass(frozen=True)
class Forage(Command):
    """`forage [--roll R] [--by CHAR] [--take KIND]`: a square of movement spent hunting."""

    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True
    what: ClassVar[str] = "forage"

    roll: int | None = None
    by: str | None = None
    take: str = "provisions"

    def given_rolls(self) -> Mapping[str, int]:
        return _given(FORAGE_ROLL, self.roll)


@dataclass(frozen=True)
class Repair(Command):
    """`repair CONVEYANCE --by CHAR [--roll R]`: the day spent restoring its levels."""

    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True
    what: ClassVar[str] = "repair"

    conveyance: str
    by: str
    roll: int | None = None

    def given_rolls(self) -> Mapping[str, int]:
        return _given(REPAIR_ROLL, self.roll)


@dataclass(frozen=True)
class GoProne(Command):
    """`encounter prone NAME`: free, and the round's Speed is halved."""

    what: ClassVar[str] = "going prone"

    name: str


@dataclass(frozen=True)
class StandUp(Command):
    """`encounter stand NAME`: 1 square of the round's movement."""

    what: ClassVar[str] = "standing up"

    name: str


COMMANDS: frozenset[type[Command]] = frozenset(
    {TakeShortcut, ForcedMarch, TravelByNight, Forage, Repair, GoProne, StandUp, Act})

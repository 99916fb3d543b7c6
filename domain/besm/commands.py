"""The commands only BESM offers, each with the labels its rolls go under.

Each decides itself by BESM's rules (`BesmCommand.decide_by`), so the rules load none of these
classes: a command that is not one of them (`supplies add`, `move`) loads none of them either.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from domain.besm.events import FORAGE_ROLL, NIGHT_TRAVEL_ROLL, REPAIR_ROLL, SHORTCUT_ROLL
from domain.commands.rounds import Act
from domain.ruleset import Command

if TYPE_CHECKING:
    from domain.besm.rules import Besm
    from domain.dice import Dice
    from domain.ruleset import Decision, Situation


def _given(label: str, roll: int | None) -> dict[str, int]:
    return {label: roll} if roll is not None else {}


@dataclass(frozen=True)
class BesmCommand(Command, ABC):
    """One of BESM's own commands: it names the rule that decides it."""

    @abstractmethod
    def decide_by(self, rules: Besm, situation: Situation, dice: Dice) -> Decision:
        """The decision of BESM's `rules` on this command."""


@dataclass(frozen=True)
class TakeShortcut(BesmCommand):
    """`shortcut NAME [--roll R]`: one attempt at a shortcut from the map."""

    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True
    what: ClassVar[str] = "shortcut"

    name: str
    roll: int | None = None

    def given_rolls(self) -> Mapping[str, int]:
        return _given(SHORTCUT_ROLL, self.roll)

    def decide_by(self, rules: Besm, situation: Situation, dice: Dice) -> Decision:
        return rules.shortcut(situation, dice, name=self.name)


@dataclass(frozen=True)
class ForcedMarch(BesmCommand):
    """`forced-march [--roll CHAR=R]...`: the base movement again, at a cost."""

    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True
    what: ClassVar[str] = "forced march"

    # Rider or driver name -> the total the GM rolled for them.
    rolls: Mapping[str, int] = field(default_factory=dict)

    def given_rolls(self) -> Mapping[str, int]:
        return dict(self.rolls)

    def decide_by(self, rules: Besm, situation: Situation, dice: Dice) -> Decision:
        return rules.forced_march(situation, dice)


@dataclass(frozen=True)
class TravelByNight(BesmCommand):
    """`night-travel [--roll R] [--by CHAR]`: on after dark, once a day."""

    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True
    what: ClassVar[str] = "night travel"

    roll: int | None = None
    by: str | None = None

    def given_rolls(self) -> Mapping[str, int]:
        return _given(NIGHT_TRAVEL_ROLL, self.roll)

    def decide_by(self, rules: Besm, situation: Situation, dice: Dice) -> Decision:
        return rules.night_travel(situation, dice, by=self.by)


@dataclass(frozen=True)
class Forage(BesmCommand):
    """`forage [--roll R] [--by CHAR] [--take KIND]`: a square of movement spent hunting."""

    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True
    what: ClassVar[str] = "forage"

    roll: int | None = None
    by: str | None = None
    take: str = "provisions"

    def given_rolls(self) -> Mapping[str, int]:
        return _given(FORAGE_ROLL, self.roll)

    def decide_by(self, rules: Besm, situation: Situation, dice: Dice) -> Decision:
        return rules.forage(situation, dice, by=self.by, take=self.take)


@dataclass(frozen=True)
class Repair(BesmCommand):
    """`repair CONVEYANCE --by CHAR [--roll R]`: the day spent restoring its levels."""

    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True
    what: ClassVar[str] = "repair"

    conveyance: str
    by: str
    roll: int | None = None

    def given_rolls(self) -> Mapping[str, int]:
        return _given(REPAIR_ROLL, self.roll)

    def decide_by(self, rules: Besm, situation: Situation, dice: Dice) -> Decision:
        return rules.repair(situation, dice, conveyance=self.conveyance, by=self.by)


@dataclass(frozen=True)
class GoProne(BesmCommand):
    """`encounter prone NAME`: free, and the round's Speed is halved."""

    what: ClassVar[str] = "going prone"

    name: str

    def decide_by(self, rules: Besm, situation: Situation, dice: Dice) -> Decision:
        return rules.fight.go_prone(situation, self.name)


@dataclass(frozen=True)
class StandUp(BesmCommand):
    """`encounter stand NAME`: 1 square of the round's movement."""

    what: ClassVar[str] = "standing up"

    name: str

    def decide_by(self, rules: Besm, situation: Situation, dice: Dice) -> Decision:
        return rules.fight.stand(situation, self.name)


COMMANDS: frozenset[type[Command]] = frozenset(
    {TakeShortcut, ForcedMarch, TravelByNight, Forage, Repair, GoProne, StandUp, Act})

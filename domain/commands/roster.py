"""The roster's commands: who travels, on what, their harm, and the house rules."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, ClassVar

from pydantic import AfterValidator

from domain.bounds import MAX_LEVEL, MAX_MILES, MAX_POINTS
from domain.commands import Reason
from domain.errors import RuleViolation
from domain.options import CharacterOptions
from domain.ruleset import Command
from domain.state import Role
from domain.values import check_name, check_number

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.events import TrekEvent


def _new_name(name: str) -> str:
    """A name for someone new on the roster (whether it is free is the campaign's question)."""
    if not name.strip():
        raise RuleViolation("a name cannot be empty")
    return check_name(name)


def check_levels(levels: Mapping[str, int], what: str) -> None:
    for name, level in levels.items():
        check_name(name, f"{what} name")
        if level < 0:
            raise RuleViolation(f"the {what} {name} needs a level of 0 or more, not {level}")
        check_number(level, f"the {what} {name}'s level", 0, MAX_LEVEL)


def _new_character(options: CharacterOptions) -> CharacterOptions:
    """The shared parts of `roster add-character`: the name, skill and attribute levels, and
    the Health and Energy maxima (the ruleset checks its own stats)."""
    _new_name(options.name)
    check_levels(options.skills, "skill")
    check_levels(options.attributes, "attribute")
    for option in ("health_max", "energy_max"):
        value = getattr(options, option)
        if value is not None:
            # A maximum of 0 would leave nothing to lose or regain: 1 is the least.
            check_number(value, f"--{option.replace('_', '-')}", 1, MAX_POINTS)
    return options


def _move(move: tuple[str, int] | None) -> tuple[str, int] | None:
    """`--move ATTRIBUTE=LEVEL` of a mount or vehicle: miles a day, else a movement level."""
    if move is not None:
        attribute, level = move
        check_name(attribute, "movement attribute")
        high = MAX_MILES if attribute == "miles" else MAX_LEVEL
        check_number(level, f"--move {attribute}", 0, high)
    return move


def _harm(what: str) -> AfterValidator:
    def validate(amount: int) -> int:
        if amount < 0:
            raise RuleViolation("harm takes away Health or Energy; give amounts of 0 or more")
        return check_number(amount, what, 0, MAX_POINTS)
    return AfterValidator(validate)


NewName = Annotated[str, AfterValidator(_new_name)]
Conveyance = Annotated[tuple[str, int] | None, AfterValidator(_move)]


@dataclass(frozen=True)
class AddCharacter(Command):
    """`roster add-character NAME [stats]`: someone new on the roster, with the ruleset's stats."""

    what: ClassVar[str] = "roster add-character"

    options: Annotated[CharacterOptions, AfterValidator(_new_character)]

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_add_character(self)


@dataclass(frozen=True)
class AddMount(Command):
    """`roster add-mount NAME [--move NAME=N] [--rider CHAR]`."""

    what: ClassVar[str] = "roster add-mount"

    name: NewName
    move: Conveyance = None
    rider: str | None = None

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_add_mount(self)


@dataclass(frozen=True)
class AddVehicle(Command):
    """`roster add-vehicle NAME [--move NAME=N] [--driver CHAR] [--passenger CHAR]...`."""

    what: ClassVar[str] = "roster add-vehicle"

    name: NewName
    move: Conveyance = None
    driver: str | None = None
    passengers: tuple[str, ...] = ()

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_add_vehicle(self)


@dataclass(frozen=True)
class Assign(Command):
    """`roster assign CHAR --to CONVEYANCE --as rider|driver|passenger`."""

    what: ClassVar[str] = "roster assign"

    character: str
    conveyance: str
    role: Role

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_assign(self)


@dataclass(frozen=True)
class Dismount(Command):
    """`roster dismount CHAR`: off whatever the character travels on."""

    what: ClassVar[str] = "roster dismount"

    character: str

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_dismount(self)


@dataclass(frozen=True)
class Leave(Command):
    """`roster leave NAME`: a character or conveyance stays behind."""

    what: ClassVar[str] = "roster leave"
    acts_on_party: ClassVar[bool] = True

    name: str

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_leave(self)


@dataclass(frozen=True)
class Rejoin(Command):
    """`roster rejoin NAME`: one that stayed behind travels with the party again."""

    what: ClassVar[str] = "roster rejoin"
    acts_on_party: ClassVar[bool] = True

    name: str

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_rejoin(self)


@dataclass(frozen=True)
class Harm(Command):
    """`harm CHAR [--health N] [--energy N] [--reason TEXT]`."""

    what: ClassVar[str] = "harm"

    character: str
    health: Annotated[int, _harm("--health")] = 0
    energy: Annotated[int, _harm("--energy")] = 0
    reason: Reason = None

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_harm(self)


@dataclass(frozen=True)
class SetRule(Command):
    """`rules set KEY=VALUE`: one of the campaign's house rules."""

    what: ClassVar[str] = "rules set"

    key: str
    value: int

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_set_rule(self)

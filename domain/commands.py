"""Every write shared by all rulesets, as data: one frozen command per use case.

A front-end (the command line, the table's API, the shell) builds one of these from what the
GM typed and hands it to `Trek.handle`; the campaign decides it in `Campaign.handle`. A
ruleset's own commands subclass `domain.ruleset.Command` in its own package and reach the
ruleset through the same door.

`what` names each in the campaign's refusals; `overland` ones are refused while an encounter
is open. Each field carries its bounds (see `Command`): a name, a text or a number out of them
is refused as the command is made, with the sentence the GM reads, and the rules decide only
what depends on the campaign (who exists, the ruleset's stats, the house rules' bounds).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator

from domain.bounds import MAX_AMOUNT, MAX_CAMPAIGN_NAME, MAX_LEVEL, MAX_MILES, MAX_POINTS
from domain.errors import RuleViolation
from domain.ruleset import CharacterOptions, Command, DayEndOptions, MoveOptions
from domain.state import Role
from domain.supplies import SUPPLY_KINDS
from domain.values import check_name, check_number, texted

# -- the bounds of what the roster is given -------------------------------------------------------


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


def _supplies(minimum: int) -> AfterValidator:
    """KIND=N amounts of supplies, each `minimum` or more."""
    def validate(amounts: Mapping[str, int]) -> Mapping[str, int]:
        if not amounts:
            raise RuleViolation("name at least one supply, as KIND=N")
        for kind, amount in amounts.items():
            if kind not in SUPPLY_KINDS:
                raise RuleViolation(f"{kind!r} is not a supply; use {', '.join(SUPPLY_KINDS)}")
            if amount < minimum:
                raise RuleViolation(
                    f"{kind} needs a whole number of at least {minimum}, not {amount}")
            check_number(amount, kind, minimum, MAX_AMOUNT)
        return amounts
    return AfterValidator(validate)


def _harm(what: str) -> AfterValidator:
    def validate(amount: int) -> int:
        if amount < 0:
            raise RuleViolation("harm takes away Health or Energy; give amounts of 0 or more")
        return check_number(amount, what, 0, MAX_POINTS)
    return AfterValidator(validate)


NewName = Annotated[str, AfterValidator(_new_name)]
Conveyance = Annotated[tuple[str, int] | None, AfterValidator(_move)]
Reason = Annotated[str, texted("reason")] | None

# -- the roster ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddCharacter(Command):
    """`roster add-character NAME [stats]`: someone new on the roster, with the ruleset's stats."""

    what: ClassVar[str] = "roster add-character"

    options: Annotated[CharacterOptions, AfterValidator(_new_character)]


@dataclass(frozen=True)
class AddMount(Command):
    """`roster add-mount NAME [--move NAME=N] [--rider CHAR]`."""

    what: ClassVar[str] = "roster add-mount"

    name: NewName
    move: Conveyance = None
    rider: str | None = None


@dataclass(frozen=True)
class AddVehicle(Command):
    """`roster add-vehicle NAME [--move NAME=N] [--driver CHAR] [--passenger CHAR]...`."""

    what: ClassVar[str] = "roster add-vehicle"

    name: NewName
    move: Conveyance = None
    driver: str | None = None
    passengers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Assign(Command):
    """`roster assign CHAR --to CONVEYANCE --as rider|driver|passenger`."""

    what: ClassVar[str] = "roster assign"

    character: str
    conveyance: str
    role: Role


@dataclass(frozen=True)
class Dismount(Command):
    """`roster dismount CHAR`: off whatever the character travels on."""

    what: ClassVar[str] = "roster dismount"

    character: str


@dataclass(frozen=True)
class Leave(Command):
    """`roster leave NAME`: a character or conveyance stays behind."""

    what: ClassVar[str] = "roster leave"
    acts_on_party: ClassVar[bool] = True

    name: str


@dataclass(frozen=True)
class Rejoin(Command):
    """`roster rejoin NAME`: one that stayed behind travels with the party again."""

    what: ClassVar[str] = "roster rejoin"
    acts_on_party: ClassVar[bool] = True

    name: str


@dataclass(frozen=True)
class SetSupplies(Command):
    """`supplies set KIND=N...`: each amount as given (0 or more)."""

    what: ClassVar[str] = "supplies set"
    acts_on_party: ClassVar[bool] = True

    amounts: Annotated[Mapping[str, int], _supplies(0)]


@dataclass(frozen=True)
class AddSupplies(Command):
    """`supplies add KIND=N...`: each amount added (1 or more)."""

    what: ClassVar[str] = "supplies add"
    acts_on_party: ClassVar[bool] = True

    amounts: Annotated[Mapping[str, int], _supplies(1)]


@dataclass(frozen=True)
class SpendSupplies(Command):
    """`supplies spend KIND=N...`: each amount taken away (1 or more)."""

    what: ClassVar[str] = "supplies spend"
    acts_on_party: ClassVar[bool] = True

    amounts: Annotated[Mapping[str, int], _supplies(1)]


@dataclass(frozen=True)
class Harm(Command):
    """`harm CHAR [--health N] [--energy N] [--reason TEXT]`."""

    what: ClassVar[str] = "harm"

    character: str
    health: Annotated[int, _harm("--health")] = 0
    energy: Annotated[int, _harm("--energy")] = 0
    reason: Reason = None


@dataclass(frozen=True)
class SetRule(Command):
    """`rules set KEY=VALUE`: one of the campaign's house rules."""

    what: ClassVar[str] = "rules set"

    key: str
    value: int


# -- overland travel ----------------------------------------------------------------------------


@dataclass(frozen=True)
class StartDay(Command):
    """`day start`: the party's next travel day opens."""

    what: ClassVar[str] = "day start"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True


@dataclass(frozen=True)
class Move(Command):
    """`move DIR...` or `move --to X,Y`: the party travels overland."""

    what: ClassVar[str] = "overland move"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True

    options: MoveOptions = field(default_factory=MoveOptions)


@dataclass(frozen=True)
class EndDay(Command):
    """`day end [--rest CHAR=MODE]... [--hours N]`: the travel day closes with a night."""

    what: ClassVar[str] = "day end"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True

    options: DayEndOptions = field(default_factory=DayEndOptions)


# -- encounters ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartEncounter(Command):
    """`encounter start NAME [--map FILE]`: the battle map as `read_battle_map` checked it."""

    what: ClassVar[str] = "encounter start"

    name: Annotated[str, texted("encounter name", limit=MAX_CAMPAIGN_NAME)]
    battle_map: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class RemoveCombatant(Command):
    """`encounter remove NAME`: a combatant leaves the battle map."""

    what: ClassVar[str] = "encounter remove"

    name: str


@dataclass(frozen=True)
class ChangeDoor(Command):
    """`encounter door NAME|X,Y open|close` (RULES §16)."""

    what: ClassVar[str] = "encounter door"

    door: Annotated[str, texted("door", limit=MAX_CAMPAIGN_NAME)]
    closed: bool


@dataclass(frozen=True)
class EndEncounter(Command):
    """`encounter end`: the fight is over; overland travel goes on."""

    what: ClassVar[str] = "encounter end"


# -- sessions -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartSession(Command):
    """`session start [TITLE]`: a play session opens."""

    what: ClassVar[str] = "session start"

    title: Annotated[str, texted("session title")] | None = None


@dataclass(frozen=True)
class EndSession(Command):
    """`session end`: the open play session closes."""

    what: ClassVar[str] = "session end"


# -- history: decided by the application, which reads the log around the target ----------------


@dataclass(frozen=True)
class Undo(Command):
    """Cancel event `seq`, else the newest live event (of kind `last`, a word of
    `Registry.undo_kinds`)."""

    what: ClassVar[str] = "undo"

    seq: int | None = None
    cascade: bool = False
    reason: Reason = None
    last: str | None = None


@dataclass(frozen=True)
class Redo(Command):
    """Restore event `seq` (or what reversal `seq` cancelled)."""

    what: ClassVar[str] = "redo"

    seq: int
    reason: Reason = None

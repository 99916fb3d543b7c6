"""Every write shared by all rulesets, as data: one frozen command per use case.

A front-end (the command line, the table's API, the shell) builds one of these from what the
GM typed and hands it to `Trek.handle`; the campaign decides it in `Campaign.handle`. A
ruleset's own commands subclass `domain.ruleset.Command` in its own package and reach the
ruleset through the same door.

`what` names each in the campaign's refusals; `overland` ones are refused while an encounter
is open.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from domain.ruleset import CharacterOptions, Command, DayEndOptions, MoveOptions
from domain.state import Role

# -- the roster ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddCharacter(Command):
    what: ClassVar[str] = "roster add-character"

    options: CharacterOptions


@dataclass(frozen=True)
class AddMount(Command):
    what: ClassVar[str] = "roster add-mount"

    name: str
    move: tuple[str, int] | None = None
    rider: str | None = None


@dataclass(frozen=True)
class AddVehicle(Command):
    what: ClassVar[str] = "roster add-vehicle"

    name: str
    move: tuple[str, int] | None = None
    driver: str | None = None
    passengers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Assign(Command):
    what: ClassVar[str] = "roster assign"

    character: str
    conveyance: str
    role: Role


@dataclass(frozen=True)
class Dismount(Command):
    what: ClassVar[str] = "roster dismount"

    character: str


@dataclass(frozen=True)
class Leave(Command):
    what: ClassVar[str] = "roster leave"

    name: str


@dataclass(frozen=True)
class Rejoin(Command):
    what: ClassVar[str] = "roster rejoin"

    name: str


@dataclass(frozen=True)
class SetSupplies(Command):
    what: ClassVar[str] = "supplies set"

    amounts: Mapping[str, int]


@dataclass(frozen=True)
class AddSupplies(Command):
    what: ClassVar[str] = "supplies add"

    amounts: Mapping[str, int]


@dataclass(frozen=True)
class SpendSupplies(Command):
    what: ClassVar[str] = "supplies spend"

    amounts: Mapping[str, int]


@dataclass(frozen=True)
class Harm(Command):
    what: ClassVar[str] = "harm"

    character: str
    health: int = 0
    energy: int = 0
    reason: str | None = None


@dataclass(frozen=True)
class SetRule(Command):
    what: ClassVar[str] = "rules set"

    key: str
    value: int


# -- overland travel ----------------------------------------------------------------------------


@dataclass(frozen=True)
class StartDay(Command):
    what: ClassVar[str] = "day start"
    overland: ClassVar[bool] = True


@dataclass(frozen=True)
class Move(Command):
    what: ClassVar[str] = "overland move"
    overland: ClassVar[bool] = True

    options: MoveOptions = field(default_factory=MoveOptions)


@dataclass(frozen=True)
class EndDay(Command):
    what: ClassVar[str] = "day end"
    overland: ClassVar[bool] = True

    options: DayEndOptions = field(default_factory=DayEndOptions)


# -- encounters ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartEncounter(Command):
    """`encounter start NAME [--map FILE]`: the battle map as `read_battle_map` checked it."""

    what: ClassVar[str] = "encounter start"

    name: str
    battle_map: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class RemoveCombatant(Command):
    what: ClassVar[str] = "encounter remove"

    name: str


@dataclass(frozen=True)
class EndEncounter(Command):
    what: ClassVar[str] = "encounter end"


# -- sessions -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartSession(Command):
    what: ClassVar[str] = "session start"

    title: str | None = None


@dataclass(frozen=True)
class EndSession(Command):
    what: ClassVar[str] = "session end"


# -- history: decided by the application, which reads the log around the target ----------------


@dataclass(frozen=True)
class Undo(Command):
    """Cancel event `seq`, else the newest live event (of kind `last`, a word of
    `Registry.undo_kinds`)."""

    what: ClassVar[str] = "undo"

    seq: int | None = None
    cascade: bool = False
    reason: str | None = None
    last: str | None = None


@dataclass(frozen=True)
class Redo(Command):
    """Restore event `seq` (or what reversal `seq` cancelled)."""

    what: ClassVar[str] = "redo"

    seq: int
    reason: str | None = None

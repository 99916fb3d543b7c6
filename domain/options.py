"""What a shared command hands its ruleset to decide: a character's stats, a move as given, a
day's end. They are the fields of those commands (`AddCharacter`, `EnterCombatant`, `Move`,
`EndDay`) and load with them, so a command that gives none of them defines none."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.geometry import Square


@dataclass(frozen=True)
class CharacterOptions:
    """Everything `roster add-character` may be given; a ruleset takes what it uses."""

    name: str
    skills: Mapping[str, int] = field(default_factory=dict)
    attributes: Mapping[str, int] = field(default_factory=dict)
    health_max: int | None = None
    energy_max: int | None = None
    # The ruleset's own stat options, by option name; its `character` decides the `stats` a
    # character keeps, and `options_of` gives them back from a recorded character.
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MoveOptions:
    """A move as given: compass steps, or a destination to reach by the cheapest legal path."""

    steps: tuple[str, ...] = ()
    to: Square | None = None
    through_hazard: bool = False


@dataclass(frozen=True)
class DayEndOptions:
    """`day end`'s options: how each character rests, and hours slept."""

    rests: Mapping[str, str] = field(default_factory=dict)
    # Hours slept; None when not given (a ruleset that sleeps takes its own default).
    hours: int | None = None

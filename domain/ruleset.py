"""The small interface every ruleset implements, and what a decision looks like."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from domain.dice import Dice
from domain.errors import RuleViolation
from domain.events import TrekEvent
from domain.geometry import Square
from domain.maps import GameMap, Terrain
from domain.state import Game

# A decision names the event class to record and its payload (the outcome, in full).
Decision = tuple[type[TrekEvent], dict[str, Any]]


@dataclass(frozen=True)
class Situation:
    """What a rule may look at: the game state and the map (None: an open, edgeless plain)."""

    game: Game
    map: GameMap | None
    ruleset: str


@dataclass(frozen=True)
class CharacterOptions:
    """Everything `roster add-character` may be given; a ruleset takes what it uses."""

    name: str
    body: int | None = None
    mind: int | None = None
    soul: int | None = None
    might: int | None = None
    speed: int | None = None
    intellect: int | None = None
    skills: Mapping[str, int] = field(default_factory=dict)
    attributes: Mapping[str, int] = field(default_factory=dict)
    health_max: int | None = None
    energy_max: int | None = None


@dataclass(frozen=True)
class MoveOptions:
    """A move as given: compass steps, or a destination to reach by the cheapest legal path."""

    steps: tuple[str, ...] = ()
    to: Square | None = None
    through_hazard: bool = False


@dataclass(frozen=True)
class DayEndOptions:
    rests: Mapping[str, str] = field(default_factory=dict)
    hours: int = 8


class Ruleset(Protocol):
    """One tabletop system's travel rules: pure functions from situation and command to outcome."""

    name: str
    terrains: frozenset[Terrain]
    # The commands beyond the shared ones (roster, supplies, day start/end, move) it offers.
    extra_commands: frozenset[str]

    def character(self, situation: Situation, options: CharacterOptions) -> dict[str, Any]:
        """The CharacterAdded payload for these options, or a refusal."""

    def mount(
        self, situation: Situation, name: str, move: tuple[str, int] | None, rider: str | None
    ) -> dict[str, Any]:
        """The MountAdded payload."""

    def vehicle(
        self, situation: Situation, name: str, move: tuple[str, int] | None
    ) -> dict[str, Any]:
        """The VehicleAdded payload (movement part)."""

    def start_day(self, situation: Situation) -> Decision: ...

    def move(self, situation: Situation, options: MoveOptions) -> Decision: ...

    def redo_move(self, situation: Situation, event: TrekEvent) -> Decision:
        """Decide a recorded move again from what it recorded, for re-checking history."""

    def end_day(self, situation: Situation, options: DayEndOptions) -> Decision: ...

    def movement_status(self, situation: Situation) -> dict[str, Any]: ...

    def flying(self, situation: Situation) -> bool: ...

    def decide(
        self, command: str, situation: Situation, dice: Dice, **options: Any
    ) -> Decision:
        """A ruleset-specific command from `extra_commands`."""

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision | None:
        """Decide a recorded ruleset-specific event again, or None when it is not one of them."""


def not_offered(ruleset: str, command: str) -> RuleViolation:
    return RuleViolation(
        f"the {ruleset} ruleset has no {command}; this campaign records nothing for it"
    )

"""What a BESM travel day may hold beyond its clock and its moves: a shortcut tried, a forced
march, night travel, foraging, a repair. Each decides itself again from what it recorded when
history is re-checked (`redecided`, by the rules that decided it).

Kept apart from `domain/besm/events.py` so that a move, a day's start or end, or supplies
added load none of them: the campaign's log loads them when it first meets one (the ruleset's
`event_parts`), and the rules when they decide one. They are stored under `domain.besm.events`'
topics, as every release before stored them (`stored_under`).
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from domain.besm.events import strain_entries
from domain.besm.state import Strain, TravelDay
from domain.dice import RecordedDice
from domain.events import RouteMark, TrekEvent
from domain.geometry import Square
from domain.rolls import Roll
from domain.ruleset import Decision, Ruleset, Situation
from domain.state import Conveyance, Game

if TYPE_CHECKING:
    from domain.besm.rules import Besm

# The module their topics name.
STORED_UNDER = "domain.besm.events"


def _rules(ruleset: Ruleset) -> "Besm":
    from domain.besm.rules import Besm

    assert isinstance(ruleset, Besm), "a BESM event is in a BESM campaign's log"
    return ruleset


def _recorded(event: TrekEvent) -> RecordedDice:
    """The dice the event rolled, given back as they fell."""
    return RecordedDice({roll.label: roll for roll in event.rolls()})


class ShortcutAttempted(TrekEvent):
    stored_under: ClassVar[str] = STORED_UNDER
    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("shortcut",)

    name: str
    roll: Roll
    bonus: int
    opened: list[Square] = Field(default_factory=list)

    def rolls(self) -> list[Roll]:
        return [self.roll]

    def route_marks(self) -> list[RouteMark]:
        outcome = f"+{self.bonus} squares" if self.roll.success else "failed"
        return [RouteMark("shortcut", f"shortcut {self.name}: {outcome}")]

    def apply_to(self, game: Game) -> None:
        with TravelDay.edit(game) as day:
            day.shortcuts_tried.append(self.name)
            if self.roll.success:
                day.budget += self.bonus
                day.opened.extend(self.opened)

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return _rules(ruleset).shortcut(situation, _recorded(self), name=self.name)


class ForcedMarched(TrekEvent):
    stored_under: ClassVar[str] = STORED_UNDER
    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("forced-march",)

    base: int
    provisions: int
    fuel: int
    strain_rolls: list[Roll]
    # Conveyance name -> pending strain added by this march.
    strain: dict[str, int] = Field(default_factory=dict)

    def rolls(self) -> list[Roll]:
        return list(self.strain_rolls)

    def audit_entries(self, before: Mapping[str, Conveyance],
                      game: Game) -> list[tuple[str, dict[str, Any]]]:
        return strain_entries(before, game)

    def route_marks(self) -> list[RouteMark]:
        strained = "".join(f", {name} strained" for name, points in self.strain.items()
                           if points)
        return [RouteMark("forced-march", f"forced march: +{self.base} squares{strained}")]

    def apply_to(self, game: Game) -> None:
        game.supplies["provisions"] -= self.provisions
        game.supplies["fuel"] -= self.fuel
        with TravelDay.edit(game) as day:
            day.budget += self.base
        for name, points in self.strain.items():
            with Strain.edit(game.conveyances[name]) as strain:
                strain.pending_strain += points

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return _rules(ruleset).forced_march(situation, _recorded(self))


class NightTravelled(TrekEvent):
    stored_under: ClassVar[str] = STORED_UNDER
    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("night-travel",)

    roll: Roll
    base: int
    gained: int
    # How each character in the party travelled tonight: decides the default rest mode.
    rest_defaults: dict[str, str] = Field(default_factory=dict)

    def rolls(self) -> list[Roll]:
        return [self.roll]

    def route_marks(self) -> list[RouteMark]:
        return [RouteMark("night-travel", f"night travel: +{self.gained} squares")]

    def apply_to(self, game: Game) -> None:
        with TravelDay.edit(game) as day:
            day.budget += self.gained
            day.night_travelled = True
            day.night_roles = dict(self.rest_defaults)

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return _rules(ruleset).night_travel(situation, _recorded(self), by=self.roll.by)


class Foraged(TrekEvent):
    stored_under: ClassVar[str] = STORED_UNDER
    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("forage",)

    roll: Roll
    take: str
    gained: int

    def rolls(self) -> list[Roll]:
        return [self.roll]

    def route_marks(self) -> list[RouteMark]:
        found = f"+{self.gained} {self.take}" if self.roll.success else "found nothing"
        return [RouteMark("forage", f"forage: {found}")]

    def apply_to(self, game: Game) -> None:
        with TravelDay.edit(game) as day:
            day.used += 1
            day.forages += 1
        game.supplies[self.take] += self.gained

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return _rules(ruleset).forage(situation, _recorded(self), by=self.roll.by,
                                      take=self.take)


class Repaired(TrekEvent):
    stored_under: ClassVar[str] = STORED_UNDER
    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("repair",)

    conveyance: str
    roll: Roll
    restored: int

    def audit_entries(self, before: Mapping[str, Conveyance],
                      game: Game) -> list[tuple[str, dict[str, Any]]]:
        return [("repairs", {"conveyance": self.conveyance, "by": self.roll.by,
                             "success": self.roll.success, "levels_restored": self.restored})]

    def route_marks(self) -> list[RouteMark]:
        done = (f"{self.restored} level(s) restored" if self.roll.success else "failed")
        return [RouteMark("repair", f"repair {self.conveyance}: {done}", audited=True)]

    def rolls(self) -> list[Roll]:
        return [self.roll]

    def apply_to(self, game: Game) -> None:
        with TravelDay.edit(game) as day:
            day.repaired = True
        game.conveyances[self.conveyance].level += self.restored

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return _rules(ruleset).repair(situation, _recorded(self), conveyance=self.conveyance,
                                      by=self.roll.by)


EVENTS: tuple[type[TrekEvent], ...] = (
    ShortcutAttempted, ForcedMarched, NightTravelled, Foraged, Repaired)

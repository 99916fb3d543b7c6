"""BESM overland travel's events: each one a fact holding its full outcome. The day's clock
and its moves are here; what a day may hold besides (a shortcut, a forced march, night travel,
foraging, a repair) is in `domain/besm/undertakings.py`, stored under this module's topics."""

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from domain.besm.state import Strain, TravelDay, pending_strain
from domain.events import RouteMark, TrekEvent
from domain.geometry import Square
from domain.state import Conveyance, ConveyanceState, Day, Game

# The labels rolls are keyed by (and recorded under); a forced march rolls one per rider or
# driver, under that character's name.
SHORTCUT_ROLL = "shortcut"
NIGHT_TRAVEL_ROLL = "night travel"
FORAGE_ROLL = "forage"
REPAIR_ROLL = "repair"


class DayStarted(TrekEvent):
    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("day-start",)

    number: int
    base: int = 0
    budget: int = 0

    def apply_to(self, game: Game) -> None:
        game.day = Day(number=self.number, open=True)
        TravelDay(budget=self.budget).write(game)


class Moved(TrekEvent):
    """The party walked `path` (its first square is where it stood), one budget point a step."""

    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("move",)

    path: list[Square]
    cost: int
    through_hazard: bool = False

    def distance(self) -> tuple[int, int]:
        return len(self.path) - 1, 0

    def route_path(self) -> list[Square]:
        return list(self.path)

    def apply_to(self, game: Game) -> None:
        game.position = self.path[-1]
        with TravelDay.edit(game) as day:
            day.used += self.cost


# The audit sections of BESM travel: strain taken, conveyances lost to it, repairs.
AUDIT_SECTIONS = ("strain", "deaths", "repairs")


def strain_entries(before: Mapping[str, Conveyance],
                   game: Game) -> list[tuple[str, dict[str, Any]]]:
    """The strain an event put on each conveyance (pending, or levels lost), and any conveyance
    it left dead or broken, read off the fleet before and after it."""
    entries: list[tuple[str, dict[str, Any]]] = []
    for name, now in game.conveyances.items():
        was = before.get(name, now)
        added = pending_strain(now) - pending_strain(was)
        if added > 0 or now.level < was.level:
            entries.append(("strain", {
                "conveyance": name,
                "pending_added": max(0, added),
                "levels_lost": max(0, was.level - now.level),
            }))
        if now.state != was.state and now.state != ConveyanceState.OK:
            entries.append(("deaths", {"conveyance": name, "state": now.state.value}))
    return entries


class StrainLanded(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    lost: int
    level: int
    state: ConveyanceState


class Recovery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    mode: str
    health: int
    energy: int


class Upkeep(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    needed: int
    spent: int
    shortfall: int


class DayEnded(TrekEvent):
    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("day-end",)
    closes_day: ClassVar[bool] = True

    number: int
    strain: dict[str, StrainLanded] = Field(default_factory=dict)
    on_foot: list[str] = Field(default_factory=list)
    hours: int = 8
    # Health and Energy regained at the night's rate; the fold caps them at the maxima.
    recovery: dict[str, Recovery] = Field(default_factory=dict)
    upkeep: dict[str, Upkeep] = Field(default_factory=dict)
    # The characters whose rest mode the GM chose (--rest); the others took the default, which
    # a re-check works out again. None on events recorded before this was kept: all as chosen.
    chosen: list[str] | None = None

    def audit_entries(self, before: Mapping[str, Conveyance],
                      game: Game) -> list[tuple[str, dict[str, Any]]]:
        return strain_entries(before, game)

    def route_marks(self) -> list[RouteMark]:
        # A conveyance that strain destroyed tonight: the journey's deaths.
        return [RouteMark("death", f"{name} {landed.state.value}", audited=True)
                for name, landed in self.strain.items() if landed.state != ConveyanceState.OK]

    def apply_to(self, game: Game) -> None:
        for name, landed in self.strain.items():
            conveyance = game.conveyances[name]
            conveyance.level = landed.level
            with Strain.edit(conveyance) as strain:
                strain.pending_strain = 0
            conveyance.state = landed.state
        for name in self.on_foot:
            game.characters[name].conveyance = None
            game.characters[name].role = None
        for name, gained in self.recovery.items():
            member = game.characters[name]
            member.health = min(member.health_max, member.health + gained.health)
            member.energy = min(member.energy_max, member.energy + gained.energy)
        for kind, upkeep in self.upkeep.items():
            game.supplies[kind] -= upkeep.spent
        game.day.open = False


EVENTS: tuple[type[TrekEvent], ...] = (DayStarted, Moved, DayEnded)

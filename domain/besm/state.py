"""BESM's own part of the game state: what a travel day holds, and a conveyance's strain."""

from pydantic import BaseModel, ConfigDict, Field

from domain.bounds import MAX_AMOUNT, MAX_LEVEL
from domain.geometry import Square
from domain.state import Character, Conveyance, Game, Slice


class TravelDay(Slice):
    """Today's squares: the budget, what was used of it, and what today has already done."""

    budget: int = 0
    used: int = 0
    shortcuts_tried: list[str] = Field(default_factory=list)
    # Squares of feature terrain a successful shortcut opened today.
    opened: list[Square] = Field(default_factory=list)
    forages: int = 0
    repaired: bool = False
    night_travelled: bool = False
    night_roles: dict[str, str] | None = None


class Strain(Slice):
    """Forced-march strain a mount or vehicle carries until the night lands it."""

    pending_strain: int = 0


def today(game: Game) -> TravelDay:
    return TravelDay.read(game)


def remaining(game: Game, day: TravelDay | None = None) -> int:
    """Squares left today (`day`: today, when the caller has read it already): none while no
    day is open or after a repair took the day."""
    day = day or today(game)
    if not game.day.open or day.repaired:
        return 0
    return max(0, day.budget - day.used)


def pending_strain(conveyance: Conveyance) -> int:
    return Strain.read(conveyance).pending_strain


def stat(character: Character, name: str) -> int:
    """Body, Mind or Soul of a character's sheet."""
    return int(character.stats.get(name, 0))


class HouseRules(BaseModel):
    """Campaign options a GM may change (`trek rules set`); every change is a recorded event."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    camp_health_modifier: int = Field(0, ge=-MAX_LEVEL, le=MAX_LEVEL)
    camp_energy_modifier: int = Field(0, ge=-MAX_LEVEL, le=MAX_LEVEL)
    upkeep_provisions: int = Field(0, ge=0, le=MAX_AMOUNT)
    upkeep_fuel: int = Field(0, ge=0, le=MAX_AMOUNT)


def rules_of(game: Game) -> HouseRules:
    return HouseRules.model_validate(game.rules)

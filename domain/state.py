"""The game state a campaign's live events fold into: party, roster, supplies and the day."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from domain.errors import NotFound
from domain.geometry import Square

SUPPLY_KINDS: tuple[str, ...] = ("provisions", "fuel", "ammo", "wealth")


class Role(StrEnum):
    RIDER = "rider"
    DRIVER = "driver"
    PASSENGER = "passenger"


class ConveyanceKind(StrEnum):
    MOUNT = "mount"
    VEHICLE = "vehicle"


class ConveyanceState(StrEnum):
    OK = "ok"
    DEAD = "dead"
    BROKEN = "broken"


class _Mutable(BaseModel):
    # State is mutated in place by the fold; validation happens when events are made.
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class Character(_Mutable):
    name: str
    body: int = 0
    mind: int = 0
    soul: int = 0
    pools: dict[str, int] = Field(default_factory=dict)
    skills: dict[str, int] = Field(default_factory=dict)
    attributes: dict[str, int] = Field(default_factory=dict)
    # The ruleset's own stat options (see CharacterAdded.stats).
    stats: dict[str, Any] = Field(default_factory=dict)
    health: int = 0
    health_max: int = 0
    energy: int = 0
    energy_max: int = 0
    with_party: bool = True
    left_at: Square | None = None
    conveyance: str | None = None
    role: Role | None = None

    def skill(self, name: str) -> int:
        return self.skills.get(name, 0)


class Conveyance(_Mutable):
    name: str
    kind: ConveyanceKind
    attribute: str | None = None
    base_level: int = 0
    level: int = 0
    miles: int | None = None
    pending_strain: int = 0
    state: ConveyanceState = ConveyanceState.OK
    with_party: bool = True
    left_at: Square | None = None

    @property
    def usable(self) -> bool:
        return self.state is ConveyanceState.OK


class HouseRules(_Mutable):
    """Campaign options a GM may change; every change is a recorded event."""

    camp_health_modifier: int = 0
    camp_energy_modifier: int = 0
    upkeep_provisions: int = 0
    upkeep_fuel: int = 0


# The option names GMs type (`trek rules set camp-health-modifier=1`) and the fields they set.
HOUSE_RULES: dict[str, str] = {
    name.replace("_", "-"): name for name in HouseRules.model_fields
}


class Day(_Mutable):
    number: int = 0
    open: bool = False
    budget: int = 0
    used: int = 0
    shortcuts_tried: list[str] = Field(default_factory=list)
    opened: list[Square] = Field(default_factory=list)
    forages: int = 0
    repaired: bool = False
    night_travelled: bool = False
    night_roles: dict[str, str] | None = None
    # Cypher keeps the day as an exact fraction, written "p/q".
    spent: str = "0"
    miles: int = 0

    @property
    def remaining(self) -> int:
        if not self.open or self.repaired:
            return 0
        return max(0, self.budget - self.used)


class Transit(_Mutable):
    """Cypher: the party is part-way toward a square whose cost is not yet paid."""

    to: Square
    remaining: str


# -- encounters ------------------------------------------------------------------------------


class Side(StrEnum):
    PARTY = "party"
    ALLY = "ally"
    ENEMY = "enemy"


def friends(a: Side, b: Side) -> bool:
    """Party and allies are friends; enemies are friends only of enemies."""
    return (a is Side.ENEMY) == (b is Side.ENEMY)


class Combatant(_Mutable):
    name: str
    side: Side
    at: Square
    facing: str | None = None
    # True for a roster character that joined; False for one added for the fight only.
    from_roster: bool = False
    # The ruleset's stats for a combatant added for the fight (a roster character's are on its
    # sheet), and its state this round, both documents of the ruleset's own shape.
    stats: dict[str, Any] = Field(default_factory=dict)
    state: dict[str, Any] = Field(default_factory=dict)


class Encounter(_Mutable):
    name: str
    grid: str = "square"
    # The battle map as loaded (None: an open, edgeless plain of open cells).
    map: dict[str, Any] | None = None
    round: int = 0
    combatants: dict[str, Combatant] = Field(default_factory=dict)
    # The ruleset's state of the encounter as a whole (e.g. the pass of a combat turn).
    clock: dict[str, Any] = Field(default_factory=dict)

    def at(self, cell: Square) -> Combatant | None:
        for combatant in self.combatants.values():
            if combatant.at == cell:
                return combatant
        return None

    def combatant(self, name: str) -> Combatant:
        found = self.combatants.get(name)
        if found is None:
            listed = ", ".join(self.combatants) or "nobody yet"
            raise NotFound(f"there is no combatant called {name!r} in {self.name} "
                           f"(it has {listed})")
        return found



class Game(_Mutable):
    """Everything an undo may correct: the fold of the campaign's live events."""

    position: Square = Square(0, 0)
    day: Day = Field(default_factory=Day)
    supplies: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(SUPPLY_KINDS, 0))
    characters: dict[str, Character] = Field(default_factory=dict)
    conveyances: dict[str, Conveyance] = Field(default_factory=dict)
    rules: HouseRules = Field(default_factory=HouseRules)
    transit: Transit | None = None
    encounter: Encounter | None = None

    def member_names(self) -> list[str]:
        return [*self.characters, *self.conveyances]

    def member(self, name: str) -> Character | Conveyance | None:
        """A character or conveyance of the roster by name."""
        return self.characters.get(name) or self.conveyances.get(name)

    def riders_of(self, conveyance: str) -> list[Character]:
        return [c for c in self.characters.values() if c.conveyance == conveyance]

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

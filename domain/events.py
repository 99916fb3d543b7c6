"""The campaign's immutable events: each one a fact holding its full outcome."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from domain.dice import Roll
from domain.geometry import Square
from domain.maps import GameMap
from domain.patch import Correction, apply
from domain.state import (
    HOUSE_RULES,
    Character,
    Conveyance,
    ConveyanceKind,
    ConveyanceState,
    Day,
    Game,
    Role,
    Transit,
)

if TYPE_CHECKING:
    from domain.campaign import Campaign


def canonical_bytes(state: dict[str, Any]) -> bytes:
    """The one serialisation events are stored and hashed in."""
    return json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class TrekEvent(BaseModel):
    """Base of every campaign event: who recorded it, when, and the link to its predecessor."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    class_version: ClassVar[int] = 1
    # Events that only keep the books (sessions, reversals) are never undone themselves.
    undoable: ClassVar[bool] = True

    originator_id: UUID
    originator_version: int
    timestamp: datetime
    gm: str = ""
    session: int | None = None
    prev_hash: str = ""

    _stored_hash: str | None = PrivateAttr(default=None)

    @property
    def seq(self) -> int:
        return self.originator_version

    @classmethod
    def type_name(cls) -> str:
        return cls.__name__

    def stored_state(self) -> dict[str, Any]:
        state = self.model_dump(mode="json", exclude={"originator_id", "originator_version"})
        if type(self).class_version > 1:
            state["class_version"] = type(self).class_version
        return state

    def payload(self) -> dict[str, Any]:
        """What the event says, without the bookkeeping every event carries."""
        return self.model_dump(
            mode="json",
            exclude={"originator_id", "originator_version", "timestamp", "gm", "session",
                     "prev_hash"},
        )

    def event_hash(self) -> str:
        if self._stored_hash is None:
            self._stored_hash = hashlib.sha256(canonical_bytes(self.stored_state())).hexdigest()
        return self._stored_hash

    def remember_stored_hash(self, digest: str) -> None:
        self._stored_hash = digest

    def rolls(self) -> list[Roll]:
        return []

    def mutate(self, aggregate: Campaign | None) -> Campaign | None:
        """The eventsourcing library's hook: fold this event into the aggregate."""
        assert aggregate is not None, "only CampaignStarted creates a campaign"
        aggregate.absorb(self)
        return aggregate

    def apply_to(self, game: Game) -> None:
        """The event's effect on the game state; bookkeeping events have none."""


# -- the campaign ----------------------------------------------------------------------------


class BranchOrigin(BaseModel):
    """Where a what-if branch came from: the original campaign, the event it was cut after, and
    that event's hash; when and by whom the branch was made."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    campaign: str
    seq: int
    hash: str
    at: datetime
    gm: str


class CampaignStarted(TrekEvent):
    undoable: ClassVar[bool] = False

    slug: str
    name: str
    ruleset: str
    seed: int
    map: GameMap | None = None
    start: Square = Square(0, 0)
    # Set on a branch's first event; its history up to `branched_from.seq` is the original's.
    branched_from: BranchOrigin | None = None

    def mutate(self, aggregate: Campaign | None) -> Campaign | None:
        from domain.campaign import Campaign

        campaign = Campaign.begin(self)
        campaign.absorb(self)
        return campaign

    def apply_to(self, game: Game) -> None:
        game.position = self.start


class HouseRuleChanged(TrekEvent):
    key: str
    value: int
    previous: int

    def apply_to(self, game: Game) -> None:
        setattr(game.rules, HOUSE_RULES[self.key], self.value)


# -- the roster ------------------------------------------------------------------------------


class CharacterAdded(TrekEvent):
    name: str
    body: int = 0
    mind: int = 0
    soul: int = 0
    pools: dict[str, int] = Field(default_factory=dict)
    skills: dict[str, int] = Field(default_factory=dict)
    attributes: dict[str, int] = Field(default_factory=dict)
    health_max: int = 0
    energy_max: int = 0

    def apply_to(self, game: Game) -> None:
        game.characters[self.name] = Character(
            name=self.name, body=self.body, mind=self.mind, soul=self.soul,
            pools=dict(self.pools), skills=dict(self.skills), attributes=dict(self.attributes),
            health=self.health_max, health_max=self.health_max,
            energy=self.energy_max, energy_max=self.energy_max,
        )


def _board(game: Game, character: str, conveyance: str, role: Role) -> None:
    member = game.characters[character]
    member.conveyance = conveyance
    member.role = role


class MountAdded(TrekEvent):
    name: str
    attribute: str | None = None
    level: int = 0
    rider: str | None = None

    def apply_to(self, game: Game) -> None:
        game.conveyances[self.name] = Conveyance(
            name=self.name, kind=ConveyanceKind.MOUNT, attribute=self.attribute,
            base_level=self.level, level=self.level,
        )
        if self.rider is not None:
            _board(game, self.rider, self.name, Role.RIDER)


class VehicleAdded(TrekEvent):
    name: str
    attribute: str | None = None
    level: int = 0
    miles: int | None = None
    driver: str | None = None
    passengers: list[str] = Field(default_factory=list)

    def apply_to(self, game: Game) -> None:
        game.conveyances[self.name] = Conveyance(
            name=self.name, kind=ConveyanceKind.VEHICLE, attribute=self.attribute,
            base_level=self.level, level=self.level, miles=self.miles,
        )
        if self.driver is not None:
            _board(game, self.driver, self.name, Role.DRIVER)
        for passenger in self.passengers:
            _board(game, passenger, self.name, Role.PASSENGER)


class MemberAssigned(TrekEvent):
    character: str
    conveyance: str
    role: Role

    def apply_to(self, game: Game) -> None:
        _board(game, self.character, self.conveyance, self.role)


class MemberDismounted(TrekEvent):
    character: str
    conveyance: str

    def apply_to(self, game: Game) -> None:
        member = game.characters[self.character]
        member.conveyance = None
        member.role = None


class MemberLeftBehind(TrekEvent):
    name: str
    at: Square
    # Whoever was aboard a conveyance left behind (or the character itself) goes on foot.
    on_foot: list[str] = Field(default_factory=list)

    def apply_to(self, game: Game) -> None:
        member = game.member(self.name)
        assert member is not None, "the roster decision checked the name"
        member.with_party = False
        member.left_at = self.at
        for name in self.on_foot:
            game.characters[name].conveyance = None
            game.characters[name].role = None


class MemberRejoined(TrekEvent):
    name: str

    def apply_to(self, game: Game) -> None:
        member = game.member(self.name)
        assert member is not None, "the roster decision checked the name"
        member.with_party = True
        member.left_at = None


class Harmed(TrekEvent):
    character: str
    health: int = 0
    energy: int = 0
    reason: str | None = None

    def apply_to(self, game: Game) -> None:
        member = game.characters[self.character]
        member.health = max(0, member.health - self.health)
        member.energy = max(0, member.energy - self.energy)


# -- supplies --------------------------------------------------------------------------------


class SuppliesSet(TrekEvent):
    values: dict[str, int]

    def apply_to(self, game: Game) -> None:
        game.supplies.update(self.values)


class SuppliesAdded(TrekEvent):
    amounts: dict[str, int]

    def apply_to(self, game: Game) -> None:
        for kind, amount in self.amounts.items():
            game.supplies[kind] += amount


class SuppliesSpent(TrekEvent):
    amounts: dict[str, int]

    def apply_to(self, game: Game) -> None:
        for kind, amount in self.amounts.items():
            game.supplies[kind] = max(0, game.supplies[kind] - amount)


# -- a travel day ----------------------------------------------------------------------------


class DayStarted(TrekEvent):
    number: int
    base: int = 0
    budget: int = 0

    def apply_to(self, game: Game) -> None:
        game.day = Day(number=self.number, open=True, budget=self.budget)


class Moved(TrekEvent):
    """The party walked `path` (its first square is where it stood), one budget point a step."""

    path: list[Square]
    cost: int
    through_hazard: bool = False

    def apply_to(self, game: Game) -> None:
        game.position = self.path[-1]
        game.day.used += self.cost


class ShortcutAttempted(TrekEvent):
    name: str
    roll: Roll
    bonus: int
    opened: list[Square] = Field(default_factory=list)

    def rolls(self) -> list[Roll]:
        return [self.roll]

    def apply_to(self, game: Game) -> None:
        game.day.shortcuts_tried.append(self.name)
        if self.roll.success:
            game.day.budget += self.bonus
            game.day.opened.extend(self.opened)


class ForcedMarched(TrekEvent):
    base: int
    provisions: int
    fuel: int
    strain_rolls: list[Roll]
    # Conveyance name -> pending strain added by this march.
    strain: dict[str, int] = Field(default_factory=dict)

    def rolls(self) -> list[Roll]:
        return list(self.strain_rolls)

    def apply_to(self, game: Game) -> None:
        game.supplies["provisions"] -= self.provisions
        game.supplies["fuel"] -= self.fuel
        game.day.budget += self.base
        for name, points in self.strain.items():
            game.conveyances[name].pending_strain += points


class NightTravelled(TrekEvent):
    roll: Roll
    base: int
    gained: int
    # How each character in the party travelled tonight: decides the default rest mode.
    rest_defaults: dict[str, str] = Field(default_factory=dict)

    def rolls(self) -> list[Roll]:
        return [self.roll]

    def apply_to(self, game: Game) -> None:
        game.day.budget += self.gained
        game.day.night_travelled = True
        game.day.night_roles = dict(self.rest_defaults)


class Foraged(TrekEvent):
    roll: Roll
    take: str
    gained: int

    def rolls(self) -> list[Roll]:
        return [self.roll]

    def apply_to(self, game: Game) -> None:
        game.day.used += 1
        game.day.forages += 1
        game.supplies[self.take] += self.gained


class Repaired(TrekEvent):
    conveyance: str
    roll: Roll
    restored: int

    def rolls(self) -> list[Roll]:
        return [self.roll]

    def apply_to(self, game: Game) -> None:
        game.day.repaired = True
        game.conveyances[self.conveyance].level += self.restored


class StrainLanded(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    lost: int
    level: int
    state: ConveyanceState


class Recovery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: str
    health: int
    energy: int


class Upkeep(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    needed: int
    spent: int
    shortfall: int


class DayEnded(TrekEvent):
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

    def apply_to(self, game: Game) -> None:
        for name, landed in self.strain.items():
            conveyance = game.conveyances[name]
            conveyance.level = landed.level
            conveyance.pending_strain = 0
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


# -- Cypher long-term travel -------------------------------------------------------------------


class Travelled(TrekEvent):
    """Cypher: a day's travel in exact fractions of a day, possibly ending in transit."""

    # The square left, then every square arrived at.
    path: list[Square]
    spent: str
    miles: int = 0
    # Progress toward a square whose cost is not yet paid: the square and what is left to pay.
    toward: Square | None = None
    still_to_pay: str | None = None
    # A transit given up by turning elsewhere, with the part of a day that was still owed.
    dropped: Transit | None = None

    def apply_to(self, game: Game) -> None:
        from fractions import Fraction

        game.day.spent = str(Fraction(game.day.spent) + Fraction(self.spent))
        game.day.miles += self.miles
        game.position = self.path[-1]
        if self.toward is not None and self.still_to_pay is not None:
            game.transit = Transit(to=self.toward, remaining=self.still_to_pay)
        else:
            game.transit = None


# -- bookkeeping -----------------------------------------------------------------------------


class SessionStarted(TrekEvent):
    undoable: ClassVar[bool] = False

    number: int
    title: str | None = None


class SessionEnded(TrekEvent):
    undoable: ClassVar[bool] = False

    number: int


class _Reversal(TrekEvent):
    undoable: ClassVar[bool] = False

    # Worked out by the write side; read models apply them without any rule code.
    corrections: list[Correction] = Field(default_factory=list)

    def apply_to(self, game: Game) -> None:
        corrected = Game.model_validate(apply(game.dump(), self.corrections))
        for field in Game.model_fields:
            setattr(game, field, getattr(corrected, field))


class EventsCancelled(_Reversal):
    cancels: list[int]
    reason: str | None = None


class EventsRestored(_Reversal):
    restores: list[int]
    reason: str | None = None


EVENT_TYPES: dict[str, type[TrekEvent]] = {
    cls.__name__: cls
    for cls in (
        CampaignStarted, HouseRuleChanged, CharacterAdded, MountAdded, VehicleAdded,
        MemberAssigned, MemberDismounted, MemberLeftBehind, MemberRejoined, Harmed,
        SuppliesSet, SuppliesAdded, SuppliesSpent, DayStarted, Moved, ShortcutAttempted,
        ForcedMarched, NightTravelled, Foraged, Repaired, DayEnded, Travelled,
        SessionStarted, SessionEnded, EventsCancelled, EventsRestored,
    )
}

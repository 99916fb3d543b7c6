"""The roster's events beyond a campaign's first characters and supplies: mounts and vehicles,
who rides what, who is left behind and rejoins, harm, house rules, and supplies set or spent
(the decisions are in `domain/roster.py`).

Kept apart from `domain/events.py` so a command whose campaign holds none of them loads none of
them: the campaign's log loads them when it first meets one (`cli/registry.py`), and the roster's
commands with their rules. They are stored under `domain.events`' topics, as every release
before stored them (`domain.events.topic_of`).
"""

from typing import ClassVar

from pydantic import Field

from domain import roster
from domain.events import RouteMark, TrekEvent
from domain.geometry import Square
from domain.ruleset import Decision, Ruleset, Situation
from domain.state import Conveyance, ConveyanceKind, Game, Role
from domain.values import Amount, Level, Miles, Name, Points, SignedAmount, Text


class HouseRuleChanged(TrekEvent):
    undo_kinds: ClassVar[tuple[str, ...]] = ("rule",)

    key: str
    value: SignedAmount
    previous: SignedAmount

    def apply_to(self, game: Game) -> None:
        game.rules[self.key.replace("-", "_")] = self.value

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return roster.set_rule(ruleset, situation, self.key, self.value)


def _board(game: Game, character: str, conveyance: str, role: Role) -> None:
    member = game.characters[character]
    member.conveyance = conveyance
    member.role = role


class MountAdded(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("add-mount",)

    name: Name
    attribute: Name | None = None
    level: Level = 0
    rider: str | None = None

    def apply_to(self, game: Game) -> None:
        game.conveyances[self.name] = Conveyance(
            name=self.name, kind=ConveyanceKind.MOUNT, attribute=self.attribute,
            base_level=self.level, level=self.level,
        )
        if self.rider is not None:
            _board(game, self.rider, self.name, Role.RIDER)

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        move = (self.attribute, self.level) if self.attribute else None
        return roster.add_mount(ruleset, situation, self.name, move, self.rider)


class VehicleAdded(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("add-vehicle",)

    name: Name
    attribute: Name | None = None
    level: Level = 0
    miles: Miles | None = None
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

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        move = ((self.attribute, self.level) if self.attribute
                else ("miles", self.miles) if self.miles is not None else None)
        return roster.add_vehicle(ruleset, situation, self.name, move, self.driver,
                                  list(self.passengers))


class MemberAssigned(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("assign",)

    character: str
    conveyance: str
    role: Role

    def apply_to(self, game: Game) -> None:
        _board(game, self.character, self.conveyance, self.role)

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return roster.assign(situation, self.character, self.conveyance, self.role)


class MemberDismounted(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("dismount",)

    character: str
    conveyance: str

    def apply_to(self, game: Game) -> None:
        member = game.characters[self.character]
        member.conveyance = None
        member.role = None

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return roster.dismount(situation, self.character)


class MemberLeftBehind(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("leave",)

    name: str
    at: Square
    # Whoever was aboard a conveyance left behind (or the character itself) goes on foot.
    on_foot: list[str] = Field(default_factory=list)

    def route_marks(self) -> list[RouteMark]:
        return [RouteMark("left-behind", f"{self.name} left behind", self.at)]

    def apply_to(self, game: Game) -> None:
        member = game.member(self.name)
        assert member is not None, "the roster decision checked the name"
        member.with_party = False
        member.left_at = self.at
        for name in self.on_foot:
            game.characters[name].conveyance = None
            game.characters[name].role = None

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return roster.leave(situation, self.name)


class MemberRejoined(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("rejoin",)

    name: str

    def route_marks(self) -> list[RouteMark]:
        return [RouteMark("rejoined", f"{self.name} rejoined")]

    def apply_to(self, game: Game) -> None:
        member = game.member(self.name)
        assert member is not None, "the roster decision checked the name"
        member.with_party = True
        member.left_at = None

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return roster.rejoin(situation, self.name)


class Harmed(TrekEvent):
    undo_kinds: ClassVar[tuple[str, ...]] = ("harm",)

    character: str
    health: Points = 0
    energy: Points = 0
    reason: Text | None = None

    def apply_to(self, game: Game) -> None:
        member = game.characters[self.character]
        member.health = max(0, member.health - self.health)
        member.energy = max(0, member.energy - self.energy)

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return roster.harm(situation, self.character, self.health, self.energy, self.reason)


# -- supplies set and spent (added: domain.events.SuppliesAdded) ------------------------------


class SuppliesSet(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("supplies",)

    values: dict[str, Amount]

    def apply_to(self, game: Game) -> None:
        game.supplies.update(self.values)

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return roster.set_supplies(situation, self.values)


class SuppliesSpent(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("supplies",)

    amounts: dict[str, Amount]

    def apply_to(self, game: Game) -> None:
        for kind, amount in self.amounts.items():
            game.supplies[kind] = max(0, game.supplies[kind] - amount)

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return roster.spend_supplies(situation, self.amounts)


EVENTS: tuple[type[TrekEvent], ...] = (
    HouseRuleChanged, MountAdded, VehicleAdded, MemberAssigned, MemberDismounted,
    MemberLeftBehind, MemberRejoined, Harmed, SuppliesSet, SuppliesSpent,
)

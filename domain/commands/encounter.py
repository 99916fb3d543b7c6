"""An encounter's shared commands: it opens, a combatant leaves, a door changes, it ends (the
ruleset's own moves and actions are `domain.ruleset`'s)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from domain.bounds import MAX_CAMPAIGN_NAME
from domain.ruleset import Command
from domain.values import texted

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.events import TrekEvent


@dataclass(frozen=True)
class StartEncounter(Command):
    """`encounter start NAME [--map FILE]`: the battle map as `read_battle_map` checked it."""

    what: ClassVar[str] = "encounter start"

    name: Annotated[str, texted("encounter name", limit=MAX_CAMPAIGN_NAME)]
    battle_map: Mapping[str, Any] | None = None

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_start_encounter(self)


@dataclass(frozen=True)
class RemoveCombatant(Command):
    """`encounter remove NAME`: a combatant leaves the battle map."""

    what: ClassVar[str] = "encounter remove"

    name: str

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_remove_combatant(self)


@dataclass(frozen=True)
class ChangeDoor(Command):
    """`encounter door NAME|X,Y open|close` (RULES §16)."""

    what: ClassVar[str] = "encounter door"

    door: Annotated[str, texted("door", limit=MAX_CAMPAIGN_NAME)]
    closed: bool

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_change_door(self)


@dataclass(frozen=True)
class EndEncounter(Command):
    """`encounter end`: the fight is over; overland travel goes on."""

    what: ClassVar[str] = "encounter end"

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_end_encounter(self)

"""An encounter's shared commands: it opens, combatants enter and leave, a door changes, it
ends. Each ruleset decides the entries by its own rules (`Ruleset.enter`); the ruleset's own
further commands are in its package. They load with the first encounter command that sets a
fight up, so an overland command loads none of them, and nor does a round's move or action:
the round's commands (`StartRound`, `MoveCombatant`, `Act`) are in `domain.commands.rounds`,
named here as well so that the encounter's commands can be taken from one place."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from domain.bounds import MAX_CAMPAIGN_NAME
from domain.commands.rounds import Act, MoveCombatant, StartRound
from domain.geometry import Square
from domain.options import CharacterOptions
from domain.ruleset import Command
from domain.state import Side
from domain.values import placed, texted

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.events import TrekEvent

__all__ = ["Act", "ChangeDoor", "EndEncounter", "EnterCombatant", "MoveCombatant",
           "RemoveCombatant", "StartEncounter", "StartRound"]


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


@dataclass(frozen=True)
class EnterCombatant(Command):
    """`encounter join` (a roster character, side party) or `encounter add` (anyone else)."""

    what: ClassVar[str] = "encounter join"

    name: str
    at: Annotated[Square, placed("the cell")]
    side: Side = Side.PARTY
    facing: str | None = None
    from_roster: bool = True
    # `encounter add`: the ruleset's stat options, as for `roster add-character`.
    options: CharacterOptions | None = None

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_enter_combatant(self)

"""An encounter's shared commands: it opens, combatants enter and leave, a round starts, a
combatant moves or acts, a door changes, it ends. Each ruleset decides the entries, rounds, moves
and actions by its own rules (`Ruleset.enter`, `start_round`, `move_combatant`, `decide`); the
ruleset's own further commands are in its package. They load with the first encounter command,
so an overland command loads none of them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from domain.bounds import MAX_CAMPAIGN_NAME
from domain.geometry import Square
from domain.ruleset import CharacterOptions, Command
from domain.state import Side
from domain.values import placed, texted

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


@dataclass(frozen=True)
class Act(Command):
    """`encounter act NAME [KIND] [options]`: a combatant's action, as its ruleset reads it;
    the kinds and options are the ruleset's own."""

    what: ClassVar[str] = "encounter act"

    name: str
    kind: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


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


@dataclass(frozen=True)
class MoveCombatant(Command):
    """`encounter move NAME DIR... | --to X,Y` with the ruleset's own options."""

    what: ClassVar[str] = "encounter move"

    name: str
    steps: tuple[str, ...] = ()
    to: Square | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_move_combatant(self)


@dataclass(frozen=True)
class StartRound(Command):
    """`encounter round` with the ruleset's own options (e.g. how the round is split)."""

    what: ClassVar[str] = "encounter round"

    options: Mapping[str, Any] = field(default_factory=dict)

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_start_round(self)

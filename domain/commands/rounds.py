"""An encounter's commands of each round: a round starts, a combatant moves, a combatant acts.
Each ruleset decides them by its own rules (`Ruleset.start_round`, `move_combatant`, `decide`)
with its own options. They are what a GM records most often in a fight, so they load apart
from the encounter's setting up (`domain.commands.encounter`: opening, entering, leaving,
doors, ending), which none of them needs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from domain.geometry import Square
from domain.ruleset import Command

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.events import TrekEvent


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


@dataclass(frozen=True)
class Act(Command):
    """`encounter act NAME [KIND] [options]`: a combatant's action, as its ruleset reads it;
    the kinds and options are the ruleset's own."""

    what: ClassVar[str] = "encounter act"

    name: str
    kind: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

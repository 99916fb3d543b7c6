"""Overland travel: the day opens, the party moves, the day closes with a night."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from domain.options import DayEndOptions, MoveOptions
from domain.ruleset import Command

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.events import TrekEvent


@dataclass(frozen=True)
class StartDay(Command):
    """`day start`: the party's next travel day opens."""

    what: ClassVar[str] = "day start"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_start_day(self)


@dataclass(frozen=True)
class Move(Command):
    """`move DIR...` or `move --to X,Y`: the party travels overland."""

    what: ClassVar[str] = "overland move"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True

    options: MoveOptions = field(default_factory=MoveOptions)

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_move(self)


@dataclass(frozen=True)
class EndDay(Command):
    """`day end [--rest CHAR=MODE]... [--hours N]`: the travel day closes with a night."""

    what: ClassVar[str] = "day end"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True

    options: DayEndOptions = field(default_factory=DayEndOptions)

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_end_day(self)

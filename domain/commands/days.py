"""The travel day's clock: the day opens, and closes with a night. A move is apart
(`domain.commands.travel`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from domain.ruleset import Command

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.events import TrekEvent


@dataclass(frozen=True)
class DayEndOptions:
    """`day end`'s options: how each character rests, and hours slept."""

    rests: Mapping[str, str] = field(default_factory=dict)
    # Hours slept; None when not given (a ruleset that sleeps takes its own default).
    hours: int | None = None


@dataclass(frozen=True)
class StartDay(Command):
    """`day start`: the party's next travel day opens."""

    what: ClassVar[str] = "day start"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_start_day(self)


@dataclass(frozen=True)
class EndDay(Command):
    """`day end [--rest CHAR=MODE]... [--hours N]`: the travel day closes with a night."""

    what: ClassVar[str] = "day end"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True

    options: DayEndOptions = field(default_factory=DayEndOptions)

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_end_day(self)

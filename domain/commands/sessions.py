"""Play sessions: one opens, one closes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, ClassVar

from domain.ruleset import Command
from domain.values import texted

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.events import TrekEvent


@dataclass(frozen=True)
class StartSession(Command):
    """`session start [TITLE]`: a play session opens."""

    what: ClassVar[str] = "session start"

    title: Annotated[str, texted("session title")] | None = None

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_start_session(self)


@dataclass(frozen=True)
class EndSession(Command):
    """`session end`: the open play session closes."""

    what: ClassVar[str] = "session end"

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_end_session(self)

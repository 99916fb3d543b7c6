"""Overland travel: the party moves. The day's clock that a move goes within is apart
(`domain.commands.days`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from domain.geometry import Square
from domain.ruleset import Command

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.events import TrekEvent


@dataclass(frozen=True)
class MoveOptions:
    """A move as given: compass steps, or a destination to reach by the cheapest legal path."""

    steps: tuple[str, ...] = ()
    to: Square | None = None
    through_hazard: bool = False


@dataclass(frozen=True)
class Move(Command):
    """`move DIR...` or `move --to X,Y`: the party travels overland."""

    what: ClassVar[str] = "overland move"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True

    options: MoveOptions = field(default_factory=MoveOptions)

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_move(self)

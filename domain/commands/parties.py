"""Splitting the party and merging parties (RULES.md §15): the commands, as data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, ClassVar

from domain.commands.supplies import supply_amounts
from domain.ruleset import Command

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.events import TrekEvent


@dataclass(frozen=True)
class SplitParty(Command):
    """`party split NAME --member M... [--supplies KIND=N]...`, from the party in use."""

    what: ClassVar[str] = "party split"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True

    name: str
    members: tuple[str, ...]
    supplies: Annotated[Mapping[str, int], supply_amounts(0)] | None = None

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_split_party(self)


@dataclass(frozen=True)
class MergeParties(Command):
    """`party merge NAME [--into OTHER]`: NAME joins the party in use (OTHER)."""

    what: ClassVar[str] = "party merge"
    overland: ClassVar[bool] = True
    acts_on_party: ClassVar[bool] = True

    name: str

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_merge_parties(self)

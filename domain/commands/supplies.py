"""The party's supplies: set, added and spent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, ClassVar

from pydantic import AfterValidator

from domain.bounds import MAX_AMOUNT
from domain.errors import RuleViolation
from domain.ruleset import Command
from domain.supplies import SUPPLY_KINDS
from domain.values import check_number

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.events import TrekEvent


def supply_amounts(minimum: int) -> AfterValidator:
    """KIND=N amounts of supplies, each `minimum` or more."""
    def validate(amounts: Mapping[str, int]) -> Mapping[str, int]:
        if not amounts:
            raise RuleViolation("name at least one supply, as KIND=N")
        for kind, amount in amounts.items():
            if kind not in SUPPLY_KINDS:
                raise RuleViolation(f"{kind!r} is not a supply; use {', '.join(SUPPLY_KINDS)}")
            if amount < minimum:
                raise RuleViolation(
                    f"{kind} needs a whole number of at least {minimum}, not {amount}")
            check_number(amount, kind, minimum, MAX_AMOUNT)
        return amounts
    return AfterValidator(validate)


@dataclass(frozen=True)
class SetSupplies(Command):
    """`supplies set KIND=N...`: each amount as given (0 or more)."""

    what: ClassVar[str] = "supplies set"
    acts_on_party: ClassVar[bool] = True

    amounts: Annotated[Mapping[str, int], supply_amounts(0)]

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_set_supplies(self)


@dataclass(frozen=True)
class AddSupplies(Command):
    """`supplies add KIND=N...`: each amount added (1 or more)."""

    what: ClassVar[str] = "supplies add"
    acts_on_party: ClassVar[bool] = True

    amounts: Annotated[Mapping[str, int], supply_amounts(1)]

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_add_supplies(self)


@dataclass(frozen=True)
class SpendSupplies(Command):
    """`supplies spend KIND=N...`: each amount taken away (1 or more)."""

    what: ClassVar[str] = "supplies spend"
    acts_on_party: ClassVar[bool] = True

    amounts: Annotated[Mapping[str, int], supply_amounts(1)]

    def decide_in(self, campaign: Campaign) -> TrekEvent:
        return campaign.decide_spend_supplies(self)

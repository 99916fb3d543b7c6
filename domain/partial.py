"""What a ruleset without overland rules mixes in: each overland command is refused with a
sentence that names the ruleset, and nothing is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from domain.errors import NotOffered
from domain.maps import MapSection, Terrain
from domain.ruleset import Decision, NoHouseRules, Situation
from domain.state import Conveyance

if TYPE_CHECKING:
    from domain.commands.days import DayEndOptions
    from domain.commands.travel import MoveOptions
    from domain.plan import PlanRules


class WithoutOverland:
    """A ruleset whose seed gives no overland rules: days, travel, mounts and vehicles."""

    name: str
    terrains: frozenset[Terrain] = frozenset({Terrain.OPEN})
    map_sections: Mapping[str, MapSection] = MappingProxyType({})
    house_rules: type[BaseModel] = NoHouseRules
    # No overland travel, so no journey for `trek plan` to play.
    plan_rules: PlanRules | None = None

    def _refuse(self, what: str) -> NotOffered:
        return NotOffered(f"the {self.name} ruleset has no overland rules, so no {what}; "
                          "rosters, supplies and encounters work")

    def mount(self, situation: Situation, name: str, move: tuple[str, int] | None,
              rider: str | None) -> dict[str, Any]:
        raise self._refuse("mounts")

    def vehicle(self, situation: Situation, name: str,
                move: tuple[str, int] | None) -> dict[str, Any]:
        raise self._refuse("vehicles")

    def start_day(self, situation: Situation) -> Decision:
        raise self._refuse("travel days")

    def end_day(self, situation: Situation, options: DayEndOptions) -> Decision:
        raise self._refuse("travel days")

    def move(self, situation: Situation, options: MoveOptions) -> Decision:
        raise self._refuse("overland moves (`trek encounter move` moves a combatant)")

    def movement_status(self, situation: Situation) -> dict[str, Any]:
        return {"base": 0, "budget": 0, "used": 0, "remaining": 0}

    def flying(self, situation: Situation) -> bool:
        return False

    def conveyance_status(self, conveyance: Conveyance) -> dict[str, Any]:
        return {}

"""Halves a ruleset may not have: overland travel, or encounter rules not in this release.

A ruleset without one of them mixes in the class here; each of its commands is refused with a
sentence that names the ruleset, and nothing is recorded.
"""

from __future__ import annotations

from typing import Any

from domain.battlemap import LegendSpec
from domain.errors import NotOffered
from domain.maps import Terrain
from domain.ruleset import (
    CharacterOptions,
    DayEndOptions,
    Decision,
    EnterCombatant,
    MoveCombatant,
    MoveOptions,
    Situation,
    StartRound,
)
from domain.state import Character, Combatant


class WithoutOverland:
    """A ruleset whose seed gives no overland rules: days, travel, mounts and vehicles."""

    name: str
    terrains: frozenset[Terrain] = frozenset({Terrain.OPEN})

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


class WithoutEncounterRules:
    """A ruleset whose encounter rules are not in this release yet."""

    name: str
    grid = "square"
    encounters = False
    default_facing: str | None = None
    move_options: frozenset[str] = frozenset()
    battle_legend = LegendSpec(words=frozenset({"open"}))

    def _not_yet(self) -> NotOffered:
        return NotOffered(f"the {self.name} ruleset's encounter rules are not in this release; "
                          "nothing was recorded")

    def enter(self, situation: Situation, command: EnterCombatant,
              character: Character | None) -> tuple[dict[str, Any], dict[str, Any]]:
        raise self._not_yet()

    def start_round(self, situation: Situation, command: StartRound) -> Decision:
        raise self._not_yet()

    def move_combatant(self, situation: Situation, command: MoveCombatant) -> Decision:
        raise self._not_yet()

    def combatant_status(self, situation: Situation, combatant: Combatant) -> dict[str, Any]:
        return {"moved": 0, "remaining": 0}

    def encounter_fields(self, situation: Situation) -> dict[str, Any]:
        return {}


def refuse_other_options(ruleset: str, options: CharacterOptions) -> None:
    """A ruleset that takes no stat options yet refuses every other ruleset's, by name."""
    given = [flag for flag, value in (
        ("--body", options.body), ("--mind", options.mind), ("--soul", options.soul),
        ("--might", options.might), ("--speed", options.speed),
        ("--intellect", options.intellect), ("--health-max", options.health_max),
        ("--energy-max", options.energy_max),
    ) if value is not None]
    if options.attributes:
        given.append("--attribute")
    if given:
        raise NotOffered(f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} another "
                         f"ruleset's option{'s' if len(given) > 1 else ''}; a {ruleset} "
                         "character takes only --skill in this release")

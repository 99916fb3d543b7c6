"""The movepoints ruleset as far as this release goes: rosters and supplies; no overland travel."""

from __future__ import annotations

from typing import Any

from domain.dice import Dice
from domain.events import TrekEvent
from domain.partial import WithoutEncounterRules, WithoutOverland, refuse_other_options
from domain.ruleset import CharacterOptions, Command, Decision, Situation, not_offered


class Movepoints(WithoutOverland, WithoutEncounterRules):
    name = "movepoints"
    commands: frozenset[type[Command]] = frozenset()
    events: tuple[type[TrekEvent], ...] = ()
    character_options: frozenset[str] = frozenset()
    command_line: str | None = None

    def character(self, situation: Situation, options: CharacterOptions) -> dict[str, Any]:
        refuse_other_options(self.name, options)
        return {"skills": dict(options.skills)}

    def decide(self, command: Command, situation: Situation, dice: Dice) -> Decision:
        raise not_offered(self.name, command.what)

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision | None:
        return None

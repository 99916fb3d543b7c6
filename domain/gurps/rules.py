"""The gurps ruleset: rosters and supplies, no overland travel, and hex movement in encounters
(movement points, facing, posture, footing, obstructions, step, water and air)."""

from __future__ import annotations

from functools import cache, singledispatch
from typing import TYPE_CHECKING, Any

from domain.dice import Dice
from domain.encounter import RoundStarted
from domain.events import TrekEvent
from domain.gurps.movement import EVENTS as MOVEMENT_EVENTS
from domain.gurps.movement import HexMoved, HexRules, PostureChanged, stats_of
from domain.gurps.stats import STAT_OPTIONS, movement_stats
from domain.partial import WithoutOverland
from domain.ruleset import Command, Decision, NothingOnEntry, Situation, not_offered
from domain.state import Character

if TYPE_CHECKING:
    from domain.commands.encounter import EnterCombatant
    from domain.options import CharacterOptions


class Gurps(WithoutOverland, HexRules, NothingOnEntry):
    name = "gurps"
    events: tuple[type[TrekEvent], ...] = MOVEMENT_EVENTS
    character_options: frozenset[str] = STAT_OPTIONS
    audit_sections: tuple[str, ...] = ()

    def character(self, situation: Situation, options: CharacterOptions) -> dict[str, Any]:
        return {"skills": dict(options.skills), "stats": movement_stats(options)}

    def enter(self, situation: Situation, command: EnterCombatant,
              character: Character | None) -> tuple[dict[str, Any], dict[str, Any]]:
        if character is not None:
            return {}, self.enter_state(character.stats)
        from domain.options import CharacterOptions

        options = command.options or CharacterOptions(name=command.name)
        stats = movement_stats(options)
        return stats, self.enter_state(stats)

    @property
    def commands(self) -> frozenset[type[Command]]:
        """GURPS's own command, loaded when a campaign is first asked whether it offers one."""
        from domain.gurps.commands import COMMANDS

        return COMMANDS

    def decide(self, command: Command, situation: Situation, dice: Dice) -> Decision:
        from domain.gurps.commands import ChangePosture

        if not isinstance(command, ChangePosture):
            raise not_offered(self.name, command.what)
        return self.change_posture(situation, command.name, command.posture)

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision | None:
        return _redo_of(type(event))(event, self, situation)


@singledispatch
def _redo(event: TrekEvent, rules: Gurps, situation: Situation) -> Decision | None:
    """Decide a GURPS event again from what it recorded; None when it is not one of the
    ruleset's."""
    return None


@_redo.register
def _(event: RoundStarted, rules: Gurps, situation: Situation) -> Decision:
    from domain.commands.rounds import StartRound

    return rules.start_round(situation, StartRound())


@_redo.register
def _(event: HexMoved, rules: Gurps, situation: Situation) -> Decision:
    return rules.redo_move(situation, event)


@_redo.register
def _(event: PostureChanged, rules: Gurps, situation: Situation) -> Decision:
    return rules.change_posture(situation, event.name, event.posture)


# Each event class's rule as singledispatch finds it, asked once per class: re-checking history
# asks for every later event.
_redo_of = cache(_redo.dispatch)


__all__ = ["Gurps", "stats_of"]

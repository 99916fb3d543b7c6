"""The movepoints ruleset: rosters and supplies, no overland travel (its seed has none), and
Move-Point movement in encounters (`domain.movepoints.combat`)."""

from __future__ import annotations

from functools import cache, singledispatch
from typing import TYPE_CHECKING, Any

from domain.dice import Dice
from domain.encounter import RoundStarted
from domain.errors import NotOffered, RuleViolation
from domain.events import TrekEvent
from domain.movepoints.combat import (
    COMBAT_EVENTS,
    MovePointsCondition,
    MovePointsGained,
    MovePointsMoved,
    MovePointsStepped,
    MoveRules,
    fresh_round,
    full_moves,
)
from domain.partial import WithoutOverland
from domain.ruleset import Command, Decision, Situation, given_stat_flags, not_offered
from domain.state import Character

if TYPE_CHECKING:
    from domain.commands.encounter import EnterCombatant
    from domain.options import CharacterOptions


def refuse_other_options(ruleset: str, options: CharacterOptions) -> None:
    """A Move-Points character takes --full-move and --skill; other rulesets' stats are
    refused by name."""
    given = given_stat_flags(options)
    if given:
        raise NotOffered(f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} another "
                         f"ruleset's option{'s' if len(given) > 1 else ''}; a {ruleset} "
                         "character takes --full-move and --skill")


class Movepoints(WithoutOverland, MoveRules):
    name = "movepoints"
    events: tuple[type[TrekEvent], ...] = COMBAT_EVENTS
    character_options: frozenset[str] = frozenset({"full_move"})
    audit_sections: tuple[str, ...] = ()

    def character(self, situation: Situation, options: CharacterOptions) -> dict[str, Any]:
        refuse_other_options(self.name, options)
        # RULES §10: MP are gained as the highest Full Move (or half of it). A character of an
        # earlier release recorded without one holds an empty document, and still stands.
        if options.extra.get("full_move") is None:
            raise RuleViolation(f"{options.name} needs --full-move N (land), swim=N or fly=N: "
                                "without a Full Move it could never gain a Move Point")
        return {"skills": dict(options.skills),
                "stats": {"full_move": full_moves(options.extra.get("full_move"))}}

    def enter(self, situation: Situation, command: EnterCombatant,
              character: Character | None) -> tuple[dict[str, Any], dict[str, Any]]:
        stats: dict[str, Any] = {}
        if character is None:
            from domain.options import CharacterOptions

            options = command.options or CharacterOptions(name=command.name)
            stats = dict(self.character(situation, options)["stats"])
        encounter = situation.game.encounter
        round_number = encounter.round if encounter is not None else 0
        return stats, fresh_round(round_number, None).model_dump(mode="json")

    @property
    def commands(self) -> frozenset[type[Command]]:
        """Its own commands and `encounter act`, loaded when a campaign is first asked whether
        it offers one."""
        from domain.movepoints.commands import COMMANDS

        return COMMANDS

    def decide(self, command: Command, situation: Situation, dice: Dice) -> Decision:
        from domain.commands.rounds import Act
        from domain.movepoints.commands import SetCondition, Step

        if isinstance(command, Act):
            return self.act(situation, command.name, command.kind, command.options)
        if isinstance(command, Step):
            return self.step(situation, command.name, command.direction)
        if isinstance(command, SetCondition):
            return self.set_condition(situation, command.name, command.condition)
        raise not_offered(self.name, command.what)

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision | None:
        return _redo_of(type(event))(event, self, situation)


@singledispatch
def _redo(event: TrekEvent, rules: Movepoints, situation: Situation) -> Decision | None:
    """Decide a Move-Point event again from what it recorded; None when it is not one of
    the ruleset's."""
    return None


@_redo.register
def _(event: RoundStarted, rules: Movepoints, situation: Situation) -> Decision:
    from domain.commands.rounds import StartRound

    return rules.start_round(situation, StartRound())


@_redo.register
def _(event: MovePointsGained, rules: Movepoints, situation: Situation) -> Decision:
    return rules.act(situation, event.name, event.kind, {})


@_redo.register
def _(event: MovePointsMoved, rules: Movepoints, situation: Situation) -> Decision:
    return rules.walk(situation, event.name, list(event.route), fly=event.fly)


@_redo.register
def _(event: MovePointsStepped, rules: Movepoints, situation: Situation) -> Decision:
    return rules.step(situation, event.name, event.direction)


@_redo.register
def _(event: MovePointsCondition, rules: Movepoints, situation: Situation) -> Decision:
    return rules.set_condition(situation, event.name, event.change)


# Each event class's rule as singledispatch finds it, asked once per class: re-checking history
# asks for every later event.
_redo_of = cache(_redo.dispatch)

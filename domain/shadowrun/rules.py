"""The shadowrun ruleset: rosters and supplies, no overland travel (its seed has none), and
tactical movement by Initiative Pass in encounters."""

from __future__ import annotations

from functools import cache, singledispatch
from typing import TYPE_CHECKING, Any

from domain.dice import Dice, RecordedDice
from domain.encounter import RoundStarted
from domain.errors import NotOffered, RuleViolation
from domain.events import TrekEvent
from domain.partial import WithoutOverland
from domain.ruleset import (
    Command,
    Decision,
    NothingOnEntry,
    Situation,
    given_stat_flags,
    not_offered,
)
from domain.shadowrun import SPRINT_ROLL
from domain.shadowrun.movement import (
    EVENTS,
    MAX_ATHLETICS,
    MAX_QUICKNESS,
    METATYPES,
    Intercepted,
    MovedInPass,
    PassRules,
    PassStarted,
    PassState,
    Sprinted,
)
from domain.state import Character

if TYPE_CHECKING:
    from domain.commands.encounter import EnterCombatant
    from domain.options import CharacterOptions


def whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class Shadowrun(WithoutOverland, PassRules, NothingOnEntry):
    name = "shadowrun"
    events: tuple[type[TrekEvent], ...] = EVENTS
    character_options: frozenset[str] = frozenset({"quickness", "metatype"})
    audit_sections: tuple[str, ...] = ()

    # -- roster ----------------------------------------------------------------------------

    def character(self, situation: Situation, options: CharacterOptions) -> dict[str, Any]:
        given = given_stat_flags(options)
        if given:
            raise NotOffered(f"{given[0]} is another ruleset's option; a shadowrun character "
                             "takes --quickness, --metatype and --skill (athletics=N)")
        raw = options.extra.get("quickness")
        if raw is None:
            raise RuleViolation(f"a shadowrun character needs --quickness Q (1 to "
                                f"{MAX_QUICKNESS})")
        quickness = whole(raw)
        if quickness is None or not 1 <= quickness <= MAX_QUICKNESS:
            raise RuleViolation(f"Quickness must be 1 to {MAX_QUICKNESS}, not {raw}")
        metatype = str(options.extra.get("metatype", "human")).strip().lower()
        if metatype not in METATYPES:
            raise RuleViolation(f"--metatype must be {', '.join(METATYPES[:-1])} or "
                                f"{METATYPES[-1]}, not {options.extra.get('metatype')!r}")
        athletics = options.skills.get("athletics", 0)
        if not 0 <= athletics <= MAX_ATHLETICS:
            raise RuleViolation(f"Athletics must be 0 to {MAX_ATHLETICS}, not {athletics}")
        return {"skills": dict(options.skills),
                "stats": {"quickness": quickness, "metatype": metatype}}

    # -- encounters ------------------------------------------------------------------------

    def enter(self, situation: Situation, command: EnterCombatant,
              character: Character | None) -> tuple[dict[str, Any], dict[str, Any]]:
        stats: dict[str, Any] = {}
        if character is None:
            from domain.options import CharacterOptions

            sheet = self.character(situation,
                                   command.options or CharacterOptions(name=command.name))
            stats = {**sheet["stats"], "skills": sheet["skills"]}
        return stats, PassState().dump()

    # -- commands only this ruleset has ----------------------------------------------------

    @property
    def commands(self) -> frozenset[type[Command]]:
        """Its own commands, loaded when a campaign is first asked whether it offers one."""
        from domain.shadowrun.commands import COMMANDS

        return COMMANDS

    def decide(self, command: Command, situation: Situation, dice: Dice) -> Decision:
        from domain.shadowrun.commands import Intercept, NextPass, Sprint

        if isinstance(command, NextPass):
            return self.next_pass(situation)
        if isinstance(command, Sprint):
            return self.sprint(situation, command.name, command.tn, command.successes, dice)
        if isinstance(command, Intercept):
            return self.intercept(situation, command.name, command.by, command.at)
        raise not_offered(self.name, command.what)

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision | None:
        return _redo_of(type(event))(event, self, situation)


@singledispatch
def _redo(event: TrekEvent, rules: Shadowrun, situation: Situation) -> Decision | None:
    """Decide a Shadowrun event again from what it recorded; None when it is not one of
    the ruleset's."""
    return None


@_redo.register
def _(event: RoundStarted, rules: Shadowrun, situation: Situation) -> Decision:
    return rules.redo_round(situation, event)


@_redo.register
def _(event: MovedInPass, rules: Shadowrun, situation: Situation) -> Decision:
    return rules.redo_move(situation, event)


@_redo.register
def _(event: PassStarted, rules: Shadowrun, situation: Situation) -> Decision:
    return rules.next_pass(situation)


@_redo.register
def _(event: Sprinted, rules: Shadowrun, situation: Situation) -> Decision:
    given = event.roll.total if event.roll.dice is None else None
    return rules.sprint(situation, event.name, event.roll.target, given,
                        RecordedDice({SPRINT_ROLL: event.roll}))


@_redo.register
def _(event: Intercepted, rules: Shadowrun, situation: Situation) -> Decision:
    return rules.intercept(situation, event.name, event.by, event.at)


# Each event class's rule as singledispatch finds it, asked once per class: re-checking history
# asks for every later event.
_redo_of = cache(_redo.dispatch)

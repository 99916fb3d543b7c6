"""An encounter's events beyond its opening, its entries and its rounds: a combatant leaving the
battle map, a door opened or closed, the fight's end, each with the rule that decides it.

Kept apart from `domain/encounter.py` so that a fight's moves load none of them: the campaign's
log loads them when it first meets one (`cli/registry.py`), and the commands that record them
with their rules. They are stored under `domain.encounter`'s topics, as every release before
stored them (`domain.events.topic_of`).
"""

from typing import ClassVar

from domain.encounter import find_door, open_encounter
from domain.errors import RuleViolation
from domain.events import TrekEvent
from domain.ruleset import Decision, Ruleset, Situation
from domain.state import Game


class CombatantRemoved(TrekEvent):
    undo_kinds: ClassVar[tuple[str, ...]] = ("encounter-remove",)

    name: str

    def apply_to(self, game: Game) -> None:
        encounter = game.encounter
        assert encounter is not None, "decided with an open encounter"
        encounter.combatants.pop(self.name, None)

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return remove(situation, self.name)


class EncounterEnded(TrekEvent):
    undo_kinds: ClassVar[tuple[str, ...]] = ("encounter-end",)

    name: str
    rounds: int

    def apply_to(self, game: Game) -> None:
        game.encounter = None

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return end(situation)


class DoorChanged(TrekEvent):
    """A door of the battle map opened or closed (free: nobody spends movement on it)."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("encounter-door",)

    door: str
    closed: bool

    def apply_to(self, game: Game) -> None:
        encounter = game.encounter
        assert encounter is not None, "decided with an open encounter"
        encounter.doors = {**encounter.doors, self.door: self.closed}

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return door(situation, self.door, self.closed)


EVENTS: tuple[type[TrekEvent], ...] = (CombatantRemoved, EncounterEnded, DoorChanged)


def remove(situation: Situation, name: str) -> Decision:
    """`encounter remove NAME`: the combatant leaves the battle map."""
    encounter = open_encounter(situation.game)
    encounter.combatant(name)
    return CombatantRemoved(name=name)


def end(situation: Situation) -> Decision:
    """`encounter end`: the fight is over."""
    encounter = open_encounter(situation.game)
    return EncounterEnded(name=encounter.name, rounds=encounter.round)


def door(situation: Situation, named: str, closed: bool) -> Decision:
    """`encounter door NAME|X,Y open|close`: the door's new state (RULES §16)."""
    encounter = open_encounter(situation.game)
    found = find_door(encounter, named)
    if encounter.doors.get(found, True) == closed:
        raise RuleViolation(f"the {found} is already {'closed' if closed else 'open'}")
    return DoorChanged(door=found, closed=closed)

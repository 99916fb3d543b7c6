"""BESM combat movement: Speed in squares a round, one move (or several with Speed Burst),
difficult terrain, Shift, the defence penalty for leaving melee range, prone and standing,
stealthy movement, and the ranged penalty after moving (unless Gun Bunny)."""

from collections.abc import Callable, Mapping
from functools import cache, singledispatch
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from domain import pathfinding
from domain.battlemap import LegendSpec, whole_number
from domain.besm.state import stat
from domain.encounter import (
    CombatantChanged,
    RoundStarted,
    check_target,
    end_refusal,
    open_encounter,
    require_round,
    step_refusal,
    where,
)
from domain.encounter import (
    cell_terrain as terrain_of,
)
from domain.errors import RuleViolation
from domain.events import TrekEvent
from domain.geometry import Square
from domain.grid import SQUARES
from domain.ruleset import Decision, Situation
from domain.state import Character, Combatant, Encounter, Game, friends

if TYPE_CHECKING:
    from domain.commands.rounds import MoveCombatant, StartRound

DEFENSE_PENALTY = 2
RANGED_PENALTY = 2
MOVEMENT_ATTRIBUTES = ("speed", "ground-speed", "flight")


class CombatState(BaseModel):
    """One combatant's round, as stored in the encounter (the ruleset's own document)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    full_speed: int = 0
    # This round's allowance after prone and stealth.
    speed: int = 0
    moved: int = 0
    moves: int = 0
    # The round's move has begun (a move, a shift or a stand).
    began: bool = False
    # The round's move was a shift, which is its one move (speed-burst or not).
    shifted: bool = False
    stealthy: bool = False
    prone: bool = False
    acted: bool = False
    ranged: bool = False
    defense_penalty: int = 0
    # The round at whose start the defence penalty clears.
    penalty_until: int = 0
    ranged_penalty: int = 0

    @model_serializer(mode="wrap")
    def _shifted_only_when_set(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # `shifted` is written only when true, so the states of rounds without a shift read
        # exactly as they were recorded before the key existed.
        dumped: dict[str, Any] = handler(self)
        if not dumped.get("shifted"):
            dumped.pop("shifted", None)
        return dumped


# -- events ----------------------------------------------------------------------------------


class CombatantMoved(CombatantChanged):
    """A move (or a shift) along `path`, the cell left first, and what it cost."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("encounter-move",)

    moves: ClassVar[bool] = True
    # What a move changes; the rest of the state it recorded (an action, say) is the state it
    # was decided in, which may differ in another history while the move stays legal.
    state_keys: ClassVar[frozenset[str] | None] = frozenset(
        {"speed", "stealthy", "moved", "moves", "began", "shifted", "defense_penalty",
         "penalty_until", "ranged_penalty"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})

    cost: int
    shift: bool = False
    stealthy: bool = False
    defense_penalty: int = 0
    ranged_penalty: int = 0

    def distance(self) -> tuple[int, int]:
        return len(self.path) - 1, 0

    def apply_to(self, game: Game) -> None:
        super().apply_to(game)
        if self.shift:
            # A shift is the round's one move, also where it was recorded without the key.
            encounter = game.encounter
            assert encounter is not None, "decided with an open encounter"
            combatant = encounter.combatants[self.name]
            combatant.state = {**combatant.state, "shifted": True}


class WentProne(CombatantChanged):
    undo_kinds: ClassVar[tuple[str, ...]] = ("prone",)
    state_keys: ClassVar[frozenset[str] | None] = frozenset({"prone", "speed"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})


class StoodUp(CombatantChanged):
    undo_kinds: ClassVar[tuple[str, ...]] = ("stand",)
    state_keys: ClassVar[frozenset[str] | None] = frozenset({"prone", "speed", "moved",
                                                             "began"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})

    cost: int = 1


class Acted(CombatantChanged):
    undo_kinds: ClassVar[tuple[str, ...]] = ("act",)
    state_keys: ClassVar[frozenset[str] | None] = frozenset({"acted", "ranged",
                                                             "ranged_penalty"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})

    ranged: bool = False
    ranged_penalty: int = 0


COMBAT_EVENTS = (CombatantMoved, WentProne, StoodUp, Acted)


# -- the numbers ------------------------------------------------------------------------------


def stats_of(situation: Situation, combatant: Combatant) -> Mapping[str, Any]:
    """Body and attributes: a roster character's sheet, or the stats it was added with."""
    if combatant.from_roster:
        character = situation.game.characters[combatant.name]
        return {"body": stat(character, "body"), "attributes": character.attributes}
    return combatant.stats


def level(stats: Mapping[str, Any], attribute: str) -> int:
    return int(stats.get("attributes", {}).get(attribute, 0))


def speed_of(stats: Mapping[str, Any]) -> int:
    """Body plus the highest of the speed, ground-speed and flight levels."""
    return int(stats.get("body", 0)) + max(level(stats, a) for a in MOVEMENT_ATTRIBUTES)


def stealth_allowance(speed: int, stealth: int) -> int:
    """Half the Speed, rounded down, plus the stealth level, never more than the Speed."""
    return min(speed, speed // 2 + stealth)


def state_of(combatant: Combatant) -> CombatState:
    return CombatState.model_validate(combatant.state)


def remaining(state: CombatState, stats: Mapping[str, Any]) -> int:
    if state.shifted or (state.moves and level(stats, "speed-burst") < 1):
        return 0
    return max(0, state.speed - state.moved)


def entry_cost(encounter: Encounter, cell: Square) -> int:
    terrain = terrain_of(encounter, cell) or {"terrain": "open"}
    if terrain["terrain"] == "difficult":
        return int(terrain.get("cost", 2))
    return 1


def next_to_enemy(encounter: Encounter, mover: Combatant, cell: Square) -> bool:
    """Whether `cell` is inside an enemy's melee range (one of the eight cells around it)."""
    return any(not friends(other.side, mover.side) and other.at != cell
               and cell.is_adjacent_or_same(other.at)
               for other in encounter.combatants.values())


def cheapest_path(encounter: Encounter, mover: Combatant, goal: Square, budget: int,
                  cost: Callable[[Square], int]) -> list[Square] | None:
    """The cheapest legal path to `goal` within `budget`, passing friends but never stopping
    on one, never entering an enemy or a wall."""
    def step_cost(here: Square, there: Square) -> int | None:
        return None if step_refusal(encounter, mover, here, there) else cost(there)

    found = pathfinding.cheapest_path(
        SQUARES, mover.at, goal, step_cost, limit=budget,
        may_end=lambda cell: end_refusal(encounter, mover, cell) is None)
    return found[0] if found is not None else None


# -- decisions ---------------------------------------------------------------------------------


class CombatRules:
    """The encounter half of the BESM ruleset, loaded when an encounter first needs it
    (`Besm` hands its fight to it)."""

    battle_legend = LegendSpec(words=frozenset({"open", "difficult"}),
                               keys={"cost": whole_number(2)},
                               only_on={"cost": frozenset({"difficult"})})

    def fresh_state(self, stats: Mapping[str, Any]) -> CombatState:
        speed = speed_of(stats)
        return CombatState(full_speed=speed, speed=speed)

    def combat_stats(self, character: Character | None,
                     stats: Mapping[str, Any]) -> Mapping[str, Any]:
        if character is not None:
            return {"body": stat(character, "body"), "attributes": character.attributes}
        return stats

    def start_round(self, situation: Situation, command: "StartRound") -> Decision:
        encounter = open_encounter(situation.game)
        if command.options:
            raise RuleViolation("a BESM round takes no options")
        number = encounter.round + 1
        states: dict[str, dict[str, Any]] = {}
        for combatant in encounter.combatants.values():
            old = state_of(combatant)
            stats = stats_of(situation, combatant)
            full = speed_of(stats)
            keeps = old.penalty_until > number
            states[combatant.name] = CombatState(
                full_speed=full, speed=full // 2 if old.prone else full, prone=old.prone,
                defense_penalty=old.defense_penalty if keeps else 0,
                penalty_until=old.penalty_until if keeps else 0,
            ).model_dump()
        return RoundStarted(number=number, states=states)

    def move_combatant(self, situation: Situation, command: "MoveCombatant") -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        mover = encounter.combatant(command.name)
        stats = stats_of(situation, mover)
        state = state_of(mover)
        shift = bool(command.options.get("shift"))
        stealthy = bool(command.options.get("stealthy"))
        if shift and stealthy:
            raise RuleViolation("--shift and --stealthy cannot go together: a move is either a "
                                "shift of one square or a stealthy move; give one of them")
        name = mover.name
        if state.shifted:
            raise RuleViolation(f"{name} shifted this round, and a shift is the round's one "
                                "move")
        if state.moves and level(stats, "speed-burst") < 1:
            raise RuleViolation(f"{name} already moved this round; one move a round (Speed "
                                "Burst allows more)")
        if state.acted and state.moves:
            raise RuleViolation(f"{name} already moved and acted this round; it moves no more")
        if stealthy:
            if state.began or state.moves:
                raise RuleViolation(f"a stealthy move must be {name}'s first move this round")
            state.speed = stealth_allowance(state.speed, level(stats, "stealth"))
            state.stealthy = True
        left = remaining(state, stats)
        if shift:
            if command.to is not None or len(command.steps) != 1:
                raise RuleViolation("a shift is exactly one square: give one direction")
            if state.moves or state.began:
                raise RuleViolation(f"a shift is the round's one move, and {name} has "
                                    "already begun moving this round")
        if command.to is not None:
            if command.to == mover.at:
                raise RuleViolation(f"{name} already stands on {where(command.to)}")
            check_target(encounter, mover, command.to)
            found = cheapest_path(encounter, mover, command.to, left,
                                  lambda cell: entry_cost(encounter, cell))
            if found is None:
                raise RuleViolation(f"no legal path takes {name} to {where(command.to)} "
                                    f"within the {left} square(s) it has left this round")
            path = found
        else:
            if not command.steps:
                raise RuleViolation("give at least one direction (N NE E SE S SW W NW) or "
                                    "--to X,Y")
            path = [mover.at]
            for direction in command.steps:
                path.append(path[-1].step(direction))
        return self._walk_combatant(situation, name, path, shift=shift, state=state,
                                    stats=stats)

    def _walk_combatant(self, situation: Situation, name: str, path: list[Square], *,
                        shift: bool, state: CombatState, stats: Mapping[str, Any]) -> Decision:
        encounter = open_encounter(situation.game)
        mover = encounter.combatant(name)
        if path[0] != mover.at:
            raise RuleViolation(f"the move starts at {where(path[0])} but {name} stands on "
                                f"{where(mover.at)}")
        cost = 0
        for number, cell in enumerate(path[1:], start=1):
            reason = step_refusal(encounter, mover, path[number - 1], cell)
            if reason is not None:
                raise RuleViolation(f"step {number} is refused: {reason}")
            price = entry_cost(encounter, cell)
            if shift and price > 1:
                raise RuleViolation(f"a shift costs 1 square and {where(cell)} is difficult "
                                    f"terrain (it costs {price}); make a normal move")
            cost += price
        stop = end_refusal(encounter, mover, path[-1])
        if stop is not None:
            raise RuleViolation(stop)
        left = remaining(state, stats)
        if cost > left:
            raise RuleViolation(f"the move costs {cost} square(s) but {name} has {left} left "
                                "this round")
        round_number = encounter.round
        if not shift and any(next_to_enemy(encounter, mover, cell) for cell in path[:-1]):
            state.defense_penalty = DEFENSE_PENALTY
            state.penalty_until = round_number + 2
        state.moved += cost
        state.moves += 1
        state.began = True
        state.shifted = shift
        if state.ranged and level(stats, "gun-bunny") < 1:
            state.ranged_penalty = RANGED_PENALTY
        return CombatantMoved(
            name=name,
            path=path,
            cost=cost,
            shift=shift,
            stealthy=state.stealthy,
            defense_penalty=state.defense_penalty,
            ranged_penalty=state.ranged_penalty,
            state=state.model_dump(),
        )

    def redo_combatant_move(self, situation: Situation, event: CombatantMoved) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        mover = encounter.combatant(event.name)
        stats = stats_of(situation, mover)
        state = state_of(mover)
        if state.shifted or (state.moves and level(stats, "speed-burst") < 1):
            raise RuleViolation(f"{event.name} would already have moved this round")
        if event.shift and state.began:
            raise RuleViolation(f"a shift is the round's one move, and {event.name} would "
                                "already have begun moving this round")
        if event.stealthy and not state.stealthy:
            if state.began:
                raise RuleViolation(f"a stealthy move must be {event.name}'s first move")
            state.speed = stealth_allowance(state.speed, level(stats, "stealth"))
            state.stealthy = True
        return self._walk_combatant(situation, event.name, list(event.path), shift=event.shift,
                          state=state, stats=stats)

    def go_prone(self, situation: Situation, name: str) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        combatant = encounter.combatant(name)
        state = state_of(combatant)
        if state.prone:
            raise RuleViolation(f"{name} is already prone")
        state.prone = True
        state.speed = state.full_speed // 2
        if state.stealthy:
            stats = stats_of(situation, combatant)
            state.speed = stealth_allowance(state.speed, level(stats, "stealth"))
        return WentProne(name=name, state=state.model_dump())

    def stand(self, situation: Situation, name: str) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        combatant = encounter.combatant(name)
        stats = stats_of(situation, combatant)
        state = state_of(combatant)
        if not state.prone:
            raise RuleViolation(f"{name} is not prone; there is nothing to stand up from")
        if state.moves and level(stats, "speed-burst") < 1:
            raise RuleViolation(f"{name} already moved this round and has no movement left "
                                "to stand up with")
        state.prone = False
        state.speed = state.full_speed
        if state.speed - state.moved < 1:
            raise RuleViolation(f"standing costs 1 square and {name} has none left this round")
        state.moved += 1
        state.began = True
        return StoodUp(name=name, cost=1, state=state.model_dump())

    def act(self, situation: Situation, name: str, ranged: bool) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        combatant = encounter.combatant(name)
        stats = stats_of(situation, combatant)
        state = state_of(combatant)
        if state.acted:
            raise RuleViolation(f"{name} already acted this round; one action a round")
        state.acted = True
        state.ranged = ranged
        if ranged and state.moves and level(stats, "gun-bunny") < 1:
            state.ranged_penalty = RANGED_PENALTY
        return Acted(
            name=name,
            ranged=ranged,
            ranged_penalty=state.ranged_penalty,
            state=state.model_dump(),
        )

    def encounter_fields(self, situation: Situation) -> dict[str, Any]:
        return {}

    def combatant_status(self, situation: Situation, combatant: Combatant) -> dict[str, Any]:
        stats = stats_of(situation, combatant)
        state = state_of(combatant)
        return {
            "moved": state.moved, "remaining": remaining(state, stats), "speed": state.speed,
            "prone": state.prone, "acted": state.acted,
            "defense_penalty": state.defense_penalty, "ranged_penalty": state.ranged_penalty,
        }


# -- history re-checked ------------------------------------------------------------------------


@singledispatch
def _redo(event: TrekEvent, rules: CombatRules, situation: Situation) -> Decision | None:
    """Decide one of BESM's fight events again from what it recorded; None for any other."""
    return None


@_redo.register
def _(event: RoundStarted, rules: CombatRules, situation: Situation) -> Decision:
    from domain.commands.rounds import StartRound

    return rules.start_round(situation, StartRound())


@_redo.register
def _(event: CombatantMoved, rules: CombatRules, situation: Situation) -> Decision:
    return rules.redo_combatant_move(situation, event)


@_redo.register
def _(event: WentProne, rules: CombatRules, situation: Situation) -> Decision:
    return rules.go_prone(situation, event.name)


@_redo.register
def _(event: StoodUp, rules: CombatRules, situation: Situation) -> Decision:
    return rules.stand(situation, event.name)


@_redo.register
def _(event: Acted, rules: CombatRules, situation: Situation) -> Decision:
    return rules.act(situation, event.name, event.ranged)


# Each event class's rule as singledispatch finds it, asked once per class.
redo_of = cache(_redo.dispatch)

"""Cypher rounds and chases: immediate, short and long moves in feet, Speed tasks on a d20,
terrain and gravity, zero-gravity pushes and drift, and one-roll or extended chases."""

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, singledispatch, singledispatchmethod
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict

from domain import pathfinding
from domain.battlemap import LegendSpec, whole_number
from domain.cells import Cell
from domain.dice import Dice
from domain.edges import edge_beside, edge_refusal
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
from domain.encounter import cell_terrain as terrain_of
from domain.errors import RuleViolation
from domain.geometry import DIRECTIONS, Square
from domain.grid import SQUARES
from domain.rolls import Roll
from domain.ruleset import Command, Decision, Situation
from domain.state import Combatant, Encounter

if TYPE_CHECKING:
    from domain.commands.rounds import MoveCombatant, StartRound

DEFAULT_CELL_FEET = 5
MAX_DIFFICULTY = 10
# The kinds of move, their reach in feet and the difficulty of their Speed task.
KINDS: dict[str, tuple[int, int]] = {
    "immediate": (10, 0),
    "short": (50, 0),
    "long": (100, 4),
    "with-action": (50, 4),
}
KIND_FLAGS = ("immediate", "short", "long", "with_action")
MOVE_OPTIONS = frozenset({*KIND_FLAGS, "ease", "hinder", "roll", "stop_at"})
# Terrain that hinders a move roll when the path enters it (high gravity only untrained).
HINDERING = frozenset({"rough", "difficult", "water"})
LEGEND_WORDS = frozenset({"open", "rough", "difficult", "water", "high-gravity", "low-gravity",
                          "zero-gravity"})
# The labels rolls are made under.
MOVE_ROLL = "move"
PUSH_ROLL = "push"
CHASE_ROLL = "chase"


# -- the combatant's round, as stored in the encounter ------------------------------------------


class Drift(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    direction: str
    feet: int


class Chase(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    level: int
    successes: int = 0
    failures: int = 0
    outcome: str | None = None
    role: str = "chaser"
    extended: bool = False

    def shown(self) -> dict[str, Any]:
        return {"level": self.level, "successes": self.successes, "failures": self.failures,
                "outcome": self.outcome}


class CypherState(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    # The round's kind of move ("immediate", "short", "long", "with-action", "push") or None.
    action: str | None = None
    # Feet spent this round.
    moved: int = 0
    # The round's task: its difficulty and outcome (None before the round's move).
    difficulty: int | None = None
    success: bool | None = None
    drifting: Drift | None = None
    chase: Chase | None = None


def state_of(combatant: Combatant) -> CypherState:
    return CypherState.model_validate(combatant.state)


# -- Speed (and Might) tasks ----------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """A Speed (or Might) task as rolled: its difficulty, the roll, and whether it succeeded."""

    difficulty: int
    roll: int | None
    dice: list[int] | None
    target: int
    success: bool

    def fields(self) -> dict[str, Any]:
        return {"difficulty": self.difficulty, "roll": self.roll, "dice": self.dice,
                "target": self.target, "success": self.success}


def difficulty_of(base: int, ease: int, hinder: int) -> int:
    """The difficulty after easing and hindering, one step each, kept between 0 and 10."""
    return max(0, min(MAX_DIFFICULTY, base - ease + hinder))


def check_face(roll: int) -> int:
    if not 1 <= roll <= 20:
        raise RuleViolation(f"a d20 roll of {roll} is impossible; give 1 to 20")
    return roll


def task(difficulty: int, label: str, given: int | None, dice: Dice | None,
         recorded: tuple[int | None, list[int] | None] | None = None) -> Task:
    """A task of `difficulty` (already eased and hindered). At 0 it succeeds with no roll
    (a given roll is ignored); otherwise a d20 succeeds when it is at least 3 × difficulty.
    `recorded` replays an event's roll when it is decided again."""
    if difficulty <= 0:
        return Task(0, None, None, 0, True)
    faces: list[int] | None
    if recorded is not None:
        total, faces = recorded
        if total is None:
            raise RuleViolation(f"it would now need a roll for {label} that was never made")
    elif given is not None:
        total, faces = check_face(given), None
    elif dice is not None:
        total, rolled = dice.roll(label, 1, 20)
        faces = list(rolled) if rolled is not None else None
    else:  # pragma: no cover - the campaign always gives dice to a fresh decision
        raise RuleViolation(f"no dice to roll for {label}; give --roll R")
    target = 3 * difficulty
    return Task(difficulty, total, faces, target, total >= target)


def steps(value: object, what: str) -> int:
    number = int(value) if isinstance(value, int) else 0
    if number < 0:
        raise RuleViolation(f"{what} takes 0 or more steps, not {number}")
    return number


def _chase_level(level: int) -> int:
    if not 1 <= level <= MAX_DIFFICULTY:
        raise RuleViolation(f"a chase's level is 1 to 10 (the NPC's level), not {level}")
    return level


# The steps a chase command eases or hinders its task by (the other tasks take theirs as options).
Ease = Annotated[int, AfterValidator(lambda value: steps(value, "--ease"))]
Hinder = Annotated[int, AfterValidator(lambda value: steps(value, "--hinder"))]


# -- events ---------------------------------------------------------------------------------------


class RolledEvent(CombatantChanged):
    """A combatant's event that may have rolled a task."""

    difficulty: int = 0
    roll: int | None = None
    dice: list[int] | None = None
    target: int = 0
    # None only for the start of an extended chase, which rolls nothing.
    success: bool | None = True
    label: ClassVar[str] = "task"

    def rolls(self) -> list[Roll]:
        if self.roll is None:
            return []
        return [Roll(label=self.label, by=self.name, total=self.roll,
                     dice=tuple(self.dice) if self.dice is not None else None,
                     target=self.target, success=bool(self.success),
                     margin=self.roll - self.target)]


class CypherMoved(RolledEvent):
    """An immediate, short, long or with-action move: `path` is what it covered (to where it
    stopped on a failed roll), `planned` the whole path it set out on."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("encounter-move",)

    moves: ClassVar[bool] = True
    label: ClassVar[str] = MOVE_ROLL
    # A move sets the round's move; a chase in the state it recorded may differ in another
    # history while the move stays legal.
    state_keys: ClassVar[frozenset[str] | None] = frozenset(
        {"action", "moved", "difficulty", "success", "drifting"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})

    action: str
    planned: list[Cell]
    cost: int
    ease: int = 0
    hinder: int = 0
    stop_at: Cell | None = None

    def distance(self) -> tuple[int, int]:
        return len(self.path) - 1, 0


class PushedOff(RolledEvent):
    """A zero-gravity push: a Might task, then a straight line; maybe drifting afterwards."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("push",)

    moves: ClassVar[bool] = True
    label: ClassVar[str] = PUSH_ROLL
    state_keys: ClassVar[frozenset[str] | None] = frozenset(
        {"action", "moved", "difficulty", "success", "drifting"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})

    action: str = "push"
    direction: str
    feet: int
    cost: int
    drifting: Drift | None = None

    def distance(self) -> tuple[int, int]:
        return len(self.path) - 1, 0


class ChaseStarted(RolledEvent):
    """A chase: one roll, or (extended) the start of a long one with no roll yet."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("chase",)

    label: ClassVar[str] = CHASE_ROLL
    # A chase is not the round's move: it sets only the chase.
    state_keys: ClassVar[frozenset[str] | None] = frozenset({"chase"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})

    level: int
    role: str
    extended: bool = False
    ease: int = 0
    hinder: int = 0
    chase: Chase


class ChaseRolled(RolledEvent):
    """One roll of an extended chase."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("chase-roll",)

    label: ClassVar[str] = CHASE_ROLL
    state_keys: ClassVar[frozenset[str] | None] = frozenset({"chase"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})

    ease: int = 0
    hinder: int = 0
    chase: Chase


COMBAT_EVENTS = (CypherMoved, PushedOff, ChaseStarted, ChaseRolled)


# -- commands only this ruleset has ---------------------------------------------------------------


@dataclass(frozen=True)
class Push(Command):
    """`encounter push NAME DIR --feet N [--roll R]`: off a wall in zero gravity."""

    what: ClassVar[str] = "zero-gravity push"

    name: str
    direction: str
    feet: int
    roll: int | None = None


@dataclass(frozen=True)
class StartChase(Command):
    """`encounter chase NAME --level L [...]`: a chase of one roll, or an extended one."""

    what: ClassVar[str] = "chase"

    name: str
    level: Annotated[int, AfterValidator(_chase_level)]
    ease: Ease = 0
    hinder: Hinder = 0
    roll: int | None = None
    role: str = "chaser"
    extended: bool = False


@dataclass(frozen=True)
class RollChase(Command):
    """`encounter chase-roll NAME [...]`: the next Speed task of an extended chase."""

    what: ClassVar[str] = "chase roll"

    name: str
    ease: Ease = 0
    hinder: Hinder = 0
    roll: int | None = None


COMMANDS: frozenset[type[Command]] = frozenset({Push, StartChase, RollChase})


# -- the battle map -------------------------------------------------------------------------------


def cell_feet(encounter: Encounter) -> int:
    battle_map = encounter.map
    return int(battle_map.get("cell_feet", DEFAULT_CELL_FEET)) if battle_map else DEFAULT_CELL_FEET


def terrain_word(encounter: Encounter, cell: Square) -> str:
    entry = terrain_of(encounter, cell)
    return str(entry["terrain"]) if entry is not None else "wall"


def skills_of(situation: Situation, combatant: Combatant) -> Mapping[str, int]:
    if combatant.from_roster:
        character = situation.game.characters.get(combatant.name)
        return dict(character.skills) if character is not None else {}
    skills: Mapping[str, int] = combatant.stats.get("skills", {})
    return skills


def trained(skills: Mapping[str, int], skill: str) -> bool:
    return int(skills.get(skill, 0)) >= 1


def entry_multiplier(word: str, skills: Mapping[str, int]) -> int:
    """How many times `cell_feet` entering a cell of this terrain costs the mover."""
    if word == "difficult":
        return 2
    if word == "high-gravity":
        return 1 if trained(skills, "high-gravity") else 2
    if word == "water":
        return 2 if trained(skills, "swimming") else 4
    return 1


def hinders(word: str, skills: Mapping[str, int]) -> bool:
    return word in HINDERING or (word == "high-gravity" and not trained(skills, "high-gravity"))


def others_cells(encounter: Encounter, mover: Combatant) -> set[Square]:
    return {c.at for c in encounter.combatants.values() if c.name != mover.name}


def blocked(encounter: Encounter, occupied: set[Square], here: Square, cell: Square) -> bool:
    """Whether a push or drift from `here` stops before `cell`: a wall (a wall cell, or a wall
    or closed door on the edges the step crosses), the map's edge, or anyone on it."""
    entry = terrain_of(encounter, cell)
    return (entry is None or entry["terrain"] == "wall" or cell in occupied
            or edge_refusal(encounter.map, encounter.doors, here, cell) is not None)


def straight_line(encounter: Encounter, occupied: set[Square], start: Square, direction: str,
                  cells: int) -> tuple[list[Square], bool]:
    """Up to `cells` cells from `start` toward `direction`, stopping before anything that
    blocks (`occupied`: where the others stand); the path (start first) and whether it has
    landed (the next cell blocks)."""
    path = [start]
    for _ in range(cells):
        ahead = path[-1].step(direction)
        if blocked(encounter, occupied, path[-1], ahead):
            return path, True
        path.append(ahead)
    return path, blocked(encounter, occupied, path[-1], path[-1].step(direction))


def wall_beside(encounter: Encounter, cell: Square) -> bool:
    """Whether one of the eight cells around `cell` is a wall, or a wall or closed door lies
    on one of its edges (the map's edge is not a wall)."""
    return edge_beside(encounter.map, encounter.doors, cell) or any(
        (terrain_of(encounter, cell.step(d)) or {}).get("terrain") == "wall"
        for d in DIRECTIONS)


# -- decisions ------------------------------------------------------------------------------------


def a_kind(kind: str) -> str:
    """The kind with its article ("an immediate", "a short"), for messages."""
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def kind_of(options: Mapping[str, Any]) -> str:
    given = [flag for flag in KIND_FLAGS if options.get(flag)]
    if len(given) > 1:
        listed = " and ".join("--" + flag.replace("_", "-") for flag in given)
        raise RuleViolation(f"{listed} cannot be combined; a move is one kind: --immediate, "
                            "--short, --long or --with-action")
    return given[0].replace("_", "-") if given else "short"


class CypherCombat:
    """The encounter half of the Cypher ruleset (`domain.cypher.rules.Cypher.fight`)."""

    move_options = MOVE_OPTIONS
    battle_legend = LegendSpec(words=LEGEND_WORDS,
                               map_keys={"cell_feet": whole_number(1)})

    # -- rounds ---------------------------------------------------------------------------

    def start_round(self, situation: Situation, command: "StartRound") -> Decision:
        encounter = open_encounter(situation.game)
        if command.options:
            raise RuleViolation("a Cypher round takes no options")
        feet = cell_feet(encounter)
        states: dict[str, dict[str, Any]] = {}
        paths: dict[str, list[Square]] = {}
        # Where everyone stands as the drifts are worked out, one combatant after another.
        standing = {c.name: c.at for c in encounter.combatants.values()}
        for combatant in encounter.combatants.values():
            old = state_of(combatant)
            drifting = old.drifting
            if drifting is not None:
                cells = drifting.feet // feet
                occupied = {at for name, at in standing.items() if name != combatant.name}
                path, landed = straight_line(encounter, occupied, combatant.at,
                                             drifting.direction, cells)
                if len(path) > 1:
                    paths[combatant.name] = path
                    standing[combatant.name] = path[-1]
                if landed or cells == 0:
                    drifting = None
            states[combatant.name] = CypherState(drifting=drifting,
                                                 chase=old.chase).model_dump()
        return RoundStarted(
            number=encounter.round + 1,
            states=states,
            paths=paths,
        )

    # -- moves ----------------------------------------------------------------------------

    def move_combatant(self, situation: Situation, command: "MoveCombatant") -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        mover = encounter.combatant(command.name)
        options = command.options
        kind = kind_of(options)
        reach = KINDS[kind][0]
        skills = skills_of(situation, mover)
        feet = cell_feet(encounter)
        if command.to is not None:
            if command.to == mover.at:
                raise RuleViolation(f"{mover.name} already stands on {where(command.to)}")
            self._check_may_move(encounter, mover)
            check_target(encounter, mover, command.to)
            if terrain_word(encounter, command.to) == "zero-gravity":
                raise RuleViolation(f"{where(command.to)} is zero-gravity, so no ordinary move "
                                    f"takes {mover.name} there (`trek encounter push` crosses "
                                    "zero gravity)")

            def step_cost(here: Square, there: Square) -> int | None:
                if step_refusal(encounter, mover, here, there) is not None:
                    return None
                word = terrain_word(encounter, there)
                if word == "zero-gravity":
                    return None
                return feet * entry_multiplier(word, skills)

            found = pathfinding.cheapest_path(
                SQUARES, mover.at, command.to, step_cost, limit=reach,
                may_end=lambda cell: end_refusal(encounter, mover, cell) is None)
            if found is None:
                raise RuleViolation(f"no legal path takes {mover.name} to {where(command.to)} "
                                    f"within the {reach} feet of {a_kind(kind)} move")
            path = found[0]
        else:
            if not command.steps:
                raise RuleViolation("give at least one direction (N NE E SE S SW W NW) or "
                                    "--to X,Y")
            path = [mover.at]
            for direction in command.steps:
                if direction not in DIRECTIONS:
                    raise RuleViolation(f"{direction} is not a direction; use "
                                        f"{' '.join(DIRECTIONS)}")
                path.append(path[-1].step(direction))
        stop_at = options.get("stop_at")
        return self._move(situation, mover.name, path, kind,
                          ease=steps(options.get("ease", 0), "--ease"),
                          hinder=steps(options.get("hinder", 0), "--hinder"),
                          given=options.get("roll"), stop_at=stop_at, dice=situation.dice)

    def _check_may_move(self, encounter: Encounter, mover: Combatant) -> None:
        state = state_of(mover)
        if state.action is not None:
            raise RuleViolation(f"{mover.name} already made its move this round "
                                f"({state.action}); one move a round, until `trek encounter "
                                "round`")
        if terrain_word(encounter, mover.at) == "zero-gravity":
            raise RuleViolation(f"{mover.name} floats in zero gravity at {where(mover.at)}; "
                                f"it cannot walk there: `trek encounter push {mover.name} DIR "
                                "--feet F` from beside a wall")

    def _move(self, situation: Situation, name: str, path: list[Square], kind: str, *,
              ease: int, hinder: int, given: int | None, stop_at: Square | None,
              dice: Dice | None,
              recorded: tuple[int | None, list[int] | None] | None = None) -> Decision:
        encounter = open_encounter(situation.game)
        mover = encounter.combatant(name)
        if path[0] != mover.at:
            raise RuleViolation(f"the move starts at {where(path[0])} but {name} stands on "
                                f"{where(mover.at)}")
        self._check_may_move(encounter, mover)
        reach, base = KINDS[kind]
        skills = skills_of(situation, mover)
        feet = cell_feet(encounter)
        costs = [0]
        hindered = False
        for number, cell in enumerate(path[1:], start=1):
            reason = step_refusal(encounter, mover, path[number - 1], cell)
            if reason is not None:
                raise RuleViolation(f"step {number} is refused: {reason}")
            word = terrain_word(encounter, cell)
            if word == "zero-gravity":
                raise RuleViolation(f"step {number} is refused: {where(cell)} is zero gravity, "
                                    "where nobody walks (push off a wall instead)")
            hindered = hindered or hinders(word, skills)
            costs.append(costs[-1] + feet * entry_multiplier(word, skills))
        stop = end_refusal(encounter, mover, path[-1])
        if stop is not None:
            raise RuleViolation(stop)
        cost = costs[-1]
        if cost > reach:
            raise RuleViolation(f"the path costs {cost} feet and {a_kind(kind)} move reaches "
                                f"{reach}; make a longer kind of move or fewer steps")
        eased = all(terrain_word(encounter, cell) == "low-gravity" for cell in path)
        difficulty = 0 if base == 0 else difficulty_of(
            base, ease + (1 if eased else 0), hinder + (1 if hindered else 0))
        outcome = task(difficulty, MOVE_ROLL, given, dice, recorded)
        end = len(path) - 1
        if not outcome.success:
            if stop_at is not None:
                if stop_at not in path:
                    cells = " ".join(where(cell) for cell in path)
                    raise RuleViolation(f"--stop-at {where(stop_at)} is not on the path; the "
                                        f"failed move may stop on {cells}")
                end = path.index(stop_at)
            else:
                end = max(i for i, spent in enumerate(costs) if 2 * spent <= cost)
            while end > 0 and encounter.at(path[end]) not in (None, mover):
                end -= 1
        state = state_of(mover)
        state.action = kind
        # Walking on ground with gravity ends any drift that carried it there.
        state.drifting = None
        state.moved = costs[end]
        state.difficulty = outcome.difficulty
        state.success = outcome.success
        return CypherMoved(
            name=name,
            path=path[:end + 1],
            planned=path,
            action=kind,
            cost=costs[end],
            ease=ease,
            hinder=hinder,
            stop_at=stop_at,
            **outcome.fields(),
            state=state.model_dump(),
        )

    def redo_combatant_move(self, situation: Situation, event: CypherMoved) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        return self._move(situation, event.name, list(event.planned), event.action,
                          ease=event.ease, hinder=event.hinder, given=None,
                          stop_at=event.stop_at, dice=None,
                          recorded=(event.roll, event.dice))

    # -- zero gravity ---------------------------------------------------------------------

    def push(self, situation: Situation, command: Push, dice: Dice | None,
             recorded: tuple[int | None, list[int] | None] | None = None) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        mover = encounter.combatant(command.name)
        name = mover.name
        direction = command.direction.upper()
        if direction not in DIRECTIONS:
            raise RuleViolation(f"{command.direction} is not a direction; use "
                                f"{' '.join(DIRECTIONS)}")
        if terrain_word(encounter, mover.at) != "zero-gravity":
            raise RuleViolation(f"{name} is not in zero gravity at {where(mover.at)}; a push is "
                                "only for zero-gravity cells (`trek encounter move` walks)")
        if not wall_beside(encounter, mover.at):
            raise RuleViolation(f"{name} has no wall beside it at {where(mover.at)} to push off "
                                "from; without a surface it cannot move")
        state = state_of(mover)
        if state.action is not None:
            raise RuleViolation(f"{name} already made its move this round ({state.action}); "
                                "one move a round, until `trek encounter round`")
        feet = cell_feet(encounter)
        if command.feet < feet:
            raise RuleViolation(f"a push of {command.feet} feet covers no cell; push at least "
                                f"{feet} feet (one cell)")
        cells = command.feet // feet
        occupied = others_cells(encounter, mover)
        ahead = mover.at.step(direction)
        if blocked(encounter, occupied, mover.at, ahead):
            raise RuleViolation(f"{where(ahead)}, toward {direction}, is blocked, so the push "
                                "would cover no cell; push another way")
        difficulty = min(MAX_DIFFICULTY, -(-command.feet // 4))
        outcome = task(difficulty, PUSH_ROLL, command.roll, dice, recorded)
        # A failed push leaves it where it was, still drifting if it was.
        drifting = state.drifting
        path = [mover.at]
        if outcome.success:
            drifting = None
            path, landed = straight_line(encounter, occupied, mover.at, direction, cells)
            if not landed and (command.feet // 2) // feet > 0:
                drifting = Drift(direction=direction, feet=command.feet // 2)
        cost = (len(path) - 1) * feet
        state.action = "push"
        state.moved = cost
        state.difficulty = outcome.difficulty
        state.success = outcome.success
        state.drifting = drifting
        return PushedOff(
            name=name,
            path=path,
            direction=direction,
            feet=command.feet,
            cost=cost,
            drifting=drifting.model_dump() if drifting else None,
            **outcome.fields(),
            state=state.model_dump(),
        )

    def redo_push(self, situation: Situation, event: PushedOff) -> Decision:
        return self.push(situation, Push(name=event.name, direction=event.direction,
                                         feet=event.feet), None, (event.roll, event.dice))

    # -- chases ---------------------------------------------------------------------------

    def chase(self, situation: Situation, command: StartChase, dice: Dice | None,
              recorded: tuple[int | None, list[int] | None] | None = None) -> Decision:
        encounter = open_encounter(situation.game)
        runner = encounter.combatant(command.name)
        name = runner.name
        if command.role not in ("chaser", "quarry"):
            raise RuleViolation(f"--role is chaser or quarry, not {command.role!r}")
        ease, hinder = command.ease, command.hinder
        state = state_of(runner)
        if state.chase is not None and state.chase.outcome is None:
            raise RuleViolation(f"{name} is still in a chase (level {state.chase.level}); "
                                f"`trek encounter chase-roll {name}` plays it out")
        chase = Chase(level=command.level, role=command.role, extended=command.extended)
        fields: dict[str, Any]
        if command.extended:
            if command.roll is not None:
                raise RuleViolation("an extended chase starts with no roll; give --roll to "
                                    f"`trek encounter chase-roll {name}`")
            eased = [flag for flag, steps_ in (("--ease", ease), ("--hinder", hinder)) if steps_]
            if eased and recorded is None:
                # They would ease or hinder no roll: each `chase-roll` takes its own.
                raise RuleViolation(f"{', '.join(eased)} and --extended cannot go together: "
                                    "an extended chase starts with no roll; give "
                                    f"{' and '.join(eased)} to `trek encounter chase-roll "
                                    f"{name}`")
            fields = {"difficulty": difficulty_of(command.level, ease, hinder), "roll": None,
                      "dice": None, "target": 0, "success": None}
        else:
            outcome = task(difficulty_of(command.level, ease, hinder), CHASE_ROLL,
                           command.roll, dice, recorded)
            chase.successes = int(outcome.success)
            chase.failures = int(not outcome.success)
            chase.outcome = "succeeded" if outcome.success else "failed"
            fields = outcome.fields()
        state.chase = chase
        return ChaseStarted(
            name=name,
            level=command.level,
            role=command.role,
            extended=command.extended,
            ease=ease,
            hinder=hinder,
            chase=chase.model_dump(),
            **fields,
            state=state.model_dump(),
        )

    def redo_chase(self, situation: Situation, event: ChaseStarted) -> Decision:
        return self.chase(situation, StartChase(
            name=event.name, level=event.level, ease=event.ease, hinder=event.hinder,
            role=event.role, extended=event.extended), None, (event.roll, event.dice))

    def chase_roll(self, situation: Situation, command: RollChase, dice: Dice | None,
                   recorded: tuple[int | None, list[int] | None] | None = None) -> Decision:
        encounter = open_encounter(situation.game)
        runner = encounter.combatant(command.name)
        name = runner.name
        state = state_of(runner)
        chase = state.chase
        if chase is None or not chase.extended:
            raise RuleViolation(f"{name} is in no extended chase; `trek encounter chase {name} "
                                "--level L --extended` starts one")
        if chase.outcome is not None:
            raise RuleViolation(f"{name}'s chase has already {chase.outcome}; no more rolls "
                                f"(`trek encounter chase {name} --level L` starts another)")
        ease, hinder = command.ease, command.hinder
        outcome = task(difficulty_of(chase.level, ease, hinder), CHASE_ROLL, command.roll,
                       dice, recorded)
        if outcome.success:
            chase.successes += 1
        else:
            chase.failures += 1
        chase.outcome = chase_outcome(chase.level, chase.successes, chase.failures)
        state.chase = chase
        return ChaseRolled(
            name=name,
            ease=ease,
            hinder=hinder,
            chase=chase.model_dump(),
            **outcome.fields(),
            state=state.model_dump(),
        )

    def redo_chase_roll(self, situation: Situation, event: ChaseRolled) -> Decision:
        return self.chase_roll(situation, RollChase(name=event.name, ease=event.ease,
                                                    hinder=event.hinder),
                               None, (event.roll, event.dice))

    # -- its own commands -----------------------------------------------------------------

    @singledispatchmethod
    def decide(self, command: Command, situation: Situation, dice: Dice) -> Decision | None:
        """A push, a chase or a chase's roll decided; None for a command of no one's here."""
        return None

    @decide.register
    def _(self, command: Push, situation: Situation, dice: Dice) -> Decision:
        return self.push(situation, command, dice)

    @decide.register
    def _(self, command: StartChase, situation: Situation, dice: Dice) -> Decision:
        return self.chase(situation, command, dice)

    @decide.register
    def _(self, command: RollChase, situation: Situation, dice: Dice) -> Decision:
        return self.chase_roll(situation, command, dice)

    # -- status ---------------------------------------------------------------------------

    def encounter_fields(self, situation: Situation) -> dict[str, Any]:
        return {}

    def combatant_status(self, situation: Situation, combatant: Combatant) -> dict[str, Any]:
        state = state_of(combatant)
        return {
            "moved": state.moved, "remaining": None, "action": state.action,
            "difficulty": state.difficulty, "success": state.success,
            "drifting": state.drifting.model_dump() if state.drifting else None,
            "chase": state.chase.shown() if state.chase else None,
        }


def chase_outcome(level: int, successes: int, failures: int) -> str | None:
    """An extended chase fails as soon as failures outnumber successes, and succeeds once the
    successes reach the level plus the failures; until then it goes on."""
    if failures > successes:
        return "failed"
    if successes >= level + failures:
        return "succeeded"
    return None


@singledispatch
def _redo(event: Any, rules: CypherCombat, situation: Situation) -> Decision | None:
    """Decide a Cypher fight's event again from what it recorded; None when it is not one."""
    return None


@_redo.register
def _(event: RoundStarted, rules: CypherCombat, situation: Situation) -> Decision:
    from domain.commands.rounds import StartRound

    return rules.start_round(situation, StartRound())


@_redo.register
def _(event: CypherMoved, rules: CypherCombat, situation: Situation) -> Decision:
    return rules.redo_combatant_move(situation, event)


@_redo.register
def _(event: PushedOff, rules: CypherCombat, situation: Situation) -> Decision:
    return rules.redo_push(situation, event)


@_redo.register
def _(event: ChaseStarted, rules: CypherCombat, situation: Situation) -> Decision:
    return rules.redo_chase(situation, event)


@_redo.register
def _(event: ChaseRolled, rules: CypherCombat, situation: Situation) -> Decision:
    return rules.redo_chase_roll(situation, event)


# Each event class's rule as singledispatch finds it, asked once per class.
redo_of = cache(_redo.dispatch)

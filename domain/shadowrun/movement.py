"""Shadowrun movement by Initiative Pass: walk and run rates from Quickness and metatype, the
per-pass limit and the per-turn cap, the target-number modifier of moving, the Athletics
(Running) sprint, and the free attack an opponent gets on someone passing close by."""

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from domain import pathfinding
from domain.battlemap import LegendSpec, whole_number
from domain.cells import Cell
from domain.dice import Dice
from domain.encounter import (
    CombatantChanged,
    RoundStarted,
    cell_terrain,
    check_target,
    end_refusal,
    open_encounter,
    require_round,
    step_refusal,
    where,
)
from domain.errors import NotFound, RuleViolation
from domain.events import TrekEvent
from domain.geometry import Square
from domain.grid import SQUARES
from domain.rolls import Roll
from domain.ruleset import Decision, Situation
from domain.shadowrun import SPRINT_ROLL
from domain.state import Combatant, Encounter, Game, friends

if TYPE_CHECKING:
    from domain.commands.rounds import MoveCombatant, StartRound

# The running modifier of each metatype: run rate = Quickness × this.
RUNNING_MODIFIER: dict[str, int] = {"human": 3, "dwarf": 2, "elf": 3, "ork": 3, "troll": 3}
METATYPES = tuple(RUNNING_MODIFIER)
WALK, RUN = "walk", "run"
# The target-number modifier of each gait: (over open ground, over rough ground).
TN_MODIFIER: dict[str, tuple[int, int]] = {WALK: (1, 2), RUN: (4, 6)}
MAX_QUICKNESS = 30
MAX_ATHLETICS = 30
MAX_PASSES = 10
# The options `encounter move` takes in a Shadowrun encounter.
MOVE_OPTIONS = frozenset({WALK, RUN})
BATTLE_LEGEND = LegendSpec(words=frozenset({"open", "rough"}),
                           map_keys={"cell_meters": whole_number(1)})


class PassState(BaseModel):
    """One combatant's Combat Turn, as stored in the encounter (the ruleset's own document)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    # Its own Initiative Passes this turn (`encounter round --passes NAME=N`).
    passes: int = 1
    # Declared by its first move of the turn; None until it moves.
    gait: str | None = None
    # Metres moved in the current pass and in the whole turn.
    moved: int = 0
    moved_turn: int = 0
    # Whether any cell it entered this turn is rough.
    rough: bool = False
    # The sprint bonus to Quickness in force in the current pass, and the one a sprint made
    # in this pass gives the next.
    quickness_bonus: int = 0
    next_bonus: int = 0
    sprinted: bool = False
    intercepted: bool = False
    # The cells its latest move this turn entered, and the opponents that move passed.
    last_path: list[Cell] = Field(default_factory=list)
    last_free_attacks: list[str] = Field(default_factory=list)

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


# -- events ----------------------------------------------------------------------------------


class MovedInPass(CombatantChanged):
    """A move along `path` (the cell left first) at the turn's gait, `cost` metres, and the
    opponents it passed within one metre, each of whom may make a free melee attack."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("encounter-move",)

    moves: ClassVar[bool] = True
    # A move sets only what moving changes: a sprint's bonus or flag in the state it recorded
    # is the state it was decided in, and may differ in another history.
    state_keys: ClassVar[frozenset[str] | None] = frozenset(
        {"gait", "moved", "moved_turn", "rough", "last_path", "last_free_attacks"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})

    cost: int
    gait: str
    free_attacks: list[str] = Field(default_factory=list)
    tn_modifier: int = 0

    def distance(self) -> tuple[int, int]:
        return len(self.path) - 1, 0


class PassStarted(TrekEvent):
    """The Combat Turn's next Initiative Pass: the clock, and each combatant's sprint bonus for
    it (everyone's metres this pass start again from 0).

    Starting a pass does not depend on anyone's sprint: `bonuses` reports what the sprints
    made in the pass before gave, and applying it carries each combatant's own `next_bonus`
    over, so a pass still stands once a sprint before it is cancelled (RULES §4)."""

    undo_kinds: ClassVar[tuple[str, ...]] = ("pass",)
    derived: ClassVar[frozenset[str]] = frozenset({"bonuses"})
    opens_phase: ClassVar[bool] = True

    number: int
    clock: dict[str, Any] = Field(default_factory=dict)
    bonuses: dict[str, int] = Field(default_factory=dict)

    def apply_to(self, game: Game) -> None:
        encounter = game.encounter
        assert encounter is not None, "decided with an open encounter"
        encounter.clock = dict(self.clock)
        for combatant in encounter.combatants.values():
            carried = int(combatant.state.get("next_bonus", 0))
            combatant.state = {**combatant.state, "moved": 0, "sprinted": False,
                               "next_bonus": 0, "quickness_bonus": carried}


class Sprinted(CombatantChanged):
    """An Athletics (Running) test: its successes add to Quickness in the next pass (lost when
    made in the turn's last pass)."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("sprint",)

    # A sprint sets only its flag and the bonus it gives the next pass.
    state_keys: ClassVar[frozenset[str] | None] = frozenset({"sprinted", "next_bonus"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})

    roll: Roll
    successes: int
    bonus_lost: bool = False

    def rolls(self) -> list[Roll]:
        return [self.roll]


class Intercepted(CombatantChanged):
    """An opponent's free attack hurt the mover: it stands at `at` and moves no more this
    turn."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("intercept",)
    stops_mover: ClassVar[bool] = True

    state_keys: ClassVar[frozenset[str] | None] = frozenset({"intercepted"})
    derived: ClassVar[frozenset[str]] = frozenset({"state"})

    by: str
    at: Cell


EVENTS: tuple[type[TrekEvent], ...] = (MovedInPass, PassStarted, Sprinted, Intercepted)


# -- the numbers --------------------------------------------------------------------------------


def state_of(combatant: Combatant) -> PassState:
    return PassState.model_validate(combatant.state)


def sheet_of(situation: Situation, combatant: Combatant) -> tuple[int, str, int]:
    """Quickness, metatype and Athletics: a roster character's sheet, or the stats it was
    added with."""
    if combatant.from_roster:
        character = situation.game.characters[combatant.name]
        stats: Mapping[str, Any] = character.stats
        skills: Mapping[str, int] = character.skills
    else:
        stats = combatant.stats
        skills = combatant.stats.get("skills", {})
    return (int(stats.get("quickness", 0)), str(stats.get("metatype", "human")),
            int(skills.get("athletics", 0)))


def movement_rate(quickness: int, metatype: str, gait: str) -> int:
    """Walk: Quickness metres a turn; run: Quickness × the metatype's running modifier."""
    return quickness if gait == WALK else quickness * RUNNING_MODIFIER[metatype]


def pass_limit(rate: int, passes: int) -> int:
    """The most a combatant moves in one pass: the rate ÷ the turn's passes, rounded up."""
    return -(-rate // passes)


def tn_modifier(state: PassState) -> int:
    """0 until it moves; walking +1 (+2 over rough ground); running +4 (+6 over rough)."""
    if state.gait is None:
        return 0
    open_ground, rough = TN_MODIFIER[state.gait]
    return rough if state.rough else open_ground


def turn_passes(encounter: Encounter) -> int:
    return int(encounter.clock.get("passes", 1)) or 1


def allowance(quickness: int, metatype: str, gait: str, passes: int,
              state: PassState) -> tuple[int, int, int]:
    """The rate, the pass limit and the metres still allowed this pass, from the current
    pass's Quickness (a sprint's bonus included)."""
    rate = movement_rate(quickness + state.quickness_bonus, metatype, gait)
    limit = pass_limit(rate, passes)
    if state.intercepted:
        return rate, limit, 0
    return rate, limit, max(0, min(limit - state.moved, rate - state.moved_turn))


def cell_meters(encounter: Encounter) -> int:
    return int(encounter.map.get("cell_meters", 1)) if encounter.map else 1


def is_rough(encounter: Encounter, cell: Square) -> bool:
    terrain = cell_terrain(encounter, cell) or {"terrain": "open"}
    return bool(terrain["terrain"] == "rough")


def free_attacks(encounter: Encounter, mover: Combatant, entered: Iterable[Square]) -> list[str]:
    """The opponents within one cell (the eight around it) of any cell the move entered, each
    once, in the order the move met them."""
    met: list[str] = []
    for cell in entered:
        for other in encounter.combatants.values():
            if (other.name != mover.name and not friends(other.side, mover.side)
                    and other.name not in met and cell.is_adjacent_or_same(other.at)):
                met.append(other.name)
    return met


def _gait_words(gait: str) -> str:
    return "walking" if gait == WALK else "running"


# -- decisions -----------------------------------------------------------------------------------


class PassRules:
    """The encounter half of the Shadowrun ruleset."""

    grid = "square"
    encounters = True
    move_options = MOVE_OPTIONS
    default_facing: str | None = None
    battle_legend = BATTLE_LEGEND

    def start_round(self, situation: Situation, command: "StartRound") -> Decision:
        encounter = open_encounter(situation.game)
        other = sorted(set(command.options) - {"passes"})
        if other:
            raise RuleViolation(f"--{other[0].replace('_', '-')} is not an option of a "
                                "Shadowrun Combat Turn; it takes --passes NAME=N")
        given: dict[str, int] = {}
        for name, passes in command.options.get("passes", ()):
            if name not in encounter.combatants:
                listed = ", ".join(encounter.combatants) or "nobody yet"
                raise NotFound(f"--passes names {name!r}, who is not in {encounter.name} "
                               f"(it has {listed})")
            if name in given:
                raise RuleViolation(f"--passes gives {name} twice; give each combatant's "
                                    "Initiative Passes once")
            if not 1 <= passes <= MAX_PASSES:
                raise RuleViolation(f"{name}'s Initiative Passes must be 1 to {MAX_PASSES}, "
                                    f"not {passes}")
            given[name] = passes
        states = {name: PassState(passes=given.get(name, 1)).dump()
                  for name in encounter.combatants}
        clock = {"pass": 1, "passes": max(given.values(), default=1), "initiative": given}
        return RoundStarted(number=encounter.round + 1, states=states, clock=clock)

    def redo_round(self, situation: Situation, event: RoundStarted) -> Decision:
        given: dict[str, int] = event.clock.get("initiative", {})
        options = {"passes": list(given.items())} if given else {}
        from domain.commands.rounds import StartRound

        return self.start_round(situation, StartRound(options=options))

    def next_pass(self, situation: Situation) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        current, passes = int(encounter.clock.get("pass", 1)), turn_passes(encounter)
        if current >= passes:
            raise RuleViolation(f"pass {current} is the last of this Combat Turn's {passes} "
                                "Initiative Pass(es); `trek encounter round` starts the next "
                                "Combat Turn")
        bonuses = {}
        for combatant in encounter.combatants.values():
            bonus = state_of(combatant).next_bonus
            if bonus:
                bonuses[combatant.name] = bonus
        return PassStarted(
            number=current + 1,
            clock={**encounter.clock, "pass": current + 1},
            bonuses=bonuses,
        )

    def move_combatant(self, situation: Situation, command: "MoveCombatant") -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        mover = encounter.combatant(command.name)
        walk, run = bool(command.options.get(WALK)), bool(command.options.get(RUN))
        if walk and run:
            raise RuleViolation("a move is at one gait: give --walk or --run, not both")
        asked = RUN if run else WALK if walk else None
        if command.to is not None:
            if command.to == mover.at:
                raise RuleViolation(f"{mover.name} already stands on {where(command.to)}")
            check_target(encounter, mover, command.to)
            path = self._path_to(situation, mover, command.to, asked)
        else:
            if not command.steps:
                raise RuleViolation("give at least one direction (N NE E SE S SW W NW) or "
                                    "--to X,Y")
            path = [mover.at]
            for number, direction in enumerate(command.steps, start=1):
                if direction not in SQUARES.directions:
                    raise RuleViolation(f"step {number} is refused: {direction!r} is not a "
                                        "direction; use N NE E SE S SW W NW")
                path.append(path[-1].step(direction))
        return self._move(situation, mover.name, path, asked)

    def _left(self, situation: Situation, mover: Combatant, asked: str | None
              ) -> tuple[PassState, str, int, int, int]:
        encounter = open_encounter(situation.game)
        state = state_of(mover)
        name = mover.name
        if state.intercepted:
            raise RuleViolation(f"{name} was intercepted this Combat Turn and moves no more "
                                "until `trek encounter round` starts the next")
        if state.gait is not None and asked is not None and asked != state.gait:
            raise RuleViolation(f"{name} is {_gait_words(state.gait)} this Combat Turn (its "
                                f"first move declared it); --{asked} waits for the next turn")
        gait = state.gait or asked or WALK
        quickness, metatype, _athletics = sheet_of(situation, mover)
        rate, limit, left = allowance(quickness, metatype, gait, turn_passes(encounter), state)
        return state, gait, rate, limit, left

    def _path_to(self, situation: Situation, mover: Combatant, goal: Square,
                 asked: str | None) -> list[Square]:
        encounter = open_encounter(situation.game)
        _state, _gait, _rate, _limit, left = self._left(situation, mover, asked)
        metres = cell_meters(encounter)

        def step_cost(here: Square, there: Square) -> int | None:
            return None if step_refusal(encounter, mover, here, there) else metres

        found = pathfinding.cheapest_path(
            SQUARES, mover.at, goal, step_cost, limit=left,
            may_end=lambda cell: end_refusal(encounter, mover, cell) is None)
        if found is None:
            raise RuleViolation(f"no legal path takes {mover.name} to {where(goal)} within the "
                                f"{left} metre(s) it may still move this pass")
        return found[0]

    def _move(self, situation: Situation, name: str, path: list[Square],
              asked: str | None) -> Decision:
        encounter = open_encounter(situation.game)
        mover = encounter.combatant(name)
        state, gait, rate, limit, left = self._left(situation, mover, asked)
        if path[0] != mover.at:
            raise RuleViolation(f"the move starts at {where(path[0])} but {name} stands on "
                                f"{where(mover.at)}")
        if len(path) < 2:
            raise RuleViolation("a move enters at least one cell")
        for number, cell in enumerate(path[1:], start=1):
            reason = step_refusal(encounter, mover, path[number - 1], cell)
            if reason is not None:
                raise RuleViolation(f"step {number} is refused: {reason}")
        stop = end_refusal(encounter, mover, path[-1])
        if stop is not None:
            raise RuleViolation(stop)
        cost = (len(path) - 1) * cell_meters(encounter)
        if cost > left:
            raise RuleViolation(
                f"the move covers {cost} metre(s) but {name} may move only {left} more now "
                f"({_gait_words(gait)}: {limit} a pass, {state.moved} moved this pass; "
                f"{rate} a turn, {state.moved_turn} moved this turn)")
        entered = path[1:]
        met = free_attacks(encounter, mover, entered)
        state.gait = gait
        state.moved += cost
        state.moved_turn += cost
        state.rough = state.rough or any(is_rough(encounter, cell) for cell in entered)
        state.last_path = list(entered)
        state.last_free_attacks = met
        return MovedInPass(
            name=name,
            path=path,
            cost=cost,
            gait=gait,
            free_attacks=met,
            tn_modifier=tn_modifier(state),
            state=state.dump(),
        )

    def redo_move(self, situation: Situation, event: MovedInPass) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        return self._move(situation, event.name, list(event.path), event.gait)

    def sprint(self, situation: Situation, name: str, tn: int, successes: int | None,
               dice: Dice) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        combatant = encounter.combatant(name)
        _quickness, _metatype, athletics = sheet_of(situation, combatant)
        state = state_of(combatant)
        if state.sprinted:
            raise RuleViolation(f"{name} already made a sprint test in this pass; it takes a "
                                "Complex Action, one a pass")
        faces: tuple[int, ...] | None = None
        if successes is None:
            if athletics < 1:
                raise RuleViolation(f"{name} has no Athletics rating (--skill athletics=N), so "
                                    "the tracker has no dice to roll; give the successes "
                                    "with --roll S")
            _total, faces = dice.roll(SPRINT_ROLL, count=athletics, sides=6)
            if faces is None:
                raise RuleViolation("a sprint test needs the dice or the successes")
            successes = sum(1 for face in faces if face >= tn)
        lost = int(encounter.clock.get("pass", 1)) >= turn_passes(encounter)
        state.sprinted = True
        state.next_bonus = 0 if lost else successes
        roll = Roll(label=SPRINT_ROLL, by=name, total=successes, dice=faces, target=tn,
                    success=successes > 0, margin=successes)
        return Sprinted(
            name=name,
            roll=roll,
            successes=successes,
            bonus_lost=lost,
            state=state.dump(),
        )

    def intercept(self, situation: Situation, name: str, by: str, at: Square) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        mover = encounter.combatant(name)
        enemy = encounter.combatant(by)
        if by == name or friends(enemy.side, mover.side):
            raise RuleViolation(f"{by} is not {name}'s opponent; only an opponent's free "
                                "attack intercepts a move")
        state = state_of(mover)
        if state.intercepted:
            raise RuleViolation(f"{name} was already intercepted this Combat Turn")
        if not state.last_path:
            raise RuleViolation(f"{name} has not moved this Combat Turn; an interception "
                                "stops one of its moves")
        if at not in state.last_path:
            cells = " ".join(where(cell) for cell in state.last_path)
            raise RuleViolation(f"{where(at)} is not a cell {name}'s latest move entered "
                                f"({cells})")
        if not at.is_adjacent_or_same(enemy.at):
            raise RuleViolation(f"{where(at)} is not within 1 metre (one cell) of {by} at "
                                f"{where(enemy.at)}")
        standing = encounter.at(at)
        if standing is not None and standing.name != name:
            raise RuleViolation(f"{standing.name} stands on {where(at)}, so {name} cannot be "
                                "stopped there")
        state.intercepted = True
        path = [mover.at, at] if at != mover.at else []
        return Intercepted(
            name=name,
            by=by,
            at=at,
            path=path,
            state=state.dump(),
        )

    def encounter_fields(self, situation: Situation) -> dict[str, Any]:
        encounter = open_encounter(situation.game)
        return {"pass": int(encounter.clock.get("pass", 0)),
                "passes": int(encounter.clock.get("passes", 0))}

    def combatant_status(self, situation: Situation, combatant: Combatant) -> dict[str, Any]:
        encounter = open_encounter(situation.game)
        state = state_of(combatant)
        rate: int | None = None
        limit: int | None = None
        left: int | None = None
        if state.gait is not None:
            quickness, metatype, _athletics = sheet_of(situation, combatant)
            rate, limit, left = allowance(quickness, metatype, state.gait,
                                          turn_passes(encounter), state)
        return {
            "moved": state.moved, "remaining": left, "gait": state.gait, "rate": rate,
            "pass_limit": limit, "moved_turn": state.moved_turn,
            "tn_modifier": tn_modifier(state), "quickness_bonus": state.quickness_bonus,
            "intercepted": state.intercepted,
        }

"""GURPS hex movement (RULES §8, §12.8): movement points from the ground, water or air Move;
the cost of each hex from the direction against the facing, the posture, the footing and the
obstructions; turning; the one hex always allowed; the free end facing; step; posture."""

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from pydantic import BaseModel, ConfigDict

from domain.battlemap import LegendSpec, one_of, whole_number
from domain.encounter import (
    CombatantChanged,
    RoundStarted,
    cell_terrain,
    end_refusal,
    open_encounter,
    require_round,
    step_refusal,
    where,
)
from domain.errors import RuleViolation
from domain.geometry import Square
from domain.grid import HEXES
from domain.gurps import POSTURES
from domain.gurps.stats import air_move, exact, ground_move, number, water_move
from domain.ruleset import Decision, Situation
from domain.state import Combatant, Encounter, friends

if TYPE_CHECKING:
    from domain.commands.rounds import MoveCombatant, StartRound

DIRECTIONS = HEXES.directions  # N NE SE S SW NW, clockwise
TURNS = {"L": -1, "R": 1}
# MP a posture adds to each hex; lying takes all the MP for one hex, sitting cannot move.
POSTURE_COST = {"standing": Fraction(0), "crouching": Fraction(1, 2), "kneeling": Fraction(2),
                "crawling": Fraction(2)}
FOOTING = frozenset({"treacherous", "stairs", "shallow-water"})
WATER = frozenset({"shallow-water", "deep-water"})
MODES = {"ground": "ground Move", "water": "water Move", "air": "air Move"}
MOVE_OPTIONS = frozenset({"swim", "fly", "end_facing", "step"})

BATTLE_LEGEND = LegendSpec(
    words=frozenset({"open", "treacherous", "stairs", "shallow-water", "deep-water"}),
    keys={"extra": whole_number(1), "obstruction": one_of("minor", "severe"),
          "obstructions": whole_number(1)},
    only_on={"extra": FOOTING},
)


class HexState(BaseModel):
    """One fighter's turn, as the encounter stores it (numbers are exact halves)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    posture: str = "standing"
    # The round of the turn's move below; in a later round the turn is fresh (so a round's
    # start records nothing about a fighter, and undoing a posture does not reach it).
    turn: int = 0
    # The MP the turn's move got (None until it moves; a step gets none).
    mp: int | float | None = None
    moved: int | float = 0
    # The turn's move (a move or a step) is made.
    done: bool = False
    stepped: bool = False
    # The move was the one hex always allowed, over its MP: nothing remains.
    single: bool = False


def state_of(combatant: Combatant, round_number: int) -> HexState:
    """The fighter's state in this round: its posture, and its move if it made one."""
    state = HexState.model_validate(combatant.state)
    if state.turn != round_number:
        return HexState(posture=state.posture, turn=round_number)
    return state


# -- events ------------------------------------------------------------------------------------


class HexMoved(CombatantChanged):
    """The turn's move (or step) along `path`, the hex left first, as given (`steps`)."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("encounter-move",)

    moves: ClassVar[bool] = True

    steps: list[str]
    mode: str = "ground"
    step: bool = False
    end_facing: str | None = None
    mp: int | float = 0
    cost: int | float = 0
    single: bool = False

    def distance(self) -> tuple[int, int]:
        return len(self.path) - 1, 0


class PostureChanged(CombatantChanged):
    """A change of posture; `previous` reports the posture it was decided from, which an
    earlier change undone may alter while this one stays legal."""

    undo_kinds: ClassVar[tuple[str, ...]] = ("posture",)
    state_keys: ClassVar[frozenset[str] | None] = frozenset({"posture"})
    derived: ClassVar[frozenset[str]] = frozenset({"state", "previous"})

    posture: str
    previous: str


EVENTS: tuple[type[CombatantChanged], ...] = (HexMoved, PostureChanged)


# -- the numbers --------------------------------------------------------------------------------


def stats_of(situation: Situation, combatant: Combatant) -> Mapping[str, Any]:
    """A roster character's recorded stats, or those it was added to the fight with."""
    if combatant.from_roster:
        return situation.game.characters[combatant.name].stats
    return combatant.stats


def turned(facing: str, sides: int) -> str:
    return DIRECTIONS[(DIRECTIONS.index(facing) + sides) % 6]


def sides_between(a: str, b: str) -> int:
    """How many hex-sides apart two facings are (0 to 3)."""
    diff = (DIRECTIONS.index(b) - DIRECTIONS.index(a)) % 6
    return min(diff, 6 - diff)


def direction_cost(facing: str, direction: str) -> int:
    """1 into the front three hexes; 2 sideways (facing ±2) or backward (facing +3)."""
    return 1 if sides_between(facing, direction) <= 1 else 2


def obstructions(entry: Mapping[str, Any]) -> int:
    """Minor obstructions a legend entry puts in its hex (`obstructions = N` alone: N)."""
    if "obstructions" in entry:
        return int(entry["obstructions"])
    return 1 if entry.get("obstruction") == "minor" else 0


def footing_cost(entry: Mapping[str, Any]) -> int:
    if entry.get("terrain") in FOOTING:
        return int(entry.get("extra", 1))
    return 0


def fallen(encounter: Encounter, combatant: Combatant) -> bool:
    return state_of(combatant, encounter.round).posture == "lying"


def passing_refusal(encounter: Encounter, mover: Combatant, here: Square, cell: Square
                    ) -> str | None:
    """Why a move may not pass through `cell`: off the map, a wall, or an enemy on its feet
    (a fallen enemy is a body on the ground, an obstruction to step over)."""
    standing = encounter.at(cell)
    if (standing is not None and not friends(standing.side, mover.side)
            and fallen(encounter, standing)):
        terrain = cell_terrain(encounter, cell)
        return None if terrain is not None and terrain["terrain"] != "wall" else (
            step_refusal(encounter, mover, here, cell))
    return step_refusal(encounter, mover, here, cell)


class Walk(NamedTuple):
    """A move worked out token by token."""

    path: list[Square]
    facing: str
    cost: Fraction
    hexes: int
    # A hex that takes all the MP (lying down, deep water on foot).
    takes_all: bool
    # Turns made after the move's first hex.
    turns_after_hex: int


def walk(encounter: Encounter, mover: Combatant, tokens: list[str], mode: str,
         posture: str) -> Walk:
    """Cost every token of a move in `mode` (ground, water, air); refuse an illegal one."""
    here, facing = mover.at, mover.facing or "N"
    path = [here]
    cost = Fraction(0)
    hexes = 0
    takes_all = False
    turns_after = 0
    for number_, token in enumerate(tokens, start=1):
        if token in TURNS:
            facing = turned(facing, TURNS[token])
            cost += 1
            if hexes:
                turns_after += 1
            continue
        if token not in DIRECTIONS:
            raise RuleViolation(f"step {number_} is {token!r}; a GURPS move takes hex "
                                f"directions ({' '.join(DIRECTIONS)}) and L / R turns")
        there = HEXES.step(here, token)
        reason = passing_refusal(encounter, mover, here, there)
        if reason is not None:
            raise RuleViolation(f"step {number_} is refused: {reason}")
        entry = cell_terrain(encounter, there) or {"terrain": "open"}
        price = Fraction(direction_cost(facing, token))
        if mode == "water":
            if entry["terrain"] not in WATER:
                raise RuleViolation(f"step {number_} is refused: {where(there)} is "
                                    f"{entry['terrain']}, and swimming enters only shallow "
                                    "or deep water")
            if entry.get("obstruction") == "severe":
                raise RuleViolation(f"step {number_} is refused: {where(there)} holds a severe "
                                    "obstruction; go around it (jumping is not covered)")
        elif mode == "ground":
            if entry.get("obstruction") == "severe":
                raise RuleViolation(f"step {number_} is refused: {where(there)} holds a severe "
                                    "obstruction; go around it (jumping is not covered)")
            if posture == "lying" or entry["terrain"] == "deep-water":
                takes_all = True
            else:
                price += POSTURE_COST[posture]
            price += footing_cost(entry) + obstructions(entry)
            standing = encounter.at(there)
            if standing is not None and standing.name != mover.name:
                # A friend, or a fallen fighter of either side: one minor obstruction.
                price += 1
        cost += price
        hexes += 1
        here = there
        path.append(here)
    return Walk(path=path, facing=facing, cost=cost, hexes=hexes, takes_all=takes_all,
                turns_after_hex=turns_after)


def fmt(value: Fraction) -> str:
    return str(number(value))


# -- decisions ----------------------------------------------------------------------------------


class HexRules:
    """The encounter half of the gurps ruleset."""

    grid = "hex"
    encounters = True
    default_facing: str | None = "N"
    move_options = MOVE_OPTIONS
    battle_legend = BATTLE_LEGEND

    def enter_state(self, stats: Mapping[str, Any]) -> dict[str, Any]:
        return HexState().model_dump()

    def start_round(self, situation: Situation, command: "StartRound") -> Decision:
        encounter = open_encounter(situation.game)
        if command.options:
            raise RuleViolation("a GURPS turn takes no round options; nothing was recorded")
        # Each fighter's turn is fresh because its state names an earlier round.
        return RoundStarted(number=encounter.round + 1, states={})

    def move_combatant(self, situation: Situation, command: "MoveCombatant") -> Decision:
        if command.to is not None:
            raise RuleViolation("a GURPS move is given step by step (hex directions and L / R "
                                "turns), not with --to: its costs depend on the facing")
        options = command.options
        end_facing = options.get("end_facing")
        return self.hex_move(situation, command.name, list(command.steps),
                             swim=bool(options.get("swim")), fly=bool(options.get("fly")),
                             step=bool(options.get("step")),
                             end_facing=str(end_facing).upper() if end_facing else None)

    def hex_move(self, situation: Situation, name: str, tokens: list[str], *, swim: bool,
                 fly: bool, step: bool, end_facing: str | None,
                 start: Square | None = None) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        mover = encounter.combatant(name)
        if start is not None and start != mover.at:
            raise RuleViolation(f"the move starts at {where(start)} but {name} stands on "
                                f"{where(mover.at)}")
        state = state_of(mover, encounter.round)
        stats = stats_of(situation, mover)
        if state.done:
            raise RuleViolation(f"{name} already moved this turn; one move (or step) a turn")
        if not tokens:
            raise RuleViolation(f"give the steps: hex directions ({' '.join(DIRECTIONS)}) and "
                                "L / R turns")
        if swim and fly:
            raise RuleViolation("a move is either --swim or --fly, not both")
        if end_facing is not None and end_facing not in DIRECTIONS:
            raise RuleViolation(f"--end-facing {end_facing} is not a hex direction; use "
                                f"{' '.join(DIRECTIONS)}")
        if step:
            return self._step(situation, mover, state, stats, tokens, swim=swim, fly=fly,
                              end_facing=end_facing)
        mode = "water" if swim else "air" if fly else "ground"
        mp = {"ground": ground_move, "water": water_move, "air": air_move}[mode](stats)
        if mp <= 0:
            raise RuleViolation(f"{name}'s {MODES[mode]} is 0, so it cannot move that way, "
                                "not even one hex")
        if mode == "ground" and state.posture == "sitting":
            raise RuleViolation(f"{name} is sitting and cannot move; change its posture "
                                "first (`trek encounter posture`)")
        done = walk(encounter, mover, tokens, mode, state.posture)
        stop = end_refusal(encounter, mover, done.path[-1])
        if stop is not None:
            raise RuleViolation(stop)
        budget = Fraction(mp)
        single = False
        if done.takes_all:
            what = "lying down" if state.posture == "lying" else "deep water on foot"
            if done.hexes != 1:
                raise RuleViolation(f"{what} takes all the MP for one hex, so the move may be "
                                    f"only one hex, not {done.hexes}")
            single = True
        elif done.cost > budget:
            if done.hexes != 1:
                raise RuleViolation(f"the move costs {fmt(done.cost)} MP but {name} has "
                                    f"{mp} ({MODES[mode]}); only a move of a single hex may "
                                    "cost more")
            single = True
        if single and done.turns_after_hex:
            raise RuleViolation("the one hex always allowed takes all the MP, so no turn may "
                                "follow it; --end-facing sets the facing at the end")
        moved = budget if single else done.cost
        facing = done.facing
        if end_facing is not None:
            if moved * 2 > budget and sides_between(facing, end_facing) > 1:
                raise RuleViolation(
                    f"the move used {fmt(moved)} of {mp} MP, more than half, so the end facing "
                    f"may be at most one hex-side from {facing} "
                    f"({turned(facing, -1)}, {facing} or {turned(facing, 1)}), not {end_facing}")
            facing = end_facing
        state.mp = number(budget)
        state.moved = number(moved)
        state.done = True
        state.single = single
        return HexMoved(
            name=name,
            path=done.path,
            facing=facing,
            steps=tokens,
            mode=mode,
            step=False,
            end_facing=end_facing,
            mp=mp,
            cost=number(moved),
            single=single,
            state=state.model_dump(),
        )

    def _step(self, situation: Situation, mover: Combatant, state: HexState,
              stats: Mapping[str, Any], tokens: list[str], *, swim: bool, fly: bool,
              end_facing: str | None) -> Decision:
        encounter = open_encounter(situation.game)
        name = mover.name
        if swim or fly:
            raise RuleViolation("a step is one hex on foot; it takes no --swim or --fly")
        if end_facing is not None:
            raise RuleViolation("a step leaves the facing as it is; --end-facing belongs to a "
                                "move")
        if len(tokens) != 1 or tokens[0] not in DIRECTIONS:
            raise RuleViolation(f"a step is exactly one hex: give one direction "
                                f"({' '.join(DIRECTIONS)}), no turns")
        if state.posture == "sitting":
            raise RuleViolation(f"{name} is sitting and cannot step; change its posture first")
        if ground_move(stats) <= 0:
            raise RuleViolation(f"{name}'s ground Move is 0, so it cannot step")
        there = HEXES.step(mover.at, tokens[0])
        reason = (step_refusal(encounter, mover, mover.at, there)
                  or end_refusal(encounter, mover, there))
        if reason is not None:
            raise RuleViolation(f"the step is refused: {reason}")
        entry = cell_terrain(encounter, there) or {}
        if entry.get("obstruction") == "severe":
            raise RuleViolation(f"the step is refused: {where(there)} holds a severe "
                                "obstruction")
        state.done = True
        state.stepped = True
        state.moved = 0
        return HexMoved(
            name=name,
            path=[mover.at, there],
            facing=mover.facing,
            steps=tokens,
            mode="ground",
            step=True,
            end_facing=None,
            mp=0,
            cost=0,
            single=False,
            state=state.model_dump(),
        )

    def change_posture(self, situation: Situation, name: str, posture: str) -> Decision:
        encounter = open_encounter(situation.game)
        combatant = encounter.combatant(name)
        wanted = posture.strip().lower()
        if wanted not in POSTURES:
            raise RuleViolation(f"{posture!r} is not a posture; use {', '.join(POSTURES)}")
        state = state_of(combatant, encounter.round)
        if state.posture == wanted:
            raise RuleViolation(f"{name} is already {wanted}")
        previous = state.posture
        state.posture = wanted
        return PostureChanged(
            name=name,
            posture=wanted,
            previous=previous,
            state=state.model_dump(),
        )

    def redo_move(self, situation: Situation, event: HexMoved) -> Decision:
        return self.hex_move(situation, event.name, list(event.steps),
                             swim=event.mode == "water", fly=event.mode == "air",
                             step=event.step, end_facing=event.end_facing,
                             start=event.path[0] if event.path else None)

    def encounter_fields(self, situation: Situation) -> dict[str, Any]:
        return {}

    def combatant_status(self, situation: Situation, combatant: Combatant) -> dict[str, Any]:
        stats = stats_of(situation, combatant)
        encounter = open_encounter(situation.game)
        state = state_of(combatant, encounter.round)
        ground = ground_move(stats)
        if state.stepped:
            move, moved, left = Fraction(ground), Fraction(0), Fraction(0)
        elif state.done and state.mp is not None:
            move, moved = exact(state.mp), exact(state.moved)
            left = Fraction(0) if state.single else move - moved
        else:
            move, moved, left = Fraction(ground), Fraction(0), Fraction(ground)
        return {
            "moved": number(moved), "remaining": number(left), "move": number(move),
            "posture": state.posture, "ground_move": ground, "water_move": water_move(stats),
            "air_move": air_move(stats),
        }

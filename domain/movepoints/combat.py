"""Move-Point movement in encounters (RULES.md §10, §12.10, §12.12).

Actions buy Move Points (MP): a Move Action half the highest Full Move, a Full-Round Action all
of it; a combatant holds one free MP until its first such action absorbs it. MP are spent tile
by tile (a tile's `cost`, default 1), each tile on the movement type it needs (land, `water`
tiles swim, `--fly` fly), and no type may spend more in a round than its Full Move. A tile
costing more than that Full Move is paid over several rounds while the combatant is in transit.
What is left when the next round starts is lost.

MP come in exact halves: the arithmetic here is on `Fraction`s, and documents hold JSON numbers
(an int when whole, else a half such as 6.5).
"""

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from domain import pathfinding
from domain.battlemap import LegendSpec, flag, whole_number
from domain.bounds import MAX_LEVEL
from domain.cells import Cell
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
from domain.geometry import Square
from domain.grid import SQUARES
from domain.ruleset import Decision, Situation
from domain.state import Combatant, Encounter, Game, Side, friends
from domain.values import check_number

if TYPE_CHECKING:
    from domain.commands.encounter import EnterCombatant
    from domain.commands.rounds import MoveCombatant, StartRound

# The movement types a Full Move is given for, in the order documents list them.
TYPES = ("land", "swim", "fly")
# The options `encounter move` takes in a Move-Points encounter.
MOVE_OPTIONS = frozenset({"fly"})
ACTION_KINDS = ("move", "full")
CONDITIONS = ("stunned", "immobile")
FREE_POINT = Fraction(1)
# A step enters one tile costing at most this.
STEP_COST = 1


def number(value: Fraction | int | float) -> int | float:
    """MP as a JSON number: an int when whole, else the exact half (6.5)."""
    exact = Fraction(value)
    return int(exact) if exact.denominator == 1 else float(exact)


def _half_points(value: int | float) -> int | float:
    exact = Fraction(value)
    if exact < 0 or (exact * 2).denominator != 1:
        raise ValueError(f"{value} is not a whole or half number of Move Points, 0 or more")
    return number(exact)


# Move Points in a document: 0 or more, in exact halves.
MP = Annotated[int | float, AfterValidator(_half_points)]


def _no_spending() -> dict[str, int | float]:
    return dict.fromkeys(TYPES, 0)


class Transit(BaseModel):
    """A tile being paid for over several rounds; the combatant still stands where it was."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    to: Cell
    cost: int
    paid: MP
    # The movement type paying for it, and the round the transit began.
    type: str
    since: int


class MoveState(BaseModel):
    """One combatant's round under the Move-Point system (the ruleset's own document)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    mp: MP = 0
    # The free Move Point is still held: no MP-gaining action yet and not spent.
    free_point: bool = False
    # The free point went on movement this round (so the first action gives one MP less).
    free_spent: bool = False
    # MP-gaining actions taken this round.
    actions: int = 0
    spent: dict[str, MP] = Field(default_factory=_no_spending)
    moved: MP = 0
    stepped: bool = False
    in_transit: Transit | None = None
    # Paid toward the transit tile this round.
    paid_toward: bool = False
    condition: str | None = None


class TransitLoss(BaseModel):
    """Progress toward a transit tile lost (RULES §10 *In transit*)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: str
    to: Cell
    cost: int
    paid: MP
    knockdown_risk: bool
    reason: str


# -- events ----------------------------------------------------------------------------------


class _LosesTransits(CombatantChanged):
    """An event that may end transits: the actor's own (`transit_lost`) and, when it stops on a
    tile an enemy was paying toward, that enemy's (`broken`, with its state afterwards)."""

    transit_lost: TransitLoss | None = None
    knockdown_risk: bool = False
    broken: list[TransitLoss] = Field(default_factory=list)
    others: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def apply_to(self, game: Game) -> None:
        super().apply_to(game)
        encounter = game.encounter
        assert encounter is not None, "decided with an open encounter"
        for name, state in self.others.items():
            encounter.combatants[name].state = dict(state)


class MovePointsGained(CombatantChanged):
    """`encounter act NAME move|full`: an action that gains MP (the first absorbs the free
    point: `gained` is what the MP held changed by)."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("act",)

    kind: str
    amount: MP
    gained: int | float
    mp: MP


class MovePointsMoved(_LosesTransits):
    """`encounter move`: the tiles entered (`path`, the cell left first) and the MP spent,
    which may go toward a transit tile (`toward`, `paid` so far, `arrived`)."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("encounter-move",)

    moves: ClassVar[bool] = True

    # The cells the GM asked for, the cell left first (the transit tile last, when paying).
    route: list[Cell]
    cost: MP
    fly: bool = False
    provokes: bool = True
    toward: Cell | None = None
    paid: MP | None = None
    arrived: bool = False

    def distance(self) -> tuple[int, int]:
        return max(0, len(self.path) - 1), 0


class MovePointsStepped(_LosesTransits):
    """`encounter step`: one tile for the free point, as a free action."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("step",)

    moves: ClassVar[bool] = True

    direction: str
    cost: int = STEP_COST
    provokes: bool = False

    def distance(self) -> tuple[int, int]:
        return 1, 0


class MovePointsCondition(CombatantChanged):
    """`encounter condition`: stunned or immobile loses every MP held; clear ends it.

    What it lost (`lost`, `transit_lost`) is worked out from the MP and transit held then: in
    another history they may differ while the condition still stands, and it sets only the
    MP, the free point, the condition and the transit."""

    undo_kinds: ClassVar[tuple[str, ...]] = ("condition",)
    state_keys: ClassVar[frozenset[str] | None] = frozenset(
        {"mp", "free_point", "condition", "in_transit"})
    derived: ClassVar[frozenset[str]] = frozenset(
        {"state", "lost", "transit_lost", "knockdown_risk"})

    change: str
    condition: str | None = None
    lost: MP = 0
    transit_lost: TransitLoss | None = None
    knockdown_risk: bool = False


COMBAT_EVENTS: tuple[type[CombatantChanged], ...] = (
    MovePointsGained, MovePointsMoved, MovePointsStepped, MovePointsCondition)


# -- the numbers -------------------------------------------------------------------------------


def full_moves(given: object) -> dict[str, int]:
    """The Full Move per movement type from `--full-move` values (N, or TYPE=N), or from the
    recorded document; refuses unknown types, repeats and numbers out of bounds."""
    if given is None:
        return {}
    if isinstance(given, Mapping):
        pairs = list(given.items())
    elif isinstance(given, list | tuple):
        pairs = [tuple(pair) for pair in given]
    else:
        raise RuleViolation("--full-move takes N (land), swim=N or fly=N")
    found: dict[str, int] = {}
    for pair in pairs:
        if len(pair) != 2:
            raise RuleViolation("--full-move takes N (land), swim=N or fly=N")
        kind, value = str(pair[0]).lower(), pair[1]
        if kind not in TYPES:
            raise RuleViolation(f"{kind!r} is not a movement type; --full-move takes N (land), "
                                "swim=N or fly=N")
        if kind in found:
            raise RuleViolation(f"--full-move gives the {kind} Full Move twice; give each "
                                "movement type once")
        if isinstance(value, bool) or not isinstance(value, int):
            raise RuleViolation(f"the {kind} Full Move must be a whole number, not {value!r}")
        check_number(value, f"the {kind} Full Move", 0, MAX_LEVEL)
        found[kind] = value
    return {kind: found[kind] for kind in TYPES if kind in found}


def stats_of(situation: Situation, combatant: Combatant) -> Mapping[str, Any]:
    """A roster character's recorded stats, or the ones it was added with."""
    if combatant.from_roster:
        return situation.game.characters[combatant.name].stats
    return combatant.stats


def full_move_of(stats: Mapping[str, Any]) -> dict[str, int]:
    moves: dict[str, int] = dict(stats.get("full_move") or {})
    return moves


def highest_full_move(moves: Mapping[str, int]) -> int:
    """MP are gained from the highest Full Move of any type."""
    return max(moves.values(), default=0)


def action_amount(moves: Mapping[str, int], kind: str) -> Fraction:
    """A Move Action gives half the highest Full Move (exactly); a Full-Round Action all of
    it."""
    highest = Fraction(highest_full_move(moves))
    return highest / 2 if kind == "move" else highest


def gain(state: MoveState, amount: Fraction) -> Fraction:
    """The MP held after an action giving `amount`: the first action of the round brings what
    was gained this round (the free point included) to its amount: one MP less when the free
    point was spent on movement (never below nothing), and the free point gone when it was
    still held. A free point lost to a condition, or never held, was not spent."""
    held = Fraction(state.mp)
    if state.actions:
        return held + amount
    if state.free_spent:
        return held + max(Fraction(0), amount - FREE_POINT)
    if state.free_point:
        return held - FREE_POINT + amount
    return held + amount


def tile(encounter: Encounter, cell: Square) -> dict[str, Any]:
    return terrain_of(encounter, cell) or {"terrain": "open"}


def tile_cost(encounter: Encounter, cell: Square) -> int:
    return int(tile(encounter, cell).get("cost", 1))


def tile_type(encounter: Encounter, cell: Square, fly: bool) -> str:
    if fly:
        return "fly"
    return "swim" if tile(encounter, cell)["terrain"] == "water" else "land"


def poor_footing(encounter: Encounter, cell: Square) -> bool:
    return bool(tile(encounter, cell).get("poor_footing", False))


def state_of(combatant: Combatant) -> MoveState:
    return MoveState.model_validate(combatant.state)


def _transits_lost_to(encounter: Encounter, name: str, side: Side, cell: Square
                      ) -> list[tuple[TransitLoss, MoveState]]:
    """The transits toward `cell` that end when `name`, on `side`, stops there: each
    opponent's loss and its state afterwards."""
    lost: list[tuple[TransitLoss, MoveState]] = []
    for other in encounter.combatants.values():
        if other.name == name or friends(other.side, side):
            continue
        state = state_of(other)
        if state.in_transit is None or state.in_transit.to != cell:
            continue
        loss = lose_transit(encounter, other.name, state,
                            f"{name}, an enemy, occupies {where(cell)}")
        assert loss is not None
        lost.append((loss, state))
    return lost


def fresh_round(round_number: int, condition: str | None,
                transit: Transit | None = None) -> MoveState:
    """A combatant's state when a round starts: the free point, unless a condition keeps it
    from moving (its MP are lost as soon as it would hold them)."""
    free = round_number >= 1 and condition is None
    return MoveState(mp=1 if free else 0, free_point=free, condition=condition,
                     in_transit=transit)


def lose_transit(encounter: Encounter, name: str, state: MoveState,
                 reason: str) -> TransitLoss | None:
    """End `state`'s transit, if any, and say what was lost."""
    transit = state.in_transit
    if transit is None:
        return None
    state.in_transit = None
    return TransitLoss(name=name, to=transit.to, cost=transit.cost, paid=transit.paid,
                       knockdown_risk=poor_footing(encounter, transit.to), reason=reason)


def _loss_document(loss: TransitLoss | None) -> dict[str, Any] | None:
    return None if loss is None else loss.model_dump(mode="json")


def _unit(amount: Fraction | int | float) -> str:
    return f"{number(amount)} MP"


# -- decisions ---------------------------------------------------------------------------------


class MoveRules:
    """The encounter half of the movepoints ruleset."""

    name: str
    grid = "square"
    encounters = True
    move_options = MOVE_OPTIONS
    default_facing: str | None = None
    battle_legend = LegendSpec(words=frozenset({"open", "water"}),
                               keys={"cost": whole_number(1), "poor_footing": flag})

    # -- rounds ---------------------------------------------------------------------------

    def start_round(self, situation: Situation, command: "StartRound") -> Decision:
        encounter = open_encounter(situation.game)
        if command.options:
            raise RuleViolation("a Move-Points round takes no options; `trek encounter round` "
                                "starts the next one")
        ending = encounter.round
        number_ = ending + 1
        states: dict[str, dict[str, Any]] = {}
        losses: list[TransitLoss] = []
        for combatant in encounter.combatants.values():
            old = state_of(combatant)
            transit = old.in_transit
            if transit is not None:
                standing = encounter.at(transit.to)
                reason = None
                if standing is not None and not friends(standing.side, combatant.side):
                    reason = f"{standing.name}, an enemy, occupies {where(transit.to)}"
                elif transit.since < ending and not (old.actions and old.paid_toward):
                    reason = (f"round {ending} passed without an action gaining MP and a "
                              f"payment toward {where(transit.to)}")
                if reason is not None:
                    loss = lose_transit(encounter, combatant.name, old, reason)
                    assert loss is not None
                    losses.append(loss)
                    transit = None
            states[combatant.name] = fresh_round(number_, old.condition,
                                                 transit).model_dump(mode="json")
        clock: dict[str, Any] = {}
        if losses:
            clock = {"transit_lost": [loss.model_dump(mode="json") for loss in losses],
                     "knockdown_risk": any(loss.knockdown_risk for loss in losses)}
        return RoundStarted(number=number_, states=states, clock=clock)

    # -- gaining MP -----------------------------------------------------------------------

    def act(self, situation: Situation, name: str, kind: str | None,
            options: Mapping[str, Any]) -> Decision:
        encounter = open_encounter(situation.game)
        offered = [key for key, value in options.items() if value]
        if offered:
            flag = "--" + offered[0].replace("_", "-")
            raise RuleViolation(f"a Move-Points action has no {flag}; give `trek encounter act "
                                f"{name} move` or `... full`")
        if kind not in ACTION_KINDS:
            given = "give one" if kind is None else f"not {kind!r}"
            raise RuleViolation(f"a Move-Points action is `move` (a Move Action, half the Full "
                                f"Move in MP) or `full` (a Full-Round Action, the Full Move): "
                                f"{given}, as in `trek encounter act {name} move`")
        require_round(encounter)
        combatant = encounter.combatant(name)
        state = state_of(combatant)
        if state.condition == "stunned":
            raise RuleViolation(f"{name} is stunned and cannot take Move actions; "
                                f"`trek encounter condition {name} clear` ends it")
        if state.stepped:
            raise RuleViolation(f"{name} took a step this round, so no action may gain it MP "
                                "until the next round")
        moves = full_move_of(stats_of(situation, combatant))
        if highest_full_move(moves) == 0:
            raise RuleViolation(f"{name} has no Full Move, so an action gains it no MP")
        amount = action_amount(moves, kind)
        before = Fraction(state.mp)
        # An immobile combatant cannot spend MP, so what the action gains is lost at once.
        after = Fraction(0) if state.condition == "immobile" else gain(state, amount)
        state.mp = number(after)
        state.free_point = False
        state.actions += 1
        return MovePointsGained(
            name=name,
            kind=kind,
            amount=number(amount),
            gained=number(after - before),
            mp=number(after),
            state=state.model_dump(mode="json"),
        )

    # -- conditions -------------------------------------------------------------------------

    def set_condition(self, situation: Situation, name: str, change: str) -> Decision:
        encounter = open_encounter(situation.game)
        combatant = encounter.combatant(name)
        state = state_of(combatant)
        word = change.lower()
        if word == "clear":
            if state.condition is None:
                raise RuleViolation(f"{name} is neither stunned nor immobile; there is nothing "
                                    "to clear")
            state.condition = None
            return MovePointsCondition(
                name=name,
                change="clear",
                condition=None,
                state=state.model_dump(mode="json"),
            )
        if word not in CONDITIONS:
            raise RuleViolation(f"{change!r} is not a condition; give stunned, immobile or "
                                "clear")
        if state.condition == word:
            raise RuleViolation(f"{name} is already {word}")
        lost = Fraction(state.mp)
        state.mp = 0
        state.free_point = False
        state.condition = word
        loss = lose_transit(encounter, name, state, f"{name} became {word}")
        return MovePointsCondition(
            name=name,
            change=word,
            condition=word,
            lost=number(lost),
            transit_lost=_loss_document(loss),
            knockdown_risk=bool(loss and loss.knockdown_risk),
            state=state.model_dump(mode="json"),
        )

    # -- the step ---------------------------------------------------------------------------

    def step(self, situation: Situation, name: str, direction: str) -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        mover = encounter.combatant(name)
        state = state_of(mover)
        way = direction.upper()
        if way not in SQUARES.directions:
            raise RuleViolation(f"{direction!r} is not a direction; a step takes one of "
                                f"{' '.join(SQUARES.directions)}")
        self._check_can_move(name, state)
        if state.stepped:
            raise RuleViolation(f"{name} already took its step this round")
        if state.actions:
            raise RuleViolation(f"{name} already took an action that gained MP this round; a "
                                "step comes before any")
        if Fraction(state.moved) > 0:
            raise RuleViolation(f"{name} already spent MP this round; a step comes before any "
                                "movement")
        if not state.free_point:
            raise RuleViolation(f"{name} holds no free Move Point this round, and a step "
                                "spends it")
        cell = mover.at.step(way)
        reason = step_refusal(encounter, mover, mover.at, cell)
        if reason is not None:
            raise RuleViolation(f"the step is refused: {reason}")
        stop = end_refusal(encounter, mover, cell)
        if stop is not None:
            raise RuleViolation(stop)
        kind = tile_type(encounter, cell, fly=False)
        moves = full_move_of(stats_of(situation, mover))
        if moves.get(kind, 0) <= 0:
            raise RuleViolation(f"{where(cell)} needs a {kind} Full Move and {name} has none")
        cost = tile_cost(encounter, cell)
        if cost > STEP_COST:
            raise RuleViolation(f"a step enters a tile costing at most {STEP_COST} MP and "
                                f"{where(cell)} costs {cost}; make a move instead")
        loss = lose_transit(encounter, name, state, f"{name} stepped to {where(cell)}")
        state.mp = number(Fraction(state.mp) - cost)
        state.free_point = False
        state.free_spent = True
        state.stepped = True
        state.spent[kind] = number(Fraction(state.spent[kind]) + cost)
        state.moved = number(Fraction(state.moved) + cost)
        broken, others = self._break_transits(encounter, mover, cell)
        return MovePointsStepped(
            name=name,
            path=[mover.at, cell],
            direction=way,
            cost=cost,
            provokes=False,
            transit_lost=_loss_document(loss),
            knockdown_risk=bool(loss and loss.knockdown_risk),
            broken=broken,
            others=others,
            state=state.model_dump(mode="json"),
        )

    # -- moving -----------------------------------------------------------------------------

    def move_combatant(self, situation: Situation, command: "MoveCombatant") -> Decision:
        encounter = open_encounter(situation.game)
        require_round(encounter)
        mover = encounter.combatant(command.name)
        state = state_of(mover)
        fly = bool(command.options.get("fly"))
        name = mover.name
        self._check_can_move(name, state)
        transit = state.in_transit
        if command.to is not None:
            if command.to == mover.at:
                raise RuleViolation(f"{name} already stands on {where(command.to)}")
            if transit is not None and command.to == transit.to:
                route = [mover.at, transit.to]
            else:
                check_target(encounter, mover, command.to)
                self._check_target_type(situation, mover, command.to, fly)
                route = self._cheapest_route(situation, mover, state, command.to, fly)
        else:
            if not command.steps:
                raise RuleViolation("give at least one direction (N NE E SE S SW W NW) or "
                                    "--to X,Y")
            route = [mover.at]
            for direction in command.steps:
                if direction not in SQUARES.directions:
                    raise RuleViolation(f"{direction!r} is not a direction; use "
                                        f"{' '.join(SQUARES.directions)}")
                route.append(route[-1].step(direction))
        return self.walk(situation, name, route, fly=fly)

    def _check_can_move(self, name: str, state: MoveState) -> None:
        if state.condition == "immobile":
            raise RuleViolation(f"{name} is immobile and cannot spend MP; `trek encounter "
                                f"condition {name} clear` ends it")
        if state.condition == "stunned":
            raise RuleViolation(f"{name} is stunned: it cannot take Move actions and its MP "
                                f"are lost; `trek encounter condition {name} clear` ends it")

    def _check_target_type(self, situation: Situation, mover: Combatant, goal: Square,
                           fly: bool) -> None:
        """A tile entered with a movement type the mover lacks is never reached (water with
        no swim Full Move, say): said before the MP it holds."""
        encounter = open_encounter(situation.game)
        kind = tile_type(encounter, goal, fly)
        if full_move_of(stats_of(situation, mover)).get(kind, 0) <= 0:
            name = mover.name
            if fly:
                raise RuleViolation(f"{name} has no fly Full Move, so no move with --fly takes "
                                    f"{name} to {where(goal)}")
            raise RuleViolation(f"{where(goal)} is {tile(encounter, goal)['terrain']} and {name} "
                                f"has no {kind} Full Move, so no move takes {name} there")

    def _cheapest_route(self, situation: Situation, mover: Combatant, state: MoveState,
                        goal: Square, fly: bool) -> list[Square]:
        encounter = open_encounter(situation.game)
        moves = full_move_of(stats_of(situation, mover))

        def step_cost(here: Square, there: Square) -> int | None:
            if step_refusal(encounter, mover, here, there) is not None:
                return None
            full = moves.get(tile_type(encounter, there, fly), 0)
            cost = tile_cost(encounter, there)
            return cost if full > 0 and cost <= full else None

        found = pathfinding.cheapest_path(
            SQUARES, mover.at, goal, step_cost, limit=Fraction(state.mp),
            may_end=lambda cell: end_refusal(encounter, mover, cell) is None)
        if found is None:
            raise RuleViolation(f"no legal path takes {mover.name} to {where(goal)} with the "
                                f"{_unit(state.mp)} it holds (a tile dearer than its Full "
                                "Move is entered over rounds: give the direction)")
        return found[0]

    def walk(self, situation: Situation, name: str, route: list[Square], *,
             fly: bool) -> Decision:
        """Spend MP along `route` (the cell left first); a last tile dearer than the Full Move
        for its type is paid toward, in transit."""
        encounter = open_encounter(situation.game)
        require_round(encounter)
        mover = encounter.combatant(name)
        state = state_of(mover)
        self._check_can_move(name, state)
        if route[0] != mover.at:
            raise RuleViolation(f"the move starts at {where(route[0])} but {name} stands on "
                                f"{where(mover.at)}")
        if len(route) < 2:
            raise RuleViolation("give at least one direction (N NE E SE S SW W NW) or --to X,Y")
        moves = full_move_of(stats_of(situation, mover))
        transit = state.in_transit
        if transit is not None and route == [mover.at, transit.to]:
            return self._pay(situation, mover, state, moves, route, fly)
        loss = lose_transit(encounter, name, state,
                            f"{name} moved elsewhere") if transit is not None else None
        held = Fraction(state.mp)
        spent = {kind: Fraction(value) for kind, value in state.spent.items()}
        cost = Fraction(0)
        toward: Square | None = None
        last = len(route) - 1
        for number_, cell in enumerate(route[1:], start=1):
            reason = step_refusal(encounter, mover, route[number_ - 1], cell)
            if reason is not None:
                raise RuleViolation(f"step {number_} is refused: {reason}")
            kind = tile_type(encounter, cell, fly)
            full = moves.get(kind, 0)
            if full <= 0:
                raise RuleViolation(f"step {number_} is refused: {where(cell)} needs a {kind} "
                                    f"Full Move and {name} has none")
            price = tile_cost(encounter, cell)
            if price > full:
                if number_ != last:
                    raise RuleViolation(
                        f"step {number_} is refused: {where(cell)} costs {price} MP, more than "
                        f"{name}'s {kind} Full Move of {full}, so it is entered over several "
                        "rounds; make it the move's last step")
                toward = cell
                break
            if spent[kind] + price > full:
                raise RuleViolation(
                    f"step {number_} is refused: {name} would spend {number(spent[kind] + price)}"
                    f" MP on {kind} movement this round, more than its {kind} Full Move of "
                    f"{full}")
            if cost + price > held:
                raise RuleViolation(f"the move costs at least {number(cost + price)} MP but "
                                    f"{name} holds {_unit(held)}")
            spent[kind] += price
            cost += price
        path = route[:-1] if toward is not None else list(route)
        stop = end_refusal(encounter, mover, path[-1])
        if stop is not None:
            raise RuleViolation(stop)
        paid: Fraction | None = None
        if toward is not None:
            kind = tile_type(encounter, toward, fly)
            full = moves[kind]
            pay = min(held - cost, full - spent[kind])
            if pay <= 0:
                raise RuleViolation(
                    f"{name} has no MP it may put toward {where(toward)} (it holds "
                    f"{_unit(held - cost)}, and its {kind} Full Move of {full} allows "
                    f"{number(max(Fraction(0), full - spent[kind]))} more this round)")
            spent[kind] += pay
            cost += pay
            paid = pay
            state.in_transit = Transit(to=toward, cost=tile_cost(encounter, toward),
                                       paid=number(pay), type=kind, since=encounter.round)
            state.paid_toward = True
        state.mp = number(held - cost)
        state.spent = {kind: number(value) for kind, value in spent.items()}
        state.moved = number(Fraction(state.moved) + cost)
        if cost > 0 and state.free_point:
            state.free_point = False
            state.free_spent = True
        broken, others = (self._break_transits(encounter, mover, path[-1]) if len(path) > 1
                          else ([], {}))
        return MovePointsMoved(
            name=name,
            path=path,
            route=route,
            cost=number(cost),
            fly=fly,
            provokes=True,
            toward=toward,
            paid=number(paid) if paid is not None else None,
            arrived=False,
            transit_lost=_loss_document(loss),
            knockdown_risk=bool(loss and loss.knockdown_risk),
            broken=broken,
            others=others,
            state=state.model_dump(mode="json"),
        )

    def _pay(self, situation: Situation, mover: Combatant, state: MoveState,
             moves: Mapping[str, int], route: list[Square], fly: bool) -> Decision:
        """Put MP toward the transit tile: all those held, up to what the type's Full Move still
        allows this round and what the tile still needs; arriving once it is paid."""
        encounter = open_encounter(situation.game)
        transit = state.in_transit
        assert transit is not None
        name = mover.name
        if (transit.type == "fly") != fly:
            raise RuleViolation(
                f"{name} is in transit toward {where(transit.to)} by {transit.type} movement; "
                + ("add --fly" if transit.type == "fly" else "leave off --fly")
                + " to keep paying toward it")
        reason = step_refusal(encounter, mover, mover.at, transit.to)
        if reason is not None:
            raise RuleViolation(f"{name} cannot keep paying toward {where(transit.to)}: "
                                f"{reason}")
        full = moves.get(transit.type, 0)
        held = Fraction(state.mp)
        spent = Fraction(state.spent[transit.type])
        still = transit.cost - Fraction(transit.paid)
        pay = min(held, Fraction(full) - spent, still)
        if pay <= 0:
            raise RuleViolation(
                f"{name} has no MP it may put toward {where(transit.to)} (it holds "
                f"{_unit(held)}, and its {transit.type} Full Move of {full} allows "
                f"{number(max(Fraction(0), full - spent))} more this round); an action "
                "gains MP")
        arrived = pay == still
        if arrived:
            stop = end_refusal(encounter, mover, transit.to)
            if stop is not None:
                raise RuleViolation(stop)
        paid = Fraction(transit.paid) + pay
        state.mp = number(held - pay)
        state.spent[transit.type] = number(spent + pay)
        state.moved = number(Fraction(state.moved) + pay)
        state.paid_toward = True
        if state.free_point:
            state.free_point = False
            state.free_spent = True
        path = list(route) if arrived else [mover.at]
        state.in_transit = None if arrived else transit.model_copy(
            update={"paid": number(paid)})
        broken, others = (self._break_transits(encounter, mover, transit.to) if arrived
                          else ([], {}))
        return MovePointsMoved(
            name=name,
            path=path,
            route=route,
            cost=number(pay),
            fly=fly,
            provokes=True,
            toward=transit.to,
            paid=number(paid),
            arrived=arrived,
            broken=broken,
            others=others,
            state=state.model_dump(mode="json"),
        )

    def _break_transits(self, encounter: Encounter, mover: Combatant, cell: Square
                        ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
        """Enemies of `mover` paying toward `cell`, now that it stops there, lose progress."""
        broken: list[dict[str, Any]] = []
        others: dict[str, dict[str, Any]] = {}
        for loss, state in _transits_lost_to(encounter, mover.name, mover.side, cell):
            broken.append(loss.model_dump(mode="json"))
            others[loss.name] = state.model_dump(mode="json")
        return broken, others

    def entering(self, situation: Situation, command: "EnterCombatant"
                 ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
        """An enemy put on a tile someone is paying toward ends that transit at once (RULES
        §10: progress is lost when an enemy occupies the tile)."""
        encounter = open_encounter(situation.game)
        broken: list[dict[str, Any]] = []
        others: dict[str, dict[str, Any]] = {}
        for loss, _state in _transits_lost_to(encounter, command.name, command.side,
                                              command.at):
            broken.append(loss.model_dump(mode="json"))
            others[loss.name] = {"in_transit": None}
        return broken, others

    # -- status -----------------------------------------------------------------------------

    def encounter_fields(self, situation: Situation) -> dict[str, Any]:
        return {}

    def combatant_status(self, situation: Situation, combatant: Combatant) -> dict[str, Any]:
        state = state_of(combatant)
        transit = state.in_transit
        return {
            "moved": state.moved, "remaining": state.mp, "mp": state.mp,
            "spent": {kind: state.spent.get(kind, 0) for kind in TYPES},
            "free_point": state.free_point, "stepped": state.stepped,
            "in_transit": (None if transit is None else
                           {"to": transit.to.as_dict(), "cost": transit.cost,
                            "paid": transit.paid}),
            "condition": state.condition,
        }

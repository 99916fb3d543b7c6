"""Playing a journey forward many times with the ruleset's own decisions, recording nothing.

`trek plan` asks how likely the party is to reach a square by each coming day. Every step of a
simulated journey (a day's start, each of the ruleset's own actions the party's policy takes, a
move toward the target, the day's end) is decided by the ruleset itself, the very methods the
Campaign aggregate calls when it records, with dice drawn from the plan's generator, and the
decided event is folded into an in-memory copy of the game state by its own `apply_to`. There
is no second copy of any rule here. What the party tries each day, in which order, is the
ruleset's `DayPlayer` (its `plan_rules`); this module is the machinery every ruleset's plan
shares: states, kept decisions, trials and their sum.

Speed comes from memoising the decisions, not from re-implementing them. A decision depends
only on the game state it is made in and on the dice totals it rolls; so each distinct state is
a `Node`, and each (node, action) an `_Edge` that learns, the first time it is taken, which
rolls the decision makes, and keeps the node each combination of totals leads to; and a whole
day played from a node is kept by the totals it drew. Thousands of trials pass through a few
hundred states, so a trial's day is mostly a few dictionary look-ups.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from domain.commands.days import DayEndOptions
from domain.commands.travel import MoveOptions
from domain.errors import RuleViolation, TrackerError
from domain.geometry import Square
from domain.maps import GameMap
from domain.ruleset import Decision, Ruleset, Situation
from domain.state import ConveyanceKind, ConveyanceState, Game

SUPPLIES_SHOWN = ("provisions", "fuel", "ammo")
MAX_TRIALS = 100_000
MAX_DAYS = 365

# A 2d6 total: one draw of the plan's generator.
Draw = Callable[[], int]
# An action of the party's policy: ("start",), ("end",), ("move", square), ("move",
# directions), or one of the ruleset's own (its `DayPlayer.decide` reads them).
Action = tuple[Any, ...]
# The party's policy: the ruleset's plan options by name (`trek plan`'s own flags), each off
# (0 or False) unless given.
Policy = Mapping[str, Any]

_TOTALS = tuple(a + b for a in range(1, 7) for b in range(1, 7))


def seeded_draw(rng: random.Random) -> Draw:
    """The total of two six-sided dice from `rng`: one of the 36 equally likely pairs of
    faces, chosen by one draw."""
    pick = rng.random
    totals = _TOTALS

    def draw() -> int:
        return totals[int(pick() * 36)]

    return draw


def _plain(value: Any) -> Any:
    """A copy of a JSON-shaped value (dicts, lists, scalars)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


_M = TypeVar("_M", bound=BaseModel)


def _shallow(model: _M, **changes: Any) -> _M:
    """A copy of `model` sharing its field values but for `changes` (what pydantic's own
    `__copy__` does, without its generality)."""
    kind = type(model)
    made = kind.__new__(kind)
    fields = dict(model.__dict__)
    fields.update(changes)
    extra, private = model.__pydantic_extra__, model.__pydantic_private__
    object.__setattr__(made, "__dict__", fields)
    object.__setattr__(made, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    object.__setattr__(made, "__pydantic_extra__", None if extra is None else dict(extra))
    object.__setattr__(made, "__pydantic_private__", None if private is None else dict(private))
    return made


def copied(game: Game) -> Game:
    """A copy of `game` that folding an event into cannot change `game`: every model and
    container of the state copied, its values (numbers, strings, squares) shared. A deep copy
    by hand, a few times faster than pydantic's, since a plan copies a state for every
    outcome it meets."""
    return _shallow(
        game,
        day=_shallow(game.day),
        supplies=dict(game.supplies),
        characters={name: _shallow(c, skills=dict(c.skills), attributes=dict(c.attributes),
                                   stats=_plain(c.stats))
                    for name, c in game.characters.items()},
        conveyances={name: _shallow(c, travel=_plain(c.travel))
                     for name, c in game.conveyances.items()},
        rules=dict(game.rules),
        encounter=(game.encounter.model_copy(deep=True) if game.encounter is not None
                   else None),
        travel=_plain(game.travel),
    )


@dataclass(frozen=True)
class Refused:
    """A decision the ruleset refused (nothing happens; the policy moves on)."""

    reason: str


class DrawnDice:
    """The `Dice` a decision rolls with: the plan's draws, or the totals an edge already knows
    (`given`), noting every label and total in order. Like totals a GM gives with --roll, they
    come without faces."""

    def __init__(self, draw: Draw, given: tuple[int, ...] = ()) -> None:
        self.draw = draw
        self.given = given
        self.labels: list[str] = []
        self.totals: list[int] = []

    def roll(self, label: str, count: int = 2, sides: int = 6
             ) -> tuple[int, tuple[int, ...] | None]:
        index = len(self.totals)
        total = self.given[index] if index < len(self.given) else self.draw()
        self.labels.append(label)
        self.totals.append(total)
        return total, None


class Node:
    """One game state the journey reaches, with what each action does from it."""

    __slots__ = ("days", "edges", "game", "key", "memo", "route")

    def __init__(self, game: Game, key: str) -> None:
        self.game = game
        # The state as JSON: what tells nodes apart, and what a copy of it is made from.
        self.key = key
        self.edges: dict[Action, _Edge] = {}
        # The planned path from here (None until asked; () when there is none).
        self.route: tuple[Square, ...] | None = None
        # What the policy works out from this state, kept: it is asked again every trial.
        self.memo: dict[str, Any] = {}
        # How a whole day played from here went, by the totals it drew (see `_DayPlayed`).
        self.days: _DayPlayed | _Totals | None = None


@dataclass(frozen=True)
class _DayPlayed:
    """A whole day played from a node with one sequence of totals: where it ended."""

    end: Node
    arrived: Game | None
    passed: frozenset[Square]
    rolled: int


# The days played from a node, as a tree keyed by each total drawn in turn: the same totals
# always make the same decisions, so no sequence that ends a day begins a longer one.
_Totals = dict[int, "_DayPlayed | _Totals"]


@dataclass
class _Edge:
    """An action from a node: the labels its decision rolls under, and where each combination
    of totals leads (the event decided and the node after it, or a refusal)."""

    labels: tuple[str, ...]
    outcomes: dict[tuple[int, ...], tuple[Decision, Node] | Refused]


@dataclass(frozen=True)
class Step:
    """One decision a trial took: what was decided, with which totals, and the state after."""

    day: int
    action: Action
    event: Decision
    totals: dict[str, int]
    game: Game


@dataclass
class Trial:
    """How one playing of the journey went."""

    arrived_day: int | None = None
    # The game when the party reached the target (None: it did not).
    on_arrival: Game | None = None
    # The game at the end of the last day played.
    last: Game | None = None
    passed: set[Square] = field(default_factory=set)
    rolled: int = 0
    steps: list[Step] | None = None


class DayPlayer(Protocol):
    """What one ruleset's party does on a day of a planned journey: made by the ruleset's
    `PlanRules` for one plan, so it may keep what it works out (paths, say) across trials."""

    def decide(self, action: Action, situation: Situation, dice: DrawnDice) -> Decision:
        """The ruleset's own decision for one of its own actions (a refusal raises)."""

    def day(self, node: Node, draw: Draw, trial: Trial, day: int, passed: bool) -> Node:
        """The day's actions between its start and its end, from `node` (the day is open),
        through `Planner.take`; `Planner.arrive` says when the party reached the target."""

    def check(self) -> None:
        """Refuse, with the reason, a plan the party cannot follow from where it stands (no
        path to the target, a policy nobody in the party can carry out)."""

    def exact(self, start: Game, trial: Trial, first_day: int
              ) -> tuple[int, Fraction, Fraction] | None:
        """For a certain journey, the arrival to the fraction of a day, where the ruleset
        counts in fractions: the day, the part of it spent on arrival, and the days the
        journey takes from where the plan starts (None: whole days only)."""


class PlanRules(Protocol):
    """How `trek plan` plays a ruleset's overland journeys."""

    def check_policy(self, policy: Policy) -> None:
        """Refuse a policy the ruleset cannot play (an option it has no rule for, a number
        out of bounds), with the reason."""

    def day_player(self, planner: Planner) -> DayPlayer:
        """The party's days for this plan."""


class Planner:
    """Plays one campaign's journey to `target` forward from `game` under `policy`."""

    def __init__(self, ruleset: Ruleset, game: Game, game_map: GameMap | None, target: Square,
                 policy: Policy) -> None:
        rules = ruleset.plan_rules
        if rules is None:
            raise RuleViolation(f"the {ruleset.name} ruleset has no overland travel to plan")
        self.ruleset = ruleset
        self.map = game_map
        self.target = target
        self.policy = policy
        self._nodes: dict[str, Node] = {}
        self.root = self._node(copied(game))
        self.first_day = game.day.number if game.day.open else game.day.number + 1
        self.player = rules.day_player(self)

    # -- states and decisions ------------------------------------------------------------

    def _node(self, game: Game) -> Node:
        key = game.model_dump_json()
        found = self._nodes.get(key)
        if found is None:
            found = self._nodes[key] = Node(game, key)
        return found

    def situation(self, game: Game) -> Situation:
        return Situation(game=game, map=self.map, ruleset=self.ruleset.name)

    def decide(self, game: Game, action: Action, dice: DrawnDice) -> Decision:
        """The ruleset's own decision for `action` in `game` (a refusal raises)."""
        rules, situation = self.ruleset, self.situation(game)
        kind = action[0]
        if kind == "start":
            return rules.start_day(situation)
        if kind == "end":
            return rules.end_day(situation, DayEndOptions())
        if kind == "move":
            # A square: `move --to X,Y`; steps: `move DIR...` along a path already found.
            if isinstance(action[1], Square):
                return rules.move(situation, MoveOptions(to=action[1]))
            return rules.move(situation, MoveOptions(steps=action[1]))
        return self.player.decide(action, situation, dice)

    def _outcome(self, node: Node, action: Action, dice: DrawnDice
                 ) -> tuple[Decision, Node] | Refused:
        try:
            event = self.decide(node.game, action, dice)
        except TrackerError as error:
            return Refused(str(error))
        game = copied(node.game)
        event.apply_to(game)
        return event, self._node(game)

    def take(self, node: Node, action: Action, draw: Draw, trial: Trial, day: int
             ) -> tuple[Decision, Node] | None:
        """Take `action` from `node`: the event decided and the node after it, or None when
        the ruleset refuses."""
        edge = node.edges.get(action)
        if edge is None:
            dice = DrawnDice(draw)
            outcome = self._outcome(node, action, dice)
            totals = tuple(dice.totals)
            edge = node.edges[action] = _Edge(tuple(dice.labels), {totals: outcome})
        else:
            rolls = len(edge.labels)
            totals = (() if rolls == 0 else (draw(),) if rolls == 1
                      else tuple(draw() for _ in range(rolls)))
            known = edge.outcomes.get(totals)
            if known is None:
                known = edge.outcomes[totals] = self._outcome(node, action,
                                                              DrawnDice(draw, totals))
            outcome = known
        trial.rolled += len(totals)
        if isinstance(outcome, Refused):
            return None
        if trial.steps is not None:
            event, after = outcome
            trial.steps.append(Step(day, action, event, dict(zip(edge.labels, totals,
                                                                 strict=True)), after.game))
        return outcome

    def then(self, node: Node, action: Action, draw: Draw, trial: Trial, day: int) -> Node:
        """The node after `action`, or `node` itself when the ruleset refuses it."""
        taken = self.take(node, action, draw, trial, day)
        return node if taken is None else taken[1]

    def arrive(self, node: Node, trial: Trial, day: int, event: Decision,
               passed: bool) -> bool:
        """Note the squares `event` passed (when asked) and whether it reached the target."""
        if passed:
            trial.passed.update(event.route_path())
        if node.game.position == self.target:
            trial.arrived_day = day
            trial.on_arrival = node.game
            return True
        return False

    # -- the days of a trial -------------------------------------------------------------

    def trial(self, draw: Draw, days: int, *, trace: bool = False,
              passed: bool = False) -> Trial:
        """One playing of the journey, for up to `days` days."""
        trial = Trial(steps=[] if trace else None)
        node = self.root
        for offset in range(days):
            day = self.first_day + offset
            if trace:
                node = self._day(node, draw, trial, day, passed)
            else:
                node = self._known_day(node, draw, trial, day, passed)
            if trial.arrived_day is not None:
                break
        trial.last = node.game
        return trial

    def _known_day(self, node: Node, draw: Draw, trial: Trial, day: int,
                   passed: bool) -> Node:
        """A day played from `node` as `_day` plays it, found by the totals drawn when a day
        with those totals was played from there before (a trial then costs a few look-ups a
        day), and played and kept otherwise."""
        found = node.days
        drawn: list[int] = []
        while found is not None and not isinstance(found, _DayPlayed):
            total = draw()
            drawn.append(total)
            found = found.get(total)
        if found is None:
            found = self._play_and_keep(node, draw, day, drawn)
        trial.rolled += found.rolled
        if passed:
            trial.passed.update(found.passed)
        if found.arrived is not None:
            trial.arrived_day = day
            trial.on_arrival = found.arrived
        return found.end

    def _play_and_keep(self, node: Node, draw: Draw, day: int,
                       drawn: list[int]) -> _DayPlayed:
        """Play the day from `node`, first with the totals already `drawn`, then drawing."""
        totals = list(drawn)
        given = iter(drawn)

        def replay() -> int:
            total = next(given, None)
            if total is None:
                total = draw()
                totals.append(total)
            return total

        played = Trial()
        end = self._day(node, replay, played, day, True)
        kept = _DayPlayed(end, played.on_arrival, frozenset(played.passed), len(totals))
        if not totals:
            node.days = kept
            return kept
        if not isinstance(node.days, dict):
            node.days = {}
        level = node.days
        for total in totals[:-1]:
            deeper = level.get(total)
            if not isinstance(deeper, dict):
                deeper = level[total] = {}
            level = deeper
        level[totals[-1]] = kept
        return kept

    def _day(self, node: Node, draw: Draw, trial: Trial, day: int, passed: bool) -> Node:
        if not node.game.day.open:
            started = self.take(node, ("start",), draw, trial, day)
            if started is None:
                return node
            node = started[1]
        node = self.player.day(node, draw, trial, day, passed)
        ended = self.take(node, ("end",), draw, trial, day)
        return node if ended is None else ended[1]


def memo(node: Node, key: str, work: Callable[[Node], Any]) -> Any:
    """What `work` makes of `node`, worked out once per node."""
    kept = node.memo
    if key in kept:
        return kept[key]
    value = kept[key] = work(node)
    return value


# -- many trials -----------------------------------------------------------------------------


def _decile(values: list[int]) -> int:
    """The 10th percentile: the value a tenth of the trials fall at or below (nearest rank)."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) // 10))
    return ordered[rank - 1]


@dataclass
class Outcome:
    """What many trials of one plan came to."""

    trials: int
    certain: bool
    first_day: int
    days: list[tuple[int, float]]
    most_likely: int | None
    supplies: dict[str, dict[str, float | int]] | None
    losses: dict[str, dict[str, Any]]
    passed: dict[Square, float]
    # A certain arrival to the fraction of a day (`DayPlayer.exact`): the day, the part of it
    # spent when the party arrived, and the days the journey takes from where the plan starts.
    exact: tuple[int, Fraction, Fraction] | None = None


def check_plan_request(ruleset: Ruleset, game: Game, game_map: GameMap | None, target: Square,
                       policy: Policy, trials: int, days: int) -> None:
    """Refuse a plan that cannot be made, with the reason."""
    rules = ruleset.plan_rules
    if rules is None:
        raise RuleViolation(f"the {ruleset.name} ruleset has no overland travel to plan")
    if not 1 <= trials <= MAX_TRIALS:
        raise RuleViolation(f"--trials is 1 to {MAX_TRIALS}, not {trials}")
    if not 1 <= days <= MAX_DAYS:
        raise RuleViolation(f"--days is 1 to {MAX_DAYS}, not {days}")
    rules.check_policy(policy)
    if game_map is not None and not game_map.contains(target):
        raise RuleViolation(f"{target.x},{target.y} is off the map "
                            f"({game_map.width}×{game_map.height})")
    if game.encounter is not None:
        raise RuleViolation(f"the encounter {game.encounter.name} is open; the journey goes on "
                            "once `trek encounter end` closes it")
    if game.position == target:
        raise RuleViolation(f"the party already stands on {target.x},{target.y}")


def plan(ruleset: Ruleset, game: Game, game_map: GameMap | None, target: Square, *,
         policy: Policy, trials: int, days: int, seed: int, squares: bool = False) -> Outcome:
    """Play the journey `trials` times (once when nothing in it rolls) and sum up."""
    check_plan_request(ruleset, game, game_map, target, policy, trials, days)
    planner = Planner(ruleset, game, game_map, target, policy)
    planner.player.check()
    draw = seeded_draw(random.Random(seed))
    results: list[Trial] = []
    for trial in _trials(planner, draw, trials, days, squares):
        results.append(trial)
    certain = len(results) == 1 and results[0].rolled == 0
    return _summed(planner, results, days, certain)


def _trials(planner: Planner, draw: Draw, trials: int, days: int,
            squares: bool) -> Iterator[Trial]:
    first = planner.trial(draw, days, passed=squares)
    yield first
    if first.rolled == 0:
        # Nothing rolled: every trial would go the same way.
        return
    for _ in range(trials - 1):
        yield planner.trial(draw, days, passed=squares)


def _summed(planner: Planner, results: list[Trial], days: int, certain: bool) -> Outcome:
    first = planner.first_day
    count = len(results)
    arrived_on = Counter(t.arrived_day for t in results if t.arrived_day is not None)
    shares: list[tuple[int, float]] = []
    so_far = 0
    for offset in range(days):
        day = first + offset
        so_far += arrived_on.get(day, 0)
        shares.append((day, so_far / count))
    most_likely = (min(arrived_on, key=lambda d: (-arrived_on[d], d)) if arrived_on else None)
    arrivals = [t.on_arrival for t in results if t.on_arrival is not None]
    supplies: dict[str, dict[str, float | int]] | None = None
    if arrivals:
        supplies = {}
        for kind in SUPPLIES_SHOWN:
            values = [g.supplies.get(kind, 0) for g in arrivals]
            supplies[kind] = {"expected": sum(values) / len(values), "worst_decile":
                              _decile(values)}
    losses: dict[str, dict[str, Any]] = {}
    start = planner.root.game
    for name, conveyance in start.conveyances.items():
        if not conveyance.usable or not conveyance.with_party:
            continue
        lost = sum(1 for t in results if t.last is not None
                   and t.last.conveyances[name].state is not ConveyanceState.OK)
        losses[name] = {"kind": conveyance.kind.value,
                        "fate": "dead" if conveyance.kind is ConveyanceKind.MOUNT else "broken",
                        "chance": lost / count}
    passed_count: Counter[Square] = Counter()
    for t in results:
        passed_count.update(t.passed)
    passed = {square: n / count for square, n in passed_count.items()}
    exact = planner.player.exact(start, results[0], first) if certain else None
    return Outcome(trials=count, certain=certain, first_day=first, days=shares,
                   most_likely=most_likely, supplies=supplies, losses=losses, passed=passed,
                   exact=exact)

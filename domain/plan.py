"""Playing a journey forward many times with the ruleset's own decisions, recording nothing.

`trek plan` asks how likely the party is to reach a square by each coming day. Every step of a
simulated journey (a day's start, a forced march, a night's travel, a shortcut, a forage, a move
toward the target, the day's end) is decided by the ruleset itself, the very methods the
Campaign aggregate calls when it records, with dice drawn from the plan's generator, and the
decided event is folded into an in-memory copy of the game state by its own `apply_to`. There
is no second copy of any rule here: only the party's policy (what it tries, in which order).

Speed comes from memoising the decisions, not from re-implementing them. A decision depends
only on the game state it is made in and on the dice totals it rolls; so each distinct state is
a `Node`, and each (node, action) an `_Edge` that learns, the first time it is taken, which
rolls the decision makes, and keeps the node each combination of totals leads to; and a whole
day played from a node is kept by the totals it drew. Thousands of trials pass through a few
hundred states, so a trial's day is mostly a few dictionary look-ups.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

from pydantic import BaseModel

from domain import pathfinding
from domain.besm.commands import Forage, ForcedMarch, TakeShortcut, TravelByNight
from domain.besm.maps import Shortcut, shortcuts
from domain.besm.rules import base_movement, group_flies, step_refusal, travelling_conveyances
from domain.besm.state import remaining, rules_of, today
from domain.cypher.state import journey
from domain.errors import RuleViolation, TrackerError
from domain.geometry import DIRECTIONS, Square
from domain.grid import SQUARES
from domain.maps import GameMap
from domain.ruleset import DayEndOptions, Decision, MoveOptions, Ruleset, Situation
from domain.state import ConveyanceKind, ConveyanceState, Game

# The rulesets with overland travel to plan.
PLANNED = ("besm", "cypher")
SUPPLIES_SHOWN = ("provisions", "fuel", "ammo")
MAX_TRIALS = 100_000
MAX_DAYS = 365
MAX_FORCED_MARCHES = 20
# How much of the way across a map-less plain is worked out at a time.
PLAIN_STEPS = 64

# A 2d6 total: one draw of the plan's generator.
Draw = Callable[[], int]
# An action of the party's policy: ("start",), ("end",), ("march",), ("night",),
# ("forage",), ("shortcut", name), ("move", square) or ("move", directions).
Action = tuple[Any, ...]

_STEP = {offset: name for name, offset in DIRECTIONS.items()}
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
class Policy:
    """What the party tries each day; each part off unless given."""

    forced_march: int = 0
    night: bool = False
    shortcuts: bool = False
    forage: bool = False

    @property
    def rolls(self) -> bool:
        return bool(self.forced_march or self.night or self.shortcuts or self.forage)


@dataclass(frozen=True)
class Refused:
    """A decision the ruleset refused (nothing happens; the policy moves on)."""

    reason: str


class _DrawnDice:
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


class Planner:
    """Plays one campaign's journey to `target` forward from `game` under `policy`."""

    def __init__(self, ruleset: Ruleset, game: Game, game_map: GameMap | None, target: Square,
                 policy: Policy) -> None:
        self.ruleset = ruleset
        self.map = game_map
        self.target = target
        self.policy = policy
        self.besm = ruleset.name == "besm"
        self.shortcut_list: tuple[Shortcut, ...] = (
            shortcuts(game_map) if self.besm and game_map is not None else ())
        self._nodes: dict[str, Node] = {}
        # Paths and step checks depend on where the party stands, whether it flies and which
        # squares are open; never on the dice: kept across nodes and trials.
        self._routes: dict[tuple[Square, bool, frozenset[Square]], tuple[Square, ...]] = {}
        self._legal: dict[tuple[bool, frozenset[Square]], dict[Square, bool]] = {}
        self.root = self._node(copied(game))
        self.first_day = game.day.number if game.day.open else game.day.number + 1

    # -- states and decisions ------------------------------------------------------------

    def _node(self, game: Game) -> Node:
        key = game.model_dump_json()
        found = self._nodes.get(key)
        if found is None:
            found = self._nodes[key] = Node(game, key)
        return found

    def situation(self, game: Game) -> Situation:
        return Situation(game=game, map=self.map, ruleset=self.ruleset.name)

    def decide(self, game: Game, action: Action, dice: _DrawnDice) -> Decision:
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
        if kind == "march":
            return rules.decide(ForcedMarch(), situation, dice)
        if kind == "night":
            return rules.decide(TravelByNight(), situation, dice)
        if kind == "forage":
            return rules.decide(Forage(), situation, dice)
        if kind == "shortcut":
            return rules.decide(TakeShortcut(name=action[1]), situation, dice)
        raise ValueError(f"no such action {kind!r}")

    def _outcome(self, node: Node, action: Action, dice: _DrawnDice
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
            dice = _DrawnDice(draw)
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
                                                              _DrawnDice(draw, totals))
            outcome = known
        trial.rolled += len(totals)
        if isinstance(outcome, Refused):
            return None
        if trial.steps is not None:
            event, after = outcome
            trial.steps.append(Step(day, action, event, dict(zip(edge.labels, totals,
                                                                 strict=True)), after.game))
        return outcome

    # -- the party's policy --------------------------------------------------------------

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
        node = (self._besm_day(node, draw, trial, day, passed) if self.besm
                else self._cypher_day(node, draw, trial, day, passed))
        ended = self.take(node, ("end",), draw, trial, day)
        return node if ended is None else ended[1]

    def _arrive(self, node: Node, trial: Trial, day: int, event: Decision,
                passed: bool) -> bool:
        if passed:
            trial.passed.update(event.route_path())
        if node.game.position == self.target:
            trial.arrived_day = day
            trial.on_arrival = node.game
            return True
        return False

    def _cypher_day(self, node: Node, draw: Draw, trial: Trial, day: int,
                    passed: bool) -> Node:
        if Fraction(journey(node.game).spent) >= 1:
            return node
        moved = self.take(node, ("move", self.target), draw, trial, day)
        if moved is None:
            return node
        self._arrive(moved[1], trial, day, moved[0], passed)
        return moved[1]

    def daily_need(self, game: Game) -> int:
        """Provisions the party spends in a day: the house rule's upkeep, and one a mount for
        each forced march the policy makes."""
        mounts = sum(1 for c in travelling_conveyances(game) if c.kind is ConveyanceKind.MOUNT)
        return rules_of(game).upkeep_provisions + self.policy.forced_march * mounts

    def _besm_day(self, node: Node, draw: Draw, trial: Trial, day: int, passed: bool) -> Node:
        policy = self.policy
        if node.game.position == self.target:
            return node
        if policy.forage and _memo(node, "forage", self._short_of_provisions):
            node = self._then(node, ("forage",), draw, trial, day)
        for _ in range(policy.forced_march):
            marched = self.take(node, ("march",), draw, trial, day)
            if marched is None:
                break
            node = marched[1]
        if policy.night:
            node = self._then(node, ("night",), draw, trial, day)
        while True:
            if policy.shortcuts:
                for attempt in _memo(node, "shortcuts", self._shortcut_actions):
                    node = self._then(node, attempt, draw, trial, day)
            action = _memo(node, "move", self._move_action)
            if action is None:
                return node
            moved = self.take(node, action, draw, trial, day)
            if moved is None:
                return node
            event, node = moved
            if self._arrive(node, trial, day, event, passed):
                return node

    def _short_of_provisions(self, node: Node) -> bool:
        return node.game.supplies["provisions"] < self.daily_need(node.game)

    def _shortcut_actions(self, node: Node) -> list[Action]:
        return [("shortcut", s.name) for s in self._reachable_shortcuts(node.game)]

    def _move_action(self, node: Node) -> Action | None:
        """Today's next move: as far along the planned path as today's budget goes (stopping
        where a shortcut not yet tried can be tried), or None when there is none."""
        left = remaining(node.game)
        if left <= 0:
            return None
        route = self.route(node)
        if not route:
            return None
        stop = min(left, len(route) - 1)
        if self.policy.shortcuts:
            stop = min(stop, self._shortcut_stop(node.game, route))
        # The steps of the cheapest path as far as it goes today: where `move --to` that
        # square goes, at its cost, without the rule searching for the path again.
        return ("move", tuple(_STEP[(b.x - a.x, b.y - a.y)]
                              for a, b in itertools.pairwise(route[:stop + 1])))

    def _then(self, node: Node, action: Action, draw: Draw, trial: Trial, day: int) -> Node:
        """The node after `action`, or `node` itself when the ruleset refuses it."""
        taken = self.take(node, action, draw, trial, day)
        return node if taken is None else taken[1]

    def _untried(self, game: Game) -> list[Shortcut]:
        tried = today(game).shortcuts_tried if game.day.open else []
        return [s for s in self.shortcut_list if s.name not in tried]

    def _reachable_shortcuts(self, game: Game) -> list[Shortcut]:
        return [s for s in self._untried(game) if game.position.is_adjacent_or_same(s.path[0])]

    def _shortcut_stop(self, game: Game, route: tuple[Square, ...]) -> int:
        """The first square along `route` where an untried shortcut can be tried."""
        untried = self._untried(game)
        for index, square in enumerate(route[1:], start=1):
            if any(square.is_adjacent_or_same(s.path[0]) for s in untried):
                return index
        return len(route) - 1

    def route(self, node: Node) -> tuple[Square, ...]:
        """The cheapest path from `node` to the target, whatever today's budget (the squares a
        shortcut not yet tried today would open count as open when the policy tries them)."""
        if node.route is None:
            node.route = self._route(node.game) if self.besm else ()
        return node.route

    def _route(self, game: Game) -> tuple[Square, ...]:
        flying = group_flies(game)
        opened = set(today(game).opened) if game.day.open else set()
        if self.policy.shortcuts:
            for shortcut in self._untried(game):
                opened.update(shortcut.path)
        key = (game.position, flying, frozenset(opened))
        found = self._routes.get(key)
        if found is None:
            found = self._routes[key] = self._search(game, flying, key[2])
        return found

    def _search(self, game: Game, flying: bool, opened: frozenset[Square]
                ) -> tuple[Square, ...]:
        """The ruleset's step check asked once a square (it looks only at the square
        entered), then the shared cheapest-path search over the answers."""
        if self.map is None:
            # An open, edgeless plain refuses no step: the diagonal, then the straight line,
            # is a shortest way (a search would have to bound the plain first). Its first
            # squares are enough: a day that goes further takes the next ones from there.
            path, here = [game.position], game.position
            while here != self.target and len(path) <= PLAIN_STEPS:
                here = Square(here.x + (self.target.x > here.x) - (self.target.x < here.x),
                              here.y + (self.target.y > here.y) - (self.target.y < here.y))
                path.append(here)
            return tuple(path)
        legal = self._legal.get((flying, opened))
        if legal is None:
            legal = self._legal[(flying, opened)] = {}
        situation = self.situation(game)

        def step_cost(_here: Square, there: Square) -> int | None:
            allowed = legal.get(there)
            if allowed is None:
                allowed = legal[there] = step_refusal(situation, there, False, flying,
                                                      opened) is None
            return 1 if allowed else None

        found = pathfinding.cheapest_path(SQUARES, game.position, self.target, step_cost)
        return tuple(found[0]) if found is not None else ()


def _memo(node: Node, key: str, work: Callable[[Node], Any]) -> Any:
    """What `work` makes of `node`, worked out once per node."""
    memo = node.memo
    if key in memo:
        return memo[key]
    value = memo[key] = work(node)
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
    # A certain Cypher arrival: the day, the part of it spent when the party arrived, and the
    # days the journey takes from where the plan starts.
    exact: tuple[int, Fraction, Fraction] | None = None


def check_plan_request(ruleset: str, game: Game, game_map: GameMap | None, target: Square,
                       policy: Policy, trials: int, days: int) -> None:
    """Refuse a plan that cannot be made, with the reason."""
    if ruleset not in PLANNED:
        raise RuleViolation(f"the {ruleset} ruleset has no overland travel to plan; "
                            "`trek plan` plays besm and cypher journeys")
    if not 1 <= trials <= MAX_TRIALS:
        raise RuleViolation(f"--trials is 1 to {MAX_TRIALS}, not {trials}")
    if not 1 <= days <= MAX_DAYS:
        raise RuleViolation(f"--days is 1 to {MAX_DAYS}, not {days}")
    if not 0 <= policy.forced_march <= MAX_FORCED_MARCHES:
        raise RuleViolation(f"--forced-march is 0 to {MAX_FORCED_MARCHES} a day, "
                            f"not {policy.forced_march}")
    if ruleset == "cypher" and policy.rolls:
        raise RuleViolation("Cypher long-term travel has no forced marches, night travel, "
                            "shortcuts or foraging; plan it without those options")
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
    check_plan_request(ruleset.name, game, game_map, target, policy, trials, days)
    planner = Planner(ruleset, game, game_map, target, policy)
    _check_reachable(planner)
    _check_policy(planner)
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


def _check_reachable(planner: Planner) -> None:
    target = planner.target
    game = planner.root.game
    if planner.besm:
        if planner.route(planner.root):
            return
        what = " even by its shortcuts" if planner.policy.shortcuts and planner.shortcut_list \
            else ""
        raise RuleViolation(f"no legal path reaches {target.x},{target.y}{what} "
                            "(features are crossed only flying or by a shortcut, hazards "
                            "are avoided)")
    from domain.cypher.rules import cheapest_route

    if cheapest_route(planner.situation(game), target) is None:
        raise RuleViolation(f"no passable route reaches {target.x},{target.y}")


def _check_policy(planner: Planner) -> None:
    """A policy the party cannot follow at all (no mount to march, nobody to navigate) is
    refused with the ruleset's own reason, rather than planned as if it were not asked."""
    game = planner.root.game.model_copy(deep=True)
    # On a fresh day (today may be spent already, on a repair, say: that is part of the
    # journey), supplies aside (running out of them is too).
    game.day.open = True
    game.travel = {"budget": base_movement(game)}
    game.supplies = {kind: 10**6 for kind in game.supplies}
    checks = [("march", "--forced-march", planner.policy.forced_march > 0),
              ("night", "--night", planner.policy.night)]
    for kind, option, wanted in checks:
        if not wanted:
            continue
        try:
            planner.decide(game, (kind,), _DrawnDice(lambda: 7))
        except TrackerError as error:
            raise RuleViolation(f"{option} cannot be followed: {error}") from None


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
    exact = None
    if certain and not planner.besm:
        arrived = results[0]
        if arrived.on_arrival is not None and arrived.arrived_day is not None:
            spent = Fraction(journey(arrived.on_arrival).spent)
            begun = Fraction(journey(start).spent) if start.day.open else Fraction(0)
            exact = (arrived.arrived_day, spent, arrived.arrived_day - first + spent - begun)
    return Outcome(trials=count, certain=certain, first_day=first, days=shares,
                   most_likely=most_likely, supplies=supplies, losses=losses, passed=passed,
                   exact=exact)

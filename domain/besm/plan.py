"""BESM journeys played forward by `trek plan` (RULES §3): each day the party forages when
short of provisions, makes its forced marches, travels by night, tries the shortcuts its path
reaches, and walks the cheapest legal path as far as the day's movement goes, as the policy
says. Every decision is the ruleset's own (`Besm.decide`, `move`); this module only chooses.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from domain import pathfinding
from domain.besm.commands import Forage, ForcedMarch, TakeShortcut, TravelByNight
from domain.besm.maps import Shortcut, shortcuts
from domain.besm.rules import base_movement, group_flies, step_refusal, travelling_conveyances
from domain.besm.state import remaining, rules_of, today
from domain.errors import RuleViolation, TrackerError
from domain.geometry import DIRECTIONS, Square
from domain.grid import SQUARES
from domain.plan import Action, Draw, DrawnDice, Node, Planner, Trial, memo
from domain.ruleset import Decision, Situation
from domain.state import ConveyanceKind, Game

MAX_FORCED_MARCHES = 20
# How much of the way across a map-less plain is worked out at a time.
PLAIN_STEPS = 64

_STEP = {offset: name for name, offset in DIRECTIONS.items()}


@dataclass(frozen=True)
class Policy:
    """What the party tries each day; each part off unless given."""

    forced_march: int = 0
    night: bool = False
    shortcuts: bool = False
    forage: bool = False

    @classmethod
    def of(cls, choices: Mapping[str, Any]) -> Policy:
        """The policy `trek plan`'s options give (an option not given is off)."""
        return cls(forced_march=int(choices.get("forced_march") or 0),
                   night=bool(choices.get("night")), shortcuts=bool(choices.get("shortcuts")),
                   forage=bool(choices.get("forage")))


class BesmPlanRules:
    """How `trek plan` plays a BESM journey."""

    def check_policy(self, policy: Mapping[str, Any]) -> None:
        marches = Policy.of(policy).forced_march
        if not 0 <= marches <= MAX_FORCED_MARCHES:
            raise RuleViolation(f"--forced-march is 0 to {MAX_FORCED_MARCHES} a day, "
                                f"not {marches}")

    def day_player(self, planner: Planner) -> BesmDays:
        return BesmDays(planner)


class BesmDays:
    """A BESM party's days on one planned journey."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner
        self.policy = Policy.of(planner.policy)
        self.shortcut_list: tuple[Shortcut, ...] = (
            shortcuts(planner.map) if planner.map is not None else ())
        # Paths and step checks depend on where the party stands, whether it flies and which
        # squares are open; never on the dice: kept across nodes and trials.
        self._routes: dict[tuple[Square, bool, frozenset[Square]], tuple[Square, ...]] = {}
        self._legal: dict[tuple[bool, frozenset[Square]], dict[Square, bool]] = {}

    def decide(self, action: Action, situation: Situation, dice: DrawnDice) -> Decision:
        rules = self.planner.ruleset
        kind = action[0]
        if kind == "march":
            return rules.decide(ForcedMarch(), situation, dice)
        if kind == "night":
            return rules.decide(TravelByNight(), situation, dice)
        if kind == "forage":
            return rules.decide(Forage(), situation, dice)
        if kind == "shortcut":
            return rules.decide(TakeShortcut(name=action[1]), situation, dice)
        raise ValueError(f"no such action {kind!r}")

    def exact(self, start: Game, trial: Trial, first_day: int
              ) -> tuple[int, Fraction, Fraction] | None:
        return None  # BESM travels in whole squares a day

    # -- a day -----------------------------------------------------------------------------

    def day(self, node: Node, draw: Draw, trial: Trial, day: int, passed: bool) -> Node:
        planner, policy = self.planner, self.policy
        if node.game.position == planner.target:
            return node
        if policy.forage and memo(node, "forage", self._short_of_provisions):
            node = planner.then(node, ("forage",), draw, trial, day)
        for _ in range(policy.forced_march):
            marched = planner.take(node, ("march",), draw, trial, day)
            if marched is None:
                break
            node = marched[1]
        if policy.night:
            node = planner.then(node, ("night",), draw, trial, day)
        while True:
            if policy.shortcuts:
                for attempt in memo(node, "shortcuts", self._shortcut_actions):
                    node = planner.then(node, attempt, draw, trial, day)
            action = memo(node, "move", self._move_action)
            if action is None:
                return node
            moved = planner.take(node, action, draw, trial, day)
            if moved is None:
                return node
            event, node = moved
            if planner.arrive(node, trial, day, event, passed):
                return node

    def daily_need(self, game: Game) -> int:
        """Provisions the party spends in a day: the house rule's upkeep, and one a mount for
        each forced march the policy makes."""
        mounts = sum(1 for c in travelling_conveyances(game) if c.kind is ConveyanceKind.MOUNT)
        return rules_of(game).upkeep_provisions + self.policy.forced_march * mounts

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

    # -- the path ----------------------------------------------------------------------------

    def route(self, node: Node) -> tuple[Square, ...]:
        """The cheapest path from `node` to the target, whatever today's budget (the squares a
        shortcut not yet tried today would open count as open when the policy tries them)."""
        if node.route is None:
            node.route = self._route(node.game)
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
        target = self.planner.target
        if self.planner.map is None:
            # An open, edgeless plain refuses no step: the diagonal, then the straight line,
            # is a shortest way (a search would have to bound the plain first). Its first
            # squares are enough: a day that goes further takes the next ones from there.
            path, here = [game.position], game.position
            while here != target and len(path) <= PLAIN_STEPS:
                here = Square(here.x + (target.x > here.x) - (target.x < here.x),
                              here.y + (target.y > here.y) - (target.y < here.y))
                path.append(here)
            return tuple(path)
        legal = self._legal.get((flying, opened))
        if legal is None:
            legal = self._legal[(flying, opened)] = {}
        situation = self.planner.situation(game)

        def step_cost(_here: Square, there: Square) -> int | None:
            allowed = legal.get(there)
            if allowed is None:
                allowed = legal[there] = step_refusal(situation, there, False, flying,
                                                      opened) is None
            return 1 if allowed else None

        found = pathfinding.cheapest_path(SQUARES, game.position, target, step_cost)
        return tuple(found[0]) if found is not None else ()

    # -- before the first trial ----------------------------------------------------------------

    def check(self) -> None:
        self._check_reachable()
        self._check_policy()

    def _check_reachable(self) -> None:
        target = self.planner.target
        if self.route(self.planner.root):
            return
        what = " even by its shortcuts" if self.policy.shortcuts and self.shortcut_list else ""
        raise RuleViolation(f"no legal path reaches {target.x},{target.y}{what} "
                            "(features are crossed only flying or by a shortcut, hazards "
                            "are avoided)")

    def _check_policy(self) -> None:
        """A policy the party cannot follow at all (no mount to march, nobody to navigate) is
        refused with the ruleset's own reason, rather than planned as if it were not asked."""
        game = self.planner.root.game.model_copy(deep=True)
        # On a fresh day (today may be spent already, on a repair, say: that is part of the
        # journey), supplies aside (running out of them is too).
        game.day.open = True
        game.travel = {"budget": base_movement(game)}
        game.supplies = {kind: 10**6 for kind in game.supplies}
        checks = [("march", "--forced-march", self.policy.forced_march > 0),
                  ("night", "--night", self.policy.night)]
        for kind, option, wanted in checks:
            if not wanted:
                continue
            try:
                self.planner.decide(game, (kind,), DrawnDice(lambda: 7))
            except TrackerError as error:
                raise RuleViolation(f"{option} cannot be followed: {error}") from None

"""Cypher long-term travel played forward by `trek plan` (RULES §5): each day the party goes on
toward the target along the quickest route until the day is spent. Nothing rolls, so a plan is
certain, and its arrival is exact to the fraction of a day.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from domain.cypher.rules import cheapest_route
from domain.cypher.state import journey
from domain.errors import RuleViolation
from domain.plan import Action, Draw, DrawnDice, Node, Planner, Trial
from domain.ruleset import Decision, Situation
from domain.state import Game


class CypherPlanRules:
    """How `trek plan` plays a Cypher journey."""

    def check_policy(self, policy: Mapping[str, Any]) -> None:
        if any(policy.values()):
            raise RuleViolation("Cypher long-term travel has no forced marches, night travel, "
                                "shortcuts or foraging; plan it without those options")

    def day_player(self, planner: Planner) -> CypherDays:
        return CypherDays(planner)


class CypherDays:
    """A Cypher party's days on one planned journey: on toward the target."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner

    def decide(self, action: Action, situation: Situation, dice: DrawnDice) -> Decision:
        raise ValueError(f"no such action {action[0]!r}")

    def day(self, node: Node, draw: Draw, trial: Trial, day: int, passed: bool) -> Node:
        planner = self.planner
        if Fraction(journey(node.game).spent) >= 1:
            return node
        moved = planner.take(node, ("move", planner.target), draw, trial, day)
        if moved is None:
            return node
        planner.arrive(moved[1], trial, day, moved[0], passed)
        return moved[1]

    def check(self) -> None:
        target = self.planner.target
        if cheapest_route(self.planner.situation(self.planner.root.game), target) is None:
            raise RuleViolation(f"no passable route reaches {target.x},{target.y}")

    def exact(self, start: Game, trial: Trial, first_day: int
              ) -> tuple[int, Fraction, Fraction] | None:
        if trial.on_arrival is None or trial.arrived_day is None:
            return None
        spent = Fraction(journey(trial.on_arrival).spent)
        begun = Fraction(journey(start).spent) if start.day.open else Fraction(0)
        return (trial.arrived_day, spent, trial.arrived_day - first_day + spent - begun)

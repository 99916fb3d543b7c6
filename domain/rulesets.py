"""The rulesets a campaign can be played under, by name."""

from __future__ import annotations

from domain.besm import Besm
from domain.cypher import Cypher
from domain.errors import RuleViolation
from domain.ruleset import Ruleset

RULESETS: dict[str, Ruleset] = {"besm": Besm(), "cypher": Cypher()}


def ruleset_named(name: str) -> Ruleset:
    try:
        return RULESETS[name]
    except KeyError:
        raise RuleViolation(f"{name!r} is not a ruleset; use {', '.join(RULESETS)}") from None

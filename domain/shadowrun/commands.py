"""The encounter commands only Shadowrun offers: the next Initiative Pass, a sprint test and a
free attack that stopped a mover."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from pydantic import AfterValidator

from domain.errors import RuleViolation
from domain.geometry import Square
from domain.ruleset import Command
from domain.shadowrun import DEFAULT_SPRINT_TN as DEFAULT_SPRINT_TN
from domain.shadowrun import SPRINT_ROLL as SPRINT_ROLL

MIN_TN, MAX_TN = 2, 30
# The successes a GM may give for a sprint (Athletics dice, Combat Pool dice added).
MAX_SUCCESSES = 30


def _target_number(tn: int) -> int:
    if not MIN_TN <= tn <= MAX_TN:
        raise RuleViolation(f"--tn must be {MIN_TN} to {MAX_TN}, not {tn}")
    return tn


def _successes(successes: int) -> int:
    if not 0 <= successes <= MAX_SUCCESSES:
        raise RuleViolation(f"--roll is the number of successes: 0 to {MAX_SUCCESSES}, "
                            f"not {successes}")
    return successes


@dataclass(frozen=True)
class NextPass(Command):
    """`encounter pass`: the Combat Turn moves on to its next Initiative Pass."""

    what: ClassVar[str] = "encounter pass"


@dataclass(frozen=True)
class Sprint(Command):
    """`encounter sprint NAME [--tn N] [--roll S]`: an Athletics (Running) test; `successes`
    is what the GM counted on the dice (None: the tracker rolls them)."""

    what: ClassVar[str] = "encounter sprint"

    name: str
    tn: Annotated[int, AfterValidator(_target_number)] = DEFAULT_SPRINT_TN
    successes: Annotated[int, AfterValidator(_successes)] | None = None


@dataclass(frozen=True)
class Intercept(Command):
    """`encounter intercept NAME --by ENEMY --at X,Y`: a free attack hurt the mover, who stops
    at X,Y and moves no more this turn."""

    what: ClassVar[str] = "encounter intercept"

    name: str
    by: str
    at: Square


COMMANDS: frozenset[type[Command]] = frozenset({NextPass, Sprint, Intercept})

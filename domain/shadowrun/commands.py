"""The encounter commands only Shadowrun offers: the next Initiative Pass, a sprint test and a
free attack that stopped a mover."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.geometry import Square
from domain.ruleset import Command
from domain.shadowrun import DEFAULT_SPRINT_TN as DEFAULT_SPRINT_TN

# The label a sprint's dice are rolled (and recorded) under.
SPRINT_ROLL = "athletics (running)"


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
    tn: int = DEFAULT_SPRINT_TN
    successes: int | None = None


@dataclass(frozen=True)
class Intercept(Command):
    """`encounter intercept NAME --by ENEMY --at X,Y`: a free attack hurt the mover, who stops
    at X,Y and moves no more this turn."""

    what: ClassVar[str] = "encounter intercept"

    name: str
    by: str
    at: Square


COMMANDS: frozenset[type[Command]] = frozenset({NextPass, Sprint, Intercept})

"""The encounter commands only the Move-Point system offers (besides the shared `Act`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.commands.rounds import Act
from domain.ruleset import Command


@dataclass(frozen=True)
class Step(Command):
    """`encounter step NAME DIR`: one tile for the free Move Point, provoking nothing."""

    what: ClassVar[str] = "encounter step"

    name: str
    direction: str


@dataclass(frozen=True)
class SetCondition(Command):
    """`encounter condition NAME stunned|immobile|clear`."""

    what: ClassVar[str] = "encounter condition"

    name: str
    condition: str


COMMANDS: frozenset[type[Command]] = frozenset({Act, Step, SetCondition})

"""The encounter command only GURPS offers: a fighter's posture. It loads when a campaign is
first asked whether it offers one (`Gurps.commands`), so a move loads none of it."""

from dataclasses import dataclass
from typing import ClassVar

from domain.ruleset import Command


@dataclass(frozen=True)
class ChangePosture(Command):
    """`encounter posture NAME POSTURE`."""

    what: ClassVar[str] = "encounter posture"

    name: str
    posture: str


COMMANDS: frozenset[type[Command]] = frozenset({ChangePosture})

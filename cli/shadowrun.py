"""The command line of Shadowrun encounters: Quickness and metatype, Initiative Passes, walking
and running, the next pass, sprints and interceptions. Mounted on `trek` from the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cli.context import record
from cli.options import SquareType, TrekCommand, recording_options
from cli.ruler import Band, Ruler
from cli.ruleset_line import CommandLine
from cli.shadowrun_lines import SUMMARIES
from domain.shadowrun import DEFAULT_SPRINT_TN

if TYPE_CHECKING:
    from domain.geometry import Square


@click.command(cls=TrekCommand, name="pass")
@recording_options
def next_pass() -> None:
    """Shadowrun: move on to the Combat Turn's next Initiative Pass."""
    from domain.shadowrun.commands import NextPass

    record(NextPass())


@click.command(cls=TrekCommand, name="sprint")
@click.argument("name")
@click.option("--tn", type=int, default=DEFAULT_SPRINT_TN, show_default=True,
              help="The target number of the Athletics (Running) test.")
@click.option("--roll", type=int,
              help="The successes the GM counted (default: roll Athletics d6 and count).")
@recording_options
def sprint(name: str, tn: int, roll: int | None) -> None:
    """Shadowrun: an Athletics (Running) test; each success adds 1 to Quickness next pass."""
    from domain.shadowrun.commands import Sprint

    record(Sprint(name=name, tn=tn, successes=roll))


@click.command(cls=TrekCommand, name="intercept")
@click.argument("name")
@click.option("--by", required=True, help="The opponent whose free attack hurt NAME.")
@click.option("--at", "at", type=SquareType(), required=True,
              help="The cell X,Y of NAME's latest move where it was stopped.")
@recording_options
def intercept(name: str, by: str, at: Square) -> None:
    """Shadowrun: a free attack hurt NAME passing ENEMY; it stops at X,Y for this turn."""
    from domain.shadowrun.commands import Intercept

    record(Intercept(name=name, by=by, at=at))


ENCOUNTER_COMMANDS = [next_pass, sprint, intercept]


def _ruler_notes(event: dict[str, Any]) -> list[str]:
    notes = [f"TN +{event.get('tn_modifier', 0)}"]
    if event.get("free_attacks"):
        notes.append("free attack for " + ", ".join(event["free_attacks"]))
    return notes


# The fight ruler: walking, else running; what is left is left of this pass.
RULER = Ruler(bands=(Band("walk", ("--walk",)), Band("run", ("--run",))), unit=("m", "m"),
              period="this pass", notes=_ruler_notes)


def token_marks(combatant: dict[str, Any]) -> list[str]:
    """What a token on the battle map wears besides its label."""
    marks = ["intercepted"] if combatant.get("intercepted") else []
    if combatant.get("quickness_bonus"):
        marks.append(f"sprint +{combatant['quickness_bonus']}")
    return marks


# Everything this ruleset adds to the command line, the pictures and the pages.
COMMAND_LINE = CommandLine(
    title="Shadowrun",
    encounter_commands=ENCOUNTER_COMMANDS,
    phase_word="pass",
    stop_word="intercepted",
    summaries=SUMMARIES,
    status_overland=False,
    token_marks=token_marks,
    ruler=RULER,
)

"""The command line of Shadowrun encounters: Quickness and metatype, Initiative Passes, walking
and running, the next pass, sprints and interceptions. Mounted on `trek` from the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cli.context import record
from cli.options import SquareType, TrekCommand, recording_options
from cli.render import square_text
from cli.ruler import Band, Ruler
from cli.ruleset_line import CommandLine
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


def _moved(d: dict[str, Any]) -> str:
    path = d["path"]
    attacks = d.get("free_attacks") or []
    free = f"; free attack{'s' if len(attacks) > 1 else ''}: {', '.join(attacks)}" \
        if attacks else ""
    return (f"{d['name']} {'runs' if d['gait'] == 'run' else 'walks'} {square_text(path[0])} "
            f"→ {square_text(path[-1])} ({d['cost']} m, TN +{d['tn_modifier']}{free})")


def _sprinted(d: dict[str, Any]) -> str:
    lost = " (lost: the turn's last pass)" if d.get("bonus_lost") else " next pass"
    dice = d.get("dice")
    faces = (f"dice {' '.join(map(str, dice))}" if dice else "counted by the GM")
    return (f"{d['name']} sprints: {d['successes']} success(es) ({faces}, TN {d['target']}), "
            f"Quickness +{d['successes']}{lost}")


SUMMARIES = {
    "MovedInPass": _moved,
    "PassStarted": lambda d: f"Initiative Pass {d['number']} begins",
    "Sprinted": _sprinted,
    "Intercepted": lambda d: f"{d['name']} is intercepted by {d['by']} at "
                             f"{square_text(d['at'])} and moves no more this turn",
}


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

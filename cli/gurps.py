"""The command line of GURPS hex movement: the character stat options, the `encounter move`
options (swim, fly, end facing, step) and `encounter posture`. Mounted on `trek` from the
ruleset registry."""

from __future__ import annotations

from typing import Any

import click

from cli.context import record
from cli.gurps_lines import SUMMARIES
from cli.options import TrekCommand, recording_options
from cli.ruler import Band, Ruler
from cli.ruleset_line import CommandLine
from domain.gurps import POSTURES


@click.command(cls=TrekCommand, name="posture")
@click.argument("name")
@click.argument("posture", metavar="|".join(POSTURES).upper())
@recording_options
def posture(name: str, posture: str) -> None:
    """GURPS: change a fighter's posture (standing, crouching, kneeling, crawling, lying,
    sitting); no MP cost here."""
    from domain.gurps.commands import ChangePosture

    record(ChangePosture(name=name, posture=posture))


ENCOUNTER_COMMANDS = [posture]


def _ruler_notes(event: dict[str, Any]) -> list[str]:
    notes = ["the turn's move"] if event.get("step") else []
    if event.get("single"):
        notes.append("one hex, whatever it costs")
    if event.get("facing"):
        notes.append(f"facing {event['facing']}")
    return notes


# The fight ruler: a Move within the turn's MP, else a step of the other maneuvers; hexes
# take directions, not `--to`, so the straight line's steps are given.
RULER = Ruler(bands=(Band("within Move"), Band("step", ("--step",))), unit=("MP", "MP"),
              budget=lambda event: None if event["step"] else event["mp"], leaves=False,
              takes_to=False, refusal_from=0, notes=_ruler_notes)


def token_marks(combatant: dict[str, Any]) -> list[str]:
    """What a token on the battle map wears besides its label: a posture but standing."""
    posture = combatant.get("posture")
    return [str(posture)] if posture and posture != "standing" else []


# Everything this ruleset adds to the command line, the pictures and the pages.
COMMAND_LINE = CommandLine(
    title="GURPS",
    encounter_commands=ENCOUNTER_COMMANDS,
    summaries=SUMMARIES,
    status_overland=False,
    token_marks=token_marks,
    ruler=RULER,
)

"""The command line of Cypher rounds and chases: the kinds of move and their Speed task, the
zero-gravity push and chases. Mounted on `trek encounter` from the ruleset registry."""

from __future__ import annotations

from typing import Any

import click

from cli.context import record
from cli.cypher_lines import SUMMARIES
from cli.cypher_options import D20, D20_HELP, STEPS
from cli.drawing import MarkStyle
from cli.options import TrekCommand, recording_options
from cli.render import square_text
from cli.ruler import Band, Ruler
from cli.ruleset_line import CommandLine

ROUTE_MARKS = {
    "under-way": MarkStyle("~", "#00838f", "under way, a square not yet reached"),
    "turned-aside": MarkStyle("T", "#00838f", "a way under way given up"),
}


@click.command(cls=TrekCommand, name="push")
@click.argument("name")
@click.argument("direction")
@click.option("--feet", type=int, required=True, help="How far the push should carry, in feet.")
@click.option("--roll", type=D20, help=D20_HELP)
@recording_options
def push(name: str, direction: str, feet: int, roll: int | None) -> None:
    """Cypher: push off a wall in zero gravity toward DIR (a Might task of feet ÷ 4)."""
    from domain.cypher.combat import Push

    record(Push(name=name, direction=direction, feet=feet, roll=roll))


@click.command(cls=TrekCommand, name="chase")
@click.argument("name")
@click.option("--level", type=int, required=True, help="The level of the NPC chased or chasing.")
@click.option("--ease", type=STEPS, default=0, help="Steps the Speed task is eased.")
@click.option("--hinder", type=STEPS, default=0, help="Steps the Speed task is hindered.")
@click.option("--roll", type=D20, help=D20_HELP)
@click.option("--role", type=click.Choice(["chaser", "quarry"]), default="chaser",
              show_default=True, help="Whether NAME chases or is chased.")
@click.option("--extended", is_flag=True, default=False,
              help="Start a long chase played roll by roll with `encounter chase-roll`.")
@recording_options
def chase(name: str, level: int, ease: int, hinder: int, roll: int | None, role: str,
          extended: bool) -> None:
    """Cypher: a chase, one Speed task of the NPC's level (or --extended, many)."""
    from domain.cypher.combat import StartChase

    command = StartChase(name=name, level=level, ease=ease, hinder=hinder, roll=roll, role=role,
                         extended=extended)
    record(command)


@click.command(cls=TrekCommand, name="chase-roll")
@click.argument("name")
@click.option("--ease", type=STEPS, default=0, help="Steps the Speed task is eased.")
@click.option("--hinder", type=STEPS, default=0, help="Steps the Speed task is hindered.")
@click.option("--roll", type=D20, help=D20_HELP)
@recording_options
def chase_roll(name: str, ease: int, hinder: int, roll: int | None) -> None:
    """Cypher: one roll of an extended chase."""
    from domain.cypher.combat import RollChase

    record(RollChase(name=name, ease=ease, hinder=hinder, roll=roll))


ENCOUNTER_COMMANDS = [push, chase, chase_roll]


# -- status --------------------------------------------------------------------------------------

# A square being paid for over more than one day.
STATUS_MOVEMENT = {
    "in_transit": lambda transit: f"in transit to {square_text(transit['to'])}" if transit else "",
}
# Long-term travel counts miles a day: a vehicle's own, and a mount doubles its rider's. A
# Cypher character keeps no Health or Energy here (its pools are not travel's business), and
# a conveyance no level or strain.
STATUS_CONVEYANCE_COLUMNS = [
    ("move", lambda c: f"{c['miles']} mi/day" if c.get("miles") is not None
     else "rider's miles ×2"),
]


def _ruler_notes(event: dict[str, Any]) -> list[str]:
    if not event.get("difficulty"):
        return ["no roll"]
    outcome = "succeeds" if event.get("success") else "fails"
    return [f"Speed task {event['difficulty']}: roll {event.get('roll')} {outcome}"]


def _reach(event: dict[str, Any]) -> int | None:
    from domain.cypher.combat import KINDS

    kind = KINDS.get(event["action"])
    return kind[0] if kind else None


# The fight ruler: the nearest kind of move that reaches (immediate 10 ft, short 50, long 100).
RULER = Ruler(bands=(Band("immediate", ("--immediate",)), Band("short", ("--short",)),
                     Band("long", ("--long",))), unit=("ft", "ft"),
              budget=_reach, leaves=False,
              notes=_ruler_notes)


def token_marks(combatant: dict[str, Any]) -> list[str]:
    """What a token on the battle map wears besides its label."""
    return ["drifting"] if combatant.get("drifting") else []


# Everything this ruleset adds to the command line, the pictures and the pages.
COMMAND_LINE = CommandLine(
    title="Cypher",
    encounter_commands=ENCOUNTER_COMMANDS,
    route_marks=ROUTE_MARKS,
    summaries=SUMMARIES,
    status_movement=STATUS_MOVEMENT,
    status_conveyance_columns=STATUS_CONVEYANCE_COLUMNS,
    vehicle_move="miles=N, its miles a day",
    token_marks=token_marks,
    ruler=RULER,
)

"""The commands a GM records most at the table: `move`, `day start` and `day end`, `supplies`,
`undo` and `redo`. They are kept apart from Trek's other commands (cli/commands.py), so that
recording one loads none of those: the main group finds each by name (cli/main.py's
`LAZY_COMMANDS`). None is changed by a ruleset but `day end`, whose `--rest` takes every
ruleset's rest modes: `day_for` builds `day` with it made when first asked for."""

from __future__ import annotations

import copy
import inspect
import textwrap
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from cli.context import record, rulesets
from cli.options import (
    SEQ,
    KeyChoice,
    KeyValue,
    SquareType,
    TrekCommand,
    TrekSubgroup,
    Whole,
    extended,
    party_option,
    recording_options,
    regrouped,
)
from domain.compass import DIRECTIONS
from domain.supplies import SUPPLY_KINDS

if TYPE_CHECKING:
    from cli.bootstrap import Root
    from domain.geometry import Square


@click.command(cls=TrekCommand)
@click.argument("mode", type=click.Choice(["set", "add", "spend"]))
@click.argument("amounts", nargs=-1, required=True,
                type=KeyValue(noun="supply", example="provisions=2"))
@party_option
@recording_options
def supplies(mode: str, amounts: tuple[tuple[str, int], ...]) -> None:
    """Set, add or spend supplies: KIND=N... (provisions, fuel, ammo, wealth)."""
    from domain.commands.supplies import AddSupplies, SetSupplies, SpendSupplies

    values: dict[str, int] = {}
    for kind, amount in amounts:
        if kind not in SUPPLY_KINDS:
            raise click.BadParameter(f"{kind!r} is not a supply; use {', '.join(SUPPLY_KINDS)}",
                                     param_hint="KIND=N")
        values[kind] = amount
    kinds = {"set": SetSupplies, "add": AddSupplies, "spend": SpendSupplies}
    record(kinds[mode](values))


@click.group(cls=TrekSubgroup)
def day() -> None:
    """Open and close travel days."""


@day.command("start")
@party_option
@recording_options
def day_start() -> None:
    """Open the next day with a budget of the group's base movement."""
    from domain.commands.days import StartDay

    record(StartDay())


@day.command("end")
@click.option("--rest", "rests", multiple=True, type=KeyChoice((), noun="character"),
              help="How a character spends the night, CHAR=MODE")
@click.option("--hours", type=Whole(0, 24, what="the hours slept"),
              help="Hours slept (default 8; Energy is regained per hour).")
@party_option
@recording_options
def day_end(rests: tuple[tuple[str, str], ...], hours: int | None) -> None:
    """Close the day: the party rests, and the ruleset settles what the day cost."""
    from domain.commands.days import DayEndOptions, EndDay

    record(EndDay(DayEndOptions(rests=dict(rests), hours=hours)))


class Direction(click.Choice[str]):
    """A compass step in either case, refused with the eight directions rather than sixteen."""

    def __init__(self) -> None:
        super().__init__([*DIRECTIONS, *(d.lower() for d in DIRECTIONS)])

    def get_invalid_choice_message(self, value: Any, ctx: click.Context | None) -> str:
        *first, last = DIRECTIONS
        return (f"{value!r} is not a compass direction; give {', '.join(first)} or {last} "
                "(either case)")


@click.command(cls=TrekCommand)
@click.argument("directions", nargs=-1, type=Direction(), metavar="[N|NE|E|SE|S|SW|W|NW]...")
@click.option("--to", "to", type=SquareType(), help="Go to X,Y by the cheapest legal path.")
@click.option("--through-hazard", is_flag=True, help="Allow steps into hazards.")
@party_option
@recording_options
def move(directions: tuple[str, ...], to: Square | None, through_hazard: bool) -> None:
    """Move the party: compass steps (N NE E SE S SW W NW) or --to X,Y."""
    from domain.commands.travel import Move, MoveOptions

    if directions and to is not None:
        raise click.UsageError("give directions or --to X,Y, not both")
    if not directions and to is None:
        raise click.UsageError("give directions (N NE E SE S SW W NW) or --to X,Y")
    record(Move(MoveOptions(steps=tuple(d.upper() for d in directions), to=to,
                            through_hazard=through_hazard)))


# -- history ------------------------------------------------------------------------------------


def _kinds_listed() -> str:
    """The words `undo --last` takes, kept whole on their lines (click would break them at
    their hyphens)."""

    lines = textwrap.wrap(", ".join(rulesets().undo_kinds) + ".", 76, break_on_hyphens=False)
    return "\b\nKIND, for --last:\n" + "\n".join(f"  {line}" for line in lines)


class _KindsListed(TrekCommand):
    """`trek undo`, whose help ends with the words `--last` takes: read off the events of the
    command's rulesets, so worked out only when the help is shown (and kept on no command)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # As click writes an epilog.
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(inspect.cleandoc(_kinds_listed()))


# `trek undo -1` reads -1 as SEQ (refused in words), not as an unknown option.
@click.command(cls=_KindsListed, context_settings={"ignore_unknown_options": True})
@click.argument("seq", required=False, type=SEQ)
@click.option("--last", "kind", metavar="KIND",
              help="Instead of SEQ, the newest live event of this kind (listed below).")
@click.option("--cascade", is_flag=True, help="Also cancel later events that depend on it.")
@click.option("--reason", help="Why, for the audit.")
@recording_options
def undo(seq: int | None, kind: str | None, cascade: bool, reason: str | None) -> None:
    """Cancel event SEQ (default: the newest live event) by recording a reversal.

    `trek undo --last supplies` takes back the newest supplies change still standing, no seq
    looked up. The line printed says what was cancelled, as the log words it.
    """
    from domain.commands.history import Undo

    if seq is not None and kind is not None:
        raise click.UsageError("give SEQ or --last KIND, not both")
    record(Undo(seq, cascade=cascade, reason=reason, last=kind))


@click.command(cls=TrekCommand, context_settings={"ignore_unknown_options": True})
@click.argument("seq", type=SEQ)
@click.option("--reason", help="Why, for the audit.")
@recording_options
def redo(seq: int, reason: str | None) -> None:
    """Restore cancelled event SEQ (or everything reversal SEQ cancelled)."""
    from domain.commands.history import Redo

    record(Redo(seq, reason=reason))


# -- the day, built for a composition root -------------------------------------------------------


def day_for(root: Root) -> click.Command:
    """`day`, its `end` offering every ruleset's rest modes, built when first asked for."""
    def end() -> click.Command:
        rests = [(name, line.rest_modes) for name, line in root.lines() if line.rest_modes]
        return extended(day_end, changed={"rests": _rest_modes(rests)})
    return regrouped(day, later={"end": end})


def _rest_modes(rests: Sequence[tuple[str, Sequence[str]]]
                ) -> Callable[[click.Parameter], click.Parameter]:
    """`day end --rest CHAR=MODE` offering the rulesets' ways to spend the night."""
    def change(param: click.Parameter) -> click.Parameter:
        made = copy.copy(param)
        assert isinstance(made, click.Option)
        assert isinstance(param.type, KeyChoice)
        choices = param.type.choices
        for ruleset, modes in rests:
            choices = (*choices, *modes)
            made.help = f"{made.help} ({ruleset}: {'|'.join(modes)})."
        made.type = KeyChoice(choices, noun=param.type.noun)
        return made
    return change

"""The command line of BESM overland travel: shortcuts, forced marches, night travel, forage
and repair. Mounted on `trek` from the ruleset registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from cli.besm_lines import SUMMARIES
from cli.context import record
from cli.drawing import PATH_COLOUR, MarkStyle
from cli.options import (
    ROLL,
    ROLL_HELP,
    KeyValue,
    TrekCommand,
    party_option,
    recording_options,
)
from cli.render import AuditSection
from cli.ruler import Band, Ruler
from cli.ruleset_line import CommandLine
from domain.supplies import SUPPLY_KINDS

if TYPE_CHECKING:
    from tracker.app import Trek


@click.command(cls=TrekCommand)
@click.argument("route", metavar="NAME")  # the map's name for it, not one of the roster's
@click.option("--roll", type=ROLL, help=ROLL_HELP)
@party_option
@recording_options
def shortcut(route: str, roll: int | None) -> None:
    """Try a shortcut from the map (one attempt per shortcut per day)."""
    from domain.besm.commands import TakeShortcut

    record(TakeShortcut(name=route, roll=roll))


@click.command(cls=TrekCommand, name="forced-march")
@click.option("--roll", "rolls", type=KeyValue(2, 12, noun="rider or driver", example="Kira=9"),
              multiple=True,
              help="A rider's or driver's 2d6 total, CHAR=R (repeatable).")
@party_option
@recording_options
def forced_march(rolls: tuple[tuple[str, int], ...]) -> None:
    """Push on for the base movement again, at a cost in provisions and fuel."""
    from domain.besm.commands import ForcedMarch

    given = dict(rolls)  # each name once: KeyValue refuses a name given twice
    record(ForcedMarch(rolls=given))


@click.command(cls=TrekCommand, name="night-travel")
@click.option("--roll", type=ROLL, help=ROLL_HELP)
@click.option("--by", help="Who navigates (default: the best navigator).")
@party_option
@recording_options
def night_travel(roll: int | None, by: str | None) -> None:
    """Travel on after dark (once a day)."""
    from domain.besm.commands import TravelByNight

    record(TravelByNight(roll=roll, by=by))


@click.command(cls=TrekCommand)
@click.option("--roll", type=ROLL, help=ROLL_HELP)
@click.option("--by", help="Who forages (default: the best forager).")
@click.option("--take", type=click.Choice(list(SUPPLY_KINDS)), default="provisions",
              show_default=True, help="Which supply the points buy.")
@party_option
@recording_options
def forage(roll: int | None, by: str | None, take: str) -> None:
    """Give up a square of today's movement to hunt and forage."""
    from domain.besm.commands import Forage

    record(Forage(roll=roll, by=by, take=take))


@click.command(cls=TrekCommand)
@click.argument("conveyance")
@click.option("--by", required=True, help="Who repairs or tends it.")
@click.option("--roll", type=ROLL, help=ROLL_HELP)
@party_option
@recording_options
def repair(conveyance: str, by: str, roll: int | None) -> None:
    """Spend the day restoring the levels a mount or vehicle lost to strain."""
    from domain.besm.commands import Repair

    record(Repair(conveyance=conveyance, by=by, roll=roll))


# `trek plan`'s policy (RULES §13): what the party tries each day, each off unless given, and
# how the plan's first line names each one chosen.
PLAN_OPTIONS = [
    click.Option(["--forced-march", "forced_march"], type=int, default=0,
                 help="Up to N forced marches a day while supplies last (BESM)."),
    click.Option(["--night"], is_flag=True, default=False,
                 help="Travel by night every day (BESM)."),
    click.Option(["--shortcuts"], is_flag=True, default=False,
                 help="Try every shortcut the path reaches, once a day each (BESM)."),
    click.Option(["--forage"], is_flag=True, default=False,
                 help="Forage once a day when provisions fall below the party's daily need "
                      "(BESM)."),
]
PLAN_POLICY_WORDS: dict[str, Callable[[Any], str]] = {
    "forced_march": lambda n: f"{n} forced march(es) a day",
    "night": lambda _: "night travel",
    "shortcuts": lambda _: "shortcuts",
    "forage": lambda _: "foraging",
}


# -- encounters ----------------------------------------------------------------------------------


@click.command(cls=TrekCommand, name="prone")
@click.argument("name")
@recording_options
def prone(name: str) -> None:
    """BESM: drop prone (free); the round's Speed is halved while prone."""
    from domain.besm.commands import GoProne

    record(GoProne(name=name))


@click.command(cls=TrekCommand, name="stand")
@click.argument("name")
@recording_options
def stand(name: str) -> None:
    """BESM: stand up from prone, spending 1 square of this round's full Speed."""
    from domain.besm.commands import StandUp

    record(StandUp(name=name))


ENCOUNTER_COMMANDS = [prone, stand]


ROUTE_MARKS = {
    "forced-march": MarkStyle("»", "#e65100", "forced march"),
    "night-travel": MarkStyle("N", "#1a237e", "night travel"),
    "forage": MarkStyle("+", "#2e7d32", "forage"),
    "repair": MarkStyle("R", "#5d4037", "repair"),
    "shortcut": MarkStyle("S", PATH_COLOUR, "shortcut attempt"),
    "death": MarkStyle("×", "#212121", "a death (a mount or vehicle lost)"),
}


# -- status --------------------------------------------------------------------------------------

# Each character's Health and Energy, now and at most.
STATUS_CHARACTER_COLUMNS = [("Health", lambda c: f"{c['health']}/{c['health_max']}"),
                            ("Energy", lambda c: f"{c['energy']}/{c['energy_max']}")]
# A conveyance's movement attribute, its level now and before strain, and the strain it has
# taken today (landing at the day's end).
STATUS_CONVEYANCE_COLUMNS = [("move", lambda c: str(c["attribute"])),
                             ("level", lambda c: f"{c['level']}/{c['base_level']}"),
                             ("strain", lambda c: str(c["pending_strain"]))]


def demo(trek: Trek) -> None:
    """The sample campaign `trek demo` plays."""
    from cli import besm_demo

    besm_demo.play(trek)


# How `roster add-mount` and `roster add-vehicle` take --move under this ruleset.
MOUNT_MOVE = VEHICLE_MOVE = "a movement attribute and its level, e.g. ground-speed=1"


# -- the audit -----------------------------------------------------------------------------------


def _strain(s: dict[str, Any]) -> str:
    return (f"{s['conveyance']}"
            + (f" +{s['pending_added']} pending" if s["pending_added"] else "")
            + (f" -{s['levels_lost']} level(s)" if s["levels_lost"] else ""))


def _repair(r: dict[str, Any]) -> str:
    return (f"{r['conveyance']} by {r['by']}: "
            + (f"+{r['levels_restored']} level(s)" if r["success"] else "failed"))


def _levels(count: int) -> str:
    return f"{count} level" if count == 1 else f"{count} levels"


Markup = Callable[[str], str]


def _strain_recap(loss: dict[str, Any], escape: Markup, strong: Markup) -> str:
    parts = []
    if loss["pending_added"]:
        parts.append(f"{_levels(loss['pending_added'])} pending")
    if loss["levels_lost"]:
        parts.append(f"lost {_levels(loss['levels_lost'])}")
    return f"{escape(loss['conveyance'])}: {' and '.join(parts)}"


def _death_recap(death: dict[str, Any], escape: Markup, strong: Markup) -> str:
    return strong(f"{escape(death['conveyance'])} {escape(death['state'])}")


def _repair_recap(repair: dict[str, Any], escape: Markup, strong: Markup) -> str:
    outcome = (f"{_levels(repair['levels_restored'])} restored" if repair["success"]
               else "failed")
    by = f" by {escape(repair['by'])}" if repair.get("by") else ""
    return f"{escape(repair['conveyance'])} repaired{by}: {outcome}"


FLEET = "Mounts and vehicles"

# The audit sections BESM travel names (domain.besm.events.AUDIT_SECTIONS).
AUDIT_SECTIONS = {
    "strain": AuditSection(
        "strain", _strain,
        lambda s: {"line": "strain", "subject": s["conveyance"], "amount": s["levels_lost"],
                   "detail": f"{s['pending_added']} pending" if s["pending_added"] else None},
        heading=FLEET, recap=_strain_recap),
    "deaths": AuditSection(
        "deaths", lambda d: f"{d['conveyance']} {d['state']}",
        lambda d: {"line": "death", "subject": d["conveyance"], "detail": d["state"]},
        heading=FLEET, recap=_death_recap),
    "repairs": AuditSection(
        "repairs", _repair,
        lambda r: {"line": "repair", "subject": r["conveyance"], "amount": r["levels_restored"],
                   "success": r["success"], "detail": f"by {r['by']}"},
        heading=FLEET, recap=_repair_recap),
}


def _ruler_notes(event: dict[str, Any]) -> list[str]:
    notes = []
    if event.get("defense_penalty"):
        notes.append(f"defence -{event['defense_penalty']}")
    return notes


# The fight ruler: one move a round, within this round's Speed; or a shift of one square,
# which gives no defence penalty (chosen on the ruler, or where a move is refused).
RULER = Ruler(bands=(Band("within Speed"), Band("shift", ("--shift",), by_steps=True)),
              budget=lambda event: event["state"]["speed"], leaves=False, refusal_from=0,
              notes=_ruler_notes)


def token_marks(combatant: dict[str, Any]) -> list[str]:
    """What a token on the battle map wears besides its label."""
    return ["prone"] if combatant.get("prone") else []


# Everything this ruleset adds to the command line, the pictures and the pages.
COMMAND_LINE = CommandLine(
    title="BESM",
    commands=[shortcut, forced_march, night_travel, forage, repair],
    encounter_commands=ENCOUNTER_COMMANDS,
    rest_modes=("camp", "saddle", "vehicle", "none"),
    mount_move=MOUNT_MOVE,
    vehicle_move=VEHICLE_MOVE,
    plan_options=PLAN_OPTIONS,
    plan_policy_words=PLAN_POLICY_WORDS,
    opening_words=frozenset({"forced", "foraging", "night", "shortcut", "shortcuts"}),
    demo=demo,
    summaries=SUMMARIES,
    status_conveyance_columns=STATUS_CONVEYANCE_COLUMNS,
    status_character_columns=STATUS_CHARACTER_COLUMNS,
    audit_sections=AUDIT_SECTIONS,
    route_marks=ROUTE_MARKS,
    token_marks=token_marks,
    ruler=RULER,
)

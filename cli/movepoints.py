"""The command line of Move-Point movement in encounters: `--full-move` for characters, `--fly`
for moves, `encounter step` and `encounter condition`, and the log's lines for its events.
Mounted on `trek` from the ruleset registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cli.context import record
from cli.drawing import text as _t
from cli.movepoints_lines import SUMMARIES
from cli.options import TrekCommand, recording_options
from cli.ruler import Band, Ruler
from cli.ruleset_line import CommandLine

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cli.svg import Layout


@click.command(cls=TrekCommand, name="step")
@click.argument("name")
@click.argument("direction")
@recording_options
def step(name: str, direction: str) -> None:
    """Move-Points: one tile costing at most 1 for the free Move Point, provoking nothing;
    only before any action gains MP and any MP is spent this round."""
    from domain.movepoints.commands import Step

    record(Step(name=name, direction=direction))


@click.command(cls=TrekCommand, name="condition")
@click.argument("name")
@click.argument("condition", metavar="stunned|immobile|clear")
@recording_options
def condition(name: str, condition: str) -> None:
    """Move-Points: stunned (no Move actions) or immobile (no spending MP) loses every MP held
    and any transit; clear ends it."""
    from domain.movepoints.commands import SetCondition

    record(SetCondition(name=name, condition=condition))


ENCOUNTER_COMMANDS = [step, condition]


def transit_arrows(layout: Layout, doc: Mapping[str, Any]) -> list[str]:
    """A battle-map layer: each combatant paying toward a cell over several rounds
    (`in_transit`: to, cost, paid) gets a dashed arrow from its token toward that cell, as long
    as the part already paid."""
    out: list[str] = []
    for name, c in doc["combatants"].items():
        transit = c.get("in_transit")
        if not isinstance(transit, dict) or not transit.get("cost"):
            continue
        share = max(0.0, min(1.0, float(transit["paid"]) / float(transit["cost"])))
        sx, sy = layout.centre(c["position"]["x"], c["position"]["y"])
        tx, ty = layout.centre(transit["to"]["x"], transit["to"]["y"])
        ex, ey = sx + (tx - sx) * share, sy + (ty - sy) * share
        out.append(f'<line class="transit" data-name="{_t(name)}" data-paid="{_t(transit["paid"])}"'
                   f' data-cost="{_t(transit["cost"])}" x1="{sx:.1f}" y1="{sy:.1f}" '
                   f'x2="{ex:.1f}" y2="{ey:.1f}" stroke="#333" stroke-width="3" '
                   'stroke-dasharray="6 4" marker-end="url(#arrow-latest)"/>')
    return out


def _ruler_notes(event: dict[str, Any]) -> list[str]:
    notes = ["provokes"] if event.get("provokes") else []
    if event.get("knockdown_risk"):
        notes.append("risks a knockdown")
    return notes


# The fight ruler: a move paid from the MP held (an act gains them).
RULER = Ruler(bands=(Band("within MP"),), unit=("MP", "MP"), period="", notes=_ruler_notes)


def token_marks(combatant: dict[str, Any]) -> list[str]:
    """What a token on the battle map wears besides its label."""
    marks = ["in transit"] if combatant.get("in_transit") else []
    if combatant.get("condition"):
        marks.append(str(combatant["condition"]))
    return marks


# Everything this ruleset adds to the command line, the pictures and the pages.
COMMAND_LINE = CommandLine(
    title="Move-Points",
    encounter_commands=ENCOUNTER_COMMANDS,
    battle_map_layers=[transit_arrows],
    summaries=SUMMARIES,
    status_overland=False,
    token_marks=token_marks,
    ruler=RULER,
)

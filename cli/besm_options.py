"""BESM's options on the shared commands: its stats, how a fighter moves and acts in a round."""

from __future__ import annotations

import click

from cli.ruleset_options import RulesetOptions

CHARACTER_OPTIONS = [
    click.Option(["--body"], type=int, help="BESM Body (1-12)."),
    click.Option(["--mind"], type=int, help="BESM Mind (1-12)."),
    click.Option(["--soul"], type=int, help="BESM Soul (1-12)."),
]

ENCOUNTER_MOVE_OPTIONS = [
    click.Option(["--shift"], is_flag=True, default=False,
                 help="BESM: a shift of exactly one square, never a defence penalty."),
    click.Option(["--stealthy"], is_flag=True, default=False,
                 help="BESM: a stealthy move (half Speed plus stealth); the round's first."),
]

ENCOUNTER_ACT_OPTIONS = [
    click.Option(["--ranged"], is_flag=True, default=False,
                 help="BESM: a ranged attack (after moving: -2 unless Gun Bunny)."),
]

OPTIONS = RulesetOptions(
    character=CHARACTER_OPTIONS,
    encounter_move=ENCOUNTER_MOVE_OPTIONS,
    encounter_act=ENCOUNTER_ACT_OPTIONS,
    act_help="the round's one action, no KIND; --ranged for a ranged attack.",
)

"""Shadowrun's options on the shared commands: its stats, a Combat Turn's Initiative Passes
and a move's gait."""

from __future__ import annotations

import click

from cli.options import KeyValue
from cli.ruleset_options import RulesetOptions

CHARACTER_OPTIONS = [
    click.Option(["--quickness"], type=int,
                 help="Shadowrun Quickness (1-30): walking metres a Combat Turn."),
    click.Option(["--metatype"],
                 help="Shadowrun metatype: human, dwarf, elf, ork or troll (default human); "
                      "a dwarf runs ×2, the others ×3."),
]

ENCOUNTER_ROUND_OPTIONS = [
    click.Option(["--passes"], type=KeyValue(noun="combatant"), multiple=True,
                 help="Shadowrun: a combatant's Initiative Passes this Combat Turn, NAME=N "
                      "(repeatable; default 1 each)."),
]

ENCOUNTER_MOVE_OPTIONS = [
    click.Option(["--walk"], is_flag=True, default=False,
                 help="Shadowrun: walk (the default gait; the turn's first move declares it)."),
    click.Option(["--run"], is_flag=True, default=False,
                 help="Shadowrun: run this Combat Turn (declared by the turn's first move)."),
]

OPTIONS = RulesetOptions(character=CHARACTER_OPTIONS, encounter_round=ENCOUNTER_ROUND_OPTIONS,
                         encounter_move=ENCOUNTER_MOVE_OPTIONS)

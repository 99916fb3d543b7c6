"""Cypher's options on the shared commands: its pools, and how a fighter moves in a round (the
kind of move, the task's steps, the GM's roll)."""

from __future__ import annotations

import click

from cli.options import SquareType, Whole
from cli.ruleset_options import RulesetOptions

CHARACTER_OPTIONS = [
    click.Option(["--might"], type=int, help="Cypher Might pool (optional)."),
    click.Option(["--speed"], type=int, help="Cypher Speed pool (optional)."),
    click.Option(["--intellect"], type=int, help="Cypher Intellect pool (optional)."),
]

D20 = Whole(1, 20, what="the d20 face")
D20_HELP = "Cypher: the d20 face the GM rolled (1-20); left out, Trek rolls from the seed."
STEPS = Whole(0, what="the number of steps")

ENCOUNTER_MOVE_OPTIONS = [
    click.Option(["--immediate"], is_flag=True, default=False,
                 help="Cypher: an immediate move (up to 10 ft) as part of another action."),
    click.Option(["--short"], is_flag=True, default=False,
                 help="Cypher: a short move (up to 50 ft), the round's action (the default)."),
    click.Option(["--long"], is_flag=True, default=False,
                 help="Cypher: a long move (up to 100 ft), a Speed task of difficulty 4."),
    click.Option(["--with-action"], is_flag=True, default=False,
                 help="Cypher: a short move and a simple action, a Speed task of difficulty 4."),
    click.Option(["--ease"], type=STEPS,
                 help="Cypher: steps the task is eased (skills, assets, Effort)."),
    click.Option(["--hinder"], type=STEPS, help="Cypher: steps the task is hindered."),
    click.Option(["--roll"], type=D20, help=D20_HELP),
    click.Option(["--stop-at"], type=SquareType(),
                 help="Cypher: where a failed move stops, X,Y on its path."),
]

OPTIONS = RulesetOptions(character=CHARACTER_OPTIONS, encounter_move=ENCOUNTER_MOVE_OPTIONS)

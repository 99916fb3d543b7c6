"""GURPS's options on the shared commands: its stats and how a fighter moves on hexes."""

from __future__ import annotations

import click

from cli.ruleset_options import RulesetOptions

CHARACTER_OPTIONS = [
    click.Option(["--basic-move"], type=int, help="GURPS Basic Move (0-100)."),
    click.Option(["--basic-speed"], type=float,
                 help="GURPS Basic Speed, in quarters (e.g. 5.75)."),
    click.Option(["--trait"], multiple=True,
                 help="GURPS trait: amphibious, aquatic, flight or walk-on-air (repeatable)."),
    click.Option(["--water-move-bonus"], type=int,
                 help="GURPS water Move bonus (needs swimming unless amphibious or aquatic; "
                      "at most +2 for land-dwellers)."),
    click.Option(["--air-move-bonus"], type=int,
                 help="GURPS air Move bonus (with the flight trait)."),
]

ENCOUNTER_MOVE_OPTIONS = [
    click.Option(["--swim"], is_flag=True, default=False,
                 help="GURPS: swim with the water Move (shallow and deep water only)."),
    click.Option(["--fly"], is_flag=True, default=False,
                 help="fly (GURPS: air Move; Move-Points: the fly Full Move)"),
    click.Option(["--end-facing"], metavar="DIR",
                 help="GURPS: the facing at the end of the move (free; any direction within "
                      "half the MP, else one hex-side)."),
    click.Option(["--step"], is_flag=True, default=False,
                 help="GURPS: a step of one hex in any direction (maneuvers other than Move)."),
]

OPTIONS = RulesetOptions(character=CHARACTER_OPTIONS, encounter_move=ENCOUNTER_MOVE_OPTIONS)

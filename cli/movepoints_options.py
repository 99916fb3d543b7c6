"""The Move-Point system's options on the shared commands: its Full Moves, flying, and what
`encounter act` takes."""

from __future__ import annotations

import click

from cli.options import NamedValue
from cli.ruleset_options import RulesetOptions


class FullMove(NamedValue):
    """`N` (the land Full Move) or `TYPE=N` (swim, fly); the ruleset checks the type. Each
    type once."""

    name = "N|TYPE=N"

    def __init__(self) -> None:
        super().__init__("type")

    def parse(self, value: str, param: click.Parameter | None,
              ctx: click.Context | None) -> tuple[str, int]:
        kind, sep, amount = value.partition("=")
        if not sep:
            kind, amount = "land", kind
        kind = kind.strip().lower()
        if not kind:
            self.fail(f"{value!r} should be N or TYPE=N, for example 6 or swim=4", param, ctx)
        try:
            return kind, int(amount)
        except ValueError:
            self.fail(f"{value!r}: {amount.strip()!r} is not a whole number", param, ctx)


CHARACTER_OPTIONS = [
    click.Option(["--full-move", "full_move"], type=FullMove(), multiple=True,
                 help="Move-Points: a Full Move, N (land) or TYPE=N with TYPE swim or fly "
                      "(at least one; repeatable, one per type)."),
]

ENCOUNTER_MOVE_OPTIONS = [
    click.Option(["--fly"], is_flag=True, default=False,
                 help="Fly: Move-Points spends the fly Full Move; GURPS moves by air."),
]

OPTIONS = RulesetOptions(
    character=CHARACTER_OPTIONS,
    encounter_move=ENCOUNTER_MOVE_OPTIONS,
    act_help="KIND `move` (half the Full Move in MP) or `full` (the Full Move).",
)

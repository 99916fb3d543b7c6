"""A ruleset's options on the commands every campaign shares, declared by each ruleset's
options module as `OPTIONS` (`cli/besm_options.py`, ...) and found through the registry's
`Entry.options`.

`encounter move` (and `round`, `add`, `act`, `roster add-character`) parses its words before
the campaign, and so its ruleset, is known, so it takes every ruleset's options at once. They
are kept apart from the rulesets' command lines (`cli/ruleset_line.py`) so that parsing them
loads none of those: a move in a fight loads its own ruleset's line and no other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import click


class RulesetOptions(NamedTuple):
    """One ruleset's options on the shared commands (each optional)."""

    # Its stat options on `roster add-character` and `encounter add`.
    character: Sequence[click.Option] = ()
    # Its options on `encounter move`, `encounter round` and `encounter act`.
    encounter_move: Sequence[click.Option] = ()
    encounter_round: Sequence[click.Option] = ()
    encounter_act: Sequence[click.Option] = ()
    # What `encounter act` takes under it, added to the command's help.
    act_help: str | None = None

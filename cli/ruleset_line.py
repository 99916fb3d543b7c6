"""What one ruleset adds to the command line, the pictures and the table's pages: one typed
object, `CommandLine`, that each ruleset's command-line module declares as `COMMAND_LINE`.

The registry's entry for the ruleset holds a function returning it (cli/registry.py); the
composition root (cli/bootstrap.py) loads it from there and hands it to what mounts it: the
commands each ruleset extends are built anew from it (cli/options.py's `extended` and
`regrouped`), never edited in place. Every field has a default meaning "this ruleset adds
nothing here", so a ruleset names only what it has, and mypy refuses a misspelt field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

import click

if TYPE_CHECKING:
    from cli.render import AuditSection, Describe
    from cli.ruler import Ruler
    from tracker.app import Trek

Column = tuple[str, Callable[[dict[str, Any]], str]]

# What a ruleset that adds nothing to a table of the command line leaves there (the command
# line loads no models, so not `domain.values.NOTHING`).
_NOTHING: Mapping[str, Any] = MappingProxyType({})


class CommandLine(NamedTuple):
    """One ruleset's part of the command line (all of it optional but `title`)."""

    # How the ruleset is named in help and headings.
    title: str

    # -- commands and options it adds ------------------------------------------------------
    # Its own top-level commands and `trek encounter` subcommands.
    commands: Sequence[click.Command] = ()
    # (Its options on the shared commands are apart: cli/ruleset_options.py.)
    encounter_commands: Sequence[click.Command] = ()
    # The words `day end --rest NAME=MODE` takes (none: it has no rest modes).
    rest_modes: Sequence[str] = ()
    # How `roster add-mount --move` and `add-vehicle --move` are given under it.
    mount_move: str | None = None
    vehicle_move: str | None = None
    # `trek plan`'s policy options, and the words naming each chosen one.
    plan_options: Sequence[click.Option] = ()
    plan_policy_words: Mapping[str, Callable[[Any], str]] = _NOTHING
    # Words that open a refusal of its own (kept unchanged by the command line's wording).
    opening_words: frozenset[str] = frozenset()
    # `trek demo`: records its sample campaign in an empty store.
    demo: Callable[[Trek], None] | None = None

    # -- how its events and state are shown ------------------------------------------------
    # An event's line, by event type.
    summaries: Mapping[str, Describe] = _NOTHING
    # `trek status`: the party's movement fields it words itself, its conveyance and
    # character columns, and whether it travels overland at all.
    status_movement: Mapping[str, Callable[[Any], str]] = _NOTHING
    status_conveyance_columns: Sequence[Column] = ()
    status_character_columns: Sequence[Column] = ()
    status_overland: bool = True
    # Audit sections it names, and route-picture marker styles, by kind.
    audit_sections: Mapping[str, AuditSection] = _NOTHING
    route_marks: Mapping[str, Any] = _NOTHING
    # Battle map: extra SVG layers, what a phase of a round and a move cut short are called,
    # the words a token wears, and how the GM's page measures a move.
    battle_map_layers: Sequence[Callable[[Any, Mapping[str, Any]], list[str]]] = ()
    phase_word: str = "phase"
    stop_word: str = "stopped"
    token_marks: Callable[[dict[str, Any]], list[str]] | None = None
    ruler: Ruler | None = None

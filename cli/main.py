"""The `trek` command line: the group, its refusals as one sentence, and the command table.

Start-up is kept short: this module imports click and the shared options only. Every command
but `status` lives in a module loaded the first time it runs (or shows its own help); `trek
--help` lists them from the table below, each with its one-line help. `trek status` reads the
campaign's kept status document straight from an SQLite store when that document is current
(`projections/stored_status.py`), and otherwise goes through the tracker as every command does.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Mapping
from typing import Any

import click

from cli.options import PointType, Settings, store_options
from cli.output import json_text
from domain.errors import TrackerError
from tracker.points import Point

# The module that holds every command working through the tracker; it mounts each ruleset's
# command-line module as it loads.
COMMANDS_MODULE = "cli.commands"

# Each shared command's name: the module that defines it (after COMMANDS_MODULE is loaded), the
# attribute there (None: COMMANDS_MODULE adds it to the group itself), and the first paragraph
# of its help, which `trek --help` shortens as click does. A ruleset's own commands are not
# here: COMMANDS_MODULE mounts them from the registry, so naming or listing one loads it.
# tests/e2e/test_startup.py checks this table against the commands themselves.
LAZY_COMMANDS: dict[str, tuple[str, str | None, str]] = {
    "audit": (COMMANDS_MODULE, None, "Per play session: days, squares, every roll, supplies, "
              "the ruleset's own lines, undos."),
    "branch": (COMMANDS_MODULE, None, "Start a what-if campaign in this store whose history "
               "is this one's up to SEQ."),
    "campaigns": (COMMANDS_MODULE, None, "List the campaigns in the store."),
    "day": (COMMANDS_MODULE, None, "Open and close travel days."),
    "demo": (COMMANDS_MODULE, None, "Play a short sample campaign into a temporary store and "
             "show its status and log."),
    "diff": (COMMANDS_MODULE, None, "What changed between two points: position, supplies, "
             "levels, states, Health/Energy."),
    "encounter": ("cli.encounter", "encounter", "Fights and scenes round by round on a battle "
                  "map: who moved how far, what is left."),
    "harm": (COMMANDS_MODULE, None, "Take Health and/or Energy from a character (never below "
             "0)."),
    "init": (COMMANDS_MODULE, None, "Create a campaign NAME in the store (creating the store "
             "if needed)."),
    "log": (COMMANDS_MODULE, None, "Every recorded event in order, reversals included."),
    "map": (COMMANDS_MODULE, None, "The campaign's map."),
    "move": (COMMANDS_MODULE, None, "Move the party: compass steps (N NE E SE S SW W NW) or "
             "--to X,Y."),
    "recap": ("cli.recap", "recap", "What to hand the players after a session: days, "
              "distance, supplies, mounts and vehicles,"),
    "redo": (COMMANDS_MODULE, None, "Restore cancelled event SEQ (or everything reversal SEQ "
             "cancelled)."),
    "replay": (COMMANDS_MODULE, None, "Rebuild every read model from the event log, in one "
               "transaction (records no event)."),
    "roster": (COMMANDS_MODULE, None, "Characters, mounts and vehicles, and who travels on "
               "what."),
    "rules": (COMMANDS_MODULE, None, "House rules of the campaign."),
    "session": (COMMANDS_MODULE, None, "Play sessions: every event is stamped with the open "
                "one."),
    "supplies": (COMMANDS_MODULE, None, "Set, add or spend supplies: KIND=N... (provisions, "
                 "fuel, ammo, wealth)."),
    "undo": (COMMANDS_MODULE, None, "Cancel event SEQ (default: the latest) by recording a "
             "reversal."),
    "verify": (COMMANDS_MODULE, None, "Check each campaign's hash chain and name the first "
               "broken link (changes nothing)."),
    "watch": ("cli.watch", "watch", "Keep the read models of a PostgreSQL store live while "
              "other GMs record."),
}


class TrekGroup(click.Group):
    """Loads a command's module when it is first asked for, and turns every refusal into one
    sentence on stderr and exit 1, never a traceback."""

    def __init__(self, *args: Any, lazy: Mapping[str, tuple[str, str | None, str]] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        # Every ruleset's own commands are listed too: they come with the commands module.
        importlib.import_module(COMMANDS_MODULE)
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            if cmd_name in self.lazy:
                self.load(cmd_name)
            else:
                importlib.import_module(COMMANDS_MODULE)
        return self.commands.get(cmd_name)

    def load(self, name: str) -> None:
        """Import the module of a command in the table and add the command."""
        module, attribute, _ = self.lazy[name]
        importlib.import_module(COMMANDS_MODULE)
        if name not in self.commands and attribute is not None:
            self.add_command(getattr(importlib.import_module(module), attribute), name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """As click lists commands, with a command not loaded yet shown from the table."""
        commands = [(name, self.commands.get(name)
                     or click.Command(name, help=self.lazy[name][2]))
                    for name in self.list_commands(ctx)]
        commands = [(name, cmd) for name, cmd in commands if not cmd.hidden]
        if commands:
            limit = formatter.width - 6 - max(len(name) for name, _ in commands)
            with formatter.section("Commands"):
                formatter.write_dl([(name, cmd.get_short_help_str(limit))
                                    for name, cmd in commands])

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TrackerError as error:
            raise click.ClickException(_sentence(str(error))) from None
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as error:
            if os.environ.get("TREK_DEBUG"):
                raise
            settings = ctx.find_object(Settings)
            text = f"{type(error).__name__}: {error}"
            appended: list[Any] = []
            if settings is not None:
                text = _scrubbed(settings.db, text)
                appended = [e for t in settings.opened for e in t.appended]
            if appended:
                from tracker.app import recorded_but

                message = recorded_but(appended, f"Trek could not finish ({text})")
            else:
                message = f"Trek could not finish ({text}); nothing was recorded"
            raise click.ClickException(_sentence(message)) from None


def _scrubbed(db: str, text: str) -> str:
    from tracker.stores import Location

    try:
        return Location.parse(db).scrub(text)
    except TrackerError:
        return text


# Trek's own messages open with one of these words and get a capital; a message that opens
# with something the GM typed (a path, a slug, a name) keeps the GM's spelling. A ruleset's
# command-line module adds the words its own messages open with (its `OPENING_WORDS`).
OPENING_WORDS = {
    "a", "add", "after", "an", "and", "at", "cannot", "character", "choose", "create", "daily",
    "day", "event", "events", "every", "everything", "for", "give", "harm", "has", "is", "it",
    "keeps", "legend", "map", "models", "name", "no", "nobody", "not", "nothing",
    "notification", "only", "or", "pick", "restoring", "row", "rows", "run", "say", "session",
    "square", "step", "that", "the", "there", "this", "today", "trek", "undoing", "watching",
    "when", "with",
}


def _sentence(text: str) -> str:
    if COMMANDS_MODULE not in sys.modules:
        # The rulesets' opening words come with their modules, mounted by the commands.
        # Should that fail, the sentence is told with the shared words alone.
        with contextlib.suppress(Exception):
            importlib.import_module(COMMANDS_MODULE)
    text = text.strip()
    # Nothing typed may reach the terminal as a control sequence.
    text = "".join(ch if ord(ch) >= 32 and ord(ch) != 127 else f"\\x{ord(ch):02x}"
                   for ch in text)
    first = text.split(" ", 1)[0]
    if first in OPENING_WORDS:
        text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


@click.group(cls=TrekGroup, lazy=LAZY_COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"]})
@store_options
@click.version_option(package_name="trek")
def trek() -> None:
    """Trek: an event-sourced movement tracker for tabletop game masters: overland travel day
    by day, and fights round by round on a battle map.

    Every move, roll, supply, roster change, round and night of rest is recorded as an
    immutable event; status, supplies, mounts and Health/Energy are rebuilt from them. Undo
    never deletes: it records a reversal.
    """


def _settings() -> Settings:
    return click.get_current_context().ensure_object(Settings)


@trek.command()
@click.option("--as-of", "as_of", type=PointType(),
              help="The state right after event SEQ, or at the end of day N (day:N).")
@store_options
def status(as_of: Point | None) -> None:
    """Where the party is, its movement, supplies, roster and conveyances."""
    settings = _settings()
    document = None
    if as_of is None:
        from projections.stored_status import read_status

        document = read_status(settings.db, settings.campaign)
        if document is not None and settings.json:
            sys.stdout.write(json_text(document))
            return
    commands = importlib.import_module(COMMANDS_MODULE)
    commands.show_status(as_of, document)


def main() -> None:
    trek(prog_name="trek")

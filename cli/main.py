"""The `trek` command line: the group, its refusals as one sentence, and the command table.

Start-up is kept short: this module imports click, the shared options and the composition root
(cli/bootstrap.py, which loads nothing until asked). Every command but `status` lives in a
module loaded the first time it runs (or shows its own help) and is built for the command's
root, with its rulesets' parts; `trek --help` lists them from the table below and the
registry's entries, each with its one-line help. `trek status` reads the
campaign's kept status document straight from an SQLite store when that document is current
(`projections/stored_status.py`), and otherwise goes through the tracker as every command does.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import click

from cli.bootstrap import Root, bootstrap, root_of, starting
from cli.options import (
    PointType,
    Settings,
    TrekCommand,
    TrekSubgroup,
    party_read_option,
    refuse_repeated,
    store_options,
)
from cli.output import json_text
from domain.errors import TrackerError

if TYPE_CHECKING:
    from tracker.points import Point


def _commands(root: Root) -> dict[str, click.Command]:
    """Every command working through the tracker (cli/commands.py), with the rulesets' parts
    built in: a ruleset's own commands come with them, so they need no entry below."""
    from cli.commands import mounted

    return mounted(root)


def _as_defined(root: Root, name: str) -> click.Command | None:
    """Command `name` of cli/commands.py when no ruleset changes it: it runs as defined, and
    no ruleset's command-line part is loaded to find it."""
    from cli.commands import as_defined

    return as_defined(root, name)


def _encounter(root: Root) -> click.Command:
    from cli.encounter import mounted

    return mounted(root)


def _plan(root: Root) -> click.Command:
    from cli.plan import mounted

    return mounted(root)


def _day(root: Root) -> click.Command:
    from cli.recording import day_for

    return day_for(root)


def _move(root: Root) -> click.Command:
    from cli.recording import move

    return move


def _supplies(root: Root) -> click.Command:
    from cli.recording import supplies

    return supplies


def _undo(root: Root) -> click.Command:
    from cli.recording import undo

    return undo


def _redo(root: Root) -> click.Command:
    from cli.recording import redo

    return redo


def _log(root: Root) -> click.Command:
    from cli.log import log

    return log


def _party(root: Root) -> click.Command:
    from cli.party import party

    return party


def _recap(root: Root) -> click.Command:
    from cli.recap import recap

    return recap


def _replay(root: Root) -> click.Command:
    from cli.replay import replay

    return replay


def _serve(root: Root) -> click.Command:
    from cli.serve import serve

    return serve


def _shell(root: Root) -> click.Command:
    from cli.shell import shell

    return shell


def _seat(root: Root) -> click.Command:
    from cli.seats import seat

    return seat


def _requests(root: Root) -> click.Command:
    from cli.seats import requests

    return requests


def _watch(root: Root) -> click.Command:
    from cli.watch import watch

    return watch


# The commands kept in modules of their own, by name: a function that imports the command
# (typed; no module or attribute name) and builds it for the root. Every other command but
# `status` comes from `_commands`.
LAZY_COMMANDS: dict[str, Callable[[Root], click.Command]] = {
    "day": _day,
    "encounter": _encounter,
    "log": _log,
    "move": _move,
    "party": _party,
    "plan": _plan,
    "recap": _recap,
    "redo": _redo,
    "replay": _replay,
    "requests": _requests,
    "seat": _seat,
    "serve": _serve,
    "shell": _shell,
    "supplies": _supplies,
    "undo": _undo,
    "watch": _watch,
}

# What `trek --help` lists for each command Trek itself has: the first paragraph of the
# command's own help (a test checks they agree), so the listing loads no command's module. A
# ruleset's own commands are listed from its registry entry (`Deferred.commands`).
SUMMARIES: dict[str, str] = {
    "audit": "Per play session: days, squares, every roll, supplies, the ruleset's own lines, "
             "undos.",
    "branch": "Start a what-if campaign in this store whose history is this one's up to SEQ.",
    "campaigns": "List the campaigns in the store; the one commands use when they name none "
                 "is marked.",
    "day": "Open and close travel days.",
    "demo": "Play a short sample campaign into a temporary store and show its status and log.",
    "diff": "What changed between two points: position, supplies, levels, states, "
            "Health/Energy.",
    "encounter": "Fights and scenes round by round on a battle map: who moved how far, what "
                 "is left.",
    "harm": "Take Health and/or Energy from a character (never below 0).",
    "init": "Create a campaign NAME in the store (creating the store if needed).",
    "log": "Every recorded event in order, reversals included.",
    "map": "The campaign's map.",
    "move": "Move the party: compass steps (N NE E SE S SW W NW) or --to X,Y.",
    "party": "Parties: split the party, merge parties, and choose the one commands act on.",
    "plan": "Play the journey to X,Y forward many times and show the odds of arriving by each "
            "day.",
    "recap": "What to hand the players after a session: days, distance, supplies, mounts and "
             "vehicles, rests, fights and the corrections made.",
    "redo": "Restore cancelled event SEQ (or everything reversal SEQ cancelled).",
    "replay": "Rebuild every read model from the event log, in one transaction (records no "
              "event).",
    "requests": "What the seats asked for, oldest first, and what became of it.",
    "roster": "Characters, mounts and vehicles, and who travels on what.",
    "rules": "House rules of the campaign.",
    "seat": "The players' seats: each one player's key to ask for moves from a phone.",
    "serve": "Serve the campaign to the table: a live map, log and undo for the GM, and a view "
             "for the players, updating by itself as events are recorded.",
    "session": "Play sessions: every event is stamped with the open one.",
    "shell": "A prompt for a session at the table: each line is a trek command without `trek`.",
    "status": "Where the party is, its movement, supplies, roster and conveyances.",
    "supplies": "Set, add or spend supplies: KIND=N... (provisions, fuel, ammo, wealth).",
    "undo": "Cancel event SEQ (default: the newest live event) by recording a reversal.",
    "verify": "Check each campaign's hash chain and name the first broken link, and compare "
              "its read models with the log as loading it gives (changes nothing; `replay "
              "--verify` compares every read model with a fold of the whole log).",
    "watch": "Keep the read models of a PostgreSQL store live while other GMs record.",
}


def command_summaries(root: Root | None = None) -> dict[str, str]:
    """Every top-level command and the first paragraph of its help, by name: Trek's own and
    each ruleset's (from the registry's entries, without loading any ruleset)."""
    summaries = dict(SUMMARIES)
    for name, text in (root or bootstrap()).command_summaries():
        summaries.setdefault(name, text)
    return dict(sorted(summaries.items()))


class TrekGroup(click.Group):
    """Loads a command's module when it is first asked for, turns every refusal into one
    sentence on stderr and exit 1, never a traceback, and ends any command quietly with exit 0
    when the reader of its output leaves early (`trek status | head -1`)."""

    command_class = TrekCommand
    group_class = TrekSubgroup

    def __init__(self, *args: Any,
                 lazy: Mapping[str, Callable[[Root], click.Command]] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        # Listing them (completion, say) needs every command: all are built.
        root = _root(ctx)
        for name in self.lazy:
            self.get_command(ctx, name)
        self._mount(root)
        return sorted({*self.commands, *root.commands})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """`trek --help`'s list of commands, as click writes it, from the summaries: no
        command's module is loaded to list it."""
        summaries = command_summaries(_root(ctx))
        limit = formatter.width - 6 - max(len(name) for name in summaries)
        with formatter.section("Commands"):
            # Shortened as click shortens a command's own help.
            formatter.write_dl([(name, click.Command(name, help=text).get_short_help_str(limit))
                                for name, text in summaries.items()])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, built for the command's composition root the first time it is asked
        for (`status`, defined here, as it is)."""
        if cmd_name in OWN_COMMANDS:
            return self.commands.get(cmd_name)
        root = _root(ctx)
        found = root.commands.get(cmd_name)
        if found is None and cmd_name in self.lazy:
            found = root.commands[cmd_name] = self.lazy[cmd_name](root)
        elif found is None:
            found = _as_defined(root, cmd_name)
            if found is None:
                self._mount(root)
                found = root.commands.get(cmd_name)
        return found

    @staticmethod
    def _mount(root: Root) -> None:
        """Build the commands of cli/commands.py for `root`, once."""
        if not root.mounted:
            root.commands.update(_commands(root))
            root.mounted = True

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        refuse_repeated(self, ctx, args)
        return super().parse_args(ctx, args)

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except BrokenPipeError:
            _reader_left()
            raise click.exceptions.Exit(0) from None
        except click.NoSuchOption as error:
            raise no_such_option(error) from None
        except click.exceptions.Exit as done:
            if done.exit_code == 0:  # `trek --help` and `trek --version`, read by `| head`
                _flush_output(quietly=True)
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            _warn(ctx)
            _flush_output()
            return result
        except BrokenPipeError:
            # Whoever read the output stopped early (`trek status | head -1`): what was asked
            # is done, so the command ends quietly with 0, as `trek log | head` does.
            _reader_left()
            return None
        except TrackerError as error:
            raise click.ClickException(_sentence(str(error), _root(ctx))) from None
        except click.NoSuchOption as error:
            raise no_such_option(error) from None
        except click.exceptions.Exit as done:
            if done.exit_code == 0:  # `--help` and `--version` of a command
                _flush_output(quietly=True)
            raise
        except (click.ClickException, click.exceptions.Abort):
            raise
        except Exception as error:
            if os.environ.get("TREK_DEBUG"):
                raise
            settings = ctx.find_object(Settings)
            text = f"{type(error).__name__}: {error}"
            appended: list[Any] = []
            reading = False
            if settings is not None:
                text = _scrubbed(settings.db, text)
                appended = [e for t in settings.opened for e in t.appended]
                # A command that opened its store only to read had nothing to record.
                reading = bool(settings.opened) and not any(
                    t.writable or t.preview for t in settings.opened)
                from tracker.stores import damaged_store, sqlite_damage

                damage = sqlite_damage(error)
                if damage is not None and not appended:
                    # Whatever read the file met the damage: the store is told as damaged.
                    message = str(damaged_store(settings.db, damage))
                    raise click.ClickException(_sentence(_scrubbed(settings.db, message))
                                               ) from None
            if appended:
                from tracker.app import recorded_but

                message = recorded_but(appended, f"Trek could not finish ({text})")
            elif reading:
                message = f"Trek could not finish ({text})"
            else:
                message = f"Trek could not finish ({text}); nothing was recorded"
            raise click.ClickException(_sentence(message, _root(ctx))) from None


# Options every command takes, named after its own in a refusal of an unknown option.
_STORE_OPTIONS = ("--db", "--campaign", "--gm", "--json", "--preview", "--help")


def no_such_option(error: click.NoSuchOption) -> click.UsageError:
    """An unknown option, said with the options the command does take, rather than click's
    nearest spelling among every option (`--by` is not `--db`)."""
    ctx = error.ctx
    if ctx is None:
        return error
    own = [param.opts[0] for param in ctx.command.get_params(ctx)
           if isinstance(param, click.Option) and param.opts[0].startswith("--")
           and param.opts[0] not in _STORE_OPTIONS]
    import difflib

    near = difflib.get_close_matches(error.option_name, own, n=1)
    guess = f" (did you mean {near[0]}?)" if near else ""
    path = ctx.command_path
    takes = ("it has no options of its own" if not own else
             f"its own option is {own[0]}" if len(own) == 1 else
             f"its own options are {_listed(own)}")
    name = _sentence(error.option_name).rstrip(".")
    return click.UsageError(f"`{path}` has no option {name}{guess}; {takes} (`{path} --help` "
                            "lists every option it takes).", ctx)


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _warn(ctx: click.Context) -> None:
    """What a command that succeeded still has to say (an event recorded while its read
    models could not be updated, say): a line each on stderr."""
    settings = ctx.find_object(Settings)
    if settings is None:
        return
    for trek in settings.opened:
        for warning in getattr(trek, "warnings", ()):
            click.echo(f"Warning: {_sentence(_scrubbed(settings.db, warning), _root(ctx))}",
                       err=True)


def _flush_output(*, quietly: bool = False) -> None:
    """Write out what is still buffered, inside the command: a closed pipe is met here, where
    it is handled, rather than at exit."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        if not quietly:
            raise
        _reader_left()


def _reader_left() -> None:
    """Point standard output at the null device: what is still buffered for the closed pipe
    would fail again at exit, with a message."""
    from cli.paging import silence_stdout

    silence_stdout()


def _scrubbed(db: str, text: str) -> str:
    from tracker.stores import Location

    try:
        return Location.parse(db).scrub(text)
    except TrackerError:
        return text


# Trek's own messages open with one of these words and get a capital; a message that opens
# with something the GM typed (a path, a slug, a name) keeps the GM's spelling. A ruleset's
# `CommandLine` adds the words its own messages open with (its `opening_words`).
OPENING_WORDS = frozenset({
    "a", "add", "after", "an", "and", "at", "cannot", "character", "choose", "create", "daily",
    "day", "event", "events", "every", "everything", "for", "give", "harm", "has", "is", "it",
    "keeps", "legend", "map", "models", "name", "no", "nobody", "not", "nothing",
    "notification", "only", "or", "party", "pick", "restoring", "row", "rows", "run", "say",
    "session", "square", "step", "that", "the", "there", "this", "today", "trek", "undoing",
    "watching", "when", "with",
})


def _sentence(text: str, root: Root | None = None) -> str:
    """`text` as one sentence: a capital when it opens with Trek's words (or, given the root,
    its rulesets' words) and a full stop."""
    words = OPENING_WORDS
    if root is not None:
        # Should a ruleset's part fail to load, the sentence is told with the shared words.
        with contextlib.suppress(Exception):
            words = words | root.opening_words
    text = text.strip()
    # Nothing typed may reach the terminal as a control sequence.
    text = "".join(ch if ord(ch) >= 32 and ord(ch) != 127 else f"\\x{ord(ch):02x}"
                   for ch in text)
    first = text.split(" ", 1)[0]
    if first in words:
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


def _root(ctx: click.Context) -> Root:
    """The composition root of this run: handed in with the settings, else made now."""
    return root_of(ctx.ensure_object(Settings))


# The commands defined in this module, which no ruleset extends.
OWN_COMMANDS = frozenset({"status"})


@trek.command()
@click.option("--as-of", "as_of", type=PointType(),
              help="The state right after event SEQ, or at the end of day N (day:N).")
@party_read_option
@store_options
def status(as_of: Point | None, party: str | None) -> None:
    """Where the party is, its movement, supplies, roster and conveyances."""
    settings = _settings()
    document = None
    if as_of is None and settings.party is None:
        from projections.stored_status import read_status

        document = read_status(settings.db, settings.campaign)
        if document is not None and len(document.get("parties") or {}) > 1:
            # Told from the party in use, which the kept document does not know.
            document = None
        if document is not None and settings.json:
            sys.stdout.write(json_text(document))
            return
        if document is not None:
            # The kept document in the words of its ruleset's command-line part alone (the
            # renderer asks the command's root for it).
            from cli import render

            render.print_status(document)
            return
    from cli.commands import show_status

    show_status(as_of, document, party)


def main() -> None:
    starting()
    try:
        trek(prog_name="trek")
    finally:
        # The process ends here. Left to itself, Python would tear down every module, class and
        # function the command loaded, collecting their cycles one by one (some 50 ms of a
        # recording command), to free memory the exit frees anyway. Set aside, they are left.
        # What is open is closed by then (click closes the command's store, and a file written
        # is closed where it is written), and standard output is flushed at exit as ever.
        gc.freeze()

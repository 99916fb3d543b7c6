"""The prompt of `trek shell` at a terminal: prompt_toolkit's line editor, the history file,
and completion of command and option names and of the campaign's names and event numbers.

Only `trek shell` imports this module (and with it prompt_toolkit), and only with a terminal
on stdin.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shlex
from collections.abc import Iterable, Iterator
from pathlib import Path

import click
from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from cli.options import Settings
from cli.shell import ENDING, Shell

HISTORY_NAME = ".trek_history"
# A store URL with a password in it (postgresql://user:secret@host/db): never kept.
_PASSWORD = re.compile(r"postgres(?:ql)?://[^/\s@]*:[^/\s@]*@|password=", re.IGNORECASE)


class KeptHistory(FileHistory):
    """The history file; a line naming a password is not written, and a file that cannot be
    read or written leaves the shell working with the lines of this session."""

    def load_history_strings(self) -> Iterable[str]:
        try:
            return list(super().load_history_strings())
        except (OSError, UnicodeDecodeError):
            return []

    def store_string(self, string: str) -> None:
        if _PASSWORD.search(string):
            return
        with contextlib.suppress(OSError):
            super().store_string(string)


def history_path(db: str) -> Path | None:
    """Where the history of the shell on `db` is kept: beside an SQLite file, under
    $XDG_STATE_HOME/trek/ for a PostgreSQL store (named by a hash of its URL without the
    password), nowhere for a memory store."""
    from tracker.stores import Location, StoreKind

    try:
        location = Location.parse(db)
    except Exception:
        return None
    if location.kind is StoreKind.SQLITE:
        return Path(location.target).resolve().parent / HISTORY_NAME
    if location.kind is StoreKind.POSTGRES:
        state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        key = hashlib.sha256(location.display.encode()).hexdigest()[:16]
        return Path(state) / "trek" / f"history-{key}"
    return None


def history_for(db: str) -> History:
    path = history_path(db)
    if path is None:
        return InMemoryHistory()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return KeptHistory(str(path))


def interactive(shell: Shell, *, input: Input | None = None, output: Output | None = None
                ) -> int:
    """Read and run lines until `exit`, `quit` or Ctrl-D (exit 0); Ctrl-C clears the line.
    `input` and `output`: another terminal than this process's own (tests)."""
    session: PromptSession[str] = PromptSession(
        history=history_for(shell.settings.db), completer=ShellCompleter(shell),
        complete_while_typing=False, input=input, output=output)
    shell.refresh()
    while True:
        try:
            line = session.prompt(shell.prompt_text())
        except KeyboardInterrupt:
            continue
        except EOFError:
            return 0
        if line.strip() in ENDING:
            return 0
        if shell.run_line(line) == 0:
            shell.refresh()


# -- completion ---------------------------------------------------------------------------------


def split_partial(text: str) -> tuple[list[str], str, int]:
    """The words before the cursor, the word being typed (unquoted) and how many characters
    of the line it takes (what a completion replaces)."""
    if not text or text[-1].isspace():
        done, current, raw = text, "", 0
    else:
        start = 0
        quote: str | None = None
        # The start of the last word: after the last space outside quotes.
        for i, ch in enumerate(text):
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch.isspace():
                start = i + 1
        done, raw_word = text[:start], text[start:]
        raw = len(raw_word)
        try:
            current = shlex.split(raw_word + (quote or ""))[0] if raw_word.strip() else ""
        except (ValueError, IndexError):
            current = raw_word.strip("\"'")
    try:
        words = shlex.split(done)
    except ValueError:
        words = done.split()
    return words, current, raw


def candidates(shell: Shell, words: list[str], current: str) -> Iterator[tuple[str, str]]:
    """What may come next after `words`, given the start of the word being typed: (text, what
    it is), in the order offered."""
    from cli.main import trek

    if words and words[0] == "help":
        words = words[1:]
    # The shell's composition root: the commands as its lines run them.
    ctx = click.Context(trek, info_name="trek", obj=Settings(root=shell.root))
    command: click.Command = trek
    path: list[str] = []
    pending: click.Option | None = None
    position = 0
    for word in words:
        if pending is not None:
            pending = None
            continue
        if word.startswith("-"):
            option = _option(command, word)
            if option is not None and not option.is_flag and not option.count and "=" not in word:
                pending = option
            continue
        if isinstance(command, click.Group):
            sub = command.get_command(ctx, word)
            if sub is None:
                return
            command, path = sub, [*path, word]
            continue
        position += 1
    if pending is not None:
        yield from _values(shell, path, pending)
    elif current.startswith("-"):
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                for name in (*param.opts, *param.secondary_opts):
                    if name.startswith("--"):
                        yield name, param.help.split(".")[0] if param.help else ""
        yield "--help", "show this command's help"
    elif isinstance(command, click.Group):
        if not path:
            yield from ((word, "") for word in (*ENDING, "help"))
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield name, sub.get_short_help_str(60)
    else:
        arguments = [p for p in command.params if isinstance(p, click.Argument)]
        if arguments:
            argument = arguments[min(position, len(arguments) - 1)]
            if position < len(arguments) or argument.nargs == -1:
                yield from _values(shell, path, argument)


def _option(command: click.Command, word: str) -> click.Option | None:
    name = word.split("=", 1)[0]
    for param in command.params:
        if isinstance(param, click.Option) and name in (*param.opts, *param.secondary_opts):
            return param
    return None


# Parameters that name someone on the roster, by what they may name.
_ROSTER = {
    "character": ("character",), "by": ("character",), "rider": ("character",),
    "driver": ("character",), "passengers": ("character",), "rests": ("character",),
    "conveyance": ("mount", "vehicle"), "name": ("character", "mount", "vehicle"),
}
# Commands whose NAME is a new name (or a map's path), not one of the campaign's.
_NEW_NAME = frozenset({"init", "branch", "encounter start", "encounter add",
                       "roster add-character", "roster add-mount", "roster add-vehicle"})
_DIRECTIONS = {"square": ("N", "NE", "E", "SE", "S", "SW", "W", "NW"),
               "hex": ("N", "NE", "SE", "S", "SW", "NW")}


def _values(shell: Shell, path: list[str], param: click.Parameter) -> Iterator[tuple[str, str]]:
    """What may fill a parameter: its choices, an event number for undo and redo, a campaign,
    a direction, or one of the campaign's names that fits."""
    kind = param.type
    names = shell.names
    if isinstance(kind, click.Choice):
        yield from ((str(choice), "") for choice in kind.choices)
    elif path in (["undo"], ["redo"]) and isinstance(param, click.Argument):
        cancelled = path == ["redo"]
        for seq, type_, was_cancelled in names.events:
            if was_cancelled == cancelled and (cancelled or type_ != "EventsCancelled"):
                yield str(seq), type_
    elif param.name == "campaign":
        yield from ((slug, "campaign") for slug in names.campaigns)
    elif param.name in ("directions", "direction", "facing", "end_facing"):
        yield from ((step, "") for step in _DIRECTIONS.get(names.grid, _DIRECTIONS["square"]))
    elif kind.name == "NAME=N":
        # KIND=N of supplies; a skill's or an attribute's name is the ruleset's to know.
        if path[:1] == ["supplies"]:
            from domain.state import SUPPLY_KINDS

            yield from ((f"{supply}=", "") for supply in SUPPLY_KINDS)
    elif param.name == "name" and " ".join(path) in _NEW_NAME:
        return
    elif path[:1] == ["encounter"] and param.name in ("name", "by"):
        yield from ((name, "combatant") for name in names.combatants)
    elif param.name in _ROSTER:
        suffix = "=" if kind.name == "NAME=MODE" else ""
        for name, what in names.names.items():
            if what in _ROSTER[param.name]:
                yield name + suffix, what


class ShellCompleter(Completer):
    def __init__(self, shell: Shell) -> None:
        self.shell = shell

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Iterator[Completion]:
        words, current, raw = split_partial(document.text_before_cursor)
        seen: set[str] = set()
        try:
            offered = list(candidates(self.shell, words, current))
        except Exception:
            # A half-typed line must never break the prompt.
            return
        for text, meta in offered:
            # A choice given in both cases (N and n) is offered once, as first listed.
            if text.casefold() in seen or not text.casefold().startswith(current.casefold()):
                continue
            seen.add(text.casefold())
            quoted = shlex.quote(text) if not text.endswith("=") else _quoted_key(text)
            yield Completion(quoted, start_position=-raw, display=text, display_meta=meta)


def _quoted_key(text: str) -> str:
    name = text[:-1]
    return (shlex.quote(name) + "=") if shlex.quote(name) == name else f"'{name}='"

"""Words to a command, once: the words after `trek` become the typed command `Trek.handle`
takes, or a typed query (cli/reads.py), and nothing else happens: no store is opened, no file
read or written, nothing printed.

The words are read by the very click tree of the command line (cli/main.py `trek`), so a
command is made by the code that makes it when the GM types it, with the same bounds and
the same sentences: a recording command of the table builds its command and hands it to
`cli.context.record`, which, while words are only being read, hands it back. A read command of
the table stands for a query made from its parameters by name. A command that acts on files or
on the store as a whole (`init`, `branch`, `demo`, `replay`, `map import`, `serve`, `shell`,
`watch`, `campaigns`, any option naming a file) is not the table's: it is refused, without
running, as `NotATableCommand`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from cli.options import QUERY_COMMANDS, TABLE_COMMANDS, Settings
from cli.reads import Query

if TYPE_CHECKING:
    from cli.bootstrap import Root
    from domain.ruleset import Command


class ParseError(Exception):
    """Words that make no command: a usage mistake, with click's sentence (exit 2, HTTP 400)."""


class NotATableCommand(Exception):
    """Words that make a command with no place at a table: it acts on files or on the whole
    store (HTTP 403)."""


@dataclass(frozen=True)
class Parsed:
    """What the words said: the command or query, whether to preview it, the store
    settings named among them (`--db`, `--campaign`, `--gm`, `--json`), and the party a
    recording command acts on (`--party`; None: the party in use)."""

    command: Command | Query
    preview: bool
    named: frozenset[str]
    path: tuple[str, ...]
    party: str | None = None


def parse(words: Sequence[str], root: Root | None = None) -> Command | Query:
    """The command or query the words after `trek` make, with the commands of `root` (the
    composition root's rulesets; the shipped ones when None). Raises ParseError,
    NotATableCommand, or the rules' TrackerError for a value out of its bounds."""
    return read(words, root).command


def read(words: Sequence[str], root: Root | None = None) -> Parsed:
    """`parse`, with what else the words said (--preview, the store settings named)."""
    from cli.main import trek

    settings = Settings(parsing=True, root=root)
    try:
        _refuse_printing(trek, None, "trek", list(words))
        # No help option: help is printed, and a request is answered with a document.
        ctx = trek.make_context("trek", list(words), obj=settings, help_option_names=[])
        with ctx:
            return _read_command(ctx, settings)
    except click.exceptions.NoArgsIsHelpError as error:
        path = " ".join(_path(error.ctx)) if error.ctx is not None else "trek"
        raise ParseError(f"`{path}` needs a command after it; `{path} --help` lists them") \
            from None
    except click.NoSuchOption as error:
        from cli.main import no_such_option

        # The command's own options, as the command line names them.
        raise ParseError(no_such_option(error).format_message()) from None
    except click.UsageError as error:
        raise ParseError(error.format_message()) from None
    except click.exceptions.Exit:
        raise ParseError("give a command's words, not an option that prints and ends") from None


def _path(ctx: click.Context) -> list[str]:
    names: list[str] = []
    at: click.Context | None = ctx
    while at is not None:
        names.insert(0, at.info_name or "trek")
        at = at.parent
    return names


def _read_command(ctx: click.Context, settings: Settings) -> Parsed:
    group = ctx.command
    while isinstance(group, click.Group):
        args = [*ctx._protected_args, *ctx.args]
        if not args:
            if group.invoke_without_command:
                raise NotATableCommand(_elsewhere(_path(ctx)[1:]))
            ctx.fail("Missing command.")
        name, found, rest = group.resolve_command(ctx, args)
        assert found is not None
        assert name is not None
        _refuse_printing(found, ctx, name, rest)
        _refuse_other_than_the_table(ctx, found, name, rest)
        ctx = found.make_context(name, rest, parent=ctx)
        group = found
    command = ctx.command
    path = tuple(_path(ctx)[1:])
    named = frozenset(settings.explicit)
    with ctx:
        if command.callback in QUERY_COMMANDS:
            query = _query(QUERY_COMMANDS[command.callback](), ctx)
            return Parsed(query, settings.preview, named, path)
        from cli.context import Parsed as Handed

        try:
            command.invoke(ctx)
        except Handed as handed:
            return Parsed(handed.command, settings.preview, named, path, settings.party)
    raise RuntimeError(f"`{' '.join(path)}` made no command")


def _given(command: click.Command, parent: click.Context | None, name: str,
           args: list[str]) -> tuple[click.Context, dict[str, Any]]:
    """The command's parameters named in `args`, as words: nothing is converted yet."""
    probe = click.Context(command, info_name=name, parent=parent,
                          **{**command.context_settings, "help_option_names": []})
    given, _, _ = command.make_parser(probe).parse_args(args=list(args))
    return probe, given


def _refuse_printing(command: click.Command, parent: click.Context | None, name: str,
                     args: list[str]) -> None:
    """Refuse an option that prints and ends (`--version`) before click runs it."""
    probe, given = _given(command, parent, name, args)
    for param in command.get_params(probe):
        if param.is_eager and not param.expose_value and given.get(param.name) is not None:
            raise ParseError(f"{param.opts[0]} is not available through the API; give a "
                             "command's words")


def _refuse_other_than_the_table(parent: click.Context, command: click.Command, name: str,
                                 args: list[str]) -> None:
    """Refuse, before its words are converted (a path's type looks at the disk), a command
    that is not the table's or an option that names a file."""
    if isinstance(command, click.Group):
        return
    path = [*_path(parent)[1:], name]
    if command.callback not in TABLE_COMMANDS and command.callback not in QUERY_COMMANDS:
        raise NotATableCommand(_elsewhere(path))
    probe, given = _given(command, parent, name, args)
    for param in command.get_params(probe):
        if isinstance(param.type, click.Path | click.File) and given.get(param.name) is not None:
            flag = param.opts[0] if isinstance(param, click.Option) else param.human_readable_name
            raise NotATableCommand(
                f"{flag} is not available through the API: it reads or writes a file; run "
                f"`trek {' '.join(path)} {flag}` with the trek command line")


def _elsewhere(path: Sequence[str]) -> str:
    said = " ".join(path)
    return (f"`{said}` is not available through the API: it acts on files or on the whole "
            f"store, not at the table; run `trek {said}` with the trek command line")


def _query(kind: type[Any], ctx: click.Context) -> Query:
    """The query a read command's parameters make, by name; a parameter the query has no
    field for chooses another output (a CSV, a picture), which the API does not give."""
    fields = {field.name for field in dataclasses.fields(kind)}
    for param in ctx.command.params:
        if param.name is None or param.name in fields or param.name in kind.shown:
            continue
        if ctx.params.get(param.name) not in (None, False, ()):
            flag = param.opts[0] if isinstance(param, click.Option) else param.name
            raise NotATableCommand(
                f"{flag} is not available through the API: it answers with the document "
                f"--json prints; run `trek {' '.join(_path(ctx)[1:])} {flag}` with the trek "
                "command line")
    query = kind(**{name: ctx.params[name] for name in fields if name in ctx.params})
    assert isinstance(query, Query)
    return query

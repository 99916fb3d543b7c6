"""Every `trek` command and subcommand explains itself, and every leaf takes --json."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from cli.main import trek


def walk(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], click.Command]]:
    """Every command under `command` (itself included) with the words that reach it."""
    yield path, command
    if isinstance(command, click.Group):
        # Through click's own lookup, which loads each command as `trek NAME` would.
        ctx = click.Context(command)
        for name in sorted(command.list_commands(ctx)):
            sub = command.get_command(ctx, name)
            assert sub is not None, name
            yield from walk(sub, (*path, name))


COMMANDS = list(walk(trek))
LEAVES = [(path, command) for path, command in COMMANDS if not isinstance(command, click.Group)]


def ids(entries: list[tuple[tuple[str, ...], click.Command]]) -> list[str]:
    return [" ".join(("trek", *path)) for path, _ in entries]


def test_the_walk_finds_the_documented_commands() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    for expected in ("init", "map show", "roster add-character", "roster add-mount",
                     "roster add-vehicle", "roster assign", "roster dismount", "roster leave",
                     "roster rejoin", "supplies", "day start", "day end", "move", "shortcut",
                     "forced-march", "night-travel", "forage", "repair", "harm", "status",
                     "log", "undo", "redo", "replay"):
        assert expected in names
    assert len(LEAVES) >= 25


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=ids(COMMANDS))
def test_every_command_has_help(path: tuple[str, ...], command: click.Command) -> None:
    assert command.help is not None
    assert command.help.strip()
    assert command.get_short_help_str().strip()

    result = CliRunner().invoke(trek, [*path, "--help"], prog_name="trek")
    assert result.exit_code == 0, result.output
    assert result.exception is None
    assert result.output.startswith(f"Usage: {' '.join(('trek', *path))}")
    first_line = command.help.strip().splitlines()[0]
    assert first_line.split()[0] in result.output


@pytest.mark.parametrize(("path", "command"), LEAVES, ids=ids(LEAVES))
def test_every_leaf_command_accepts_json(path: tuple[str, ...], command: click.Command) -> None:
    options = {opt for param in command.params for opt in getattr(param, "opts", [])}
    assert "--json" in options
    [json_param] = [p for p in command.params if "--json" in getattr(p, "opts", [])]
    assert isinstance(json_param, click.Option)
    assert json_param.is_flag
    # And it is explained in the command's own help.
    result = CliRunner().invoke(trek, [*path, "--help"], prog_name="trek")
    assert "--json" in result.output
    for param in command.params:
        if isinstance(param, click.Option) and param.name != "help":
            assert param.help, f"{' '.join(path)} {param.opts[0]} has no help"

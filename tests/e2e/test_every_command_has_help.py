"""Every trek command explains itself and takes --json."""

from __future__ import annotations

import click
from click.testing import CliRunner

from cli.main import trek

Found = list[tuple[tuple[str, ...], click.Command]]


def walk(group: click.Group, path: tuple[str, ...] = ()) -> Found:
    found: Found = []
    ctx = click.Context(group)
    # Through click's own lookup, which loads each command as `trek NAME` would.
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        found.append(((*path, name), command))
        if isinstance(command, click.Group):
            found += walk(command, (*path, name))
    return found


def test_every_command_has_help_and_leaf_commands_take_json() -> None:
    runner = CliRunner()
    commands = walk(trek)
    assert len(commands) > 25
    for path, command in commands:
        assert (command.help or "").strip(), path
        result = runner.invoke(trek, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        if not isinstance(command, click.Group):
            assert any("--json" in p.opts for p in command.params), path

"""Every `trek` command and subcommand explains itself, and every leaf takes --json."""

from __future__ import annotations

from collections.abc import Iterator

import click
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


def test_the_walk_finds_the_documented_commands() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    for expected in ("init", "map show", "roster add-character", "roster add-mount",
                     "roster add-vehicle", "roster assign", "roster dismount", "roster leave",
                     "roster rejoin", "supplies", "day start", "day end", "move", "shortcut",
                     "forced-march", "night-travel", "forage", "repair", "harm", "status",
                     "log", "undo", "redo", "replay"):
        assert expected in names
    assert len(LEAVES) >= 25


def help_problems(path: tuple[str, ...], command: click.Command) -> list[str]:
    """What is wrong with a command's help (nothing, for a command that explains itself)."""
    name = " ".join(("trek", *path))
    if command.help is None or not command.help.strip():
        return [f"{name} has no help"]
    problems = []
    if not command.get_short_help_str().strip():
        problems.append(f"{name} has no short help")
    result = CliRunner().invoke(trek, [*path, "--help"], prog_name="trek")
    if result.exit_code != 0 or result.exception is not None:
        problems.append(f"{name} --help failed: {result.output}")
    if not result.output.startswith(f"Usage: {name}"):
        problems.append(f"{name} --help does not start with its usage")
    if command.help.strip().splitlines()[0].split()[0] not in result.output:
        problems.append(f"{name} --help does not show its help")
    return problems


def json_problems(path: tuple[str, ...], command: click.Command) -> list[str]:
    """What is wrong with a leaf command's --json and option help."""
    name = " ".join(("trek", *path))
    json_params = [p for p in command.params if "--json" in getattr(p, "opts", [])]
    if len(json_params) != 1 or not isinstance(json_params[0], click.Option) \
            or not json_params[0].is_flag:
        return [f"{name} has no --json flag"]
    problems = []
    result = CliRunner().invoke(trek, [*path, "--help"], prog_name="trek")
    if "--json" not in result.output:
        problems.append(f"{name} --help does not explain --json")
    problems += [f"{name} {param.opts[0]} has no help" for param in command.params
                 if isinstance(param, click.Option) and param.name != "help" and not param.help]
    return problems


def test_every_command_has_help() -> None:
    assert [p for path, command in COMMANDS for p in help_problems(path, command)] == []


def test_every_leaf_command_accepts_json() -> None:
    assert [p for path, command in LEAVES for p in json_problems(path, command)] == []


def test_the_checks_find_a_command_without_help_or_json() -> None:
    @click.command()
    @click.option("--quiet", is_flag=True)
    def bare(quiet: bool) -> None:
        pass

    assert help_problems(("bare",), bare) == ["trek bare has no help"]
    assert json_problems(("bare",), bare) == ["trek bare has no --json flag"]

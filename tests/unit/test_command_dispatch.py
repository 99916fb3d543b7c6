"""Each shared command names the campaign's method that decides it (`Command.decide_in`), and
every other command goes to the campaign's ruleset."""

from __future__ import annotations

import typing
from typing import Any

from domain.campaign import Campaign
from domain.commands.catalogue import SHARED
from domain.commands.encounter import Act
from domain.commands.history import Redo, Undo
from domain.ruleset import Command


class _Asked:
    """Stands in for a campaign: says which of its methods a command asked for."""

    def __getattr__(self, name: str) -> Any:
        return lambda command: (name, command)


def _asked(kind: type[Command]) -> str:
    command = object.__new__(kind)  # no fields needed to ask where it goes
    name, given = kind.decide_in(command, _Asked())  # type: ignore[arg-type]
    assert given is command
    return str(name)


def test_every_shared_command_names_a_method_of_its_own_and_the_rest_go_to_the_ruleset(
        ) -> None:
    methods = {name for name in vars(Campaign)
               if name.startswith("decide_") and name != "decide_by_ruleset"}
    asked = {kind: _asked(kind) for kind in SHARED}
    to_ruleset = {kind for kind, name in asked.items() if name == "decide_by_ruleset"}
    # The application decides undo and redo before a campaign sees them; an action is the
    # ruleset's to read.
    assert to_ruleset == {Act, Undo, Redo}
    own = {kind: name for kind, name in asked.items() if kind not in to_ruleset}
    assert sorted(own.values()) == sorted(methods)  # each method, by exactly one command
    for kind, name in own.items():
        hints = typing.get_type_hints(vars(Campaign)[name],
                                      localns={k.__name__: k for k in SHARED})
        assert hints["command"] is kind, name


def test_a_rulesets_own_command_goes_to_the_ruleset() -> None:
    from domain.besm.commands import COMMANDS

    assert COMMANDS
    for kind in COMMANDS:
        assert _asked(kind) == "decide_by_ruleset", kind


def test_the_catalogue_holds_every_shared_command_class() -> None:
    """What the table's API takes: every command class of the shared modules (each module of
    `domain.commands`, found on disk), once."""
    import importlib
    import pkgutil

    import domain.commands

    modules = [importlib.import_module(f"domain.commands.{info.name}")
               for info in pkgutil.iter_modules(domain.commands.__path__)]
    assert {"days", "encounter", "rounds", "travel"} <= {m.__name__.rpartition(".")[2]
                                                         for m in modules}
    found = {value for module in modules
             for value in vars(module).values()
             if isinstance(value, type) and issubclass(value, Command) and value is not Command}
    assert found == set(SHARED)
    assert len(SHARED) == len(set(SHARED)) == 29

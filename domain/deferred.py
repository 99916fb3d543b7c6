"""A ruleset named before it is loaded: what the registry knows of it without importing it."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from domain.ruleset import Ruleset


@dataclass(frozen=True)
class Deferred:
    """A ruleset whose package is imported the first time a campaign of it is played, so a
    command loads its campaign's ruleset and no other.

    This module imports nothing of Trek's: `trek --help` reads the entries (the commands a
    ruleset's command line adds, with their one-line help) without loading any ruleset.
    """

    name: str
    # The package holding the ruleset (its events live under it) and the class there.
    package: str
    attribute: str
    # Its command-line module, as the ruleset itself says (checked when it loads).
    command_line: str | None
    # The top-level commands that module adds, each with the first paragraph of its help
    # (checked against the commands themselves by the tests).
    commands: tuple[tuple[str, str], ...] = ()

    def load(self) -> Ruleset:
        ruleset: Ruleset = getattr(importlib.import_module(self.package), self.attribute)()
        if (ruleset.name, ruleset.command_line) != (self.name, self.command_line):
            raise RuntimeError(f"the registry's entry for {self.name!r} does not match "
                               f"{self.package}.{self.attribute}")
        return ruleset

    def holds(self, module: str) -> bool:
        """Whether `module` (an event's, say) is this ruleset's package or inside it."""
        return module == self.package or module.startswith(self.package + ".")

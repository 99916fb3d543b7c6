"""A ruleset named before it is loaded: what the registry knows of it without importing it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from domain.ruleset import Ruleset


class Deferred(NamedTuple):
    """A ruleset whose package is imported the first time a campaign of it is played, so a
    command loads its campaign's ruleset and no other.

    `load` is a function that imports the ruleset and makes it (a plain import in its body,
    checked by mypy), never a module or attribute name looked up at run time. This module
    imports nothing of Trek's.
    """

    name: str
    # The package its events live under: a stored event's topic is matched against it, to
    # know which ruleset to load for that event (the package is never imported by this name).
    package: str
    load_rules: Callable[[], Ruleset]

    def load(self) -> Ruleset:
        ruleset = self.load_rules()
        if ruleset.name != self.name or not self.holds(type(ruleset).__module__):
            raise RuntimeError(f"the registry's entry for {self.name!r} loaded "
                               f"{type(ruleset).__qualname__} ({ruleset.name!r}), which is "
                               f"not under {self.package}")
        return ruleset

    def holds(self, module: str) -> bool:
        """Whether `module` (an event's, say) is this ruleset's package or inside it."""
        return module == self.package or module.startswith(self.package + ".")

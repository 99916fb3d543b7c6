"""Shadowrun (walk and run across Initiative Passes): a campaign may be played under it; its seed
has no overland rules, and its encounters move by Initiative Pass."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain.shadowrun.rules import Shadowrun

__all__ = ["DEFAULT_SPRINT_TN", "SPRINT_ROLL", "Shadowrun"]

# The target number of a sprint test unless the GM gives one (RULES §9); here, where the
# command line reads it without loading the rules.
DEFAULT_SPRINT_TN = 4
# The label a sprint's dice are rolled (and recorded) under; here, where the rules read it
# without loading the ruleset's commands.
SPRINT_ROLL = "athletics (running)"


def __getattr__(name: str) -> Any:
    # The rules load when first asked for (the registry's entry): the ruleset's commands and
    # events can be imported without them.
    if name == "Shadowrun":
        from domain.shadowrun.rules import Shadowrun

        return Shadowrun
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

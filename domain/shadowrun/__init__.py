"""Shadowrun (walk and run across Initiative Passes): a campaign may be played under it; its seed
has no overland rules, and its encounters move by Initiative Pass."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain.shadowrun.rules import Shadowrun

__all__ = ["Shadowrun"]


def __getattr__(name: str) -> Any:
    # The rules load when first asked for (the registry's entry): the ruleset's commands and
    # events can be imported without them.
    if name == "Shadowrun":
        from domain.shadowrun.rules import Shadowrun

        return Shadowrun
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

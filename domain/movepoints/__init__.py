"""The Move-Point system (points from actions, the free point, steps, movement types, transit
across rounds): encounter movement under RULES.md §10; its seed has no overland rules."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain.movepoints.rules import Movepoints

__all__ = ["Movepoints"]


def __getattr__(name: str) -> Any:
    # The rules load when first asked for (the registry's entry): the ruleset's commands and
    # events can be imported without them.
    if name == "Movepoints":
        from domain.movepoints.rules import Movepoints

        return Movepoints
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

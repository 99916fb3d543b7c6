"""Cypher long-term travel (miles a day, terrain, exact fractions, transit)."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain.cypher.rules import Cypher

__all__ = ["Cypher"]


def __getattr__(name: str) -> Any:
    # The rules load when first asked for (the registry's entry): the ruleset's commands and
    # events can be imported without them.
    if name == "Cypher":
        from domain.cypher.rules import Cypher

        return Cypher
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

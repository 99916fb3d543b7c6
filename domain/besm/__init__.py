"""BESM overland travel (squares a day, forced marches, strain, repair, rest)."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain.besm.rules import Besm

__all__ = ["Besm"]


def __getattr__(name: str) -> Any:
    # The rules load when first asked for (the registry's entry): the ruleset's commands and
    # events can be imported without them.
    if name == "Besm":
        from domain.besm.rules import Besm

        return Besm
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

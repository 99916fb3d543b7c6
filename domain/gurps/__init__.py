"""GURPS: a campaign may be played under it; its seed has no overland rules, and its encounters
are fought on hexes with movement points, facing and posture."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain.gurps.rules import Gurps

__all__ = ["POSTURES", "Gurps"]

# The postures a fighter may take (RULES §8); here, where the command line reads them without
# loading the rules.
POSTURES = ("standing", "crouching", "kneeling", "crawling", "lying", "sitting")


def __getattr__(name: str) -> Any:
    # The rules load when first asked for (the registry's entry): the ruleset's commands and
    # events can be imported without them.
    if name == "Gurps":
        from domain.gurps.rules import Gurps

        return Gurps
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

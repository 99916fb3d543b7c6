"""The Move-Point system (points from actions, the free point, steps, movement types, transit
across rounds): encounter movement under RULES.md §10; its seed has no overland rules."""

from domain.movepoints.rules import Movepoints

__all__ = ["Movepoints"]

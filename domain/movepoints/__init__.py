"""the Move-Point system (points from actions, steps, transit): a campaign may be played under it;
its seed has no overland rules, and its encounter rules are not in this release yet."""

from domain.movepoints.rules import Movepoints

__all__ = ["Movepoints"]

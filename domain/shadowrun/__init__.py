"""Shadowrun (walk and run across Initiative Passes): a campaign may be played under it; its seed
has no overland rules, and its encounter rules are not in this release yet."""

from domain.shadowrun.rules import Shadowrun

__all__ = ["Shadowrun"]

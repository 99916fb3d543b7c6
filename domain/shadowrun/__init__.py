"""Shadowrun (walk and run across Initiative Passes): a campaign may be played under it; its seed
has no overland rules, and its encounters move by Initiative Pass."""

from domain.shadowrun.rules import Shadowrun

__all__ = ["Shadowrun"]

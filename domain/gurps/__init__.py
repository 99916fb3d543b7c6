"""GURPS: a campaign may be played under it; its seed has no overland rules, and its encounters
are fought on hexes with movement points, facing and posture."""

from domain.gurps.rules import Gurps

__all__ = ["Gurps"]

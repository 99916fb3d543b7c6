"""GURPS (hex movement points, facing and posture): a campaign may be played under it; its seed has
no overland rules, and its encounter rules are not in this release yet."""

from domain.gurps.rules import Gurps

__all__ = ["Gurps"]

"""BESM overland travel (squares a day, forced marches, strain, repair, rest)."""

from domain.besm.rules import Besm

__all__ = ["Besm"]

"""Cypher long-term travel (miles a day, terrain, exact fractions, transit)."""

from domain.cypher.rules import Cypher

__all__ = ["Cypher"]

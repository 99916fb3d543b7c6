"""Cypher's own part of the game state: today's share of the day, and a square under way."""

from pydantic import BaseModel, ConfigDict

from domain.geometry import Square
from domain.state import Game, Slice


class Transit(BaseModel):
    """The party is part-way toward a square whose cost is not yet paid."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    to: Square
    remaining: str


class Journey(Slice):
    """Today's travel kept as an exact fraction of the day ("p/q"), the miles of the squares
    arrived on today, and the square the party is under way to, across days."""

    spent: str = "0"
    miles: int = 0
    transit: Transit | None = None


def journey(game: Game) -> Journey:
    return Journey.read(game)

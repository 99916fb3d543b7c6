"""Squares on the travel grid and the eight compass steps between them."""

from __future__ import annotations

from typing import NamedTuple

from domain.bounds import MAX_COORDINATE
from domain.compass import DIRECTIONS as DIRECTIONS


class Square(NamedTuple):
    """A grid square: x is the column from the left, y the row from the top."""

    x: int
    y: int

    def step(self, direction: str) -> Square:
        dx, dy = DIRECTIONS[direction]
        return Square(self.x + dx, self.y + dy)

    def is_adjacent_or_same(self, other: Square) -> bool:
        return max(abs(self.x - other.x), abs(self.y - other.y)) <= 1

    def as_dict(self) -> dict[str, int]:
        return {"x": self.x, "y": self.y}




def parse_square(text: str) -> Square:
    """Read `X,Y` as a square; raises ValueError with a plain reason."""
    parts = text.replace(" ", "").split(",")
    if len(parts) != 2:
        raise ValueError(f"{text!r} is not a square; write it as X,Y (for example 3,4)")
    try:
        square = Square(int(parts[0]), int(parts[1]))
    except ValueError:
        raise ValueError(
            f"{text!r} is not a square; write it as X,Y with whole numbers"
        ) from None
    if max(abs(square.x), abs(square.y)) > MAX_COORDINATE:
        raise ValueError(f"{text!r} is too far out; coordinates stay within "
                         f"±{MAX_COORDINATE:,}")
    return square

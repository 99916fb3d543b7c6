"""Squares on the travel grid and the eight compass steps between them."""

from __future__ import annotations

from typing import NamedTuple


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


# N is y-1 and E is x+1 (rows count from the top).
DIRECTIONS: dict[str, tuple[int, int]] = {
    "N": (0, -1),
    "NE": (1, -1),
    "E": (1, 0),
    "SE": (1, 1),
    "S": (0, 1),
    "SW": (-1, 1),
    "W": (-1, 0),
    "NW": (-1, -1),
}


def parse_square(text: str) -> Square:
    """Read `X,Y` as a square; raises ValueError with a plain reason."""
    parts = text.replace(" ", "").split(",")
    if len(parts) != 2:
        raise ValueError(f"{text!r} is not a square; write it as X,Y (for example 3,4)")
    try:
        return Square(int(parts[0]), int(parts[1]))
    except ValueError:
        raise ValueError(
            f"{text!r} is not a square; write it as X,Y with whole numbers"
        ) from None

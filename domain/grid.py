"""The two grids cells sit on: squares with eight neighbours, and flat-topped hexes with six.

Cells are `Square(x, y)` values on both (x the column from the left, y the row from the top).
Hexes are the "odd-q" layout of RULES.md §6: columns of flat-topped hexes, odd columns shifted
half a hex down, directions N NE SE S SW NW.
"""

from __future__ import annotations

from typing import Protocol

from domain.geometry import DIRECTIONS, Square


class Grid(Protocol):
    name: str
    directions: tuple[str, ...]

    def step(self, cell: Square, direction: str) -> Square: ...

    def distance(self, a: Square, b: Square) -> int: ...


class SquareGrid:
    name = "square"
    directions = tuple(DIRECTIONS)

    def step(self, cell: Square, direction: str) -> Square:
        dx, dy = DIRECTIONS[direction]
        return Square(cell.x + dx, cell.y + dy)

    def distance(self, a: Square, b: Square) -> int:
        return max(abs(a.x - b.x), abs(a.y - b.y))


# (dx, dy) for an even column and for an odd one.
_HEX_STEPS: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "N": ((0, -1), (0, -1)),
    "NE": ((1, -1), (1, 0)),
    "SE": ((1, 0), (1, 1)),
    "S": ((0, 1), (0, 1)),
    "SW": ((-1, 0), (-1, 1)),
    "NW": ((-1, -1), (-1, 0)),
}


class HexGrid:
    name = "hex"
    directions = tuple(_HEX_STEPS)

    def step(self, cell: Square, direction: str) -> Square:
        dx, dy = _HEX_STEPS[direction][cell.x % 2]
        return Square(cell.x + dx, cell.y + dy)

    @staticmethod
    def _cube(cell: Square) -> tuple[int, int, int]:
        q = cell.x
        r = cell.y - (cell.x - (cell.x & 1)) // 2
        return q, r, -q - r

    def distance(self, a: Square, b: Square) -> int:
        aq, ar, as_ = self._cube(a)
        bq, br, bs = self._cube(b)
        return max(abs(aq - bq), abs(ar - br), abs(as_ - bs))


SQUARES = SquareGrid()
HEXES = HexGrid()
GRIDS: dict[str, Grid] = {"square": SQUARES, "hex": HEXES}

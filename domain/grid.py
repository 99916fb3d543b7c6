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
    # What its cells are called ("squares"), and whether odd columns sit half a cell lower
    # (how hexes are laid out and drawn).
    cells: str
    staggered: bool

    def step(self, cell: Square, direction: str) -> Square: ...

    def distance(self, a: Square, b: Square) -> int: ...

    def steps_toward(self, a: Square, b: Square) -> list[str]: ...


class SquareGrid:
    name = "square"
    cells = "squares"
    staggered = False
    directions = tuple(DIRECTIONS)

    def step(self, cell: Square, direction: str) -> Square:
        dx, dy = DIRECTIONS[direction]
        return Square(cell.x + dx, cell.y + dy)

    def distance(self, a: Square, b: Square) -> int:
        return max(abs(a.x - b.x), abs(a.y - b.y))

    def steps_toward(self, a: Square, b: Square) -> list[str]:
        """The directions of a straight line from `a` to `b`: diagonals first, then straight."""
        steps: list[str] = []
        here = a
        while here != b:
            dx = (b.x > here.x) - (b.x < here.x)
            dy = (b.y > here.y) - (b.y < here.y)
            direction = next(d for d, step in DIRECTIONS.items() if step == (dx, dy))
            steps.append(direction)
            here = self.step(here, direction)
        return steps


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
    cells = "hexes"
    staggered = True
    directions = tuple(_HEX_STEPS)

    def step(self, cell: Square, direction: str) -> Square:
        dx, dy = _HEX_STEPS[direction][cell.x % 2]
        return Square(cell.x + dx, cell.y + dy)

    @staticmethod
    def _cube(cell: Square) -> tuple[int, int, int]:
        q = cell.x
        r = cell.y - (cell.x - (cell.x & 1)) // 2
        return q, r, -q - r

    @staticmethod
    def _from_cube(q: int, r: int) -> Square:
        return Square(q, r + (q - (q & 1)) // 2)

    def steps_toward(self, a: Square, b: Square) -> list[str]:
        """The directions of the straight line of hexes from `a` to `b` (as few as the
        distance; a line along a hex edge leans the same way every time)."""
        n = self.distance(a, b)
        aq, ar, _ = self._cube(a)
        bq, br, _ = self._cube(b)
        steps: list[str] = []
        here = a
        for i in range(1, n + 1):
            # A nudge off the edge between two hexes keeps the rounding from wavering.
            q = aq + (bq - aq) * i / n + 1e-6
            r = ar + (br - ar) * i / n + 2e-6
            s = -q - r
            rq, rr, rs = round(q), round(r), round(s)
            dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
            if dq > dr and dq > ds:
                rq = -rr - rs
            elif dr > ds:
                rr = -rq - rs
            there = self._from_cube(rq, rr)
            direction = next(d for d in self.directions if self.step(here, d) == there)
            steps.append(direction)
            here = there
        return steps

    def distance(self, a: Square, b: Square) -> int:
        aq, ar, as_ = self._cube(a)
        bq, br, bs = self._cube(b)
        return max(abs(aq - bq), abs(ar - br), abs(as_ - bs))


SQUARES = SquareGrid()
HEXES = HexGrid()
GRIDS: dict[str, Grid] = {"square": SQUARES, "hex": HEXES}

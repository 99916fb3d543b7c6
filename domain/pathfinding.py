"""The one cheapest-path search every ruleset uses, over either grid.

Dijkstra's search with exact costs (ints or Fractions, never floats). Among paths of the same
cost the one nearest the straight line from start to goal wins (the least summed distance of its
cells from that line), so open ground is crossed straight rather than zig-zag; a tie after that
goes to the cell reached first, in the grid's direction order, so the same question always gets
the same path.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from fractions import Fraction
from itertools import count

from domain.geometry import Square
from domain.grid import Grid

Cost = int | Fraction
# The price of stepping from one cell into the next, or None when that step is refused.
StepCost = Callable[[Square, Square], Cost | None]


def cheapest_path(grid: Grid, start: Square, goal: Square, cost: StepCost, *,
                  may_end: Callable[[Square], bool] = lambda _cell: True,
                  limit: Cost | None = None) -> tuple[list[Square], Cost] | None:
    """The cheapest path from `start` to `goal` (both included) and its cost, or None.

    `may_end` says whether the path may stop on `goal` (a friend's cell may be passed, not
    stood on); `limit` bounds the search, so it ends on an edgeless plain.
    """
    if goal != start and not may_end(goal):
        return None
    order = count()
    off_line = _off_line(grid, start, goal)
    frontier: list[tuple[Cost, int, int, Square]] = [(0, 0, next(order), start)]
    best: dict[Square, tuple[Cost, int]] = {start: (0, 0)}
    came: dict[Square, Square] = {}
    while frontier:
        spent, bend, _, cell = heapq.heappop(frontier)
        if (spent, bend) > best[cell]:
            continue
        if cell == goal:
            path = [cell]
            while path[-1] != start:
                path.append(came[path[-1]])
            return path[::-1], spent
        for direction in grid.directions:
            nxt = grid.step(cell, direction)
            price = cost(cell, nxt)
            if price is None:
                continue
            total = spent + price
            if limit is not None and total > limit:
                continue
            reached = (total, bend + off_line(nxt))
            if nxt not in best or reached < best[nxt]:
                best[nxt] = reached
                came[nxt] = cell
                heapq.heappush(frontier, (*reached, next(order), nxt))
    return None


def _off_line(grid: Grid, start: Square, goal: Square) -> Callable[[Square], int]:
    """How far a cell's centre lies from the straight line from `start` to `goal`, as a whole
    number proportional to the distance (the cross product with the line; a hex grid's odd
    columns sit half a cell lower, counted in half cells), so only its order matters."""
    def centre(cell: Square) -> tuple[int, int]:
        if grid.staggered:
            return cell.x, 2 * cell.y + cell.x % 2
        return cell.x, cell.y

    sx, sy = centre(start)
    gx, gy = centre(goal)
    dx, dy = gx - sx, gy - sy

    def off(cell: Square) -> int:
        px, py = centre(cell)
        return abs(dx * (py - sy) - dy * (px - sx))
    return off

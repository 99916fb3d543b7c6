"""The one cheapest-path search every ruleset uses, over either grid.

Dijkstra's search with exact costs (ints or Fractions, never floats). Ties go to the cell
reached first, in the grid's direction order, so the same question always gets the same path.
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
    frontier: list[tuple[Cost, int, Square]] = [(0, next(order), start)]
    best: dict[Square, Cost] = {start: 0}
    came: dict[Square, Square] = {}
    while frontier:
        spent, _, cell = heapq.heappop(frontier)
        if spent > best[cell]:
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
            if nxt not in best or total < best[nxt]:
                best[nxt] = total
                came[nxt] = cell
                heapq.heappush(frontier, (total, next(order), nxt))
    return None

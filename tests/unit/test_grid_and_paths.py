"""The two grids and the one cheapest-path search, by hand from RULES §6 and as properties."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.geometry import Square
from domain.grid import HEXES, SQUARES, Grid
from domain.pathfinding import cheapest_path


@pytest.mark.parametrize(("start", "direction", "end"), [
    # RULES §6: in an even column NE is (x+1, y-1) and SE is (x+1, y) ...
    (Square(2, 2), "NE", Square(3, 1)), (Square(2, 2), "SE", Square(3, 2)),
    # ... in an odd column NE is (x+1, y) and SE is (x+1, y+1); N and S change y only;
    (Square(3, 2), "NE", Square(4, 2)), (Square(3, 2), "SE", Square(4, 3)),
    (Square(3, 2), "N", Square(3, 1)), (Square(2, 2), "S", Square(2, 3)),
    # NW and SW mirror NE and SE.
    (Square(2, 2), "NW", Square(1, 1)), (Square(2, 2), "SW", Square(1, 2)),
    (Square(3, 2), "NW", Square(2, 2)), (Square(3, 2), "SW", Square(2, 3)),
])
def test_hex_steps_follow_the_odd_q_layout(start: Square, direction: str, end: Square) -> None:
    assert HEXES.step(start, direction) == end


def test_squares_have_eight_neighbours_and_hexes_six() -> None:
    assert SQUARES.directions == ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
    assert HEXES.directions == ("N", "NE", "SE", "S", "SW", "NW")
    assert SQUARES.step(Square(0, 0), "NW") == Square(-1, -1)


CELLS = st.builds(Square, st.integers(-20, 20), st.integers(-20, 20))
GRIDS = st.sampled_from([SQUARES, HEXES])


@given(GRIDS, CELLS)
def test_every_neighbour_is_one_step_away_and_leads_back(grid: Grid, cell: Square) -> None:
    for direction in grid.directions:
        nxt = grid.step(cell, direction)
        assert grid.distance(cell, nxt) == 1
        assert any(grid.step(nxt, back) == cell for back in grid.directions)


@given(GRIDS, CELLS, CELLS, CELLS)
def test_distance_is_a_metric(grid: Grid, a: Square, b: Square, c: Square) -> None:
    assert grid.distance(a, b) == grid.distance(b, a)
    assert (grid.distance(a, b) == 0) == (a == b)
    assert grid.distance(a, c) <= grid.distance(a, b) + grid.distance(b, c)


def _brute_force(grid: Grid, start: Square, goal: Square, costs: dict[Square, int],
                 longest: int) -> int | None:
    """The cheapest cost by trying every walk of up to `longest` steps inside the board."""
    best: int | None = None
    for length in range(longest + 1):
        for directions in itertools.product(grid.directions, repeat=length):
            here, total = start, 0
            for direction in directions:
                here = grid.step(here, direction)
                if here not in costs:
                    break
                total += costs[here]
            else:
                if here == goal and (best is None or total < best):
                    best = total
    return best


@settings(max_examples=40, deadline=None)
@given(GRIDS, st.lists(st.integers(0, 3), min_size=9, max_size=9), st.data())
def test_the_path_found_is_the_cheapest_and_costs_the_sum_of_its_steps(
        grid: Grid, weights: list[int], data: st.DataObject) -> None:
    # A 3×3 board; weight 0 is a wall, 1-3 the cost of entering the cell.
    board = {Square(i % 3, i // 3): w for i, w in enumerate(weights)}
    costs = {cell: w for cell, w in board.items() if w}
    start = data.draw(st.sampled_from(sorted(board)))
    goal = data.draw(st.sampled_from(sorted(board)))

    def step(_here: Square, there: Square) -> int | None:
        return costs.get(there)

    found = cheapest_path(grid, start, goal, step)
    expected = _brute_force(grid, start, goal, costs, 5)
    if found is None:
        assert expected is None
        return
    path, total = found
    assert (path[0], path[-1]) == (start, goal)
    assert total == sum(costs[cell] for cell in path[1:])
    assert all(cell in costs for cell in path[1:])
    assert expected is not None
    assert total == expected


def test_a_cell_that_may_be_passed_but_not_ended_on_is_never_the_end() -> None:
    friend = Square(1, 0)
    found = cheapest_path(SQUARES, Square(0, 0), Square(2, 0), lambda _a, _b: 1,
                          may_end=lambda cell: cell != friend)
    assert found is not None
    assert found[1] == 2
    assert cheapest_path(SQUARES, Square(0, 0), friend, lambda _a, _b: 1,
                         may_end=lambda cell: cell != friend) is None


def test_the_limit_ends_a_search_on_an_edgeless_plain() -> None:
    assert cheapest_path(SQUARES, Square(0, 0), Square(50, 0), lambda _a, _b: 1,
                         limit=10) is None
    found = cheapest_path(HEXES, Square(0, 0), Square(0, 3), lambda _a, _b: Fraction(1, 2),
                          limit=2)
    assert found is not None
    assert found[1] == Fraction(3, 2)


def _cells(*pairs: tuple[int, int]) -> list[Square]:
    return [Square(x, y) for x, y in pairs]


# Each ruleset's open ground: a step costs the same in every direction (BESM, Cypher and the
# Move-Point tiles on squares, Shadowrun's metres on squares, GURPS's hexes), and a diagonal
# step on squares costs what a straight one does, so many paths tie.
@pytest.mark.parametrize(("grid", "start", "goal", "straight"), [
    # The case: 0,3 to 3,3 goes along row 3, not 0,3 1,2 2,3 3,3.
    (SQUARES, Square(0, 3), Square(3, 3), _cells((0, 3), (1, 3), (2, 3), (3, 3))),
    (SQUARES, Square(2, 0), Square(2, 4), _cells((2, 0), (2, 1), (2, 2), (2, 3), (2, 4))),
    (SQUARES, Square(0, 0), Square(3, 3), _cells((0, 0), (1, 1), (2, 2), (3, 3))),
    # 0,0 to 4,2: four steps whatever the path; the ones nearest the line y = x/2.
    (SQUARES, Square(0, 0), Square(4, 2), _cells((0, 0), (1, 0), (2, 1), (3, 1), (4, 2))),
    # Hexes: straight down a column.
    (HEXES, Square(2, 1), Square(2, 4), _cells((2, 1), (2, 2), (2, 3), (2, 4))),
])
@pytest.mark.parametrize("step", [1, Fraction(3, 2)])
def test_ties_among_cheapest_paths_go_to_the_straight_line(
        grid: Grid, start: Square, goal: Square, straight: list[Square], step: Fraction) -> None:
    found = cheapest_path(grid, start, goal, lambda _a, _b: step)
    assert found is not None
    path, cost = found
    assert path == straight
    assert cost == step * (len(straight) - 1)

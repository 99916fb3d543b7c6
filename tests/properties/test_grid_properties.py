"""The straight line of steps the fight ruler gives (domain/grid.py `steps_toward`): followed
from `a` it ends on `b`, and takes no more steps than the grid's distance."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.geometry import Square
from domain.grid import HEXES, SQUARES, Grid

cells = st.builds(Square, st.integers(-40, 40), st.integers(-40, 40))


def _follow(grid: Grid, start: Square, steps: list[str]) -> Square:
    here = start
    for direction in steps:
        here = grid.step(here, direction)
    return here


@given(cells, cells, st.sampled_from([HEXES, SQUARES]))
def test_the_steps_reach_the_target_in_the_fewest_steps(a: Square, b: Square,
                                                        grid: Grid) -> None:
    steps = grid.steps_toward(a, b)
    assert _follow(grid, a, steps) == b
    assert len(steps) == grid.distance(a, b)


@given(cells, cells)
def test_each_hex_of_the_line_is_a_step_closer(a: Square, b: Square) -> None:
    """A straight line never turns back: each hex is one nearer the target than the last."""
    here = a
    for direction in HEXES.steps_toward(a, b):
        there = HEXES.step(here, direction)
        assert HEXES.distance(there, b) == HEXES.distance(here, b) - 1
        here = there

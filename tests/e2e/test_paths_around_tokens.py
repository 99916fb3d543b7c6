"""An earlier round's path never runs through a token that stands on it now, as if it were that
token's own: it bends around it (`encounter show --svg`, the pages' battle map)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

from cliruns import ok
from conftest import TrekRun


def _segment_distance(p: tuple[float, float], a: tuple[float, float],
                      b: tuple[float, float]) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    share = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / ((dx * dx + dy * dy) or 1)))
    return math.hypot(px - (ax + share * dx), py - (ay + share * dy))


def test_a_round_one_path_bends_around_a_token_that_stands_on_it_in_round_two(
        tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    # Ann walks 0,0 → 4,0 in round 1; in round 2 Bo ends on 2,0, a square of her path.
    for words in (("init", "Ford", "--ruleset", "besm"),
                  ("roster", "add-character", "Ann", "--body", "6", "--mind", "4", "--soul", "4"),
                  ("roster", "add-character", "Bo", "--body", "6", "--mind", "4", "--soul", "4"),
                  ("encounter", "start", "Crossing"),
                  ("encounter", "join", "Ann", "--at", "0,0"),
                  ("encounter", "join", "Bo", "--at", "0,2"),
                  ("encounter", "round"),
                  ("encounter", "move", "Ann", "E", "E", "E", "E"),
                  ("encounter", "round"),
                  ("encounter", "move", "Bo", "NE", "NE"),
                  ("encounter", "show", "--svg", "fight.svg")):
        ok(trek_run(*words))
    svg = (tmp_path / "fight.svg").read_text()
    bo = re.search(r'data-name="Bo"[^>]*>(?:<polygon[^>]*>)?<circle cx="([\d.]+)" '
                   r'cy="([\d.]+)" r="([\d.]+)"', svg)
    assert bo is not None
    centre, radius = (float(bo.group(1)), float(bo.group(2))), float(bo.group(3))
    ann = re.search(r'<polyline class="path" data-name="Ann" data-round="1"[^>]* '
                    r'points="([^"]+)"', svg)
    assert ann is not None
    points = [(float(x), float(y)) for x, y in
              (pair.split(",") for pair in ann.group(1).split())]
    assert len(points) == 5
    # Every stretch of her line keeps clear of Bo's token (its ring and the line's width).
    closest = min(_segment_distance(centre, a, b) for a, b in pairwise(points))
    assert closest > radius + 1.5
    # Bo's own path, of this round, still ends at his token.
    assert 'data-name="Bo" data-round="2" points=' in svg

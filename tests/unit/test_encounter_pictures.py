"""The terminal and SVG pictures of an encounter: hex rows offset, facing drawn."""

from __future__ import annotations

from typing import Any

from cli.render import encounter_lines
from cli.svg import encounter_svg


def hex_doc(**facing: str) -> dict[str, Any]:
    return {
        "name": "Hexes", "ruleset": "gurps", "grid": "hex", "round": 1,
        "map": {"name": "three by two", "width": 3, "height": 2, "rows": ["...", ".#."],
                "legend": {".": {"terrain": "open"}, "#": {"terrain": "wall"}}},
        "combatants": {
            "Ana": {"side": "party", "position": {"x": 1, "y": 0}, "facing": facing.get("Ana"),
                    "moved": 0, "remaining": 5},
        },
    }


def test_hex_rows_put_odd_columns_on_the_lower_line() -> None:
    lines = ["".join(char for char, _ in line) for line in encounter_lines(hex_doc())]
    # Row 0: columns 0 and 2 on the first line, column 1 (Ana) half a hex lower.
    # Row 1: columns 0 and 2 open, column 1 a wall on the lower line.
    assert lines == [". .", " A ", ". .", " # "]


def test_square_rows_are_drawn_one_line_each() -> None:
    doc = hex_doc()
    doc["grid"] = "square"
    lines = ["".join(char for char, _ in line) for line in encounter_lines(doc)]
    assert lines == [".A.", ".#."]


def test_the_svg_draws_a_facing_wedge_toward_the_faced_neighbour() -> None:
    svg = encounter_svg({**hex_doc(Ana="SE"), "paths": []})
    assert svg.count('class="facing"') == 1
    assert 'data-facing="SE"' in svg
    wedge = svg.split('class="facing"')[1].split('points="')[1].split('"')[0]
    tip_x, tip_y = (float(v) for v in wedge.split()[0].split(","))
    token = svg.split('<circle cx="')[1]
    cx, cy = float(token.split('"')[0]), float(token.split('cy="')[1].split('"')[0])
    # South-east on the screen: right of the token and below it.
    assert tip_x > cx
    assert tip_y > cy
    # Without a facing there is no wedge.
    assert 'class="facing"' not in encounter_svg({**hex_doc(), "paths": []})

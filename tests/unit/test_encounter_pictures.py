"""The terminal and SVG pictures of an encounter: hex rows offset, facing drawn."""

from __future__ import annotations

import re
from typing import Any

from cli.render import encounter_axes, encounter_lines
from cli.svg import encounter_key_html, encounter_svg


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


def test_the_terminal_picture_has_x_over_it_and_y_before_each_line() -> None:
    # Hexes: row 0 and row 1 take two lines each, both labelled with their y.
    assert encounter_axes(hex_doc()) == (["  0 1 2"], ["0 ", "0 ", "1 ", "1 "])
    doc = hex_doc()
    doc["grid"] = "square"
    assert encounter_axes(doc)[1] == ["0 ", "1 "]


def test_wide_and_negative_coordinates_put_the_tens_or_the_minus_over_the_units() -> None:
    wide = hex_doc()
    wide["grid"] = "square"
    wide["map"] = {"name": "wide", "width": 12, "height": 11, "rows": ["." * 12] * 11,
                   "legend": {".": {"terrain": "open"}}}
    header, labels = encounter_axes(wide)
    # Each cell is a character and a space, after a 3-wide y column: x = 10 sits at 3 + 20.
    assert header == [" " * 23 + "1 1",
                      "   0 1 2 3 4 5 6 7 8 9 0 1"]
    assert (labels[0], labels[10]) == (" 0 ", "10 ")
    # An open plain reaches one cell past the combatants: Ana at 0,0 gives -1..1 both ways.
    plain = {**hex_doc(), "grid": "square", "map": None}
    plain["combatants"]["Ana"]["position"] = {"x": 0, "y": 0}
    header, labels = encounter_axes(plain)
    assert header == ["   -", "   1 0 1"]
    assert labels == ["-1 ", " 0 ", " 1 "]


def test_sides_differ_by_shape_as_well_as_colour_and_the_label_is_inside() -> None:
    import re

    doc = hex_doc()
    doc["grid"] = "square"
    doc["combatants"] = {
        name: {"side": side, "position": {"x": x, "y": 0}, "facing": None, "moved": 0,
               "remaining": 5}
        for name, side, x in (("Ana", "party", 0), ("Bel", "ally", 1), ("Cor", "enemy", 2))}
    svg = encounter_svg({**doc, "paths": []})
    shapes = dict(re.findall(r'data-name="(\w+)" data-label="\w+">'
                             r'<(circle|rect|polygon)[^>]*class="token-shape"', svg))
    assert shapes == {"Ana": "circle", "Bel": "rect", "Cor": "polygon"}
    # Okabe and Ito's bluish green, blue and vermilion.
    for name, colour in (("Ana", "#009E73"), ("Bel", "#0072B2"), ("Cor", "#D55E00")):
        token = svg.split(f'data-name="{name}"')[1].split("</g>")[0]
        assert f'fill="{colour}"' in token
        # The label is drawn at the token's centre, inside its shape.
        label = re.search(r'<text class="label" x="([\d.]+)"', token)
        assert label is not None
    # The key shows each side's shape too.
    assert svg.count('class="legend-row"><circle') == 1
    assert svg.count('class="legend-row"><rect') == 1
    assert svg.count('class="legend-row"><polygon') == 1


def test_a_name_that_only_repeats_its_terrain_marks_no_square_but_a_named_scree_does() -> None:
    # An imported map names its ground after its terrain (`.` = open, named "open"; `#` =
    # wall, named "wall"): drawn as plain ground, no mark on each square. A scree (open ground
    # named otherwise) and open ground that costs more still show their marks, on their
    # squares only.
    doc = {**hex_doc(), "grid": "square", "combatants": {}, "paths": [],
           "map": {"name": "hall", "width": 4, "height": 2, "rows": [".#s.", "c..."],
                   "legend": {".": {"terrain": "open", "name": "open"},
                              "#": {"terrain": "wall", "name": "wall"},
                              "s": {"terrain": "open", "name": "scree"},
                              "c": {"terrain": "open", "name": "open", "cost": 8}}}}
    svg = encounter_svg(doc)
    marks = re.findall(r'<text class="ground-mark" x="([\d.]+)" y="([\d.]+)">([^<]*)</text>',
                       svg)
    # Squares are 40 px from a 28 px margin: square (x, y) is centred on 48 + 40x, 48 + 40y.
    assert sorted((float(x), float(y) - 5) for x, y, _ in marks) == [(48.0, 88.0), (128.0, 48.0)]
    assert len({mark for _, _, mark in marks}) == 2
    assert svg.count('class="cell ') == 8


def test_a_page_draws_the_board_alone_and_its_key_apart_every_name_escaped() -> None:
    # hex_doc's map, squared: 3 × 2 squares of 40 px inside a 28 px margin, so the board alone
    # is 176 × 136; its key is the page's, under the map.
    doc = {**hex_doc(), "grid": "square", "round": 2,
           "paths": [{"name": "Ana", "round": 1, "path": [{"x": 0, "y": 0}, {"x": 1, "y": 0}]},
                     {"name": "Ana", "round": 2, "path": [{"x": 1, "y": 0}, {"x": 2, "y": 0}]},
                     {"name": "<i>Bo</i>", "round": 2, "stopped": True,
                      "path": [{"x": 2, "y": 1}]}]}
    doc["map"]["legend"]["#"] = {"terrain": "wall", "name": "<b>rubble</b>"}
    board = encounter_svg(doc, with_key=False)
    assert re.search(r'<svg [^>]*width="176" height="136"', board)
    assert "legend-" not in board
    assert 'class="caption"' not in board
    key = encounter_key_html(doc)
    words = re.findall(r"</svg> ([^<]*)</li>", key)
    assert words == ["open", "&lt;b&gt;rubble&lt;/b&gt; (wall)", "paths of round 1",
                     "paths of round 2", "stopped: &lt;i&gt;Bo&lt;/i&gt;"]
    assert "<b>" not in key
    assert "<i>" not in key
    # The picture a GM saves keeps its key within it.
    assert encounter_svg(doc).count('class="legend-row"') == 1


def test_an_open_plain_with_no_paths_has_no_key_to_show() -> None:
    doc = {**hex_doc(), "grid": "square", "map": None, "paths": []}
    assert encounter_key_html(doc) == ""

"""Loading travel maps from TOML, and refusing the ones a GM could not use."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from domain.besm import Besm
from domain.besm.maps import TERRAINS as BESM_TERRAINS
from domain.besm.maps import Shortcut, find_shortcut, near_shortcut, shortcuts
from domain.cypher import Cypher
from domain.cypher.rules import TERRAINS as CYPHER_TERRAINS
from domain.errors import MapError
from domain.geometry import Square
from domain.maps import Cell, GameMap, MapRules, River, Terrain
from tracker.mapformats.tomlfile import load_map

BESM = Besm()
CYPHER = Cypher()

# The example from RULES.md section 2, verbatim.
ASHEN_REACH = """\
[map]
name = "The Ashen Reach"
rows = [
  "........",
  "..^.....",
  "..^.!...",
]

[legend]
"." = { terrain = "open" }
"," = { terrain = "open", penalty = 1 }                  # rough ground: rolls made here -1
"^" = { terrain = "feature", name = "mountains" }        # impassable unless the group flies
"!" = { terrain = "hazard", name = "ley storm", penalty = 2 }

[[shortcut]]
name = "Kessel Pass"
path = [[2, 1]]          # [x, y] squares the shortcut lets the party cross, features included
bonus = 2                # extra squares of movement granted on success
penalty = 1              # applied to the group's roll
"""

# A '#' inside a row must not be taken for a TOML comment.
LONG_ROAD = """\
[map]
name = "The Long Road"
square_miles = 3
rows = [
  "==rw",
  "d#gr",
]

[legend]
"=" = { terrain = "open", road = true }
"r" = { terrain = "rough" }
"w" = { terrain = "water", name = "Deep Mere" }
"d" = { terrain = "difficult" }
"#" = { terrain = "feature", name = "cliffs" }
"g" = { terrain = "high-gravity" }
"""


def refusal(text: str, rules: MapRules = BESM) -> MapError:
    with pytest.raises(MapError) as info:
        load_map(text, rules)
    return info.value


# --- the example map -----------------------------------------------------------------------


def test_the_rules_example_map_has_the_size_drawn_in_its_rows() -> None:
    game_map = load_map(ASHEN_REACH, BESM)

    assert game_map.name == "The Ashen Reach"
    assert (game_map.width, game_map.height) == (8, 3)
    assert game_map.square_miles == 6


def test_the_rules_example_map_reads_squares_by_column_then_row() -> None:
    game_map = load_map(ASHEN_REACH, BESM)

    assert game_map.cell(Square(0, 0)) == Cell(terrain=Terrain.OPEN)
    assert game_map.cell(Square(2, 1)) == Cell(terrain=Terrain.FEATURE, name="mountains")
    assert game_map.cell(Square(2, 2)).terrain is Terrain.FEATURE
    assert game_map.cell(Square(4, 2)) == Cell(terrain=Terrain.HAZARD, name="ley storm", penalty=2)
    assert game_map.cell(Square(2, 1)).terrain is Terrain.FEATURE
    assert game_map.cell(Square(3, 1)).terrain is not Terrain.FEATURE
    assert game_map.cell(Square(4, 2)).terrain is Terrain.HAZARD
    assert game_map.cell(Square(4, 1)).terrain is not Terrain.HAZARD
    assert game_map.penalty(Square(4, 2)) == 2
    assert game_map.penalty(Square(0, 0)) == 0


def test_an_unused_legend_entry_is_kept() -> None:
    game_map = load_map(ASHEN_REACH, BESM)

    assert game_map.legend[","] == Cell(terrain=Terrain.OPEN, penalty=1)
    assert set(game_map.legend) == {".", ",", "^", "!"}


def test_the_rules_example_shortcut_is_read_in_full() -> None:
    game_map = load_map(ASHEN_REACH, BESM)

    assert shortcuts(game_map) == (
        Shortcut(name="Kessel Pass", path=(Square(2, 1),), bonus=2, penalty=1),
    )


def test_a_shortcut_is_found_by_its_exact_name() -> None:
    shortcut = find_shortcut(load_map(ASHEN_REACH, BESM), "Kessel Pass")

    assert shortcut is not None
    assert shortcut.name == "Kessel Pass"


@pytest.mark.parametrize("asked", ["kessel pass", "KESSEL PASS", " Kessel Pass ", "Kessel pass"])
def test_a_near_miss_is_not_the_shortcut_but_names_it(asked: str) -> None:
    # Names match exactly everywhere (docs/getting-started.md); the near miss is a hint.
    game_map = load_map(ASHEN_REACH, BESM)

    assert find_shortcut(game_map, asked) is None
    near = near_shortcut(game_map, asked)
    assert near is not None
    assert near.name == "Kessel Pass"
    assert near_shortcut(game_map, "Dragon Gate") is None


def test_an_unknown_shortcut_is_none() -> None:
    assert find_shortcut(load_map(ASHEN_REACH, BESM), "Dragon Gate") is None


@pytest.mark.parametrize(
    ("square", "inside"),
    [
        (Square(0, 0), True),
        (Square(7, 2), True),
        (Square(8, 2), False),
        (Square(7, 3), False),
        (Square(-1, 0), False),
        (Square(0, -1), False),
    ],
)
def test_contains_matches_the_drawn_rectangle(square: Square, inside: bool) -> None:
    assert load_map(ASHEN_REACH, BESM).contains(square) is inside


def test_a_square_off_the_map_has_no_cell_even_with_negative_coordinates() -> None:
    game_map = load_map(ASHEN_REACH, BESM)

    with pytest.raises(IndexError):
        game_map.cell(Square(-1, 0))
    with pytest.raises(IndexError):
        game_map.cell(Square(8, 0))


# --- Cypher maps ---------------------------------------------------------------------------


def test_a_cypher_map_reads_square_miles_roads_and_its_own_terrains() -> None:
    game_map = load_map(LONG_ROAD, CYPHER)

    assert game_map.square_miles == 3
    assert (game_map.width, game_map.height) == (4, 2)
    assert game_map.cell(Square(0, 0)) == Cell(terrain=Terrain.OPEN, road=True)
    assert game_map.cell(Square(1, 0)).road
    assert game_map.cell(Square(2, 0)) == Cell(terrain=Terrain.ROUGH)
    assert game_map.cell(Square(3, 0)) == Cell(terrain=Terrain.WATER, name="Deep Mere")
    assert game_map.cell(Square(0, 1)).terrain is Terrain.DIFFICULT
    assert game_map.cell(Square(1, 1)).terrain is Terrain.FEATURE
    assert game_map.cell(Square(2, 1)).terrain is Terrain.HIGH_GRAVITY
    assert not game_map.cell(Square(3, 1)).road
    assert shortcuts(game_map) == ()


def test_the_terrain_sets_are_the_ones_each_ruleset_names() -> None:
    assert {t.value for t in BESM_TERRAINS} == {"open", "feature", "hazard"}
    assert {t.value for t in CYPHER_TERRAINS} == {
        "open",
        "rough",
        "difficult",
        "water",
        "high-gravity",
        "feature",
    }


# --- refusals: each names the line, counted by hand in the text -----------------------------


def test_invalid_toml_is_refused_on_the_line_tomllib_reports() -> None:
    error = refusal('[map]\nname = "The Reach\nrows = ["."]\n')

    assert error.line == 2
    assert "not valid TOML" in error.reason
    assert "not closed" in error.reason


def test_toml_broken_at_the_very_end_points_at_the_last_line() -> None:
    error = refusal('[map]\nname = "x"\nrows = [\n  "..",\n')

    assert error.line == 4
    assert "not valid TOML" in error.reason


def test_a_duplicated_table_is_invalid_toml_on_its_second_header() -> None:
    error = refusal('[map]\nname = "x"\n[map]\nrows = ["."]\n')

    assert error.line == 3


def test_a_file_without_a_map_table_is_refused_without_a_line() -> None:
    error = refusal('[legend]\n"." = { terrain = "open" }\n')

    assert error.line is None
    assert "[map]" in error.reason
    assert str(error) == error.reason


def test_a_map_without_rows_is_refused_on_its_map_header() -> None:
    text = """\
# Drafted in a hurry.

[map]
name = "Nowhere"

[legend]
"." = { terrain = "open" }
"""
    error = refusal(text)

    assert error.line == 3
    assert "no rows" in error.reason
    assert str(error).startswith("line 3: ")


def test_empty_rows_are_refused_on_the_rows_line() -> None:
    text = """\
[map]
name = "Nowhere"
rows = []

[legend]
"." = { terrain = "open" }
"""
    error = refusal(text)

    assert error.line == 3
    assert "at least one row" in error.reason


def test_an_empty_first_row_is_refused_on_its_line() -> None:
    text = """\
[map]
name = "Nowhere"
rows = [
  "",
]

[legend]
"." = { terrain = "open" }
"""
    error = refusal(text)

    assert error.line == 4
    assert "row 1 is empty" in error.reason


def test_rows_that_are_not_strings_are_refused_on_the_rows_line() -> None:
    error = refusal('[map]\nname = "x"\nrows = [1, 2]\n[legend]\n"." = { terrain = "open" }\n')

    assert error.line == 3
    assert "strings" in error.reason


def test_a_ragged_row_is_refused_on_its_own_line_with_the_width_expected() -> None:
    text = """\
[map]
name = "The Ashen Reach"
rows = [
  "........",
  "........",
  ".......",
  "........",
]

[legend]
"." = { terrain = "open" }
"""
    error = refusal(text)

    assert error.line == 6
    assert "row 3 has 7 squares" in error.reason
    assert "8 squares wide" in error.reason


def test_identical_rows_are_still_told_apart_when_placing_a_ragged_one() -> None:
    text = """\
[map]
name = "Twins"
rows = ["...", "...",
        "...", "..",
        "..."]

[legend]
"." = { terrain = "open" }
"""
    error = refusal(text)

    assert error.line == 4
    assert "row 4 has 2 squares" in error.reason


def test_a_row_of_one_square_is_described_in_the_singular() -> None:
    error = refusal('[map]\nname = "x"\nrows = ["..", "."]\n[legend]\n"." = { terrain = "open" }\n')

    assert error.line == 3
    assert "row 2 has 1 square but" in error.reason


def test_a_character_missing_from_the_legend_is_named_with_its_row_and_column() -> None:
    text = """\
[map]
name = "The Ashen Reach"
rows = [
  "........",
  "..^.x...",
  "..^.....",
]

[legend]
"." = { terrain = "open" }
"^" = { terrain = "feature", name = "mountains" }
"""
    error = refusal(text)

    assert error.line == 5
    assert "'x'" in error.reason
    assert "row 2, column 5" in error.reason
    assert "square 4,1" in error.reason
    assert "'.'" in error.reason
    assert "'^'" in error.reason


def test_a_row_on_a_single_line_still_gets_the_line() -> None:
    error = refusal(
        '[map]\nname = "x"\n\nrows = ["..", ".?"]\n[legend]\n"." = { terrain = "open" }\n'
    )

    assert error.line == 4
    assert "'?'" in error.reason


def test_a_file_without_a_legend_is_refused() -> None:
    error = refusal('[map]\nname = "x"\nrows = ["."]\n')

    assert "[legend]" in error.reason


def test_a_legend_key_longer_than_one_character_is_refused_on_its_line() -> None:
    text = """\
[map]
name = "Nowhere"
rows = ["."]

[legend]
"." = { terrain = "open" }
".." = { terrain = "open" }
"""
    error = refusal(text)

    assert error.line == 7
    assert "'..'" in error.reason
    assert "exactly one character" in error.reason


def test_an_empty_legend_key_is_refused_on_its_line() -> None:
    text = """\
[map]
name = "Nowhere"
rows = ["."]

[legend]
"" = { terrain = "open" }
"." = { terrain = "open" }
"""
    error = refusal(text)

    assert error.line == 6
    assert "exactly one character" in error.reason


def test_an_unknown_terrain_is_refused_with_the_allowed_ones_listed() -> None:
    text = """\
[map]
name = "Nowhere"
rows = [".~"]

[legend]
"." = { terrain = "open" }
"~" = { terrain = "swamp" }
"""
    error = refusal(text)

    assert error.line == 7
    assert "'swamp'" in error.reason
    assert "open, feature or hazard" in error.reason


def test_a_cypher_terrain_is_refused_on_a_besm_map() -> None:
    error = refusal(LONG_ROAD)

    assert error.line == 11
    assert "'rough'" in error.reason
    assert "open, feature or hazard" in error.reason


def test_a_besm_hazard_is_refused_on_a_cypher_map() -> None:
    error = refusal(ASHEN_REACH, CYPHER)

    assert error.line == 13
    assert "'hazard'" in error.reason
    assert "open, feature, rough, difficult, water or high-gravity" in error.reason


def test_a_legend_entry_without_terrain_is_refused_on_its_line() -> None:
    text = """\
[map]
name = "Nowhere"
rows = ["."]

[legend]
"." = { name = "plain" }
"""
    error = refusal(text)

    assert error.line == 6
    assert "no terrain" in error.reason


def test_a_legend_entry_that_is_not_a_table_is_refused_on_its_line() -> None:
    text = """\
[map]
name = "Nowhere"
rows = ["."]

[legend]
"." = "open"
"""
    error = refusal(text)

    assert error.line == 6
    assert "table" in error.reason


def test_an_unknown_key_in_a_legend_entry_is_refused_on_its_line() -> None:
    text = """\
[map]
name = "Nowhere"
rows = ["."]

[legend]
"." = { terrain = "open", colour = "grey" }
"""
    error = refusal(text)

    assert error.line == 6
    assert "'colour'" in error.reason
    assert "terrain, name, penalty or road" in error.reason


def test_a_legend_entry_written_as_its_own_table_points_at_the_bad_key() -> None:
    text = """\
[map]
name = "Nowhere"
rows = ["."]

[legend."."]
terrain = "open"
penalty = -1
"""
    error = refusal(text)

    assert error.line == 7
    assert "penalty -1" in error.reason


@pytest.mark.parametrize("penalty", ["-1", "1.5", "true", '"2"'])
def test_a_legend_penalty_that_is_not_a_whole_number_of_0_or_more_is_refused(
    penalty: str,
) -> None:
    text = f"""\
[map]
name = "Nowhere"
rows = [".,"]

[legend]
"." = {{ terrain = "open" }}
"," = {{ terrain = "open", penalty = {penalty} }}
"""
    error = refusal(text)

    assert error.line == 7
    assert "0 or more" in error.reason


def test_road_must_be_true_or_false() -> None:
    error = refusal(
        '[map]\nname = "x"\nrows = ["."]\n[legend]\n"." = { terrain = "open", road = 1 }\n'
    )

    assert error.line == 5
    assert "true or false" in error.reason


def test_an_unknown_key_in_map_is_refused_on_its_line() -> None:
    text = """\
[map]
name = "Nowhere"
square_mile = 3
rows = ["."]

[legend]
"." = { terrain = "open" }
"""
    error = refusal(text)

    assert error.line == 3
    assert "'square_mile'" in error.reason


def test_a_misspelt_shortcut_table_is_refused_rather_than_dropped() -> None:
    text = """\
[map]
name = "Nowhere"
rows = ["."]

[legend]
"." = { terrain = "open" }

[[shortcuts]]
name = "Kessel Pass"
"""
    error = refusal(text)

    assert error.line == 8
    assert "'shortcuts'" in error.reason


SHORTCUT_HEAD = """\
[map]
name = "The Ashen Reach"
rows = [
  "........",
  "..^.....",
  "..^.!...",
]

[legend]
"." = { terrain = "open" }
"^" = { terrain = "feature", name = "mountains" }
"!" = { terrain = "hazard", name = "ley storm", penalty = 2 }
"""
# SHORTCUT_HEAD is 12 lines; a shortcut appended after it starts on line 13.


def test_an_unknown_key_in_a_shortcut_is_refused_on_its_line() -> None:
    text = (
        SHORTCUT_HEAD
        + """
[[shortcut]]
name = "Kessel Pass"
path = [[2, 1]]
bonus = 2
speed = 3
"""
    )
    error = refusal(text)

    assert error.line == 18
    assert "'Kessel Pass'" in error.reason
    assert "'speed'" in error.reason
    assert "name, path, bonus or penalty" in error.reason


@pytest.mark.parametrize(
    ("field", "line"),
    [("bonus", 17), ("penalty", 18)],
)
def test_a_negative_shortcut_bonus_or_penalty_is_refused_on_its_line(field: str, line: int) -> None:
    values = {"bonus": 2, "penalty": 1, field: -1}
    text = (
        SHORTCUT_HEAD
        + f"""
[[shortcut]]
name = "Kessel Pass"
path = [[2, 1]]
bonus = {values["bonus"]}
penalty = {values["penalty"]}
"""
    )
    error = refusal(text)

    assert error.line == line
    assert f"{field} -1" in error.reason
    assert "0 or more" in error.reason


def test_a_shortcut_with_an_empty_path_is_refused_on_the_path_line() -> None:
    text = (
        SHORTCUT_HEAD
        + """
[[shortcut]]
name = "Kessel Pass"
path = []
bonus = 2
"""
    )
    error = refusal(text)

    assert error.line == 16
    assert "'Kessel Pass' has no path" in error.reason


def test_a_shortcut_with_no_path_at_all_is_refused_on_its_header() -> None:
    text = (
        SHORTCUT_HEAD
        + """
[[shortcut]]
name = "Kessel Pass"
bonus = 2
"""
    )
    error = refusal(text)

    assert error.line == 14
    assert "no path" in error.reason


def test_a_shortcut_without_a_name_is_refused_on_its_header() -> None:
    text = SHORTCUT_HEAD + "\n[[shortcut]]\npath = [[2, 1]]\nbonus = 2\n"
    error = refusal(text)

    assert error.line == 14
    assert "needs a name" in error.reason


def test_a_shortcut_square_off_the_map_is_named_with_the_shortcut() -> None:
    text = (
        SHORTCUT_HEAD
        + """
[[shortcut]]
name = "Kessel Pass"
path = [[2, 1], [8, 1]]
bonus = 2
"""
    )
    error = refusal(text)

    assert error.line == 16
    assert "'Kessel Pass'" in error.reason
    assert "square 8,1" in error.reason
    assert "0,0 to 7,2" in error.reason


def test_a_shortcut_square_off_the_map_in_a_long_path_points_at_its_own_line() -> None:
    text = (
        SHORTCUT_HEAD
        + """
[[shortcut]]
name = "Kessel Pass"
path = [[2, 1]]
bonus = 2

[[shortcut]]
name = "Long Way Round"
path = [
  [2, 1],
  [2, 2],
  [2, -1],
]
bonus = 1
"""
    )
    error = refusal(text)

    assert error.line == 24
    assert "'Long Way Round'" in error.reason
    assert "square 2,-1" in error.reason


def test_a_path_square_that_is_not_a_pair_of_numbers_is_refused() -> None:
    text = SHORTCUT_HEAD + '\n[[shortcut]]\nname = "Kessel Pass"\npath = [[2, 1, 0]]\nbonus = 2\n'
    error = refusal(text)

    assert error.line == 16
    assert "[x, y]" in error.reason


def test_a_shortcut_without_a_bonus_is_refused() -> None:
    text = SHORTCUT_HEAD + '\n[[shortcut]]\nname = "Kessel Pass"\npath = [[2, 1]]\n'
    error = refusal(text)

    assert error.line == 15
    assert "no bonus" in error.reason


def test_a_second_shortcut_with_the_same_name_is_refused_on_its_name_line() -> None:
    text = (
        SHORTCUT_HEAD
        + """
[[shortcut]]
name = "Kessel Pass"
path = [[2, 1]]
bonus = 2

[[shortcut]]
name = "kessel pass"
path = [[2, 2]]
bonus = 1
"""
    )
    error = refusal(text)

    assert error.line == 20
    assert "defined twice" in error.reason


@pytest.mark.parametrize("miles", ["0", "-6", '"six"', "1.5", "true"])
def test_square_miles_must_be_a_positive_whole_number(miles: str) -> None:
    text = f"""\
[map]
name = "The Long Road"
rows = ["."]
square_miles = {miles}

[legend]
"." = {{ terrain = "open" }}
"""
    error = refusal(text, CYPHER)

    assert error.line == 4
    assert "square_miles" in error.reason
    assert "greater than 0" in error.reason


# --- the model itself ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rules"),
    [(ASHEN_REACH, BESM), (LONG_ROAD, CYPHER)],
)
def test_a_map_survives_a_json_round_trip(text: str, rules: MapRules) -> None:
    game_map = load_map(text, rules)

    dumped = json.loads(json.dumps(game_map.model_dump(mode="json")))
    again = GameMap.model_validate(dumped)

    assert again == game_map
    assert shortcuts(again) == shortcuts(game_map)
    assert all(isinstance(sq, Square) for s in shortcuts(again) for sq in s.path)


def test_shortcut_squares_are_written_as_pairs_in_json() -> None:
    dumped = load_map(ASHEN_REACH, BESM).model_dump(mode="json")

    assert dumped["shortcuts"][0]["path"] == [[2, 1]]


def test_a_map_built_in_code_is_held_to_the_same_shape() -> None:
    legend = {".": Cell(terrain=Terrain.OPEN)}

    with pytest.raises(ValidationError):
        GameMap(name="Ragged", rows=("..", "."), legend=legend)
    with pytest.raises(ValidationError):
        GameMap(name="Unknown", rows=(".x",), legend=legend)
    off = GameMap(
        name="Off",
        rows=(".",),
        legend=legend,
        extras={"shortcuts": (Shortcut(name="Out", path=(Square(1, 0),), bonus=1),)},
    )
    with pytest.raises(ValueError, match="off the map"):
        shortcuts(off)


def test_a_map_is_frozen() -> None:
    game_map = load_map(ASHEN_REACH, BESM)

    with pytest.raises(ValidationError):
        game_map.name = "Elsewhere"  # type: ignore[misc]


# --- property ------------------------------------------------------------------------------

# Surrogates cannot be written in TOML and control characters would need escapes beyond JSON's.
legend_chars = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))
name_chars = legend_chars.filter(lambda c: c not in "\"\\\x7f")


@st.composite
def drawn_maps(draw: st.DrawFn) -> tuple[str, dict[str, Cell], list[str]]:
    chars = draw(st.lists(legend_chars, min_size=1, max_size=6, unique=True))
    legend = {
        ch: Cell(
            terrain=draw(st.sampled_from(sorted(BESM_TERRAINS))),
            penalty=draw(st.integers(min_value=0, max_value=3)),
            # TOML basic strings forbid the DEL control character, quotes and backslashes.
            name=draw(st.none() | st.text(alphabet=name_chars, max_size=5)),
        )
        for ch in chars
    }
    width = draw(st.integers(min_value=1, max_value=8))
    height = draw(st.integers(min_value=1, max_value=5))
    rows = [
        "".join(draw(st.lists(st.sampled_from(chars), min_size=width, max_size=width)))
        for _ in range(height)
    ]
    lines = ["[map]", 'name = "Drawn"', "rows = ["]
    lines += [f"  {json.dumps(row, ensure_ascii=False)}," for row in rows]
    lines += ["]", "", "[legend]"]
    for ch, cell in legend.items():
        fields = [f"terrain = {json.dumps(cell.terrain.value)}", f"penalty = {cell.penalty}"]
        if cell.name is not None:
            fields.append(f"name = {json.dumps(cell.name, ensure_ascii=False)}")
        lines.append(f"{json.dumps(ch, ensure_ascii=False)} = {{ {', '.join(fields)} }}")
    return "\n".join(lines) + "\n", legend, rows


@given(drawn_maps())
def test_any_rectangle_of_legend_characters_loads_square_for_square(
    drawn: tuple[str, dict[str, Cell], list[str]],
) -> None:
    text, legend, rows = drawn

    game_map = load_map(text, BESM)

    assert (game_map.width, game_map.height) == (len(rows[0]), len(rows))
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            assert game_map.cell(Square(x, y)) == legend[ch]
    assert GameMap.model_validate(game_map.model_dump(mode="json")) == game_map


# --- a ruleset's own tables ------------------------------------------------------------------


def test_a_table_the_ruleset_does_not_read_is_refused() -> None:
    # LONG_ROAD is 15 lines; the table's header is line 17.
    text = LONG_ROAD + '\n[[shortcut]]\nname = "Kessel Pass"\npath = [[0, 0]]\nbonus = 2\n'
    error = refusal(text, CYPHER)

    assert error.line == 17
    assert "unknown key 'shortcut'" in error.reason
    assert "map, legend or river" in error.reason


def test_a_stored_map_keeps_its_extras_where_they_always_were() -> None:
    stored = load_map(ASHEN_REACH, BESM).model_dump(mode="json")

    assert list(stored) == ["name", "rows", "legend", "shortcuts", "square_miles"]
    again = GameMap.model_validate(stored)
    assert again.extras == {"shortcuts": stored["shortcuts"]}
    assert find_shortcut(again, "Kessel Pass") is not None


def test_a_map_of_another_ruleset_reads_back_with_the_extras_it_was_stored_with() -> None:
    stored = load_map(LONG_ROAD, CYPHER).model_dump(mode="json")

    assert "shortcuts" not in stored
    assert GameMap.model_validate({**stored, "shortcuts": []}).extras == {"shortcuts": []}


# --- rivers ----------------------------------------------------------------------------------

RIVER = '\n[[river]]\nname = "Blue Run"\npath = [[0, 1], [1, 1], [2, 0]]\n'


@pytest.mark.parametrize(("text", "rules"), [(ASHEN_REACH, BESM), (LONG_ROAD, CYPHER)])
def test_a_river_is_read_on_every_rulesets_map_and_kept_through_json(text: str,
                                                                     rules: MapRules) -> None:
    game_map = load_map(text + RIVER + '\n[[river]]\npath = [[3, 0], [3, 1]]\n', rules)

    assert [(r.name, r.path) for r in game_map.rivers] == [
        ("Blue Run", (Square(0, 1), Square(1, 1), Square(2, 0))),
        (None, (Square(3, 0), Square(3, 1)))]
    stored = json.loads(json.dumps(game_map.model_dump(mode="json")))
    assert stored["rivers"][0] == {"name": "Blue Run", "path": [[0, 1], [1, 1], [2, 0]]}
    assert GameMap.model_validate(stored) == game_map
    # The river changes no square: the legend and rows are the map's own.
    assert load_map(text, rules).legend == game_map.legend
    assert load_map(text, rules).rows == game_map.rows


# LONG_ROAD is 15 lines: the river's header is line 17, its name line 18, its path line 19.
@pytest.mark.parametrize(("river", "line", "reason"), [
    ('[[river]]\nname = "Blue"\npath = [[0, 0], [4, 1]]\n', 19,
     "river 'Blue' goes through square 4,1, which is off the map; squares run from 0,0 to 3,1"),
    ('[[river]]\nname = "Blue"\npath = [[0, 0]]\n', 19,
     "river 'Blue' needs a path of at least two squares as [x, y] pairs"),
    ('[[river]]\nname = "Blue"\npath = [[0, 0], [1]]\n', 19,
     "river 'Blue' has [1] in its path; write each square as [x, y] with whole numbers"),
    ('[[river]]\nname = ""\npath = [[0, 0], [1, 0]]\n', 18,
     "a [[river]] name must be plain words in quotes"),
    ('[[river]]\nname = "Blue\\u0007"\npath = [[0, 0], [1, 0]]\n', 18,
     "a [[river]] name must be plain words in quotes"),
    ('[[river]]\nname = "Blue"\nwidth = 2\npath = [[0, 0], [1, 0]]\n', 19,
     "[[river]] has an unknown key 'width'; the keys allowed there are name or path"),
    ('[[river]]\n', 17, "a river needs a path of at least two squares"),
    # Written as a key before [map]: line 1.
    ('river = 3\n', 1, "rivers must each be written as a [[river]] table"),
])
def test_a_river_a_gm_could_not_use_is_refused_on_its_line(river: str, line: int,
                                                           reason: str) -> None:
    text = (LONG_ROAD.replace("[map]", river + "\n[map]") if river.startswith("river =")
            else LONG_ROAD + "\n" + river)
    error = refusal(text, CYPHER)

    assert reason in error.reason
    assert error.line == line


def test_a_river_built_in_code_must_stay_on_the_map() -> None:
    legend = {".": Cell(terrain=Terrain.OPEN)}

    with pytest.raises(ValidationError, match="runs off the map"):
        GameMap(name="Off", rows=("..",), legend=legend,
                rivers=(River(name="Out", path=(Square(0, 0), Square(2, 0))),))

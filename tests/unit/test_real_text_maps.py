"""Text Mapper files published in Text Mapper's and hex-describe's own repositories
(tests/fixtures/maps/textmapper, SOURCES.md), imported as they are onto a Cypher overland map.

What each test expects is read off the file itself, as the comments say: hex lines are the
lines that start with four digits and a space (`grep -cE '^[0-9]{4} '`), the map runs to the
highest column and row among them, river and road lines start with points joined by `-`
followed by `river` or `road`, and a label is a quoted text on a hex line. The words Trek
cannot place are the hex lines' types that are neither in its table of words nor colours.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from rulesets import RULESETS

from domain.errors import MapError
from tracker.mapformats import Target, convert, parse
from tracker.mapformats.tomlfile import load_map

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "maps" / "textmapper"
CYPHER_OVERLAND = Target(frozenset({"open", "rough", "difficult", "water", "high-gravity",
                                    "feature"}), battle=False)
HEX = re.compile(r"^(\d\d)(\d\d) ")


def text_of(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def hexes(text: str) -> set[tuple[int, int]]:
    """The (column, row) of every hex line, as written (from 01)."""
    return {(int(m[1]), int(m[2])) for m in map(HEX.match, text.splitlines()) if m}


def refusal(text: str) -> str:
    with pytest.raises(MapError) as caught:
        convert(parse("textmapper", text, "map"), CYPHER_OVERLAND)
    return str(caught.value)


def imported(text: str, **overrides: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The TOML document of the map and the import's report; the map loads as Cypher's."""
    made = convert(parse("textmapper", text, "map"), CYPHER_OVERLAND, overrides)
    load_map(made.toml, RULESETS.named("cypher"))
    return tomllib.loads(made.toml), made.report


def cell(doc: dict[str, Any], column: int, row: int) -> dict[str, Any]:
    """The legend entry of the hex at Text Mapper's `column` and `row` (from 01)."""
    entry: dict[str, Any] = doc["legend"][doc["map"]["rows"][row - 1][column - 1]]
    return entry


# (file, size, the words refused in one pass with their lines as `grep -n` shows them)
REFUSED = [
    # `0401 fin`, `0402 fort`, `0404 pyramid`, `0405 cave`: the other types (sand, coast, sea,
    # forest, woodland, wetland, swamp, tundra, grass, hill, mountain, volcano, jungle, ruin,
    # desert) Trek knows, and `0101 default` and `0106 red` are Text Mapper's styles alone.
    ("apocalypse-example.txt", (4, 6),
     "'fin' (line 23), 'fort' (line 24), 'pyramid' (line 26) and 'cave' (line 27)"),
    ("bright-example.txt", (5, 5),
     "'bubble' (line 22), 'needle' (line 25), 'castle' (line 29) and 'cave' (line 31)"),
    # `0806 swamp2 chaos`: chaos, which 0805 needs too, is asked for, not swamp2.
    ("gnomeyland-example.txt", (12, 6),
     "'shrine' (line 25), 'keep' (lines 26, 59), 'castle' (line 28), 'law' (line 29), "
     "'chaos' (lines 30, 31) and 'zone' (line 54)"),
    # Traveller's hexes carry a starport, a size, bases and zones: one starport word per
    # system is all Trek needs, whatever else its line says.
    ("traveller-example.txt", (8, 10),
     "'starport-D' (lines 4, 12, 65, 83), 'starport-E' (lines 5, 17, 23, 41, 46 and 2 more), "
     "'starport-C' (lines 6, 8, 10, 18, 21 and 7 more), 'starport-B' (lines 9, 53, 61, 62, "
     "77 and 1 more) and 'starport-A' (lines 26, 42, 45, 48, 50 and 3 more)"),
]


@pytest.mark.parametrize(("name", "size", "words"), REFUSED)
def test_a_refusal_names_every_word_at_once_and_naming_them_imports_the_file(
        name: str, size: tuple[int, int], words: str) -> None:
    text = text_of(name)
    assert (max(c for c, _ in hexes(text)), max(r for _, r in hexes(text))) == size
    message = refusal(text)
    assert f"Trek cannot turn into a terrain here: {words}; say what each is with" in message
    asked = re.findall(r"--terrain (\S+)=TERRAIN", message)
    # One pass: naming each word the refusal asks for imports the whole file.
    doc, report = imported(text, **dict.fromkeys(asked, "rough"))
    assert (report["width"], report["height"]) == size
    assert len(doc["map"]["rows"]) == size[1]
    assert all(len(row) == size[0] for row in doc["map"]["rows"])
    missing = size[0] * size[1] - len(hexes(text))
    unlisted = [item for item in report["ignored"] if "unlisted" in item]
    assert unlisted == ([f"{missing} unlisted cells (made open ground)"] if missing else [])


def test_gnomeylands_example_takes_the_type_beside_each_colour_and_a_lone_colour_is_open(
        ) -> None:
    # `0106 dark-green fir-forest "Deep Forest" 30`: the fir forest (difficult) named by its
    # label, the colour and the size no type; `0206 green bushes`: bushes; `1101 light-green
    # "light-green"` ... `1204 poisoned "poisoned"`: a colour alone, open ground named by its
    # label; `1105 water` and `1106 ocean` are ground Trek knows (water).
    doc, report = imported(text_of("gnomeyland-example.txt"), shrine="open", keep="open",
                           castle="open", law="open", chaos="open", zone="open")
    assert cell(doc, 1, 6) == {"terrain": "difficult", "name": "Deep Forest"}
    assert cell(doc, 2, 6) == {"terrain": "difficult", "name": "bushes"}
    assert cell(doc, 3, 6) == {"terrain": "open", "name": "The Keep"}
    for column, row, colour in [(10, 1, "dust"), (10, 2, "light-soil"), (10, 4, "dark-soil"),
                                (11, 1, "light-green"), (11, 3, "dark-green"),
                                (12, 4, "poisoned")]:
        assert cell(doc, column, row) == {"terrain": "open", "name": colour}
    assert cell(doc, 11, 5)["terrain"] == "water"
    assert cell(doc, 11, 6)["terrain"] == "water"
    # 57 hex lines, 56 with a label (`0206 green bushes` has none); the trail is counted.
    assert "56 labels (each names its hex in the legend)" in report["used"]
    assert "1 trail line (Trek keeps roads and rivers)" in report["ignored"]


def test_the_apocalypse_example_draws_its_road_and_rivers_beyond_its_hexes() -> None:
    # Its hexes fill columns 01-04; `0501-0701 road` and the rivers `0502-0702`, `0503-0703`
    # lie in columns 05-07, beyond them: counted, not drawn. The canyon and border are other
    # lines. 21 hex lines, each with its label.
    text = text_of("apocalypse-example.txt")
    doc, report = imported(text, fin="open", fort="open", pyramid="feature", cave="feature")
    # `0101 default "default"`, `0106 red "red"`: a style alone, open ground.
    assert cell(doc, 1, 1) == {"terrain": "open", "name": "default"}
    assert cell(doc, 1, 6) == {"terrain": "open", "name": "red"}
    assert "river" not in doc
    assert not any(entry.get("road") for entry in doc["legend"].values())
    assert "1 road lines (the hexes they join are roads)" in report["used"]
    assert ("2 river lines (drawn on the map; --terrain river=TERRAIN gives the hexes they run "
            "through a terrain)") in report["used"]
    assert "2 road points beyond the listed hexes (the road is cut there)" in report["ignored"]
    assert "4 river points beyond the listed hexes (the river is cut there)" in (
        report["ignored"])
    assert "1 canyon line (Trek keeps roads and rivers)" in report["ignored"]
    assert "1 border line (Trek keeps roads and rivers)" in report["ignored"]
    assert "21 labels (each names its hex in the legend)" in report["used"]
    assert report["terrains"]["woodland"] == "difficult"
    assert report["terrains"]["wetland"] == "difficult"
    assert report["terrains"]["volcano"] == "feature"


def test_the_forgotten_depths_keep_their_river_and_labels() -> None:
    # 80 hex lines fill columns 01-10, rows 01-08. `0204-0405 river` runs from column 2, row 4
    # to column 4, row 5: the squares (1, 3) and (3, 4). `0004-0800 cliff` is another line.
    # 51 hex lines carry a label (`grep -E '^[0-9]{4} ' | grep -c '"'`).
    text = text_of("forgotten-depths.txt")
    assert len(hexes(text)) == 80
    doc, report = imported(text, fin="feature")
    assert doc["river"] == [{"path": [[1, 3], [3, 4]]}]
    assert "51 labels (each names its hex in the legend)" in report["used"]
    assert "1 cliff line (Trek keeps roads and rivers)" in report["ignored"]
    assert "unlisted" not in " ".join(report["ignored"])
    # `0402 city "rust ruins"`, `0506 island ruin "The Island"`, `0301 mountain "abandoned
    # city"`, `0404 wetland "vampire grass"`.
    assert cell(doc, 4, 2) == {"terrain": "open", "name": "rust ruins"}
    assert cell(doc, 5, 6) == {"terrain": "open", "name": "The Island"}
    assert cell(doc, 3, 1) == {"terrain": "feature", "name": "abandoned city"}
    assert cell(doc, 4, 4) == {"terrain": "difficult", "name": "vampire grass"}


def test_hex_describes_map_imports_without_help_with_every_river_on_the_map() -> None:
    # 200 hex lines fill 20 columns and 10 rows, each a colour and a type Trek knows (and
    # perhaps a settlement or cliff after it); 71 river lines, 21 trails and a canyon.
    text = text_of("hex-describe-default-map.txt")
    assert len(hexes(text)) == 200
    doc, report = imported(text)
    assert (report["width"], report["height"]) == (20, 10)
    assert report["terrains"] == {
        "trees": "difficult", "swamp": "difficult", "bushes": "difficult",
        "forest": "difficult", "fir-forest": "difficult", "forest-hill": "rough",
        "mountain": "feature", "mountains": "feature", "firs": "difficult", "water": "water"}
    # `0101 dark-green trees village`, `0107 light-grey mountain`, `0206 light-green firs
    # thorp`.
    assert cell(doc, 1, 1) == {"terrain": "difficult", "name": "trees"}
    assert cell(doc, 1, 7) == {"terrain": "feature", "name": "mountain"}
    assert cell(doc, 2, 6) == {"terrain": "difficult", "name": "firs"}
    # Every river, cut where it leaves the 20×10 hexes (rows 00 and 11, column 21): each
    # unbroken piece of two hexes or more is drawn, through the hexes it lists.
    expected = []
    for line in text.splitlines():
        found = re.match(r"^((?:\d{4}-)+\d{4}) river$", line)
        if found is None:
            continue
        piece: list[list[int]] = []
        for point in [*found[1].split("-"), "0000"]:
            x, y = int(point[:2]) - 1, int(point[2:]) - 1
            if 0 <= x < 20 and 0 <= y < 10:
                piece.append([x, y])
                continue
            if len(piece) >= 2:
                expected.append({"path": piece})
            piece = []
    assert len([line for line in text.splitlines() if line.endswith(" river")]) == 71
    assert doc["river"] == expected
    assert "21 trail lines (Trek keeps roads and rivers)" in report["ignored"]
    assert "1 canyon line (Trek keeps roads and rivers)" in report["ignored"]


def test_travellers_systems_keep_their_names_and_leave_their_other_fields() -> None:
    # 37 of the 80 hex lines name a system in quotes and give its `uwp="..."`; 14
    # communication and 29 trade lines join them.
    text = text_of("traveller-example.txt")
    doc, report = imported(text, **{f"starport-{c}": "open" for c in "ABCDE"})
    assert "37 labels (each names its hex in the legend)" in report["used"]
    assert '37 other fields such as uwp="..." (drawn beside a hex)' in report["ignored"]
    assert "14 communication lines (Trek keeps roads and rivers)" in report["ignored"]
    assert "29 trade lines (Trek keeps roads and rivers)" in report["ignored"]
    # `0101 starport-D size-7 gas amber "Inedgeus" uwp="D7A5579-8"`; `0104 empty`.
    assert cell(doc, 1, 1) == {"terrain": "open", "name": "Inedgeus"}
    assert cell(doc, 1, 4) == {"terrain": "open", "name": "empty"}


def test_the_gazetteer_example_starts_in_column_00_and_names_its_words_at_once() -> None:
    # 78 hex lines in columns 00-10 and rows 01-11 (the gazetteer library's words, written
    # with underscores, each hex labelled with its word). Column 00 is Trek's column 1 after
    # an open column 0, so the even columns still sit lower: 12 columns, 11 rows.
    text = text_of("gazetteer-example.txt")
    assert len(hexes(text)) == 78
    assert min(c for c, _ in hexes(text)) == 0
    message = refusal(text)
    assert ("12 words Trek cannot turn into a terrain here: 'deserts' (lines 4, 41), "
            "'dead_lands' (lines 5, 69, 70, 71), 'deep_sea' (line 8), 'green_hills' (lines 51, "
            "54, 79, 80), 'jungle_hills' (line 56), 'moors' (line 68), 'mud_flats' (line 73), "
            "'sandy_deserts' (line 74), 'rocky_deserts' (line 75), 'sandy_dunes' (line 76), "
            "'barren_lands' (line 77) and 'mountain_ridges' (line 85)") in message
    asked = re.findall(r"--terrain (\S+)=TERRAIN", message)
    doc, report = imported(text, **dict.fromkeys(asked, "rough"))
    assert (report["width"], report["height"]) == (12, 11)
    # `0001 clear "clear"` and `0101 clear capital_metropolis "capital_metropolis"`: 78
    # labelled hexes of 50-odd words are more kinds of cell than Trek's 77 legend characters,
    # so each keeps its word, and the report says so.
    assert doc["legend"][doc["map"]["rows"][0][1]] == {"terrain": "open", "name": "clear"}
    assert doc["legend"][doc["map"]["rows"][0][2]] == {"terrain": "open", "name": "clear"}
    assert ("the names of 78 cells (more kinds of cell than legend characters; each keeps its "
            "word)") in report["ignored"]
    assert {row[0] for row in doc["map"]["rows"]} == {"."}
    assert ("hexes in column 00 (Trek's column 1, after an open column 0 so the even columns "
            "still sit half a hex lower)") in report["used"]
    assert "78 labels (each names its hex in the legend)" in report["used"]

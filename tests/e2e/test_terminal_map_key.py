"""The terminal battle map draws each kind of ground with a mark of its own and names each
mark once in a key under the map: rough is not difficult, a scree costing 8 is not plain
ground, and a map's own letter never passes for a fighter's label."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cliruns import ok
from conftest import TrekRun

from cli.render import map_key, map_marks

Run = Callable[..., TrekRun]
NS = "{http://www.w3.org/2000/svg}"



# Rough (",") and difficult (":") ground side by side on a Cypher deck; zero gravity below.
DECK = """[map]
name = "Deck"
rows = [
  "#####",
  "#.,:#",
  "#000#",
  "#####",
]

[legend]
"#" = { terrain = "wall" }
"." = { terrain = "open" }
"," = { terrain = "rough" }
":" = { terrain = "difficult" }
"0" = { terrain = "zero-gravity" }
"""

# A Move-Point ford: the scree is open ground costing 8 with poor footing, under "S".
FORD = """[map]
name = "Ford"
rows = [
  "....",
  ".~S.",
]

[legend]
"." = { terrain = "open" }
"~" = { terrain = "water" }
"S" = { terrain = "open", name = "scree", cost = 8, poor_footing = true }
"""


def _deck(trek_run: Run, tmp_path: Path, *, joined: bool) -> None:
    """A Cypher campaign fighting on DECK (Kira at 1,1 when `joined`)."""
    (tmp_path / "deck.toml").write_text(DECK, encoding="utf-8")
    ok(trek_run("init", "Boarding", "--ruleset", "cypher"))
    if joined:
        ok(trek_run("roster", "add-character", "Kira", "--might", "10", "--speed", "10"))
    ok(trek_run("encounter", "start", "Hold", "--map", "deck.toml"))
    if joined:
        ok(trek_run("encounter", "join", "Kira", "--at", "1,1"))


def _ford(trek_run: Run, tmp_path: Path) -> None:
    """A Move-Point campaign fighting on FORD, Sam at 0,0."""
    (tmp_path / "ford.toml").write_text(FORD, encoding="utf-8")
    ok(trek_run("init", "Reef", "--ruleset", "movepoints"))
    ok(trek_run("roster", "add-character", "Sam", "--full-move", "6"))
    ok(trek_run("encounter", "start", "Ford", "--map", "ford.toml"))
    ok(trek_run("encounter", "join", "Sam", "--at", "0,0"))


def _map_lines(run: TrekRun) -> list[str]:
    """The picture's lines and its key: what comes after the heading, before the table."""
    lines = ok(run).stdout.splitlines()
    table = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    return [line.rstrip() for line in lines[1:table]]


def test_rough_and_difficult_ground_are_told_apart_and_keyed_once(
        trek_run: Run, tmp_path: Path) -> None:
    _deck(trek_run, tmp_path, joined=True)
    assert _map_lines(trek_run("encounter", "status")) == [
        "  0 1 2 3 4",
        "0 # # # # #",
        "1 # K , : #",
        "2 # 0 0 0 #",
        "3 # # # # #",
        "key: # wall  . open  , rough  : difficult  0 zero-gravity",
    ]


def test_a_costed_named_entry_gets_a_mark_that_is_no_label(trek_run: Run,
                                                           tmp_path: Path) -> None:
    _ford(trek_run, tmp_path)
    # The map's "S" would read as Sam's label: the scree takes the first spare mark.
    assert _map_lines(trek_run("encounter", "status")) == [
        "  0 1 2 3",
        "0 S . . .",
        "1 . ~ ^ .",
        "key: . open  ~ water  ^ scree (open, cost 8, poor footing)",
    ]


def test_a_free_character_of_the_map_is_kept_and_two_plain_entries_of_one_kind_share() -> None:
    battle_map = {"rows": ["._,*"], "legend": {
        ".": {"terrain": "open"}, "_": {"terrain": "open"}, ",": {"terrain": "rough"},
        "*": {"terrain": "rough", "name": "brambles"}}}
    assert map_marks(battle_map) == {".": ".", "_": ".", ",": ",", "*": "*"}
    assert map_key(battle_map) == [(".", "open"), (",", "rough"), ("*", "brambles (rough)")]


def test_an_entry_whose_own_character_is_another_kinds_mark_takes_a_spare() -> None:
    # ":" is difficult ground's mark; the map spends it on a named open square.
    battle_map = {"rows": [".:d"], "legend": {
        ".": {"terrain": "open"}, ":": {"terrain": "open", "name": "rubble"},
        "d": {"terrain": "difficult"}}}
    assert map_marks(battle_map) == {".": ".", ":": "^", "d": ":"}
    assert map_key(battle_map) == [(".", "open"), ("^", "rubble (open)"), (":", "difficult")]


def test_the_svg_fills_rough_and_difficult_apart_and_keys_each_kind_once(
        trek_run: Run, tmp_path: Path) -> None:
    _deck(trek_run, tmp_path, joined=False)
    ok(trek_run("encounter", "show", "--svg", "hold.svg"))
    svg = ET.parse(tmp_path / "hold.svg").getroot()
    fills = {cell.get("class"): cell.get("fill") for cell in svg.iter(f"{NS}polygon")
             if (cell.get("class") or "").startswith("cell ")}
    assert fills["cell rough"] != fills["cell difficult"]
    assert len(set(fills.values())) == len(fills) == 5
    keyed = [text.text for group in svg.iter(f"{NS}g") if group.get("class") == "legend-ground"
             for text in group.iter(f"{NS}text")]
    # Mark then words, each kind once, in the order the rows use them.
    assert keyed == ["#", "wall", ".", "open", ",", "rough", ":", "difficult",
                     "0", "zero-gravity"]


def test_the_svg_marks_a_costed_square_and_its_key_reads_in_chromium(
        trek_run: Run, tmp_path: Path, chromium_page: Any) -> None:
    _ford(trek_run, tmp_path)
    ok(trek_run("encounter", "show", "--svg", "ford.svg"))
    svg = ET.parse(tmp_path / "ford.svg").getroot()
    [mark] = [t for t in svg.iter(f"{NS}text") if t.get("class") == "ground-mark"]
    assert mark.text == "^"
    scree = next(c for c in svg.iter(f"{NS}polygon") if c.get("data-x") == "2"
                 and c.get("data-y") == "1")
    assert scree.get("fill") == next(c for c in svg.iter(f"{NS}polygon")
                                     if c.get("data-x") == "0" and c.get("data-y") == "1"
                                     ).get("fill")  # open ground, marked rather than recoloured
    chromium_page.goto((tmp_path / "ford.svg").as_uri())
    boxes = chromium_page.eval_on_selector_all(
        ".legend-ground text, .legend-row text, .caption",
        "nodes => nodes.map(n => { const b = n.getBBox(); "
        "return [n.textContent, b.x, b.y, b.width, b.height]; })")
    words = [box[0] for box in boxes]
    assert "scree (open, cost 8, poor footing)" in words
    assert words.count("water") == 1
    for i, (_, x1, y1, w1, h1) in enumerate(boxes):
        for _, x2, y2, w2, h2 in boxes[i + 1:]:
            overlap = min(x1 + w1, x2 + w2) - max(x1, x2), min(y1 + h1, y2 + h2) - max(y1, y2)
            assert overlap[0] <= 0.5 or overlap[1] <= 0.5, boxes


def test_passes_are_drawn_apart_and_an_interception_is_a_cross_not_a_move(
        trek_run: Run, tmp_path: Path) -> None:
    """docs/fights-shadowrun.md's turn: Kira runs 0,0 → 4,0 in pass 1, 4,0 → 7,0 in pass 2,
    and the Ganger's free attack stops her at 6,0."""
    ok(trek_run("init", "Seattle", "--ruleset", "shadowrun", "--seed", "7"))
    ok(trek_run("roster", "add-character", "Kira", "--quickness", "5", "--metatype", "elf",
                "--skill", "athletics=3"))
    ok(trek_run("encounter", "start", "Alley"))
    ok(trek_run("encounter", "join", "Kira", "--at", "0,0"))
    ok(trek_run("encounter", "add", "Ganger", "--side", "enemy", "--at", "5,1",
                "--quickness", "4", "--metatype", "ork"))
    ok(trek_run("encounter", "round", "--passes", "Kira=2", "--passes", "Ganger=3"))
    ok(trek_run("encounter", "move", "Kira", "--run", "E", "E", "E", "E"))
    ok(trek_run("encounter", "pass"))
    ok(trek_run("encounter", "move", "Kira", "E", "E", "E"))
    ok(trek_run("encounter", "intercept", "Kira", "--by", "Ganger", "--at", "6,0"))
    ok(trek_run("encounter", "show", "--svg", "alley.svg"))
    svg = ET.parse(tmp_path / "alley.svg").getroot()
    moves = [(line.get("data-phase"), line.get("stroke-dasharray"), line.get("marker-end"))
             for line in svg.iter(f"{NS}polyline") if line.get("class") == "path"]
    assert moves == [("1", None, "url(#arrow-latest)"), ("2", "9 4", "url(#arrow-latest)")]
    [stop] = [group for group in svg.iter(f"{NS}g") if group.get("class") == "stop"]
    assert stop.get("data-name") == "Kira"
    assert [t.text for t in stop.iter(f"{NS}text")] == ["✕"]
    assert [t.text for t in stop.iter(f"{NS}title")] == ["Kira: intercepted here"]
    assert all(line.get("marker-end") is None for line in stop.iter(f"{NS}polyline"))
    key = {group.get("class"): " ".join("".join(group.itertext()).split())
           for group in svg.iter(f"{NS}g")
           if group.get("class") in ("legend-phases", "legend-stops")}
    assert key == {"legend-phases": "pass 1 pass 2", "legend-stops": "✕intercepted: Kira"}


def test_a_round_without_phases_draws_no_phase(trek_run: Run, tmp_path: Path) -> None:
    ok(trek_run("init", "Reef", "--ruleset", "movepoints"))
    ok(trek_run("roster", "add-character", "Sam", "--full-move", "6"))
    ok(trek_run("encounter", "start", "Ford"))
    ok(trek_run("encounter", "join", "Sam", "--at", "0,0"))
    ok(trek_run("encounter", "round"))
    ok(trek_run("encounter", "act", "Sam", "move"))
    ok(trek_run("encounter", "move", "Sam", "E", "E"))
    ok(trek_run("encounter", "show", "--svg", "ford.svg"))
    svg = ET.parse(tmp_path / "ford.svg").getroot()
    [move] = [line for line in svg.iter(f"{NS}polyline") if line.get("class") == "path"]
    assert (move.get("data-phase"), move.get("stroke-dasharray")) == (None, None)
    assert not [g for g in svg.iter(f"{NS}g") if g.get("class") in ("legend-phases", "stop")]

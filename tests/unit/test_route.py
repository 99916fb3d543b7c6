"""The route document (domain/route.py via Trek.queries.route) and its SVG drawing (cli/route.py).

Every expected day, path, marker and cancellation below is worked out by hand from RULES §3
and §4 for the journey each test records.
"""

from __future__ import annotations

import os
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journeys import ROAD_TO_QI
from rulesets import RULESETS

from cli.besm_demo import play
from cli.route import MARKS, mark_style, route_html, route_svg
from domain.besm.commands import Forage, ForcedMarch, TravelByNight
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.history import Redo, Undo
from domain.commands.roster import AddCharacter, AddMount
from domain.commands.sessions import EndSession, StartSession
from domain.commands.supplies import SetSupplies
from domain.commands.travel import Move, MoveOptions
from domain.errors import TrackerError
from domain.geometry import DIRECTIONS, Square
from domain.options import CharacterOptions
from tracker.app import Trek

ORIGIN = Square(0, 0)
SVG = "{http://www.w3.org/2000/svg}"
STRIP = """\
[map]
name = "The Strip"
rows = [
  "......",
  "......",
  "......",
]

[legend]
"." = { terrain = "open" }

[[shortcut]]
name = "Goat Track"
path = [[5, 0], [5, 1]]
bonus = 1
"""


def _trek() -> Trek:
    return Trek.open(f"memory:route-{uuid.uuid4().hex}", rulesets=RULESETS, create=True,
                     gm="gm")


def _party(trek: Trek, *, mount: str = "Dusty", at: Square = ORIGIN) -> None:
    """Kira (Body 6, Mind 5, Soul 4; ride 2, navigation 2, survival 1) riding a ground-speed 1
    mount (2 squares a day), with 4 provisions: events 1 to 4."""
    trek.init("Ashes Road", map_text=STRIP, at=at, seed=3)
    trek.handle(None, AddCharacter(CharacterOptions(
        name="Kira",
        skills={"ride": 2, "navigation": 2, "survival": 1},
            extra={"body": 6, "mind": 5, "soul": 4})))
    trek.handle(None, AddMount(mount, ("ground-speed", 1), "Kira"))
    trek.handle(None, SetSupplies({"provisions": 4}))


def _two_days(trek: Trek) -> None:
    _party(trek)
    trek.handle(None, StartDay())                                          # 5: day 1, budget 2
    trek.handle(None, Move(MoveOptions(steps=("E", "E"))))                # 6: 0,0 -> 2,0
    # Kira's target Body-Soul 5 + ride 2 = 7; 9 fails: Dusty takes a point of strain.
    trek.handle(None, ForcedMarch(rolls={"Kira": 9}))             # 7: budget 4
    trek.handle(None, Move(MoveOptions(steps=("SE",))))                   # 8: 2,0 -> 3,1
    trek.handle(None, Undo())                                               # 9: cancels 8
    trek.handle(None, Move(MoveOptions(steps=("E",))))                    # 10: 2,0 -> 3,0
    trek.handle(None, EndDay(DayEndOptions()))                           # 11: Dusty level 0
    trek.handle(None, StartDay())                                          # 12: day 2, base 1
    # Mind 5 + navigation 2 = 7; 5 succeeds: the base (1) again.
    trek.handle(None, TravelByNight(roll=5))                      # 13
    trek.handle(None, Move(MoveOptions(steps=("E",))))                    # 14: 3,0 -> 4,0
    # Body-Mind 5 + survival 1 = 6; 4 succeeds by 2 points: 2 provisions.
    trek.handle(None, Forage(roll=4))                             # 15
    trek.handle(None, EndDay(DayEndOptions()))                           # 16


def _path(*squares: tuple[int, int]) -> list[dict[str, int]]:
    return [{"x": x, "y": y} for x, y in squares]


def _brief(items: list[dict[str, Any]], *keys: str) -> list[tuple[Any, ...]]:
    return [tuple(item[k] for k in keys) for item in items]


def test_two_days_give_their_paths_days_cancellations_and_markers() -> None:
    trek = _trek()
    _two_days(trek)
    doc = trek.queries.route(None)
    assert doc["start"] == {"x": 0, "y": 0}
    assert doc["position"] == {"x": 4, "y": 0}
    assert (doc["day"], doc["events"], doc["days"]) == (2, 16, [1, 2])
    assert _brief(doc["segments"], "seq", "day", "path", "cancelled_by") == [
        (6, 1, _path((0, 0), (1, 0), (2, 0)), None),
        (8, 1, _path((2, 0), (3, 1)), 9),
        (10, 1, _path((2, 0), (3, 0)), None),
        (14, 2, _path((3, 0), (4, 0)), None),
    ]
    assert _brief(doc["marks"], "seq", "day", "kind", "at", "cancelled_by") == [
        (7, 1, "forced-march", {"x": 2, "y": 0}, None),
        (13, 2, "night-travel", {"x": 3, "y": 0}, None),
        (15, 2, "forage", {"x": 4, "y": 0}, None),
    ]
    assert doc["marks"][0]["label"] == "forced march: +2 squares, Dusty strained"
    assert doc["marks"][1]["label"] == "night travel: +1 squares"
    assert doc["marks"][2]["label"] == "forage: +2 provisions"
    assert all(item["strong"] for item in doc["segments"] + doc["marks"])


def test_as_of_cuts_the_route_and_a_later_undo_does_not_yet_count() -> None:
    trek = _trek()
    _two_days(trek)
    doc = trek.queries.route(None, as_of=8)
    assert (doc["day"], doc["events"], doc["as_of"]) == (1, 8, 8)
    assert doc["position"] == {"x": 3, "y": 1}
    assert _brief(doc["segments"], "seq", "cancelled_by") == [(6, None), (8, None)]
    assert _brief(doc["marks"], "seq") == [(7,)]


def test_a_redo_makes_a_cancelled_path_live_again() -> None:
    trek = _trek()
    _party(trek)
    trek.handle(None, StartDay())                                          # 5
    trek.handle(None, Move(MoveOptions(steps=("S",))))                    # 6: 0,0 -> 0,1
    trek.handle(None, Undo())                                               # 7
    trek.handle(None, Redo(6))                                            # 8
    doc = trek.queries.route(None)
    assert _brief(doc["segments"], "seq", "cancelled_by") == [(6, None)]
    assert doc["position"] == {"x": 0, "y": 1}


def test_a_mount_strained_to_death_is_marked_where_the_party_camped() -> None:
    trek = _trek()
    _party(trek, mount="<script>alert(1)</script>")
    trek.handle(None, StartDay())                                          # 5
    trek.handle(None, Move(MoveOptions(steps=("S", "S"))))                # 6: 0,0 -> 0,2
    trek.handle(None, ForcedMarch(rolls={"Kira": 12}))            # 7: strain 1
    trek.handle(None, ForcedMarch(rolls={"Kira": 12}))            # 8: strain 2
    trek.handle(None, Move(MoveOptions(steps=("E",))))                    # 9: 0,2 -> 1,2
    # Level 1 less 2 points of strain is below 0: the mount is dead.
    trek.handle(None, EndDay(DayEndOptions()))                           # 10
    doc = trek.queries.route(None)
    deaths = [m for m in doc["marks"] if m["kind"] == "death"]
    assert _brief(deaths, "seq", "day", "at", "label") == [
        (10, 1, {"x": 1, "y": 2}, "<script>alert(1)</script> dead")]
    svg = route_svg(doc)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; dead" in svg
    assert "<script" not in svg
    ET.fromstring(svg)


def test_a_session_draws_its_own_events_strong_and_the_rest_faint() -> None:
    trek = _trek()
    _party(trek)
    trek.handle(None, StartDay())                                          # 5
    trek.handle(None, Move(MoveOptions(steps=("E",))))                    # 6
    trek.handle(None, StartSession("Into the hills"))                    # 7
    trek.handle(None, Move(MoveOptions(steps=("E",))))                    # 8
    trek.handle(None, EndSession())                                        # 9
    doc = trek.queries.route(None, session=1)
    assert _brief(doc["segments"], "seq", "strong", "session") == [
        (6, False, None), (8, True, 1)]
    root = ET.fromstring(route_svg(doc))
    kinds = {line.get("data-seq"): line.get("class")
             for line in root.iter(f"{SVG}polyline") if line.get("data-seq")}
    assert kinds == {"6": "segment faint", "8": "segment"}


def test_the_svg_has_one_group_per_day_coordinates_and_a_key_of_what_it_uses() -> None:
    trek = _trek()
    _two_days(trek)
    root = ET.fromstring(route_svg(trek.queries.route(None)))
    days = [g for g in root.iter(f"{SVG}g") if g.get("class") == "day"]
    assert [g.get("data-day") for g in days] == ["1", "2"]
    assert days[0].get("stroke") != days[1].get("stroke")
    day_one = [p.get("class") for p in days[0].iter(f"{SVG}polyline")]
    assert day_one == ["segment", "segment cancelled", "segment"]
    cancelled = next(p for p in days[0].iter(f"{SVG}polyline") if "cancelled" in p.get("class", ""))
    assert cancelled.get("stroke-dasharray")
    xs = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "coordinate x"]
    ys = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "coordinate y"]
    assert (xs, ys) == ([str(x) for x in range(6)], ["0", "1", "2"])
    keys = [g.get("data-key") for g in root.iter(f"{SVG}g") if g.get("class") == "legend-entry"]
    assert keys == ["terrain:.", "shortcut", "day:1", "day:2", "cancelled",
                    "mark:forced-march", "mark:night-travel", "mark:forage", "start", "party"]
    labels = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "day-label"]
    assert labels == ["day 1", "day 2"]


def test_an_unknown_marker_kind_is_drawn_plainly_and_named_in_the_key() -> None:
    trek = _trek()
    _two_days(trek)
    doc = trek.queries.route(None)
    doc["marks"].append({**doc["marks"][0], "kind": "dragon-sighting", "label": "a dragon"})
    assert "dragon-sighting" not in MARKS
    root = ET.fromstring(route_svg(doc))
    entry = next(g for g in root.iter(f"{SVG}g") if g.get("data-key") == "mark:dragon-sighting")
    assert "".join(entry.itertext()).endswith("dragon sighting")
    assert mark_style("dragon-sighting").symbol == "*"


def test_the_html_page_is_titled_and_holds_the_picture_and_a_print_stylesheet() -> None:
    trek = _trek()
    _two_days(trek)
    page = route_html(trek.queries.route(None), "Week <3>")
    assert "<title>Week &lt;3&gt;</title>" in page
    assert "@media print" in page
    assert page.count("<svg ") == 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(sorted(DIRECTIONS)), st.just("undo"),
                          st.just("night")), max_size=12))
def test_the_last_live_path_ends_where_status_puts_the_party(steps: list[str]) -> None:
    trek = _trek()
    _party(trek, at=Square(2, 1))
    trek.handle(None, StartDay())
    for step in steps:
        try:
            if step == "undo":
                trek.handle(None, Undo())
            elif step == "night":
                trek.handle(None, TravelByNight(roll=2))
            else:
                trek.handle(None, Move(MoveOptions(steps=(step,))))
        except TrackerError:  # a refused step records nothing; the walk goes on
            pass
    doc = trek.queries.route(None)
    live = [s for s in doc["segments"] if s["cancelled_by"] is None]
    end = live[-1]["path"][-1] if live else doc["start"]
    assert end == trek.queries.status(None)["position"] == doc["position"]


def test_the_readme_picture_is_the_demo_journey_as_drawn_now() -> None:
    trek = _trek()
    play(trek)
    drawn = route_svg(trek.queries.route(None))
    committed = Path(__file__).resolve().parents[2] / "docs" / "images" / "route.svg"
    if os.environ.get("TREK_REDRAW_DOCS"):
        committed.write_text(drawn, encoding="utf-8")
    assert committed.read_text(encoding="utf-8") == drawn, (
        "docs/images/route.svg is stale: run this test with TREK_REDRAW_DOCS=1")


QI = ROAD_TO_QI


def test_a_cypher_day_draws_its_travel_and_marks_a_square_not_yet_reached() -> None:
    trek = _trek()
    trek.init("Road to Qi", ruleset="cypher", map_text=QI, seed=5)   # 1
    trek.handle(None, AddCharacter(CharacterOptions(name="Ana")))            # 2
    trek.handle(None, StartDay())                                              # 3
    trek.handle(None, Move(MoveOptions(steps=("E",))))                        # 4: road 1,0
    trek.handle(None, Move(MoveOptions(steps=("E",))))                        # 5: open 2,0
    # Rough 3,0 costs more than what is left of the day: the party sets off toward it.
    trek.handle(None, Move(MoveOptions(steps=("E",))))                        # 6
    doc = trek.queries.route(None)
    assert _brief(doc["segments"], "seq", "day", "path") == [
        (4, 1, _path((0, 0), (1, 0))), (5, 1, _path((1, 0), (2, 0)))]
    assert _brief(doc["marks"], "seq", "kind", "at") == [(6, "under-way", {"x": 2, "y": 0})]
    assert doc["marks"][0]["label"].startswith("under way to 3,0, ")
    assert doc["position"] == trek.queries.status(None)["position"] == {"x": 2, "y": 0}


def test_typed_map_and_shortcut_names_are_text_in_the_svg_and_the_page() -> None:
    trek = _trek()
    trek.init("Ashes Road", seed=3, map_text=STRIP.replace("The Strip", "<b>Strip</b>")
              .replace("Goat Track", "<img src=x onerror=alert(1)>"))
    doc = trek.queries.route(None)
    for picture in (route_svg(doc), route_html(doc, doc["map"]["name"])):
        assert "&lt;b&gt;Strip&lt;/b&gt;" in picture
        assert "&lt;img src=x onerror=alert(1)&gt;" in picture
        assert "<b>" not in picture
        assert "<img" not in picture
    root = ET.fromstring(route_svg(doc))
    [line] = [e for e in root.iter(f"{SVG}polyline") if e.get("class") == "shortcut"]
    assert line.get("data-name") == "<img src=x onerror=alert(1)>"


LAKES_AND_ROADS = """\
[map]
name = "Lakes and Roads"
rows = [
  ".,^~",
  "==.K",
]

[legend]
"." = { terrain = "open" }
"," = { terrain = "open" }
"^" = { terrain = "feature", name = "mountains" }
"~" = { terrain = "feature", name = "a lake" }
"=" = { terrain = "open", road = true }
"K" = { terrain = "open", name = "Kessel" }
"""


def test_each_kind_of_ground_is_drawn_apart_and_keyed_once() -> None:
    """A lake is not drawn as mountains, a road not as open ground, and two legend entries
    that are the same open ground are keyed once (RULES §2's legend, drawn)."""
    trek = Trek.open(f"memory:route-{uuid.uuid4().hex}", rulesets=RULESETS, create=True,
                     gm="gm")
    trek.init("Qi", ruleset="cypher", map_text=LAKES_AND_ROADS, seed=3)
    root = ET.fromstring(route_svg(trek.queries.route(None)))
    glyphs = {(t.get("x"), t.get("y")): t.text for t in root.iter(f"{SVG}text")
              if t.get("class") == "glyph"}
    # Square x,y is drawn centred at (28 + 40x + 20, 48 + 40y + 20), the glyph 6 below.
    at = {(str(48 + 40 * x), str(74 + 40 * y)): mark for (x, y), mark in {
        (2, 0): "^", (3, 0): "~", (0, 1): "=", (1, 1): "="}.items()}
    # The Kessel "K" would read as a label: it takes the first spare mark the mountains left.
    at[("168", "114")] = "*"
    assert glyphs == at
    words = ["".join(g.itertext()).strip() for g in root.iter(f"{SVG}g")
             if g.get("class") == "legend-entry"
             and (g.get("data-key") or "").startswith("terrain:")]
    assert words == ["open", "^mountains (feature)", "~a lake (feature)", "=open, road",
                     "*Kessel (open)"]


def test_day_labels_cover_no_path_name_marker_ring_or_other_label(
        tmp_path: Path, chromium_page: Any) -> None:
    """Measured in Chromium: the demo's day 1 starts on the start ring, beside the shortcut's
    name; each day label is placed clear of both (and of every marker and the party ring)."""
    trek = _trek()
    play(trek)
    picture = tmp_path / "route.svg"
    picture.write_text(route_svg(trek.queries.route(None)), encoding="utf-8")
    chromium_page.goto(picture.as_uri())
    boxes = chromium_page.eval_on_selector_all(
        ".day-label, [class$='-name'], .marks circle, circle.start, circle.party",
        "nodes => nodes.map(n => { const b = n.getBBox(); "
        "return [n.getAttribute('class') || n.parentNode.getAttribute('class'), "
        "b.x, b.y, b.x + b.width, b.y + b.height]; })")
    labels = [box for box in boxes if box[0] == "day-label"]
    assert len(labels) == 2
    assert any(box[0] == "shortcut-name" for box in boxes)
    for label in labels:
        for other in boxes:
            if other is label:
                continue
            across = min(label[3], other[3]) - max(label[1], other[1])
            down = min(label[4], other[4]) - max(label[2], other[2])
            assert across <= 0.5 or down <= 0.5, (label, other)


def test_a_day_whose_moves_are_all_undone_draws_fogged_and_whole() -> None:
    from cli.web.pages import fogged

    trek = _trek()
    _party(trek)
    trek.handle(None, StartDay())                                          # 5: day 1
    trek.handle(None, Move(MoveOptions(steps=("E",))))                    # 6: 0,0 -> 1,0
    trek.handle(None, Undo())                                               # 7: cancels 6
    trek.handle(None, EndDay(DayEndOptions()))                            # 8
    trek.handle(None, StartDay())                                          # 9: day 2
    trek.handle(None, Move(MoveOptions(steps=("S",))))                    # 10: 0,0 -> 0,1
    doc = dict(trek.queries.route(None))
    # the GM's picture draws day 1's undone move, labelled; the players' has no day 1 at all
    for shown, days in ((doc, ["1", "2"]), (fogged(doc), ["2"])):
        root = ET.fromstring(route_svg(shown))
        groups = [g.get("data-day") for g in root.iter(f"{SVG}g") if g.get("class") == "day"]
        labels = [t.get("data-day") for t in root.iter(f"{SVG}text")
                  if t.get("class") == "day-label"]
        keys = [g.get("data-key") for g in root.iter(f"{SVG}g")
                if g.get("class") == "legend-entry" and g.get("data-key", "").startswith("day:")]
        assert (groups, labels, keys) == (days, days, [f"day:{d}" for d in days])
        assert route_html(shown, "Ashes Road").count("<svg ") == 1


def test_rivers_are_drawn_as_solid_lines_through_their_squares_and_keyed_once() -> None:
    # Two rivers (one named, one not) on the strip beside its shortcut: each a blue polyline
    # through its squares' centres (28 + 40x + 20, 48 + 40y + 20, lifted 9 like every path),
    # the shortcut still dotted; the named one's name written once, the key one entry each.
    rivers = ('\n[[river]]\nname = "Blue <Run>"\npath = [[0, 1], [1, 1], [2, 2]]\n'
              '\n[[river]]\npath = [[4, 0], [4, 2]]\n'
              '\n[[river]]\npath = [[3, 0], [3, 1]]\n')
    trek = _trek()
    trek.init("Ashes Road", seed=3, map_text=STRIP + rivers)
    doc = trek.queries.route(None)
    svg = route_svg(doc)
    root = ET.fromstring(svg)
    lines = {(e.get("class"), e.get("data-name")): e for e in root.iter(f"{SVG}polyline")
             if e.get("class") in ("river", "shortcut")}
    assert lines[("river", "Blue <Run>")].get("points") == "48.0,99.0 88.0,99.0 128.0,139.0"
    assert lines[("river", "")].get("points") == "168.0,59.0 168.0,99.0"
    assert lines[("river", "Blue <Run>")].get("stroke-dasharray") is None
    assert lines[("shortcut", "Goat Track")].get("stroke-dasharray") == "1 6"
    [group] = [g for g in root.iter(f"{SVG}g") if g.get("class") == "rivers"]
    assert group.get("stroke") == "#1565c0"
    names = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "river-name"]
    assert names == ["Blue <Run>"]
    assert "Blue &lt;Run&gt;" in svg
    keyed = ["".join(g.itertext()).strip() for g in root.iter(f"{SVG}g")
             if g.get("class") == "legend-entry" and g.get("data-key") == "river"]
    assert keyed == ["river Blue <Run>", "river"]

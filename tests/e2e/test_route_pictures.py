"""Route pictures through the real `trek` program, rendered in headless Chromium.

The journey (the demo's map and party, with a mount whose name is an HTML script) is worked by
hand from RULES §3 and §4:

    seq  7 session 1 starts        16 session 2 starts          26 day 3 starts
         8 day 1 (budget 2)        17 day 2 (base 1: both       27 Oren repairs Dusty (8 vs 6)
         9 Kessel Pass (6 vs 6)       mounts at level 0)        28 day 3 ends
        10 E E E: 1,1 -> 4,1       18 SE: 6,1 -> 7,2
        11 forced march, both      19 undo of 18
           mounts strained         20 night travel (5 vs 7)
        12 --to 6,1                21 E: 6,1 -> 7,1
        13 forage (5 vs 6): +1     22 forced march: the script
        14 day 1 ends (level 0)       mount strained again
        15 session 1 ends          23 E: 7,1 -> 8,1
                                   24 day 2 ends: it dies
                                   25 session 2 ends
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import docpages
import pytest
from cliruns import ok, play_all, refused, usage_error
from conftest import Browser, TrekRun
from journeys import MAP

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow

HOSTILE = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"

JOURNEY: list[tuple[str, ...]] = [
    ("init", "Ashes Road", "--map", "{map}", "--at", "1,1", "--seed", "7"),
    ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4",
     "--skill", "ride=2", "--skill", "navigation=2", "--skill", "survival=1"),
    ("roster", "add-character", "Oren", "--body", "5", "--mind", "6", "--soul", "5",
     "--skill", "medicine=2"),
    ("roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider", "Kira"),
    ("roster", "add-mount", HOSTILE, "--move", "ground-speed=1", "--rider", "Oren"),
    ("supplies", "set", "provisions=6"),
    ("session", "start", "The pass"),
    ("day", "start"),
    ("shortcut", "Kessel Pass", "--roll", "6"),
    ("move", "E", "E", "E"),
    ("forced-march", "--roll", "Kira=9", "--roll", "Oren=12"),
    ("move", "--to", "6,1"),
    ("forage", "--roll", "5"),
    ("day", "end"),
    ("session", "end"),
    ("session", "start", "Night road"),
    ("day", "start"),
    ("move", "SE"),
    ("undo",),
    ("night-travel", "--roll", "5"),
    ("move", "E"),
    ("forced-march", "--roll", "Kira=5", "--roll", "Oren=12"),
    ("move", "E"),
    ("day", "end"),
    ("session", "end"),
    ("day", "start"),
    ("repair", "Dusty", "--by", "Oren", "--roll", "6"),
    ("day", "end"),
]

# Loaded with the picture: records any alert, then measures every drawn element against the
# picture's box and writes what stuck out (and whether an alert ran) into the page.
MEASURE = """
<script>
const svg = document.querySelector('svg.route-map');
const box = svg.getBoundingClientRect();
const vb = svg.viewBox.baseVal;
const out = [];
for (const el of svg.querySelectorAll('text, rect, circle, polyline, polygon, line')) {
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;
  if (r.left < box.left - 0.5 || r.top < box.top - 0.5 || r.right > box.right + 0.5 ||
      r.bottom > box.bottom + 0.5) {
    out.push(el.tagName + ' ' + (el.textContent || el.getAttribute('class') || ''));
  }
}
const report = document.createElement('pre');
report.id = 'measured';
report.textContent = JSON.stringify({overflow: out, alerted: window.alerted === true,
  box: [box.width, box.height], viewbox: [vb.width, vb.height]});
document.body.appendChild(report);
</script>
"""
CATCH_ALERT = "<script>window.alerted = false; window.alert = () => { window.alerted = true; };"\
              "</script>"


@pytest.fixture(scope="module")
def journey(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The store holding the journey above, recorded once for the module's tests."""
    folder = tmp_path_factory.mktemp("journey")
    (folder / "reach.toml").write_text(MAP)
    db = str(folder / "trek.db")
    play_all(folder, db, [tuple(a.replace("{map}", str(folder / "reach.toml")) for a in args)
                          for args in JOURNEY])
    return db


def _measured(chromium: Browser, picture: str, page: Path) -> dict[str, object]:
    """Render `picture` (an SVG, or a whole HTML page) with MEASURE after it; its report."""
    if picture.startswith("<svg"):
        html = f"<!DOCTYPE html><html><body>{CATCH_ALERT}{picture}{MEASURE}</body></html>"
    else:
        html = picture.replace("<head>", f"<head>{CATCH_ALERT}", 1).replace(
            "</body>", f"{MEASURE}</body>", 1)
    page.write_text(html, encoding="utf-8")
    dom = chromium.dom(page)
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    report: dict[str, object] = json.loads(found.group(1).replace("&quot;", '"')
                                           .replace("&lt;", "<").replace("&gt;", ">")
                                           .replace("&amp;", "&"))
    return report


def _day_groups(dom: str) -> list[str]:
    return re.findall(r'<g class="day" data-day="(\d+)"', dom)


def _keys(dom: str) -> list[str]:
    return re.findall(r'class="legend-entry" data-key="([^"]+)"', dom)


def test_the_svg_draws_each_day_its_markers_and_a_key_and_fits_its_box(
        trek_run: Run, journey: str, tmp_path: Path, chromium: Browser) -> None:
    svg = tmp_path / "route.svg"
    run = ok(trek_run("map", "show", "--svg", str(svg), db=journey))
    assert run.stdout == f"Wrote the route map of ashes-road to {svg}.\n"
    dom = chromium.dom(svg)
    assert _day_groups(dom) == ["1", "2"]
    assert _keys(dom) == [
        "terrain:.", "terrain:^", "terrain:!", "shortcut", "day:1", "day:2", "cancelled",
        "mark:shortcut", "mark:forced-march", "mark:forage", "mark:night-travel", "mark:death",
        "mark:repair", "start", "party"]
    assert "start (1,1)" in dom
    assert "the party now (8,1)" in dom
    assert "ley storm (hazard), rolls -2" in dom
    # Coordinates: 0-9 across the top, 0-3 down the left.
    assert re.findall(r'class="coordinate x"[^>]*>(\d+)<', dom) == [str(x) for x in range(10)]
    assert re.findall(r'class="coordinate y"[^>]*>(\d+)<', dom) == ["0", "1", "2", "3"]
    # The undone step SE (event 18) is dashed; the live ones are not.
    assert re.search(r'class="segment cancelled" data-seq="18"[^>]*stroke-dasharray="6 5"', dom)
    assert not re.search(r'class="segment" data-seq="\d+"[^>]*stroke-dasharray', dom)
    assert re.findall(r'class="day-label"[^>]*>([^<]+)<', dom) == ["day 1", "day 2"]
    # The mount called <script> is letters in a note, and nothing of it ran.
    assert f"{ESCAPED} dead" in dom
    assert "<script" not in dom
    report = _measured(chromium, svg.read_text(), tmp_path / "measure.html")
    assert report["overflow"] == [], report
    assert report["alerted"] is False
    assert report["box"] == report["viewbox"]
    png = chromium.screenshot(svg, tmp_path / "route.png", "600,700")
    assert png.stat().st_size > 10000


def test_the_html_page_has_a_title_the_picture_and_a_print_stylesheet(
        trek_run: Run, journey: str, tmp_path: Path, chromium: Browser) -> None:
    page = tmp_path / "route.html"
    run = ok(trek_run("--json", "map", "show", "--html", str(page), db=journey))
    assert run.json() == {"html": str(page), "days": 2, "segments": 5, "marks": 7}
    dom = chromium.dom(page)
    assert "<h1>The Ashen Reach: Ashes Road</h1>" in dom
    assert "<title>The Ashen Reach: Ashes Road</title>" in dom
    assert "@media print" in dom
    assert _day_groups(dom) == ["1", "2"]
    assert "mark:death" in _keys(dom)
    assert f"{ESCAPED} dead" in dom
    report = _measured(chromium, page.read_text(), tmp_path / "measure.html")
    assert report["overflow"] == [], report
    assert report["alerted"] is False


def test_as_of_draws_only_the_route_up_to_that_point(
        trek_run: Run, journey: str, tmp_path: Path, chromium: Browser) -> None:
    svg = tmp_path / "day1.svg"
    ok(trek_run("map", "show", "--svg", str(svg), "--as-of", "day:1", db=journey))
    dom = chromium.dom(svg)
    assert _day_groups(dom) == ["1"]
    assert re.findall(r'class="segment[^"]*" data-seq="(\d+)"', dom) == ["10", "12"]
    assert "mark:death" not in _keys(dom)
    assert "cancelled" not in _keys(dom)
    # The party stood at 6,1 when day 1 was over.
    assert "the party now (6,1)" in dom
    route = ok(trek_run("--json", "map", "show", "--as-of", "12", db=journey)).json()["route"]
    assert (route["as_of"], route["position"]) == (12, {"x": 6, "y": 1})
    assert [s["seq"] for s in route["segments"]] == [10, 12]


def test_a_session_is_drawn_strong_and_the_rest_of_the_route_faint(
        trek_run: Run, journey: str, tmp_path: Path, chromium: Browser) -> None:
    svg = tmp_path / "session2.svg"
    ok(trek_run("map", "show", "--svg", str(svg), "--session", "2", db=journey))
    dom = chromium.dom(svg)
    classes = dict((seq, kind) for kind, seq in
                   re.findall(r'class="(segment[^"]*)" data-seq="(\d+)"', dom))
    assert classes == {"10": "segment faint", "12": "segment faint",
                       "18": "segment cancelled", "21": "segment", "23": "segment"}
    assert "other-sessions" in _keys(dom)
    refused(trek_run("map", "show", "--svg", str(svg), "--session", "3", db=journey),
            "there is no session 3")


def test_the_terminal_map_has_coordinates_on_its_edges_and_a_key(
        trek_run: Run, journey: str) -> None:
    out = ok(trek_run("map", "show", db=journey)).stdout.splitlines()
    assert out[1:6] == [
        "  0123456789",
        "0 ..........",
        "1 ..^^....@.",
        "2 ..^!......",
        "3 ..........",
    ]
    assert "  '@': the party, at 8,1" in out
    assert "  '^': feature name=mountains" in out
    assert ok(trek_run("map", "show", "--json", db=journey)).json()["route"]["days"] == [1, 2]


def test_a_wide_terminal_map_numbers_its_columns_in_two_lines(
        trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "wide.toml").write_text(
        '[map]\nname = "Long Road"\nrows = [\n  "............",\n  "............",\n]\n\n'
        '[legend]\n"." = { terrain = "open" }\n')
    ok(trek_run("init", "Wide", "--map", str(tmp_path / "wide.toml"), "--at", "11,1"))
    out = ok(trek_run("map", "show")).stdout.splitlines()
    assert out[1:5] == [
        "  0         1",
        "  012345678901",
        "0 ............",
        "1 ...........@",
    ]


def test_pictures_are_refused_without_a_map_or_a_writable_file_and_take_one_format(
        trek_run: Run, journey: str, tmp_path: Path) -> None:
    refused(trek_run("map", "show", "--svg", str(tmp_path / "no" / "such" / "dir.svg"),
                     db=journey), "cannot write")
    usage_error(trek_run("map", "show", "--svg", str(tmp_path / "a.svg"), "--html",
                         str(tmp_path / "a.html"), db=journey))
    refused(trek_run("map", "show", "--svg", str(tmp_path / "a.svg"), "--as-of", "99",
                     db=journey), "there is no event 99")
    assert not (tmp_path / "a.svg").exists()
    assert not (tmp_path / "a.html").exists()
    ok(trek_run("init", "Open Plain"))
    refused(trek_run("map", "show", "--html", str(tmp_path / "plain.html")), "has no map")
    assert not (tmp_path / "plain.html").exists()
    assert "No map: an open plain" in ok(trek_run("map", "show")).stdout


def _readme_lines(heading: str) -> list[str]:
    """The `trek` lines of the first bash block after `heading` in the README or docs/maps.md."""
    page = "README.md" if heading.startswith("## A three-day") else "docs/maps.md"
    return docpages.trek_lines(page, heading)


def test_the_readme_route_commands_run_after_its_journey(trek_run: Run, tmp_path: Path) -> None:
    import shlex

    root = Path(__file__).resolve().parents[2]
    for line in _readme_lines("## A three-day journey"):
        args = [str(root / a) if a.startswith("docs/") else a for a in shlex.split(line)[1:]]
        ok(trek_run(*args))
    for line in _readme_lines("## Route pictures"):
        ok(trek_run(*shlex.split(line)[1:]))
    assert _day_groups((tmp_path / "route.svg").read_text()) == ["1", "2"]
    assert "<svg " in (tmp_path / "route.html").read_text()
    assert _day_groups((tmp_path / "day1.svg").read_text()) == ["1"]

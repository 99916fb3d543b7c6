"""`trek recap` through the real program: Markdown lines, the HTML page in headless Chromium
(headings, numbers, a hostile name as text, the route picture, nothing overflowing) and printed
to PDF (one page per session, on Letter and on A4).

The campaign is the README's day 1 and a day 2 in session 1, then a fight in session 2; every
number below is worked out by hand in the comments from docs/rules.md §3.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path

import docpages
import pytest
from cliruns import ok, play_all, refused
from conftest import Browser, TrekRun, trek_env
from journeys import MAP

Trek = Callable[..., TrekRun]

ROOT = Path(__file__).resolve().parents[2]
KIRA = "<script>alert(1)</script> *Kira*_|"


@pytest.fixture(scope="module")
def campaign_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The campaign below, played once for the module (the tests only read it)."""
    folder = tmp_path_factory.mktemp("recap")
    db = str(folder / "trek.db")
    (folder / "map.toml").write_text(MAP, encoding="utf-8")
    play_all(folder, db, [
        ("init", "Ashes Road", "--map", "map.toml", "--at", "1,1", "--seed", "42"),        # 1
        ("roster", "add-character", KIRA, "--body", "6", "--mind", "5", "--soul", "4",
         "--skill", "ride=2", "--skill", "navigation=2", "--skill", "survival=1"),         # 2
        ("roster", "add-character", "Oren", "--body", "5", "--mind", "6", "--soul", "5",
         "--skill", "medicine=2", "--skill", "survival=2"),                               # 3
        ("roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider", KIRA),    # 4
        ("roster", "add-mount", "Bramble", "--move", "ground-speed=1", "--rider", "Oren"),  # 5
        ("supplies", "set", "provisions=4", "ammo=2"),                                    # 6
        ("session", "start", "Into the Reach"),                                           # 7
        ("day", "start"),                                    # 8: base 2 (ground-speed 1)
        # Oren navigates: Mind 6 + survival 2 - the pass's 1 = 7; 6 succeeds: +2 squares.
        ("shortcut", "Kessel Pass", "--roll", "6"),                                       # 9
        ("move", "E", "E", "E"),                                      # 10: 1,1 to 4,1
        # Kira: Body-Soul 5 + ride 2 = 7, 9 fails: Dusty +1 pending. 2 provisions.
        ("forced-march", "--roll", f"{KIRA}=9", "--roll", "Oren=5"),                      # 11
        ("move", "--to", "6,1"),                                      # 12: 2 squares
        # Oren forages: Body-Mind 5 + survival 2 = 7, 5 succeeds by 2: +2 provisions.
        ("forage", "--roll", "5"),                                                        # 13
        ("harm", KIRA, "--health", "12", "--energy", "20", "--reason", "ambush"),          # 14
        # Dusty 1 - 1 = level 0. Kira: Health 38 + Body 6; Energy 25 + 4 x 8, capped at 45.
        ("day", "end"),                                                                   # 15
        ("day", "start"),                                                                 # 16
        ("move", "SE"),                                                                   # 17
        ("undo", "--reason", "wrong fork"),                                               # 18
        ("move", "E"),                                                # 19: 1 square
        ("day", "end", "--hours", "6"),                  # 20: Kira 44 + 6 = 50, Energy full
        ("session", "end"),                                                               # 21
        ("session", "start", "<b>Ambush</b>"),                                            # 22
        ("encounter", "start", "Ford"),                                                   # 23
        ("encounter", "join", "Oren", "--at", "0,0"),                                     # 24
        ("encounter", "round"),                                                           # 25
        ("encounter", "round"),                                                           # 26
        ("encounter", "end"),                                                             # 27
    ])
    return db


@pytest.fixture
def played(trek_run: Trek, campaign_db: str) -> Trek:
    return lambda *args: trek_run(*args, db=campaign_db)


NAME = r"\<script\>alert\(1\)\</script\> \*Kira\*\_\|"

SESSION_1 = f"""\
# Session 1: Into the Reach

*Ashes Road* · besm · The Ashen Reach · GM test\\-gm

## Travel

- Days travelled: 2 (days 1, 2)
- Distance: 6 squares, 36 miles (6 miles a square)

## Supplies

| Supply | Gained | Spent |
| --- | ---: | ---: |
| provisions | 2 | 2 |

## On the road

- Day 1: Shortcut Kessel Pass\\: \\+2 squares (#9)
- Day 1: Forced march\\: \\+2 squares, Dusty strained (#11)
- Day 1: Forage\\: \\+2 provisions (#13)

## Mounts and vehicles

- Day 1: Dusty: 1 level pending (#11)
- Day 1: Dusty: lost 1 level (#15)

## Health and Energy regained

| Day | Character | Health | Energy |
| ---: | --- | ---: | ---: |
| 1 | {NAME} | +6 | +20 |
| 2 | {NAME} | +6 | +0 |

## Corrections

- #18 undo of #17 Moved by test\\-gm: wrong fork
"""


def test_markdown_recap_of_each_session(played: Trek) -> None:
    assert ok(played("recap", "--session", "1")).stdout == SESSION_1
    # The default: the latest session, a fight and no travel.
    latest = ok(played("recap")).stdout.splitlines()
    assert latest[0] == r"# Session 2: \<b\>Ambush\</b\>"
    assert "- Days travelled: none" in latest
    assert "- Ford: rounds 1 to 2, ended (#23)" in latest
    doc = ok(played("--json", "recap", "--session", "2")).json()
    assert (doc["session"], doc["fights"][0]["rounds"]) == (2, [1, 2])


def test_refusals(played: Trek, tmp_path: Path) -> None:
    refused(played("recap", "--session", "3"), "there is no session 3",
            "sessions 1 to 2")
    refused(played("recap", "--output", str(tmp_path)), "cannot write the recap")
    refused(played("recap", "--output", str(tmp_path / "missing" / "r.md")),
            "cannot write the recap")


def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?!s)", pdf))


def _probe(page: Path) -> Path:
    """A copy of the page that writes into its own DOM every element reaching past the
    window's right edge, for --dump-dom to show."""
    probe = page.with_name("probe-" + page.name)
    script = ("<script>addEventListener('load', () => { const w = "
              "document.documentElement.clientWidth; document.body.dataset.overflow = "
              "[...document.querySelectorAll('body *')].filter(e => "
              "e.getBoundingClientRect().right > w + 1).map(e => e.tagName).join(' ') || "
              "'none'; });</script>")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", script + "</body>"),
                     encoding="utf-8")
    return probe


def test_html_recap_in_chromium(played: Trek, tmp_path: Path, chromium: Browser) -> None:
    page = tmp_path / "recap-1.html"
    run = ok(played("recap", "--session", "1", "--format", "html", "--output", str(page)))
    assert run.stdout == f"Wrote the recap (html) to {page}.\n"
    dom = chromium.dom(page)
    assert "<h1>Session 1: Into the Reach</h1>" in dom
    for heading in ("Travel", "Supplies", "On the road", "Mounts and vehicles",
                    "Health and Energy regained", "Corrections"):
        assert f"<h2>{heading}</h2>" in dom
    assert "<li>Days travelled: 2 (days 1, 2)</li>" in dom
    assert "<li>Distance: 6 squares, 36 miles (6 miles a square)</li>" in dom
    assert '<td>provisions</td><td class="n">2</td><td class="n">2</td>' in dom
    # The hostile name is text in the table, never an element.
    assert ('<td class="n">1</td><td>&lt;script&gt;alert(1)&lt;/script&gt; *Kira*_|</td>'
            '<td class="n">+6</td><td class="n">+20</td>') in dom
    assert "<script>alert" not in dom
    # The route picture is embedded, drawn on the campaign's map.
    assert dom.count('<svg xmlns="http://www.w3.org/2000/svg" class="route-map"') == 1
    assert "The Ashen Reach" in dom
    assert 'data-overflow="none"' in chromium.dom(_probe(page))
    png = chromium.screenshot(page, tmp_path / "recap-1.png", "900,1100")
    assert png.stat().st_size > 20000


def test_each_session_prints_on_one_page(played: Trek, tmp_path: Path,
                                         chromium: Browser) -> None:
    for session in ("1", "2"):
        page = tmp_path / f"recap-{session}.html"
        ok(played("recap", "--session", session, "--format", "html", "--output", str(page)))
        letter = chromium.pdf(page, tmp_path / f"letter-{session}.pdf")
        assert b"/MediaBox [0 0 612 792]" in letter     # 8.5 x 11 inches of 72 points
        assert _pages(letter) == 1
        a4 = tmp_path / f"recap-{session}-a4.html"
        a4.write_text(page.read_text(encoding="utf-8").replace(
            "</head>", "<style>@page { size: A4; }</style></head>"), encoding="utf-8")
        pdf = chromium.pdf(a4, tmp_path / f"a4-{session}.pdf")
        assert b"/MediaBox [0 0 594.95996 841.91998]" in pdf    # 210 x 297 mm
        assert _pages(pdf) == 1


def _readme_block(heading: str, language: str = "bash") -> str:
    page = "README.md" if heading.startswith("## A three-day") else "docs/recaps.md"
    return docpages.block(page, heading, language)


def test_the_readme_recap_commands_run_after_its_journey(trek_run: Trek, tmp_path: Path) -> None:
    env = trek_env(str(tmp_path / "ashes.db"), TREK_GM="you")
    for heading in ("## A three-day journey", "# Session recaps and spreadsheets"):
        for line in _readme_block(heading).splitlines():
            if line.startswith("trek "):
                args = [str(ROOT / a) if a.startswith("docs/") else a
                        for a in shlex.split(line.split("  #")[0])[1:]]
                ok(trek_run(*args, env=env))
    # docs/recaps.md shows the session's recap as the program writes it.
    shown = _readme_block("# Session recaps and spreadsheets", "markdown")
    assert (tmp_path / "session-1.md").read_text(encoding="utf-8") == shown
    assert (tmp_path / "recap.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

"""docs/overland.md "Splitting the party": its worked example, run as written, prints what the
page says, and its picture of two routes is the one Trek draws now (`TREK_REDRAW_DOCS=1`
redraws it)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from cliruns import ok
from conftest import TrekRun
from partypictures import drawn, hue, hue_apart

Run = Callable[..., TrekRun]
ROOT = Path(__file__).resolve().parents[2]

MAP = """\
[map]
name = "Long Road"
rows = [
  "..........",
  "..........",
  "..........",
]

[legend]
"." = { terrain = "open" }
"""


def section() -> str:
    text = (ROOT / "docs" / "overland.md").read_text(encoding="utf-8")
    start = text.index("## Splitting the party")
    return text[start:text.index("\n## ", start + 1)] if "\n## " in text[start + 1:] else (
        text[start:])


def test_the_worked_example_prints_what_the_page_shows_and_draws_its_picture(
        trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "road.toml").write_text(MAP)
    for argv in (["init", "Long Road", "--map", "road.toml", "--at", "0,1", "--seed", "3"],
                 ["roster", "add-character", "Kira", "--body", "5", "--mind", "4", "--soul",
                  "3"],
                 ["roster", "add-character", "Oren", "--body", "4", "--mind", "4", "--soul",
                  "4"],
                 ["roster", "add-mount", "Dusty", "--move", "ground-speed=2", "--rider", "Kira"],
                 ["supplies", "set", "provisions=5"]):
        ok(trek_run(*argv))
    page = section()
    # Every command the page shows after a `$`, in order, prints the lines it shows under it.
    shown = re.findall(r"^\$ trek (.+)\n((?:[^$`\n].*\n)*)", page, re.M)
    assert len(shown) >= 8
    for words, printed in shown:
        out = ""
        for command in words.split(" && "):
            out += ok(trek_run(*command.removeprefix("trek ").split())).stdout
        for line in printed.splitlines():
            assert line.strip() in out, (words, line, out)
    # The picture is the route as of the event before the merge, both parties on the map.
    before = int(re.search(r"--as-of (\d+)", page).group(1))  # type: ignore[union-attr]
    ok(trek_run("map", "show", "--svg", "two.svg", "--as-of", str(before)))
    picture = (tmp_path / "two.svg").read_text(encoding="utf-8")
    parties = drawn(picture)
    riders = {parties.segments[seq][2] for seq in parties.segments
              if parties.segments[seq][0] == "riders"}
    walkers = {parties.segments[seq][2] for seq in parties.segments
               if parties.segments[seq][0] == "main"}
    # The riders' four days, four shades of one family; the walkers' two, two of another.
    assert len(riders) == 4
    assert len(walkers) == 2
    assert min(hue_apart(hue(a), hue(b)) for a in riders for b in walkers) > 60
    committed = ROOT / "docs" / "images" / "two-parties.svg"
    if os.environ.get("TREK_REDRAW_DOCS"):
        committed.write_text(picture, encoding="utf-8")
    assert committed.read_text(encoding="utf-8") == picture, (
        "docs/images/two-parties.svg is stale: run this test with TREK_REDRAW_DOCS=1")

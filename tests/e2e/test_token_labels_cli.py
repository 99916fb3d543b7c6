"""Token labels (RULES §13): `trek encounter status --json` gives each combatant a short label,
unique in the encounter, and the terminal map and the SVG picture draw that label. In process,
through `trek_run`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cliruns import ok
from conftest import TrekRun

Run = Callable[..., TrekRun]

ROSTER = {"Bandit": "1,1", "Bandit 2": "3,1", "<b>Thug</b>": "5,1", "[bold red]Boss[/]": "7,1"}


def _brawl(run: Run) -> None:
    ok(run("init", "Road", "--seed", "1"))
    ok(run("encounter", "start", "Brawl"))
    for name, at in ROSTER.items():
        ok(run("encounter", "add", name, "--side", "enemy", "--at", at, "--body", "3", "--mind",
               "3", "--soul", "3"))


def test_status_gives_each_combatant_a_short_unique_label(trek_run: Run) -> None:
    _brawl(trek_run)
    doc = ok(trek_run("encounter", "status", "--json")).json()
    labels = {name: c["label"] for name, c in doc["combatants"].items()}
    assert labels == {"Bandit": "B", "Bandit 2": "B2", "<b>Thug</b>": "T",
                      "[bold red]Boss[/]": "Bo"}
    # `trek status --json` carries the same document.
    assert ok(trek_run("status", "--json")).json()["encounter"] == doc

    # Kept once given: the first Bandit leaves, nobody's label changes, a newcomer takes a
    # free one.
    ok(trek_run("encounter", "remove", "Bandit"))
    ok(trek_run("encounter", "add", "Brute", "--side", "enemy", "--at", "1,3", "--body", "3",
                "--mind", "3", "--soul", "3"))
    after = ok(trek_run("encounter", "status", "--json")).json()["combatants"]
    assert {name: c["label"] for name, c in after.items()} == {
        "Bandit 2": "B2", "<b>Thug</b>": "T", "[bold red]Boss[/]": "Bo", "Brute": "Br"}


def test_the_svg_and_the_terminal_map_draw_the_same_labels(trek_run: Run,
                                                           tmp_path: Path) -> None:
    _brawl(trek_run)
    ok(trek_run("encounter", "show", "--svg", str(tmp_path / "brawl.svg")))
    svg = (tmp_path / "brawl.svg").read_text(encoding="utf-8")
    tokens = svg.split('<g class="combatants"')[1].split("</g>\n</g>")[0]
    drawn = [part.split('fill="white">')[1].split("<")[0]
             for part in tokens.split('<text class="label"')[1:]]
    assert drawn == ["B", "B2", "T", "Bo"]
    # Names are escaped where they are shown; no markup gets through.
    assert "<b>Thug</b>" not in svg
    assert "&lt;b&gt;Thug&lt;/b&gt;" in svg

    text = ok(trek_run("encounter", "status")).stdout
    lines = text.splitlines()
    # Every cell as wide as the longest label (2) and a space, the x numbers over them.
    header = lines.index("  0  1  2  3  4  5  6  7  8")
    assert lines[header + 2].rstrip() == "1 .  B  .  B2 .  T  .  Bo ."
    # Rich markup in a name is shown as typed, never read.
    assert "[bold red]Boss[/]" in text
    assert "<b>Thug</b>" in text

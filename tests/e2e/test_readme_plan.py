"""The worked plan ("can we reach Kessel by day 6?") of the README and docs/plan.md: its
output and its picture are what the commands print and draw (`TREK_REDRAW_DOCS=1` writes the
picture anew)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from cliruns import ok
from conftest import TrekRun

ROOT = Path(__file__).resolve().parents[2]
SETUP: list[tuple[str, ...]] = [
    ("init", "Road to Kessel", "--map", str(ROOT / "docs" / "examples" / "kessel-road.toml"),
     "--at", "1,2", "--seed", "42"),
    ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4",
     "--skill", "ride=2", "--skill", "navigation=2", "--skill", "survival=1"),
    ("roster", "add-character", "Oren", "--body", "5", "--mind", "6", "--soul", "5",
     "--skill", "medicine=2", "--skill", "survival=2"),
    ("roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider", "Kira"),
    ("roster", "add-mount", "Bramble", "--move", "ground-speed=1", "--rider", "Oren"),
    ("supplies", "set", "provisions=6", "ammo=2"),
]


def readme_block(after: str, page: str = "README.md") -> str:
    """The first fenced block of `page` after the line `after`."""
    text = (ROOT / page).read_text(encoding="utf-8")
    start = text.index(after)
    found = re.search(r"```[a-z]*\n(.*?)```", text[start:], re.S)
    assert found is not None
    return found.group(1)


def test_the_readme_plan_is_what_trek_prints_and_draws(
        trek_run: Callable[..., TrekRun], tmp_path: Path) -> None:
    for args in SETUP:
        ok(trek_run(*args))
    for page in ("README.md", "docs/plan.md"):
        shown = readme_block("<!-- plan output -->", page)
        printed = ""
        for line in shown.splitlines():
            if line.startswith("$ trek plan"):
                args = line.removeprefix("$ trek ").split()
                printed += line + "\n" + ok(trek_run(*args)).stdout
        assert printed == shown, page

    drawn = (tmp_path / "kessel-plan.svg").read_text(encoding="utf-8")
    committed = ROOT / "docs" / "images" / "kessel-plan.svg"
    if os.environ.get("TREK_REDRAW_DOCS"):
        committed.write_text(drawn, encoding="utf-8")
    assert committed.read_text(encoding="utf-8") == drawn, (
        "docs/images/kessel-plan.svg is stale: run this test with TREK_REDRAW_DOCS=1")

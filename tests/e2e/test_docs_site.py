"""The documentation: the site builds with every link resolved, the README stays short, and no
page repeats another."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.slow
def test_the_site_builds_strictly_with_the_readme_as_its_home(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
         "-d", str(site)], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "Two commands" in home
    assert "A three-day journey" in home
    # The README's links into docs/ became links between the site's pages.
    assert 'href="getting-started/"' in home
    assert "Changelog" in (site / "changelog" / "index.html").read_text(encoding="utf-8")
    # The API page is the description the server publishes, every address of RULES.md §13.
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    for address in ("status", "log", "encounter", "events", "commands"):
        assert f"/api/campaigns/{{slug}}/{address}" in api
    assert not (ROOT / "site").exists()


def test_the_readme_is_read_in_ten_minutes() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8")) <= 12_000


def prose(page: Path) -> list[str]:
    """The page's paragraphs of text, code blocks, tables and headings left out."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    paragraphs = [" ".join(block.split()) for block in re.split(r"\n\s*\n", text)]
    return [p for p in paragraphs if len(p) >= 120 and not p.startswith(("|", "#", "!["))]


def test_no_page_repeats_another() -> None:
    seen: dict[str, Path] = {}
    for page in pages():
        for paragraph in prose(page):
            assert paragraph not in seen, (
                f"{page.name} repeats a paragraph of {seen[paragraph].name}: {paragraph[:80]}")
            seen[paragraph] = page


def test_getting_started_runs_as_written(trek_run: Any, tmp_path: Path) -> None:
    import shlex

    import docpages
    from cliruns import ok

    (tmp_path / "docs").symlink_to(ROOT / "docs")
    for line in docpages.trek_lines("docs/getting-started.md", "## A campaign in five commands"):
        ok(trek_run(*shlex.split(line)[1:]))
    status = ok(trek_run("status", "--json")).json()
    # From 1,1 one step south onto open ground: on foot (no mount) the base movement is 1.
    assert status["position"] == {"x": 1, "y": 2}
    assert status["movement"]["remaining"] == 0

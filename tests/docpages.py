"""The README and the documentation pages, read by the tests that run their examples."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def text(page: str) -> str:
    """`page`: "README.md" or a path under docs/ ("docs/history.md")."""
    return (ROOT / page).read_text(encoding="utf-8")


def after(page: str, heading: str) -> str:
    """The page from the line `heading` (a whole Markdown heading line) on."""
    whole = text(page)
    found = re.search(rf"(?m)^{re.escape(heading)}$", whole)
    assert found is not None, f"{page} has a heading {heading!r}"
    return whole[found.start():]


def block(page: str, heading: str, language: str = "bash") -> str:
    """The first fenced block in `language` after `heading`."""
    found = re.search(rf"```{language}\n(.*?)```", after(page, heading), re.S)
    assert found is not None, f"{page}'s {heading!r} has a {language} block"
    return found.group(1)


def trek_lines(page: str, heading: str) -> list[str]:
    """The `trek` lines of the first bash block after `heading`, comments cut off."""
    return [line.split("  #")[0].strip() for line in block(page, heading).splitlines()
            if line.startswith("trek ")]

"""No front-end runs the click commands through click's test runner: the server hands typed
commands to `Trek.handle` (issue 41); `click.testing` belongs to the tests alone."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_click_testing_outside_the_tests() -> None:
    sources = [path for folder in ("cli", "tracker", "domain", "projections", "benchmarks")
               for path in (ROOT / folder).rglob("*.py")]
    assert len(sources) > 50
    found = [str(path.relative_to(ROOT)) for path in sources
             if "click.testing" in (text := path.read_text(encoding="utf-8"))
             or "CliRunner" in text]
    assert found == []

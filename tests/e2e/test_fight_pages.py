"""The fight pages of docs/ for GURPS, Shadowrun, Move-Points and Cypher, run for real.

Each example is a transcript (`$ trek ...` and what it printed) or a bash block. Every command is
run through the real `trek` program in a fresh store; a line the page shows refused must be
refused with that very sentence, and every event line (`#N ...`) and every line it shows before
a table (a heading, the battle map) must be what the program prints now.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import docpages
import pytest
from conftest import trek_env

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

SECTIONS = [
    "docs/fights-gurps.md",
    "docs/fights-shadowrun.md",
    "docs/fights-movepoints.md",
    "docs/fights-cypher-rounds.md",
]


def section(page: str) -> str:
    """A ruleset's fight page, its heading line left out."""
    return docpages.text(page).split("\n", 1)[1]


def blocks(body: str) -> list[tuple[str, str]]:
    return re.findall(r"```(\w*)\n(.*?)```", body, flags=re.S)


def run(line: str, tmp_path: Path, db: Path) -> subprocess.CompletedProcess[str]:
    args = shlex.split(line, comments=True)
    assert args[0] == "trek", line
    return subprocess.run([sys.executable, "-m", "cli", *args[1:]], cwd=tmp_path,
                          env=trek_env(str(db), COLUMNS="200"), capture_output=True, text=True,
                          timeout=120, check=False)


def contains(document: Any, part: Any) -> bool:
    if document == part:
        return True
    if isinstance(document, dict):
        return any(contains(value, part) for value in document.values())
    if isinstance(document, list):
        return any(contains(value, part) for value in document)
    return False


@pytest.mark.parametrize("page", SECTIONS, ids=["gurps", "shadowrun", "movepoints", "cypher"])
def test_the_fight_page_prints_what_it_shows(page: str, tmp_path: Path) -> None:
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    db = tmp_path / "example.db"
    body = section(page)
    # A battle map shown as a TOML block and named in the prose ("as `ford.toml`").
    named = re.search(r"as `([\w.-]+\.toml)`", body)
    for kind, text in blocks(body):
        if kind == "toml" and named:
            (tmp_path / named.group(1)).write_text(text, encoding="utf-8")
    commands = 0
    for kind, text in blocks(body):
        if kind == "bash":
            # Commands, each followed by what it printed as `#   ` comment lines.
            steps = [re.sub(r"(?m)^#   ", "", step) for step in
                     re.split(r"(?m)^(?=trek )", text)[1:]]
        elif "\n$ " in "\n" + text:
            steps = re.split(r"(?m)^\$ ", text)[1:]
        else:
            continue
        for step in steps:
            line, *shown = step.rstrip("\n").split("\n")
            if line.startswith("cat "):
                (tmp_path / line.split()[1]).write_text("\n".join(shown) + "\n",
                                                        encoding="utf-8")
                continue
            done = run(line, tmp_path, db)
            commands += 1
            if shown and shown[0].startswith("Error:"):
                assert done.returncode == 1, (line, done.stdout, done.stderr)
                assert done.stderr.splitlines()[0] == shown[0], line
                continue
            assert done.returncode == 0, (line, done.stderr)
            printed = done.stdout.splitlines()
            if "--json" in line and shown:
                # The page shows one part of the document: it must be in what was printed.
                assert contains(json.loads(done.stdout), json.loads(shown[0])), line
                continue
            events = [s for s in shown if re.match(r"#\d+ ", s)]
            if events:
                assert [p for p in printed if re.match(r"#\d+ ", p)] == events, line
            elif shown:
                # Every line shown before a table (a heading, a picture) is what was printed.
                table = next((i for i, s in enumerate(shown) if s.startswith("┏")), len(shown))
                assert [p.rstrip() for p in printed[:table]] == [
                    s.rstrip() for s in shown[:table]], line
    assert commands >= 10, f"{page}: only {commands} commands found"

"""A command that acts on one party (RULES.md §15) is marked so (`Command.acts_on_party`), which
gives it its `party` field as JSON: the same commands whose words take `--party NAME`."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from cli.bootstrap import bootstrap
from cli.main import trek
from cli.parse import read
from cli.web.commands import command_types

# One way to say each recording command whose words take --party (the reads status, log,
# map show and plan take it too, and record nothing).
WORDS = [
    ["day", "start"], ["day", "end"], ["move", "E"], ["roster", "leave", "Kira"],
    ["roster", "rejoin", "Kira"], ["supplies", "set", "provisions=1"],
    ["supplies", "add", "provisions=1"], ["supplies", "spend", "provisions=1"],
    ["shortcut", "Goat Track"], ["forced-march"], ["night-travel"], ["forage"],
    ["repair", "Cart", "--by", "Oren"], ["party", "split", "riders", "--member", "Kira"],
]
READS = {"status", "log", "map show", "plan"}


@pytest.fixture(autouse=True)
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TREK_DB", str(tmp_path / "none.db"))


def _taking_party(group: click.Group, prefix: str = "") -> set[str]:
    """Every command of the command line with a --party option, by its words."""
    found: set[str] = set()
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, name
        words = f"{prefix}{name}"
        if isinstance(command, click.Group):
            found |= _taking_party(command, words + " ")
        elif any("--party" in getattr(p, "opts", ()) for p in command.params):
            found.add(words)
    return found


def test_the_commands_taking_party_are_the_ones_marked() -> None:
    root = bootstrap(None)
    made = {type(read([*words, "--party", "riders"], root).command) for words in WORDS}
    # Each one's words read with --party, into a command marked as acting on one party.
    assert all(kind.acts_on_party for kind in made)
    # Every marked command is among them (merge takes --into, its party).
    marked = {kind for kind in command_types(root.registry).values() if kind.acts_on_party}
    assert {kind.__name__ for kind in marked - made} == {"MergeParties"}
    # And every command line command with --party is a read or among the words above.
    assert _taking_party(trek) == READS | {" ".join(w[:2] if w[0] in (
        "day", "roster", "party") else w[:1]) for w in WORDS}

"""cli/parse.py: the words after `trek` become a typed command or query, and nothing else
happens: no store opened, no file read or written, nothing printed (issue 41)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cli.parse import NotATableCommand, ParseError, parse, read
from cli.reads import EncounterStatus, Log, Status
from domain.commands.days import StartDay
from domain.commands.encounter import MoveCombatant, StartEncounter
from domain.commands.history import Undo
from domain.commands.roster import Harm
from domain.commands.travel import Move, MoveOptions
from domain.errors import TrackerError
from domain.geometry import Square


@pytest.fixture(autouse=True)
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder and a store that does not exist: parsing must leave both as they are."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TREK_DB", str(tmp_path / "none.db"))
    return tmp_path


@pytest.mark.parametrize(("words", "made"), [
    (["move", "E", "e"], Move(MoveOptions(steps=("E", "E")))),
    (["--json", "move", "--to", "3,4"], Move(MoveOptions(to=Square(3, 4)))),
    (["move", "--", "SE"], Move(MoveOptions(steps=("SE",)))),
    (["day", "start", "--json"], StartDay()),
    (["harm", "--health", "2", "Kira"], Harm("Kira", 2, 0, None)),
    (["undo", "--last", "move", "--reason", "wrong fork"],
     Undo(None, reason="wrong fork", last="move")),
    (["encounter", "start", "Ridge"], StartEncounter("Ridge")),
    (["encounter", "move", "Wolf", "--shift", "s"],
     MoveCombatant(name="Wolf", steps=("S",), options={"shift": True})),
    (["status"], Status()),
    (["log", "--last", "2", "--from", "5"], Log(since=5, last=2)),
    (["encounter", "status", "--json"], EncounterStatus()),
])
def test_words_make_the_typed_command(words: list[str], made: Any, nowhere: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert parse(words) == made
    assert type(parse(words)) is type(made)
    assert capsys.readouterr() == ("", "")
    assert list(nowhere.iterdir()) == []


def test_preview_and_the_store_options_are_told_beside_the_command() -> None:
    parsed = read(["--json", "move", "E", "--preview", "--campaign", "x"])
    assert parsed.command == Move(MoveOptions(steps=("E",)))
    assert parsed.preview
    assert parsed.named == {"json", "preview", "campaign"}
    assert parsed.path == ("move",)


@pytest.mark.parametrize("words", [
    ["--json", "demo", "--keep", "kept.db"],
    ["--", "demo", "--keep", "kept.db"],
    ["--json", "map", "import", "source.tmj", "--to", "out.toml", "--force"],
    ["init", "Evil Camp"],
    ["--json", "branch", "evil-branch"],
    ["--json", "campaigns", "use", "evil-camp"],
    ["campaigns"],
    ["--json", "replay", "--accept-tampering"],
    ["--json", "watch"],
    ["serve"],
    ["shell"],
    ["verify"],
    ["map", "show", "--svg", "pic.svg"],
    ["encounter", "start", "Ridge", "--map", "battle.toml"],
    ["encounter", "show", "--svg", "fight.svg"],
    ["log", "--csv"],
    ["audit", "--csv"],
])
def test_a_command_that_is_not_the_tables_is_refused_without_running(
        words: list[str], nowhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(NotATableCommand) as refused:
        parse(words)
    assert "trek command line" in str(refused.value)
    assert capsys.readouterr() == ("", "")
    assert list(nowhere.iterdir()) == []


def test_a_file_option_is_refused_before_the_disk_is_looked_at(nowhere: Path) -> None:
    """click's path type would say "is a directory" for a folder that exists: the answer
    must not tell a folder that exists from one that does not."""
    (nowhere / "there").mkdir()
    with pytest.raises(NotATableCommand) as there:
        parse(["map", "show", "--svg", "there"])
    with pytest.raises(NotATableCommand) as missing:
        parse(["map", "show", "--svg", "missing"])
    assert str(there.value).replace("there", "X") == str(missing.value).replace("missing", "X")
    assert sorted(p.name for p in nowhere.iterdir()) == ["there"]


@pytest.mark.parametrize(("words", "fragment"), [
    (["mvoe", "E"], "No such command"),
    (["move", "--bogus"], "`trek move` has no option --bogus; its own options are --to"),
    (["undo", "seven"], "seven"),
    (["status", "--help"], "`trek status` has no option --help"),
    (["--version"], "--version is not available"),
    (["encounter"], "needs a command"),
    (["move", "E", "--to", "3,4"], "not both"),
])
def test_words_that_make_no_command_are_a_parse_error(
        words: list[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ParseError) as refused:
        parse(words)
    assert fragment in str(refused.value)
    assert capsys.readouterr() == ("", "")


def test_a_value_out_of_its_bounds_is_the_rules_refusal() -> None:
    with pytest.raises(TrackerError, match="given twice"):
        parse(["supplies", "add", "provisions=1", "provisions=2"])
    with pytest.raises(TrackerError, match="must be 1 to"):
        parse(["roster", "add-character", "Kira", "--health-max", "-3"])

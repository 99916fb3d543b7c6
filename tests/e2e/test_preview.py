"""`--preview` on every recording command (RULES §13): it prints the event the command would
record, exactly as recording it would, and records nothing.

Each ruleset's small campaign is a table of command lines valid one after another. Walking a
table, every line is previewed and then recorded: the preview's event equals the recorded one
(seq, type and every field), and the preview left the store's bytes as they were. A hypothesis
property draws lines from the tables in any order, where some are refused: a preview is refused
exactly when recording is, with the same sentence.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from cliruns import ok, recorded, refused
from conftest import TrekRun
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.main import trek

Run = Callable[..., TrekRun]

pytestmark = pytest.mark.slow

#   x: 01234567
#   y0 ........
#   y1 ..##....
#   y2 ..#::...
#   y3 ........        and a gate on the line x=7 beside 6,0 (RULES §16)
SQUARES = """\
[map]
name = "Kessel Pass"
rows = ["........", "..##....", "..#::...", "........"]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
":" = { terrain = "difficult" }

[[door]]
from = [7, 0]
to = [7, 1]
name = "gate"
"""

HEXES = """\
[map]
name = "Mill yard"
grid = "hex"
rows = ["......", "..t~..", "..#...", "......"]

[legend]
"." = { terrain = "open" }
"t" = { terrain = "treacherous" }
"~" = { terrain = "shallow-water" }
"#" = { terrain = "wall" }
"""

ALLEY = """\
[map]
name = "Redmond Alley"
cell_meters = 1
rows = ["..........", "..##......", "..,,......", ".........."]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
"," = { terrain = "rough" }
"""

FORD = """\
[map]
name = "The Ford"
rows = ["..........", "..~~~#....", "..~~~..^..", ".........."]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
"~" = { terrain = "water" }
"^" = { terrain = "open", name = "scree", cost = 8, poor_footing = true }
"""

HOLD = """\
[map]
name = "Derelict hold"
rows = ["##########", "#........#", "#..::,,..#", "#..ww^^..#", "#zzzzzz..#",
        "#zzzzzz..#", "##########"]

[legend]
"#" = { terrain = "wall" }
"." = { terrain = "open" }
":" = { terrain = "difficult" }
"," = { terrain = "rough" }
"w" = { terrain = "water" }
"^" = { terrain = "high-gravity" }
"z" = { terrain = "zero-gravity" }
"""

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"

Line = tuple[str, ...]


@dataclass(frozen=True)
class Scenario:
    """A small campaign: the lines that make it, then a table of recording lines that are
    valid one after another on it. `maps` are written beside the store, by file name."""

    setup: tuple[Line, ...]
    table: tuple[Line, ...]
    maps: tuple[tuple[str, str], ...] = ()


def _encounter(ruleset: str, map_name: str, map_text: str, characters: tuple[Line, ...],
               table: tuple[Line, ...]) -> Scenario:
    return Scenario(
        setup=(("init", "Fight", "--ruleset", ruleset, "--seed", "7"), *characters),
        table=(("encounter", "start", "Clash", "--map", map_name), *table,
               ("encounter", "end")),
        maps=((map_name, map_text),))


SCENARIOS: dict[str, Scenario] = {
    "besm-overland": Scenario(
        setup=(("init", "Ashes Road", "--map", str(EXAMPLES / "ashen-reach.toml"), "--at", "1,1",
                "--seed", "42"),
               ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4",
                "--skill", "ride=2", "--skill", "navigation=2", "--skill", "survival=1"),
               ("roster", "add-character", "Oren", "--body", "5", "--mind", "6", "--soul", "5",
                "--skill", "medicine=2", "--skill", "survival=2"),
               ("roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider", "Kira")),
        table=(
            ("session", "start", "The long way round"),
            ("roster", "add-mount", "Bramble", "--move", "ground-speed=1"),
            ("roster", "assign", "Oren", "--to", "Bramble", "--as", "rider"),
            ("roster", "add-character", "Vel", "--body", "4", "--mind", "4", "--soul", "4"),
            ("roster", "add-vehicle", "Cart", "--move", "ground-speed=1", "--driver", "Vel"),
            ("roster", "dismount", "Vel"),
            ("roster", "leave", "Vel"),
            ("roster", "rejoin", "Vel"),
            ("roster", "leave", "Cart"),
            ("roster", "leave", "Vel"),
            ("rules", "set", "upkeep-provisions=1"),
            ("supplies", "set", "provisions=4", "ammo=2"),
            ("supplies", "add", "provisions=2"),
            ("supplies", "spend", "ammo=1"),
            ("harm", "Oren", "--health", "3", "--reason", "a fall"),
            ("day", "start"),
            ("shortcut", "Kessel Pass", "--roll", "6"),
            ("move", "E", "E", "E"),
            ("forced-march", "--roll", "Kira=9", "--roll", "Oren=5"),
            ("move", "--to", "6,1"),
            ("forage", "--roll", "5"),
            ("day", "end"),
            ("day", "start"),
            ("move", "SE"),
            ("undo", "--reason", "wrong fork"),
            ("redo", "28"),
            ("undo", "28"),
            ("move", "E"),
            ("night-travel", "--roll", "8"),
            ("move", "E"),
            ("day", "end", "--rest", "Kira=saddle", "--hours", "6"),
            ("day", "start"),
            ("repair", "Dusty", "--by", "Oren", "--roll", "6"),
            ("day", "end"),
            ("party", "split", "riders", "--member", "Kira", "--member", "Dusty",
             "--supplies", "provisions=1"),
            ("party", "merge", "riders"),
            ("session", "end"),
        )),
    "cypher-overland": Scenario(
        setup=(("init", "Qi", "--ruleset", "cypher", "--map", str(EXAMPLES / "road-to-qi.toml"),
                "--seed", "5"),
               ("roster", "add-character", "Kira", "--might", "12", "--speed", "14")),
        table=(
            ("supplies", "add", "provisions=3"),
            ("day", "start"),
            ("move", "E", "E"),
            ("move", "E"),
            ("day", "end"),
            ("undo",),
        )),
    "besm-encounter": _encounter(
        "besm", "pass.toml", SQUARES,
        (("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4",
          "--attribute", "ground-speed=2"),
         ("roster", "add-character", "Oren", "--body", "5", "--mind", "6", "--soul", "5")),
        (("encounter", "join", "Kira", "--at", "0,0"),
         ("encounter", "join", "Oren", "--at", "0,3"),
         ("encounter", "add", "Bandit", "--side", "enemy", "--at", "5,0", "--body", "4",
          "--mind", "3", "--soul", "3"),
         ("encounter", "add", "Wolf", "--side", "enemy", "--at", "7,3", "--body", "3",
          "--mind", "3", "--soul", "3"),
         ("encounter", "remove", "Wolf"),
         ("encounter", "round",),
         ("encounter", "move", "Kira", "E", "E", "E", "E"),
         ("encounter", "move", "Oren", "E", "E", "E", "NE"),
         ("encounter", "act", "Oren", "--ranged"),
         ("encounter", "round",),
         ("encounter", "prone", "Oren"),
         ("encounter", "door", "gate", "open"),
         ("encounter", "stand", "Oren"),
         ("encounter", "door", "7,0", "close"),
         ("encounter", "move", "Kira", "W", "W"),
         ("undo", "--cascade"))),
    "gurps-encounter": _encounter(
        "gurps", "mill.toml", HEXES,
        (("roster", "add-character", "Kira", "--basic-move", "5", "--basic-speed", "5.75"),
         ("roster", "add-character", "Oren", "--basic-move", "4", "--basic-speed", "5")),
        (("encounter", "join", "Kira", "--at", "1,3"),
         ("encounter", "join", "Oren", "--at", "4,3", "--facing", "NW"),
         ("encounter", "add", "Orc", "--side", "enemy", "--at", "4,0", "--facing", "S",
          "--basic-move", "6", "--basic-speed", "6"),
         ("encounter", "round",),
         ("encounter", "move", "Kira", "N", "N", "NE"),
         ("encounter", "move", "Oren", "N", "--end-facing", "S"),
         ("encounter", "posture", "Orc", "crouching"),
         ("encounter", "move", "Orc", "S"),
         ("undo",))),
    "shadowrun-encounter": _encounter(
        "shadowrun", "alley.toml", ALLEY,
        (("roster", "add-character", "Kira", "--quickness", "5", "--metatype", "elf"),
         ("roster", "add-character", "Dvorak", "--quickness", "4", "--metatype", "dwarf")),
        (("encounter", "join", "Kira", "--at", "0,0"),
         ("encounter", "join", "Dvorak", "--at", "0,3"),
         ("encounter", "add", "Ganger", "--side", "enemy", "--at", "5,1", "--quickness", "4",
          "--metatype", "human"),
         ("encounter", "round", "--passes", "Kira=2", "--passes", "Ganger=3"),
         ("encounter", "move", "Kira", "--run", "E", "E", "E", "E"),
         ("encounter", "move", "Dvorak", "NE", "E"),
         ("encounter", "sprint", "Kira", "--roll", "2"),
         ("encounter", "pass",),
         ("encounter", "move", "Kira", "E", "E", "E"),
         ("encounter", "intercept", "Kira", "--by", "Ganger", "--at", "6,0"),
         ("undo",))),
    "movepoints-encounter": _encounter(
        "movepoints", "ford.toml", FORD,
        (("roster", "add-character", "Kira", "--full-move", "13"),
         ("roster", "add-character", "Mara", "--full-move", "5")),
        (("encounter", "join", "Kira", "--at", "0,0"),
         ("encounter", "join", "Mara", "--at", "1,1"),
         ("encounter", "add", "Goblin", "--side", "enemy", "--at", "8,3", "--full-move", "9"),
         ("encounter", "round",),
         ("encounter", "act", "Kira", "move"),
         ("encounter", "move", "Kira", "E", "E", "E"),
         ("encounter", "step", "Mara", "S"),
         ("encounter", "condition", "Kira", "stunned"),
         ("encounter", "round",),
         ("encounter", "condition", "Kira", "clear"),
         ("undo",))),
    "cypher-encounter": _encounter(
        "cypher", "hold.toml", HOLD,
        (("roster", "add-character", "Kira", "--might", "12", "--speed", "14", "--skill",
          "swimming=1"),
         ("roster", "add-character", "Oren", "--speed", "10")),
        (("encounter", "join", "Kira", "--at", "1,1"),
         ("encounter", "join", "Oren", "--at", "1,3"),
         ("encounter", "add", "Drone", "--side", "enemy", "--at", "2,5", "--might", "8"),
         ("encounter", "round",),
         ("encounter", "move", "Kira", "E", "E", "E", "E"),
         ("encounter", "move", "Oren", "E", "NE", "E", "E", "--long", "--roll", "15"),
         ("encounter", "push", "Drone", "E", "--feet", "20", "--roll", "15"),
         ("encounter", "round",),
         ("encounter", "chase", "Kira", "--level", "3", "--extended"),
         ("encounter", "chase-roll", "Kira", "--roll", "9"),
         ("undo",))),
}

# The commands that create a campaign rather than record one event in it (docs/architecture.md).
CREATING = {("init",), ("branch",)}


def _store_bytes(db: Path) -> dict[str, bytes]:
    """Every file of an SQLite store (the database, its WAL and shared memory), by suffix."""
    return {suffix: Path(f"{db}{suffix}").read_bytes()
            for suffix in ("", "-wal", "-shm") if Path(f"{db}{suffix}").exists()}


class Templates:
    """Each scenario's campaign, built once for the module and copied for each test."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.built: dict[str, Path] = {}

    def copy(self, run: Run, name: str, into: Path) -> Path:
        if name not in self.built:
            self.built[name] = self._build(run, name)
        into.mkdir(parents=True, exist_ok=True)
        db = into / f"{name}.db"
        for suffix in ("", "-wal"):
            source = Path(f"{self.built[name]}{suffix}")
            if source.exists():
                shutil.copyfile(source, f"{db}{suffix}")
        for file, _ in SCENARIOS[name].maps:
            shutil.copyfile(self.folder / file, into / file)
        return db

    def _build(self, run: Run, name: str) -> Path:
        scenario = SCENARIOS[name]
        for file, text in scenario.maps:
            (self.folder / file).write_text(text, encoding="utf-8")
        db = self.folder / f"{name}.db"
        for line in scenario.setup:
            ok(run(*line, db=str(db)))
        return db


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return Templates(tmp_path_factory.mktemp("templates"))


def _in_folder(line: Line, folder: Path) -> Line:
    """The line with map file names as paths in `folder`."""
    return tuple(str(folder / word) if word.endswith(".toml") and "/" not in word else word
                 for word in line)


def preview_then_record(run: Run, db: Path, line: Line) -> tuple[TrekRun, TrekRun]:
    """Preview `line` (checking that the store is left as it was), then record it."""
    line = _in_folder(line, db.parent)
    before = _store_bytes(db)
    preview = run(*line, "--preview", "--json", db=str(db))
    assert _store_bytes(db) == before, (line, "the preview changed the store")
    return preview, run(*line, "--json", db=str(db))


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_preview_is_the_event_then_recorded_and_changes_nothing(
        trek_run: Run, templates: Templates, tmp_path: Path, name: str) -> None:
    db = templates.copy(trek_run, name, tmp_path)
    for line in SCENARIOS[name].table:
        preview, record = preview_then_record(trek_run, db, line)
        event = ok(record).json()
        assert ok(preview).json() == event, line
        assert len(event) == 1, line


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_preview_is_refused_or_recorded_exactly_as_the_command_itself(
        trek_run: Run, templates: Templates, tmp_path_factory: pytest.TempPathFactory,
        data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(list(SCENARIOS)), label="scenario")
    table = SCENARIOS[name].table
    lines = data.draw(st.lists(st.sampled_from(table), min_size=1, max_size=5), label="lines")
    db = templates.copy(trek_run, name, tmp_path_factory.mktemp(name))
    for line in lines:
        preview, record = preview_then_record(trek_run, db, line)
        assert preview.returncode == record.returncode, (line, preview, record)
        assert preview.stderr == record.stderr, line
        assert preview.stdout == record.stdout, line


def _leaf_commands() -> dict[tuple[str, ...], click.Command]:
    found: dict[tuple[str, ...], click.Command] = {}

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            if isinstance(command, click.Group):
                walk(command, (*path, name))
            else:
                found[(*path, name)] = command
    walk(trek, ())
    return found


def _command_of(line: Line, commands: dict[tuple[str, ...], click.Command]) -> tuple[str, ...]:
    return line[:2] if line[:2] in commands else line[:1]


def test_the_tables_hold_every_command_that_takes_preview() -> None:
    commands = _leaf_commands()
    previewing = {path for path, command in commands.items()
                  if any("--preview" in p.opts for p in command.params)}
    tabled = {_command_of(line, commands) for s in SCENARIOS.values() for line in s.table}
    assert tabled | CREATING == previewing
    # Every other command only reads (or, like `demo`, plays into a store of its own; `shell`
    # runs other commands, each previewing on its own line; `campaigns use` and `party use`
    # record no event, nor do the seats, kept beside the log, and `requests`, which reads).
    assert set(commands) - previewing == {
        ("audit",), ("campaigns", "use"), ("demo",), ("diff",), ("encounter", "show"),
        ("encounter", "status"), ("log",), ("map", "import"), ("map", "show"),
        ("party", "list"), ("party", "use"), ("plan",),
        ("recap",), ("replay",), ("requests",), ("rules", "show"), ("seat", "add"),
        ("seat", "list"), ("seat", "remove"), ("seat", "trust"), ("serve",), ("shell",),
        ("status",), ("verify",), ("watch",)}


def test_a_preview_line_says_what_would_be_recorded_and_that_nothing_was(
        trek_run: Run, templates: Templates, tmp_path: Path) -> None:
    db = templates.copy(trek_run, "besm-overland", tmp_path)
    before = _store_bytes(db)
    shown = ok(trek_run("supplies", "add", "provisions=2", "--preview", db=str(db))).stdout
    assert _store_bytes(db) == before
    said = ok(trek_run("supplies", "add", "provisions=2", db=str(db))).stdout
    assert said.startswith("#5 ")
    assert shown == f"Preview: {said.rstrip()} (nothing recorded)\n"


def test_a_refused_preview_says_the_same_sentence_and_records_nothing(
        trek_run: Run, templates: Templates, tmp_path: Path) -> None:
    db = templates.copy(trek_run, "besm-overland", tmp_path)
    before = _store_bytes(db)
    refused(trek_run("move", "E", "--preview", db=str(db)), "no day is open")
    refused(trek_run("harm", "Nobody", "--health", "1", "--preview", "--json", db=str(db)),
            "Nobody")
    assert _store_bytes(db) == before


def test_a_roll_trek_makes_in_a_preview_is_the_one_it_then_records(
        trek_run: Run, templates: Templates, tmp_path: Path) -> None:
    # given the same campaign twice, one day open in each
    previewed = templates.copy(trek_run, "besm-overland", tmp_path / "previewed")
    plain = templates.copy(trek_run, "besm-overland", tmp_path / "plain")
    for db in (previewed, plain):
        ok(trek_run("day", "start", db=str(db)))
    # when one previews forage (Trek rolls) twice before recording it, the other only records
    shown = [recorded(trek_run("forage", "--preview", "--json", db=str(previewed)), 6,
                      "Foraged") for _ in range(2)]
    then = recorded(trek_run("forage", "--json", db=str(previewed)), 6, "Foraged")
    alone = recorded(trek_run("forage", "--json", db=str(plain)), 6, "Foraged")
    # then every preview rolled the dice that were recorded, and the seeded dice did not move
    assert shown == [then, then]
    assert len(then["dice"]) == 2
    assert then == alone
    # and the next roll is the same as in the campaign where nothing was previewed
    assert (recorded(trek_run("night-travel", "--json", db=str(previewed)), 7, "NightTravelled")
            == recorded(trek_run("night-travel", "--json", db=str(plain)), 7, "NightTravelled"))


def test_preview_never_creates_a_store(trek_run: Run, tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    refused(trek_run("day", "start", "--preview", db=str(missing)), "no Trek store")
    refused(trek_run("init", "Ashes Road", "--preview", db=str(missing)), "init")
    assert list(tmp_path.iterdir()) == []


def test_init_refuses_preview_and_branch_previews_without_creating_the_campaign(
        trek_run: Run, templates: Templates, tmp_path: Path) -> None:
    db = templates.copy(trek_run, "besm-overland", tmp_path)
    before = _store_bytes(db)
    refused(trek_run("init", "Other Road", "--preview", db=str(db)),
            "init creates a campaign", "without --preview")
    # Its help says it has none, and offers none among its options.
    shown = ok(trek_run("init", "--help")).stdout
    assert "It has no preview: --preview is refused" in shown
    options = shown.split("Options:", 1)[1]
    assert "--preview" not in options
    assert "--seed" in options
    shown = ok(trek_run("branch", "what-if", "--at", "3", "--preview", "--json",
                        db=str(db))).json()
    assert _store_bytes(db) == before
    assert [c["slug"] for c in ok(trek_run("campaigns", "--json", db=str(db))).json()] == [
        "ashes-road"]
    made = ok(trek_run("branch", "what-if", "--at", "3", "--json", db=str(db))).json()
    # The same event but for the moment the branch was made, which it records.
    for doc in (shown, made):
        assert doc[0]["branched_from"].pop("at")
    assert shown == made


@pytest.mark.postgres
def test_previews_on_postgresql_equal_what_is_recorded_and_leave_the_log(
        trek_run: Run, templates: Templates, tmp_path: Path, pg_url: str) -> None:
    scenario = SCENARIOS["shadowrun-encounter"]
    folder = tmp_path
    for file, text in scenario.maps:
        (folder / file).write_text(text, encoding="utf-8")
    for line in scenario.setup:
        ok(trek_run(*line, db=pg_url))

    def log() -> Any:
        return ok(trek_run("log", "--json", db=pg_url)).json()

    for line in scenario.table:
        line = _in_folder(line, folder)
        before = log()
        preview = ok(trek_run(*line, "--preview", "--json", db=pg_url)).json()
        assert log() == before, line
        assert preview == ok(trek_run(*line, "--json", db=pg_url)).json(), line

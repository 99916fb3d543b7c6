"""`trek` starts with what the command needs: `--help` and `status` load no PostgreSQL driver
on an SQLite store, and the command listing is what the commands say of themselves. (Reading the
kept status document without the tracker: tests/integration/test_kept_status.py.)"""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import click
import pytest
from cliruns import heavy, play_all, run_traced
from conftest import trek_env
from rulesets import RULESETS

from cli.main import command_summaries, trek
from cli.options import Settings


def _two_events(folder: Path, db: str) -> None:
    play_all(folder, db, [("init", "Ashes Road", "--seed", "3"),
                          ("roster", "add-character", "Kira", "--body", "6", "--mind", "5",
                           "--soul", "4")])


@pytest.mark.parametrize("args", [("--help",), ("status",), ("status", "--json"),
                                  ("status", "--help"), ("campaigns", "--json")])
def test_help_and_status_on_sqlite_load_no_postgresql_driver(
        args: tuple[str, ...], tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    _two_events(tmp_path, db)
    _, modules = run_traced(tmp_path, db, *args)
    assert not {m for m in modules if m.split(".")[0] == "psycopg"}
    # Tiled's XML reader is for `map import` and `--map FILE.tmx` only.
    assert not {m for m in modules if m.split(".")[0] == "pytiled_parser"}
    assert "tracker.watch" not in modules
    assert "eventsourcing.postgres" not in modules
    if args in (("status", "--json"), ("status", "--help")):
        # Nothing of the tracker, the rulesets or rich is needed for these (`trek --help` lists
        # each ruleset's own commands, so it loads them).
        assert not heavy(modules)


def test_status_table_from_the_kept_document_loads_no_tracker_and_no_model(
        tmp_path: Path) -> None:
    """`trek status` on a current kept document: its ruleset's words and rich, nothing of the
    tracker, the event store, pydantic or any ruleset's rules."""
    db = str(tmp_path / "store.db")
    _two_events(tmp_path, db)
    stdout, modules = run_traced(tmp_path, db, "status")
    assert "Kira" in stdout
    assert "Ashes Road" in stdout
    assert "Health" in stdout  # a measure its ruleset's command-line module words
    assert not {m for m in modules
                if m.split(".")[0] in {"eventsourcing", "pydantic", "psycopg"}
                or m.startswith(("tracker.app", "domain.besm.", "cli.commands"))}


def test_trek_help_is_what_the_commands_say() -> None:
    """The listing comes from the summaries; every command's own help must agree, and every
    command is listed."""
    ctx = click.Context(trek)
    own = {}
    for name in trek.list_commands(ctx):
        command = trek.get_command(ctx, name)
        assert command is not None
        if not command.hidden:
            first = inspect.cleandoc(command.short_help or command.help or "").split("\n\n")[0]
            own[name] = " ".join(first.split())
    assert len(own) > 25
    assert command_summaries() == own


def test_a_command_found_without_mounting_is_the_one_mounting_gives() -> None:
    """`as_defined` finds a command without loading the rulesets' command-line parts only
    where mounting them would give that very command; the ones mounting builds anew it leaves
    to mounting."""
    from cli.bootstrap import bootstrap
    from cli.commands import EXTENDED, as_defined, mounted

    root = bootstrap()
    every = mounted(root)
    found = {name: as_defined(root, name) for name in every}
    assert {name for name, command in found.items() if command is None} >= EXTENDED
    plain = {name for name, command in found.items() if command is not None}
    assert {"harm", "session", "verify"} <= plain
    for name in plain:
        assert found[name] is every[name], name
    for name in EXTENDED:
        assert every[name] is not trek.commands[name], name
    rulesets_own = {own for own, _ in root.command_summaries()}
    assert rulesets_own
    assert not rulesets_own & plain


def test_the_commands_recorded_most_are_found_apart_and_day_end_takes_every_rest_mode(
) -> None:
    """`move`, `day`, `supplies`, `undo` and `redo` come from their own module, none of them
    among the commands mounting builds; `day` is found built, its `end`, which takes every
    ruleset's rest modes, made when first asked for (BESM's "camp", Trek's own "none")."""
    from cli.bootstrap import bootstrap
    from cli.commands import mounted
    from cli.recording import day

    root = bootstrap()
    ctx = click.Context(trek, obj=Settings(root=root))
    assert not {"move", "day", "supplies", "undo", "redo"} & set(mounted(root))
    for name in ("move", "supplies", "undo", "redo"):
        command = trek.get_command(ctx, name)
        assert command is not None
        assert command.name == name
    made = trek.get_command(ctx, "day")
    assert isinstance(made, click.Group)
    assert made is not day
    assert made.get_command(ctx, "start") is day.commands["start"]
    end = made.get_command(ctx, "end")
    assert end is not None
    assert end is not day.commands["end"]
    rests = next(param for param in end.params if param.name == "rests")
    assert {"camp", "none"} <= set(getattr(rests.type, "choices", ()))


def test_trek_help_loads_no_command(tmp_path: Path) -> None:
    """`trek --help` lists every command, a ruleset's own too, without loading any of them,
    the tracker or a ruleset."""
    stdout, modules = run_traced(tmp_path, str(tmp_path / "store.db"), "--help")
    assert "forced-march" in stdout
    assert "  encounter " in stdout
    assert not heavy(modules)
    assert not {m for m in modules if m.startswith("cli.") and m not in {
        "cli.main", "cli.options", "cli.output", "cli.bootstrap", "cli.registry"}}


# A recording command of each ruleset (on a campaign of that ruleset, set up first) and what
# it may not load: another ruleset's rules, the map readers, the pictures.
RECORDING = {
    "besm": [("roster", "add-character", "Kira", "--body", "4", "--mind", "3", "--soul", "3"),
             ("day", "start")],
    "gurps": [("encounter", "start", "Ambush")],
    "cypher": [("roster", "add-character", "Kira", "--might", "10", "--speed", "10")],
}
PICTURES_AND_READERS = ("tracker.mapformats", "cli.mapimport", "cli.svg", "cli.route",
                        "cli.recap", "cli.web", "projections.recap")


@pytest.mark.parametrize("ruleset", sorted(RECORDING))
def test_a_recording_command_loads_its_ruleset_only(ruleset: str, tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, [("init", "Road", "--ruleset", ruleset, "--seed", "3"),
                            *RECORDING[ruleset]])
    _, modules = run_traced(tmp_path, db, "supplies", "add", "provisions=2")
    # `supplies` is no ruleset's to change, so it runs as defined: nothing of another
    # ruleset is loaded, not even its command-line part.
    others = {m for m in modules for name in RULESETS.names
              if name != ruleset and (m.startswith(f"domain.{name}") or m == f"cli.{name}")}
    assert others == set()
    assert f"domain.{ruleset}.rules" in modules  # the campaign's own ruleset did load
    assert not {m for m in modules if m.startswith(PICTURES_AND_READERS)}
    # Nor the encounter's commands, though the GURPS campaign's log holds an encounter.
    assert "domain.commands.encounter" not in modules
    # Nor the ruleset's fight, where the campaign's log holds no encounter.
    if ruleset != "gurps":
        assert not {f"domain.{ruleset}.combat", "domain.encounter"} & modules


# A fight under each ruleset that plays only round by round, in its first round: Kira's stats,
# a Bandit's, what she does before she moves, how she moves one square (GURPS: a step north,
# by its facing) and where she ends.
FIGHTS = {
    "gurps": (("--basic-move", "5", "--basic-speed", "5.75"),
              ("--basic-move", "6", "--basic-speed", "6"), (), ("N",), "0,-1"),
    "shadowrun": (("--quickness", "5", "--metatype", "elf"),
                  ("--quickness", "4", "--metatype", "ork"), (), ("--to", "0,1"), "0,1"),
    "movepoints": (("--full-move", "13"), ("--full-move", "6"),
                   (("encounter", "act", "Kira", "move"),), ("--to", "0,1"), "0,1"),
}


@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
def test_a_move_in_a_fight_loads_no_other_rulesets_command_line(
        ruleset: str, tmp_path: Path) -> None:
    """`encounter move` takes every ruleset's options (its words are parsed before the
    campaign is known) from their options modules: it loads no ruleset's command line (its
    answer is worded by its campaign's log lines alone), and of the commands those of a round
    alone."""
    db = str(tmp_path / "store.db")
    kira, bandit, before, words, end = FIGHTS[ruleset]
    play_all(tmp_path, db, [("init", "Ambush", "--ruleset", ruleset, "--seed", "3"),
                            ("roster", "add-character", "Kira", *kira),
                            ("encounter", "start", "Ambush"),
                            ("encounter", "join", "Kira", "--at", "0,0"),
                            ("encounter", "add", "Bandit", "--side", "enemy", "--at", "4,0",
                             *bandit),
                            ("encounter", "round"), *before])
    stdout, modules = run_traced(tmp_path, db, "encounter", "move", "Kira", *words)
    assert stdout.startswith(f"#{7 + len(before)} Kira ")
    assert f"0,0 → {end}" in stdout
    others = {m for m in modules for name in RULESETS.names
              if name != ruleset and (m.startswith(f"domain.{name}") or m == f"cli.{name}")}
    assert others == set()
    assert {f"cli.{name}_options" for name in RULESETS.names} <= modules
    assert "domain.commands.rounds" in modules
    assert "domain.commands.encounter" not in modules
    # Nor the ruleset's own commands (a posture, a pass, a step), nor the options other
    # shared commands hand a ruleset (a character's stats, an overland move, a day's end).
    assert f"domain.{ruleset}.rules" in modules
    assert not {f"domain.{ruleset}.commands", "domain.options"} & modules
    # Nor the events its log does not hold: an encounter's changes (leaving, doors, its end)
    # and the sessions'.
    assert not {"domain.encounter_changes", "domain.sessions"} & modules
    # Its line is worded by its log lines' module: none of its command line is loaded.
    assert f"cli.{ruleset}_lines" in modules
    assert not {f"cli.{ruleset}", "cli.ruleset_line", "cli.ruler"} & modules


def test_encounter_status_from_the_kept_document_loads_no_tracker_and_no_model(
        tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, [("init", "Ford", "--ruleset", "gurps", "--seed", "3"),
                            ("encounter", "start", "Ambush"),
                            ("encounter", "add", "Bandit", "--side", "enemy", "--at", "2,2")])
    stdout, modules = run_traced(tmp_path, db, "encounter", "status")
    assert "Ambush (gurps, hexes)" in stdout
    assert "Bandit" in stdout
    assert not {m for m in modules
                if m.split(".")[0] in {"eventsourcing", "pydantic", "psycopg"}
                or m.startswith(("tracker.app", "domain.gurps.", "domain.ruleset"))}


@pytest.mark.parametrize("group", ["roster", "encounter", "day", "supplies"])
def test_a_groups_help_loads_no_tracker_and_no_model(group: str, tmp_path: Path) -> None:
    """`trek GROUP --help` lists its commands from the command-line modules alone (click
    writes the help: no rich)."""
    stdout, modules = run_traced(tmp_path, str(tmp_path / "store.db"), group, "--help")
    assert f"Usage: trek {group}" in stdout
    assert not {m for m in modules
                if m.split(".")[0] in {"eventsourcing", "pydantic", "psycopg", "rich"}
                or m.startswith(("tracker.app", "domain.ruleset", "domain.events"))
                or any(m.startswith(f"domain.{name}.") for name in RULESETS.names)}


# Each recording command on a BESM campaign travelling on day 1, in turn, and the one line it
# answers with.
ANSWERS = [(("move", "E"), "#4 moved 0,0 → 1,0 (1 square(s))"),
           (("undo",), "#5 undo of #4 moved 0,0 → 1,0 (1 square(s))"),
           (("supplies", "add", "provisions=1"), "#6 supplies added: provisions=1")]


def test_a_recording_commands_one_line_answer_loads_no_rich(tmp_path: Path) -> None:
    """Off a terminal, a recorded event's line that rich would print as it is is written
    without rich: nothing of rich is loaded, nor the map readers and pictures, nor the reads,
    nor another part of play's commands."""
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, [("init", "Road", "--ruleset", "besm", "--seed", "3"),
                            *RECORDING["besm"]])
    for words, answer in ANSWERS:
        stdout, modules = run_traced(tmp_path, db, *words)
        assert stdout == answer + "\n"
        assert not {m for m in modules if m.split(".")[0] == "rich"}, words
        assert not {m for m in modules if m.startswith(PICTURES_AND_READERS)}, words
        # Nor the reads: the queries and what they answer with.
        assert not {"cli.reads", "tracker.queries", "projections.audit"} & modules, words
        # Nor the commands of another part of play than its own, nor BESM's own commands
        # (shortcut, forage, prone...): none of these is one of them.
        assert not {"domain.commands.encounter", "domain.besm.commands"} & modules, words
        # Undo and redo load with undo alone.
        assert ("domain.commands.history" in modules) is (words[0] == "undo"), words
        # Nor Trek's other commands (cli/commands.py): these are apart (cli/recording.py).
        assert "cli.recording" in modules, words
        assert "cli.commands" not in modules, words
        # Nor the subprocess a replay walks the hash chains in.
        assert "subprocess" not in modules, words
        # Nor BESM's fight, the encounter's events and rules, or the battle map's reader:
        # none is used overland.
        assert not {"domain.besm.combat", "domain.encounter", "domain.battlemap"} & modules, words
        # Nor the shared events its log does not hold: the roster's beyond its first
        # characters and supplies, the parties' and the sessions'.
        assert not {"domain.roster_events", "domain.parties", "domain.sessions"} & modules, words
        # Nor what a BESM day may hold besides its clock and moves (shortcuts, forced
        # marches, night travel, foraging, repairs).
        assert "domain.besm.undertakings" not in modules, words
        # Nor a roll's record: none of these rolls.
        assert "domain.rolls" not in modules, words
        # A shared event's line needs nothing of the ruleset's command line: `supplies add`
        # loads none of BESM's; `move` (its event is BESM's own) and `undo` (its line names
        # the move it cancels by the move's own line) load BESM's log lines, not its commands.
        assert ("cli.besm_lines" in modules) is (words[0] != "supplies"), words
        assert not {"cli.besm", "cli.ruleset_line", "cli.ruler", "cli.drawing"} & modules, words


def test_day_start_loads_no_rulesets_command_line(tmp_path: Path) -> None:
    """`day start` is found without the rulesets' command-line parts: only `day end` takes
    what they add (their rest modes), and it is built when asked for."""
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, [("init", "Road", "--ruleset", "besm", "--seed", "3"),
                            *RECORDING["besm"], ("day", "end")])
    stdout, modules = run_traced(tmp_path, db, "day", "start")
    # Kira, on foot with no movement attribute, makes 1 square a day (RULES.md §3).
    assert stdout == "#5 day 2 starts with 1 square(s)\n"
    lines = {f"cli.{name}" for name in RULESETS.names} | {"cli.ruleset_line"}
    assert not lines & modules
    # `day end` takes BESM's rest modes (and loads the command-line parts to know them).
    stdout, modules = run_traced(tmp_path, db, "day", "end", "--rest", "Kira=camp")
    assert stdout.startswith("#6 day 2 ended; Kira rested (camp)")
    assert lines <= modules


# A `trek` process run as the program, with a hook that says at exit, after the command, whether
# Python's cyclic collector is on and whether anything was set aside from it.
_COLLECTOR_AT_EXIT = """\
import atexit, gc, sys
atexit.register(lambda: print(f"collector on: {gc.isenabled()}, set aside: "
                              f"{gc.get_freeze_count() > 0}", file=sys.stderr))
sys.argv = ["trek", *sys.argv[1:]]
from cli.main import main
main()
"""


@pytest.mark.parametrize(("words", "opens_a_store"), [
    (("supplies", "add", "provisions=1"), True),
    (("replay",), True),
    (("--help",), False),
])
def test_the_collector_runs_again_once_the_store_is_open(
        words: tuple[str, ...], opens_a_store: bool, tmp_path: Path) -> None:
    """The collector is held off while the process starts, and runs again from the moment a
    store is open (a long replay, a plan or a server's hours collect their garbage), with what
    start-up made set aside. A command that opens no store ends with it still held off."""
    db = str(tmp_path / "store.db")
    play_all(tmp_path, db, [("init", "Road", "--ruleset", "besm", "--seed", "3")])
    result = subprocess.run([sys.executable, "-c", _COLLECTOR_AT_EXIT, *words], cwd=tmp_path,
                            env=trek_env(db), stdin=subprocess.DEVNULL, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    said = result.stderr.strip().splitlines()[-1]
    # Set aside either way: the exit leaves what the command made for the system to free.
    assert said == f"collector on: {opens_a_store}, set aside: True"
    if words[0] == "supplies":
        assert result.stdout == "#2 supplies added: provisions=1\n"

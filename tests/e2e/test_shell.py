"""`trek shell`: lines piped in (through click's CliRunner), the prompt at a terminal (through
prompt_toolkit's own pipe input), and one real process reading a script on its stdin.

The campaign is BESM with no map: a party on foot has 1 square a day, Kira (Body 4, Mind 3,
Soul 3) has Health 35 and Energy 30 (as `trek roster add-character` says).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cliruns import ok, run_traced
from conftest import TrekRun, trek_command, trek_env
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import tracker.app
from cli.context import KeptStores
from cli.options import Settings
from cli.prompt import HISTORY_NAME, ShellCompleter, history_path, interactive, split_partial
from cli.shell import Shell

Run = Callable[..., TrekRun]

SETUP = """\
# Ashes Road, day 1
init "Ashes Road" --seed 5

roster add-character Kira --body 4 --mind 3 --soul 3
supplies add provisions=3
day start
"""


def status(trek_run: Run, *args: str) -> dict[str, Any]:
    document: dict[str, Any] = ok(trek_run("status", "--json", *args)).json()
    return document


def test_a_piped_script_plays_as_the_same_commands_typed_one_by_one(
        trek_run: Run, tmp_path: Path) -> None:
    script = SETUP + "move E\nharm Kira --health 5 --reason 'a fall'\nsupplies spend provisions=1\n"
    run = ok(trek_run("shell", input=script))
    assert run.stderr == ""
    # The same lines as separate commands on another store print the same, line for line.
    alone = str(tmp_path / "alone.db")
    expected = "".join(ok(trek_run(*words, db=alone)).stdout for words in (
        ["init", "Ashes Road", "--seed", "5"],
        ["roster", "add-character", "Kira", "--body", "4", "--mind", "3", "--soul", "3"],
        ["supplies", "add", "provisions=3"], ["day", "start"], ["move", "E"],
        ["harm", "Kira", "--health", "5", "--reason", "a fall"],
        ["supplies", "spend", "provisions=1"]))
    assert run.stdout == expected
    doc = status(trek_run)
    assert doc["events"] == 7
    assert doc["position"] == {"x": 1, "y": 0}
    assert doc["movement"] == {"base": 1, "budget": 1, "used": 1, "remaining": 0}
    assert doc["supplies"]["provisions"] == 2
    assert doc["characters"]["Kira"]["health"] == 30


def test_json_lines_and_the_shells_own_json(trek_run: Run) -> None:
    ok(trek_run("shell", input=SETUP))
    run = ok(trek_run("--json", "shell", input="move E\n"))
    [event] = json.loads(run.stdout)
    assert (event["seq"], event["type"]) == (5, "Moved")
    run = ok(trek_run("shell", input="status --json\n"))
    assert json.loads(run.stdout)["position"] == {"x": 1, "y": 0}


def test_the_first_refused_line_ends_the_script_with_its_code(trek_run: Run) -> None:
    # Day 1 has one square: `move E E` is refused, and nothing after it runs.
    run = trek_run("shell", input=SETUP + "move E E\nsupplies add provisions=5\n")
    assert run.returncode == 1, run
    assert run.stderr == "Error: The move needs 2 square(s) but only 1 remain today.\n"
    assert run.stdout.splitlines()[-1] == "#4 day 1 starts with 1 square(s)"
    doc = status(trek_run)
    assert (doc["events"], doc["supplies"]["provisions"]) == (4, 3)
    # A usage mistake ends it with 2.
    run = trek_run("shell", input="move --far\nsupplies add provisions=5\n")
    assert run.returncode == 2, run
    assert ("Error: `trek move` has no option --far; its own options are --to and "
            "--through-hazard (`trek move --help` lists every option it takes).") in run.stderr
    assert status(trek_run)["supplies"]["provisions"] == 3


def test_keep_going_runs_every_line_and_exits_1_after_any_refusal(trek_run: Run) -> None:
    script = (SETUP + "move E E\nteleport 3,4\nharm 'Kira\nmove --far\n"
              "supplies add provisions=5\n")
    run = trek_run("shell", "--keep-going", input=script)
    assert run.returncode == 1, run
    errors = [line for line in run.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [
        "Error: The move needs 2 square(s) but only 1 remain today.",
        "Error: No such command 'teleport'.",
        "Error: A quotation mark is not closed; close it, or put a backslash before it to "
        "keep it as it is.",
        "Error: `trek move` has no option --far; its own options are --to and "
        "--through-hazard (`trek move --help` lists every option it takes).",
    ]
    assert status(trek_run)["supplies"]["provisions"] == 8
    ok(trek_run("shell", "--keep-going", input="supplies spend provisions=1\n"))
    assert status(trek_run)["supplies"]["provisions"] == 7


def test_an_unclosed_quotation_is_a_usage_mistake(trek_run: Run) -> None:
    ok(trek_run("shell", input=SETUP))
    run = trek_run("shell", input="harm Kira --reason 'a fall\nsupplies add provisions=5\n")
    assert run.returncode == 2, run
    assert run.stderr.startswith("Error: A quotation mark is not closed"), run
    assert status(trek_run)["supplies"]["provisions"] == 3
    run = trek_run("shell", input="harm Kira --reason fall\\\n")
    assert run.returncode == 2, run
    assert run.stderr == ("Error: The line ends in a lone backslash; remove it, or double it "
                          "to keep it.\n")


def test_a_line_that_is_not_text_is_refused_alone(trek_run: Run, tmp_path: Path) -> None:
    ok(trek_run("shell", input=SETUP))
    script = b"supplies add provisions=1\nharm \xff\xfe --health 1\nsupplies add provisions=2\n"
    run = trek_run("shell", "--keep-going", input=script)
    assert run.returncode == 1, run
    assert run.stderr == ("Error: The line holds bytes that are not text; save the script as "
                          "UTF-8.\n")
    assert status(trek_run)["supplies"]["provisions"] == 6


def test_a_script_prints_no_colour_even_where_colour_is_forced(trek_run: Run) -> None:
    run = ok(trek_run("shell", input=SETUP + "status\n", env={"FORCE_COLOR": "1"}))
    assert "\x1b" not in run.stdout
    assert run.stdout.splitlines()[0] == "#1 campaign Ashes Road (besm) starts at 0,0"
    assert "TTY_COMPATIBLE" not in os.environ


def test_a_line_may_start_with_trek(trek_run: Run) -> None:
    ok(trek_run("shell", input=SETUP + "trek supplies add provisions=2\n"))
    assert status(trek_run)["supplies"]["provisions"] == 5


def test_exit_ends_the_script_and_the_lines_after_it_do_not_run(trek_run: Run) -> None:
    ok(trek_run("shell", input=SETUP + "exit\nsupplies add provisions=5\n"))
    assert status(trek_run)["supplies"]["provisions"] == 3


def test_help_lines(trek_run: Run) -> None:
    run = ok(trek_run("shell", input="help\n"))
    assert run.stdout.startswith("Usage: trek [OPTIONS] COMMAND")
    assert " shell " in run.stdout
    run = ok(trek_run("shell", input="help move\nmove --help\n"))
    first, second = run.stdout.split("Usage: trek move")[1:]
    assert first == second
    assert "--to X,Y" in first


def test_the_shells_campaign_and_gm_hold_for_every_line(trek_run: Run) -> None:
    ok(trek_run("init", "North"))
    ok(trek_run("init", "South"))
    ok(trek_run("--campaign", "south", "--gm", "Ana", "shell",
                input="supplies add provisions=4\n"))
    assert status(trek_run, "--campaign", "south")["supplies"]["provisions"] == 4
    assert status(trek_run, "--campaign", "north")["supplies"]["provisions"] == 0
    log = ok(trek_run("log", "--json", "--campaign", "south")).json()
    assert log[-1]["gm"] == "Ana"
    # A line may still name another campaign.
    ok(trek_run("shell", "--campaign", "south",
                input="supplies add provisions=1 --campaign north\n"))
    assert status(trek_run, "--campaign", "north")["supplies"]["provisions"] == 1


def test_one_session_on_each_kind_of_store(trek_run: Run, db: str) -> None:
    """The kept store on SQLite and PostgreSQL: lines that record, read, refuse and undo in
    turn, each seeing what the one before recorded."""
    script = (SETUP + "move E\nstatus --json\nmove E\nundo\nlog --json\nmove E\n"
              "harm Kira --health 5\nsupplies spend provisions=1\n")
    run = trek_run("shell", "--keep-going", input=script, db=db)
    assert run.returncode == 1, run
    assert run.stderr == "Error: The move needs 1 square(s) but only 0 remain today.\n"
    doc = status(trek_run, "--db", db)
    # The first move (event 5) undone (event 6) frees the day's square for the last move
    # (event 7), from 0,0 again.
    assert (doc["events"], doc["position"]) == (9, {"x": 1, "y": 0})
    assert doc["supplies"]["provisions"] == 2
    assert doc["characters"]["Kira"]["health"] == 30


def test_the_store_is_opened_once_for_the_whole_shell(
        trek_run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    ok(trek_run("shell", input=SETUP))
    opened: list[bool] = []
    real = tracker.app.Trek.open.__func__  # type: ignore[attr-defined]

    def counting(cls: type[tracker.app.Trek], db: str, **options: Any) -> tracker.app.Trek:
        opened.append(options.get("writable", True))
        trek: tracker.app.Trek = real(cls, db, **options)
        return trek

    monkeypatch.setattr(tracker.app.Trek, "open", classmethod(counting))
    ok(trek_run("shell", input="move E\nundo\nsupplies add provisions=1\nlog\nencounter status\n"
                                "supplies add provisions=1\n"))
    # One writable Trek for the four recorded lines, at most one read-only for the reads.
    assert opened.count(True) == 1
    assert opened.count(False) <= 1
    assert status(trek_run)["supplies"]["provisions"] == 5


def test_a_memory_store_lasts_as_long_as_the_shell(trek_run: Run) -> None:
    run = ok(trek_run("shell", "--db", "memory:table",
                      input=SETUP + "move E\nstatus --json\n"))
    doc = json.loads(run.stdout[run.stdout.index("{"):])
    assert (doc["events"], doc["position"]) == (5, {"x": 1, "y": 0})


def test_a_shell_inside_the_shell_is_refused(trek_run: Run) -> None:
    ok(trek_run("shell", input=SETUP))
    run = trek_run("shell", "--keep-going", input="shell\nsupplies add provisions=1\n")
    assert run.returncode == 1, run
    assert run.stderr == "Error: This is the shell already; type a command, or exit.\n"
    assert status(trek_run)["supplies"]["provisions"] == 4


# -- the prompt at a terminal ------------------------------------------------------------------


@pytest.fixture
def table(trek_run: Run, tmp_path: Path) -> Iterator[Shell]:
    """A shell on a campaign on day 1 with Kira, a mount and a vehicle, as `trek shell` makes
    it for a terminal."""
    ok(trek_run("shell", input=SETUP + "roster add-mount Dusty --move ground-speed=1\n"
                                       "roster add-vehicle 'Old Tom' --move ground-speed=1\n"))
    with Shell(Settings(db=str(tmp_path / "trek.db"), gm="test-gm")) as shell:
        yield shell


def typed(shell: Shell, *keys: str) -> int:
    """Type `keys` at the prompt (prompt_toolkit's pipe input, no terminal) and Ctrl-D."""
    with create_pipe_input() as keyboard:
        keyboard.send_text("".join(keys) + "\x04")
        return interactive(shell, input=keyboard, output=DummyOutput())


def offered(shell: Shell, text: str) -> list[str]:
    return [c.text for c in ShellCompleter(shell).get_completions(Document(text),
                                                                  CompleteEvent())]


def test_completion_offers_commands_options_and_the_campaigns_names(table: Shell) -> None:
    table.refresh()
    assert table.prompt_text() == "ashes-road day 1> "
    assert offered(table, "ro") == ["roster"]
    assert "add-character" in offered(table, "roster ")
    assert offered(table, "roster leave K") == ["Kira"]
    assert offered(table, "roster leave ") == ["Kira", "Dusty", "'Old Tom'"]
    assert offered(table, "roster assign Kira --to O") == ["'Old Tom'"]
    assert offered(table, "roster assign ") == ["Kira"]
    assert offered(table, "repair ") == ["Dusty", "'Old Tom'"]
    assert offered(table, "roster add-character ") == []   # a new name
    assert offered(table, "status --campaign ") == ["ashes-road"]
    assert offered(table, "roster assign Kira --to 'Old") == ["'Old Tom'"]
    assert offered(table, "move --t") == ["--to", "--through-hazard"]
    assert offered(table, "move N") == ["N", "NE", "NW"]
    assert offered(table, "day end --rest K") == ["Kira="]
    assert offered(table, "supplies add p") == ["provisions="]
    # Undo offers the events that stand, newest first; redo the cancelled ones.
    assert offered(table, "undo ")[:3] == ["6", "5", "4"]
    assert offered(table, "redo ") == []


def typed_with_tab(shell: Shell, before: str, after: str) -> int:
    """Type `before` and Tab, and `after` (and Ctrl-D) once the completion has had its time,
    as a person would see it before typing on."""
    with create_pipe_input() as keyboard:
        keyboard.send_text(before + "\t")
        later = threading.Timer(1.0, keyboard.send_text, [after + "\x04"])
        later.start()
        try:
            return interactive(shell, input=keyboard, output=DummyOutput())
        finally:
            later.join()


def test_tab_completes_a_name_at_the_prompt(table: Shell, trek_run: Run) -> None:
    # "Ki" + Tab is Kira, the only name that fits; the line then runs with it.
    assert typed_with_tab(table, "roster leave Ki", "\n") == 0
    assert status(trek_run)["characters"]["Kira"]["with_party"] is False
    assert typed_with_tab(table, "roster rejoin 'Ki", "\n") == 0
    assert status(trek_run)["characters"]["Kira"]["with_party"] is True


def test_completion_offers_the_combatants_of_the_open_encounter(table: Shell) -> None:
    assert typed(table, "encounter start Ambush\n", "encounter join Kira --at 1,1\n",
                 "encounter add Raider --side enemy --at 4,4 --body 3 --mind 2 --soul 2\n") == 0
    assert table.names.combatants == ["Kira", "Raider"]
    assert offered(table, "encounter move R") == ["Raider"]
    # Who is in the fight, not the mount and the vehicle; then the steps of a square grid.
    assert offered(table, "encounter move ") == ["Kira", "Raider"]
    assert offered(table, "encounter move Raider ") == ["N", "NE", "E", "SE", "S", "SW", "W",
                                                        "NW"]
    assert offered(table, "encounter add Raider --side ") == ["ally", "enemy"]
    assert offered(table, "encounter join ") == ["Kira"]


def test_the_names_follow_what_each_line_recorded(table: Shell, capsys: pytest.CaptureFixture[str]
                                                  ) -> None:
    code = typed(table, "roster add-character Bo --body 2 --mind 2 --soul 2\n", "undo 3\n")
    assert code == 0
    assert "#7 Bo joins" in capsys.readouterr().out
    assert "Bo" in offered(table, "harm ")
    assert offered(table, "redo ") == ["3"]
    assert "3" not in offered(table, "undo ")
    assert table.prompt_text() == "ashes-road day 1> "


def test_the_prompt_names_the_campaign_from_the_line_that_made_it(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    with Shell(Settings(db=str(db), gm="gm")) as shell:
        shell.refresh()
        assert shell.prompt_text() == "trek> "
        assert not db.exists()   # looking for a campaign made no store
        assert typed(shell, "init 'Salt Flats' --seed 3\n") == 0
        assert shell.prompt_text() == "salt-flats> "
        assert typed(shell, "day start\n") == 0
        assert shell.prompt_text() == "salt-flats day 1> "


def test_a_refused_or_mistyped_line_does_not_end_the_session(
        table: Shell, trek_run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    code = typed(table, "move E E\n", "mvoe E\n", "harm 'Kira\n", "move E\n",
                 "supplies add provisions=2\n")
    assert code == 0
    err = capsys.readouterr().err
    assert "Error: The move needs 2 square(s) but only 1 remain today." in err
    assert "Error: No such command 'mvoe'." in err
    assert "Error: A quotation mark is not closed" in err
    doc = status(trek_run)
    assert (doc["position"], doc["supplies"]["provisions"]) == ({"x": 1, "y": 0}, 5)


def test_exit_ends_the_session_and_ctrl_c_clears_the_line(table: Shell, trek_run: Run) -> None:
    assert typed(table, "supplies add provisions=9\x03", "supplies add provisions=1\n",
                 "exit\n", "supplies add provisions=100\n") == 0
    assert status(trek_run)["supplies"]["provisions"] == 4


def test_the_history_is_kept_beside_the_store_without_passwords(
        table: Shell, trek_run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    typed(table, "status\n", "log --db postgresql://gm:s3cret@localhost/trek\n",
          "supplies add provisions=1\n")
    history = (tmp_path / HISTORY_NAME).read_text()
    assert "+status\n" in history
    assert "+supplies add provisions=1\n" in history
    assert "s3cret" not in history
    # The next session finds it: the up arrow brings back the last line, and it runs again.
    with Shell(Settings(db=str(tmp_path / "trek.db"))) as again:
        assert typed(again, "\x1b[A\n") == 0
    assert status(trek_run)["supplies"]["provisions"] == 5
    # A PostgreSQL store's history is under $XDG_STATE_HOME/trek, named without the password.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    one = history_path("postgresql://gm:s3cret@db.example:5432/trek")
    two = history_path("postgresql://gm:other@db.example:5432/trek")
    assert one is not None
    assert one.parent == tmp_path / "state" / "trek"
    assert one == two
    assert "s3cret" not in str(one)
    assert history_path("postgresql://gm@db.example:5432/other") != one
    assert history_path("memory:x") is None


def test_the_shell_keeps_its_stores_until_it_ends(tmp_path: Path, trek_run: Run) -> None:
    ok(trek_run("shell", input=SETUP))
    kept = KeptStores()
    first = kept.open(str(tmp_path / "trek.db"), create=False, writes=True, gm="a")
    assert kept.open(str(tmp_path / "trek.db"), create=False, writes=True, gm="a") is first
    assert kept.open(str(tmp_path / "trek.db"), create=False, writes=False, gm="a") is not first
    kept.close()
    assert kept.treks == {}


# -- the real process --------------------------------------------------------------------------


@pytest.mark.slow
def test_trek_shell_reads_a_script_on_its_stdin(tmp_path: Path) -> None:
    db = str(tmp_path / "trek.db")
    script = tmp_path / "session.txt"
    script.write_text(SETUP + "move E\nsupplies spend provisions=2\nundo\nmove E\n"
                              "supplies add provisions=7\n")

    def play(*args: str) -> subprocess.CompletedProcess[str]:
        with script.open() as stdin:
            return subprocess.run(trek_command(*args), cwd=tmp_path, env=trek_env(db),
                                  stdin=stdin, capture_output=True, text=True, timeout=120,
                                  check=False)

    run = play("shell")
    # The second `move E` is refused (the day's square is spent) and the last line not run.
    assert run.returncode == 1, run.stderr
    assert run.stderr == "Error: The move needs 1 square(s) but only 0 remain today.\n"
    assert "> " not in run.stdout
    assert "\x1b" not in run.stdout
    assert run.stdout.splitlines()[-1].startswith("#7 undo of ")
    doc = json.loads(subprocess.run(trek_command("status", "--json"), cwd=tmp_path,
                                    env=trek_env(db), capture_output=True, text=True,
                                    check=True).stdout)
    assert (doc["events"], doc["position"], doc["supplies"]["provisions"]) == (
        7, {"x": 1, "y": 0}, 3)


@pytest.mark.slow
def test_only_the_prompt_loads_prompt_toolkit(tmp_path: Path) -> None:
    db = str(tmp_path / "trek.db")
    subprocess.run(trek_command("init", "Quick"), cwd=tmp_path, env=trek_env(db), check=True,
                   capture_output=True)
    for args in (("status",), ("shell",)):   # the shell, its stdin not a terminal
        _, modules = run_traced(tmp_path, db, *args)
        assert "prompt_toolkit" not in modules, args


# -- the README's transcript -------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
PROMPT = re.compile(r"^([a-z0-9-]+(?: day \d+)?> )(.*)$")


def test_the_readme_transcript_is_what_the_shell_shows(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    journey = readme[readme.index("## A three-day journey"):]
    setup = [line.removeprefix("trek ").replace("docs/", f"{ROOT}/docs/")
             for line in journey[:journey.index("# Day 1")].splitlines()
             if line.startswith("trek ")]
    assert len(setup) == 6
    section = readme[readme.index("## The shell"):]
    transcript = section.split("```\n")[1]
    assert transcript.startswith("$ trek shell\n")
    monkeypatch.setenv("COLUMNS", "100")
    shown = ["$ trek shell"]
    with Shell(Settings(db=str(tmp_path / "ashes.db"), gm="gm")) as shell:
        for line in setup:
            with contextlib.redirect_stdout(io.StringIO()):
                assert shell.run_line(line) == 0, line
        for typed_line in transcript.splitlines()[1:]:
            match = PROMPT.match(typed_line)
            if match is None:
                continue   # an answer, worked out below
            shell.refresh()
            shown.append(shell.prompt_text() + match.group(2))
            if match.group(2) == "exit":
                break
            answer = io.StringIO()
            with contextlib.redirect_stdout(answer), contextlib.redirect_stderr(answer):
                shell.run_line(match.group(2))
            shown.extend(answer.getvalue().splitlines())
    assert "\n".join(shown) + "\n" == transcript


@pytest.mark.parametrize(("text", "expected"), [
    ("", ([], "", 0)),
    ("ro", ([], "ro", 2)),
    ("roster leave ", (["roster", "leave"], "", 0)),
    ("harm 'Old T", (["harm"], "Old T", 6)),
    ('harm "Old Tom" --he', (["harm", "Old Tom"], "--he", 4)),
    ("move --to 3,", (["move", "--to"], "3,", 2)),
])
def test_the_word_being_typed(text: str, expected: tuple[list[str], str, int]) -> None:
    assert split_partial(text) == expected


@pytest.mark.slow
def test_a_shell_started_with_stdin_closed_runs_nothing_and_ends(tmp_path: Path) -> None:
    run = subprocess.run(trek_command("shell"), cwd=tmp_path, env=trek_env(str(tmp_path / "t.db")),
                         capture_output=True, text=True, timeout=120, check=False,
                         preexec_fn=lambda: os.close(0))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")

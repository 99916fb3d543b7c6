"""`trek log` narrowed with --last, --from, --day and --session, streamed as a table, --json,
--jsonl or --csv, and paged on a terminal; all through the real `trek` program.

The small campaign below is played through the command line; the day and session stamped on
each of its 17 events were worked out by hand from the rules (a day's number changes at its
start, a session's opening event carries the session before it, an ended session stamps
nothing). The long one (a few thousand events) is built in-process by
benchmarks/long_campaign.py, as benchmarks/replay.py builds it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import select
import shlex
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import docpages
import pytest
from cliruns import ok, play_all
from conftest import TrekRun, trek_command, trek_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]

JOURNEY: list[tuple[str, ...]] = [
    ("init", "Log Road"),                                                          # 1
    ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"),  # 2
    ("supplies", "set", "provisions=10"),                                          # 3
    ("session", "start", "One"),                                                   # 4
    ("day", "start"),                                                              # 5
    ("supplies", "add", "ammo=1"),                                                 # 6
    ("harm", "Kira", "--health", "1"),                                             # 7
    ("day", "end"),                                                                # 8
    ("session", "end"),                                                            # 9
    ("day", "start"),                                                              # 10
    ("supplies", "add", "ammo=1"),                                                 # 11
    ("undo",),                                                                     # 12
    ("session", "start", "Two"),                                                   # 13
    ("supplies", "spend", "provisions=1"),                                         # 14
    ("day", "end"),                                                                # 15
    ("day", "start"),                                                              # 16
    ("harm", "Kira", "--energy", "2"),                                             # 17
]

# seq -> (day, session the event is stamped with), by hand.
STAMPS: dict[int, tuple[int, int | None]] = {
    1: (0, None), 2: (0, None), 3: (0, None),
    4: (0, None),                                   # opens session 1: stamped with none
    5: (1, 1), 6: (1, 1), 7: (1, 1), 8: (1, 1), 9: (1, 1),
    10: (2, None), 11: (2, None), 12: (2, None),
    13: (2, None),                                  # opens session 2
    14: (2, 2), 15: (2, 2), 16: (3, 2), 17: (3, 2),
}
# The event that opens each session.
OPENS = {4: 1, 13: 2}
EVERY = list(range(1, 18))

LONG_EVENTS = 3000


def run(db: str, *args: str, **env: str) -> TrekRun:
    result = subprocess.run(trek_command(*args), env=trek_env(db, **env), cwd=ROOT,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=300, check=False)
    return TrekRun(tuple(args), result.returncode, result.stdout, result.stderr)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("log-road")
    db = str(folder / "trek.db")
    play_all(folder, db, JOURNEY)
    return db


@pytest.fixture(scope="module")
def long_campaign(tmp_path_factory: pytest.TempPathFactory) -> str:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from long_campaign import build

    db = str(tmp_path_factory.mktemp("long-road") / "long.db")
    build(db, LONG_EVENTS, in_memory=True)
    return db


def seqs_of_json(run_: TrekRun) -> list[int]:
    return [entry["seq"] for entry in ok(run_).json()]


def seqs_of_table(text: str) -> list[int]:
    """The seq column of the human table (continuation lines of a wrapped row have none),
    colours and styles left out."""
    seqs = []
    for line in re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines():
        cells = line.split("\u2502")
        if len(cells) > 2 and cells[1].strip().isdigit():
            seqs.append(int(cells[1]))
    return seqs


def expected(day: int | None = None, session: int | None = None, since: int | None = None,
             last: int | None = None) -> list[int]:
    """The seqs a selection picks, from the hand-worked stamps."""
    picked = [seq for seq in EVERY
              if (since is None or seq >= since)
              and (day is None or STAMPS[seq][0] == day)
              and (session is None or STAMPS[seq][1] == session or OPENS.get(seq) == session)]
    return picked[-last:] if last is not None else picked


def options(day: int | None = None, session: int | None = None, since: int | None = None,
            last: int | None = None) -> list[str]:
    given_ = {"--day": day, "--session": session, "--from": since, "--last": last}
    return [text for name, value in given_.items() if value is not None
            for text in (name, str(value))]


# Each case with the seqs it must show, written out by hand from STAMPS.
CASES: list[tuple[dict[str, int], list[int]]] = [
    ({}, EVERY),
    ({"last": 3}, [15, 16, 17]),
    ({"last": 17}, EVERY),
    ({"last": 40}, EVERY),
    ({"since": 14}, [14, 15, 16, 17]),
    ({"since": 17}, [17]),
    ({"since": 18}, []),
    ({"day": 2}, [10, 11, 12, 13, 14, 15]),
    ({"session": 1}, [4, 5, 6, 7, 8, 9]),
    ({"session": 2}, [13, 14, 15, 16, 17]),
    ({"day": 2, "session": 2}, [13, 14, 15]),
    ({"day": 2, "last": 2}, [14, 15]),
    ({"session": 1, "since": 6}, [6, 7, 8, 9]),
    ({"session": 1, "last": 1}, [9]),
    ({"day": 1, "last": 10}, [5, 6, 7, 8, 9]),
    ({"since": 5, "last": 2}, [16, 17]),
    ({"day": 2, "session": 2, "since": 14, "last": 1}, [15]),
    ({"day": 0, "since": 2, "last": 2}, [3, 4]),
    ({"day": 3, "session": 1}, []),
    ({"day": 9, "last": 5}, []),
]


@pytest.mark.slow
@pytest.mark.parametrize(("given_", "seqs"), CASES,
                         ids=[" ".join(options(**c)) or "all" for c, _ in CASES])
def test_each_selection_shows_the_rows_worked_out_by_hand(
        campaign: str, given_: dict[str, int], seqs: list[int]) -> None:
    assert expected(**given_) == seqs  # the stamps table agrees with the case
    args = options(**given_)
    assert seqs_of_json(run(campaign, "log", *args, "--json")) == seqs
    lines = ok(run(campaign, "log", *args, "--jsonl")).stdout.splitlines()
    assert [json.loads(line)["seq"] for line in lines] == seqs
    rows = list(csv.DictReader(io.StringIO(ok(run(campaign, "log", *args, "--csv")).stdout)))
    assert [int(row["seq"]) for row in rows] == seqs
    assert seqs_of_table(ok(run(campaign, "log", *args)).stdout) == seqs


@pytest.mark.slow
def test_jsonl_holds_the_objects_json_lists_and_json_keeps_its_layout(campaign: str) -> None:
    for args in ([], ["--session", "1"], ["--day", "2", "--last", "3"]):
        listed = ok(run(campaign, "log", *args, "--json"))
        lines = ok(run(campaign, "log", *args, "--jsonl")).stdout.splitlines()
        assert [json.loads(line) for line in lines] == listed.json()
        # Written row by row, the list reads exactly as the whole list dumped at once.
        assert listed.stdout == json.dumps(listed.json(), indent=2, ensure_ascii=False) + "\n"
    entries = {e["seq"]: e for e in ok(run(campaign, "log", "--json")).json()}
    assert entries[11]["cancelled_by"] == 12
    assert [s for s, e in entries.items() if e["cancelled_by"] is not None] == [11]
    assert (entries[13]["type"], entries[13]["number"]) == ("SessionStarted", 2)


@pytest.mark.slow
def test_last_on_an_empty_selection_prints_what_an_empty_selection_prints(
        campaign: str) -> None:
    for output in ([], ["--json"], ["--csv"], ["--jsonl"]):
        empty = ok(run(campaign, "log", "--day", "9", *output))
        assert ok(run(campaign, "log", "--day", "9", "--last", "5", *output)).stdout \
            == empty.stdout
        assert ok(run(campaign, "log", "--from", "99", "--last", "1", *output)).stdout \
            == ok(run(campaign, "log", "--from", "99", *output)).stdout
    # On the screen, a sentence rather than an empty table (--last picks among what the others
    # picked, so it is not named).
    table = ok(run(campaign, "log", "--day", "9", "--last", "5")).stdout
    assert table == "No event matches --day 9; `trek log` without it shows every event.\n"
    assert ok(run(campaign, "log", "--day", "9", "--last", "5", "--json")).stdout == "[]\n"
    assert ok(run(campaign, "log", "--day", "9", "--last", "5", "--jsonl")).stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize(("args", "named"), [
    (["--last", "0"], "--last"),
    (["--last", "-3"], "--last"),
    (["--last", "many"], "--last"),
    (["--from", "0"], "--from"),
    (["--from", "-1"], "--from"),
    (["--from", "1.5"], "--from"),
    (["--jsonl", "--json"], "--jsonl"),
    (["--jsonl", "--csv"], "--jsonl"),
    (["--json", "--csv"], "--csv"),
])
def test_bad_options_are_usage_errors_with_a_sentence(
        campaign: str, args: list[str], named: str) -> None:
    result = run(campaign, "log", *args)
    assert result.returncode == 2, result
    assert result.stdout == "", result
    assert "Traceback" not in result.stderr, result
    [error] = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert named in error, result
    assert error.endswith("."), result


@pytest.mark.slow
def test_random_selections_equal_filtering_the_whole_json_log(campaign: str) -> None:
    whole = ok(run(campaign, "log", "--json")).json()
    assert [e["seq"] for e in whole] == EVERY

    def picked(day: int | None, session: int | None, since: int | None,
               last: int | None) -> list[dict[str, Any]]:
        entries = [e for e in whole
                   if (day is None or e["day"] == day)
                   and (session is None or e["session"] == session
                        or (e["type"] == "SessionStarted" and e.get("number") == session))
                   and (since is None or e["seq"] >= since)]
        return entries[-last:] if last is not None else entries

    @settings(max_examples=15, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(day=st.none() | st.integers(0, 4), session=st.none() | st.integers(1, 2),
           since=st.none() | st.integers(1, 19), last=st.none() | st.integers(1, 20))
    def check(day: int | None, session: int | None, since: int | None,
              last: int | None) -> None:
        args = options(day=day, session=session, since=since, last=last)
        assert ok(run(campaign, "log", *args, "--json")).json() == picked(
            day, session, since, last)

    check()


# -- the pager --------------------------------------------------------------------------------


def on_terminal(db: str, *args: str, columns: int = 120, **env: str
                ) -> tuple[int, str, str]:
    """Run `trek` with its standard output on a pseudo-terminal; its exit code, what reached
    the terminal (line ends as written) and its standard error."""
    master, slave = pty.openpty()
    import fcntl
    import termios
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    environment = trek_env(db, **env)
    environment.pop("COLUMNS", None)
    process = subprocess.Popen(trek_command(*args), env=environment, cwd=ROOT,
                               stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    shown = bytearray()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # every writer has closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        elif process.poll() is not None:
            break
    os.close(master)
    code = process.wait(timeout=60)
    assert process.stderr is not None
    error = process.stderr.read().decode()
    process.stderr.close()
    return code, shown.decode().replace("\r\n", "\n"), error


def recorder(path: Path) -> str:
    """A pager that keeps what it was given in `path`."""
    return f"cat > {shlex.quote(str(path))}"


@pytest.mark.slow
def test_a_terminal_gets_the_table_through_the_pager(campaign: str, tmp_path: Path) -> None:
    paged = tmp_path / "paged.txt"
    code, shown, error = on_terminal(campaign, "log", "--day", "2",
                                     TREK_PAGER=recorder(paged), PAGER="false")
    assert (code, error) == (0, "")
    text = paged.read_text()
    assert "what happened" in text
    assert seqs_of_table(text) == [10, 11, 12, 13, 14, 15]
    assert "cancelled by #12" in text
    assert "what happened" not in shown   # the pager had it, not the terminal

    # With TREK_PAGER unset, $PAGER is the pager.
    other = tmp_path / "pager.txt"
    code, shown, error = on_terminal(campaign, "log", "--last", "2", PAGER=recorder(other))
    assert (code, error) == (0, "")
    assert seqs_of_table(other.read_text()) == [16, 17]


@pytest.mark.slow
def test_no_pager_when_piped_asked_not_to_or_for_scripts(campaign: str, tmp_path: Path) -> None:
    paged = tmp_path / "paged.txt"
    pager = recorder(paged)
    piped = ok(run(campaign, "log", TREK_PAGER=pager))
    assert seqs_of_table(piped.stdout) == EVERY
    assert not paged.exists()
    code, shown, error = on_terminal(campaign, "log", "--no-pager", "--last", "4",
                                     TREK_PAGER=pager)
    assert (code, error, seqs_of_table(shown)) == (0, "", [14, 15, 16, 17])
    for output in ("--json", "--jsonl", "--csv"):
        code, shown, error = on_terminal(campaign, "log", output, TREK_PAGER=pager)
        assert (code, error) == (0, "")
        assert "17" in shown
    code, shown, error = on_terminal(campaign, "log", "--json", TREK_PAGER=pager)
    assert [e["seq"] for e in json.loads(shown)] == EVERY
    # An empty TREK_PAGER (or "cat") means no pager, whatever $PAGER says.
    code, shown, error = on_terminal(campaign, "log", "--last", "1", TREK_PAGER="",
                                     PAGER=pager)
    assert (code, error, seqs_of_table(shown)) == (0, "", [17])
    assert not paged.exists()


@pytest.mark.slow
def test_a_pager_quit_early_ends_the_log_quietly(long_campaign: str, tmp_path: Path) -> None:
    kept = tmp_path / "first.txt"
    # The pager reads one screen and quits, as a reader pressing q does; the log is far longer
    # than a pipe holds, so trek is still writing when it goes.
    code, shown, error = on_terminal(long_campaign, "log",
                                     TREK_PAGER=f"head -n 40 > {shlex.quote(str(kept))}")
    assert (code, error) == (0, "")
    assert "Traceback" not in shown
    first = kept.read_text()
    assert len(first.splitlines()) == 40
    assert seqs_of_table(first)[:3] == [1, 2, 3]
    # A pager that reads nothing at all.
    code, shown, error = on_terminal(long_campaign, "log", TREK_PAGER="true")
    assert (code, error) == (0, "")


@pytest.mark.slow
@pytest.mark.parametrize("output", [[], ["--json"], ["--jsonl"], ["--csv"]])
def test_a_reader_that_stops_reading_a_pipe_ends_the_log_quietly(
        long_campaign: str, output: list[str]) -> None:
    process = subprocess.Popen(trek_command("log", *output), env=trek_env(long_campaign),
                               cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None
    assert process.stderr is not None
    assert process.stdout.read(2000)
    process.stdout.close()
    code = process.wait(timeout=300)
    error = process.stderr.read().decode()
    process.stderr.close()
    assert (code, error) == (0, "")


# -- a long campaign --------------------------------------------------------------------------


@pytest.mark.slow
def test_a_long_log_is_read_only_as_far_as_asked(long_campaign: str) -> None:
    started = time.perf_counter()
    last = ok(run(long_campaign, "log", "--last", "20"))
    took = time.perf_counter() - started
    print(f"trek log --last 20 on {LONG_EVENTS} events: {took:.2f} s")
    assert seqs_of_table(last.stdout) == list(range(LONG_EVENTS - 19, LONG_EVENTS + 1))
    lines = ok(run(long_campaign, "log", "--from", str(LONG_EVENTS - 4), "--jsonl")).stdout
    assert [json.loads(line)["seq"] for line in lines.splitlines()] == list(
        range(LONG_EVENTS - 4, LONG_EVENTS + 1))
    whole = ok(run(long_campaign, "log", "--json")).json()
    assert [e["seq"] for e in whole] == list(range(1, LONG_EVENTS + 1))
    # Every selection agrees with filtering the whole log.
    for day, last_n in ((whole[1500]["day"], 3), (whole[-1]["day"], 50)):
        got = ok(run(long_campaign, "log", "--day", str(day), "--last", str(last_n), "--json"))
        assert got.json() == [e for e in whole if e["day"] == day][-last_n:]


@pytest.mark.slow
def test_a_long_table_reads_as_one_table(long_campaign: str) -> None:
    """Longer than a chunk, the table is printed in fixed columns whose borders join: one
    header, one bottom border, every row once and in order, no line wider than the screen."""
    text = ok(run(long_campaign, "log", "--from", "2001", COLUMNS="90")).stdout
    lines = text.splitlines()
    assert seqs_of_table(text) == list(range(2001, LONG_EVENTS + 1))
    assert sum("what happened" in line for line in lines) == 1
    assert lines[0].startswith("\u250f")
    assert lines[-1].startswith("\u2514")
    assert sum(line.startswith(("\u250f", "\u2514")) for line in lines) == 2
    [width] = {len(line) for line in lines}
    assert width <= 90
    # Every row line has its borders in the same places as the header's.
    columns = [i for i, ch in enumerate(lines[1]) if ch == "\u2503"]
    for line in lines[3:-1]:
        assert [i for i, ch in enumerate(line) if ch == "\u2502"] == columns


@pytest.mark.slow
def test_the_readme_example_prints_what_trek_prints(tmp_path: Path) -> None:
    """docs/history.md's "Reading the log" example, after its three-day journey, at 80 columns."""
    section = docpages.after("docs/history.md", "## Reading the log")
    block = re.search(r"```console\n\$ (trek [^\n]+)\n(.*?)```", section, re.S)
    assert block is not None
    command, shown = block.group(1), block.group(2)
    sys.path.insert(0, str(ROOT / "tests" / "e2e"))
    from test_readme_journey import journey_lines

    db = str(tmp_path / "ashes.db")
    for line in journey_lines():    # run from the project, where its map is
        ok(run(db, *shlex.split(line)[1:]))
    assert ok(run(db, *shlex.split(command)[1:], COLUMNS="80")).stdout == shown

"""`trek log --csv` and `trek audit --csv` through the real program, read back with csv.reader.

The campaign: two characters on foot on a rough square (penalty 3), a failed forage, a harm
undone, and names, a title and reasons built to break a CSV file or a spreadsheet: a comma and
quotes, a leading @, =, - and +. Every row expected is written out by hand from docs/rules.md.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
from cliruns import ok, play_all, usage_error
from conftest import TrekRun

from cli.spreadsheet import AUDIT_COLUMNS, LOG_COLUMNS, cell, write

Trek = Callable[..., TrekRun]

MAP = """\
[map]
name = "Rough Start"
rows = [",..", "..."]

[legend]
"." = { terrain = "open" }
"," = { terrain = "open", penalty = 3 }
"""

KIRA = 'Kira, "the" Swift'
TITLE = '=HYPERLINK("http://x")'


@pytest.fixture(scope="module")
def campaign_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The campaign below, played once for the module (the tests only read it)."""
    folder = tmp_path_factory.mktemp("csv")
    db = str(folder / "trek.db")
    (folder / "map.toml").write_text(MAP, encoding="utf-8")
    play_all(folder, db, [
        ("init", "Ashes Road", "--map", "map.toml", "--seed", "42"),                      # 1
        # Health (6+4)x5 = 50, Energy (5+4)x5 = 45; @Oren (1+1)x5 = 10 and 10.
        ("roster", "add-character", KIRA, "--body", "6", "--mind", "5", "--soul", "4",
         "--skill", "survival=1"),                                                         # 2
        ("roster", "add-character", "@Oren", "--body", "1", "--mind", "1", "--soul", "1"),  # 3
        ("session", "start", TITLE),                                                       # 4
        ("supplies", "set", "provisions=2"),                                               # 5
        ("day", "start"),                            # 6: both on foot without attributes: 1
        # @Oren: Body-Mind 1 + survival 0 - the square's 3 = -2; 5 > -2 fails.
        ("forage", "--roll", "5", "--by", "@Oren"),                                        # 7
        ("harm", KIRA, "--health", "3", "--reason", "-3 from a fall"),                     # 8
        ("undo", "--reason", "+it was nothing"),                                           # 9
        # Camp: Kira +6 Health, +4 Energy an hour for 8 hours = 32; @Oren +1, +1x8 = 8.
        ("day", "end"),                                                                    # 10
    ])
    return db


@pytest.fixture
def played(trek_run: Trek, campaign_db: str) -> Trek:
    return lambda *args: trek_run(*args, db=campaign_db)


def _rows(run: TrekRun) -> list[list[str]]:
    return list(csv.reader(io.StringIO(ok(run).stdout)))


def _time(text: str) -> str:
    datetime.fromisoformat(text)
    return "<time>"


def test_log_csv_reads_back_row_by_row(played: Trek) -> None:
    header, *rows = _rows(played("log", "--csv"))
    assert tuple(header) == LOG_COLUMNS
    # Every event was recorded for the GM the test runs as, at no seat's request.
    assert {tuple(r[8:]) for r in rows} == {("test-gm", "")}
    assert [[*r[:5], _time(r[5]), *r[6:8]] for r in rows] == [
        ["1", "CampaignStarted", "0", "", "test-gm", "<time>", "",
         "campaign Ashes Road (besm) starts at 0,0"],
        ["2", "CharacterAdded", "0", "", "test-gm", "<time>", "",
         'Kira, "the" Swift joins (Health 50, Energy 45)'],
        ["3", "CharacterAdded", "0", "", "test-gm", "<time>", "",
         "'@Oren joins (Health 10, Energy 10)"],
        # A session's opening event is stamped with the session before it: none.
        ["4", "SessionStarted", "0", "", "test-gm", "<time>", "",
         'session 1 starts: =HYPERLINK("http://x")'],
        ["5", "SuppliesSet", "0", "1", "test-gm", "<time>", "", "supplies set: provisions=2"],
        ["6", "DayStarted", "1", "1", "test-gm", "<time>", "", "day 1 starts with 1 square(s)"],
        ["7", "Foraged", "1", "1", "test-gm", "<time>", "",
         "forage: @Oren rolled 5 (given) vs -2: failure"],
        ["8", "Harmed", "1", "1", "test-gm", "<time>", "9",
         'Kira, "the" Swift loses 3 Health, 0 Energy (-3 from a fall)'],
        ["9", "EventsCancelled", "1", "1", "test-gm", "<time>", "",
         'undo of #8 Kira, "the" Swift loses 3 Health, 0 Energy (-3 from a fall) '
         "(+it was nothing)"],
        ["10", "DayEnded", "1", "1", "test-gm", "<time>", "",
         'day 1 ended; @Oren rested (camp) +1 Health +8 Energy; Kira, "the" Swift rested '
         "(camp) +6 Health +32 Energy"],
    ]


def test_log_csv_quotes_a_name_with_a_comma_and_quotes(played: Trek) -> None:
    raw = ok(played("log", "--csv", "--day", "1")).stdout
    # RFC 4180: the field is quoted and its quotes doubled.
    assert '"Kira, ""the"" Swift loses 3 Health, 0 Energy (-3 from a fall)"' in raw
    assert [r[0] for r in _rows(played("log", "--csv", "--day", "1"))[1:]] == [
        "6", "7", "8", "9", "10"]
    assert [r[0] for r in _rows(played("log", "--csv", "--session", "1"))[1:]] == [
        "4", "5", "6", "7", "8", "9", "10"]


def test_audit_csv_one_row_per_line_with_the_guard(played: Trek) -> None:
    header, *rows = _rows(played("audit", "--csv"))
    assert tuple(header) == AUDIT_COLUMNS
    undo_time = rows[3][12]
    assert _time(undo_time)
    title = "'" + TITLE
    assert rows == [
        ["1", title, "squares", "", "", "", "0", "", "", "", "", "", "", "days 1"],
        ["1", title, "gained", "", "", "provisions", "2", "", "", "", "", "", "", ""],
        # The target -2 is a number: no guard.
        ["1", title, "roll", "7", "1", "'@Oren", "", "5", "-2", "false", "", "", "",
         "Foraged"],
        ["1", title, "undo", "9", "", "#8 Harmed", "", "", "", "", "", "test-gm", undo_time,
         "'+it was nothing"],
        # Events 1 to 3 were recorded outside any session: nothing moved, nothing gained.
        ["", "", "squares", "", "", "", "0", "", "", "", "", "", "", ""],
    ]
    assert _rows(played("audit", "--csv", "--session", "1"))[1:] == rows[:4]


def test_csv_with_json_is_a_usage_error(played: Trek) -> None:
    usage_error(played("--json", "log", "--csv"))
    usage_error(played("audit", "--csv", "--json"))


def test_the_help_names_the_guard(trek_run: Trek) -> None:
    for command in ("log", "audit"):
        text = " ".join(ok(trek_run(command, "--help")).stdout.split())
        assert "--csv" in text
        assert "gets a leading '" in text


def test_a_line_break_in_a_cell_round_trips() -> None:
    # Names are one line (the tracker refuses control characters), so the writer is checked
    # on its own: a cell with a line break, quotes and a comma comes back whole.
    out = io.StringIO(newline="")
    write(("seq", "summary"), [{"seq": -1, "summary": 'one,\r\n"two"\nthree'}], out)
    assert list(csv.reader(io.StringIO(out.getvalue(), newline=""))) == [
        ["seq", "summary"], ["-1", 'one,\r\n"two"\nthree']]
    assert (cell(-3), cell("-3"), cell("=1+1"), cell("@a"), cell("\tx"), cell("a=b")) == (
        -3, "'-3", "'=1+1", "'@a", "'\tx", "a=b")


def test_a_cypher_campaign_exports_and_recaps(trek_run: Trek) -> None:
    # The README's Cypher day: 40 miles a day on the road, 24 off it, half that on rough
    # ground; three squares (18 miles) and under way to the fourth. Its day start and end hold
    # no squares, strain or rests, and their summaries say only the day.
    qi = str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "road-to-qi.toml")
    for args in [("init", "Road to Qi", "--ruleset", "cypher", "--map", qi),
                 ("roster", "add-character", "Ana", "--might", "12", "--speed", "10"),
                 ("roster", "add-mount", "Dusty", "--rider", "Ana"),
                 ("day", "start"), ("move", "E", "E", "E", "E"), ("day", "end")]:
        ok(trek_run(*args))
    rows = _rows(trek_run("log", "--csv"))
    assert [(r[0], r[1], r[7]) for r in rows[4:]] == [
        ("4", "DayStarted", "day 1 starts"),
        ("5", "Travelled", "travelled 0,0 → 3,0 (18 miles, 1 of a day), in transit toward "
                           "4,0 with 3/20 of a day to go"),
        ("6", "DayEnded", "day 1 ended")]
    recap = ok(trek_run("--json", "recap")).json()
    assert (recap["whole_campaign"], recap["days"], recap["distance"]) == (
        True, [1], {"squares": 3, "miles": 18, "square_miles": 6})

"""`trek log` names who each event was recorded for: `--gm NAME` (or TREK_GM) is the actor of
the commands it runs; `--json` and `--csv` carry `actor` and `requested_by`, and the table says
`by NAME` only on the rows the campaign's own GM did not record. On SQLite the kept log shows
it, on PostgreSQL the tracker's."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

from cliruns import ok
from conftest import TrekRun

from cli.spreadsheet import LOG_COLUMNS

Run = Callable[..., TrekRun]


def test_gm_ana_shows_as_the_actor_of_what_she_records(trek_run: Run, db: str) -> None:
    def run(*args: str) -> TrekRun:
        return ok(trek_run(*args, db=db))

    run("init", "Ashes Road", "--seed", "3")                      # 1, by TREK_GM: test-gm
    run("--gm", "Ana", "supplies", "add", "provisions=2")         # 2
    run("supplies", "add", "fuel=1", "--gm", "Ana")               # 3
    run("supplies", "add", "provisions=1")                        # 4, test-gm again
    run("undo", "--gm", "Bob")                                    # 5 cancels 4

    log = run("log", "--json").json()
    assert [(e["seq"], e["gm"], e["actor"], e["requested_by"]) for e in log] == [
        (1, "test-gm", "test-gm", None), (2, "Ana", "Ana", None), (3, "Ana", "Ana", None),
        (4, "test-gm", "test-gm", None), (5, "Bob", "Bob", None)]

    header, *rows = csv.reader(io.StringIO(run("log", "--csv").stdout))
    assert tuple(header) == LOG_COLUMNS
    at = {name: header.index(name) for name in ("seq", "actor", "requested_by")}
    assert [(r[at["seq"]], r[at["actor"]], r[at["requested_by"]]) for r in rows] == [
        ("1", "test-gm", ""), ("2", "Ana", ""), ("3", "Ana", ""), ("4", "test-gm", ""),
        ("5", "Bob", "")]

    table = run("log").stdout
    lines = {seq: next(line for line in table.splitlines() if line.startswith(f"│ {seq} "))
             for seq in range(1, 6)}
    # The campaign's own GM (who started it) goes unnamed; anyone else is named once.
    for seq in (1, 4):
        assert not any(f"by {name}" in lines[seq] for name in ("test-gm", "Ana", "Bob"))
    for seq, name in ((2, "Ana"), (3, "Ana"), (5, "Bob")):
        assert lines[seq].count(f"by {name}") == 1, lines[seq]
    assert "cancelled by #5" in lines[4]

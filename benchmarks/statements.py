"""SQL statements and commits each recording command runs on SQLite, counted in process.

    python benchmarks/statements.py            # a table
    python benchmarks/statements.py --json     # one JSON object
    python benchmarks/statements.py --show move   # also print every statement of that row

A small BESM campaign (Kira, 10 provisions, day 1 open) is played into a fresh SQLite store
through the `trek` command line in this process; then each row runs once through click's
CliRunner with every `sqlite3.connect` made in it traced (`Connection.set_trace_callback`).
Counted: every statement SQLite runs for the command (opening the store included) and the
COMMITs among them (`BEGIN ... COMMIT` or a connection's commit).

move               `trek move E` on the open day
undo               `trek undo` of that move
supplies add       `trek supplies add provisions=1`
day start          `trek day start` after `trek day end` (untimed)
encounter move     `trek encounter move Kira --to 2,0` in an encounter's open round
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SETUP: list[tuple[str, ...]] = [
    ("init", "Statements", "--ruleset", "besm", "--seed", "7"),
    ("roster", "add-character", "Kira", "--body", "4", "--mind", "3", "--soul", "3"),
    ("supplies", "add", "provisions=10"),
    ("day", "start"),
]

# (row, untimed commands before it, the counted command, untimed commands after it)
ROWS: list[tuple[str, list[tuple[str, ...]], tuple[str, ...], list[tuple[str, ...]]]] = [
    ("move", [], ("move", "E"), []),
    ("undo", [], ("undo",), []),
    ("supplies add", [], ("supplies", "add", "provisions=1"), []),
    ("day start", [("day", "end")], ("day", "start"), []),
    ("encounter move",
     [("encounter", "start", "Ambush"), ("encounter", "join", "Kira", "--at", "0,0"),
      ("encounter", "add", "Bandit", "--side", "enemy", "--at", "4,0", "--body", "4", "--mind",
       "3", "--soul", "3"),
      ("encounter", "round")],
     ("encounter", "move", "Kira", "--to", "2,0"), [("encounter", "end")]),
]


@contextlib.contextmanager
def traced(statements: list[str]) -> Iterator[None]:
    """Every sqlite3 connection opened inside reports each statement it runs."""
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection = real(*args, **kwargs)
        connection.set_trace_callback(statements.append)
        return connection

    sqlite3.connect = connect  # type: ignore[assignment]
    try:
        yield
    finally:
        sqlite3.connect = real  # type: ignore[assignment]


def invoke(args: Sequence[str], env: dict[str, str | None]) -> None:
    from click.testing import CliRunner

    from cli.main import trek

    result = CliRunner().invoke(trek, list(args), env=env, prog_name="trek")
    if result.exit_code != 0:
        raise SystemExit(f"trek {' '.join(args)} failed: {result.output}{result.exception!r}")


def is_commit(statement: str) -> bool:
    return statement.strip().upper().startswith(("COMMIT", "END"))


def count(folder: Path) -> dict[str, dict[str, Any]]:
    """Play the campaign into `folder`/trek.db and count each row's statements."""
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("TREK_")}
    env.update(TREK_DB=str(folder / "trek.db"), TREK_GM="statements", COLUMNS="200")
    counts: dict[str, dict[str, Any]] = {}
    with contextlib.chdir(folder):
        for args in SETUP:
            invoke(args, env)
        for row, before, args, after in ROWS:
            for untimed in before:
                invoke(untimed, env)
            statements: list[str] = []
            with traced(statements):
                invoke(args, env)
            counts[row] = {"statements": len(statements),
                           "commits": sum(map(is_commit, statements)),
                           "sql": statements}
            for untimed in after:
                invoke(untimed, env)
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="append", default=[], metavar="ROW")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="trek-statements-") as folder:
        counts = count(Path(folder))
    if options.json:
        print(json.dumps({row: {k: v for k, v in c.items() if k != "sql"}
                          for row, c in counts.items()}))
    else:
        print(f"{'command':<16} {'statements':>10} {'commits':>8}")
        for row, c in counts.items():
            print(f"{row:<16} {c['statements']:>10} {c['commits']:>8}")
    for row in options.show:
        print(f"\n-- {row}")
        for statement in counts[row]["sql"]:
            print(" ".join(statement.split())[:200])
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())

"""How much SQL a recording command runs on SQLite: an upper bound, counted in process.

benchmarks/statements.py plays a small campaign and traces every statement of each command;
the bounds are what the write path needs (open, load, one append, one fold of the read
models) and were 51 statements and 3 commits for a move before the store kept its schema mark.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("statements", ROOT / "benchmarks" /
                                                  "statements.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_recording_command_runs_few_statements_and_commits_twice_at_most(
        tmp_path: Path) -> None:
    counts = _benchmark().count(tmp_path)
    assert set(counts) == {"move", "undo", "supplies add", "day start", "encounter move"}
    for row, seen in counts.items():
        sql = [" ".join(statement.split()) for statement in seen["sql"]]
        # One event appended, and the read models folded once, in one transaction.
        assert sum(s.startswith("INSERT INTO stored_events") for s in sql) == 1, row
        assert sum(s.startswith("BEGIN IMMEDIATE") for s in sql) == 1, row
        assert seen["commits"] <= 2, (row, sql)
        # The store's schema mark is read once; no table is looked up one by one.
        assert not any("sqlite_master" in s for s in sql), (row, sql)
        assert sum("WHERE key IN ('format', 'schema')" in s for s in sql) == 1, row
        # An undo reads the reversals besides; every other command the same path as a move
        # (the party in use read once among them).
        assert seen["statements"] <= (45 if row == "undo" else 28), (row, sql)

"""How much SQL a recording command runs on SQLite: an upper bound, counted in process.

benchmarks/statements.py plays a small campaign and traces every statement of each command;
the bounds are what the write path needs (open, load, one append and one fold of the read
models in one transaction); a move ran 51 statements and 3 commits before the store kept its
schema mark, 28 and 2 before the event and its read models shared a transaction, and 14 and 1
before the fold stopped reading back the event just appended and the status document moved
into the row of the state.
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


def test_each_recording_command_runs_few_statements_and_commits_once(tmp_path: Path) -> None:
    counts = _benchmark().count(tmp_path)
    assert set(counts) == {"move", "undo", "supplies add", "day start", "encounter move"}
    for row, seen in counts.items():
        sql = [" ".join(statement.split()) for statement in seen["sql"]]
        # One event appended and the read models folded, in one transaction: every write of
        # the command lies between its one BEGIN IMMEDIATE and its one COMMIT.
        assert sum(s.startswith("INSERT INTO stored_events") for s in sql) == 1, row
        assert sum(s.startswith("BEGIN") for s in sql) == 1, (row, sql)
        assert seen["commits"] == 1, (row, sql)
        begin = sql.index("BEGIN IMMEDIATE")
        commit = next(i for i, s in enumerate(sql) if s.startswith("COMMIT"))
        writes = [i for i, s in enumerate(sql) if s.startswith(("INSERT", "UPDATE", "DELETE"))]
        assert begin < min(writes), (row, sql)
        assert max(writes) < commit, (row, sql)
        assert any("trek_view_state" in sql[i] for i in writes), row
        assert any("trek_chain_heads" in sql[i] for i in writes), row
        assert sql[begin + 1].startswith("INSERT INTO stored_events"), (row, sql)
        # The store's schema mark is read once; no table is looked up one by one.
        assert not any("sqlite_master" in s for s in sql), (row, sql)
        assert sum("WHERE key IN ('format', 'schema')" in s for s in sql) == 1, row
        # The events just appended are folded as written, never read back: the tracking
        # position is read with the campaign's read models, and the status document is kept
        # in its state's row.
        assert not any(s.startswith("SELECT") and "stored_events WHERE rowid" in s
                       for s in sql[begin:commit]), (row, sql)
        assert not any("trek_view_status" in s for s in sql), (row, sql)
        # An undo reads the reversals besides; every other command the same path as a move.
        assert seen["statements"] <= (18 if row == "undo" else 12), (row, sql)

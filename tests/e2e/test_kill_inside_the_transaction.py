"""A `trek move` killed (SIGKILL) between any two statements of the one transaction that appends
its event and folds its read models, on SQLite: the store holds the event and all its read
models, or neither, and the next command goes on as if nothing happened.

The process is killed from inside: sqlite3's trace callback runs as each statement begins, and
at the N-th statement after BEGIN IMMEDIATE it sends the process SIGKILL (nothing of Python's
runs after it). N runs from the append to the COMMIT, and one past it, which finishes. The
read models stand on the log's last event (the move's event is folded as written, not read
back) or behind it (the rows past their position are read and folded with it).
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from behind import recorded_unfolded
from conftest import TrekRun, trek_env

from domain.commands.supplies import SpendSupplies

pytestmark = pytest.mark.slow

# Every sqlite3 connection of the process traced; the process killed at statement N of the
# transaction (N = argv[1]).
KILL_AT_STATEMENT = """
import os, signal, sqlite3, sys
n = int(sys.argv[1])
seen = []
def trace(sql):
    if sql.startswith("BEGIN IMMEDIATE") or seen:
        seen.append(sql)
        if len(seen) == n + 1:
            os.kill(os.getpid(), signal.SIGKILL)
real = sqlite3.connect
def connect(*args, **kwargs):
    connection = real(*args, **kwargs)
    connection.set_trace_callback(trace)
    return connection
sqlite3.connect = connect
"""
# The `trek` process so killed.
KILLER = KILL_AT_STATEMENT + """
from cli.main import trek
trek.main(sys.argv[2:], prog_name="trek")
"""


def store_now(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """What the store holds, read behind Trek's back: the events, the read models' position,
    the campaign's kept chain head, its folded count, kept status and the log's index."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        one = lambda sql: conn.execute(sql).fetchall()  # noqa: E731
        return {
            "events": one("SELECT originator_version, topic FROM stored_events ORDER BY rowid"),
            "position": one("SELECT notification_id FROM trek_view_tracking"),
            "head": one("SELECT seq FROM trek_chain_heads"),
            "folded": one("SELECT events FROM trek_view_campaigns"),
            "status": one("SELECT events FROM trek_view_state"),
            "state": one("SELECT game_json FROM trek_view_state"),
            "index": one("SELECT seq, type FROM trek_view_entries ORDER BY seq"),
        }


def read_models_left_behind(db: Path | str) -> None:
    """Record one more event whose read models are not brought up to it (a process stopped
    between the two), so the next command folds that event too."""
    warnings = recorded_unfolded(str(db), SpendSupplies({"provisions": 1}))
    assert "event 5 (SuppliesSpent) was recorded, but" in warnings[0]


# The read models on the log's last event when the move runs (its own event is folded as
# written), or one event behind it (the rows past their position are read and folded).
@pytest.mark.parametrize("behind", [False, True], ids=["caught-up", "behind"])
def test_a_move_killed_at_any_statement_of_its_transaction_writes_all_or_nothing(
        tmp_path: Path, trek_run: Callable[..., TrekRun], behind: bool) -> None:
    db = tmp_path / "trek.db"
    for args in (("init", "Kill Road", "--ruleset", "besm", "--seed", "7"),
                 ("roster", "add-character", "Kira", "--body", "4", "--mind", "3", "--soul",
                  "3"),
                 ("supplies", "add", "provisions=10"), ("day", "start")):
        trek_run(*args)
    if behind:
        read_models_left_behind(db)
    env = trek_env(str(db))
    before = store_now(db)
    assert len(before["events"]) == (5 if behind else 4)
    assert before["position"] == before["status"] == [(4,)]
    killed = 0
    for n in range(1, 40):
        done = subprocess.run([sys.executable, "-c", KILLER, str(n), "move", "E"], env=env,
                              cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              check=False)
        now = store_now(db)
        if done.returncode == -signal.SIGKILL:
            # Killed before its COMMIT ran: nothing of it is in the store, read models included.
            killed += 1
            assert now == before, (n, done.stderr)
            continue
        # Past the COMMIT: the command finished, and the event and every read model moved on
        # together (one more event, folded and indexed, the head and the status on it; an
        # event left behind is folded with it).
        assert done.returncode == 0, done.stderr
        moved = logged_once(now, before, behind)
        assert now["position"] == now["head"] == now["folded"] == now["status"] == [(moved,)]
        break
    else:
        pytest.fail("the move never finished")
    # The append, each read and write of the fold and the COMMIT itself were each a place to
    # die (the rows past the position are read back only when the read models were behind).
    assert killed >= (9 if behind else 8)
    store_is_whole(trek_run, behind)


def logged_once(now: dict[str, Any], before: dict[str, Any], behind: bool) -> int:
    """The move stands once in the log and in the log's index, after what was there (and the
    event left behind, folded with it); its seq."""
    moved = len(before["events"]) + 1
    assert now["events"] == [*before["events"], (moved, "domain.besm.events:Moved")]
    assert now["index"] == [*before["index"], *([(5, "SuppliesSpent")] if behind else []),
                            (moved, "Moved")]
    return moved


def store_is_whole(trek_run: Callable[..., TrekRun], behind: bool, **where: str) -> None:
    """The store after the kills: its chain and read models check out, and the move stands
    once (`where`: the store, when it is not the test's own)."""
    verified = json.loads(trek_run("verify", "--json", **where).stdout)
    assert verified["verified"] is True
    replayed = json.loads(trek_run("replay", "--verify", "--json", **where).stdout)
    assert (replayed["verified"], replayed["behind"]) == (True, 0)
    status = json.loads(trek_run("status", "--json", **where).stdout)
    assert status["position"] == {"x": 1, "y": 0}
    assert status["supplies"]["provisions"] == (9 if behind else 10)

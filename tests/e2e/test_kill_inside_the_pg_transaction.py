"""A `trek move` killed (SIGKILL) between any two statements of the one transaction that appends
its event and folds its read models, on PostgreSQL: the store holds the event and all its read
models, or neither, and the next command goes on as if nothing happened.

The process is killed from inside: psycopg's cursor `execute` and the connection's own
commands (its COMMIT) are wrapped, and at the N-th statement after the events table's lock the
process sends itself SIGKILL before the statement is sent (nothing of Python's runs after it;
the server rolls back what the dead connection left open). N runs from the statement after the
lock to the COMMIT, and one past it, where the store must hold everything. The read models
stand on the log's last event or one event behind it (the rows past their position are then
read and folded with it).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import TrekRun, trek_env
from test_kill_inside_the_transaction import (
    logged_once,
    read_models_left_behind,
    store_is_whole,
)

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

# The `trek` process, killed at statement N after the events table's lock (N = argv[1]).
KILLER = """
import os, signal, sys
import psycopg
from psycopg import sql
from psycopg._connection_base import BaseConnection
n = int(sys.argv[1])
seen = []
def note(text):
    if "LOCK TABLE" in text or seen:
        seen.append(text)
        if len(seen) == n + 1:
            os.kill(os.getpid(), signal.SIGKILL)
def said(query, context):
    if isinstance(query, bytes):
        return query.decode()
    if isinstance(query, sql.Composable):
        return query.as_string(context)
    return str(query)
real_execute = psycopg.Cursor.execute
def execute(self, query, *args, **kwargs):
    note(said(query, self))
    return real_execute(self, query, *args, **kwargs)
psycopg.Cursor.execute = execute
real_command = BaseConnection._exec_command
def command(self, query, *args, **kwargs):
    note(said(query, self))
    return real_command(self, query, *args, **kwargs)
BaseConnection._exec_command = command
from cli.main import trek
trek.main(sys.argv[2:], prog_name="trek")
"""


def store_now(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """What the store holds, read behind Trek's back: the events, the read models' position,
    the campaign's kept chain head, its folded count, kept status and the log's index."""
    with psycopg.connect(url) as conn:
        def one(sql: str) -> list[tuple[Any, ...]]:
            return list(conn.execute(sql).fetchall())  # type: ignore[arg-type]

        return {
            "events": one("SELECT originator_version, topic FROM trek_events "
                          "ORDER BY notification_id"),
            "position": one("SELECT notification_id FROM trek_view_tracking"),
            "head": one("SELECT seq FROM trek_chain_heads"),
            "folded": one("SELECT events FROM trek_view_campaigns"),
            "status": one("SELECT events FROM trek_view_state"),
            "state": one("SELECT game_json FROM trek_view_state"),
            "index": one("SELECT seq, type FROM trek_view_entries ORDER BY seq"),
        }


def id_of(url: str, version: int) -> int:
    """The notification id of the campaign's event `version` (the ids of appends rolled back
    are never used, so they need not follow on from each other)."""
    with psycopg.connect(url) as conn:
        found = conn.execute("SELECT notification_id FROM trek_events "
                             "WHERE originator_version = %s", (version,)).fetchone()
        assert found is not None
        return int(found[0])


@pytest.mark.parametrize("behind", [False, True], ids=["caught-up", "behind"])
def test_a_move_killed_at_any_statement_of_its_pg_transaction_writes_all_or_nothing(
        tmp_path: Path, pg_url: str, trek_run: Callable[..., TrekRun], behind: bool) -> None:
    for args in (("init", "Kill Road", "--ruleset", "besm", "--seed", "7"),
                 ("roster", "add-character", "Kira", "--body", "4", "--mind", "3", "--soul",
                  "3"),
                 ("supplies", "add", "provisions=10"), ("day", "start")):
        assert trek_run(*args, db=pg_url).returncode == 0
    if behind:
        read_models_left_behind(pg_url)
    env = trek_env(pg_url)
    before = store_now(pg_url)
    assert len(before["events"]) == (5 if behind else 4)
    assert before["status"] == [(4,)]
    assert before["position"] == [(id_of(pg_url, 4),)]
    killed = 0
    for n in range(1, 40):
        done = subprocess.run([sys.executable, "-c", KILLER, str(n), "move", "E"], env=env,
                              cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              check=False)
        now = store_now(pg_url)
        if done.returncode == -signal.SIGKILL and now == before:
            # Killed before its COMMIT ran: nothing of it is in the store, read models included.
            killed += 1
            continue
        # Past the COMMIT (the command finished, or was killed after it): the event and every
        # read model moved on together (one more event, folded and indexed, the head and the
        # status on it; an event left behind is folded with it). Two transactions fail here:
        # killed between them, the event stands and its read models do not.
        assert done.returncode in (0, -signal.SIGKILL), done.stderr
        moved = logged_once(now, before, behind)
        assert now["head"] == now["folded"] == now["status"] == [(moved,)]
        assert now["position"] == [(id_of(pg_url, moved),)]
        break
    else:
        pytest.fail("the move never finished")
    # The NOTIFY, the append, each read and write of the fold and the COMMIT itself were each
    # a place to die (the rows past the position are read back only when behind).
    assert killed >= (8 if behind else 7)
    store_is_whole(trek_run, behind, db=pg_url)

"""A batch of commands recorded together (the server's door, `Trek.handle_each`) killed
(SIGKILL) between any two statements of its one transaction, on SQLite: the store holds every
recorded event of the batch and all their read models, or none of it, and nothing is answered
before the COMMIT.

As in test_kill_inside_the_transaction.py, the process is killed from inside: sqlite3's trace
callback, at the N-th statement after BEGIN IMMEDIATE. The batch is three commands, the second
refused by the rules (a spend of more than the party holds): two events or none.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import TrekRun, trek_env
from test_kill_inside_the_transaction import KILL_AT_STATEMENT, store_now

pytestmark = pytest.mark.slow

KILLER = KILL_AT_STATEMENT + """
import json
from cli.bootstrap import bootstrap
from domain.commands.supplies import AddSupplies, SpendSupplies
from tracker.app import Trek
db = os.environ["TREK_DB"]
with Trek.open(db, rulesets=bootstrap(db).registry, gm="test-gm") as trek:
    answers = trek.handle_each("kill-road", [
        (AddSupplies({"provisions": 1}), None), (SpendSupplies({"provisions": 999}), None),
        (AddSupplies({"provisions": 2}), None)])
print(json.dumps([answer if isinstance(answer, list) else str(answer) for answer in answers]))
"""


def test_a_batch_killed_at_any_statement_of_its_transaction_writes_all_or_nothing(
        tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    db = tmp_path / "trek.db"
    for args in (("init", "Kill Road", "--ruleset", "besm", "--seed", "7"),
                 ("supplies", "add", "provisions=10"), ("day", "start")):
        trek_run(*args)
    env = trek_env(str(db))
    before = store_now(db)
    assert len(before["events"]) == 3
    killed = 0
    for n in range(1, 60):
        done = subprocess.run([sys.executable, "-c", KILLER, str(n)], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120, check=False)
        now = store_now(db)
        if done.returncode == -signal.SIGKILL:
            # Killed before its COMMIT: nothing of the batch is in the store, and nothing
            # was answered.
            killed += 1
            assert now == before, (n, done.stderr)
            assert done.stdout == ""
            continue
        assert done.returncode == 0, done.stderr
        answers = json.loads(done.stdout)
        # The first and the third recorded, the second refused with the rules' sentence.
        assert [answer[0]["seq"] for answer in (answers[0], answers[2])] == [4, 5]
        assert "provisions" in answers[1]
        # Past the COMMIT: both events, and every read model on the newest of them.
        added = "domain.events:SuppliesAdded"
        assert now["events"] == [*before["events"], (4, added), (5, added)]
        assert now["position"] == now["head"] == now["folded"] == now["status"] == [(5,)]
        assert now["index"] == [*before["index"], (4, "SuppliesAdded"), (5, "SuppliesAdded")]
        break
    else:
        pytest.fail("the batch never finished")
    # The append of both events, each write of the fold and the COMMIT were places to die.
    assert killed >= 8
    verified = json.loads(trek_run("verify", "--json").stdout)
    assert verified["verified"] is True
    replayed = json.loads(trek_run("replay", "--verify", "--json").stdout)
    assert (replayed["verified"], replayed["behind"]) == (True, 0)
    status = json.loads(trek_run("status", "--json").stdout)
    assert status["supplies"]["provisions"] == 10 + 1 + 2

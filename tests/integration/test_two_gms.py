"""Several GMs recording into one campaign at once, each through the real `trek` program.

Every command either records its one event or is refused with the "campaign changed ... run
the command again" sentence; no event is lost, doubled or out of order, and the read models
still match the log.

Two flavours: each command its own `python -m cli` process (as GMs really run it), and a
burst where each GM process runs the command line in-process back to back, so that the
commands' loads and saves collide far more often than process start-up lets them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import TrekRun, trek_env

# Real `trek` processes recording at once: left out by -m "not slow".
pytestmark = pytest.mark.slow

Run = Callable[..., TrekRun]

GMS = 2
COMMANDS_EACH = 10
# Each GM starts its Nth command at the same moment as the others (start + N x SPACING), so
# the commands really overlap instead of running one after another by chance.
SPACING = 0.3
BURST_GMS = 4
BURST_EACH = 25
RETRY_SENTENCE = ("Error: The campaign changed while this was being recorded; "
                  "run the command again.")

# One GM at the table: runs `trek supplies add provisions=1` COMMANDS_EACH times, each a new
# process, and prints one JSON line per command with its exit code, stderr and timing.
GM_LOOP = r"""
import json, subprocess, sys, time
start, spacing, count = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
for n in range(count):
    delay = start + n * spacing - time.time()
    if delay > 0:
        time.sleep(delay)
    began = time.time()
    done = subprocess.run([sys.executable, "-m", "cli", "supplies", "add", "provisions=1",
                           "--json"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    print(json.dumps({"rc": done.returncode, "out": done.stdout, "err": done.stderr,
                      "began": began, "ended": time.time()}), flush=True)
"""


# One GM in a hurry: the same command through the real command line, in one process, as
# fast as it goes, from the same instant as the others.
GM_BURST = r"""
import json, sys, time
from click.testing import CliRunner
from cli.main import trek

start, count = float(sys.argv[1]), int(sys.argv[3])
runner = CliRunner()
while time.time() < start:
    time.sleep(0.001)
for n in range(count):
    began = time.time()
    done = runner.invoke(trek, ["supplies", "add", "provisions=1", "--json"])
    print(json.dumps({"rc": done.exit_code, "out": done.stdout, "err": done.stderr,
                      "began": began, "ended": time.time()}), flush=True)
"""


def gms_recording_at_once(db: str, tmp_path: Path, *, program: str = GM_LOOP,
                          gms: int = GMS, each: int = COMMANDS_EACH) -> list[dict[str, Any]]:
    env = trek_env(db)
    start = time.time() + 1.5  # every GM process is up and waiting by then
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", program, str(start), str(SPACING), str(each)],
            cwd=tmp_path, env=env | {"TREK_GM": f"gm-{n}"}, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for n in range(gms)
    ]
    results: list[dict[str, Any]] = []
    for n, process in enumerate(processes):
        out, err = process.communicate(timeout=240)
        assert process.returncode == 0, err
        results += [json.loads(line) | {"gm": f"gm-{n}"} for line in out.splitlines()]
    assert len(results) == gms * each
    return results


def test_gms_recording_at_once_lose_and_double_nothing(
        db: str, trek_cli: Run, tmp_path: Path) -> None:
    started = trek_cli("init", "Ashes Road", "--seed", "1", db=db)
    assert started.returncode == 0, started

    results = gms_recording_at_once(db, tmp_path)

    check_nothing_lost_or_doubled(results, db, trek_cli)


def test_gms_recording_in_a_burst_lose_and_double_nothing(
        db: str, trek_cli: Run, tmp_path: Path) -> None:
    started = trek_cli("init", "Ashes Road", "--seed", "1", db=db)
    assert started.returncode == 0, started

    results = gms_recording_at_once(db, tmp_path, program=GM_BURST, gms=BURST_GMS,
                                    each=BURST_EACH)

    check_nothing_lost_or_doubled(results, db, trek_cli)


def check_nothing_lost_or_doubled(results: list[dict[str, Any]], db: str,
                                  trek_cli: Run) -> None:
    outcomes = Counter((r["rc"], r["err"].strip()) for r in results)
    succeeded = [r for r in results if r["rc"] == 0]
    for result in results:
        if result["rc"] != 0:
            # The only refusal allowed: the loser of a race that kept losing.
            assert (result["rc"], result["err"].strip()) == (1, RETRY_SENTENCE), outcomes
            assert result["out"] == ""
        else:
            assert "Traceback" not in result["err"]
    assert succeeded, outcomes
    # The commands did run at the same time (each GM's Nth began with the others' Nth).
    overlapping = sum(
        1 for a in results for b in results
        if a["gm"] < b["gm"] and a["began"] < b["ended"] and b["began"] < a["ended"])
    assert overlapping >= len(results) // 4

    # Each success printed its one event; their seqs are 2 .. N+1, each exactly once.
    recorded = [json.loads(r["out"]) for r in succeeded]
    assert all(len(events) == 1 and events[0]["type"] == "SuppliesAdded" for events in recorded)
    total = len(succeeded)
    assert sorted(events[0]["seq"] for events in recorded) == list(range(2, total + 2))

    status = trek_cli("status", "--json", db=db)
    assert status.returncode == 0, status
    assert status.json()["supplies"]["provisions"] == total
    assert status.json()["events"] == total + 1

    log = trek_cli("log", "--json", db=db).json()
    assert [entry["seq"] for entry in log] == list(range(1, total + 2))
    assert [entry["type"] for entry in log] == ["CampaignStarted"] + ["SuppliesAdded"] * total
    assert all(entry["cancelled_by"] is None for entry in log)
    # Each event is stamped by the GM whose command succeeded.
    assert Counter(entry["gm"] for entry in log[1:]) == Counter(r["gm"] for r in succeeded)

    verified = trek_cli("replay", "--verify", db=db)
    assert verified.returncode == 0, verified
    assert "match" in verified.stdout


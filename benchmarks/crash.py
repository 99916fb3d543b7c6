"""Crash suite: kill real `trek` processes mid-command and check the store after every kill.

    python benchmarks/crash.py --kills 300 --json                  # SQLite
    python benchmarks/crash.py --kills 100 --db postgresql://...   # an empty PostgreSQL database

Each round runs `trek supplies add provisions=1` as its own process and SIGKILLs it at a random
moment after start-up: the kill lands uniformly between 50% and 110% of a normal run's time,
so most land in the command's work (loading, deciding, appending, updating the read models)
rather than in the interpreter starting. After every kill the store must:

- open, and `status --json` answer;
- hold every acknowledged command (each adds 1 provision: provisions == events - 1, and the
  events are the acknowledged ones, or those plus the killed one if its append committed);
- `log --json` list exactly `events` entries, seq 1..N with none half-written;
- pass `trek verify` and `trek replay --verify` (read models behind the log are not a failure:
  every read folds the missing events in, and the next recording command stores them).

Printed: kills, how many killed commands had committed their event anyway, how many left the
read models behind, and every failure with the output that showed it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def env_for(db: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(TREK_DB=db, TREK_GM="crash-suite", COLUMNS="200")
    return env


def trek(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)


def check_store(env: dict[str, str], acknowledged: int) -> tuple[list[str], dict[str, Any]]:
    """Every invariant after a kill; returns the failures and what was seen."""
    failures: list[str] = []
    status = trek(env, "status", "--json")
    if status.returncode != 0:
        return [f"status failed: {status.stderr.strip()}"], {}
    doc = json.loads(status.stdout)
    events, provisions = doc["events"], doc["supplies"]["provisions"]
    seen = {"events": events, "provisions": provisions}
    if events not in (acknowledged, acknowledged + 1):
        failures.append(f"{events} events after {acknowledged} acknowledged")
    if provisions != events - 1:
        failures.append(f"provisions {provisions} with {events} events")
    log = trek(env, "log", "--json")
    if log.returncode != 0:
        failures.append(f"log failed: {log.stderr.strip()}")
    else:
        seqs = [entry["seq"] for entry in json.loads(log.stdout)]
        if seqs != list(range(1, events + 1)):
            failures.append(f"log seqs {seqs[:3]}...{seqs[-3:]} for {events} events")
    chain = trek(env, "verify", "--json")
    if chain.returncode != 0:
        failures.append(f"verify failed: {chain.stdout.strip()} {chain.stderr.strip()}")
    views = trek(env, "replay", "--verify", "--json")
    if views.returncode != 0:
        failures.append(f"replay --verify failed: {views.stdout.strip()} {views.stderr.strip()}")
    else:
        seen["behind"] = json.loads(views.stdout).get("behind", 0)
    return failures, seen


def run(db: str, kills: int, seed: int, progress: bool = False) -> dict[str, Any]:
    rng = random.Random(seed)
    env = env_for(db)
    started = trek(env, "init", "Crash Road", "--seed", "1")
    if started.returncode != 0:
        raise SystemExit(f"init failed: {started.stderr}")
    acknowledged = 1
    # A normal command's whole-process time, to aim the kills.
    durations = []
    for _ in range(3):
        began = time.perf_counter()
        done = trek(env, "supplies", "add", "provisions=1")
        durations.append(time.perf_counter() - began)
        if done.returncode != 0:
            raise SystemExit(f"a normal command failed: {done.stderr}")
        acknowledged += 1
    normal = statistics.median(durations)
    committed_anyway = behind = 0
    failures: list[dict[str, Any]] = []
    for n in range(kills):
        delay = normal * rng.uniform(0.5, 1.1)
        process = subprocess.Popen([sys.executable, "-m", "cli", "supplies", "add",
                                    "provisions=1"], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        code = process.wait()
        if code == 0:
            acknowledged += 1  # it finished before the kill: an acknowledged command
        problems, seen = check_store(env, acknowledged)
        if code != 0 and seen.get("events") == acknowledged + 1:
            committed_anyway += 1
            acknowledged += 1  # its event stands: later checks count it
        if seen.get("behind"):
            behind += 1
        if problems:
            failures.append({"kill": n + 1, "delay_s": round(delay, 3), "problems": problems})
        if progress:
            print(f"\rkill {n + 1}/{kills}, failures {len(failures)}", end="", file=sys.stderr,
                  flush=True)
        # One normal command between kills: it must succeed and catch up what a kill left.
        after = trek(env, "supplies", "add", "provisions=1")
        if after.returncode != 0:
            failures.append({"kill": n + 1, "problems": [f"the next command failed: "
                                                         f"{after.stderr.strip()}"]})
        else:
            acknowledged += 1
    if progress:
        print(file=sys.stderr)
    final, seen = check_store(env, acknowledged)
    if final or seen.get("behind"):
        failures.append({"kill": "final", "problems": final or ["read models left behind"]})
    return {"kills": kills, "normal_command_s": round(normal, 3),
            "killed_but_committed": committed_anyway, "left_read_models_behind": behind,
            "events": seen.get("events"), "failures": failures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", help="a PostgreSQL URL of an empty database (default: a new "
                                     "SQLite file in a temporary folder)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = args.db or str(Path(folder) / "crash.db")
        result = run(db, args.kills, args.seed, progress=not args.json)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['kills']} kills (a normal command takes {result['normal_command_s']}s): "
              f"{result['killed_but_committed']} killed commands had committed their event, "
              f"{result['left_read_models_behind']} left the read models behind, "
              f"{len(result['failures'])} failures")
        for failure in result["failures"]:
            print(f"  kill {failure['kill']}: {'; '.join(failure['problems'])}")
    raise SystemExit(1 if result["failures"] else 0)


if __name__ == "__main__":
    main()

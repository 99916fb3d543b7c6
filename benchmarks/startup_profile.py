"""Where a recording command's time goes: each stage of one `trek` process, measured in order.

    python benchmarks/startup_profile.py                      # supplies add, BESM, 7 runs
    python benchmarks/startup_profile.py --ruleset gurps --runs 9
    python benchmarks/startup_profile.py --json
    python benchmarks/startup_profile.py --smoke              # 1 run: a check that it runs (CI)

`benchmarks/everyday.py` times whole processes; this says what is inside one. Each run is a
fresh Python process that imports, stage by stage, what `trek supplies add provisions=1` loads,
timing each stage with a monotonic clock, then runs the command itself:

interpreter       the yardstick, `python -c "import click"`, timed whole (start-up and click)
libraries         (after click, which the yardstick holds) pydantic, with one model defined
                  (its schema machinery loads then),
                  eventsourcing's application, rich's console and table, sqlite3
trek models       Trek's shared modules: events, state, maps, encounters, the ruleset
                  interface, the campaign aggregate, the tracker and its read models
ruleset           the campaign's ruleset: its rules, events, state and encounter moves
command line      `cli.main` and the command modules (every ruleset's command-line module)
the command       opening the store, loading the campaign, deciding, appending the event,
                  updating the read models, printing the line

Inside the stages, the time spent making Trek's own classes is counted apart: pydantic model
classes (each field collected and checked; the events defer their validators until first use)
and dataclasses (each one's methods generated and compiled). Every stage is printed in ms and as
a multiple of the yardstick, with the sum; medians over the runs. The campaign is a small
SQLite one (one character, 10 provisions) made in a temporary folder.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("libraries", "trek models", "ruleset", "command line", "the command")
STATS = {"besm": ("--body", "4", "--mind", "3", "--soul", "3"),
         "cypher": ("--might", "12", "--speed", "10"),
         "gurps": ("--basic-move", "5", "--basic-speed", "5.75"),
         "shadowrun": ("--quickness", "5", "--metatype", "elf"),
         "movepoints": ("--full-move", "13")}

# Run in each measured process: argv[1] is the ruleset. Prints one JSON object of seconds.
STAGED = r'''
import dataclasses, json, sys, time
clock = time.perf_counter
TREK = ("cli", "domain", "projections", "tracker")
made = {"models": 0.0, "model_count": 0, "dataclasses": 0.0, "dataclass_count": 0}
_process = dataclasses._process_class
def _timed_dataclass(cls, *args, **kwargs):
    started = clock()
    try:
        return _process(cls, *args, **kwargs)
    finally:
        if cls.__module__.split(".")[0] in TREK:
            made["dataclasses"] += clock() - started
            made["dataclass_count"] += 1
dataclasses._process_class = _timed_dataclass
ruleset = sys.argv[1]
import click
marks = [("click", clock())]
import sqlite3
import eventsourcing.application
import rich.console, rich.table
from pydantic import BaseModel
from pydantic._internal import _model_construction as construction
class _First(BaseModel):
    a: int
_new = construction.ModelMetaclass.__new__
def _timed_model(mcs, name, bases, namespace, *args, **kwargs):
    started = clock()
    try:
        return _new(mcs, name, bases, namespace, *args, **kwargs)
    finally:
        if str(namespace.get("__module__", "")).split(".")[0] in TREK:
            made["models"] += clock() - started
            made["model_count"] += 1
construction.ModelMetaclass.__new__ = _timed_model
marks.append(("libraries", clock()))
import domain.events, domain.state, domain.maps, domain.encounter, domain.ruleset
import domain.campaign, tracker.app, projections.projector
marks.append(("trek models", clock()))
from cli.bootstrap import bootstrap

RULESETS = bootstrap().registry
RULESETS.named(ruleset)
marks.append(("ruleset", clock()))
import cli.main, cli.commands
marks.append(("command line", clock()))
sys.argv = ["trek", "supplies", "add", "provisions=1"]
try:
    cli.main.main()
except SystemExit as done:
    if done.code:
        raise
marks.append(("the command", clock()))
stages = {name: marks[i][1] - marks[i - 1][1] for i, (name, _) in enumerate(marks) if i}
print(json.dumps({"stages": stages, "made": made}), file=sys.stderr)
'''


def env_for(db: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(TREK_DB=db, TREK_GM="bench", COLUMNS="200")
    return env


def trek(env: dict[str, str], *args: str) -> None:
    run = subprocess.run([sys.executable, "-m", "cli", *args], env=env, capture_output=True,
                         text=True, stdin=subprocess.DEVNULL, check=False, timeout=120)
    if run.returncode != 0:
        raise SystemExit(f"trek {' '.join(args)} failed: {run.stderr}")


def yardstick() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import click"], check=True)
    return time.perf_counter() - started


def staged(env: dict[str, str], ruleset: str) -> dict[str, Any]:
    run = subprocess.run([sys.executable, "-c", STAGED, ruleset], env=env, capture_output=True,
                         text=True, stdin=subprocess.DEVNULL, check=False, timeout=120)
    if run.returncode != 0:
        raise SystemExit(f"the staged run failed: {run.stderr}")
    result: dict[str, Any] = json.loads(run.stderr.strip().splitlines()[-1])
    return result


def profile(ruleset: str, runs: int) -> dict[str, Any]:
    compiled = compileall.compile_dir  # as an installed Trek's modules are
    for package in ("cli", "domain", "projections", "tracker"):
        compiled(str(ROOT / package), quiet=1)
    with tempfile.TemporaryDirectory(prefix="trek-profile-") as folder:
        env = env_for(str(Path(folder) / "profile.db"))
        trek(env, "init", "Profile", "--ruleset", ruleset, "--seed", "7")
        trek(env, "roster", "add-character", "Kira", *STATS[ruleset])
        trek(env, "supplies", "add", "provisions=10")
        yardsticks, results = [], []
        for _ in range(runs):
            yardsticks.append(yardstick())
            results.append(staged(env, ruleset))
    base = statistics.median(yardsticks)
    stages = {name: statistics.median(r["stages"][name] for r in results) for name in STAGES}
    made = {key: statistics.median(r["made"][key] for r in results)
            for key in results[0]["made"]}
    return {"ruleset": ruleset, "runs": runs, "command": "supplies add provisions=1",
            "yardstick_s": base, "stages_s": stages,
            "total_s": base + sum(stages.values()), "made": made}


def show(result: dict[str, Any]) -> None:
    base = result["yardstick_s"]
    print(f"`trek {result['command']}` on a small {result['ruleset']} campaign, stage by stage "
          f"(medians of {result['runs']} runs)")
    print(f"  {'interpreter + click':22} {base * 1000:7.1f} ms  {1:5.2f}x  (the yardstick)")
    for name, seconds in result["stages_s"].items():
        print(f"  {name:22} {seconds * 1000:7.1f} ms  {seconds / base:5.2f}x")
    total = result["total_s"]
    print(f"  {'sum':22} {total * 1000:7.1f} ms  {total / base:5.2f}x")
    made = result["made"]
    print(f"  of which making Trek's classes: {made['model_count']:.0f} pydantic models "
          f"{made['models'] * 1000:.1f} ms, {made['dataclass_count']:.0f} dataclasses "
          f"{made['dataclasses'] * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", choices=sorted(STATS), default="besm")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="Print one JSON object.")
    parser.add_argument("--smoke", action="store_true", help="One run: a check that it runs.")
    args = parser.parse_args()
    result = profile(args.ruleset, 1 if args.smoke else max(1, args.runs))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        show(result)


if __name__ == "__main__":
    main()

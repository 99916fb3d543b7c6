"""How long `trek plan` makes a GM wait: 10,000 trials of a ten-day BESM journey, whole process.

    python benchmarks/plan.py            # the full measurement, a table
    python benchmarks/plan.py --json     # one JSON object
    python benchmarks/plan.py --smoke    # a quick check that it runs (500 trials, one pair)

Builds one SQLite campaign (two riders on mounts, provisions for a few forced marches, on a
long open strip with a rough stretch and a shortcut across a ridge) and times real
`python -m cli --db STORE plan --to X,Y --forced-march 1 --night --shortcuts --forage
--days 10 --trials 10000 --json` processes, start to exit, with Trek's modules byte-compiled
first, side by side with `python -c "import click"` (A B A B ...). It reports the median
seconds of each side, the median of the per-pair ratios, and whether the plan met its target
of 2 s; and, from the plan's own output, how the journey goes (so the figure is known to be a
ten-day journey, not a short one).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from domain.commands.roster import AddCharacter, AddMount, SetRule
from domain.commands.supplies import SetSupplies

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from replay import byte_compiled, median, run, trek

from cli.bootstrap import bootstrap
from domain.geometry import Square
from domain.options import CharacterOptions
from tracker.app import Trek

RULESETS = bootstrap().registry

TARGET_S = 2.0
TRIALS = 10_000
SMOKE_TRIALS = 500
DAYS = 10
GM = "benchmark"
# A strip 64 squares long: open ground, a rough stretch (rolls there -1), a ridge the party
# goes round unless the pass over it opens.
MAP_TEXT = """\
[map]
name = "The Long Road"
rows = [
  "................................................................",
  "..........,,,,,,,,,,..............^^^^..........................",
  "..........,,,,,,,,,,..............^^^^..........................",
  "..................................^^^^..........................",
]

[legend]
"." = { terrain = "open" }
"," = { terrain = "open", penalty = 1 }
"^" = { terrain = "feature", name = "ridge" }

[[shortcut]]
name = "High Pass"
path = [[34, 2], [35, 2], [36, 2], [37, 2]]
bonus = 1
penalty = 1
"""
START = Square(0, 2)
GOAL = Square(38, 2)
# The measured row: night travel every day, the pass tried whenever the path reaches it. The
# heavier row adds a forced march a day and foraging: more states to decide (docs/plan.md).
POLICY = ("--night", "--shortcuts")
HEAVY_POLICY = ("--forced-march", "1", "--night", "--shortcuts", "--forage")


def build(store: str) -> None:
    trek_app = Trek.open(store, rulesets=RULESETS, create=True, gm=GM)
    try:
        [started] = trek_app.init("Long Road", ruleset="besm", map_text=MAP_TEXT, at=START,
                                  seed=2024)
        slug = str(started["slug"])
        trek_app.handle(slug, AddCharacter(CharacterOptions(
            name="Kira", skills={"ride": 2, "navigation": 2, "survival": 1},
            extra={"body": 6, "mind": 5, "soul": 4})))
        trek_app.handle(slug, AddCharacter(CharacterOptions(
            name="Oren", skills={"survival": 2}, attributes={"ground-speed": 1},
            extra={"body": 5, "mind": 6, "soul": 5})))
        trek_app.handle(slug, AddMount("Dusty", ("ground-speed", 1), "Kira"))
        trek_app.handle(slug, SetSupplies({"provisions": 8, "ammo": 4}))
        trek_app.handle(slug, SetRule("upkeep-provisions", 1))
    finally:
        trek_app.close()


def timed(argv: list[str], cwd: str) -> tuple[float, float, str]:
    """One whole process: wall seconds from spawn to exit, its CPU seconds (user + system),
    and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = run(argv, cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.seconds, cpu, done.stdout


def measure(store: str, policy: tuple[str, ...], trials: int, runs: int,
            cwd: str) -> dict[str, Any]:
    argv = trek(store, "plan", "--to", f"{GOAL.x},{GOAL.y}", *policy, "--days", str(DAYS),
                "--trials", str(trials), "--seed", "1", "--json")
    plan_s: list[float] = []
    plan_cpu: list[float] = []
    click_s: list[float] = []
    doc: dict[str, Any] = {}
    for _ in range(runs):
        seconds, cpu, out = timed(argv, cwd)
        plan_s.append(seconds)
        plan_cpu.append(cpu)
        doc = json.loads(out)
        click_s.append(timed([sys.executable, "-c", "import click"], cwd)[0])
    ratio = median([a / b for a, b in zip(plan_s, click_s, strict=True)], 3)
    seconds = median(plan_s, 3)
    return {
        "policy": " ".join(policy), "plan_s": seconds, "plan_cpu_s": median(plan_cpu, 3),
        "import_click_s": median(click_s, 3), "ratio": ratio, "runs": runs,
        "trials": doc["trials"], "days": DAYS,
        "journey": {"arrived_by_day": {str(d["day"]): d["arrived"] for d in doc["days"]},
                    "most_likely_day": doc["most_likely_day"], "losses": doc["losses"]},
    }


def table(result: dict[str, Any]) -> str:
    lines = [f"trek plan, a {DAYS}-day BESM journey to {GOAL.x},{GOAL.y} "
             f"({result['date']}, Python {result['python']})"]
    for name, row in result["rows"].items():
        mark = ""
        if name == "target":
            mark = f"   target {TARGET_S} s {'✓' if result['met'] else '✗'}"
        shares = ", ".join(f"{day}: {share:.0%}"
                           for day, share in row["journey"]["arrived_by_day"].items())
        lines += [
            f"{name}: {row['trials']} trials, {row['policy']} ({row['runs']} pair(s))",
            f"  trek plan                 {row['plan_s']:.3f} s (CPU {row['plan_cpu_s']:.3f} s)"
            + mark,
            f"  python -c 'import click'  {row['import_click_s']:.3f} s   ratio {row['ratio']}",
            f"  arrived by the end of day {shares}",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="pairs of runs (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--smoke", action="store_true",
                        help=f"quick: {SMOKE_TRIALS} trials, one pair")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    trials, runs = (SMOKE_TRIALS, 1) if args.smoke else (TRIALS, args.runs)
    started = time.perf_counter()
    compiled = byte_compiled()
    with tempfile.TemporaryDirectory(prefix="trek-plan-bench-") as folder:
        store = str(Path(folder) / "road.db")
        build(store)
        rows = {"target": measure(store, POLICY, trials, runs, folder),
                "heavy": measure(store, HEAVY_POLICY, trials, runs, folder)}
    target = rows["target"]
    result: dict[str, Any] = {
        "rows": rows, "plan_s": target["plan_s"], "target_s": TARGET_S,
        "met": target["plan_s"] <= TARGET_S}
    result.update({"modules_compiled": compiled, "smoke": args.smoke,
                   "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                   "python": platform.python_version(),
                   "total_s": round(time.perf_counter() - started, 1)})
    print(json.dumps(result) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

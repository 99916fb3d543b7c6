"""The everyday commands, each a whole `trek` process, against a bare `python -c "import click"`.

    python benchmarks/everyday.py                 # 11 rounds a row, every ruleset, a table
    python benchmarks/everyday.py --json          # one JSON object
    python benchmarks/everyday.py --pairs 5 --rulesets besm,gurps
    python benchmarks/everyday.py --smoke         # one round, BESM and GURPS: a check (CI)

What a GM types at the table, timed from spawn to exit as `python -m cli WORDS` (output piped,
no terminal), on a small SQLite campaign of each ruleset:

status                     `trek status`
move                       where the ruleset travels overland (BESM, Cypher): `trek move E`
                           on the open day; where it plays only round by round (GURPS,
                           Shadowrun, Move-Points): `trek encounter move Kira --to 2,0` in
                           the open round (GURPS, whose moves go step by step by facing:
                           `trek encounter move Kira N N`). An untimed `trek undo` follows
                           each run, so every run starts from the same state.
undo                       `trek undo`, of that same move recorded (untimed) just before it
log --last 10              `trek log --last 10`
supplies add provisions=1  `trek supplies add provisions=1`
encounter status           `trek encounter status` with an encounter open in its first round
                           (for BESM and Cypher one is opened before the row and ended after
                           it: their overland moves wait while one is open)
day start                  `trek day start` after the day was closed (`trek day end`, once
                           before the row); an untimed `trek undo` follows each run. Where the
                           ruleset has no travel days, `trek day start` is refused while the
                           campaign is set up, and the row is reported skipped with its words.
--help                     `trek --help`

Each campaign: `trek init "Everyday RULESET" --ruleset RULESET --seed 7`, one character, Kira,
with the ruleset's stats, 10 provisions, then `trek day start`. Where that opens day 1 the
campaign travels overland; where it is refused, an encounter is opened on an open plain:
Kira joins at 0,0, a Bandit (an enemy, the ruleset's stats) enters at 4,0, round 1 starts (and
under Move-Points Kira takes a Move Action, so she holds Move Points to move with).

Each row runs in rounds of three processes, one after the other: the trek command (A),
`python -c "import click"` (B) and the libraries' floor: `python -c` importing the libraries a
recording command stands on (click, sqlite3, eventsourcing.application and
eventsourcing.sqlite) and building one pydantic model. The order turns each round, so none
always runs first; untimed commands run outside the timing. Reported: the median seconds of
A and B, the median of the per-round ratios A ÷ B and whether it is within the target of 3,
and `÷ floor`, the median of the per-round ratios A ÷ the floor (the target for a recording
command: 1.3). Each ratio sets processes run seconds apart against each other, so a machine
that speeds up or slows down between rows moves both sides. The `libraries` row times the
floor against the yardstick alone.

Trek's modules are byte-compiled first, as installing Trek (or its first run) leaves them. The
stores and everything else written live in a temporary folder, removed at the end; each
campaign's provisions and Kira's square are checked at the end against what the rows recorded.
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cli", "domain", "projections", "tracker")
RULESETS = ("besm", "cypher", "gurps", "shadowrun", "movepoints")
SMOKE_RULESETS = ("besm", "gurps")
COMMANDS = ("status", "move", "undo", "log --last 10", "supplies add provisions=1",
            "encounter status", "day start", "--help")
TARGET = 3.0
PAIRS = 11
PROVISIONS = 10
YARDSTICK = "import click"
# The floor under a recording command: the libraries it cannot do without, one model built.
LIBRARIES = ("import click, sqlite3, eventsourcing.application, eventsourcing.sqlite; "
             "from pydantic import BaseModel\nclass X(BaseModel):\n    a: int\nX(a=1)")
FLOOR_TARGET = 1.3

# Kira's and the Bandit's stats in each ruleset.
KIRA = {"besm": ("--body", "4", "--mind", "3", "--soul", "3"),
        "cypher": ("--might", "12", "--speed", "10"),
        "gurps": ("--basic-move", "5", "--basic-speed", "5.75"),
        "shadowrun": ("--quickness", "5", "--metatype", "elf"),
        "movepoints": ("--full-move", "13")}
BANDIT = {"besm": ("--body", "4", "--mind", "3", "--soul", "3"),
          "cypher": ("--speed", "10"),
          "gurps": ("--basic-move", "6", "--basic-speed", "6"),
          "shadowrun": ("--quickness", "4", "--metatype", "ork"),
          "movepoints": ("--full-move", "6")}
# Kira's move in a round: two squares east, or, on GURPS hexes, two hexes ahead (north).
ROUND_MOVE = {"gurps": ("N", "N")}
ROUND_MOVE_TO = ("--to", "2,0")
# After the round starts: what a combatant does before moving, where the ruleset asks it.
BEFORE_MOVING = {"movepoints": (("encounter", "act", "Kira", "move"),)}

Words = tuple[str, ...]


@dataclass
class Row:
    """One command on one campaign: the timed words, and the untimed ones around them."""

    command: str
    words: Words
    before_row: tuple[Words, ...] = ()
    before_each: tuple[Words, ...] = ()
    after_each: tuple[Words, ...] = ()
    after_row: tuple[Words, ...] = ()


@dataclass
class Campaign:
    ruleset: str
    folder: Path
    env: dict[str, str]
    days: bool = True
    no_days: str = ""
    supplies_added: int = 0
    log: list[str] = field(default_factory=list)

    def run(self, words: Words) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "cli", *words], cwd=self.folder,
                              env=self.env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, check=False, timeout=120)

    def must(self, words: Words) -> None:
        """An untimed command; it must succeed."""
        run = self.run(words)
        if run.returncode != 0:
            raise SystemExit(f"{self.ruleset}: `trek {shown(words)}` exited {run.returncode}: "
                             f"{run.stderr.strip()}")


def shown(words: Words) -> str:
    return " ".join(f'"{word}"' if " " in word else word for word in words)


def env_for(db: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(TREK_DB=db, TREK_GM="bench", COLUMNS="200")
    return env


def byte_compiled() -> int:
    """Compile Trek's modules, as installing it does, and say how many modules there are."""
    for package in PACKAGES:
        if not compileall.compile_dir(str(ROOT / package), quiet=2):
            raise SystemExit(f"benchmark: {package} does not compile")
    return sum(len(list((ROOT / package).rglob("*.py"))) for package in PACKAGES)


def encounter_opening(ruleset: str) -> tuple[Words, ...]:
    return (("encounter", "start", "Ambush"),
            ("encounter", "join", "Kira", "--at", "0,0"),
            ("encounter", "add", "Bandit", "--side", "enemy", "--at", "4,0", *BANDIT[ruleset]),
            ("encounter", "round"),
            *BEFORE_MOVING.get(ruleset, ()))


def campaign(folder: Path, ruleset: str) -> Campaign:
    """A small campaign of the ruleset: overland on day 1, or in round 1 of an encounter."""
    made = Campaign(ruleset, folder, env_for(str(folder / f"{ruleset}.db")))
    made.must(("init", f"Everyday {ruleset}", "--ruleset", ruleset, "--seed", "7"))
    made.must(("roster", "add-character", "Kira", *KIRA[ruleset]))
    made.must(("supplies", "add", f"provisions={PROVISIONS}"))
    day = made.run(("day", "start"))
    if day.returncode == 1:
        made.days = False
        made.no_days = day.stderr.strip().removeprefix("Error: ")
        for words in encounter_opening(ruleset):
            made.must(words)
    elif day.returncode != 0:
        raise SystemExit(f"{ruleset}: `trek day start` exited {day.returncode}: {day.stderr}")
    return made


def row_for(made: Campaign, command: str) -> Row | None:
    """The row's commands on this campaign, or None where the ruleset has no such command."""
    if made.days:
        move: Words = ("move", "E")
    else:
        move = ("encounter", "move", "Kira", *ROUND_MOVE.get(made.ruleset, ROUND_MOVE_TO))
    if command == "move":
        return Row(command, move, after_each=(("undo",),))
    if command == "undo":
        return Row(command, ("undo",), before_each=(move,))
    if command == "encounter status" and made.days:
        return Row(command, ("encounter", "status"), before_row=encounter_opening(made.ruleset),
                   after_row=(("encounter", "end"),))
    if command == "day start":
        if not made.days:
            return None
        return Row(command, ("day", "start"), before_row=(("day", "end"),),
                   after_each=(("undo",),), after_row=(("day", "start"),))
    return Row(command, tuple(command.split()))


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    """One whole process, spawn to exit, its output captured; it must succeed."""
    started = time.perf_counter()
    run = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, check=False, timeout=120)
    seconds = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"`{' '.join(argv[1:])}` exited {run.returncode}: {run.stderr.strip()}")
    return seconds


def yardstick() -> list[str]:
    return [sys.executable, "-c", YARDSTICK]


def paired(pairs: int, a: Callable[[], float], b: Callable[[], float],
           before: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """Pairs of A and B, A first in the odd pairs and B first in the even ones: each side's
    median seconds and the median of the per-pair ratios A ÷ B."""
    a_times, b_times = rounds(pairs, [a, b], before)
    return {"a_s": _median(a_times), "b_s": _median(b_times), "ratio": _ratio(a_times, b_times)}


def rounds(count: int, runs: list[Callable[[], float]],
           before: Callable[[], None] = lambda: None) -> list[list[float]]:
    """`count` rounds, each running every one of `runs` once, one after the other; the order
    turns by one each round (A B C, B C A, C A B, ...), so none always runs first. Each run's
    seconds, a list per run."""
    times: list[list[float]] = [[] for _ in runs]
    for i in range(count):
        before()
        for k in range(len(runs)):
            turn = (i + k) % len(runs)
            times[turn].append(runs[turn]())
    return times


def _median(times: list[float]) -> float:
    return round(statistics.median(times), 4)


def _ratio(a_times: list[float], b_times: list[float]) -> float:
    """The median of the per-round ratios A ÷ B."""
    return round(statistics.median(x / y for x, y in zip(a_times, b_times, strict=True)), 3)


def floor() -> list[str]:
    return [sys.executable, "-c", LIBRARIES]


def measure(made: Campaign, row: Row, pairs: int) -> dict[str, Any]:
    for words in row.before_row:
        made.must(words)

    def trek_run() -> float:
        seconds = timed([sys.executable, "-m", "cli", *row.words], made.folder, made.env)
        for words in row.after_each:
            made.must(words)
        return seconds

    def before() -> None:
        for words in row.before_each:
            made.must(words)

    # Each round: the command, the yardstick and the libraries' floor, side by side.
    a_times, b_times, floor_times = rounds(
        pairs, [trek_run, lambda: timed(yardstick(), made.folder, made.env),
                lambda: timed(floor(), made.folder, made.env)], before)
    result = {"a_s": _median(a_times), "b_s": _median(b_times),
              "ratio": _ratio(a_times, b_times), "floor_s": _median(floor_times),
              "floor_ratio": round(_ratio(a_times, floor_times), 2)}
    for words in row.after_row:
        made.must(words)
    if row.words[:2] == ("supplies", "add"):
        made.supplies_added += pairs
    untimed = {"before_row": row.before_row, "before_each": row.before_each,
               "after_each": row.after_each, "after_row": row.after_row}
    return {"command": row.command, "ruleset": made.ruleset, **result, "target": TARGET,
            "met": result["ratio"] <= TARGET, "line": f"trek {shown(row.words)}",
            "untimed": {when: [f"trek {shown(words)}" for words in all_words]
                        for when, all_words in untimed.items() if all_words}}


def check_state(made: Campaign) -> None:
    """Every row put back what it changed: provisions grew only by the supplies row, and Kira
    (or the party) is on 0,0 where she started."""
    status = json.loads(made.run(("status", "--json")).stdout)
    provisions = status["supplies"]["provisions"]
    if provisions != PROVISIONS + made.supplies_added:
        raise SystemExit(f"{made.ruleset}: {provisions} provisions, not "
                         f"{PROVISIONS + made.supplies_added}")
    if made.days:
        where = status["position"]
    else:
        where = status["encounter"]["combatants"]["Kira"]["position"]
    if where != {"x": 0, "y": 0}:
        raise SystemExit(f"{made.ruleset}: Kira ended on {where}, not 0,0")


def table(result: dict[str, Any]) -> str:
    lines = [f"Everyday commands, whole processes: trek (A) against `python -c \"{YARDSTICK}\"`"
             f" (B) and the libraries' floor, {result['pairs']} round(s) a row",
             f"medians; ratio = median of the rounds' A / B, target <= {result['target']}", "",
             f"{'command':<27}{'ruleset':<12}{'A ms':>8}{'B ms':>8}{'ratio':>8}  met"
             f"{'÷ floor':>9}"]
    skipped = {(s["command"], s["ruleset"]): s["reason"] for s in result["skipped"]}
    rows = {(r["command"], r["ruleset"]): r for r in result["rows"]}
    for command in COMMANDS:
        for ruleset in result["rulesets"]:
            if (command, ruleset) in skipped:
                lines.append(f"{command:<27}{ruleset:<12}  skipped: `trek {command}` is refused")
                continue
            row = rows[(command, ruleset)]
            lines.append(f"{command:<27}{ruleset:<12}{row['a_s'] * 1000:8.1f}"
                         f"{row['b_s'] * 1000:8.1f}{row['ratio']:8.2f}  "
                         f"{'yes' if row['met'] else 'NO ':<3}{row['floor_ratio']:9.2f}")
        lines.append("")
    libraries = result["libraries"]
    lines.append(f"{'libraries':<27}{'':<12}{libraries['a_s'] * 1000:8.1f}"
                 f"{libraries['b_s'] * 1000:8.1f}{libraries['ratio']:8.2f}  (the floor: "
                 "click, sqlite3, eventsourcing's application and SQLite recorder, one "
                 "pydantic model built)")
    lines.append(f"÷ floor: the median of a row's per-round ratios A ÷ the floor, run beside "
                 f"it (target for the recording commands <= {FLOOR_TARGET})")
    met = sum(row["met"] for row in result["rows"])
    for reason in dict.fromkeys(s["reason"] for s in result["skipped"]):
        lines.append(f"refused: {reason}")
    lines.append("")
    lines.append(f"{met} of {len(result['rows'])} rows within {result['target']}x; "
                 f"{len(result['skipped'])} skipped; {result['modules_compiled']} modules "
                 f"byte-compiled; {result['total_s']} s in all")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=PAIRS,
                        help=f"rounds of runs a row (default {PAIRS})")
    parser.add_argument("--rulesets", default=",".join(RULESETS),
                        help="the rulesets to measure, comma-separated (default: all)")
    parser.add_argument("--smoke", action="store_true",
                        help=f"one round, {' and '.join(SMOKE_RULESETS)} only (CI)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    rulesets = [name.strip() for name in args.rulesets.split(",") if name.strip()]
    unknown = [name for name in rulesets if name not in RULESETS]
    if unknown or not rulesets:
        parser.error(f"--rulesets: {', '.join(unknown) or 'none given'}; "
                     f"choose from {', '.join(RULESETS)}")
    pairs = args.pairs
    if args.smoke:
        pairs, rulesets = 1, list(SMOKE_RULESETS)

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    started = time.perf_counter()
    compiled = byte_compiled()
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="trek-everyday-") as folder:
        here = Path(folder)
        env = env_for(str(here / "unused.db"))
        say("libraries")
        libraries = paired(pairs, lambda: timed(floor(), here, env),
                           lambda: timed(yardstick(), here, env))
        libraries["line"] = f"python -c {json.dumps(LIBRARIES)}"
        for ruleset in rulesets:
            say(f"{ruleset}: setting up")
            made = campaign(here, ruleset)
            for command in COMMANDS:
                row = row_for(made, command)
                if row is None:
                    skipped.append({"command": command, "ruleset": ruleset,
                                    "reason": made.no_days})
                    continue
                say(f"{ruleset}: {command}")
                rows.append(measure(made, row, pairs))
            check_state(made)
    result: dict[str, Any] = {
        "pairs": pairs, "target": TARGET, "rulesets": rulesets,
        "yardstick": f"python -c {json.dumps(YARDSTICK)}", "rows": rows, "skipped": skipped,
        "libraries": libraries, "modules_compiled": compiled, "smoke": args.smoke,
        "total_s": round(time.perf_counter() - started, 1)}
    print(json.dumps(result, indent=2) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

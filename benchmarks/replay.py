"""What a GM waits for: whole `trek` processes on a long campaign, each against a yardstick.

    python benchmarks/replay.py --events 100000 --json
    python benchmarks/replay.py --events 100000 --no-postgres

Builds a realistic N-event campaign (see long_campaign.py), a 100-event one and a 5-event one
in each store (SQLite, and PostgreSQL when its server binaries are here or --postgres is
given), then times real `python -m cli --db STORE ...` processes, start to exit, with Trek's
modules byte-compiled first (as installing it, or its first run, leaves them):

startup   `trek status --json` on the 5-event campaign  ÷  `python -c "import click"`
replay    `trek replay` on N events  ÷  the raw floor: a process that SELECTs every stored
          event (sqlite3, or psycopg) and json.loads each one, nothing else
record    `trek harm Kira --health 1` on N events  ÷  the same on 100 events
undo      `trek undo 7` on N events (re-checks every later event; redone, untimed, after each
          run)  ÷  `trek replay` on N events
log       `trek log` on N events: seconds until its first 50 lines have arrived
memory    the peak resident memory of the `trek replay` process on N events (GNU time), MB;
          the same on 100 events beside it

The two sides of each ratio run alternately (A B A B ...), --runs pairs; a ratio is the median
of the per-pair ratios, a time the median of its runs.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import select
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from domain.commands.roster import AddCharacter, AddMount

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from long_campaign import GM, MAP_TEXT, NAME, UNDO_OLD_TARGET, build

from cli.bootstrap import bootstrap
from domain.geometry import Square
from domain.options import CharacterOptions
from tracker.app import Trek

RULESETS = bootstrap().registry

ROOT = Path(__file__).resolve().parents[1]

SMALL = 100
LOG_LINES = 50
# Once one `trek log` run is this far over its target, further runs teach nothing.
LOG_ENOUGH_S = 10.0
ROWS = ("startup", "replay", "record", "undo", "log", "memory")
TARGETS: dict[str, tuple[float, str]] = {
    "startup": (3.0, "ratio"),
    "replay": (2.0, "ratio"),
    "record": (1.2, "ratio"),
    "undo": (1.0, "ratio"),
    "log": (0.5, "s"),
    "memory": (150.0, "MB"),
}

# The raw floors: read every stored event and decode its JSON, nothing else.
FLOOR_SQLITE = """\
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
cursor = conn.execute("SELECT originator_id, originator_version, topic, state "
                      "FROM stored_events ORDER BY rowid")
count = 0
while rows := cursor.fetchmany(2000):
    for row in rows:
        json.loads(row[3])
    count += len(rows)
print(count)
"""
FLOOR_POSTGRES = """\
import json, sys
import psycopg
with psycopg.connect(sys.argv[1]) as conn, conn.cursor(name="floor") as cursor:
    cursor.itersize = 2000
    cursor.execute("SELECT originator_id, originator_version, topic, state "
                   "FROM trek_events ORDER BY notification_id")
    count = 0
    for row in cursor:
        json.loads(row[3])
        count += 1
print(count)
"""


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mb: float
    stdout: str


PACKAGES = ("cli", "domain", "projections", "tracker")


def byte_compiled() -> int:
    """Compile Trek's modules to bytecode, as installing a package or its first run does, and
    say how many modules there are.

    A `trek` process then loads them as an installed Trek would, and as the yardsticks load
    click and the standard library. Where PYTHONDONTWRITEBYTECODE is set, an editable checkout
    would otherwise compile every module from source in every process.
    """
    for package in PACKAGES:
        if not compileall.compile_dir(ROOT / package, quiet=2):
            raise SystemExit(f"benchmark: {package} does not compile")
    return sum(len(list((ROOT / package).rglob("*.py"))) for package in PACKAGES)


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env["TREK_GM"] = GM
    env["COLUMNS"] = "120"
    return env


# A whole process's peak resident memory must be read from a process forked by a small one: on
# Linux a child's maxrss starts at the hiwater mark of the process it was forked from, and this
# one holds the whole built campaign. GNU time does it; without it, this small Python launcher.
LAUNCHER = """\
import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execv(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""
GNU_TIME = Path("/usr/bin/time")


def peak_prefix(report: str) -> list[str]:
    if GNU_TIME.exists():
        return [str(GNU_TIME), "-f", "%M", "-o", report]
    return [sys.executable, "-c", LAUNCHER, report]


def run(argv: list[str], cwd: str, *, peak: bool = False) -> Run:
    """One whole process, timed from spawn to exit; with `peak`, its peak resident memory."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as report:
        started = time.perf_counter()
        process = subprocess.Popen([*(peak_prefix(report.name) if peak else ()), *argv],
                                   cwd=cwd, env=child_env(), stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=err)
        process.wait()
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            shown = " ".join(a if len(a) < 60 else "..." for a in argv)
            raise RuntimeError(f"{shown} exited {process.returncode}: "
                               f"{err.read().decode(errors='replace')[-2000:]}")
        peak_mb = int(report.read().strip().splitlines()[-1]) / 1024 if peak else 0.0
        return Run(seconds, peak_mb, out.read().decode())


def first_lines(argv: list[str], cwd: str, lines: int, timeout: float) -> tuple[float, bool]:
    """Seconds from spawn until `lines` lines of output have arrived (or the output ended),
    and whether `timeout` ran out first; the process is then stopped."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=child_env(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    assert process.stdout is not None
    fd = process.stdout.fileno()
    seen = 0
    try:
        while seen < lines:
            left = timeout - (time.perf_counter() - started)
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return timeout, True
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            seen += chunk.count(b"\n")
        return time.perf_counter() - started, False
    finally:
        process.kill()
        process.wait()
        process.stdout.close()


def trek(store: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "cli", "--db", store, *args]


def median(values: list[float], digits: int = 4) -> float:
    return round(statistics.median(values), digits)


def ratio_row(name: str, a: list[float], b: list[float]) -> dict[str, Any]:
    target, _ = TARGETS[name]
    value = round(statistics.median(x / y for x, y in zip(a, b, strict=True)), 3)
    return {"value": value, "unit": "ratio", "target": target, "met": value <= target,
            "a_s": median(a), "b_s": median(b), "runs": len(a)}


def tiny(store: str) -> None:
    """A 5-event campaign: init, two characters, two mounts."""
    with Trek.open(store, rulesets=RULESETS, create=True, gm=GM) as app:
        app.init(NAME, map_text=MAP_TEXT, at=Square(1, 0), seed=42)
        app.handle(None, AddCharacter(CharacterOptions(
            name="Kira", extra={"body": 6, "mind": 5, "soul": 4})))
        app.handle(None, AddCharacter(CharacterOptions(
            name="Oren", extra={"body": 5, "mind": 6, "soul": 5})))
        app.handle(None, AddMount("Dusty", ("ground-speed", 1), "Kira"))
        app.handle(None, AddMount("Bramble", ("ground-speed", 1), "Oren"))


def stored_events(store: str) -> int:
    with Trek.open(store, rulesets=RULESETS, writable=False, gm=GM) as app:
        return int(app.queries.status(None)["events"])


def verified(store: str) -> bool:
    with Trek.open(store, rulesets=RULESETS, writable=False, gm=GM) as app:
        return bool(app.verify_views()["verified"])


def measure(kind: str, large: str, small: str, five: str, runs: int, cwd: str,
            log_timeout: float, say: Callable[[str], None]) -> dict[str, Any]:
    floor_code = FLOOR_SQLITE if kind == "sqlite" else FLOOR_POSTGRES
    floor = [sys.executable, "-c", floor_code, large]
    replay = trek(large, "replay")
    rows: dict[str, dict[str, Any]] = {}
    if kind == "sqlite":
        os.sync()  # the build's writeback, out of the way of the timed commits

    say(f"  startup: trek status --json (5 events) against python -c 'import click', {runs} pairs")
    a: list[float] = []
    b: list[float] = []
    for _ in range(runs):
        a.append(run(trek(five, "status", "--json"), cwd).seconds)
        b.append(run([sys.executable, "-c", "import click"], cwd).seconds)
    rows["startup"] = ratio_row("startup", a, b)

    say(f"  replay: trek replay against the raw floor, {runs} pairs")
    a, b, peaks = [], [], []
    for _ in range(runs):
        done = run(replay, cwd, peak=True)
        a.append(done.seconds)
        peaks.append(done.peak_mb)
        floor_run = run(floor, cwd)
        assert int(floor_run.stdout) >= 1, floor_run.stdout
        b.append(floor_run.seconds)
    rows["replay"] = ratio_row("replay", a, b)

    say(f"  record: trek harm at N against at {SMALL} events, {runs} pairs")
    a, b = [], []
    harm = ("harm", "Kira", "--health", "1", "--reason", "benchmark")
    for _ in range(runs):
        a.append(run(trek(large, *harm), cwd).seconds)
        b.append(run(trek(small, *harm), cwd).seconds)
    rows["record"] = ratio_row("record", a, b)

    say(f"  undo: trek undo {UNDO_OLD_TARGET} against trek replay, {runs} pairs "
        "(each undo redone, untimed)")
    a, b = [], []
    for _ in range(runs):
        a.append(run(trek(large, "undo", str(UNDO_OLD_TARGET), "--reason", "benchmark"),
                     cwd).seconds)
        run(trek(large, "redo", str(UNDO_OLD_TARGET), "--reason", "benchmark"), cwd)
        done = run(replay, cwd, peak=True)
        b.append(done.seconds)
        peaks.append(done.peak_mb)
    rows["undo"] = ratio_row("undo", a, b)

    say(f"  log: trek log, time to its first {LOG_LINES} lines")
    times: list[float] = []
    timed_out = False
    for _ in range(runs):
        seconds, timed_out = first_lines(trek(large, "log"), cwd, LOG_LINES, log_timeout)
        times.append(seconds)
        if timed_out or seconds > LOG_ENOUGH_S:
            break
    log_s = median(times, 3)
    rows["log"] = {"value": log_s, "unit": "s", "target": TARGETS["log"][0],
                   "met": log_s <= TARGETS["log"][0] and not timed_out, "runs": len(times),
                   "timed_out": timed_out}

    say(f"  memory: trek replay at {SMALL} events, {runs} runs")
    small_peaks = [run(trek(small, "replay"), cwd, peak=True).peak_mb for _ in range(runs)]
    peak = round(max(peaks), 1)
    rows["memory"] = {"value": peak, "unit": "MB", "target": TARGETS["memory"][0],
                      "met": peak <= TARGETS["memory"][0], "runs": len(peaks),
                      "small_mb": round(max(small_peaks), 1)}
    return rows


@contextmanager
def postgres_databases() -> Iterator[Callable[[str], str]]:
    """A throwaway PostgreSQL server (as the tests start one), handing out new databases."""
    sys.path.insert(0, str(ROOT / "tests"))
    from pgserver import PgServer

    with PgServer() as server:
        yield server.create_database


def postgres_wanted(flag: bool | None) -> bool:
    if flag is not None:
        return flag
    sys.path.insert(0, str(ROOT / "tests"))
    from pgserver import pg_unavailable_reason

    return pg_unavailable_reason() is None


def bench_store(kind: str, stores: dict[str, str], events: int, runs: int, cwd: str,
                log_timeout: float, say: Callable[[str], None]) -> dict[str, Any]:
    started = time.perf_counter()
    say(f"{kind}: building a {events}-event campaign")
    build(stores["large"], events, in_memory=True,
          progress=lambda n: say(f"  {n} events, {time.perf_counter() - started:.0f}s"))
    built = time.perf_counter() - started
    say(f"  built in {built:.1f}s; the {SMALL}-event campaign command by command, "
        "and a 5-event one")
    build(stores["small"], SMALL, in_memory=False)
    tiny(stores["five"])
    rows = measure(kind, stores["large"], stores["small"], stores["five"], runs, cwd,
                   log_timeout, say)
    return {"build_s": round(built, 1), "stored_events": stored_events(stores["large"]),
            "verified": verified(stores["large"]), "rows": rows,
            "total_s": round(time.perf_counter() - started, 1)}


def table(result: dict[str, Any]) -> str:
    lines = [f"{result['events']} events, {result['runs']} runs, {result['date']}"]
    head = f"{'row':<8} {'store':<9} {'A (s)':>8} {'B (s)':>8} {'value':>9} {'target':>9}"
    lines.append(head)
    lines.append("-" * len(head))
    for kind, store in result["stores"].items():
        for name in ROWS:
            row = store["rows"][name]
            unit = row["unit"]
            value = f"{row['value']}" + ("" if unit == "ratio" else f" {unit}")
            target = f"≤ {row['target']:g}" + ("" if unit == "ratio" else f" {unit}")
            a = f"{row['a_s']:.3f}" if "a_s" in row else ""
            b = f"{row['b_s']:.3f}" if "b_s" in row else ""
            mark = "✓" if row["met"] else "✗"
            lines.append(f"{name:<8} {kind:<9} {a:>8} {b:>8} {value:>9} {target:>9} {mark}")
        lines.append(f"{'':<8} {kind:<9} built in {store['build_s']} s, "
                     f"{store['stored_events']} events stored at the end, "
                     f"memory at {SMALL} events {store['rows']['memory']['small_mb']} MB")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000,
                        help="events in the large campaign (default 100000)")
    parser.add_argument("--keep", metavar="PATH",
                        help="build the large SQLite store at PATH (a new file) and keep it")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--runs", type=int, default=5, help="pairs per ratio (default 5)")
    parser.add_argument("--postgres", action=argparse.BooleanOptionalAction, default=None,
                        help="also measure on a throwaway PostgreSQL server (default: when "
                             "its server binaries are installed)")
    parser.add_argument("--log-timeout", type=float, default=600.0,
                        help="give up waiting for `trek log`'s first lines after this many "
                             "seconds (default 600)")
    args = parser.parse_args(argv)
    if args.events < SMALL:
        parser.error(f"--events must be at least {SMALL}, the small campaign's length")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.keep and Path(args.keep).exists():
        parser.error(f"{args.keep} already exists; --keep builds a new store")

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    started = time.perf_counter()
    result: dict[str, Any] = {
        "events": args.events, "runs": args.runs, "modules_compiled": byte_compiled(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(), "sqlite": sqlite3.sqlite_version, "stores": {}}
    with tempfile.TemporaryDirectory(prefix="trek-bench-") as folder, ExitStack() as stack:
        stores = {"large": args.keep or str(Path(folder) / "large.db"),
                  "small": str(Path(folder) / "small.db"),
                  "five": str(Path(folder) / "five.db")}
        result["stores"]["sqlite"] = bench_store("sqlite", stores, args.events, args.runs,
                                                 folder, args.log_timeout, say)
        if postgres_wanted(args.postgres):
            say("postgres: starting a throwaway server")
            database = stack.enter_context(postgres_databases())
            stores = {name: database(f"bench_{name}") for name in ("large", "small", "five")}
            result["stores"]["postgres"] = bench_store("postgres", stores, args.events,
                                                       args.runs, folder, args.log_timeout, say)
    result["total_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

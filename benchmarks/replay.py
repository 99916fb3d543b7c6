"""Replay and command-latency benchmark: is Trek as quick on day 3,000 as on day 3?

    python benchmarks/replay.py --events 100000 --json

Builds a realistic N-event campaign through the application layer (see long_campaign.py) and a
100-event one, then measures, several runs side by side in this one process:

floor       reading every stored event row with plain sqlite3 and decoding its JSON, nothing else
rebuild     open the store, Trek.replay() (every read model rebuilt from the log), close
status      Trek.status in a freshly opened store (as one `trek status` does), small vs large
append      one recorded command (harm) in a freshly opened store, small vs large
undo_old    undoing event 7 (`supplies add wealth=1`) of the large campaign, which re-checks every
            later event; it is redone (untimed) after each run so the next run can undo it again

Ratios are medians of the per-run ratios. peak_rss_mb is the process's maximum resident set
(the build included).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from long_campaign import GM, UNDO_OLD_TARGET, build

from tracker.app import Trek
from tracker.registry import RULESETS

SMALL = 100
FIELDS = ("events", "floor_s", "rebuild_s", "rebuild_ratio", "status_small_s", "status_large_s",
          "status_ratio", "append_small_s", "append_large_s", "append_ratio", "undo_old_s",
          "peak_rss_mb")


def floor(path: str) -> int:
    """The raw floor: every stored event row read with plain sqlite3, its JSON decoded."""
    conn = sqlite3.connect(path)
    try:
        cursor = conn.execute(
            "SELECT rowid, originator_id, originator_version, topic, state FROM stored_events "
            "ORDER BY rowid")
        count = 0
        while rows := cursor.fetchmany(2000):
            for row in rows:
                json.loads(row[4])
            count += len(rows)
        return count
    finally:
        conn.close()


def stored_events(path: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM stored_events").fetchone()[0])
    finally:
        conn.close()


def rebuild(path: str) -> None:
    with Trek.open(path, rulesets=RULESETS, gm=GM) as trek:
        trek.replay()


def status(path: str) -> None:
    with Trek.open(path, rulesets=RULESETS, writable=False, gm=GM) as trek:
        trek.status(None)


def append(path: str) -> None:
    with Trek.open(path, rulesets=RULESETS, gm=GM) as trek:
        trek.harm(None, "Kira", 1, 0, "benchmark")


def undo_old(path: str) -> None:
    with Trek.open(path, rulesets=RULESETS, gm=GM) as trek:
        trek.undo(None, UNDO_OLD_TARGET, reason="benchmark")


def redo_old(path: str) -> None:
    with Trek.open(path, rulesets=RULESETS, gm=GM) as trek:
        trek.redo(None, UNDO_OLD_TARGET, reason="benchmark")


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def measure(large: str, small: str, events: int, runs: int,
            say: Callable[[str], None]) -> dict[str, Any]:
    times: dict[str, list[float]] = {name: [] for name in (
        "floor", "rebuild", "status_small", "status_large", "append_small", "append_large",
        "undo_old")}
    os.sync()
    say(f"measuring rebuild against the floor, {runs} runs")
    for _ in range(runs):
        times["floor"].append(timed(lambda: floor(large)))
        times["rebuild"].append(timed(lambda: rebuild(large)))
    # The build and the rebuilds leave hundreds of megabytes for the kernel to write back;
    # flushed now, so that writeback does not land in the fsyncs of the commands timed next.
    os.sync()
    say(f"measuring status and append, small and large, {runs} runs")
    for _ in range(runs):
        times["status_small"].append(timed(lambda: status(small)))
        times["status_large"].append(timed(lambda: status(large)))
    for _ in range(runs):
        times["append_small"].append(timed(lambda: append(small)))
        times["append_large"].append(timed(lambda: append(large)))
    say(f"measuring undo of event {UNDO_OLD_TARGET}, {runs} runs")
    for _ in range(runs):
        times["undo_old"].append(timed(lambda: undo_old(large)))
        redo_old(large)

    def ratio(top: str, bottom: str) -> float:
        return round(statistics.median(
            a / b for a, b in zip(times[top], times[bottom], strict=True)), 3)

    def median(name: str) -> float:
        return round(statistics.median(times[name]), 4)

    with Trek.open(large, rulesets=RULESETS, writable=False, gm=GM) as trek:
        verified = trek.verify_views()["verified"]
    return {
        "events": events,
        "floor_s": median("floor"),
        "rebuild_s": median("rebuild"),
        "rebuild_ratio": ratio("rebuild", "floor"),
        "status_small_s": median("status_small"),
        "status_large_s": median("status_large"),
        "status_ratio": ratio("status_large", "status_small"),
        "append_small_s": median("append_small"),
        "append_large_s": median("append_large"),
        "append_ratio": ratio("append_large", "append_small"),
        "undo_old_s": median("undo_old"),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "runs": runs,
        "stored_events": stored_events(large),
        "verified": verified,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000,
                        help="events in the large campaign (default 10000)")
    parser.add_argument("--keep", metavar="PATH",
                        help="build the large store at PATH (a new SQLite file) and keep it")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (default 5)")
    args = parser.parse_args(argv)
    if args.events < SMALL:
        parser.error(f"--events must be at least {SMALL}, the small campaign's length")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.keep and Path(args.keep).exists():
        parser.error(f"{args.keep} already exists; --keep builds a new store")

    def say(text: str) -> None:
        if not args.json:
            print(text, file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="trek-bench-") as folder:
        large = args.keep or str(Path(folder) / "large.db")
        small = str(Path(folder) / "small.db")
        say(f"building a {args.events}-event campaign at {large}")
        started = time.perf_counter()
        build(large, args.events, in_memory=True,
              progress=lambda n: say(f"  {n} events, {time.perf_counter() - started:.0f}s"))
        built = time.perf_counter() - started
        say(f"built in {built:.1f}s; building the {SMALL}-event campaign command by command")
        build(small, SMALL, in_memory=False)
        result = measure(large, small, args.events, args.runs, say)
        result["build_s"] = round(built, 1)
        result["total_s"] = round(time.perf_counter() - started, 1)
    missing = [field for field in FIELDS if field not in result]
    assert not missing, missing
    if args.json:
        print(json.dumps(result))
    else:
        width = max(map(len, result))
        for key, value in result.items():
            print(f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

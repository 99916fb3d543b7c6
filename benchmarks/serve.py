"""How fast `trek serve` answers: a command through the API on a warm server, beside the same
command as a `trek` process, and twenty live streams at once.

    python benchmarks/serve.py            # 30 pairs, 20 streams, a table
    python benchmarks/serve.py --json     # the same as one JSON object
    python benchmarks/serve.py --smoke    # 3 pairs, 5 streams: that it runs (CI)

On the demo's small campaign (SQLite in a temporary folder; `--db URL` for another store, which
must be empty), a real `trek serve` process is started and warmed, then, alternately:

api       POST /api/campaigns/SLUG/commands {"argv": ["harm", "Kira", "--health", "1"]}:
          the time from sending the request to having the whole answer
process   `python -m cli harm Kira --health 1 --json`, start to exit

Each is the median of its runs; the ratio is process ÷ api. The target: api ≤ 50 ms.
streams   N players' streams open at once; M events recorded through the API; the slowest
          arrival of any event on any stream (the issue asks for under a second).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from cli.besm_demo import play  # noqa: E402
from cli.bootstrap import bootstrap  # noqa: E402
from tracker.app import Trek  # noqa: E402

RULESETS = bootstrap().registry

GM_KEY = "benchmark-gm-secret-000001"
PLAYER_KEY = "benchmark-players-secret-01"
SLUG = "ashes-road"
TARGET_MS = 50.0
COMMAND = ["harm", "Kira", "--health", "1"]


def environment(db: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env.update(TREK_DB=db, TREK_GM_KEY=GM_KEY, TREK_PLAYER_KEY=PLAYER_KEY, TREK_GM="bench",
               PYTHONPATH=str(ROOT))
    return env


def stream(url: str, opened: threading.Event, arrived: queue.Queue[tuple[int, float]],
           closing: threading.Event) -> None:
    try:
        with httpx.stream("GET", url, timeout=httpx.Timeout(30, read=None)) as response:
            for line in response.iter_lines():
                if line.startswith(":"):
                    opened.set()
                elif line.startswith("data: "):
                    arrived.put((json.loads(line[6:])["seq"], time.perf_counter()))
                if closing.is_set():
                    return
    except httpx.HTTPError:
        return


def measure(db: str, folder: str, runs: int, streams: int, events: int) -> dict[str, Any]:
    env = environment(db)
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", "0",
                               "--no-open"], env=env, cwd=folder, text=True,
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert server.stdout is not None
        base = server.stdout.readline().split(" ", 1)[1].split("/?key=")[0]
        server.stdout.readline()
        url = f"{base}/api/campaigns/{SLUG}/commands"
        headers = {"Authorization": f"Bearer {GM_KEY}"}
        with httpx.Client(headers=headers, timeout=30) as client:
            for _ in range(3):  # warm: the command modules load on the first one
                client.post(url, json={"argv": ["status"]}).raise_for_status()
            api: list[float] = []
            process: list[float] = []
            for _ in range(runs):
                started = time.perf_counter()
                client.post(url, json={"argv": COMMAND}).raise_for_status()
                api.append(time.perf_counter() - started)
                started = time.perf_counter()
                subprocess.run([sys.executable, "-m", "cli", *COMMAND, "--json"], env=env,
                               cwd=folder, check=True, capture_output=True,
                               stdin=subprocess.DEVNULL)
                process.append(time.perf_counter() - started)
            slowest = live(base, client, url, streams, events)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    api_ms = statistics.median(api) * 1000
    process_ms = statistics.median(process) * 1000
    return {"runs": runs, "api_ms": round(api_ms, 1), "process_ms": round(process_ms, 1),
            "ratio": round(process_ms / api_ms, 1), "target_ms": TARGET_MS,
            "met": api_ms <= TARGET_MS, "streams": streams, "events": events,
            "slowest_arrival_ms": round(slowest * 1000, 1)}


def live(base: str, client: httpx.Client, url: str, count: int, events: int) -> float:
    """Open `count` players' streams, record `events` events; the slowest arrival (seconds)."""
    closing = threading.Event()
    readers = []
    for _ in range(count):
        opened = threading.Event()
        arrived: queue.Queue[tuple[int, float]] = queue.Queue()
        threading.Thread(target=stream, daemon=True, args=(
            f"{base}/api/campaigns/{SLUG}/events?key={PLAYER_KEY}", opened, arrived,
            closing)).start()
        if not opened.wait(10):
            raise SystemExit("a stream did not open")
        readers.append(arrived)
    slowest = 0.0
    for _ in range(events):
        answer = client.post(url, json={"argv": COMMAND})
        answer.raise_for_status()
        recorded = time.perf_counter()
        seq = answer.json()[0]["seq"]
        for arrived in readers:
            got, at = arrived.get(timeout=10)
            if got != seq:
                raise SystemExit(f"a stream got event {got}, not {seq}")
            slowest = max(slowest, at - recorded)
    closing.set()
    return slowest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--streams", type=int, default=20)
    parser.add_argument("--events", type=int, default=5)
    parser.add_argument("--db", help="An empty store to use (default: a temporary SQLite file).")
    parser.add_argument("--json", action="store_true", help="Print one JSON object.")
    parser.add_argument("--smoke", action="store_true", help="3 pairs, 5 streams, 2 events.")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.streams, args.events = 3, 5, 2
    with tempfile.TemporaryDirectory(prefix="trek-serve-bench-") as folder:
        db = args.db or str(Path(folder) / "bench.db")
        with Trek.open(db, rulesets=RULESETS, create=True, gm="bench") as trek:
            play(trek)
        result = measure(db, folder, args.runs, args.streams, args.events)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"command through the API (warm server): {result['api_ms']} ms median "
          f"(target ≤ {TARGET_MS:.0f} ms: {'met' if result['met'] else 'NOT met'})")
    print(f"the same as a trek process:            {result['process_ms']} ms median "
          f"({result['ratio']}× the API)")
    print(f"{result['streams']} streams, {result['events']} events: slowest arrival "
          f"{result['slowest_arrival_ms']} ms")


if __name__ == "__main__":
    main()

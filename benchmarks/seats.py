"""How fast a seat's request reaches the GM's page, and the GM's approval every page, on a warm
`trek serve` with eight seats connected.

    python benchmarks/seats.py            # 40 requests, 8 seats
    python benchmarks/seats.py --json     # the same as one JSON object
    python benchmarks/seats.py --smoke    # 4 requests, 2 seats: that it runs (CI)

A BESM campaign (SQLite in a temporary folder; `--db URL` for another store, which must be
empty) with eight characters in an open fight, one seat for each; a real `trek serve` process
is started and warmed. Every page's stream is opened as the pages open it
(`/events?requests=1`, the seat's key or the GM's; the players' page without `requests`): the
GM's, one for each seat and the players'. Then, request after request, each seat in turn:

request   the seat POSTs `encounter move NAME E` (W the next round): the time from sending it
          to the GM's stream delivering an `event: requests` message that holds it pending
approval  the GM POSTs `.../requests/ID/approve`: the time from sending it to each stream
          delivering the move's log entry (the eight seats', the players' and the GM's; one
          figure a stream a request)

Reported as median and p99 of each (target: median ≤ 200 ms). Once every seat has moved, the
GM starts the next round through the API (not timed).
"""

from __future__ import annotations

import argparse
import json
import math
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

GM_KEY = "benchmark-gm-secret-000001"
PLAYER_KEY = "benchmark-players-secret-01"
SLUG = "table"
TARGET_MS = 200.0
NAMES = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal")
# Messages a stream hands on: (what, value, when) with what "requests" (the ids pending then)
# or "entry" (the log entry's seq).
Arrival = tuple[str, Any, float]


def environment(db: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env.update(TREK_DB=db, TREK_GM_KEY=GM_KEY, TREK_PLAYER_KEY=PLAYER_KEY, TREK_GM="bench",
               PYTHONPATH=str(ROOT))
    return env


def build(env: dict[str, str], folder: str, seats: int) -> None:
    """The campaign: `seats` characters in round 1 of an open fight, two squares apart."""
    subprocess.run([sys.executable, "-m", "cli", "init", "Table", "--seed", "3"], env=env,
                   cwd=folder, check=True, capture_output=True, stdin=subprocess.DEVNULL)
    lines = [f"roster add-character {name} --body 6 --mind 4 --soul 4"
             for name in NAMES[:seats]]
    lines.append("encounter start Ford")
    lines += [f"encounter join {name} --at 0,{2 * n}" for n, name in enumerate(NAMES[:seats])]
    lines.append("encounter round")
    subprocess.run([sys.executable, "-m", "cli", "shell"], env=env, cwd=folder, check=True,
                   capture_output=True, input="\n".join(lines) + "\n", text=True)


def listen(url: str, opened: threading.Event, arrived: queue.Queue[Arrival],
           closing: threading.Event) -> None:
    """Read one stream as a page does, handing on each message with when it was read."""
    try:
        with httpx.stream("GET", url, timeout=httpx.Timeout(30, read=None)) as response:
            kind, data = "message", ""
            for line in response.iter_lines():
                if closing.is_set():
                    return
                if line.startswith(":"):
                    opened.set()
                elif line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif line == "" and data:
                    at = time.perf_counter()
                    body = json.loads(data)
                    if kind == "requests":
                        arrived.put(("requests", {r["request"] for r in body["requests"]
                                                  if r["status"] == "pending"}, at))
                    elif kind == "message":
                        arrived.put(("entry", body["seq"], at))
                    kind, data = "message", ""
    except httpx.HTTPError:
        return


def wait_for(arrived: queue.Queue[Arrival], what: str, test: Any, timeout: float = 20) -> float:
    """When the first message of kind `what` that passes `test` was read (others skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        kind, value, at = arrived.get(timeout=max(0.01, deadline - time.monotonic()))
        if kind == what and test(value):
            return at


def quantile(values: list[float], q: float) -> float:
    """The q-quantile by the nearest rank (p99 of fewer than 100 figures is the largest)."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def measure(db: str, folder: str, requests: int, seats: int) -> dict[str, Any]:
    env = environment(db)
    build(env, folder, seats)
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", "0",
                               "--no-open"], env=env, cwd=folder, text=True,
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    closing = threading.Event()
    try:
        assert server.stdout is not None
        base = server.stdout.readline().split(" ", 1)[1].split("/?key=")[0]
        server.stdout.readline()
        api = f"{base}/api/campaigns/{SLUG}"
        gm = httpx.Client(headers={"Authorization": f"Bearer {GM_KEY}"}, timeout=30)
        keys = []
        for name in NAMES[:seats]:
            made = gm.post(f"{api}/seats", json={"seat": name.lower(), "characters": [name]})
            made.raise_for_status()
            keys.append(made.json()["key"])
        for _ in range(3):  # warm: the command modules load on the first one
            gm.post(f"{api}/commands", json={"argv": ["status"]}).raise_for_status()

        def opened_stream(key: str, requests_too: bool) -> queue.Queue[Arrival]:
            arrived: queue.Queue[Arrival] = queue.Queue()
            ready = threading.Event()
            url = f"{api}/events?key={key}" + ("&requests=1" if requests_too else "")
            threading.Thread(target=listen, args=(url, ready, arrived, closing),
                             daemon=True).start()
            if not ready.wait(10):
                raise SystemExit("a stream did not open")
            return arrived

        gm_stream = opened_stream(GM_KEY, True)
        pages = [opened_stream(key, True) for key in keys] + [opened_stream(PLAYER_KEY, False)]
        every = [*pages, gm_stream]
        asked_ms: list[float] = []
        approved_ms: list[float] = []
        seat_clients = [httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=30)
                        for key in keys]
        moved = 0
        round_number = 1
        for n in range(requests):
            turn = n % seats
            if n and turn == 0:
                gm.post(f"{api}/commands", json={"argv": ["encounter", "round"]}
                        ).raise_for_status()
                round_number += 1
                newest = gm.get(f"{api}/status").json()["events"]
                for arrived in every:
                    wait_for(arrived, "entry", lambda seq, s=newest: seq >= s)
            way = "E" if round_number % 2 else "W"
            started = time.perf_counter()
            answer = seat_clients[turn].post(f"{api}/requests", json={
                "argv": ["encounter", "move", NAMES[turn], way]})
            if answer.status_code != 202:
                raise SystemExit(f"request {n + 1} was answered {answer.status_code}: "
                                 f"{answer.text}")
            number = answer.json()["request"]
            shown = wait_for(gm_stream, "requests", lambda pending, i=number: i in pending)
            asked_ms.append((shown - started) * 1000)
            started = time.perf_counter()
            decided = gm.post(f"{api}/requests/{number}/approve")
            if decided.status_code != 200:
                raise SystemExit(f"approval {n + 1} was answered {decided.status_code}: "
                                 f"{decided.text}")
            seq = decided.json()["event"]["seq"]
            for arrived in every:
                at = wait_for(arrived, "entry", lambda got, s=seq: got >= s)
                approved_ms.append((at - started) * 1000)
            moved += 1
        for client in (gm, *seat_clients):
            client.close()
    finally:
        closing.set()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)

    def summary(values: list[float]) -> dict[str, Any]:
        median = statistics.median(values)
        return {"count": len(values), "median_ms": round(median, 1),
                "p99_ms": round(quantile(values, 0.99), 1),
                "max_ms": round(max(values), 1), "met": median <= TARGET_MS}

    return {"seats": seats, "requests": requests, "moved": moved, "streams": len(every),
            "target_ms": TARGET_MS, "request_to_gm": summary(asked_ms),
            "approval_to_pages": summary(approved_ms)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--seats", type=int, default=8, choices=range(1, len(NAMES) + 1))
    parser.add_argument("--db", help="An empty store to use (default: a temporary SQLite file).")
    parser.add_argument("--json", action="store_true", help="Print one JSON object.")
    parser.add_argument("--smoke", action="store_true", help="4 requests, 2 seats.")
    args = parser.parse_args()
    if args.smoke:
        args.requests, args.seats = 4, 2
    with tempfile.TemporaryDirectory(prefix="trek-seats-bench-") as folder:
        db = args.db or str(Path(folder) / "bench.db")
        result = measure(db, folder, args.requests, args.seats)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for label, key in (("a request reaches the GM's stream", "request_to_gm"),
                       ("an approval reaches every stream", "approval_to_pages")):
        row = result[key]
        print(f"{label}: {row['median_ms']} ms median, {row['p99_ms']} ms p99 "
              f"({row['count']} arrivals; target median ≤ {TARGET_MS:.0f} ms: "
              f"{'met' if row['met'] else 'NOT met'})")
    print(f"{result['seats']} seats connected, {result['streams']} streams open, "
          f"{result['moved']} moves asked and approved")


if __name__ == "__main__":
    main()

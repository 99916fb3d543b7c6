"""Commands under load: API clients and command-line writers recording into one store at once.

    python benchmarks/load.py                      # 8 API clients + 2 CLI writers, SQLite
    python benchmarks/load.py --json
    python benchmarks/load.py --postgres --servers 2   # two servers sharing a throwaway
                                                       # PostgreSQL server's database
    python benchmarks/load.py --db postgresql://... --servers 2   # an empty database of yours
    python benchmarks/load.py --smoke              # 2 clients, 1 writer, a few commands (CI)

The demo's small campaign is played into the store (a temporary SQLite file, or `--db`, which
must be empty); `--servers` real `trek serve` processes are started on it and warmed. Then, all
at once, each of `--clients` threads posts `--commands` times

    POST /api/campaigns/SLUG/commands {"argv": ["supplies", "add", "provisions=1"]}

(to the servers in turn), and each of `--writers` threads runs `--cli-commands` times the same
command as a `trek` process (`python -m cli supplies add provisions=1 --json`).

Printed: for the API commands and for the processes, the count, p50 and p99 in milliseconds
(each from sending the request, or spawning the process, to its whole answer or exit), the
errors (an answer that is not 200, a process that does not exit 0), and the events stored
during the run against the commands acknowledged (each command records one event: they must
be equal, and the provisions must have grown by as many).

The API clients are threads of this process, each with one kept-alive connection of the
standard library's `http.client` (TCP_NODELAY, as a browser's): about 0.3 ms of CPU a request,
where an `httpx.Client` took about 2 ms, which on a 2-core machine is taken from the server it
measures and, the clients sharing one GIL, waited for by every other client. `client_cpu_s`
is this process's CPU during the run.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.serve import GM_KEY, RULESETS, SLUG, environment  # noqa: E402
from cli.besm_demo import play  # noqa: E402
from tracker.app import Trek  # noqa: E402

COMMAND = ["supplies", "add", "provisions=1"]
# The targets of the issue: (p50, p99) ms per API command.
TARGETS = {"sqlite": (30.0, 150.0), "postgresql": (50.0, 200.0)}


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile of `values` (seconds) in milliseconds; None for none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(share * len(ordered) + 0.5)))
    return round(ordered[rank - 1] * 1000, 1)


def summary(times: list[float], errors: int) -> dict[str, Any]:
    return {"count": len(times), "errors": errors, "p50_ms": percentile(times, 0.5),
            "p99_ms": percentile(times, 0.99),
            "median_ms": round(statistics.median(times) * 1000, 1) if times else None}


def store_now(db: str) -> tuple[int, int]:
    """The campaign's events and provisions."""
    with Trek.open(db, rulesets=RULESETS, writable=False, gm="bench") as trek:
        status = trek.queries.status(SLUG)
        return int(status["events"]), int(status["supplies"]["provisions"])


class Client:
    """One kept-alive HTTP connection to a server, posting JSON with the GM's secret."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.path = parts.hostname or "127.0.0.1", parts.port, parts.path
        self.conn: http.client.HTTPConnection | None = None

    def post(self, body: Any) -> int:
        """The answer's status, its whole body read; a connection that failed is made anew."""
        data = json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {GM_KEY}", "Content-Type": "application/json"}
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
                self.conn.connect()
                assert self.conn.sock is not None
                self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.conn.request("POST", self.path, body=data, headers=headers)
            answer = self.conn.getresponse()
            answer.read()
            return answer.status
        except (OSError, http.client.HTTPException):
            self.close()
            return 0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def start_server(env: dict[str, str], folder: str) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", "0",
                               "--no-open"], env=env, cwd=folder, text=True,
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert server.stdout is not None
    base = server.stdout.readline().split(" ", 1)[1].split("/?key=")[0]
    server.stdout.readline()
    return server, f"{base}/api/campaigns/{SLUG}/commands"


def run(db: str, folder: str, *, servers: int, clients: int, commands: int, writers: int,
        cli_commands: int) -> dict[str, Any]:
    env = environment(db)
    started = [start_server(env, folder) for _ in range(servers)]
    api: list[float] = []
    cli: list[float] = []
    errors = {"api": 0, "cli": 0}
    # What each failed command said (its last line of stderr), each sentence once.
    told: list[str] = []
    lock = threading.Lock()
    go = threading.Event()

    def client(n: int) -> None:
        http = Client(started[n % servers][1])
        try:
            http.post({"argv": ["status"]})  # warm this connection
            go.wait()
            for _ in range(commands):
                begun = time.perf_counter()
                ok = http.post({"argv": COMMAND}) == 200
                took = time.perf_counter() - begun
                with lock:
                    if ok:
                        api.append(took)
                    else:
                        errors["api"] += 1
        finally:
            http.close()

    def writer() -> None:
        go.wait()
        for _ in range(cli_commands):
            begun = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "cli", *COMMAND, "--json"], env=env,
                                  cwd=folder, capture_output=True, stdin=subprocess.DEVNULL,
                                  check=False)
            took = time.perf_counter() - begun
            with lock:
                if done.returncode == 0:
                    cli.append(took)
                else:
                    errors["cli"] += 1
                    said = (done.stderr.decode(errors="replace").strip().splitlines()
                            or [f"exit {done.returncode}, nothing on stderr"])[-1]
                    if said not in told:
                        told.append(said)

    try:
        for _, url in started:
            warm = Client(url)
            for _ in range(3):  # warm: the command modules load on the first ones
                if warm.post({"argv": COMMAND}) != 200:
                    raise RuntimeError(f"the server at {url} did not record a command")
            warm.close()
        events_before, provisions_before = store_now(db)
        threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
        threads += [threading.Thread(target=writer) for _ in range(writers)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)  # every client connected and warm
        wall, cpu = time.perf_counter(), os.times()
        go.set()
        for thread in threads:
            thread.join()
        wall, ended = time.perf_counter() - wall, os.times()
    finally:
        for server, _ in started:
            server.send_signal(signal.SIGTERM)
        for server, _ in started:
            server.wait(timeout=30)
    events_after, provisions_after = store_now(db)
    acknowledged = len(api) + len(cli)
    kind = "postgresql" if db.startswith("postgresql") else "sqlite"
    p50_target, p99_target = TARGETS[kind]
    result = {
        "store": kind, "servers": servers, "clients": clients, "writers": writers,
        "api": summary(api, errors["api"]), "cli": summary(cli, errors["cli"]),
        "acknowledged": acknowledged, "stored": events_after - events_before,
        "provisions_added": provisions_after - provisions_before,
        "seconds": round(wall, 2),
        "client_cpu_s": round(ended.user - cpu.user + ended.system - cpu.system, 2),
        "target_ms": {"p50": p50_target, "p99": p99_target},
        "failures": told,
    }
    api_p50, api_p99 = result["api"]["p50_ms"], result["api"]["p99_ms"]
    result["met"] = (api_p50 is not None and api_p99 is not None and api_p50 <= p50_target
                     and api_p99 <= p99_target)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", help="An empty store to use (default: a temporary SQLite file).")
    parser.add_argument("--postgres", action="store_true",
                        help="A throwaway PostgreSQL server, started as the tests start one.")
    parser.add_argument("--servers", type=int, default=1)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--commands", type=int, default=25, help="per API client")
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--cli-commands", type=int, default=5, help="per CLI writer")
    parser.add_argument("--json", action="store_true", help="Print one JSON object.")
    parser.add_argument("--smoke", action="store_true",
                        help="2 clients of 3 commands, 1 writer of 1: that it runs.")
    args = parser.parse_args()
    if args.smoke:
        args.clients, args.commands, args.writers, args.cli_commands = 2, 3, 1, 1
    with tempfile.TemporaryDirectory(prefix="trek-load-bench-") as folder, \
            contextlib.ExitStack() as stack:
        db = args.db or str(Path(folder) / "bench.db")
        if args.postgres:
            sys.path.insert(0, str(ROOT / "tests"))
            from pgserver import PgServer

            db = stack.enter_context(PgServer()).create_database("load")
        with Trek.open(db, rulesets=RULESETS, create=True, gm="bench") as trek:
            play(trek)
        result = run(db, folder, servers=args.servers, clients=args.clients,
                     commands=args.commands, writers=args.writers,
                     cli_commands=args.cli_commands)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['clients']} API clients on {result['servers']} server(s) + "
          f"{result['writers']} CLI writers, {result['store']}, {result['seconds']} s")
    for side in ("api", "cli"):
        s = result[side]
        print(f"{side:<4} {s['count']:>5} commands  p50 {s['p50_ms']} ms  p99 {s['p99_ms']} ms"
              f"  errors {s['errors']}")
    target = result["target_ms"]
    print(f"target (API): p50 ≤ {target['p50']:.0f} ms, p99 ≤ {target['p99']:.0f} ms: "
          f"{'met' if result['met'] else 'NOT met'}")
    print(f"events stored {result['stored']}, commands acknowledged {result['acknowledged']}, "
          f"provisions added {result['provisions_added']}")
    for said in result["failures"]:
        print(f"a trek process failed: {said}")


if __name__ == "__main__":
    main()

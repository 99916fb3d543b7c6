"""`trek shell` against separate `trek` processes: the same recording lines, side by side.

    python benchmarks/shell.py            # 100 lines, each way, on a small SQLite campaign
    python benchmarks/shell.py --json
    python benchmarks/shell.py --smoke    # 8 lines each way: a check that it runs (CI)

The campaign (BESM, seeded): one character, 10 provisions, day 1 open. The lines repeat a
cycle of four recording commands, `supplies add provisions=2`, `move E`, `undo` (of the move)
and `supplies spend provisions=1`, so every line records one event and the day's one square is
free again for the next cycle.

The shell: one `trek --json shell` process with its stdin a pipe; each line is written and the
time taken until its JSON answer has come back is that line's time (start-up is counted apart).
The processes: each line as its own `python -m cli --json WORDS`, timed from start to exit, on
a second copy of the same campaign. Both stores must end in the same state, worked out by hand:
provisions 10 + cycles, the party back on 0,0, events 4 + lines.

The modules are byte-compiled first (the machine may set PYTHONDONTWRITEBYTECODE, which would
leave every process compiling them again). Printed: the median line each way (wall clock) and
their ratio, the CPU time of a line each way (for the shell the mean over the lines after the
first, read from /proc: the clock ticks too coarsely to time one line), the shell's start-up,
and the totals.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
CYCLE = (["supplies", "add", "provisions=2"], ["move", "E"], ["undo"],
         ["supplies", "spend", "provisions=1"])
SETUP = (["init", "Shell Bench", "--seed", "7"],
         ["roster", "add-character", "Kira", "--body", "4", "--mind", "3", "--soul", "3"],
         ["supplies", "add", "provisions=10"], ["day", "start"])
TARGET_MS = 30.0


def env_for(db: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREK_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(TREK_DB=db, TREK_GM="bench", COLUMNS="200")
    return env


def trek(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, check=False, timeout=120)


def campaign(folder: Path, name: str) -> dict[str, str]:
    env = env_for(str(folder / name))
    for words in SETUP:
        run = trek(env, *words)
        if run.returncode != 0:
            raise SystemExit(f"setup {words} failed: {run.stderr}")
    return env


def lines_for(count: int) -> list[list[str]]:
    return [CYCLE[i % len(CYCLE)] for i in range(count)]


def read_answer(stdout: IO[str]) -> list[dict[str, Any]]:
    """One line's --json answer: a JSON list, its closing bracket alone on a line."""
    text = []
    while True:
        line = stdout.readline()
        if not line:
            raise SystemExit("the shell ended before answering")
        text.append(line)
        if line.rstrip("\n") == "]":
            events: list[dict[str, Any]] = json.loads("".join(text))
            return events


def through_shell(env: dict[str, str], lines: list[list[str]]
                  ) -> tuple[float, list[float], float]:
    """The shell's start-up (to its first answer, less that line), each line's time and the
    CPU time of a line after the first (the mean: the clock ticks too coarsely for each)."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "cli", "--json", "shell"], env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, bufsize=1)
    assert process.stdin is not None
    assert process.stdout is not None
    times: list[float] = []
    first_sent = 0.0
    cpu_after_first = 0.0
    for i, words in enumerate(lines):
        sent = time.perf_counter()
        if i == 0:
            first_sent = sent
        elif i == 1:
            cpu_after_first = process_cpu(process.pid)
        process.stdin.write(" ".join(words) + "\n")
        process.stdin.flush()
        [event] = read_answer(process.stdout)
        times.append(time.perf_counter() - sent)
        if event["seq"] != len(SETUP) + i + 1:
            raise SystemExit(f"line {i + 1} recorded seq {event['seq']}")
    cpu = (process_cpu(process.pid) - cpu_after_first) / max(len(lines) - 1, 1)
    _, err = process.communicate(timeout=60)
    if process.returncode != 0:
        raise SystemExit(f"the shell ended with {process.returncode}: {err}")
    # The first line also paid for loading the commands and opening the store.
    start_up = first_sent - started + times[0] - statistics.median(times)
    return start_up, times, cpu


def process_cpu(pid: int) -> float:
    """The CPU seconds a running process has used so far (Linux; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def as_processes(env: dict[str, str], lines: list[list[str]]) -> tuple[list[float], list[float]]:
    """Each line's time as its own process, wall and CPU."""
    times, cpus = [], []
    for words in lines:
        before = children_cpu()
        started = time.perf_counter()
        run = trek(env, "--json", *words)
        times.append(time.perf_counter() - started)
        cpus.append(children_cpu() - before)
        if run.returncode != 0:
            raise SystemExit(f"{words} failed: {run.stderr}")
    return times, cpus


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def final_state(env: dict[str, str]) -> tuple[int, dict[str, int], int]:
    status = json.loads(trek(env, "status", "--json").stdout)
    return status["supplies"]["provisions"], status["position"], status["events"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("--smoke", action="store_true", help="8 lines each way (CI)")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    count = 8 if options.smoke else options.lines
    for package in ("tracker", "domain", "projections", "cli"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    lines = lines_for(count)
    with tempfile.TemporaryDirectory() as folder:
        shell_env = campaign(Path(folder), "shell.db")
        process_env = campaign(Path(folder), "processes.db")
        start_up, shell_times, shell_cpu = through_shell(shell_env, lines)
        process_times, process_cpus = as_processes(process_env, lines)
        cycles = count // len(CYCLE)
        expected = (10 + 2 * cycles - cycles, {"x": 0, "y": 0}, len(SETUP) + count)
        for env in (shell_env, process_env):
            if final_state(env) != expected:
                raise SystemExit(f"the store ended at {final_state(env)}, not {expected}")
    shell_ms = statistics.median(shell_times) * 1000
    process_ms = statistics.median(process_times) * 1000
    process_cpu_ms = statistics.median(process_cpus) * 1000
    result = {
        "lines": count,
        "shell_line_ms": round(shell_ms, 1),
        "process_line_ms": round(process_ms, 1),
        "ratio": round(process_ms / shell_ms, 1),
        "shell_line_cpu_ms": round(shell_cpu * 1000, 1),
        "process_line_cpu_ms": round(process_cpu_ms, 1),
        "cpu_ratio": round(process_cpu_ms / (shell_cpu * 1000), 1) if shell_cpu else None,
        "shell_start_up_ms": round(start_up * 1000, 1),
        "shell_total_s": round(start_up + sum(shell_times), 2),
        "processes_total_s": round(sum(process_times), 2),
        "target_ms": TARGET_MS,
        "met": shell_ms <= TARGET_MS,
    }
    if options.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{count} recording lines on a small SQLite campaign (medians per line)")
    print(f"  one `trek shell`:      {shell_ms:7.1f} ms  (start-up {start_up * 1000:.0f} ms, "
          f"total {result['shell_total_s']} s)")
    print(f"  separate processes:    {process_ms:7.1f} ms  (total {result['processes_total_s']} s)")
    print(f"  processes / shell:     {result['ratio']:7.1f}x")
    print(f"  CPU a line: shell {result['shell_line_cpu_ms']} ms (mean), "
          f"process {result['process_line_cpu_ms']} ms (median), ratio {result['cpu_ratio']}")
    print(f"  target <= {TARGET_MS:.0f} ms a line: {'met' if result['met'] else 'NOT met'}")


if __name__ == "__main__":
    main()

"""The everyday-commands benchmark at its smallest, as CI runs it: it must finish, and say true
things.

Nothing here times anything; the numbers are only checked to be there and to make sense.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

# Real `trek` processes (or the benchmarks that time them): left out by -m "not slow".
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {"status", "move", "undo", "log --last 10", "supplies add provisions=1",
            "encounter status", "day start", "--help"}
SMOKE_RULESETS = ("besm", "gurps")
# The rulesets of the smoke run that travel overland; the others have no `trek day start`.
OVERLAND = {"besm"}


def test_the_smoke_run_measures_every_everyday_command_on_each_of_its_rulesets(
        tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "everyday.py"), "--smoke", "--json"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr

    # Exactly one JSON object on stdout.
    result = json.loads(run.stdout)
    assert isinstance(result, dict)
    assert (result["pairs"], result["target"], result["smoke"]) == (1, 3.0, True)
    assert result["rulesets"] == list(SMOKE_RULESETS)
    # Trek's modules were byte-compiled before anything was timed.
    sources = [path for package in ("cli", "domain", "projections", "tracker")
               for path in (ROOT / package).rglob("*.py")]
    assert result["modules_compiled"] == len(sources) > 50
    assert all(Path(importlib.util.cache_from_source(str(path))).exists() for path in sources)

    # Every command on every ruleset: measured, or skipped where the ruleset has no days.
    rows = {(row["command"], row["ruleset"]): row for row in result["rows"]}
    assert len(rows) == len(result["rows"])
    skipped = {(row["command"], row["ruleset"]): row["reason"] for row in result["skipped"]}
    expected_skips = {("day start", ruleset) for ruleset in SMOKE_RULESETS
                      if ruleset not in OVERLAND}
    assert set(skipped) == expected_skips
    for reason in skipped.values():
        assert "no overland rules" in reason
        assert "day" in reason
    assert set(rows) == {(command, ruleset) for command in COMMANDS
                         for ruleset in SMOKE_RULESETS} - expected_skips

    for key, row in rows.items():
        for name in ("a_s", "b_s", "ratio"):
            assert isinstance(row[name], int | float), (key, name)
            assert row[name] > 0, (key, name)
        assert row["target"] == result["target"], key
        # The mark agrees with the figure and its target.
        assert row["met"] is (row["ratio"] <= row["target"]), key
        # One pair: its ratio is its two times' (rounded); with more pairs, a median of ratios
        # is not the ratio of medians, but never far from it.
        assert 0.5 < row["ratio"] / (row["a_s"] / row["b_s"]) < 2, key
        # The libraries' floor ran beside the command in the same rounds.
        assert row["floor_s"] > 0, key
        assert 0.5 < row["floor_ratio"] / (row["a_s"] / row["floor_s"]) < 2, key
        assert row["line"].startswith("trek "), key
    # What each row runs: the round-by-round move is an encounter move, undone untimed.
    assert rows[("move", "besm")]["line"] == "trek move E"
    assert rows[("move", "gurps")]["line"] == "trek encounter move Kira N N"
    for ruleset in SMOKE_RULESETS:
        assert rows[("move", ruleset)]["untimed"]["after_each"] == ["trek undo"]
        assert rows[("undo", ruleset)]["untimed"]["before_each"] == [
            rows[("move", ruleset)]["line"]]
    assert rows[("day start", "besm")]["untimed"] == {
        "before_row": ["trek day end"], "after_each": ["trek undo"],
        "after_row": ["trek day start"]}

    libraries = result["libraries"]
    for name in ("a_s", "b_s", "ratio"):
        assert libraries[name] > 0, name
    assert 0.5 < libraries["ratio"] / (libraries["a_s"] / libraries["b_s"]) < 2
    assert "eventsourcing" in libraries["line"]

    # Nothing was left where the benchmark ran.
    assert list(tmp_path.iterdir()) == []


def test_the_start_up_profile_names_each_stage_and_adds_up(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "startup_profile.py"), "--smoke", "--json",
         "--ruleset", "gurps"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    result = json.loads(run.stdout)
    assert (result["ruleset"], result["runs"]) == ("gurps", 1)
    stages = result["stages_s"]
    assert list(stages) == ["libraries", "trek models", "ruleset", "command line",
                            "the command"]
    assert all(seconds > 0 for seconds in stages.values())
    assert result["total_s"] == sum(stages.values()) + result["yardstick_s"]
    # Trek's own classes were counted (its events alone are dozens of models), and took time.
    assert result["made"]["model_count"] > 20
    assert result["made"]["dataclass_count"] > 0
    assert 0 < result["made"]["models"] < result["total_s"]
    assert list(tmp_path.iterdir()) == []


def test_each_round_turns_the_order_so_no_side_always_runs_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("everyday", ROOT / "benchmarks" / "everyday.py")
    assert spec is not None
    assert spec.loader is not None
    everyday = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "everyday", everyday)
    spec.loader.exec_module(everyday)
    order: list[str] = []

    def side(name: str, seconds: float) -> Callable[[], float]:
        def run() -> float:
            order.append(name)
            return seconds
        return run

    times = everyday.rounds(4, [side("A", 3.0), side("B", 1.0), side("C", 2.0)],
                            lambda: order.append("|"))
    assert "".join(order) == "|ABC|BCA|CAB|ABC"
    assert times == [[3.0] * 4, [1.0] * 4, [2.0] * 4]

"""The benchmark at a small size, as CI runs it: it must finish, and say true things.

Nothing here times anything; the numbers are only checked to be there and to make sense.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pgserver import pg_unavailable_reason
from rulesets import RULESETS

from tracker.app import Trek

# Real `trek` processes (or the benchmarks that time them): left out by -m "not slow".
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ROWS = {"startup": "ratio", "replay": "ratio", "record": "ratio", "undo": "ratio",
        "log": "s", "memory": "MB"}
RUNS = 1


def test_the_benchmark_builds_measures_and_keeps_a_300_event_campaign(tmp_path: Path) -> None:
    kept = tmp_path / "large.db"
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "replay.py"), "--events", "300", "--json",
         "--runs", str(RUNS), "--keep", str(kept)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr

    # Exactly one JSON object on stdout, with every row of every store measured.
    result = json.loads(run.stdout)
    assert isinstance(result, dict)
    assert (result["events"], result["runs"]) == (300, RUNS)
    # Trek's modules were byte-compiled before anything was timed, as an installed Trek's are.
    sources = [path for package in ("cli", "domain", "projections", "tracker")
               for path in (ROOT / package).rglob("*.py")]
    assert result["modules_compiled"] == len(sources) > 50
    assert all(Path(importlib.util.cache_from_source(str(path))).exists() for path in sources)
    expected = {"sqlite"} if pg_unavailable_reason() else {"sqlite", "postgres"}
    assert set(result["stores"]) == expected
    for kind, store in result["stores"].items():
        assert set(store["rows"]) == set(ROWS), kind
        for name, unit in ROWS.items():
            row = store["rows"][name]
            assert row["unit"] == unit, (kind, name)
            fields = ["value", "target"] + (["a_s", "b_s"] if unit == "ratio" else [])
            for field in fields:
                assert isinstance(row[field], int | float), (kind, name, field)
                assert row[field] > 0, (kind, name, field)
            # The mark agrees with the figure and its target.
            assert row["met"] is (row["value"] <= row["target"]), (kind, name)
            assert 1 <= row["runs"] <= 2 * RUNS, (kind, name)
        # A whole Python process holds at least a few MB, and a 300-event replay far less
        # than a gigabyte.
        assert 5 < store["rows"]["memory"]["small_mb"] < 1024, kind
        assert 5 < store["rows"]["memory"]["value"] < 1024, kind
        # Every timed `trek harm` and each `trek undo` and its `trek redo` recorded one event.
        assert store["stored_events"] == 300 + 3 * RUNS, kind
        assert store["verified"] is True, kind

    # The kept SQLite store holds what it reports, counted without Trek.
    conn = sqlite3.connect(kept)
    try:
        stored = conn.execute("SELECT count(*) FROM stored_events").fetchone()[0]
        types = dict(conn.execute(
            "SELECT topic, count(*) FROM stored_events GROUP BY topic").fetchall())
    finally:
        conn.close()
    assert stored == 300 + 3 * RUNS
    # A realistic mix: days of moves, forages, forced marches, night travel, undos, and an
    # ambush fought round by round.
    for kind in ("Moved", "Foraged", "ForcedMarched", "NightTravelled", "DayStarted",
                 "DayEnded"):
        assert types.get(f"domain.besm.events:{kind}", 0) > 0, kind
    for kind in ("EventsCancelled", "EventsRestored", "Harmed"):
        assert types.get(f"domain.events:{kind}", 0) > 0, kind
    for kind in ("EncounterStarted", "CombatantEntered", "RoundStarted", "EncounterEnded"):
        assert types.get(f"domain.encounter:{kind}", 0) > 0, kind
    assert types.get("domain.besm.combat:CombatantMoved", 0) > 0

    # Its read models, rebuilt by the benchmark's last `trek replay`, match the log.
    with Trek.open(str(kept), rulesets=RULESETS, writable=False, gm="test") as trek:
        assert trek.verify_views()["verified"]
        assert trek.queries.status(None)["events"] == stored


def smoke(tmp_path: Path, benchmark: str, timeout: int) -> dict[str, Any]:
    """`benchmarks/BENCHMARK.py --smoke --json` run in tmp_path: its JSON, once it exited 0
    with no traceback."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / benchmark), "--smoke", "--json"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=timeout, check=False)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    result: dict[str, Any] = json.loads(run.stdout)
    return result


@pytest.mark.browser
def test_the_map_table_benchmark_measures_paint_ruler_and_memory(tmp_path: Path) -> None:
    result = smoke(tmp_path, "table.py", 600)
    assert (result["picture_px"], result["tokens"]) == (1024, 10)
    for name in ("first_paint_ms", "picture_drawn_ms", "ruler_per_cell_ms", "ruler_painted_ms",
                 "ruler_per_cell_driver_ms"):
        figures = result[name]
        assert 0 < figures["median"] <= figures["p99"], name
    # Every cell of the drag was answered, in the page and as the driver saw it.
    assert result["ruler_per_cell_ms"]["cells"] == result["ruler_per_cell_driver_ms"]["cells"] == 4
    memory = result["server_memory"]
    assert memory["one_page_mb"] > 0
    assert memory["3_pages_mb"] > 0
    assert memory["growth_mb"] == pytest.approx(memory["3_pages_mb"] - memory["one_page_mb"],
                                                abs=0.11)


def test_the_seats_benchmark_asks_approves_and_times_every_stream(tmp_path: Path) -> None:
    result = smoke(tmp_path, "seats.py", 300)
    # --smoke: 4 requests by 2 seats, every one asked, shown to the GM and approved; the
    # streams are the GM's, one a seat and the players'.
    assert (result["seats"], result["requests"], result["moved"]) == (2, 4, 4)
    assert result["streams"] == 2 + 2
    assert result["request_to_gm"]["count"] == 4
    # Each approval is timed on every stream.
    assert result["approval_to_pages"]["count"] == 4 * 4
    for row in (result["request_to_gm"], result["approval_to_pages"]):
        # Figures that make sense: positive, the median within the p99 within the largest,
        # and the mark agreeing with the median and the target.
        assert 0 < row["median_ms"] <= row["p99_ms"] <= row["max_ms"] < 30_000
        assert row["met"] is (row["median_ms"] <= result["target_ms"] == 200.0)


def test_the_load_benchmark_stores_every_acknowledged_command_once(tmp_path: Path) -> None:
    result = smoke(tmp_path, "load.py", 600)
    # 2 clients of 3 commands and 1 writer of 1, each recording one event and one provision.
    assert (result["api"]["count"], result["cli"]["count"]) == (6, 1)
    assert result["api"]["errors"] == result["cli"]["errors"] == 0
    assert result["acknowledged"] == result["stored"] == result["provisions_added"] == 7
    assert 0 < result["api"]["p50_ms"] <= result["api"]["p99_ms"]
    assert result["met"] == (result["api"]["p50_ms"] <= 30 and result["api"]["p99_ms"] <= 150)

"""The replay benchmark at a small size, as CI runs it: it must finish, and say true things.

Nothing here times anything; the numbers are only checked to be there and to make sense.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tracker.app import Trek
from tracker.registry import RULESETS

ROOT = Path(__file__).resolve().parents[2]
FIELDS = ("events", "floor_s", "rebuild_s", "rebuild_ratio", "status_small_s",
          "status_large_s", "status_ratio", "append_small_s", "append_large_s", "append_ratio",
          "undo_old_s", "peak_rss_mb")


def test_the_benchmark_builds_measures_and_keeps_a_300_event_campaign(tmp_path: Path) -> None:
    kept = tmp_path / "large.db"
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "replay.py"), "--events", "300", "--json",
         "--keep", str(kept)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr

    # Exactly one JSON object on stdout, with every field.
    result = json.loads(run.stdout)
    assert isinstance(result, dict)
    assert set(FIELDS) <= set(result)
    assert result["events"] == 300
    for field in FIELDS[1:]:
        assert isinstance(result[field], int | float), field
        assert result[field] > 0, field
    assert result["peak_rss_mb"] < 1024

    # The kept store holds what it reports, counted without Trek: the 300 events built, then
    # one event for each timed append and each undo and its redo.
    conn = sqlite3.connect(kept)
    try:
        stored = conn.execute("SELECT count(*) FROM stored_events").fetchone()[0]
        types = dict(conn.execute(
            "SELECT topic, count(*) FROM stored_events GROUP BY topic").fetchall())
    finally:
        conn.close()
    runs = result["runs"]
    assert stored == result["stored_events"] == 300 + 3 * runs
    # A realistic mix: days of moves, forages, forced marches, night travel, undos.
    for kind in ("Moved", "Foraged", "ForcedMarched", "NightTravelled", "DayStarted",
                 "DayEnded"):
        assert types.get(f"domain.besm.events:{kind}", 0) > 0, kind
    for kind in ("EventsCancelled", "EventsRestored"):
        assert types.get(f"domain.events:{kind}", 0) > 0, kind

    # Its read models, rebuilt by the benchmark, match the log.
    assert result["verified"] is True
    with Trek.open(str(kept), rulesets=RULESETS, writable=False, gm="test") as trek:
        assert trek.verify_views()["verified"]
        assert trek.status(None)["events"] == stored

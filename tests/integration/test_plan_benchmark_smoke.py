"""benchmarks/plan.py at its quick size: it runs, and what it reports is there and sensible.

Nothing here times anything; the figures are only checked to be present and consistent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Real `trek` processes (or the benchmarks that time them): left out by -m "not slow".
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_the_plan_benchmark_smoke_run_measures_both_rows(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "plan.py"), "--smoke", "--json"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)

    assert result["smoke"] is True
    assert result["modules_compiled"] > 50
    assert set(result["rows"]) == {"target", "heavy"}
    for row in result["rows"].values():
        assert row["trials"] == 500
        assert row["days"] == 10
        for figure in ("plan_s", "import_click_s", "plan_cpu_s", "ratio"):
            assert row[figure] > 0, figure
        shares = list(row["journey"]["arrived_by_day"].values())
        assert len(shares) == 10
        assert shares == sorted(shares)
    assert result["plan_s"] == result["rows"]["target"]["plan_s"]
    assert result["met"] == (result["plan_s"] <= result["target_s"])
    # a ten-day journey: some trials arrive by the tenth day, none on the first
    target = result["rows"]["target"]["journey"]["arrived_by_day"]
    assert target["1"] == 0
    assert target["10"] > 0

"""A few real `trek` processes killed mid-command, on SQLite and PostgreSQL.

benchmarks/crash.py does the killing and checks the store after every kill (it opens, holds
every acknowledged command and nothing half-written, and passes verify and replay --verify);
here it runs a handful of kills as part of the suite. Hundreds are run by hand; their figures
are in docs/reliability.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_killed_commands_never_lose_or_half_write_an_event(db: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "crash.py"), "--kills", "4", "--seed", "3",
         "--db", db, "--json"],
        capture_output=True, text=True, timeout=600, check=False)
    result = json.loads(done.stdout)
    assert result["failures"] == [], result
    assert done.returncode == 0, done.stderr
    assert result["kills"] == 4
    # 1 init + 3 aiming runs + 4 commands between kills, and any killed one that committed.
    assert 8 <= result["events"] <= 12

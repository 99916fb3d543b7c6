"""The README's three-day journey, run line by line through the real `trek` program."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def journey_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block is not None, "the README has a bash journey block"
    lines = []
    for line in block.group(1).splitlines():
        line = line.split("  #")[0].strip()
        if line.startswith("trek "):
            lines.append(line)
    return lines


def trek(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.slow
def test_the_readme_journey_ends_where_the_rules_say(tmp_path: Path) -> None:
    import shlex

    env = {**os.environ, "TREK_DB": str(tmp_path / "ashes.db"), "PYTHONPATH": str(ROOT)}
    for line in journey_lines():
        result = trek(shlex.split(line)[1:], env, ROOT)
        assert result.returncode == 0, (line, result.stderr)
    status = json.loads(trek(["status", "--json"], env, ROOT).stdout)
    # Worked by hand from the README's rolls:
    # day 1 ends at 6,1; day 2 SE is undone, then E to 7,1, night travel (+1), E to 8,1.
    assert status["position"] == {"x": 8, "y": 1}
    assert status["day"] == 3
    assert status["day_open"] is False
    # 4 provisions - 2 for the forced march + 2 from Oren's forage (5 vs 7: 2 points).
    assert status["supplies"] == {"provisions": 4, "fuel": 0, "ammo": 2, "wealth": 0}
    # Dusty lost a level to strain on day 1 and Oren restored it on day 3.
    dusty = status["conveyances"]["Dusty"]
    assert (dusty["level"], dusty["base_level"], dusty["state"]) == (1, 1, "ok")
    log = json.loads(trek(["log", "--json"], env, ROOT).stdout)
    cancelled = [entry for entry in log if entry["cancelled_by"] is not None]
    assert [(e["type"], e["path"][-1]) for e in cancelled] == [("Moved", [7, 2])]
    assert status["events"] == len(log)
    verify = trek(["replay", "--verify", "--json"], env, ROOT)
    assert verify.returncode == 0
    assert json.loads(verify.stdout)["verified"] is True

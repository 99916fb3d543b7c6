"""The README's three-day journey, run line by line through the real `trek` program."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import docpages
import pytest

ROOT = Path(__file__).resolve().parents[2]


def journey_lines(after: str = "## A three-day journey", page: str = "README.md") -> list[str]:
    """The `trek` lines of the first bash block after the heading `after` on `page`."""
    return docpages.trek_lines(page, after)


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
    # The day-1 comment names who rolls for Kessel Pass, and that roll's target.
    [shortcut] = [entry for entry in log if entry["type"] == "ShortcutAttempted"]
    block = docpages.block("README.md", "## A three-day journey")
    comment = " ".join(line.lstrip("# ") for line in block.split("# Day 1", 1)[1]
                       .split("trek day start", 1)[0].splitlines())
    assert f"{shortcut['by']}, the best navigator (target {shortcut['target']} to" in comment
    assert "leads them through Kessel Pass" in comment
    assert "Kira leads" not in comment
    verify = trek(["replay", "--verify", "--json"], env, ROOT)
    assert verify.returncode == 0
    assert json.loads(verify.stdout)["verified"] is True


@pytest.mark.slow
def test_the_readme_walkthrough_fixes_last_sessions_mistake(tmp_path: Path) -> None:
    import shlex

    env = {**os.environ, "TREK_DB": str(tmp_path / "reach.db"), "PYTHONPATH": str(ROOT),
           "TREK_GM": "Sam"}
    lines = journey_lines("## Fixing a mistake from last session", "docs/history.md")
    assert "trek verify" in lines
    for line in lines:
        result = trek(shlex.split(line)[1:], env, ROOT)
        assert result.returncode == 0, (line, result.stderr)

    def read(*args: str) -> Any:
        result = trek([*args, "--json"], env, ROOT)
        assert result.returncode == 0, (args, result.stderr)
        return json.loads(result.stdout)

    # Worked by hand: 1 init, 2-4 roster and supplies, 5 session 1, 6 day start, 7 move N,
    # 8 forage, 9 day end, 10 session end, 11 session 2, 12 undo 9, 13 undo 7, 14 move S,
    # 15 day end. South of 1,1 is 1,2.
    status = read("status")
    assert (status["position"], status["day"], status["day_open"], status["events"]) == (
        {"x": 1, "y": 2}, 1, False, 15)
    # 4 provisions and the forage (5 against 6, Kira's survival target) adds 1.
    assert status["supplies"]["provisions"] == 5
    session_1 = read("log", "--session", "1")
    assert [(e["seq"], e["cancelled_by"]) for e in session_1] == [
        (5, None), (6, None), (7, 13), (8, None), (9, 12), (10, None)]
    [audit] = read("audit", "--session", "2")["sessions"]
    assert [(u["seq"], u["events"][0]["seq"], u["gm"], u["reason"]) for u in audit["undos"]] == [
        (12, 9, "Sam", "reopen day 1 to fix the route"), (13, 7, "Sam", "they took the south road")]
    assert read("status", "--as-of", "10")["position"] == {"x": 1, "y": 0}
    assert {"field": "position", "a": {"x": 1, "y": 0}, "b": {"x": 1, "y": 2}} in read(
        "diff", "10", "now")["changes"]
    assert read("verify")["verified"] is True


@pytest.mark.slow
def test_the_readme_skirmish_runs_and_ends_where_the_rules_say(tmp_path: Path) -> None:
    import shlex

    env = {**os.environ, "TREK_DB": str(tmp_path / "skirmish.db"), "PYTHONPATH": str(ROOT)}
    lines = journey_lines("## A skirmish, round by round")
    end = lines.index("trek encounter end")
    for line in lines[:end]:
        args = [str(tmp_path / a) if a.endswith(".svg") else a for a in shlex.split(line)[1:]]
        result = trek(args, env, ROOT)
        assert result.returncode == 0, (line, result.stderr)
    fight = json.loads(trek(["encounter", "status", "--json"], env, ROOT).stdout)
    assert fight["round"] == 2
    kira, oren = fight["combatants"]["Kira"], fight["combatants"]["Oren"]
    # Kira's round-2 move (W W from 4,0) was cancelled with her first; her first is back.
    assert (kira["position"], kira["moved"], kira["defense_penalty"]) == ({"x": 4, "y": 0}, 0,
                                                                        0)
    # Oren: 0,3 -> 3,3 -> 4,2; prone in round 2, Speed 5 // 2 = 2.
    assert (oren["position"], oren["prone"], oren["speed"]) == ({"x": 4, "y": 2}, True, 2)
    # The README shows this picture: it is the one the commands above draw.
    drawn = (tmp_path / "skirmish.svg").read_text(encoding="utf-8")
    committed = ROOT / "docs" / "images" / "skirmish.svg"
    if os.environ.get("TREK_REDRAW_DOCS"):
        committed.write_text(drawn, encoding="utf-8")
    assert committed.read_text(encoding="utf-8") == drawn, (
        "docs/images/skirmish.svg is stale: run this test with TREK_REDRAW_DOCS=1")
    assert trek(["encounter", "end"], env, ROOT).returncode == 0

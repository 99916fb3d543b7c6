"""Cypher's events as the log words them: a recorded day's travel line loads this, not the
commands of cli/cypher.py (the registry's entry names both; `CommandLine.summaries` is this
`SUMMARIES`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cli.render import square_text


def _task(d: dict[str, object]) -> str:
    if d.get("roll") is None:
        return "no roll"
    outcome = "success" if d.get("success") else "failure"
    return f"difficulty {d['difficulty']}, rolled {d['roll']} vs {d['target']}: {outcome}"


def _moved(d: dict[str, object]) -> str:
    path, planned = d["path"], d["planned"]
    assert isinstance(path, list)
    assert isinstance(planned, list)
    stopped = "" if len(path) == len(planned) else (
        f", stopped short of {square_text(planned[-1])}")
    return (f"{d['name']} makes a {d['action']} move {square_text(path[0])} → "
            f"{square_text(path[-1])} ({d['cost']} ft, {_task(d)}{stopped})")


def _pushed(d: dict[str, object]) -> str:
    path = d["path"]
    assert isinstance(path, list)
    drift = d.get("drifting")
    after = (f", drifting {drift['direction']} {drift['feet']} ft a round"
             if isinstance(drift, dict) else (", landed" if d.get("success") else ""))
    return (f"{d['name']} pushes off {d['direction']} for {d['feet']} ft "
            f"{square_text(path[0])} → {square_text(path[-1])} ({_task(d)}{after})")


def _chase(d: dict[str, object]) -> str:
    state = d["chase"]
    assert isinstance(state, dict)
    score = f"{state['successes']} success(es), {state['failures']} failure(s)"
    ending = f", {state['outcome']}" if state.get("outcome") else ""
    if d.get("extended") and d.get("type") == "ChaseStarted":
        return (f"{d['name']} starts an extended chase as {d['role']} (level "
                f"{state['level']})")
    return f"{d['name']} chases (level {state['level']}, {_task(d)}; {score}{ending})"


def _travelled(d: dict[str, Any]) -> str:
    path = d["path"]
    return (f"travelled {square_text(path[0])} → {square_text(path[-1])} "
            f"({d['miles']} miles, {d['spent']} of a day)"
            + (f", in transit toward {square_text(d['toward'])} with {d['still_to_pay']} "
               "of a day to go" if d.get("toward") else ""))


SUMMARIES: dict[str, Callable[[dict[str, Any]], str]] = {
    # A Cypher day is whole fractions of a day: no squares to start with, no rest to report.
    "DayStarted": lambda d: f"day {d['number']} starts",
    "Travelled": _travelled,
    "DayEnded": lambda d: f"day {d['number']} ended",
    # Encounters.
    "CypherMoved": _moved,
    "PushedOff": _pushed,
    "ChaseStarted": _chase,
    "ChaseRolled": _chase,
}

"""BESM's events as the log words them: a recorded move's line loads this, not the commands of
cli/besm.py (the registry's entry names both; `CommandLine.summaries` is this `SUMMARIES`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cli.render import square_text


def _moved(d: dict[str, object]) -> str:
    path = d["path"]
    assert isinstance(path, list)
    how = "shifts" if d.get("shift") else ("moves stealthily" if d.get("stealthy") else "moves")
    penalty = f", defence -{d['defense_penalty']}" if d.get("defense_penalty") else ""
    return (f"{d['name']} {how} {square_text(path[0])} → {square_text(path[-1])} "
            f"({d['cost']} square(s){penalty})")


def _roll(doc: dict[str, Any]) -> str:
    """A roll recorded on the event itself (a list of rolls is worded by its own event)."""
    if "roll" not in doc or isinstance(doc["roll"], list):
        return ""
    dice = doc.get("dice")
    faces = f" ({'+'.join(map(str, dice))})" if dice else " (given)"
    verdict = "success" if doc["success"] else "failure"
    who = f"{doc['by']} rolled " if doc.get("by") else "rolled "
    return f"{who}{doc['roll']}{faces} vs {doc['target']}: {verdict}"


def _day_ended(d: dict[str, Any]) -> str:
    parts = [f"day {d['number']} ended"]
    for name, landed in d.get("strain", {}).items():
        fate = "" if landed["state"] == "ok" else f", {landed['state']}"
        parts.append(f"{name} lost {landed['lost']} level(s) to strain{fate}")
    for name, rest in d.get("recovery", {}).items():
        parts.append(f"{name} rested ({rest['mode']}) +{rest['health']} Health "
                     f"+{rest['energy']} Energy")
    for kind, upkeep in d.get("upkeep", {}).items():
        short = f", short by {upkeep['shortfall']}" if upkeep["shortfall"] else ""
        parts.append(f"upkeep {upkeep['spent']} {kind}{short}")
    return "; ".join(parts)


def _forced(d: dict[str, Any]) -> str:
    rolls = ", ".join(
        f"{r['by']} {r['total']} vs {r['target']} {'ok' if r['success'] else 'strain'}"
        for r in d["strain_rolls"])
    return (f"forced march: +{d['base']} squares for {d['provisions']} provisions and "
            f"{d['fuel']} fuel ({rolls})")


SUMMARIES: dict[str, Callable[[dict[str, Any]], str]] = {
    "DayStarted": lambda d: f"day {d['number']} starts"
                            + (f" with {d['budget']} square(s)" if d.get("budget") else ""),
    "Moved": lambda d: f"moved {square_text(d['path'][0])} → {square_text(d['path'][-1])} "
                       f"({d['cost']} square(s))",
    "ShortcutAttempted": lambda d: f"shortcut {d['name']}: {_roll(d)}"
                                   + (f", +{d['bonus']} squares" if d["success"] else ""),
    "ForcedMarched": _forced,
    "NightTravelled": lambda d: f"night travel: {_roll(d)}, +{d['gained']} squares",
    "Foraged": lambda d: f"forage: {_roll(d)}"
                         + (f", +{d['gained']} {d['take']}" if d["success"] else ""),
    "Repaired": lambda d: f"repair {d['conveyance']}: {_roll(d)}"
                          + (f", +{d['restored']} level(s)" if d["success"] else ""),
    "DayEnded": _day_ended,
    # Encounters.
    "CombatantMoved": _moved,
    "WentProne": lambda d: f"{d['name']} drops prone",
    "StoodUp": lambda d: f"{d['name']} stands up (1 square)",
    "Acted": lambda d: f"{d['name']} acts" + (" (ranged" + (
        f", -{d['ranged_penalty']} for moving)" if d.get("ranged_penalty") else ")")
        if d.get("ranged") else ""),
}

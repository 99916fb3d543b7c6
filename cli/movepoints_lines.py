"""The Move-Point system's events as the log words them: a recorded move's line loads this, not
the commands of cli/movepoints.py (the registry's entry names both; `CommandLine.summaries` is
this `SUMMARIES`)."""

from __future__ import annotations

from typing import Any

from cli.render import square_text


def _mp(value: object) -> str:
    return f"{value} MP"


def _loss(d: dict[str, Any]) -> str:
    lost = d.get("transit_lost")
    if not lost:
        return ""
    risk = ", knockdown risk" if lost.get("knockdown_risk") else ""
    return (f"; progress toward {square_text(lost['to'])} lost ({lost['paid']} of "
            f"{lost['cost']} paid{risk})")


def _broken(d: dict[str, Any]) -> str:
    return "".join(f"; {b['name']} loses progress toward {square_text(b['to'])}"
                   + (" (knockdown risk)" if b.get("knockdown_risk") else "")
                   for b in d.get("broken") or ())


def _moved(d: dict[str, Any]) -> str:
    path = d["path"]
    toward = d.get("toward")
    transit = (d.get("state") or {}).get("in_transit") or {}
    if len(path) > 1:
        how = "flies" if d.get("fly") else "moves"
        text = (f"{d['name']} {how} {square_text(path[0])} → {square_text(path[-1])} "
                f"({_mp(d['cost'])})")
        if toward is not None and d.get("arrived"):
            text += ", arriving at last"
        elif toward is not None:
            text += (f", then in transit toward {square_text(toward)} ({d['paid']} of "
                     f"{transit.get('cost', '?')} paid)")
    else:
        text = (f"{d['name']} puts {_mp(d['cost'])} toward {square_text(toward)}, in transit "
                f"({d['paid']} of {transit.get('cost', '?')} paid)")
    return text + _loss(d) + _broken(d)


def _stepped(d: dict[str, Any]) -> str:
    path = d["path"]
    return (f"{d['name']} steps {square_text(path[0])} → {square_text(path[-1])} "
            "(the free MP, provoking nothing)" + _loss(d) + _broken(d))


def _gained(d: dict[str, Any]) -> str:
    what = "a Move Action" if d["kind"] == "move" else "a Full-Round Action"
    return f"{d['name']} takes {what}: {_mp(d['mp'])} to move with"


def _condition(d: dict[str, Any]) -> str:
    if d["condition"] is None:
        return f"{d['name']} is no longer stunned or immobile"
    lost = f", losing {_mp(d['lost'])}" if d.get("lost") else ""
    return f"{d['name']} is {d['condition']}{lost}" + _loss(d)


def _entered(d: dict[str, Any]) -> str:
    return f"{d['name']} ({d['side']}) enters at {square_text(d['at'])}" + _broken(d)


SUMMARIES = {
    "CombatantEntered": _entered,
    "MovePointsMoved": _moved,
    "MovePointsStepped": _stepped,
    "MovePointsGained": _gained,
    "MovePointsCondition": _condition,
}

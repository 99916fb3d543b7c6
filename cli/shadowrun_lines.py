"""Shadowrun's events as the log words them: a recorded move's line loads this, not the commands
of cli/shadowrun.py (the registry's entry names both; `CommandLine.summaries` is this
`SUMMARIES`)."""

from __future__ import annotations

from typing import Any

from cli.render import square_text


def _moved(d: dict[str, Any]) -> str:
    path = d["path"]
    attacks = d.get("free_attacks") or []
    free = f"; free attack{'s' if len(attacks) > 1 else ''}: {', '.join(attacks)}" \
        if attacks else ""
    return (f"{d['name']} {'runs' if d['gait'] == 'run' else 'walks'} {square_text(path[0])} "
            f"→ {square_text(path[-1])} ({d['cost']} m, TN +{d['tn_modifier']}{free})")


def _sprinted(d: dict[str, Any]) -> str:
    lost = " (lost: the turn's last pass)" if d.get("bonus_lost") else " next pass"
    dice = d.get("dice")
    faces = (f"dice {' '.join(map(str, dice))}" if dice else "counted by the GM")
    return (f"{d['name']} sprints: {d['successes']} success(es) ({faces}, TN {d['target']}), "
            f"Quickness +{d['successes']}{lost}")


SUMMARIES = {
    "MovedInPass": _moved,
    "PassStarted": lambda d: f"Initiative Pass {d['number']} begins",
    "Sprinted": _sprinted,
    "Intercepted": lambda d: f"{d['name']} is intercepted by {d['by']} at "
                             f"{square_text(d['at'])} and moves no more this turn",
}

"""GURPS's events as the log words them: a recorded move's line loads this, not the commands of
cli/gurps.py (the registry's entry names both; `CommandLine.summaries` is this `SUMMARIES`)."""

from __future__ import annotations

from cli.render import square_text


def _moved(d: dict[str, object]) -> str:
    path = d["path"]
    assert isinstance(path, list)
    if d.get("step"):
        return f"{d['name']} steps {square_text(path[0])} → {square_text(path[-1])}"
    how = {"water": "swims", "air": "flies"}.get(str(d.get("mode")), "moves")
    where = (f"{square_text(path[0])} → {square_text(path[-1])}" if len(path) > 1
             else f"in place at {square_text(path[0])}")
    single = ", the one hex always allowed" if d.get("single") else ""
    return (f"{d['name']} {how} {where} ({d['cost']} of {d['mp']} MP{single}), "
            f"facing {d['facing']}")


SUMMARIES = {
    "HexMoved": _moved,
    "PostureChanged": lambda d: f"{d['name']} goes from {d['previous']} to {d['posture']}",
}

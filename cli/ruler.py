"""The fight ruler of the GM's page: the move a click on the battle map would record, measured
before it is recorded.

A ruleset's `CommandLine` may declare a `ruler`: its bands (the kinds of move it knows,
nearest first, each the options that choose it), the unit its cost is counted in, and the notes
its events carry (a penalty, a roll, a free attack). The ruler previews `encounter move NAME`
to the clicked cell under each band in turn and shows the first the rules allow; clicking
again records exactly those words, so what it shows is what gets recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

Notes = Callable[[dict[str, Any]], list[str]]
Budget = Callable[[dict[str, Any]], Any]


def no_notes(event: dict[str, Any]) -> list[str]:
    return []


def no_budget(event: dict[str, Any]) -> Any:
    return None


class Band(NamedTuple):
    """One kind of move: its name on the ruler and the options that choose it."""

    label: str
    options: tuple[str, ...] = ()
    # Whether this kind of move takes directions rather than `--to` (a shift of one square).
    by_steps: bool = False


class Ruler(NamedTuple):
    """How a ruleset's moves are measured on the battle map."""

    bands: tuple[Band, ...] = (Band("move"),)
    # The unit of an event's `cost` (singular, plural).
    unit: tuple[str, str] = ("square", "squares")
    # What the move's cost is out of, read from its event (None: not told).
    budget: Budget = no_budget
    # Whether a combatant may move again after it, so what it leaves is told, and of what
    # ("this pass"); a ruleset of one move a round leaves nothing worth telling.
    leaves: bool = True
    period: str = "this round"
    # Whether the ruleset's moves take `--to`; if not, the straight line's steps are given.
    takes_to: bool = True
    # The band whose refusal is told when every band refuses (its index; -1 the broadest).
    refusal_from: int = -1
    notes: Notes = no_notes


class RulerRefused(Exception):
    """A ruler that cannot be drawn, with the sentence that says why (HTTP 422)."""


def ruler_of(ruleset: str) -> Ruler:
    """The ruleset's ruler, or the plain one (a move, counted in squares)."""
    from cli import render

    declared = render.declared_ruler(ruleset)
    return declared if isinstance(declared, Ruler) else Ruler()


def move_words(ruler: Ruler, band: Band, grid: str, name: str, at: tuple[int, int],
               to: tuple[int, int]) -> list[str]:
    """`encounter move NAME` to `to` in `band`: with `--to`, or the straight line's steps from
    `at`. A name that looks like an option comes after `--`."""
    named = ["--", name] if name.startswith("-") else [name]
    if ruler.takes_to and not band.by_steps:
        return ["encounter", "move", "--to", f"{to[0]},{to[1]}", *band.options, *named]
    from domain.geometry import Square
    from domain.grid import GRIDS

    steps = GRIDS[grid].steps_toward(Square(*at), Square(*to))
    if not steps:
        raise RulerRefused(f"{name} is already at {to[0]},{to[1]}.")
    return ["encounter", "move", *band.options, *named, *steps]


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _amount(value: Any, unit: tuple[str, str]) -> str:
    return f"{_number(value)} {unit[0] if value == 1 else unit[1]}"


def words_of(ruler: Ruler, band: Band, event: dict[str, Any],
             after: dict[str, Any] | None) -> str:
    """What the ruler says of a move: its band, its cost, what it leaves, its ruleset's notes."""
    said = [band.label]
    budget = ruler.budget(event)
    if event.get("cost") is not None:
        out_of = "" if budget is None else f"{_number(event['cost'])} of "
        said.append(out_of + _amount(event["cost"] if budget is None else budget, ruler.unit))
    if ruler.leaves and after is not None and after.get("remaining") is not None:
        said.append(" ".join(filter(None, [_amount(after["remaining"], ruler.unit), "left",
                                           ruler.period])))
    said.extend(ruler.notes(event))
    return " · ".join(said)


Preview = Callable[[list[str]], tuple[int, Any, str, Any]]


def measure(preview: Preview, encounter: dict[str, Any] | None, name: str,
            to: tuple[int, int], band: str | None = None) -> dict[str, Any]:
    """The ruler for NAME to `to`: the first band the rules allow (or the one named `band`),
    with its words (the command a click records), the previewed event, and what the move
    would leave.

    `preview(argv)` previews a command: its exit code, its JSON document, its refusal sentence,
    and the open encounter as the previewed event would leave it.
    """
    if encounter is None:
        raise RulerRefused("No encounter is open; `trek encounter start NAME` starts one.")
    combatants = encounter["combatants"]
    if name not in combatants:
        raise RulerRefused(f"There is no combatant {name!r} in {encounter['name']}.")
    ruler = ruler_of(encounter["ruleset"])
    labels = [b.label for b in ruler.bands]
    if band is not None and band not in labels:
        raise RulerRefused(f"{band!r} is not a kind of move here; the ruler knows "
                           + ", ".join(labels) + ".")
    here = combatants[name]["position"]
    refusals: list[str] = []
    for tone, kind in enumerate(ruler.bands):
        if band is not None and kind.label != band:
            continue
        argv = move_words(ruler, kind, encounter["grid"], name, (here["x"], here["y"]), to)
        code, document, sentence, after = preview(argv)
        if code != 0:
            refusals.append(sentence)
            continue
        event = document[0] if isinstance(document, list) and document else document
        left = after["combatants"].get(name) if isinstance(after, dict) else None
        return {
            "name": name, "to": list(to), "argv": argv, "band": kind.label, "tone": tone,
            "bands": labels, "cost": event.get("cost"),
            "remaining": left.get("remaining") if left else None,
            "path": event.get("path", []), "words": words_of(ruler, kind, event, left),
            "event": event,
        }
    raise RulerRefused(refusals[0] if band is not None else refusals[ruler.refusal_from])

"""`trek seat` and `trek requests`: the players' seats and what they asked for (RULES §14).

Seats and requests live in tables of their own beside the event store (tracker/seats.py); none
of these commands records an event.
"""

from __future__ import annotations

from typing import Any

import click

from cli import render
from cli.context import open_store, settings
from cli.options import TrekCommand, TrekSubgroup, store_options
from tracker.seats import STATUSES, Seats


def _seats(*, writes: bool = True) -> tuple[Seats, str, Any]:
    trek = open_store(writes=writes)
    slug = trek.resolve(settings().campaign)
    return Seats(trek.views, writable=writes), slug, trek


@click.group("seat", cls=TrekSubgroup)
@store_options
def seat() -> None:
    """The players' seats: each one player's key to ask for moves from a phone."""


@seat.command("add", cls=TrekCommand)
@click.argument("name")
@click.option("--character", "characters", multiple=True, required=True, metavar="C",
              help="A roster character the seat plays (again for each one).")
@click.option("--trusted", is_flag=True,
              help="Record the seat's requests at once, without waiting for the GM.")
@store_options
def seat_add(name: str, characters: tuple[str, ...], trusted: bool) -> None:
    """Make seat NAME for one player, playing the characters named; prints its key once."""
    seats, slug, trek = _seats()
    roster = list(trek.queries.status(slug).get("characters", {}))
    made, key = seats.add(slug, name, list(characters), roster=roster, trusted=trusted)
    if settings().json:
        render.emit_json({"seat": made.name, "key": key, "characters": list(made.characters),
                          "trusted": made.trusted})
        return
    render.console.print(f"Seat {made.name} plays {', '.join(made.characters)}"
                         f"{' (trusted)' if made.trusted else ''}.", markup=False)
    render.console.print(f"Key (shown once, kept only as its hash): {key}", markup=False,
                         soft_wrap=True)
    render.console.print(f"The player opens /seat?key={key} on the server `trek serve` "
                         "starts.", markup=False, soft_wrap=True)


@seat.command("list", cls=TrekCommand)
@store_options
def seat_list() -> None:
    """The seats, their characters and trust; never a key."""
    seats, slug, _ = _seats(writes=False)
    listed = [s.document() for s in seats.active(slug)]
    if settings().json:
        render.emit_json(listed)
        return
    if not listed:
        render.console.print("No seats yet; `trek seat add NAME --character C` makes one.",
                             markup=False)
    for shown in listed:
        render.console.print(f"{shown['seat']}  {', '.join(shown['characters'])}"
                             f"{'  (trusted)' if shown['trusted'] else ''}", markup=False)


@seat.command("remove", cls=TrekCommand)
@click.argument("name")
@store_options
def seat_remove(name: str) -> None:
    """Remove seat NAME: its key stops working at once, open pages included."""
    seats, slug, _ = _seats()
    removed = seats.remove(slug, name)
    if settings().json:
        render.emit_json({**removed.document(), "removed": True})
        return
    render.console.print(f"Seat {removed.name} removed; its key no longer works.",
                         markup=False)


@seat.command("trust", cls=TrekCommand)
@click.argument("name")
@click.argument("trusted", type=click.Choice(["on", "off"]), metavar="on|off")
@store_options
def seat_trust(name: str, trusted: str) -> None:
    """Trust seat NAME (its requests are recorded at once) or stop trusting it."""
    seats, slug, _ = _seats()
    changed = seats.trust(slug, name, trusted == "on")
    if settings().json:
        render.emit_json(changed.document())
        return
    render.console.print(f"Seat {changed.name} is {'now' if changed.trusted else 'no longer'} "
                         "trusted.", markup=False)


@click.command("requests", cls=TrekCommand)
@click.option("--status", type=click.Choice(STATUSES), help="Only requests of this status.")
@store_options
def requests(status: str | None) -> None:
    """What the seats asked for, oldest first, and what became of it."""
    seats, slug, _ = _seats(writes=False)
    listed = seats.requests(slug, status=status)
    if settings().json:
        render.emit_json([{key: r[key] for key in
                           ("request", "seat", "argv", "status", "preview", "asked_at",
                            "decided_by", "decided_at", "reason", "event")}
                          for r in listed])
        return
    if not listed:
        render.console.print("No requests" + (f" {status}." if status else "."), markup=False)
    for r in listed:
        asked = " ".join(r["argv"]) if isinstance(r["argv"], list) else str(r["argv"])
        decided = f" by {r['decided_by']}" if r["decided_by"] else ""
        reason = f": {r['reason']}" if r["reason"] else ""
        # Asked when, to the second, in UTC (kept to the microsecond).
        when = str(r["asked_at"])[:19].replace("T", " ")
        render.console.print(f"{r['request']}  {when}  {r['seat']}  {asked}  "
                             f"{r['status']}{decided}{reason}", markup=False)

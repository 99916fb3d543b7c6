"""`trek party`: split the party, merge parties, choose the party in use, list them."""

from __future__ import annotations

from typing import Any

import click

from cli.context import open_store, record, settings
from cli.options import KeyValue, TrekSubgroup, recording_options, store_options
from cli.render import console, emit_json


@click.group(cls=TrekSubgroup)
def party() -> None:
    """Parties: split the party, merge parties, and choose the one commands act on."""


@party.command("split")
@click.argument("name")
@click.option("--member", "members", multiple=True, required=True,
              help="A character, mount or vehicle that leaves with the new party "
                   "(repeatable; whoever shares a mount or vehicle goes together).")
@click.option("--supplies", "supplies", type=KeyValue(0, noun="supply", example="provisions=2"),
              multiple=True, help="Supplies the new party takes, KIND=N (repeatable).")
@click.option("--party", "parent", metavar="NAME",
              help="The party that splits (default: the party in use).")
@recording_options
def party_split(name: str, members: tuple[str, ...], supplies: tuple[tuple[str, int], ...],
                parent: str | None) -> None:
    """Members of the party in use leave it and form party NAME on its square."""
    from domain.commands.parties import SplitParty

    if parent is not None:
        settings().party = parent
    record(SplitParty(name=name, members=tuple(members), supplies=dict(supplies) or None))


@party.command("merge")
@click.argument("name")
@click.option("--into", "into", metavar="OTHER",
              help="The party NAME joins (default: the party in use).")
@recording_options
def party_merge(name: str, into: str | None) -> None:
    """Party NAME joins party OTHER on the same square: one party again, OTHER's name."""
    from domain.commands.parties import MergeParties

    if into is not None:
        settings().party = into
    record(MergeParties(name=name))


@party.command("use")
@click.argument("name")
@store_options
def party_use(name: str) -> None:
    """Make NAME the party that commands act on when they name none (kept in the store; not an
    event). --party NAME still chooses another for one command."""
    result = open_store().use_party(settings().campaign, name)
    if settings().json:
        emit_json(result)
        return
    console.print(f"Commands that name no party now act on party {result['party']}; "
                  "--party NAME still chooses another.", markup=False)


@party.command("list")
@store_options
def party_list() -> None:
    """Every party: its square, day, members and supplies; the party in use is marked."""
    trek = open_store(writes=False)
    status = trek.queries.status(settings().campaign)
    listing: list[dict[str, Any]] = [
        {"name": name, **entry, "in_use": name == status["party"]}
        for name, entry in sorted(status["parties"].items())]
    if settings().json:
        emit_json(listing)
        return
    for entry in listing:
        where = entry["position"]
        day = f"day {entry['day']} ({'open' if entry['day_open'] else 'closed'})"
        mark = "  (in use)" if entry["in_use"] else ""
        console.print(f"{entry['name']}  at {where['x']},{where['y']}, {day}: "
                      f"{', '.join(entry['members']) or 'nobody'}{mark}", markup=False)

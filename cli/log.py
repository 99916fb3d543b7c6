"""`trek log`: the travel log, read a page at a time and shown as it comes.

A module of its own, loaded without the other commands: the first screen of a long log should
show at once, so only the table and the pager are loaded, and the tracker only when the kept
read models cannot say the log alone (projections/kept_log.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import click

from cli import paging, render, spreadsheet
from cli.context import open_store, rulesets, settings
from cli.options import (
    CSV_HELP,
    AtLeastOne,
    EventNumber,
    TrekCommand,
    csv_or_json,
    reads,
    store_options,
)
from cli.reads import Log, of_party
from projections.kept_log import Modelled, read_log
from projections.logpages import LogFilter
from tracker.chain import undamaged


@click.command(cls=TrekCommand)
@click.option("--day", "day_number", type=EventNumber("the day number", low=0),
              help="Only events of day N.")
@click.option("--session", type=EventNumber("the session number"),
              help="Only events of session N (and the `session start` that opened it).")
@click.option("--from", "since", type=AtLeastOne("the seq to start from"),
              metavar="SEQ", help="Only events from seq SEQ on.")
@click.option("--last", type=AtLeastOne("the number of rows to show"), metavar="N",
              help="Only the N newest of the events the other options pick (still oldest "
                   "first).")
@click.option("--csv", "as_csv", is_flag=True, help=CSV_HELP)
@click.option("--jsonl", "as_jsonl", is_flag=True,
              help="Print one JSON object per line (the objects --json lists).")
@click.option("--no-pager", "no_pager", is_flag=True,
              help="Print straight to the terminal instead of through the pager.")
@click.option("--party", metavar="NAME",
              help="Only the events that acted on party NAME (RULES.md §15).")
@store_options
@reads(lambda: Log)
def log(day_number: int | None, session: int | None, since: int | None, last: int | None,
        as_csv: bool, as_jsonl: bool, no_pager: bool, party: str | None) -> None:
    """Every recorded event in order, reversals included.

    --day, --session, --from and --last each narrow the rows and combine: `trek log --session 3
    --last 10` is the ten newest events of session 3. Rows are read and printed as they come,
    so a long log starts showing at once.

    On a terminal the table goes through a pager, as git does: $TREK_PAGER, else $PAGER, else
    `less -FRX` (either set to "" or "cat": none). Piped output, --json, --jsonl and --csv are
    never paged.

    A row recorded for anyone but the GM who started the campaign says so in its note: `by
    NAME` (another GM's `--gm`), `asked by SEAT` (a player's request).

    With --csv: one row per event, columns seq, type, day, session, gm, recorded_at,
    cancelled_by, summary, actor, requested_by.
    """
    csv_or_json(as_csv)
    if as_jsonl and (as_csv or settings().json):
        raise click.UsageError("--jsonl, --json and --csv each choose the output; give one of "
                               "them.")
    # The party an event acted on is in its document, not the log's index: with --party the
    # rows are picked as they are read, and --last picks among those.
    selection = LogFilter(day=day_number, session=session, since=since,
                          last=None if party is not None else last)
    human = not (as_csv or as_jsonl or settings().json)
    # A reversal's row says what it undid or redid: its entry is given those events.
    targets = human or as_csv
    kept = read_log(settings().db, settings().campaign, selection, targets=targets,
                    modelled=_modelled)
    if kept is not None:
        ruleset, events, day, types = kept.ruleset, kept.events, kept.day, kept.types
        entries: Iterable[Mapping[str, Any]] = undamaged(kept.campaign, kept.entries)
        gm: str | None = kept.gm
    else:
        queries = open_store(writes=False).queries
        stream = queries.log_stream(settings().campaign, selection, targets=targets)
        ruleset, events, day, entries = (stream.ruleset, stream.events, stream.day,
                                         stream.entries)
        types = list(rulesets().event_types(ruleset)) if human else []
        # The table names who asked for each event its campaign's own GM did not.
        gm = queries.campaign_gm(settings().campaign) if human else None
    if party is not None:
        entries = of_party(entries, party, last)
    with paging.paged(render.console, enabled=human and not no_pager) as out:
        if as_csv:
            spreadsheet.write(spreadsheet.LOG_COLUMNS,
                              spreadsheet.log_rows(entries, ruleset))
        elif as_jsonl:
            render.emit_json_lines(entries)
        elif settings().json:
            render.emit_json_list(entries)
        else:
            render.print_log(entries, ruleset, out=out, last_seq=events, last_day=day,
                             event_types=types, gm=gm,
                             empty=_nothing_matches(day_number, session, since, party))


def _modelled(ruleset: str) -> Modelled:
    """The documents of the events whose kinds need their models, for the kept log: loads the
    campaign's ruleset (once, on the first such event)."""
    from projections.views import stored_document

    types = rulesets().event_types(ruleset)
    return lambda seq, type_name, state: stored_document(seq, type_name, state, types)



def _nothing_matches(day: int | None, session: int | None, since: int | None,
                     party: str | None = None) -> str:
    """The sentence shown instead of an empty table when the filters pick no event (`--last`
    only picks among what they picked, so it is not named)."""
    given = [f"{flag} {value}" for flag, value in (("--day", day), ("--session", session),
                                                    ("--from", since), ("--party", party))
             if value is not None]
    if not given:
        return "The log holds no event."
    listed = given[0] if len(given) == 1 else f"{', '.join(given[:-1])} and {given[-1]}"
    them = "it" if len(given) == 1 else "them"
    return f"No event matches {listed}; `trek log` without {them} shows every event."

"""A campaign's log entries decoded a page at a time (the pages: projections/logpages.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from domain.events import TrekEvent
from projections.db import Database
from projections.logpages import BATCH, EventStates, LogFilter, stored_pages
from projections.views import LogEntryDocument, log_entries


def stored_entries(db: Database, campaign_id: str, selection: LogFilter, *, before: int,
                   types: Mapping[str, type[TrekEvent]], events: EventStates,
                   cancelled_by: Callable[[int, int | None], int | None],
                   last: int | None = None, batch: int = BATCH
                   ) -> Iterator[LogEntryDocument]:
    """The log documents of `stored_pages`, one page decoded at a time; `cancelled_by(seq,
    stored)` gives each entry's mark (the stored one unless a reversal not yet stored changed
    it)."""
    for page in stored_pages(db, campaign_id, selection, before=before, events=events,
                             last=last, batch=batch):
        for entry in log_entries(page, types):
            entry["cancelled_by"] = cancelled_by(entry["seq"], entry["cancelled_by"])
            yield entry

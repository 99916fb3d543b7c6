"""Reading one open store, for recording (`Trek`) and the reads (`Queries`) alike: a campaign as
the write side loads it, its events by seq, the campaigns it holds, and a store failure told in
one sentence."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any, Literal, TypeVar, cast
from uuid import UUID

from domain.campaign import Campaign, campaign_id
from domain.errors import NotFound, TamperedLog
from domain.events import EventsCancelled, EventsRestored, TrekEvent
from projections import readmodels
from projections.db import Database
from projections.projector import Progress, Projector
from projections.views import event_document
from tracker.application import TrekApplication
from tracker.reversals import Row, StoredCancellations, events_table, reversal_rows
from tracker.stores import Location, store_errors

# The field of a reversal's document that names the events it acts on, by its type.
NAMED_BY = {EventsCancelled.__name__: "cancels", EventsRestored.__name__: "restores"}

# A document a reversal's targets may be added to: a log entry or an event's document.
Doc = TypeVar("Doc", bound=Mapping[str, Any])


class StoreReader:
    """The reads of one open store that recording and the queries share."""

    def __init__(self, location: Location, app: TrekApplication, views: Database,
                 projector: Projector, *, writable: bool) -> None:
        self.location = location
        self.app = app
        self.views = views
        self.projector = projector
        self.writable = writable
        # The events table as the read models' connection reaches it (None: a store in memory;
        # False: not looked up yet).
        self._events_table: str | Literal[False] | None = False

    def store_errors(self) -> AbstractContextManager[None]:
        """Tells a failure of the store in one sentence (see `tracker/stores.py`)."""
        return store_errors(self.location)

    def catch_up(self, progress: Progress | None = None) -> int:
        """Fold the events the read models do not hold yet into them."""
        with self.store_errors():
            return self.projector.catch_up(progress)

    # -- campaigns ----------------------------------------------------------------------------

    def campaigns(self) -> list[dict[str, Any]]:
        return readmodels.campaigns(self.views)

    def no_campaign(self, slug: str) -> NotFound:
        """The refusal for a campaign the store does not hold, naming those it does."""
        known = ", ".join(c["slug"] for c in self.campaigns()) or "none yet"
        return NotFound(f"there is no campaign called {slug!r} (the store has {known})")

    def get(self, cid: UUID, version: int | None = None) -> Campaign:
        """The campaign at `version` (default: the newest) as the write side sees it: its
        latest snapshot up to there, the events since, and the cancellations that stood at the
        snapshot, read from its undos and redos in the event store when first asked."""
        campaign: Campaign = self.app.repository.get(cid, version=version,
                                                     projector_func=_project)
        assert isinstance(campaign, Campaign)
        if campaign.needs_cancellations:
            upto, slug = campaign.kept_at, campaign.slug
            campaign.keep(StoredCancellations(
                upto, lambda: self._reversals(cid, upto), lambda seq: _unreadable(slug, seq)))
        return campaign

    def _reversals(self, cid: UUID, upto: int) -> list[Row]:
        """A campaign's undos and redos up to version `upto`, as stored."""
        with self.store_errors():
            if self._events_table is False:
                self._events_table = events_table(self.app.recorder, self.views)
            return reversal_rows(self.app.recorder, self.views, self._events_table, cid, upto)

    # -- events -------------------------------------------------------------------------------

    def events(self, slug: str, *, gt: int | None = None, lte: int | None = None
               ) -> list[TrekEvent]:
        """A campaign's events with gt < seq <= lte, oldest first."""
        return [e for e in self.app.events.get(campaign_id(slug), gt=gt, lte=lte)
                if isinstance(e, TrekEvent)]

    def events_desc(self, slug: str, lte: int, limit: int = 64) -> list[TrekEvent]:
        """At most `limit` of a campaign's events with seq <= lte, newest first."""
        return [e for e in self.app.events.get(campaign_id(slug), lte=lte, desc=True,
                                               limit=limit) if isinstance(e, TrekEvent)]

    def event(self, slug: str, seq: int) -> TrekEvent:
        events = self.events(slug, gt=seq - 1, lte=seq)
        if not events:
            raise NotFound(f"there is no event {seq}")
        return events[0]

    def with_targets(self, slug: str, docs: Iterable[Doc]) -> Iterator[Doc]:
        """Each document, a reversal's with `targets`: the documents of the events it cancels
        or restores, so that its line can say what they were."""
        for doc in docs:
            key = NAMED_BY.get(doc["type"])
            if key is not None and doc.get(key):
                doc = cast(Doc, {**doc, "targets": [event_document(self.event(slug, seq))
                                                    for seq in doc[key]]})
            yield doc


def _project(campaign: Campaign | None, events: Iterable[Any]) -> Campaign | None:
    """Fold stored events onto a campaign (None: from its start), as the library's
    `project_aggregate` does without its check of each event against a runtime protocol
    (`isinstance` over a `Protocol` walks the protocol's members each time: half the CPU of
    loading a campaign). Every event the mapper gives is a `TrekEvent`, whose `mutate` folds."""
    for event in events:
        campaign = event.mutate(campaign)
    return campaign


def _unreadable(slug: str, seq: int) -> TamperedLog:
    """The refusal for a stored undo or redo a campaign's cancellations cannot read."""
    from tracker.chain import damaged

    return TamperedLog(damaged(slug, seq, "the undo or redo stored there cannot be read any "
                                          "more"))

"""Reading one open store, for recording (`Trek`) and the reads (`Queries`) alike: a campaign as
the write side loads it, its events by seq, the campaigns it holds, and a store failure told in
one sentence."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, suppress
from typing import Any, TypeVar, cast
from uuid import UUID

from domain.campaign import Campaign, campaign_id
from domain.errors import NotFound
from domain.events import EventsCancelled, EventsRestored, TrekEvent
from projections import readmodels
from projections.cancellations import KeptCancellations, Unfolded, unfolded
from projections.db import Database
from projections.projector import Progress, Projector
from projections.views import event_document
from tracker.application import TrekApplication
from tracker.mapper import page_events
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
        latest snapshot up to there, the events since, and its cancellations read by key."""
        campaign: Campaign = self.app.repository.get(cid, version=version)
        assert isinstance(campaign, Campaign)
        if campaign.needs_cancellations:
            upto = campaign.kept_at
            campaign.keep(KeptCancellations(self.views, str(cid), upto,
                                            lambda: self._cancellations_up_to(cid, upto)))
        return campaign

    def _cancellations_up_to(self, cid: UUID, upto: int) -> tuple[bool, Unfolded]:
        """Make ready to read a campaign's cancellations as of version `upto` by key: the read
        models are caught up first when they are behind it (a process may have stopped between
        an append and their update); what they still lack (a read-only command, say) is
        folded from the event store. Returns whether the kept table may be read, and that."""
        reach = self._folded_up_to(cid)
        if reach < upto and self.writable:
            # Should that fail, what the read models lack is folded from the log below (and
            # the command's own update after its append repairs them, see `Trek._finish`).
            with suppress(Exception):
                self.catch_up()
            reach = self._folded_up_to(cid)
        if reach >= upto:
            return True, {}
        return reach >= 0, unfolded(page_events(self.app.events, cid, gt=max(reach, 0),
                                                lte=upto))

    def _folded_up_to(self, cid: UUID) -> int:
        """How many of a campaign's events its read models have folded (-1: they are still in
        an older release's tables)."""
        return readmodels.folded_up_to(self.views, str(cid))

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

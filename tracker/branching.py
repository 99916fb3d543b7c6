"""Branches: a new campaign in the same store whose history is another's up to one event."""

from __future__ import annotations

from collections.abc import Set
from uuid import UUID

from eventsourcing.persistence import EventStore

from domain.campaign import Campaign, Stamp, campaign_id, slugify
from domain.errors import RuleViolation
from domain.events import CampaignStarted
from tracker.mapper import page_events


def branched(events: EventStore[UUID], origin: str, name: str, cut: int,
             stamp: Stamp, taken: Set[str]) -> Campaign:
    """The branch aggregate, its copied history pending: events 1 to `cut` of `origin`
    re-linked into a chain of its own, the first naming where it came from."""
    new_slug = slugify(name)
    if new_slug in taken:
        raise RuleViolation(f"the store already has a campaign called {new_slug!r}; "
                            "pick another name for the branch")
    copied = page_events(events, campaign_id(origin), lte=cut)
    started = next(copied)
    assert isinstance(started, CampaignStarted)
    [at_cut] = page_events(events, campaign_id(origin), gt=cut - 1, lte=cut)
    head = at_cut.event_hash()
    campaign = Campaign.branch(stamp, started, name=name, at=cut, head=head)
    for event in copied:
        campaign.copy_in(event)
    return campaign

"""The one check of a refused command in the domain's tests: it raised the kind of refusal
expected, with the expected words, and left the campaign exactly as it was (its version, its
game and its unsaved events)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from domain.campaign import Campaign
from domain.errors import RuleViolation


def refused(campaign: Campaign, command: Callable[[], object], match: str | None = None,
            kind: type[RuleViolation] = RuleViolation) -> RuleViolation:
    """Run `command`, which must be refused; the refusal, for a closer look."""
    before = (campaign.version, campaign.game.dump(), len(campaign.pending_events))
    with pytest.raises(kind, match=match) as caught:
        command()
    assert (campaign.version, campaign.game.dump(), len(campaign.pending_events)) == before
    return caught.value

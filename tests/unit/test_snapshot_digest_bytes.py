"""A snapshot's digest checked on its stored bytes agrees with the check on its parsed state.

`trek replay` and `trek verify` hash the state's bytes as stored and parse only a snapshot
that does not match; every edit must still reach the general check, which names it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import pytest
from pydantic import ValidationError

from domain.bounds import MAX_SEED
from domain.campaign import Campaign, CampaignSnapshot, snapshot_problem, state_digest
from domain.errors import TamperedLog
from domain.events import CampaignStarted, canonical_bytes
from tracker.chain_reader import _digest_holds

STATE: dict[str, Any] = {
    "slug": "ashes-road", "seed": 7, "name": "Ashes \u00e9 \"Road\"",
    "game": {"supplies": {"provisions": 4}, "travel": {"timestamp": "x", "used": 1}},
    "notes": ["a", "b\\c"], "last_hash": "ab" * 32,
}


def stored(state: dict[str, Any], digest: str | None = None) -> bytes:
    """A snapshot row's state column as Trek writes it (canonical JSON of the snapshot)."""
    return canonical_bytes({"digest": digest or state_digest(state), "state": state,
                            "timestamp": "2024-01-01T18:00:00Z",
                            "topic": "domain.campaign:Campaign"})


def general(data: bytes) -> str | None:
    """The check on the parsed JSON, as `ChainReader._snapshot_problem` makes it."""
    document = json.loads(data)
    return snapshot_problem(10, document["state"], document.get("digest"))


def test_a_snapshot_as_stored_holds_on_its_bytes() -> None:
    data = stored(STATE)
    assert _digest_holds(data) is True
    assert general(data) is None


@pytest.mark.parametrize(("edit", "changed"), [
    (lambda d: d.replace(b'"provisions":4', b'"provisions":4000'), True),
    (lambda d: d.replace(b'"seed":7', b'"seed":8'), True),
    # A second state after the first: the parser keeps the last.
    (lambda d: d.replace(b',"timestamp":"2024', b',"state":{"seed":9},"timestamp":"2024', 1),
     True),
    (lambda d: d.replace(b'"digest":"', b'"digest":"0', 1), True),
    # Not the state: the general check finds nothing wrong, and has the last word.
    (lambda d: d[:-1] + b',"extra":1}', False),
    (lambda d: d.replace(b'"seed":7', b'"seed": 7'), False),
])
def test_an_edited_snapshot_is_left_to_the_general_check(edit: Any, changed: bool) -> None:
    data = edit(stored(STATE))
    assert data != stored(STATE)
    assert _digest_holds(data) is False
    assert (general(data) is not None) is changed


def test_a_digest_of_another_state_does_not_hold() -> None:
    data = stored(STATE, digest=state_digest({**STATE, "seed": 8}))
    assert _digest_holds(data) is False
    assert general(data) == "the snapshot at event 10 was changed after it was taken"


def _snapshot_of(name: str, seed: int) -> CampaignSnapshot:
    """A snapshot of a new campaign called `name`, as `CampaignSnapshot.take` takes it."""
    started = CampaignStarted(originator_id=uuid4(), originator_version=1,
                              timestamp=datetime(2024, 1, 1, tzinfo=UTC), slug="road",
                              name=name, ruleset="besm", seed=seed)
    campaign = Campaign.begin(started)
    campaign.absorb(started)
    return CampaignSnapshot.take(campaign)


def test_a_snapshot_read_back_gives_the_campaign_it_was_taken_of() -> None:
    snapshot = _snapshot_of("Ashes Road", 7)
    campaign = snapshot.mutate(None)
    assert (campaign.slug, campaign.name, campaign.ruleset_name, campaign.seed) == (
        "road", "Ashes Road", "besm", 7)
    assert campaign.version == 1
    assert CampaignSnapshot.take(campaign).state == snapshot.state


def test_a_snapshot_without_a_digest_has_its_fields_checked_again() -> None:
    """A release that took no digest left nothing to say the snapshot is as it was taken: a
    seed beyond the bounds is refused as it is read, as when a campaign is started."""
    taken = _snapshot_of("Ashes Road", 7)
    state = {**taken.state, "seed": MAX_SEED + 1}
    with pytest.raises(ValidationError, match="seed"):
        taken.model_copy(update={"state": state, "digest": None}).mutate(None)
    # With its digest, the same edit is refused for the digest.
    with pytest.raises(TamperedLog, match="changed after it was taken"):
        taken.model_copy(update={"state": state}).mutate(None)

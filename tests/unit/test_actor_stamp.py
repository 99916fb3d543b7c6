"""Who a command is recorded for (domain/actors.py): the stamp on every event, stored with it and
covered by its hash; an event without one (stored before actors were stamped) reads as its
GM's own."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from rulesets import RULESETS

from domain.actors import Actor
from domain.campaign import Campaign, Stamp
from domain.commands.sessions import StartSession
from domain.commands.supplies import AddSupplies
from domain.errors import RuleViolation
from domain.events import TrekEvent, canonical_bytes, topic_of
from domain.geometry import Square
from projections.logpages import BOOKKEEPING, actor_of, plain_document
from tracker.mapper import decode_event

AT = datetime(2024, 5, 1, 18, 0, tzinfo=UTC)


def started(stamp: Stamp) -> Campaign:
    campaign = Campaign.start(stamp, name="Ashes Road", ruleset="besm", rulesets=RULESETS,
                              seed=3, game_map=None, at=Square(0, 0))
    campaign.collect_events()
    return campaign


def recorded(stamp: Stamp) -> TrekEvent:
    campaign = started(Stamp("Ana", AT))
    campaign.stamp = stamp
    return campaign.handle(AddSupplies({"provisions": 2}))


def stored(event: TrekEvent) -> dict[str, object]:
    """The event's JSON as a store keeps it."""
    loaded: dict[str, object] = json.loads(canonical_bytes(event.stored_state()))
    return loaded


def test_a_stamp_without_an_actor_records_for_its_gm() -> None:
    campaign = Campaign.start(Stamp("Ana", AT), name="Ashes Road", ruleset="besm",
                              rulesets=RULESETS, seed=3, game_map=None, at=Square(0, 0))
    [start] = campaign.collect_events()
    event = campaign.handle(StartSession())
    for made in (start, event):
        assert (made.gm, made.actor, made.requested_by) == ("Ana", "Ana", None)
        assert made.recorded_for == Actor("Ana")
        # No seat asked: the stored JSON names the actor and holds no `requested_by`.
        assert stored(made)["actor"] == "Ana"
        assert "requested_by" not in stored(made)


def test_an_actor_given_is_stamped_beside_the_gm_of_the_store() -> None:
    event = recorded(Stamp("Ana", AT, actor=Actor.gm("Bob")))
    assert (event.gm, event.actor, event.requested_by) == ("Ana", "Bob", None)
    assert event.recorded_for == Actor("Bob", None)


def test_a_request_is_stamped_with_the_seat_that_asked_and_the_gm_who_approved() -> None:
    event = recorded(Stamp("Ana", AT, actor=Actor.request("mia", approved_by="Bob")))
    assert (event.actor, event.requested_by) == ("Bob", "mia")
    assert event.recorded_for == Actor("Bob", seat="mia")
    assert {k: stored(event)[k] for k in ("gm", "actor", "requested_by")} == {
        "gm": "Ana", "actor": "Bob", "requested_by": "mia"}
    # Bookkeeping, not what the event says: its payload and its log document leave them out.
    assert {"gm", "actor", "requested_by"}.isdisjoint(event.payload())
    document = plain_document(event.seq, "SuppliesAdded", stored(event))
    assert {"gm", "actor", "requested_by"}.isdisjoint(document)


def test_the_log_leaves_out_exactly_the_envelope_an_event_stores() -> None:
    event = recorded(Stamp("Ana", AT, actor=Actor.request("mia", approved_by="Bob")))
    envelope = set(stored(event)) - set(event.payload())
    assert envelope == set(BOOKKEEPING)


def test_the_hash_covers_the_actor_and_the_seat() -> None:
    hashes = {recorded(Stamp("Ana", AT, actor=actor)).event_hash()
              for actor in (None, Actor("Ana"), Actor("Bob"), Actor("Ana", "mia"),
                            Actor("Ana", "leo"))}
    # None and Actor("Ana") stamp the same event; every other actor makes another one.
    assert len(hashes) == 4


def test_an_event_stored_without_an_actor_reads_as_its_gms_and_keeps_its_hash() -> None:
    event = recorded(Stamp("Ana", AT))
    state = stored(event)
    del state["actor"]
    data = canonical_bytes(state)
    topic = topic_of(type(event))
    old = decode_event(type(event), data, event.originator_id, event.seq, topic)
    assert (old.actor, old.requested_by) == (None, None)
    assert old.recorded_for == Actor("Ana")
    assert actor_of(state) == "Ana"
    # Its link is the hash of its row as stored, which the new field does not change.
    reread = decode_event(type(event), data, event.originator_id, event.seq, topic)
    assert old.event_hash() == reread.event_hash() != event.event_hash()


@pytest.mark.parametrize(("actor", "match"), [
    (Actor(""), "the GM name '' is empty"),
    (Actor("Bob\x1b[2J"), "the GM name .* holds a control or invisible character"),
    (Actor("x" * 41), "the GM name .* is 41 characters long; at most 40"),
    (Actor("Bob", "mia=1"), "the seat name 'mia=1' holds '='"),
    (Actor("Bob", " mia"), "the seat name ' mia' starts or ends with a space"),
])
def test_an_actor_is_checked_as_every_name_a_gm_types(actor: Actor, match: str) -> None:
    with pytest.raises(RuleViolation, match=match):
        actor.check()


def test_a_good_actor_passes_its_check() -> None:
    actor = Actor.request("mia", approved_by="Bob")
    assert actor.check() is actor

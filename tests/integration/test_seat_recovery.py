"""An approval left half-done by a server that died (tracker/seats.py `recover`), on memory,
SQLite and PostgreSQL.

The sample campaign (tests/served.py) ends day 3 with the party at 2,1 (status); the GM opens
day 4 (movement base 2, RULES §3), so seat ana's `move E` is legal: one square east, to 3,1."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from rulesets import RULESETS
from test_api_door import GM_KEY, SLUG, sample
from test_seats_api import Table

from tracker.app import Trek
from tracker.opening import MemoryStores
from tracker.seats import APPROVING, STUCK_AFTER, Seats


@pytest.fixture
def table(store: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Table]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TREK_GM", "test-gm")
    memory = MemoryStores()
    sample(store, memory)
    served = Table(store, memory)
    assert served.command(["day", "start"]).status_code == 200
    yield served
    served.close()


def row(table: Table, number: int) -> dict[str, Any]:
    """The request as the store holds it, read afresh (no recovery on the way)."""
    with Trek.open(table.db, rulesets=RULESETS, writable=False, gm="test-gm",
                   memory=table.memory) as trek:
        return Seats(trek.views, writable=False).request(SLUG, number)


def asked_by_ana(table: Table) -> list[dict[str, Any]]:
    return [entry for entry in table.log() if entry["requested_by"] == "ana"]


def test_died_after_recording_the_request_is_approved_with_its_event(
        table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    key = table.add_seat("ana", "Kira")
    number = table.ask(key, ["move", "E"]).json()["request"]
    before = table.log()[-1]["seq"]

    # The server dies between recording the move and marking the request approved.
    def dies(*args: Any, **options: Any) -> bool:
        raise RuntimeError("the server died")

    with monkeypatch.context() as died:
        died.setattr(Seats, "decide", dies)
        with pytest.raises(RuntimeError):
            table.gm(f"requests/{number}/approve")
    assert row(table, number)["status"] == APPROVING
    recorded = asked_by_ana(table)
    assert [(e["seq"], e["type"]) for e in recorded] == [(before + 1, "Moved")]

    # A server started on the store settles it at start-up: approved, with that event.
    restarted = Table(table.db, table.memory)
    with TestClient(restarted.app):
        held = row(table, number)
        assert (held["status"], held["event"]["seq"], held["decided_by"]) == (
            "approved", before + 1, "test-gm")
        # Decided once: a second approval is 409 and records nothing.
        assert restarted.gm(f"requests/{number}/approve").status_code == 409
    assert len(asked_by_ana(table)) == 1
    assert table.log()[-1]["seq"] == before + 1


def test_died_before_recording_the_request_waits_for_the_gm_again(table: Table) -> None:
    key = table.add_seat("ana", "Kira")
    number = table.ask(key, ["move", "E"]).json()["request"]
    at = table.client.get(f"/api/campaigns/{SLUG}/status",
                          headers={"Authorization": f"Bearer {GM_KEY}"}).json()["position"]
    # The claim taken, nothing recorded, written straight into the store as a server that
    # died then leaves it: first a moment ago, then longer ago than STUCK_AFTER.
    with Trek.open(table.db, rulesets=RULESETS, gm="test-gm", memory=table.memory) as trek:
        seats = Seats(trek.views)
        assert seats.claim(SLUG, number, by="test-gm", after=trek.queries.last_seq(SLUG))
    # Just claimed: another server may be recording it now, so it is left as it is, and the
    # GM's approval is told it is being decided.
    listed = table.listed().json()
    assert [(r["request"], r["status"]) for r in listed] == [(number, APPROVING)]
    assert table.gm(f"requests/{number}/approve").status_code == 409
    assert asked_by_ana(table) == []

    long_ago = (datetime.now(UTC) - timedelta(seconds=STUCK_AFTER + 5)).isoformat()
    with (Trek.open(table.db, rulesets=RULESETS, gm="test-gm", memory=table.memory) as trek,
          trek.views.transaction() as cursor):
        cursor.execute("UPDATE trek_requests SET decided_at = ? WHERE campaign = ? AND "
                       "id = ?", (long_ago, SLUG, number))
    # The next read of the queue puts it back to pending, undecided.
    listed = table.listed().json()
    assert [(r["request"], r["status"], r["decided_by"]) for r in listed] == [
        (number, "pending", None)]
    held = row(table, number)
    assert (held["decided_at"], held["event"]) == (None, None)
    # The GM approves it as any other: recorded once, one square east.
    approved = table.gm(f"requests/{number}/approve")
    assert approved.status_code == 200, approved.text
    assert [e["type"] for e in asked_by_ana(table)] == ["Moved"]
    position = table.client.get(f"/api/campaigns/{SLUG}/status",
                                headers={"Authorization": f"Bearer {GM_KEY}"}
                                ).json()["position"]
    assert position == {"x": at["x"] + 1, "y": at["y"]}


def test_an_event_of_the_seat_kept_for_another_request_is_not_taken(table: Table) -> None:
    """A recovery takes only an event of the request's kind recorded after its claim and kept
    for no other request: ana's trusted move recorded before the claim is not it."""
    key = table.add_seat("ana", "Kira", trusted=True)
    assert table.ask(key, ["move", "E"]).json()["status"] == "recorded"
    with Trek.open(table.db, rulesets=RULESETS, gm="test-gm", memory=table.memory) as trek:
        seats = Seats(trek.views)
        seats.trust(SLUG, "ana", False)
        kept = seats.ask(SLUG, "ana", argv=["move", "E"], command=None,
                         preview={"type": "Moved", "name": None})
        # Claimed as if after event 1: every event of the log is after it, ana's own one too.
        assert seats.claim(SLUG, kept["request"], by="test-gm", after=1)
        long_ago = (datetime.now(UTC) - timedelta(seconds=STUCK_AFTER + 5)).isoformat()
        with trek.views.transaction() as cursor:
            cursor.execute("UPDATE trek_requests SET decided_at = ? WHERE campaign = ? AND "
                           "id = ?", (long_ago, SLUG, kept["request"]))
    listed = {r["request"]: r["status"] for r in table.listed().json()}
    assert listed == {1: "recorded", kept["request"]: "pending"}

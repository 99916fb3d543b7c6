"""Seats and requests through the API (RULES §14), on memory, SQLite and PostgreSQL.

The sample campaign (tests/served.py) ends day 3 with Kira and Oren in the party; the GM opens
day 4 (movement base 2, RULES §3), so a seat's `move E` is legal: one square east."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from rulesets import RULESETS
from test_api_door import GM_KEY, PLAYER_KEY, SLUG, Api, sample

from tracker.app import Trek
from tracker.opening import MemoryStores
from tracker.seats import Seats


class Table(Api):
    def add_seat(self, name: str, *characters: str, trusted: bool = False) -> str:
        with Trek.open(self.db, rulesets=RULESETS, gm="test-gm", memory=self.memory) as trek:
            roster = list(trek.queries.status(SLUG)["characters"])
            _, key = Seats(trek.views).add(SLUG, name, list(characters), roster=roster,
                                           trusted=trusted)
        return key

    def ask(self, key: str, argv: list[str]) -> Any:
        return self.client.post(f"/api/campaigns/{SLUG}/requests", json={"argv": argv},
                                headers={"Authorization": f"Bearer {key}"})

    def gm(self, path: str, body: Any = None) -> Any:
        return self.client.post(f"/api/campaigns/{SLUG}/{path}", json=body or {},
                                headers={"Authorization": f"Bearer {GM_KEY}"})

    def listed(self, key: str = GM_KEY, query: str = "") -> Any:
        return self.client.get(f"/api/campaigns/{SLUG}/requests{query}",
                               headers={"Authorization": f"Bearer {key}"})

    def log(self, key: str = GM_KEY) -> list[dict[str, Any]]:
        answer = self.client.get(f"/api/campaigns/{SLUG}/log",
                                 headers={"Authorization": f"Bearer {key}"})
        assert answer.status_code == 200, answer.text
        return list(answer.json())


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


def test_an_untrusted_seat_asks_and_the_gm_approves(table: Table) -> None:
    key = table.add_seat("ana", "Kira")
    before = table.log()[-1]["seq"]
    at = table.client.get(f"/api/campaigns/{SLUG}/status",
                          headers={"Authorization": f"Bearer {GM_KEY}"}).json()["position"]
    asked = table.ask(key, ["move", "E"])
    assert asked.status_code == 202, asked.text
    body = asked.json()
    assert body["status"] == "pending"
    assert body["preview"]["type"] == "Moved"
    # Nothing recorded while it waits.
    assert table.log()[-1]["seq"] == before
    pending = table.listed(query="?status=pending").json()
    assert [(r["request"], r["seat"], r["argv"], r["status"]) for r in pending] == [
        (body["request"], "ana", ["move", "E"], "pending")]
    assert set(pending[0]) >= {"request", "seat", "argv", "status", "preview", "asked_at"}

    approved = table.gm(f"requests/{body['request']}/approve")
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "approved"
    event = approved.json()["event"]
    assert event["seq"] == before + 1
    newest = table.log()[-1]
    assert (newest["seq"], newest["requested_by"], newest["actor"]) == (before + 1, "ana",
                                                                        "test-gm")
    status = table.client.get(f"/api/campaigns/{SLUG}/status",
                              headers={"Authorization": f"Bearer {GM_KEY}"}).json()
    assert status["position"] == {"x": at["x"] + 1, "y": at["y"]}
    # Decided once: a second decision of either kind is 409, and nothing more is recorded.
    assert table.gm(f"requests/{body['request']}/approve").status_code == 409
    assert table.gm(f"requests/{body['request']}/reject", {"reason": "no"}).status_code == 409
    assert table.log()[-1]["seq"] == before + 1
    # The seat reads its own requests, decided.
    mine = table.listed(key).json()
    assert [(r["request"], r["status"]) for r in mine] == [(body["request"], "approved")]


def test_a_trusted_seat_is_recorded_at_once(table: Table) -> None:
    key = table.add_seat("bo", "Oren", trusted=True)
    before = table.log()[-1]["seq"]
    asked = table.ask(key, ["move", "E"])
    assert asked.status_code == 200, asked.text
    assert asked.json()["status"] == "recorded"
    assert asked.json()["event"]["seq"] == before + 1
    assert table.log()[-1]["requested_by"] == "bo"
    assert table.listed().json()[0]["status"] == "recorded"


def test_refusals(table: Table) -> None:
    key = table.add_seat("ana", "Kira")
    other = table.add_seat("bo", "Oren")
    before = table.log()[-1]["seq"]
    # Another's character, or a command no seat may ask for: 403.
    assert table.ask(key, ["encounter", "move", "Oren", "E"]).status_code == 403
    assert table.ask(key, ["day", "end"]).status_code == 403
    assert table.ask(key, ["undo"]).status_code == 403
    # The players' key and the GM's do not ask.
    assert table.ask(PLAYER_KEY, ["move", "E"]).status_code == 403
    # The rules refuse it now: 422, nothing kept.
    refused = table.ask(key, ["move", "N", "N", "N", "N", "N"])
    assert refused.status_code == 422, refused.text
    assert table.listed().json() == []
    # Paused: 403 for every seat; resumed, asked again.
    assert table.gm("table", {"paused": True}).json() == {"paused": True}
    paused = table.ask(other, ["move", "E"])
    assert paused.status_code == 403
    assert "paused" in paused.json()["error"]
    assert table.gm("table", {"paused": False}).status_code == 200
    assert table.ask(other, ["move", "E"]).status_code == 202
    # A seat may not decide.
    assert table.client.post(f"/api/campaigns/{SLUG}/requests/1/approve", json={},
                             headers={"Authorization": f"Bearer {key}"}).status_code == 403
    assert table.log()[-1]["seq"] == before


def test_approval_after_the_campaign_changed_is_stale(table: Table) -> None:
    key = table.add_seat("ana", "Kira")
    number = table.ask(key, ["move", "E"]).json()["request"]
    # The GM ends the day: no move is legal until the next starts.
    assert table.command(["day", "end"]).status_code == 200
    before = table.log()[-1]["seq"]
    stale = table.gm(f"requests/{number}/approve")
    assert stale.status_code == 422
    assert stale.json()["error"]
    assert table.listed().json()[0]["status"] == "stale"
    assert table.log()[-1]["seq"] == before
    assert table.gm(f"requests/{number}/approve").status_code == 409


def test_a_rejection_keeps_its_reason(table: Table) -> None:
    key = table.add_seat("ana", "Kira")
    number = table.ask(key, ["move", "E"]).json()["request"]
    rejected = table.gm(f"requests/{number}/reject", {"reason": "Wait for Oren"})
    assert rejected.status_code == 200
    mine = table.listed(key).json()
    assert (mine[0]["status"], mine[0]["reason"]) == ("rejected", "Wait for Oren")


def test_a_removed_seat_is_refused_and_its_stream_ends(table: Table) -> None:
    key = table.add_seat("ana", "Kira")
    with Trek.open(table.db, rulesets=RULESETS, gm="t", memory=table.memory) as trek:
        Seats(trek.views).remove(SLUG, "ana")
    assert table.ask(key, ["move", "E"]).status_code == 403
    assert table.client.get(f"/api/campaigns/{SLUG}/status",
                            headers={"Authorization": f"Bearer {key}"}).status_code == 403


def test_a_stream_ends_when_its_seat_is_removed(table: Table) -> None:
    key = table.add_seat("ana", "Kira")
    with table.client.stream("GET", f"/api/campaigns/{SLUG}/events?requests=1&key={key}") as stream:
        lines = stream.iter_lines()
        seen: list[str] = []
        for line in lines:
            seen.append(line)
            if line.startswith("event: requests"):
                break
        with Trek.open(table.db, rulesets=RULESETS, gm="t", memory=table.memory) as trek:
            Seats(trek.views).remove(SLUG, "ana")
        rest = list(lines)
    assert "event: ended" in rest


def test_keys_never_reach_the_store(table: Table) -> None:
    key = table.add_seat("ana", "Kira")
    number = table.ask(key, ["move", "E"]).json()["request"]
    table.gm(f"requests/{number}/approve")
    log = json.dumps(table.log())
    assert key not in log
    held = _store_bytes(table)
    assert key.encode() not in held


def _store_bytes(table: Table) -> bytes:
    if table.db.startswith("memory:"):
        with Trek.open(table.db, rulesets=RULESETS, writable=False, memory=table.memory) as t:
            rows = t.views.query("SELECT * FROM trek_seats")
            rows += t.views.query("SELECT * FROM trek_requests")
            return json.dumps([t.queries.log(SLUG), [list(map(str, r)) for r in rows]]).encode()
    if table.db.startswith("postgresql"):
        import psycopg

        with psycopg.connect(table.db) as conn:
            dump = b""
            for (name,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = "
                                        "current_schema()").fetchall():
                for row in conn.execute(f"SELECT * FROM {name}").fetchall():
                    dump += repr(row).encode()
            return dump
    return b"".join(path.read_bytes() for path in Path(table.db).parent.glob("t.db*"))


def test_players_log_has_no_unfogged_map(table: Table) -> None:
    key = table.add_seat("ana", "Kira")
    gm_first = table.log()[0]
    assert gm_first["map"]["rows"]
    for reader in (PLAYER_KEY, key):
        first = table.log(reader)[0]
        assert set(first["map"]) <= {"name", "width", "height", "square_miles"}
        # The map's named path and its hazard's name are the GM's until the party meets them.
        text = json.dumps(first)
        assert "Kessel Pass" not in text
        assert "ley storm" not in text


@pytest.mark.postgres
def test_two_servers_one_decision(pg_url: str, monkeypatch: pytest.MonkeyPatch,
                                  tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TREK_GM", "test-gm")
    memory = MemoryStores()
    sample(pg_url, memory)
    one, two = Table(pg_url, memory), Table(pg_url, memory)
    try:
        assert one.command(["day", "start"]).status_code == 200
        key = one.add_seat("ana", "Kira")
        before = one.log()[-1]["seq"]
        number = one.ask(key, ["move", "E"]).json()["request"]
        assert [r["request"] for r in two.listed(query="?status=pending").json()] == [number]
        assert two.gm(f"requests/{number}/approve").status_code == 200
        assert one.gm(f"requests/{number}/approve").status_code == 409
        assert [e["seq"] for e in one.log() if e["seq"] > before] == [before + 1]
        # The one decision, taken by a conditional update, holds for two claims at once.
        with Trek.open(pg_url, rulesets=RULESETS, gm="t", memory=memory) as trek:
            seats = Seats(trek.views)
            again = seats.ask(SLUG, "ana", argv=["move", "E"], command=None, preview=None)
            claims = [seats.claim(SLUG, again["request"], by="t", after=before + 1)
                      for _ in range(2)]
        assert claims == [True, False]
    finally:
        one.close()
        two.close()


def test_a_client_without_a_key_gets_nothing(table: Table) -> None:
    client: TestClient = table.client
    assert client.get(f"/api/campaigns/{SLUG}/requests").status_code == 401


def test_a_seats_key_may_not_record_undo_or_redo_directly(table: Table) -> None:
    """RULES §14: a seat's key reads and asks; anything else is 403 (a key the server knows,
    refused, not an unknown one: 401), and a seat cannot undo or redo. Nothing is recorded."""
    key = table.add_seat("bo", "Oren", trusted=True)
    assert table.ask(key, ["move", "E"]).status_code == 200
    before = table.log()
    seq = before[-1]["seq"]
    headers = {"Authorization": f"Bearer {key}"}
    for argv in (["undo"], ["redo", str(seq)], ["move", "E"], ["day", "end"]):
        answer = table.client.post(f"/api/campaigns/{SLUG}/commands", json={"argv": argv},
                                   headers=headers)
        assert answer.status_code == 403, (argv, answer.text)
        assert answer.json()["error"] == (
            "Seat bo's key only reads and asks: it asks for its characters' moves and acts "
            f"with POST /api/campaigns/{SLUG}/requests.")
    chosen = table.client.post(f"/api/campaigns/{SLUG}/party", json={"party": "main"},
                               headers=headers)
    assert chosen.status_code == 403, chosen.text
    assert table.log() == before


def test_a_seats_key_reads_the_api_description_as_the_players_key_does(table: Table) -> None:
    """RULES §14: a seat's key reads what the players' key reads, the API's description too."""
    key = table.add_seat("ana", "Kira")
    for tail in ("/api/openapi.json", "/api/docs"):
        assert table.client.get(tail, params={"key": PLAYER_KEY}).status_code == 200
        assert table.client.get(tail, params={"key": key}).status_code == 200, tail
        answer = table.client.get(tail, headers={"Authorization": f"Bearer {key}"})
        assert answer.status_code == 200, tail
    assert (table.client.get("/api/openapi.json", headers={"Authorization": f"Bearer {key}"})
            .json()["paths"]) == (table.client.get("/api/openapi.json",
                                                   params={"key": PLAYER_KEY}).json()["paths"])
    assert table.client.get("/api/docs", params={"key": "wrong"}).status_code == 401

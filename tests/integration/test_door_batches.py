"""Commands that wait at the server's door are recorded together, in one transaction (issue 45):
each decided in turn on the campaign as the ones before it left it, each its own event and
answer; a refused one records nothing and spoils none of the others; a batch whose commit
fails acknowledges none; and two servers on one store store exactly what they acknowledged.
On memory, SQLite and PostgreSQL.

The sample campaign (tests/served.py's three days) has 21 events; each test first sets its
provisions to 2 with an ordinary command, so the figures below are worked out from there
(RULES §5: a spend of more than the party holds is refused)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.persistence import OperationalError
from fastapi.testclient import TestClient
from rulesets import RULESETS

from cli.web.app import ServeConfig, create_app
from tracker.app import Trek
from tracker.opening import MemoryStores

GM_KEY = "gm-secret-0123456789abcdef"
PLAYER_KEY = "players-secret-0123456789"
SLUG = "ashes-road"
HEADERS = {"Authorization": f"Bearer {GM_KEY}"}
URL = f"/api/campaigns/{SLUG}/commands"


def sample(db: str, memory: MemoryStores) -> None:
    from journeys import three_days as play

    with Trek.open(db, rulesets=RULESETS, create=True, gm="demo", memory=memory) as trek:
        play(trek)


def held(db: str, memory: MemoryStores) -> tuple[list[tuple[int, str]], int]:
    """The campaign's log (seq, type) and its provisions, read afresh."""
    with Trek.open(db, rulesets=RULESETS, writable=False, memory=memory) as trek:
        log = [(entry["seq"], entry["type"]) for entry in trek.queries.log(SLUG)]
        return log, int(trek.queries.status(SLUG)["supplies"]["provisions"])


@pytest.fixture
def served(store: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
           ) -> tuple[str, MemoryStores]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TREK_GM", "test-gm")
    memory = MemoryStores()
    sample(store, memory)
    return store, memory


def app_on(db: str, memory: MemoryStores) -> Any:
    return create_app(ServeConfig(db=db, campaign=SLUG, gm_key=GM_KEY, player_key=PLAYER_KEY),
                      memory=memory)


def post_waiting(client: TestClient, app: Any, batch: list[list[str]]) -> list[Any]:
    """Post each command of `batch` from its own thread while the door is held, each waiting
    at the door before the next is sent (so they wait in this order); then let the door go.
    The answers, in the order of `batch`."""
    door = app.state.door
    answers: list[Any] = [None] * len(batch)

    def post(number: int, argv: list[str]) -> None:
        answers[number] = client.post(URL, json={"argv": argv}, headers=HEADERS)

    threads = []
    with door.lock:
        for number, argv in enumerate(batch):
            thread = threading.Thread(target=post, args=(number, argv))
            thread.start()
            threads.append(thread)
            deadline = time.monotonic() + 30
            while len(door._waiting) < number + 1:
                assert time.monotonic() < deadline, "the command never reached the door"
                time.sleep(0.005)
    for thread in threads:
        thread.join(timeout=60)
    return answers


BATCH = [
    ["supplies", "spend", "provisions=3"],  # 2 held: refused
    ["supplies", "add", "provisions=1"],    # 3
    ["supplies", "spend", "provisions=3"],  # 0: possible only after the add before it
    ["supplies", "spend", "provisions=1"],  # none left: refused
    ["supplies", "add", "provisions=5"],    # 5
]


def test_commands_waiting_at_the_door_are_recorded_together_each_in_turn(
        served: tuple[str, MemoryStores], monkeypatch: pytest.MonkeyPatch) -> None:
    db, memory = served
    batches: list[int] = []
    handle_each = Trek.handle_each

    def counted(self: Trek, *args: Any, **kwargs: Any) -> Any:
        answers = handle_each(self, *args, **kwargs)
        batches.append(len(answers))
        return answers

    monkeypatch.setattr(Trek, "handle_each", counted)
    app = app_on(db, memory)
    with TestClient(app) as client:
        assert client.post(URL, json={"argv": ["supplies", "set", "provisions=2"]},
                           headers=HEADERS).status_code == 200
        before, provisions = held(db, memory)
        assert provisions == 2
        batches.clear()
        answers = post_waiting(client, app, BATCH)
    # One batch took all five.
    assert batches == [5]
    assert [answer.status_code for answer in answers] == [422, 200, 200, 422, 200]
    last = before[-1][0]
    # Each recorded command answered with its own event, in the order they came.
    recorded = [answers[n].json()[0] for n in (1, 2, 4)]
    assert [(doc["seq"], doc["type"]) for doc in recorded] == [
        (last + 1, "SuppliesAdded"), (last + 2, "SuppliesSpent"), (last + 3, "SuppliesAdded")]
    for number in (0, 3):
        assert "provisions" in answers[number].json()["error"]
    # The store holds exactly the acknowledged events, and the read models their sum.
    after, provisions = held(db, memory)
    assert after == [*before, *[(doc["seq"], doc["type"]) for doc in recorded]]
    assert provisions == 2 + 1 - 3 + 5


def test_a_batch_whose_commit_fails_acknowledges_none(
        served: tuple[str, MemoryStores], monkeypatch: pytest.MonkeyPatch) -> None:
    db, memory = served
    app = app_on(db, memory)
    with TestClient(app) as client:
        before = held(db, memory)

        def failing(self: Trek, *args: Any, **kwargs: Any) -> None:
            raise OperationalError("disk I/O error")

        monkeypatch.setattr(Trek, "_save", failing)
        answers = post_waiting(client, app, BATCH[1:3])
        assert [answer.status_code for answer in answers] == [422, 422]
        assert all("could not be written" in answer.json()["error"] for answer in answers)
        assert held(db, memory) == before
        monkeypatch.undo()
        # The next command records as ever.
        assert client.post(URL, json={"argv": BATCH[1]}, headers=HEADERS).status_code == 200
    log, provisions = held(db, memory)
    assert (len(log), provisions) == (len(before[0]) + 1, before[1] + 1)


def test_two_servers_on_one_store_store_exactly_what_they_acknowledged(
        served: tuple[str, MemoryStores]) -> None:
    db, memory = served
    before, provisions = held(db, memory)
    apps = [app_on(db, memory), app_on(db, memory)]
    acknowledged: list[dict[str, Any]] = []
    failed: list[int] = []
    lock = threading.Lock()

    def client_of(client: TestClient) -> None:
        for _ in range(5):
            answer = client.post(URL, json={"argv": ["supplies", "add", "provisions=1"]},
                                 headers=HEADERS)
            with lock:
                if answer.status_code == 200:
                    acknowledged.append(answer.json()[0])
                else:
                    failed.append(answer.status_code)

    with TestClient(apps[0]) as first, TestClient(apps[1]) as second:
        threads = [threading.Thread(target=client_of, args=(client,))
                   for client in (first, second) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert failed == []
    assert len(acknowledged) == 30
    after, now = held(db, memory)
    # Every acknowledged event is stored once, at its own seq, and nothing else was stored.
    assert sorted(doc["seq"] for doc in acknowledged) == [seq for seq, _ in after[len(before):]]
    assert after[:len(before)] == before
    assert now == provisions + 30


def test_words_sent_again_are_recorded_and_refused_as_the_first_time(
        served: tuple[str, MemoryStores]) -> None:
    """Words the door has read before go to the recorder from the server's event loop, with
    no worker thread waiting: each still gets its own answer, a refusal the same sentence,
    and the store exactly what was acknowledged."""
    db, memory = served
    app = app_on(db, memory)
    spend = ["supplies", "spend", "provisions=3"]
    add = ["supplies", "add", "provisions=1"]
    door = app.state.door
    kept = door.kept
    from_the_loop: list[list[str]] = []

    def counted(slug: str, argv: list[str]) -> Any:
        awaited = kept(slug, argv)
        if awaited is not None:
            from_the_loop.append(argv)
        return awaited

    door.kept = counted
    with TestClient(app) as client:
        assert client.post(URL, json={"argv": ["supplies", "set", "provisions=2"]},
                           headers=HEADERS).status_code == 200
        before, _ = held(db, memory)
        first = client.post(URL, json={"argv": spend}, headers=HEADERS)
        assert first.status_code == 422  # 2 held
        assert tuple(spend) in app.state.door._read
        again = client.post(URL, json={"argv": spend}, headers=HEADERS)
        assert (again.status_code, again.json()) == (422, first.json())
        assert held(db, memory)[0] == before
        # Read once by the first, the next three come from the event loop, together.
        assert client.post(URL, json={"argv": add}, headers=HEADERS).status_code == 200
        answers = post_waiting(client, app, [add, spend, spend])
        assert [answer.status_code for answer in answers] == [200, 200, 422]
        assert first.json() == {"error": "The party has 2 provisions, not the 3 to spend."}
        assert answers[2].json() == {"error": "The party has 1 provisions, not the 3 to spend."}
    assert from_the_loop == [spend, add, spend, spend]
    after, provisions = held(db, memory)
    last = before[-1][0]
    assert [(seq, kind) for seq, kind in after[len(before):]] == [
        (last + 1, "SuppliesAdded"), (last + 2, "SuppliesAdded"), (last + 3, "SuppliesSpent")]
    assert provisions == 2 + 1 + 1 - 3

"""A split campaign through the API (RULES.md §14, §15), on memory, SQLite and PostgreSQL: a
seat's overland move moves the party its characters travel in, and a command sent as JSON
names its party in a `party` field.

The sample campaign (journeys.three_days) ends day 3 at 7,1, Kira riding Dusty and Oren riding
Bramble (each mount 2 squares a day). The riders (Kira, Dusty) split off (#22); the GM opens
day 4 for the walkers (#23, the party in use, main) and for the riders (#24). Both stand on 7,1,
so a move W is legal for either, one square each: 7,1 -> 6,1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_api_door import GM_KEY, SLUG, sample
from test_seats_api import Table

from tracker.opening import MemoryStores


@pytest.fixture
def split(store: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Table]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TREK_GM", "test-gm")
    memory = MemoryStores()
    sample(store, memory)
    served = Table(store, memory)
    for argv in (["party", "split", "riders", "--member", "Kira", "--member", "Dusty"],
                 ["day", "start"], ["day", "start", "--party", "riders"]):
        answer = served.command(argv)
        assert answer.status_code == 200, (argv, answer.text)
    yield served
    served.close()


def where(table: Table) -> dict[str, tuple[int, int]]:
    status = table.client.get(f"/api/campaigns/{SLUG}/status",
                              headers={"Authorization": f"Bearer {GM_KEY}"}).json()
    return {name: (entry["position"]["x"], entry["position"]["y"])
            for name, entry in status["parties"].items()}


def newest(table: Table) -> dict[str, Any]:
    return table.log()[-1]


def test_a_seat_moves_the_party_its_character_travels_in(split: Table) -> None:
    key = split.add_seat("ana", "Kira")
    asked = split.ask(key, ["move", "W"])
    assert asked.status_code == 202, asked.text
    # Previewed as the riders' move, though the party in use is main.
    assert asked.json()["preview"]["party"] == "riders"
    assert asked.json()["preview"]["path"] == [[7, 1], [6, 1]]
    # The request keeps the party it asked for, so its approval moves the one it previewed.
    [pending] = split.listed(query="?status=pending").json()
    assert pending["argv"] == ["move", "W", "--party", "riders"]
    assert where(split) == {"main": (7, 1), "riders": (7, 1)}
    approved = split.gm(f"requests/{asked.json()['request']}/approve")
    assert approved.status_code == 200, approved.text
    entry = newest(split)
    assert (entry["seq"], entry["type"], entry["party"], entry["requested_by"]) == (
        25, "Moved", "riders", "ana")
    assert where(split) == {"main": (7, 1), "riders": (6, 1)}


def test_a_trusted_seat_of_the_walkers_moves_the_walkers(split: Table) -> None:
    key = split.add_seat("bo", "Oren", trusted=True)
    # The party in use is the riders now: the seat still moves its own character's party.
    assert split.gm("party", {"party": "riders"}).status_code == 200
    asked = split.ask(key, ["move", "W"])
    assert asked.status_code == 200, asked.text
    assert asked.json()["event"]["party"] == "main"
    assert where(split) == {"main": (6, 1), "riders": (7, 1)}


def test_a_seat_in_two_parties_names_one_of_its_own(split: Table) -> None:
    both = split.add_seat("cy", "Kira", "Oren")
    only = split.add_seat("ana", "Kira")
    before = newest(split)["seq"]
    unnamed = split.ask(both, ["move", "W"])
    assert unnamed.status_code == 400, unnamed.text
    assert unnamed.json()["error"] == (
        "Seat cy's characters travel in parties main and riders: name the one that moves "
        "with --party NAME (\"party\" in a command sent as JSON).")
    other = split.ask(only, ["move", "W", "--party", "main"])
    assert other.status_code == 403, other.text
    assert other.json()["error"] == (
        "Seat ana's characters travel in party riders, not in party main; a seat moves only "
        "its own characters' party.")
    assert split.ask(only, ["move", "W", "--party", "scouts"]).status_code == 403
    # Nothing kept, nothing recorded.
    assert split.listed().json() == []
    assert newest(split)["seq"] == before
    named = split.ask(both, ["move", "W", "--party", "main"])
    assert named.status_code == 202, named.text
    assert named.json()["preview"]["party"] == "main"
    assert split.listed().json()[0]["argv"] == ["move", "W", "--party", "main"]


def test_a_seats_command_as_json_names_its_party(split: Table) -> None:
    both = split.add_seat("cy", "Kira", "Oren", trusted=True)
    asked = split.client.post(
        f"/api/campaigns/{SLUG}/requests",
        json={"command": {"type": "Move", "options": {"steps": ["W"]}, "party": "riders"}},
        headers={"Authorization": f"Bearer {both}"})
    assert asked.status_code == 200, asked.text
    assert asked.json()["event"]["party"] == "riders"
    assert where(split) == {"main": (7, 1), "riders": (6, 1)}


def test_a_command_sent_as_json_acts_on_the_party_it_names(split: Table) -> None:
    before = newest(split)["seq"]
    move = {"type": "Move", "options": {"steps": ["W"]}, "party": "riders"}
    previewed = split.post({"command": move, "preview": True})
    assert previewed.status_code == 200, previewed.text
    assert previewed.json()[0]["party"] == "riders"
    assert newest(split)["seq"] == before
    moved = split.post({"command": move})
    assert moved.status_code == 200, moved.text
    assert (moved.json()[0]["seq"], moved.json()[0]["party"]) == (before + 1, "riders")
    assert where(split) == {"main": (7, 1), "riders": (6, 1)}
    # Without `party`: the party in use.
    plain = split.post({"command": {"type": "Move", "options": {"steps": ["E"]}}})
    assert plain.status_code == 200, plain.text
    assert plain.json()[0]["party"] == "main"
    assert where(split) == {"main": (8, 1), "riders": (6, 1)}
    ended = split.post({"command": {"type": "EndDay", "party": "riders"}})
    assert ended.status_code == 200, ended.text
    assert (ended.json()[0]["type"], ended.json()[0]["party"]) == ("DayEnded", "riders")


def test_a_party_field_that_does_not_fit_is_refused_and_records_nothing(split: Table) -> None:
    before = newest(split)["seq"]
    cases = [
        # A party that does not exist: the rules' sentence, naming the parties.
        ({"type": "Move", "options": {"steps": ["W"]}, "party": "scouts"}, 422,
         "There is no party called 'scouts'; the campaign has main, riders."),
        # Not a name.
        ({"type": "Move", "options": {"steps": ["W"]}, "party": ""}, 400,
         "The command's field party is not valid: the name of a party (1 to 400 characters, "
         "no control characters), as `trek party list` shows it."),
        ({"type": "Move", "options": {"steps": ["W"]}, "party": "rid\x1bers"}, 400, None),
        ({"type": "Move", "options": {"steps": ["W"]}, "party": 3}, 400, None),
        # A command that acts on no party has no such field.
        ({"type": "StartSession", "party": "riders"}, 400,
         "The command StartSession has no field party."),
    ]
    for command, status, sentence in cases:
        answer = split.post({"command": command})
        assert answer.status_code == status, (command, answer.text)
        if sentence is not None:
            assert answer.json()["error"] == sentence
    assert newest(split)["seq"] == before
    assert where(split) == {"main": (7, 1), "riders": (7, 1)}


def test_the_openapi_schemas_give_party_to_the_commands_that_act_on_one(split: Table) -> None:
    api = split.client.get("/api/openapi.json",
                           headers={"Authorization": f"Bearer {GM_KEY}"}).json()
    schemas = api["components"]["schemas"]
    for name in ("Move", "StartDay", "EndDay", "Leave", "Rejoin", "AddSupplies",
                 "ForcedMarch", "SplitParty", "MergeParties"):
        assert schemas[name]["properties"]["party"]["type"] == "string", name
        assert "party" not in schemas[name].get("required", []), name
    for name in ("StartSession", "Harm", "Undo", "MoveCombatant", "StartEncounter"):
        assert "party" not in schemas[name]["properties"], name

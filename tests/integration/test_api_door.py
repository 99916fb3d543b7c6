"""The API's one door (issue 41): words are read into a typed command, only the table's
command types reach `Trek.handle`, and whatever acts on files or on the whole store is refused
without running; on memory, SQLite and PostgreSQL.

The sample campaign (tests/served.py) has 21 events, day 3 ended, the party at 7,1 with a
movement base of 2 (RULES §3)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from rulesets import RULESETS

from cli.web.app import ServeConfig, create_app
from tracker.app import Trek
from tracker.opening import MemoryStores

GM_KEY = "gm-secret-0123456789abcdef"
PLAYER_KEY = "players-secret-0123456789"
SLUG = "ashes-road"
SECRET = "TOP-SECRET-LINE-41"


def sample(db: str, memory: MemoryStores) -> None:
    from journeys import three_days as play

    with Trek.open(db, rulesets=RULESETS, create=True, gm="demo", memory=memory) as trek:
        play(trek)


class Api:
    """The server's application in this process, on one store."""

    def __init__(self, db: str, memory: MemoryStores) -> None:
        self.db = db
        self.memory = memory
        self.app = create_app(ServeConfig(db=db, campaign=SLUG, gm_key=GM_KEY,
                                          player_key=PLAYER_KEY), memory=memory)
        self.client = TestClient(self.app)

    def post(self, body: Any) -> Any:
        return self.client.post(f"/api/campaigns/{SLUG}/commands", json=body,
                                headers={"Authorization": f"Bearer {GM_KEY}"})

    def command(self, argv: list[str], preview: bool = False) -> Any:
        return self.post({"argv": argv, "preview": preview})

    def close(self) -> None:
        self.app.state.door.close()
        self.app.state.reads.close()


@pytest.fixture
def api(store: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Api]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TREK_GM", "test-gm")
    memory = MemoryStores()
    sample(store, memory)
    served = Api(store, memory)
    yield served
    served.close()


def what_the_store_holds(api: Api) -> Any:
    """Every campaign and every event of the store, read afresh (for SQLite, with the bytes
    of its file and its write-ahead log; the server's store is opened first, as opening it
    may write)."""
    assert api.command(["status"]).status_code == 200
    with Trek.open(api.db, rulesets=RULESETS, writable=False, memory=api.memory) as trek:
        held: list[Any] = [trek.campaigns()]
        for campaign in trek.campaigns():
            held.append(trek.queries.log(campaign["slug"]))
    if not api.db.startswith(("memory:", "postgresql")):
        for path in sorted(Path(api.db).parent.glob(Path(api.db).name + "*")):
            if path.name.endswith("-shm"):  # the log's index in shared memory, not data
                continue
            held.append((path.name, hashlib.sha256(path.read_bytes()).hexdigest()))
    return held


def files_under(folder: Path) -> dict[str, str]:
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*"))
            if path.is_file() and not path.name.endswith("-shm")}


# The requests that went through before (issue 41), each with what it must answer now: 403
# where the words make a command that is not the table's, 400 where they make none (`map`
# takes no --json of its own).
HOLE = [
    (["--json", "demo", "--keep", "{out}/x.db"], 403),
    (["--", "demo", "--keep", "{out}/y.db"], 403),
    (["--json", "map", "import", "{src}", "--to", "{out}/existing.toml", "--force"], 403),
    (["map", "--json", "import", "{src}", "--to", "{out}/x.toml"], 400),
    (["--json", "map", "import", "{out}/no/such/file", "--to", "{out}/x.toml"], 403),
    (["--json", "init", "Evil Camp"], 403),
    (["--json", "branch", "evil-branch"], 403),
    (["--json", "campaigns", "use", "evil-camp"], 403),
    (["--json", "replay", "--accept-tampering"], 403),
    (["--json", "watch"], 403),
]


def orders(words: list[str]) -> Iterator[list[str]]:
    """The same words in the orders click accepts: --json at every place, with and without
    `--` in front, --preview beside them, and each command's options before its arguments."""
    bare = [word for word in words if word not in ("--json", "--")]
    for at in range(len(bare) + 1):
        yield [*bare[:at], "--json", *bare[at:]]
    yield bare
    yield ["--", *bare]
    yield ["--json", "--", *bare]
    yield [*bare, "--preview"]
    yield ["--preview", *bare]


# Each command with its options moved before its arguments.
OPTIONS_FIRST = [
    ["demo", "--keep", "{out}/z.db", "--json"],
    ["map", "import", "--force", "--to", "{out}/existing.toml", "--json", "{src}"],
    ["map", "import", "--to", "{out}/x.toml", "--", "{src}"],
    ["init", "--json", "--seed", "3", "Evil Camp"],
    ["init", "--map", "{src}", "Evil Camp"],
    ["branch", "--at", "3", "--json", "evil-branch"],
    ["campaigns", "use", "--json", "--", "evil-camp"],
    ["replay", "--accept-tampering", "--json"],
    ["watch", "--json"],
    ["serve", "--port", "0", "--no-open"],
    ["shell", "--keep-going"],
    ["map", "show", "--svg", "{out}/pic.svg", "--json"],
    ["map", "show", "--html", "{out}/page.html"],
    ["log", "--csv"],
    ["audit", "--csv"],
    ["encounter", "start", "Ridge", "--map", "{src}"],
    ["encounter", "show", "--svg", "{out}/fight.svg"],
]


def filled(words: list[str], out: Path, src: Path) -> list[str]:
    return [word.format(out=out, src=src) for word in words]


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, Path]:
    """A folder a request might write to, with a file in it to overwrite, and a file with a
    secret line that a request might read."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "existing.toml").write_text("kept = true\n", encoding="utf-8")
    src = tmp_path / "secret.txt"
    src.write_text(f"{SECRET}\n", encoding="utf-8")
    return out, src


def test_the_file_hole_is_closed_in_every_order_of_the_words(
        api: Api, folder: tuple[Path, Path], tmp_path: Path) -> None:
    out, src = folder
    before, files = what_the_store_holds(api), files_under(tmp_path)
    asked = [(filled(words, out, src), status) for words, status in HOLE]
    for words, _ in HOLE:
        asked += [(filled(order, out, src), None) for order in orders(words)]
    asked += [(filled(words, out, src), 403) for words in OPTIONS_FIRST]
    for words, status in asked:
        response = api.command(words)
        assert response.status_code in (400, 403), (words, response.text)
        if status is not None:
            assert response.status_code == status, (words, response.text)
        error = response.json()["error"]
        assert error.endswith("."), words
        assert SECRET not in error
        if response.status_code == 403:
            assert "trek command line" in error, words
    assert files_under(tmp_path) == files
    assert what_the_store_holds(api) == before


def test_a_file_that_is_there_and_one_that_is_not_answer_alike(
        api: Api, folder: tuple[Path, Path]) -> None:
    out, src = folder
    there = api.command(["map", "import", str(src), "--to", str(out / "x.toml")])
    missing = api.command(["map", "import", str(out / "nothing"), "--to", str(out / "x.toml")])
    assert there.status_code == missing.status_code == 403
    assert there.json() == missing.json()
    # A picture written to a folder that exists or to one that does not: the same 403.
    folder_there = api.command(["map", "show", "--svg", str(out)])
    folder_missing = api.command(["map", "show", "--svg", str(out / "no" / "x")])
    assert folder_there.json() == folder_missing.json()
    assert folder_there.status_code == 403


def test_a_command_as_json_records_what_its_words_record(api: Api) -> None:
    started = api.post({"command": {"type": "StartDay"}})
    assert started.status_code == 200, started.text
    # the day is the party's in use, named as every party's event is (RULES §15)
    assert started.json() == [{"seq": 22, "type": "DayStarted", "party": "main", "number": 4,
                               "base": 2, "budget": 2}]
    # 7,1 E E: two open squares of the day's two (RULES §3)
    as_json = api.post({"command": {"type": "Move", "options": {"steps": ["E", "E"]}},
                        "preview": True})
    as_words = api.command(["move", "E", "E"], preview=True)
    assert as_json.status_code == as_words.status_code == 200
    assert as_json.json() == as_words.json()
    [moved] = as_json.json()
    assert (moved["seq"], moved["cost"], moved["path"]) == (23, 2, [[7, 1], [8, 1], [9, 1]])
    recorded = api.post({"command": {"type": "Move", "options": {"steps": ["E", "E"]}}})
    assert recorded.json() == as_words.json()
    assert api.client.get(f"/api/campaigns/{SLUG}/status", headers={
        "Authorization": f"Bearer {GM_KEY}"}).json()["position"] == {"x": 9, "y": 1}


@pytest.mark.parametrize(("command", "status", "fragment"), [
    ({"type": "Move", "options": {"steps": ["E"]}}, 422, "day start"),
    ({"type": "Harm", "character": "Kira", "health": -1}, 422, "0 or more"),
    ({"type": "Harm", "character": "Kira", "health": "lots"}, 400, "health"),
    ({"type": "Harm", "character": "Kira", "bogus": 1}, 400, "no field bogus"),
    ({"type": "Move", "options": {"steps": ["E"], "teleport": True}}, 400, "options.teleport"),
    ({"type": "Status"}, 400, "not one of the table's commands"),
    ({"type": "Command"}, 400, "not one of the table's commands"),
    ({"type": "__class__"}, 400, "not one of the table's commands"),
    ({"name": "no type"}, 400, "not one of the table's commands"),
    ({"type": "StartEncounter", "name": "Ridge", "battle_map": {"rows": ["..."]}}, 403,
     "--map FILE"),
])
def test_a_command_as_json_is_checked_as_its_words_are(
        api: Api, command: dict[str, Any], status: int, fragment: str) -> None:
    before = what_the_store_holds(api)
    response = api.post({"command": command})
    assert response.status_code == status, response.text
    assert fragment in response.json()["error"]
    assert response.json()["error"].endswith(".")
    assert what_the_store_holds(api) == before


def test_argv_or_command_one_of_them(api: Api) -> None:
    for body in ({"preview": True}, {"argv": ["day", "start"], "command": {"type": "StartDay"}}):
        response = api.post(body)
        assert response.status_code == 400
        assert "one of them" in response.json()["error"]


def test_the_players_secret_records_nothing_as_json(api: Api) -> None:
    before = what_the_store_holds(api)
    response = api.client.post(f"/api/campaigns/{SLUG}/commands",
                               json={"command": {"type": "StartDay"}},
                               headers={"Authorization": f"Bearer {PLAYER_KEY}"})
    assert response.status_code == 403
    assert what_the_store_holds(api) == before


def test_the_command_types_and_their_schemas_are_described(api: Api) -> None:
    from cli.web.commands import command_types
    from domain.commands.days import StartDay
    from domain.commands.encounter import MoveCombatant
    from domain.commands.history import Undo
    from domain.commands.travel import Move

    described = api.client.get("/api/openapi.json",
                               headers={"Authorization": f"Bearer {GM_KEY}"}).json()
    body = described["paths"]["/api/campaigns/{slug}/commands"]["post"]["requestBody"]
    offered = body["content"]["application/json"]["schema"]["properties"]["command"]["oneOf"]
    names = {ref["$ref"].rsplit("/", 1)[1] for ref in offered if "$ref" in ref}
    kinds = command_types(RULESETS)
    assert names == set(kinds)
    # the shared commands and each ruleset's own (BESM's shortcut, Shadowrun's sprint)
    assert {"StartDay", "Move", "Undo", "MoveCombatant", "TakeShortcut", "Sprint"} <= names
    assert {kinds[name] for name in ("StartDay", "Move", "Undo", "MoveCombatant")} == {
        StartDay, Move, Undo, MoveCombatant}
    schemas = described["components"]["schemas"]
    for name in names:
        assert schemas[name]["properties"]["type"] == {"const": name}
        assert "type" in schemas[name]["required"]
    assert set(schemas["Harm"]["properties"]) == {"type", "character", "health", "energy",
                                                  "reason"}
    assert schemas["Harm"]["required"] == ["type", "character"]
    assert "403" in described["paths"]["/api/campaigns/{slug}/commands"]["post"]["description"]
    # The options a command holds are JSON objects of named fields, each default given.
    for options, fields in (("MoveOptions", {"steps", "to", "through_hazard"}),
                            ("DayEndOptions", {"rests", "hours"}),
                            ("CharacterOptions", {"name", "skills", "attributes", "health_max",
                                                  "energy_max", "extra"})):
        assert schemas[options]["type"] == "object"
        assert set(schemas[options]["properties"]) == fields


def test_the_command_schemas_are_made_without_a_warning() -> None:
    """Every default a command's fields hold can be written as JSON (pydantic warns of one
    it leaves out of the schema)."""
    import warnings

    from cli.web.app import command_schemas

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        schemas = command_schemas(RULESETS)
    assert {"Move", "EndDay", "AddCharacter"} <= set(schemas)


@pytest.mark.parametrize("command", [
    {"type": "AddCharacter", "options": {"name": "Bo"}},
    {"type": "EndDay", "options": {}},
])
def test_a_command_sent_as_json_may_leave_its_options_defaults_out(api: Api,
                                                                    command: dict[str, Any]
                                                                    ) -> None:
    decided, party = api.app.state.door.read_json(command)
    assert party is None
    if command["type"] == "AddCharacter":
        assert (decided.options.name, decided.options.skills) == ("Bo", {})
    else:
        assert (decided.options.rests, decided.options.hours) == ({}, None)


def test_the_door_takes_only_the_tables_types(api: Api) -> None:
    """A value of a type outside the table never reaches `Trek.handle`, whatever made it."""
    from dataclasses import dataclass

    from cli.web.commands import Door, Refused
    from domain.ruleset import Command

    @dataclass(frozen=True)
    class StartDay(Command):  # the name of a table command, another class
        pass

    door: Door = api.app.state.door
    before = what_the_store_holds(api)
    with pytest.raises(Refused) as refused:
        door.run(SLUG, StartDay())
    assert refused.value.status == 403
    assert what_the_store_holds(api) == before


def test_reads_answer_the_documents_the_command_line_prints(
        api: Api, store: str, trek_run: Callable[..., Any]) -> None:
    if store.startswith("memory:"):
        pytest.skip("the command line cannot reach a memory store held by this process")
    for words in (["status"], ["log", "--from", "19"], ["encounter", "status"],
                  ["map", "show", "--as-of", "day:2"], ["audit", "--session", "1"],
                  ["diff", "12", "now"], ["rules", "show"], ["status", "--as-of", "7"]):
        answer = api.command(words)
        cli = trek_run("--json", *words, db=store)
        if cli.returncode == 1:
            assert answer.status_code == 422, words
            assert answer.json()["error"] == cli.stderr.strip().removeprefix("Error: ")
            continue
        assert cli.returncode == 0, cli
        assert answer.status_code == 200, (words, answer.text)
        assert answer.json() == cli.json(), words

"""A property of the API's door (issue 41): for any words, the API either refuses them, and
the store and the folder are as they were, or it answers with the very document the command
line prints for the same words and leaves the store as the command line leaves it (each run
on its own copy of one store). On SQLite and PostgreSQL: the command line in this process
cannot reach a memory store the server holds."""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from rulesets import RULESETS

from cli.web.app import ServeConfig, create_app
from domain.commands.days import StartDay
from tracker.app import Trek

GM_KEY = "gm-secret-0123456789abcdef"
SLUG = "ashes-road"

# Command names, the table's and others (which must be refused without running), and words
# that are their arguments, options and values, so that many lists of them make a command.
NAMES = [
    ["day", "start"], ["day", "end"], ["move"], ["supplies", "add"], ["supplies", "spend"],
    ["harm"], ["undo"], ["redo"], ["encounter", "start"], ["encounter", "add"],
    ["encounter", "join"], ["encounter", "move"], ["encounter", "round"], ["encounter", "end"],
    ["roster", "add-mount"], ["roster", "leave"], ["roster", "rejoin"], ["rules", "set"],
    ["session", "start"], ["session", "end"], ["status"], ["log"], ["encounter", "status"],
    ["audit"], ["diff"], ["rules", "show"], ["map", "show"], ["shortcut"], ["forage"],
    ["night-travel"], ["demo"], ["init"], ["branch"], ["map", "import"], ["replay"],
    ["campaigns", "use"], ["campaigns"], ["watch"], ["serve"], ["shell"], ["verify"], ["plan"],
    ["recap"], ["encounter", "show"], ["encounter"], ["day"],
]
WORDS = [
    "E", "N", "SE", "w", "--to", "8,1", "9,1", "0,0", "99,99", "Kira", "Oren", "Dusty", "Wolf",
    "Ridge", "Mule", "--health", "--energy", "1", "2", "3", "7", "22", "-1", "0", "--reason",
    "a reason", "provisions=1", "fuel=2", "ammo=9", "provisions=x", "--json", "--preview",
    "--", "--last", "--from", "--rest", "Kira=camp", "--hours", "--at", "2,2", "3,2", "--side",
    "enemy", "ally", "--body", "--mind", "--soul", "--session", "now", "day:2", "--cascade",
    "--through-hazard", "x.db", "out.toml", "pic.svg", "--keep", "--svg", "--html", "--csv",
    "--force", "--seed", "--shift", "Kessel Pass", "--roll", "6", "--by", "--move",
    "ground-speed=1", "--rider", "max-days=3", "--accept-tampering", "--as-of",
]
# Whole commands (most of the table's, some not), which the words above change a little.
PHRASES = [
    ["move", "E"], ["move", "E", "E"], ["move", "--to", "8,1"], ["move", "--to", "9,1"],
    ["move", "--through-hazard", "SE"], ["day", "end"], ["day", "end", "--rest", "Kira=camp"],
    ["day", "end", "--hours", "6"], ["supplies", "add", "provisions=1"],
    ["supplies", "spend", "ammo=1"], ["harm", "Kira", "--health", "1", "--reason", "a reason"],
    ["harm", "Oren", "--energy", "2"], ["undo"], ["undo", "22"], ["undo", "--last", "move"],
    ["redo", "17"], ["encounter", "start", "Ridge"], ["session", "start", "a reason"],
    ["rules", "set", "max-days=3"], ["status"], ["status", "--as-of", "7"],
    ["log", "--last", "2"], ["log", "--from", "20"], ["encounter", "status"], ["audit"],
    ["diff", "7"], ["map", "show", "--as-of", "day:2"], ["forage", "--roll", "6"],
    ["forage", "--by", "Oren"], ["roster", "add-mount", "Mule", "--move", "ground-speed=1"],
    ["roster", "leave", "Dusty"], ["night-travel", "--roll", "6"], ["shortcut", "Kessel Pass"],
    ["demo"], ["init", "X"], ["watch"], ["map", "import", "x.db", "--to", "out.toml"],
    ["branch", "what-if"], ["demo", "--keep", "x.db"],
]


@st.composite
def changed(draw: st.DrawFn) -> list[str]:
    """A whole command with a few words put in (--json, --preview, `--`, any word above)."""
    words = list(draw(st.sampled_from(PHRASES)))
    for _ in range(draw(st.integers(0, 2))):
        word = draw(st.sampled_from(["--json", "--json", "--preview", "--", *WORDS]))
        words.insert(draw(st.integers(0, len(words))), word)
    return words


phrases = st.one_of(
    changed(), changed(), changed(), changed(),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
    st.tuples(st.lists(st.sampled_from(["--json", "--"]), max_size=1), st.sampled_from(NAMES),
              st.lists(st.sampled_from(WORDS), max_size=5)).map(
        lambda parts: [*parts[0], *parts[1], *parts[2]]),
)


def without_times(value: Any) -> Any:
    """A document without when each event was recorded (the two copies record apart)."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k != "recorded_at"}
    if isinstance(value, list | tuple):
        return [without_times(v) for v in value]
    return value


def held(db: str) -> Any:
    with Trek.open(db, rulesets=RULESETS, writable=False) as trek:
        campaigns = trek.campaigns()
        return without_times([campaigns, *[(trek.queries.log(c["slug"]),
                                            trek.queries.status(c["slug"]))
                                           for c in campaigns]])


def files_under(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.name.endswith("-shm")}


def the_campaign(db: str) -> None:
    """The sample campaign (21 events) with day 4 open, so moves have a budget to spend."""
    from journeys import three_days as play

    with Trek.open(db, rulesets=RULESETS, create=True, gm="demo") as trek:
        play(trek)
        trek.handle(None, StartDay())


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def copies(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], str]]:
    """A function that makes a new copy of one store holding the campaign."""
    counter = itertools.count()
    if request.param == "sqlite":
        template = tmp_path / "template.db"
        the_campaign(str(template))

        def copy_file() -> str:
            target = tmp_path / "copies" / f"{next(counter)}.db"
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(template, target)
            return str(target)

        yield copy_file
        return
    import psycopg
    from psycopg import sql

    server = request.getfixturevalue("pg_server")
    template_url = request.getfixturevalue("pg_url")
    the_campaign(template_url)
    template_name = template_url.rsplit("/", 1)[1].split("?", 1)[0]

    def copy_database() -> str:
        name = f"t_door_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(server.url("postgres"), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(template_name)))
        return str(server.url(name))

    yield copy_database


def cli(words: list[str], db: str, folder: Path) -> Any:
    from click.testing import CliRunner

    from cli.main import trek

    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("TREK_")}
    env.update(COLUMNS="200", TREK_GM="test-gm", TREK_DB=db)
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        return CliRunner().invoke(trek, ["--json", *words], env=env, prog_name="trek")
    finally:
        os.chdir(cwd)


@settings(max_examples=int(os.environ.get("TREK_DOOR_EXAMPLES", "100")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=phrases)
def test_the_api_refuses_or_does_what_the_command_line_does(
        words: list[str], copies: Callable[[], str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TREK_GM", "test-gm")
    folder = tmp_path / f"work-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    served, typed = copies(), copies()
    before = held(served)
    monkeypatch.chdir(folder)
    app = create_app(ServeConfig(db=served, campaign=SLUG, gm_key=GM_KEY,
                                 player_key="players-secret-0123456789"))
    # As a server runs: its stores opened at start-up and closed at shutdown.
    with TestClient(app) as client:
        answer = client.post(f"/api/campaigns/{SLUG}/commands", json={"argv": words},
                             headers={"Authorization": f"Bearer {GM_KEY}"})
    assert answer.status_code in (200, 400, 403, 422), (words, answer.text)
    event(f"answered {answer.status_code}")
    assert files_under(folder) == {}, words
    if answer.status_code in (400, 403):
        assert answer.json()["error"].endswith((".", "?")), words
        assert held(served) == before, words
        return
    # Words the API took for a command of the table: the command line runs them too.
    ran = cli(words, typed, folder)
    assert files_under(folder) == {}, words
    if answer.status_code == 422:
        assert ran.exit_code == 1, (words, ran.output, ran.stderr)
        assert answer.json()["error"] == ran.stderr.strip().removeprefix("Error: "), words
        assert held(served) == before, words
    else:
        assert ran.exit_code == 0, (words, ran.output, ran.stderr, ran.exception)
        import json

        assert without_times(answer.json()) == without_times(json.loads(ran.stdout)), words
    assert held(served) == held(typed), words

"""`trek log` from an SQLite store's kept read models (projections/kept_log.py): the same
entries the tracker's log gives, for every ruleset and every selection; no model loaded while
the events shown need none; and left to the tracker whenever the kept read models cannot vouch
for the log (another code's kinds, read models behind, an edited newest event, a session the
campaign has not had, a store in memory)."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from behind import recorded_unfolded
from cliruns import play_all, run_traced
from conftest import TrekRun
from rulesets import RULESETS

from domain.commands.roster import Harm
from domain.commands.supplies import AddSupplies
from domain.errors import NotFound
from projections.kept_log import KINDS_KEY, read_log
from projections.logpages import LogFilter
from projections.views import stored_document
from tracker.app import Trek

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
Words = tuple[str, ...]


def _encounter(ruleset: str, kira: Words, bandit: Words, moves: Iterable[Words]
               ) -> list[Words]:
    return [("init", f"Fight {ruleset}", "--ruleset", ruleset, "--seed", "7"),
            ("roster", "add-character", "Kira", *kira),
            ("encounter", "start", "Ambush"), ("encounter", "join", "Kira", "--at", "0,0"),
            ("encounter", "add", "Bandit", "--side", "enemy", "--at", "4,0", *bandit),
            ("encounter", "round"), *moves]


# Campaigns whose logs hold every common kind of event: rolls (forage, forced march, a
# shortcut), an upcast class stored at its current version (a character added), undo and
# redo, sessions, days, and each ruleset's fights.
CAMPAIGNS: dict[str, list[Words]] = {
    "besm": [("init", "Ashes Road", "--map", str(EXAMPLES / "ashen-reach.toml"), "--seed", "3"),
             ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"),
             ("roster", "add-mount", "Dusty", "--move", "ground-speed=3", "--rider", "Kira"),
             ("supplies", "set", "provisions=5"), ("session", "start"), ("day", "start"),
             ("move", "E"), ("forage", "--roll", "9"), ("forced-march", "--roll", "Kira=4"),
             ("move", "E"), ("undo",), ("redo", "10"), ("harm", "Kira", "--health", "3"),
             ("day", "end"), ("session", "end"), ("session", "start"), ("day", "start"),
             ("supplies", "add", "provisions=1")],
    "cypher": [("init", "Road to Qi", "--ruleset", "cypher", "--map",
                str(EXAMPLES / "road-to-qi.toml"), "--seed", "5"),
               ("roster", "add-character", "Ana", "--might", "12", "--speed", "10"),
               ("day", "start"), ("move", "E", "E"), ("undo",), ("day", "end")],
    "gurps": _encounter("gurps", ("--basic-move", "5", "--basic-speed", "5.75"),
                        ("--basic-move", "6", "--basic-speed", "6"),
                        [("encounter", "move", "Kira", "N", "N")]),
    "shadowrun": _encounter("shadowrun", ("--quickness", "5", "--metatype", "elf"),
                            ("--quickness", "4", "--metatype", "ork"),
                            [("encounter", "move", "Kira", "--to", "2,0")]),
    "movepoints": _encounter("movepoints", ("--full-move", "13"), ("--full-move", "6"),
                             [("encounter", "act", "Kira", "move"),
                              ("encounter", "move", "Kira", "--to", "2,0")]),
}

EVERY = LogFilter()
SELECTIONS = [EVERY, LogFilter(last=3), LogFilter(day=1), LogFilter(since=4),
              LogFilter(session=1), LogFilter(day=1, last=2)]


def modelled(ruleset: str) -> Callable[[int, str, dict[str, Any]], dict[str, Any]]:
    types = RULESETS.event_types(ruleset)
    return lambda seq, type_name, state: stored_document(seq, type_name, state, types)


def kept(db: str, selection: LogFilter = EVERY, *, targets: bool = True,
         campaign: str | None = None) -> list[dict[str, Any]] | None:
    found = read_log(db, campaign, selection, targets=targets, modelled=modelled)
    return None if found is None else list(found.entries)


def trackers(db: str, selection: LogFilter = EVERY, *, targets: bool = True,
             campaign: str | None = None) -> list[dict[str, Any]]:
    with Trek.open(db, rulesets=RULESETS, writable=False) as trek:
        return list(trek.queries.log_stream(campaign, selection, targets=targets).entries)


def behind_trek(db: str, statement: str, params: tuple[Any, ...] = ()) -> None:
    conn = sqlite3.connect(db)
    try:
        with conn:
            conn.execute(statement, params)
    finally:
        conn.close()


@pytest.mark.parametrize("name", sorted(CAMPAIGNS))
def test_the_kept_log_is_the_trackers_for_every_selection(name: str, tmp_path: Path) -> None:
    db = str(tmp_path / "trek.db")
    play_all(tmp_path, db, CAMPAIGNS[name])
    for selection in SELECTIONS:
        if selection.session is not None and name != "besm":
            # A campaign that has had no session: the tracker says so.
            assert kept(db, selection) is None
            with pytest.raises(NotFound, match="there is no session 1"):
                trackers(db, selection)
            continue
        for targets in (True, False):
            got = kept(db, selection, targets=targets)
            assert got is not None, selection
            assert got == trackers(db, selection, targets=targets), (selection, targets)
    every = kept(db)
    assert every is not None
    assert [entry["seq"] for entry in every] == list(range(1, len(CAMPAIGNS[name]) + 1))
    if name == "besm":
        # The undo's and the redo's entries name the move they took back and put back.
        for kind in ("EventsCancelled", "EventsRestored"):
            reversal = next(entry for entry in every if entry["type"] == kind)
            assert [t["type"] for t in reversal["targets"]] == ["Moved"], kind
        assert next(e for e in every if e["type"] == "Foraged")["roll"]


def test_a_store_of_an_earlier_release_reads_its_old_events_through_their_models(
        tmp_path: Path) -> None:
    db = str(tmp_path / "release-0.1.db")
    shutil.copyfile(FIXTURES / "release-0.1.db", db)
    # The first command that records brings the read models (and the kept kinds) up to date.
    with Trek.open(db, rulesets=RULESETS, gm="test-gm") as trek:
        trek.handle("ashes-road", Harm("Kira", 1, 0, "a fall"))
    got = kept(db, campaign="ashes-road")
    assert got is not None
    assert got == trackers(db, campaign="ashes-road")
    # Release 0.1 stored its characters at their class's first version: upcast when read.
    added = [entry for entry in got if entry["type"] == "CharacterAdded"]
    assert added
    assert all("class_version" not in entry for entry in added)


@pytest.mark.slow
def test_a_log_of_plain_events_loads_no_model(trek_run: Callable[..., TrekRun],
                                              tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "trek.db")
    play_all(tmp_path, db, [*CAMPAIGNS["besm"][:7], ("supplies", "add", "provisions=1"),
                            ("supplies", "add", "provisions=2")])
    printed, modules = run_traced(tmp_path, db, "log", "--last", "3")
    assert not {m for m in modules if m.split(".")[0] in ("eventsourcing", "pydantic")}
    assert "supplies added: provisions=2" in printed
    # What the tracker's own path prints, word for word.
    monkeypatch.setattr("cli.log.read_log", lambda *_args, **_kwargs: None)
    assert trek_run("log", "--last", "3", db=db).stdout == printed


def kinds_of_another_code(db: str) -> None:
    behind_trek(db, "UPDATE trek_meta SET value = json_set(value, '$.code', 'other') "
                    f"WHERE key LIKE '{KINDS_KEY}%'")


def a_late_event(db: str) -> None:
    # Recorded, and the read models not brought up to it (a process stopped between the two).
    recorded_unfolded(db, AddSupplies({"provisions": 2}))


def no_kinds(db: str) -> None:
    behind_trek(db, f"DELETE FROM trek_meta WHERE key LIKE '{KINDS_KEY}%'")


@pytest.mark.parametrize("change", [kinds_of_another_code, a_late_event, no_kinds])
def test_kept_read_models_that_cannot_vouch_for_the_log_leave_it_to_the_tracker(
        change: Callable[[str], None], tmp_path: Path) -> None:
    db = str(tmp_path / "trek.db")
    play_all(tmp_path, db, CAMPAIGNS["cypher"])
    assert kept(db) is not None
    change(db)
    assert kept(db) is None
    assert trackers(db)[0]["type"] == "CampaignStarted"


def test_an_edited_newest_event_or_a_session_never_held_is_the_trackers_sentence(
        trek_run: Callable[..., TrekRun], tmp_path: Path) -> None:
    db = str(tmp_path / "trek.db")
    play_all(tmp_path, db, CAMPAIGNS["besm"])
    assert kept(db, LogFilter(session=3)) is None
    run = trek_run("log", "--session", "3", db=db)
    assert (run.returncode, run.stdout) == (1, "")
    assert run.stderr == "Error: There is no session 3; ashes-road has sessions 1 to 2.\n"
    newest = len(CAMPAIGNS["besm"])
    behind_trek(db, "UPDATE stored_events SET state = replace(state, 'provisions', 'gold') "
                    "WHERE originator_version = ?", (newest,))
    assert kept(db) is None
    run = trek_run("log", "--last", "2", db=db)
    assert run.returncode == 1
    assert (f"The log of ashes-road is damaged at event {newest} (event {newest} was changed "
            "after it was recorded)") in run.stderr


def test_an_event_deleted_from_the_middle_is_told_as_damage(
        trek_run: Callable[..., TrekRun], tmp_path: Path) -> None:
    db = str(tmp_path / "trek.db")
    play_all(tmp_path, db, CAMPAIGNS["cypher"])
    behind_trek(db, "DELETE FROM stored_events WHERE originator_version = 3")
    run = trek_run("log", db=db)
    assert run.returncode == 1
    assert ("The log of road-to-qi is damaged at event 3 (event 3 is in the log's index but "
            "not in the event store: deleted behind Trek's back)") in run.stderr
    assert "Traceback" not in run.stderr


def test_a_store_in_memory_or_on_postgresql_is_read_by_the_tracker(db: str,
                                                                   tmp_path: Path) -> None:
    assert read_log("memory:", None, LogFilter(), targets=False, modelled=modelled) is None
    play_all(tmp_path, db, CAMPAIGNS["cypher"])
    if db.startswith("postgresql://"):
        assert kept(db) is None
    else:
        assert kept(db) == trackers(db)

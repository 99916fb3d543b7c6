"""Every read of `Trek.queries` returns a document with exactly the keys its type declares:
each required key present, nothing undeclared (a log entry's own fields aside, which are its
event's)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, get_type_hints

import pytest
from journeys import record_full_day
from rulesets import RULESETS

from domain.commands.encounter import EnterCombatant, StartEncounter, StartRound
from domain.commands.history import Undo
from domain.commands.roster import AddCharacter
from domain.commands.sessions import EndSession, StartSession
from domain.geometry import Square
from domain.options import CharacterOptions
from domain.state import Side
from projections.audit import AuditDocument
from projections.compare import Change
from projections.logpages import LogFilter
from projections.recap import RecapDocument
from projections.views import (
    CharacterStatus,
    EncounterDocument,
    LogEntryDocument,
    StatusDocument,
    event_document,
)
from tracker.app import Trek
from tracker.points import Point
from tracker.queries import (
    DiffDocument,
    DiffEnd,
    EncounterPath,
    EncounterPicture,
    RouteDocument,
)


def check_keys(document: Mapping[str, Any], declared: type, own: frozenset[str] = frozenset()
               ) -> None:
    """`document` holds every key `declared` requires and no key it does not declare (but
    `own`, the fields the document's event adds)."""
    hints = get_type_hints(declared)
    keys = set(document)
    assert set(hints) == declared.__required_keys__ | declared.__optional_keys__  # type: ignore[attr-defined]
    missing = declared.__required_keys__ - keys  # type: ignore[attr-defined]
    assert not missing, f"{declared.__name__} lacks {sorted(missing)}"
    undeclared = keys - set(hints) - own
    assert not undeclared, f"{declared.__name__} does not declare {sorted(undeclared)}"


def _own_fields(trek: Trek, slug: str, seq: int) -> frozenset[str]:
    """The fields event `seq` adds to its log entry: its own document's, less seq and type."""
    [event] = trek.reader.events(slug, gt=seq - 1, lte=seq)
    return frozenset(event_document(event)) - {"seq", "type"}


@pytest.fixture
def trek() -> Iterator[Trek]:
    """The README's first day, then a session with a fight, a round and an undo."""
    with Trek.open("memory:query-documents", rulesets=RULESETS, create=True, gm="gm") as opened:
        record_full_day(opened)
        opened.handle(None, StartSession(title="The road"))
        opened.handle(None, StartEncounter("Ambush"))
        opened.handle(None, EnterCombatant(name="Kira", at=Square(0, 0)))
        opened.handle(None, EnterCombatant(
            name="Bandit", at=Square(3, 0), side=Side.ENEMY, from_roster=False,
            options=CharacterOptions(name="Bandit", extra={"body": 4, "mind": 4, "soul": 4})))
        opened.handle(None, StartRound())
        opened.handle(None, Undo())
        opened.handle(None, EndSession())
        yield opened


def test_each_query_document_has_exactly_the_keys_its_type_declares(trek: Trek) -> None:
    # The keys that are sometimes absent are known as such when the program runs, too.
    assert LogEntryDocument.__optional_keys__ == {"targets"}
    assert EncounterDocument.__optional_keys__ == EncounterPicture.__optional_keys__ == set()
    queries = trek.queries
    status = queries.status(None)
    check_keys(status, StatusDocument)
    for character in status["characters"].values():
        check_keys(character, CharacterStatus)
    assert status["encounter"] is not None
    check_keys(status["encounter"], EncounterDocument)
    check_keys(queries.status(None, as_of=5), StatusDocument)
    check_keys(queries.status_at(None, Point.parse("day:1")), StatusDocument)
    check_keys(queries.status_of_view(queries.view(None)), StatusDocument)

    encounter = queries.encounter_status(None)
    assert encounter is not None
    check_keys(encounter, EncounterDocument)
    picture = queries.encounter_picture(None)
    assert picture is not None
    check_keys(picture, EncounterPicture)
    for path in picture["paths"]:
        check_keys(path, EncounterPath)

    log = queries.log(None)
    assert len(log) == queries.last_seq("ashes-road")
    for entry in log:
        check_keys(entry, LogEntryDocument, _own_fields(trek, "ashes-road", entry["seq"]))
    with_targets = list(queries.log_stream(None, LogFilter(last=3), targets=True).entries)
    assert any("targets" in entry for entry in with_targets)
    for entry in with_targets:
        check_keys(entry, LogEntryDocument, _own_fields(trek, "ashes-road", entry["seq"]))

    route = queries.route(None)
    check_keys(route, RouteDocument)
    check_keys(queries.route(None, as_of=9, session=1), RouteDocument)

    diff = queries.diff(None, Point.parse("3"), Point.parse("now"))
    check_keys(diff, DiffDocument)
    check_keys(diff["a"], DiffEnd)
    check_keys(diff["b"], DiffEnd)
    assert diff["changes"]
    for change in diff["changes"]:
        check_keys(change, Change)

    check_keys(queries.audit(None), AuditDocument)
    check_keys(queries.audit(None, session=1), AuditDocument)
    check_keys(queries.recap(None), RecapDocument)
    check_keys(queries.recap(None, session=1), RecapDocument)

    rules = queries.rules(None)
    assert all(isinstance(k, str) and isinstance(v, int) for k, v in rules.items())


def test_a_ruleset_s_encounter_fields_come_beside_the_declared_keys(trek: Trek) -> None:
    """Shadowrun's encounter adds the round's initiative passes (RULES.md: a round is split
    into passes), beside the keys every encounter has."""
    trek.init("Seattle", ruleset="shadowrun", seed=5)
    trek.handle("seattle", AddCharacter(CharacterOptions(
        name="Kira", skills={"athletics": 3}, extra={"quickness": 5, "metatype": "elf"})))
    trek.handle("seattle", StartEncounter("Alley"))
    trek.handle("seattle", EnterCombatant(name="Kira", at=Square(0, 0)))
    trek.handle("seattle", StartRound())
    encounter = trek.queries.encounter_status("seattle")
    assert encounter is not None
    passes = frozenset({"pass", "passes"})
    assert passes <= set(encounter)
    check_keys(encounter, EncounterDocument, passes)
    picture = trek.queries.encounter_picture("seattle")
    assert picture is not None
    check_keys(picture, EncounterPicture, passes)
    for entry in trek.queries.log("seattle"):
        check_keys(entry, LogEntryDocument, _own_fields(trek, "seattle", entry["seq"]))

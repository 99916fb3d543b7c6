"""A map's picture kept in the store, the same on memory, SQLite and PostgreSQL: its bytes once
by SHA-256, read back as they were, named by the event that set the map, and taken out again
when the event that would have named it is refused."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
from pictures import picture_bytes

from domain.commands.encounter import StartEncounter
from domain.errors import RuleViolation
from tracker.app import Trek
from tracker.mapformats.picture import check_picture

OpenTrek = Callable[..., Trek]

BATTLE = {"name": "cellar", "grid": "square", "rows": ["..", ".#"],
          "legend": {".": {"terrain": "open"}, "#": {"terrain": "wall"}}}


def test_a_picture_is_kept_once_and_read_back_as_it_was(store: str,
                                                        open_trek: OpenTrek) -> None:
    data = picture_bytes(2 * 40, 2 * 40)
    picture = check_picture(data, "the picture").placed(40, (0, 0))
    trek = open_trek(store, create=True)
    trek.init("Crypt", seed=1)
    with trek.picture_kept(picture):
        [started] = trek.handle(None, StartEncounter("Cellar", {**BATTLE,
                                                                "image": picture.image}))
    assert started["map"]["image"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert trek.queries.picture(picture.sha256) == ("image/png", data)
    assert trek.queries.encounter_status(None)["map"]["image"] == picture.image
    assert trek.verify()["campaigns"][0]["pictures"] == []
    # A second encounter on it is refused (one at a time): the kept picture stays, once.
    with pytest.raises(RuleViolation), trek.picture_kept(picture):
        trek.handle(None, StartEncounter("Again", {**BATTLE, "image": picture.image}))
    assert trek.queries.picture(picture.sha256) == ("image/png", data)


def test_a_refused_event_takes_its_new_picture_away(store: str, open_trek: OpenTrek) -> None:
    data = picture_bytes(80, 80, colour=(10, 20, 30))
    picture = check_picture(data, "the picture").placed(40, (0, 0))
    trek = open_trek(store, create=True)
    trek.init("Crypt", seed=1)
    trek.handle(None, StartEncounter("First", None))
    with pytest.raises(RuleViolation), trek.picture_kept(picture):
        trek.handle(None, StartEncounter("Cellar", {**BATTLE, "image": picture.image}))
    assert trek.queries.picture(picture.sha256) is None

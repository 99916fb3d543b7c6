"""A ruleset's slice edited event after event: the next edit takes the model the last one wrote.

Each case is checked against the plain way (validate the document, change it, dump it back),
worked out here on plain dicts: the documents must read the same, and no game may see an edit
made to another that shares its document.
"""

from __future__ import annotations

import copy

import pytest

from domain.besm.state import TravelDay
from domain.state import Game


def plain_edit(document: dict[str, object], used: int) -> dict[str, object]:
    part = TravelDay.model_validate(document)
    part.used += used
    part.shortcuts_tried.append(f"pass {used}")
    return part.model_dump(mode="json")


def fail_half_way(game: Game) -> None:
    with TravelDay.edit(game) as day:
        day.used = 99
        raise RuntimeError("refused half-way")


def test_edits_in_a_row_write_what_validating_each_time_writes() -> None:
    game = Game()
    TravelDay(budget=5).write(game)
    expected: dict[str, object] = TravelDay(budget=5).model_dump(mode="json")
    for used in (1, 2, 3):
        with TravelDay.edit(game) as day:
            day.used += used
            day.shortcuts_tried.append(f"pass {used}")
        expected = plain_edit(expected, used)
        assert dict(game.travel) == expected
        assert game.model_dump()["travel"] == expected
    assert TravelDay.read(game).used == 6


def test_a_game_sharing_a_document_never_sees_another_games_edit() -> None:
    game = Game()
    TravelDay(budget=5).write(game)
    with TravelDay.edit(game) as day:
        day.used = 1
    twin = game.model_copy()           # shares the document the edit wrote
    held = copy.copy(game.travel)      # a plain copy of it
    with TravelDay.edit(twin) as day:
        day.used = 4
    with TravelDay.edit(game) as day:
        assert day.used == 1
        day.used += 1
    assert (TravelDay.read(game).used, TravelDay.read(twin).used) == (2, 4)
    assert type(held) is dict
    assert held["used"] == 1


def test_an_edit_that_fails_leaves_the_document_and_the_next_edit_starts_from_it() -> None:
    game = Game()
    TravelDay(budget=5).write(game)
    before = dict(game.travel)
    with pytest.raises(RuntimeError):
        fail_half_way(game)
    assert dict(game.travel) == before
    with TravelDay.edit(game) as day:
        assert day.used == 0
        day.used += 2
    assert TravelDay.read(game).used == 2

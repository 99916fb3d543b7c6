"""Undo and redo keep RULES §4 and §6 on every store: no overland move while an encounter is
open, so a reversal that would reopen a fight before a later move, or open one before it, is
refused naming the move, or cancels it too with `cascade`."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from domain.commands.days import StartDay
from domain.commands.encounter import EndEncounter, EnterCombatant, StartEncounter
from domain.commands.history import Redo, Undo
from domain.commands.roster import AddCharacter
from domain.commands.travel import Move, MoveOptions
from domain.errors import RuleViolation
from domain.geometry import Square
from domain.options import CharacterOptions
from tracker.app import Trek

OpenTrek = Callable[..., Trek]
KIRA = CharacterOptions(name="Kira", extra={"body": 6, "mind": 5, "soul": 4})


def _brawl_then_a_move(trek: Trek) -> None:
    """Events 1 to 7: the campaign at 0,0, Kira, day 1, the Brawl opened, joined and ended,
    then the party moves east (1 square, its whole budget)."""
    trek.init("Ashes Road", seed=3)                                             # 1
    trek.handle(None, AddCharacter(KIRA))                                       # 2
    trek.handle(None, StartDay())                                               # 3
    trek.handle(None, StartEncounter("Brawl"))                                  # 4
    trek.handle(None, EnterCombatant(name="Kira", at=Square(0, 0)))            # 5
    trek.handle(None, EndEncounter())                                           # 6
    trek.handle(None, Move(MoveOptions(steps=("E",))))                          # 7


def test_undoing_the_end_of_a_fight_before_a_move_is_refused_naming_the_move(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    _brawl_then_a_move(trek)
    with pytest.raises(RuleViolation, match=r"event 7 \(Moved\).*encounter Brawl.*--cascade"):
        trek.handle(None, Undo(6))
    status = trek.queries.status(None)
    assert (status["events"], status["encounter"], status["position"]) == (
        7, None, {"x": 1, "y": 0})
    [undo] = trek.handle(None, Undo(6, cascade=True))                            # 8
    assert undo["cancels"] == [6, 7]
    status = trek.queries.status(None)
    assert status["encounter"]["name"] == "Brawl"
    assert status["position"] == {"x": 0, "y": 0}
    assert trek.verify_views()["verified"]


def test_redoing_a_fight_opened_before_a_later_move_is_refused_naming_the_move(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    trek.init("Ashes Road", seed=3)                                             # 1
    trek.handle(None, AddCharacter(KIRA))                                       # 2
    trek.handle(None, StartDay())                                               # 3
    trek.handle(None, StartEncounter("Brawl"))                                  # 4
    trek.handle(None, Undo(4))                                                  # 5
    trek.handle(None, Move(MoveOptions(steps=("E",))))                          # 6
    with pytest.raises(RuleViolation, match=r"event 6 \(Moved\).*encounter Brawl"):
        trek.handle(None, Redo(4))
    status = trek.queries.status(None)
    assert (status["events"], status["encounter"], status["position"]) == (
        6, None, {"x": 1, "y": 0})

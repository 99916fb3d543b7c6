"""`Trek.undo(last=KIND)` on every store: the newest live event of that kind, named in the
reversal's document."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from domain.commands.history import Undo
from domain.commands.roster import AddCharacter, Harm
from domain.commands.supplies import AddSupplies, SpendSupplies
from domain.errors import RuleViolation
from domain.options import CharacterOptions
from tracker.app import Trek

OpenTrek = Callable[..., Trek]


def test_undo_last_kind_finds_the_newest_live_event_of_that_kind(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    trek.init("Long Road", seed=5)                                                  # 1
    trek.handle(None, AddCharacter(CharacterOptions(name="Kira",
                                              extra={"body": 6, "mind": 5, "soul": 4})))  # 2
    trek.handle(None, AddSupplies({"provisions": 2}))                                   # 3
    trek.handle(None, SpendSupplies({"provisions": 1}))                                 # 4
    trek.handle(None, Harm("Kira", 3, 0, None))                                             # 5
    [undo] = trek.handle(None, Undo(last="supplies"))                                       # 6
    assert (undo["seq"], undo["cancels"]) == (6, [4])
    assert [(t["seq"], t["type"], t["amounts"]) for t in undo["targets"]] == [
        (4, "SuppliesSpent", {"provisions": 1})]
    assert trek.handle(None, Undo(last="supplies"))[0]["cancels"] == [3]                   # 7
    with pytest.raises(RuleViolation, match="no live supplies event"):
        trek.handle(None, Undo(last="supplies"))
    with pytest.raises(RuleViolation, match=r"'jump'.*add-character.*supplies"):
        trek.handle(None, Undo(last="jump"))
    with pytest.raises(RuleViolation, match="not both"):
        trek.handle(None, Undo(5, last="harm"))
    assert trek.queries.status(None)["events"] == 7
    assert trek.handle(None, Undo(last="harm"))[0]["cancels"] == [5]                       # 8
    assert trek.queries.status(None)["supplies"]["provisions"] == 0
    assert trek.queries.status(None)["characters"]["Kira"]["health"] == 50

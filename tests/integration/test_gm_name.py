"""The GM name stamped on every recorded event gets the checks of every name a GM types, before
a store is opened: on memory, SQLite and PostgreSQL alike, a refused name leaves nothing."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from rulesets import RULESETS

from domain.commands.supplies import AddSupplies
from domain.errors import RuleViolation
from tracker.app import Trek
from tracker.opening import MemoryStores


def open_as(db: str, gm: str | None, memory: MemoryStores, *, create: bool = False) -> Trek:
    return Trek.open(db, rulesets=RULESETS, create=create, gm=gm, memory=memory)


def tables(db: str) -> list[str]:
    """The tables a store holds, read without Trek (nothing for a store never made)."""
    if db.startswith("postgresql://"):
        with psycopg.connect(db) as conn:
            return [r[0] for r in conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()")]
    return ["file"] if Path(db).exists() else []


@pytest.mark.parametrize(("gm", "said"), [
    ("evil\x07gm", "U+0007"),
    ("x" * 41, "at most 40"),
    ("a=b", "'='"),
    ("", "empty"),
])
def test_a_gm_name_that_is_no_name_is_refused_before_the_store_is_made(
        store: str, memory_stores: MemoryStores, gm: str, said: str) -> None:
    with pytest.raises(RuleViolation, match="GM name") as refusal:
        open_as(store, gm, memory_stores, create=True)
    assert said in str(refusal.value)
    if not store.startswith("memory:"):
        assert tables(store) == []


def test_events_carry_the_gm_name_given_and_a_bad_one_records_nothing(
        store: str, memory_stores: MemoryStores) -> None:
    trek = open_as(store, "Ines Ü", memory_stores, create=True)
    try:
        trek.init("Ashes Road")
        trek.handle(None, AddSupplies({"provisions": 1}))
        assert [e["gm"] for e in trek.queries.log(None)] == ["Ines Ü", "Ines Ü"]
    finally:
        trek.close()
    with pytest.raises(RuleViolation, match="GM name"):
        open_as(store, "evil\x07gm", memory_stores)
    again = open_as(store, "Sam", memory_stores)
    try:
        assert len(again.queries.log(None)) == 2
    finally:
        again.close()

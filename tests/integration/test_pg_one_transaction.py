"""A recording command's event and its read models commit in one transaction, on SQLite and on
PostgreSQL: a fold that fails takes the append back with it, and the event is then appended
alone and the read models repaired (`Trek._save`'s fallback)."""

from __future__ import annotations

import sqlite3
from typing import Any

import psycopg
from rulesets import RULESETS

from domain.commands.supplies import AddSupplies
from tracker.app import Trek


def rows(db: str, sql: str) -> list[tuple[Any, ...]]:
    """What the store holds, read behind Trek's back (`{events}`: its events table)."""
    if db.startswith("postgresql://"):
        with psycopg.connect(db) as conn:
            found = conn.execute(sql.format(events="trek_events"))  # type: ignore[arg-type]
            return list(found.fetchall())
    sql = sql.format(events="stored_events")
    with sqlite3.connect(db) as lite:
        return lite.execute(sql).fetchall()


def test_a_fold_that_fails_takes_its_append_back_and_the_event_is_recorded_alone(
        db: str) -> None:
    with Trek.open(db, rulesets=RULESETS, create=True, gm="gm") as trek:
        trek.init("Ash Road", ruleset="besm", seed=7)
    seen: list[int] = []
    with Trek.open(db, rulesets=RULESETS, gm="gm") as trek:
        assert trek.app.folds_with_append
        table = trek.app.recorder.events_table_name  # type: ignore[attr-defined]

        def failing(cursor: Any, appended: Any) -> int:
            # Inside the append's transaction: the new event is there, and a row written
            # here must go when the transaction is rolled back.
            cursor.execute(f"SELECT COUNT(*) FROM {table}")
            seen.append(cursor.fetchall()[0][0])
            cursor.execute("INSERT INTO trek_meta (key, value) VALUES ('probe', 'written')")
            raise OSError("the fold failed")

        trek.projector.fold_appended = failing  # type: ignore[method-assign]
        trek.handle(None, AddSupplies({"provisions": 3}))
    # The fold saw the append (two events), and its failure rolled both back: the probe row is
    # gone and the event was recorded once, by the fallback.
    assert seen == [2]
    assert rows(db, "SELECT value FROM trek_meta WHERE key = 'probe'") == []
    assert rows(db, "SELECT originator_version, topic FROM {events} "
                    "ORDER BY originator_version") == [
        (1, "domain.events:CampaignStarted"), (2, "domain.events:SuppliesAdded")]
    # The read models were brought up to it afterwards (`_finish`).
    assert rows(db, "SELECT events FROM trek_view_campaigns") == [(2,)]
    assert rows(db, "SELECT seq FROM trek_chain_heads") == [(2,)]
    with Trek.open(db, rulesets=RULESETS, gm="gm") as trek:
        assert trek.projector.lag() == 0
        assert trek.queries.status(None)["supplies"]["provisions"] == 3


def test_an_event_recorded_after_a_read_left_its_transaction_open_is_committed(
        pg_url: str) -> None:
    """A read on the read models' connection that leaves PostgreSQL's implicit transaction
    open would turn the append's transaction into a savepoint inside it, never committed: the
    append then goes on the library's own connection, and the event is in the store for every
    other connection at once."""
    with Trek.open(pg_url, rulesets=RULESETS, create=True, gm="gm") as trek:
        trek.init("Ash Road", ruleset="besm", seed=7)
    with Trek.open(pg_url, rulesets=RULESETS, gm="gm") as trek:
        views = trek.views.conn  # type: ignore[attr-defined]
        save = trek.app.save

        def after_a_read(*args: Any, **kwargs: Any) -> Any:
            views.execute("SELECT 1")  # a read that did not end its transaction
            return save(*args, **kwargs)

        trek.app.save = after_a_read  # type: ignore[method-assign]
        trek.handle(None, AddSupplies({"provisions": 3}))
        # Acknowledged, and in the store for every other connection at once.
        assert rows(pg_url, "SELECT originator_version FROM {events} "
                            "ORDER BY originator_version") == [(1,), (2,)]
    # The read models follow as after any append made alone: what reads show has it.
    with Trek.open(pg_url, rulesets=RULESETS, gm="gm") as trek:
        assert trek.queries.status(None)["supplies"]["provisions"] == 3

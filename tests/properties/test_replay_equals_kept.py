"""`trek replay` rebuilds exactly the read models every command kept as it went.

For a random history of several campaigns (travel, undos and redos, played through the
application on SQLite and PostgreSQL), every row of every read-model table is read before and
after a rebuild, which folds the log in small batches so that campaigns, days and reversals
straddle them. The kept rows are the independent side: each command folded its own event into
them, one at a time. Some rows of the log's index are first damaged behind Trek's back (a row
deleted, a day changed, a row of an event that does not exist added): the rebuild writes them
as they were.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from contextlib import suppress
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_undo_on_stores import HISTORIES, SETUP, Command, play, start

import projections.projector
from domain.commands.history import Redo, Undo
from domain.errors import RuleViolation
from projections.db import VIEW_TABLES
from tracker.app import Trek

OpenTrek = Callable[..., Trek]

# Each table's rows in one order, whatever order the database keeps them in.
TABLES = (*VIEW_TABLES, "trek_chain_heads", "trek_view_tracking")
REVERSAL = st.tuples(st.sampled_from(["undo", "redo"]), st.integers(0, 10**6))
DAMAGE = st.lists(st.tuples(st.sampled_from(["delete", "day", "stray"]),
                            st.integers(0, 10**6)), max_size=3)
_names = itertools.count()


def rows(trek: Trek) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every read-model table, sorted (the kept status documents by campaign)."""
    db = trek.projector.db
    return {table: sorted(db.query(f"SELECT * FROM {table}"), key=repr) for table in TABLES}


def reverse(trek: Trek, slug: str, kind: str, pick: int) -> None:
    """Undo (with what depends on it) or redo one of the campaign's events, if it may be."""
    events = int(trek.queries.status(slug)["events"])
    seq = 2 + pick % (events - 1)
    with suppress(RuleViolation):  # refused: nothing recorded
        trek.handle(slug, Undo(seq, cascade=True) if kind == "undo" else Redo(seq))


def damage(trek: Trek, cids: list[str], harm: list[tuple[str, int]]) -> None:
    """Change the log's index behind Trek's back, as a person with a database client could."""
    db = trek.projector.db
    with db.transaction() as cursor:
        for kind, pick in harm:
            cid = cids[pick % len(cids)]
            cursor.execute("SELECT max(seq) FROM trek_view_entries WHERE campaign_id = ?", (cid,))
            last = int(cursor.fetchall()[0][0])
            seq = 1 + pick % last
            if kind == "delete":
                cursor.execute("DELETE FROM trek_view_entries WHERE campaign_id = ? AND seq = ?",
                               (cid, seq))
            elif kind == "day":
                cursor.execute("UPDATE trek_view_entries SET day = day + 7 "
                               "WHERE campaign_id = ? AND seq = ?", (cid, seq))
            else:
                cursor.execute("INSERT INTO trek_view_entries (campaign_id, seq, type, day, "
                               "session, cancelled_by) VALUES (?, ?, 'Moved', 1, NULL, NULL)",
                               (cid, last + 1 + pick % 3))


@pytest.mark.slow
def test_a_rebuild_writes_exactly_the_read_models_the_commands_kept(
        db: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch) -> None:
    trek = open_trek(db, create=True)
    # Small batches: a campaign's events, and a reversal and the events it names, fall in
    # different batches of the rebuild.
    monkeypatch.setattr(projections.projector, "REBUILD_BATCH", 7)

    @settings(max_examples=12, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(histories=st.lists(st.tuples(HISTORIES, st.lists(REVERSAL, max_size=3)),
                              min_size=1, max_size=2),
           harm=DAMAGE)
    def check(histories: list[tuple[list[Command], list[tuple[str, int]]]],
              harm: list[tuple[str, int]]) -> None:
        slugs = [start(trek, f"kept {next(_names)}") for _ in histories]
        for slug, (commands, reversals) in zip(slugs, histories, strict=True):
            for command in [*SETUP, *commands]:
                try:
                    play(trek, slug, command)
                except RuleViolation:
                    continue
            for kind, pick in reversals:
                reverse(trek, slug, kind, pick)
        kept = rows(trek)
        assert trek.verify_views()["verified"] is True
        damage(trek, [_cid(trek, slug) for slug in slugs], harm)
        if harm:
            assert rows(trek) != kept

        trek.replay()

        assert rows(trek) == kept
        assert trek.verify_views()["verified"] is True

    check()


def _cid(trek: Trek, slug: str) -> str:
    [(cid,)] = trek.projector.db.query(
        "SELECT campaign_id FROM trek_view_campaigns WHERE slug = ?", (slug,))
    return str(cid)

"""Time travel, diff, audit, branches and the hash chain, on memory, SQLite and PostgreSQL.

The journey: the README's day 1 (events 1 to 14, no session), then session 1 plays day 2 (a
move east, a rockfall on Oren, the night's rest) and session 2, run by another GM, takes the move
back. Every expected number is worked out by hand in the comments.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from journeys import record_full_day

from domain.besm.commands import Forage, Repair
from domain.campaign import campaign_id
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.history import Undo
from domain.commands.roster import Harm
from domain.commands.sessions import EndSession, StartSession
from domain.commands.supplies import AddSupplies
from domain.commands.travel import Move, MoveOptions
from domain.errors import NotFound, RuleViolation
from tracker.app import SNAPSHOT_EVERY, Trek
from tracker.points import Point

OpenTrek = Callable[..., Trek]

NOW = Point("now")


def two_sessions(trek: Trek) -> None:
    record_full_day(trek)                                          # 1-14: day 1, no session
    trek.handle(None, StartSession("Into the Reach"))                     # 15
    trek.handle(None, StartDay())                                           # 16: day 2, base 1
    trek.handle(None, Move(MoveOptions(steps=("E",))))                     # 17: 6,1 -> 7,1
    trek.handle(None, Harm("Oren", 30, 0, "rockfall"))                     # 18: Oren 50 -> 20
    trek.handle(None, EndDay(DayEndOptions()))                            # 19
    trek.handle(None, EndSession())                                         # 20
    trek.gm = "gm-2"
    trek.handle(None, StartSession("Second thoughts"))                    # 21
    trek.handle(None, Undo(17, reason="the bridge was out"))               # 22
    trek.handle(None, EndSession())                                         # 23


def without(status: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in status.items() if k not in keys}


# -- time travel --------------------------------------------------------------------------------


def test_as_of_day_n_is_the_state_before_day_n_plus_1_begins(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_sessions(trek)
    # Day 0 lasts until the day start at 7; day 1 until the day start at 16 (its last event is
    # the session opening at 15); day 2 is the current day, so its end is now.
    assert trek.queries.seq_of(None, Point("day", 0)) == 6
    assert trek.queries.seq_of(None, Point("day", 1)) == 15
    assert trek.queries.seq_of(None, Point("day", 2)) == 23
    assert trek.queries.status_at(None, Point("day", 1)) == trek.queries.status(None, as_of=15)
    end_of_day_1 = trek.queries.status_at(None, Point("day", 1))
    assert (end_of_day_1["day"], end_of_day_1["day_open"], end_of_day_1["position"]) == (
        1, False, {"x": 6, "y": 1})
    assert trek.queries.status_at(None, Point("day", 2)) == trek.queries.status(None)
    with pytest.raises(NotFound, match="has not reached day 3; it is on day 2"):
        trek.queries.seq_of(None, Point("day", 3))


def test_as_of_reads_the_same_state_on_either_side_of_a_snapshot(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    trek.init("Counting", seed=1)
    for _ in range(SNAPSHOT_EVERY + 3):
        trek.handle(None, AddSupplies({"wealth": 1}))
    # Event 1 starts the campaign and each later event adds one wealth: wealth = seq - 1.
    for seq in (SNAPSHOT_EVERY - 1, SNAPSHOT_EVERY, SNAPSHOT_EVERY + 1, SNAPSHOT_EVERY + 4):
        status = trek.queries.status(None, as_of=seq)
        assert (status["supplies"]["wealth"], status["events"]) == (seq - 1, seq)


# -- diff ---------------------------------------------------------------------------------------


def test_diff_lists_what_changed_between_two_points(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_sessions(trek)
    result = trek.queries.diff(None, Point("day", 1), NOW)
    assert result["a"] == {"campaign": "ashes-road", "point": "day:1", "seq": 15, "day": 1}
    assert result["b"] == {"campaign": "ashes-road", "point": "now", "seq": 23, "day": 2}
    # The move east was taken back, so the party is still on 6,1. Kira (44/50 after day 1)
    # rests in camp for +6; Oren loses 30 of 50 and regains 5: 25. Session 1 was open at 15.
    assert result["changes"] == [
        {"field": "day", "a": 1, "b": 2},
        {"field": "characters.Kira.health", "a": 44, "b": 50},
        {"field": "characters.Oren.health", "a": 50, "b": 25},
        {"field": "session", "a": 1, "b": None},
    ]
    assert trek.queries.diff(None, NOW, NOW)["changes"] == []
    # Before the roster existed, every member's fields appear on one side only.
    joined = trek.queries.diff(None, Point("seq", 1), Point("seq", 2))["changes"]
    assert {"field": "characters.Kira.health", "a": None, "b": 50} in joined
    assert all(change["a"] is None for change in joined)


# -- audit --------------------------------------------------------------------------------------


def test_audit_reports_each_session(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_sessions(trek)
    sessions = {s["session"]: s for s in trek.queries.audit(None)["sessions"]}
    assert list(sessions) == [1, 2, None]

    first = sessions[1]
    assert (first["title"], first["gms"], first["events"]) == (
        "Into the Reach", ["gm-test"], {"first": 15, "last": 20, "count": 6})
    assert first["days"] == [2]
    # Its only move (17) was cancelled later, so nothing it moved stands.
    assert (first["squares_moved"], first["rolls"], first["supplies"]) == (
        0, [], {"gained": {}, "spent": {}})
    assert first["undos"] == []

    second = sessions[2]
    assert (second["title"], second["gms"], second["days"]) == (
        "Second thoughts", ["gm-2"], [])
    [undo] = second["undos"]
    assert (undo["seq"], undo["action"], undo["events"], undo["gm"], undo["reason"]) == (
        22, "undo", [{"seq": 17, "type": "Moved"}], "gm-2", "the bridge was out")

    # Day 1, outside any session: E E E (3 squares) and on to 6,1 (2 more); four rolls with
    # the GM's totals; provisions 4 set + 2 foraged, ammo 2 set; 2 provisions for the march;
    # Kira's 9 strains Dusty (+1 pending at 10), which costs it a level at the day's end (14).
    day_1 = sessions[None]
    assert (day_1["events"], day_1["days"], day_1["squares_moved"]) == (
        {"first": 1, "last": 14, "count": 14}, [1], 5)
    assert [(r["seq"], r["by"], r["roll"], r["dice"], r["target"], r["success"])
            for r in day_1["rolls"]] == [
        (8, "Oren", 6, None, 7, True), (10, "Kira", 9, None, 7, False),
        (10, "Oren", 5, None, 5, True), (12, "Oren", 5, None, 7, True)]
    assert day_1["supplies"] == {"gained": {"provisions": 6, "ammo": 2},
                                 "spent": {"provisions": 2}}
    assert [(s["seq"], s["conveyance"], s["pending_added"], s["levels_lost"])
            for s in day_1["strain"]] == [(10, "Dusty", 1, 0), (14, "Dusty", 0, 1)]
    assert (day_1["deaths"], day_1["repairs"]) == ([], [])

    assert [s["session"] for s in trek.queries.audit(None, 2)["sessions"]] == [2]
    with pytest.raises(NotFound, match="no session 3; ashes-road has sessions 1 to 2"):
        trek.queries.audit(None, 3)


def test_audit_lists_a_cancelled_roll_and_counts_a_repair(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)                                   # Dusty at 0 of 1 after day 1
    trek.handle(None, StartSession("Mending"))                     # 15
    trek.handle(None, StartDay())                                    # 16
    trek.handle(None, Forage(roll=5))              # 17: +2 provisions
    trek.handle(None, Undo(17, reason="no game here"))              # 18
    trek.handle(None, Repair(conveyance="Dusty", by="Oren", roll=6))   # 19
    [session] = trek.queries.audit(None, 1)["sessions"]
    assert [(r["seq"], r["type"], r["cancelled_by"]) for r in session["rolls"]] == [
        (17, "Foraged", 18), (19, "Repaired", None)]
    # The cancelled forage gains nothing; the repair (6 vs 7) restores Dusty's lost level.
    assert session["supplies"] == {"gained": {}, "spent": {}}
    assert session["repairs"] == [{"seq": 19, "day": 2, "conveyance": "Dusty", "by": "Oren",
                                   "success": True, "levels_restored": 1}]


# -- branches -----------------------------------------------------------------------------------


def test_a_branch_starts_with_the_original_history_and_goes_its_own_way(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_sessions(trek)
    original_log = trek.queries.log("ashes-road")

    [started] = trek.branch("ashes-road", "Plan B", at=14)
    assert (started["seq"], started["type"], started["slug"]) == (1, "CampaignStarted", "plan-b")
    origin = started["branched_from"]
    assert (origin["campaign"], origin["seq"], origin["gm"]) == ("ashes-road", 14, "gm-2")
    assert origin["hash"] == trek.reader.event("ashes-road", 14).event_hash()

    branch_log = trek.queries.log("plan-b")
    assert [e["seq"] for e in branch_log] == list(range(1, 15))
    strip = ("slug", "name", "branched_from")
    assert [without(e, *strip) for e in branch_log] == [
        without(e, *strip) for e in original_log[:14]]
    assert trek.queries.diff(None, Point("seq", 14, "ashes-road"), Point("now", 0, "plan-b")
                     )["changes"] == []
    assert trek.queries.log("ashes-road") == original_log  # the original is untouched

    # In the branch the party starts day 2 and walks east instead.
    trek.handle("plan-b", StartDay())
    trek.handle("plan-b", Move(MoveOptions(steps=("E",))))
    changes = trek.queries.diff(None, Point("now", 0, "ashes-road"), Point("now", 0, "plan-b"))
    assert changes["changes"] == [
        {"field": "day_open", "a": False, "b": True},
        {"field": "position", "a": {"x": 6, "y": 1}, "b": {"x": 7, "y": 1}},
        {"field": "movement.budget", "a": 0, "b": 1},
        {"field": "movement.used", "a": 0, "b": 1},
        {"field": "characters.Kira.health", "a": 50, "b": 44},
        {"field": "characters.Oren.health", "a": 25, "b": 50},
    ]
    assert trek.verify_chain()["verified"] is True


def test_a_branch_keeps_the_cancellations_made_before_its_cut(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_sessions(trek)
    trek.branch("ashes-road", "Whole")
    log = trek.queries.log("whole")
    assert {e["seq"]: e["cancelled_by"] for e in log if e["cancelled_by"]} == {17: 22}
    assert without(trek.queries.status("whole"), "campaign", "name") == without(
        trek.queries.status("ashes-road"), "campaign", "name")
    assert trek.verify_views()["verified"] is True


def test_branch_refusals_record_nothing(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)
    before = trek.app.recorder.max_notification_id()
    with pytest.raises(RuleViolation, match="already has a campaign called 'ashes-road'"):
        trek.branch(None, "Ashes Road")
    trek.init("Other", seed=2)
    after_init = trek.app.recorder.max_notification_id()
    assert after_init == (before or 0) + 1
    with pytest.raises(RuleViolation, match="already has a campaign called 'other'"):
        trek.branch("ashes-road", "Other")
    with pytest.raises(NotFound, match="no event 15; the log of ashes-road runs 1 to 14"):
        trek.branch("ashes-road", "Later", at=15)
    assert trek.app.recorder.max_notification_id() == after_init
    assert [c["slug"] for c in trek.campaigns()] == ["ashes-road", "other"]


# -- the hash chain -----------------------------------------------------------------------------


def edit_row(store: str, slug: str, seq: int, old: bytes, new: bytes) -> None:
    """Change one stored event's bytes behind Trek's back, as someone with the file could."""
    cid = campaign_id(slug)
    if store.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(store) as conn:
            (state,) = conn.execute(
                "SELECT state FROM trek_events WHERE originator_id = %s "
                "AND originator_version = %s", (cid, seq)).fetchone() or (None,)
            assert state is not None
            assert old in bytes(state)
            conn.execute("UPDATE trek_events SET state = %s WHERE originator_id = %s "
                         "AND originator_version = %s",
                         (bytes(state).replace(old, new), cid, seq))
        return
    with sqlite3.connect(store) as conn:
        (state,) = conn.execute(
            "SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = ?",
            (cid.hex, seq)).fetchone()
        assert old in bytes(state)
        conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? "
                     "AND originator_version = ?", (bytes(state).replace(old, new), cid.hex, seq))
    conn.close()


def test_verify_names_the_first_broken_link(db: str, open_trek: OpenTrek) -> None:
    trek = open_trek(db, create=True)
    record_full_day(trek)
    trek.close()
    assert open_trek(db).verify_chain() == {"verified": True, "campaigns": [
        {"campaign": "ashes-road", "events": 14, "intact": True, "broken_at": None,
         "problem": None}]}

    # The forage at 12 gained 2 provisions; someone makes it 5.
    edit_row(db, "ashes-road", 12, b'"gained":2', b'"gained":5')
    [report] = open_trek(db).verify_chain()["campaigns"]
    assert (report["intact"], report["broken_at"]) == (False, 12)
    assert "event 12 was changed after it was recorded" in report["problem"]
    edit_row(db, "ashes-road", 12, b'"gained":5', b'"gained":2')
    assert open_trek(db).verify_chain()["verified"] is True


def test_verify_catches_an_edit_to_the_newest_event(db: str, open_trek: OpenTrek) -> None:
    trek = open_trek(db, create=True)
    record_full_day(trek)
    trek.close()
    # No event links to 14 yet; the chain's head kept its hash when it was folded.
    edit_row(db, "ashes-road", 14, b'"hours":8', b'"hours":9')
    [report] = open_trek(db).verify_chain("ashes-road")["campaigns"]
    assert (report["intact"], report["broken_at"]) == (False, 14)
    assert "when it was recorded: it was changed afterwards" in report["problem"]

"""Tamper evidence over everything a store holds, on SQLite and on PostgreSQL.

Each test makes one edit someone holding the file or the database could make behind Trek's
back, then checks that `trek verify` names it, that recording refuses with a sentence and
records nothing, and that `trek replay` will not quietly rebuild over it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, ClassVar

import pytest
from conftest import OpenTrek, trek_env
from journeys import record_full_day

import tracker.app
import tracker.chain_reader
from domain.campaign import campaign_id
from domain.commands.supplies import AddSupplies, SpendSupplies
from domain.errors import TamperedLog
from domain.events import CHAIN_FORMAT

pytestmark = pytest.mark.slow


def sql(store: str, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run one statement on the store's own tables, as a person with a database client could.

    `{events}` and `{snapshots}` name the event and snapshot tables; `?` marks a parameter.
    """
    if store.startswith("postgresql://"):
        import psycopg

        text = statement.format(events="trek_events", snapshots="trek_snapshots")
        with psycopg.connect(store) as conn:
            cursor = conn.execute(text.replace("?", "%s"), params)
            return list(cursor.fetchall()) if cursor.description else []
    import sqlite3

    conn = sqlite3.connect(store)
    try:
        with conn:
            text = statement.format(events="stored_events", snapshots="stored_snapshots")
            return conn.execute(text, params).fetchall()
    finally:
        conn.close()


def cid(store: str) -> Any:
    """The campaign id as the store's column holds it."""
    ident = campaign_id("ashes-road")
    return ident if store.startswith("postgresql://") else ident.hex


def edit_state(store: str, seq: int, old: bytes, new: bytes) -> None:
    """Change one stored event's bytes in place."""
    [(state,)] = sql(store, "SELECT state FROM {events} WHERE originator_id = ? "
                     "AND originator_version = ?", (cid(store), seq))
    assert old in bytes(state)
    sql(store, "UPDATE {events} SET state = ? WHERE originator_id = ? AND originator_version = ?",
        (bytes(state).replace(old, new), cid(store), seq))


def count_events(store: str) -> int:
    return int(sql(store, "SELECT count(*) FROM {events}")[0][0])


def report(open_trek: OpenTrek, store: str) -> dict[str, Any]:
    [found] = open_trek(store).verify_chain()["campaigns"]
    return found


def refuses_to_record(open_trek: OpenTrek, store: str, *fragments: str) -> None:
    before = count_events(store)
    with pytest.raises(TamperedLog) as refused:
        open_trek(store).handle(None, AddSupplies({"ammo": 1}))
    for fragment in fragments:
        assert fragment in str(refused.value)
    assert count_events(store) == before


def journey(open_trek: OpenTrek, store: str) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)                 # events 1 to 14
    trek.close()
    assert open_trek(store).verify_chain()["verified"] is True


def test_new_events_are_recorded_under_the_chain_format_that_covers_the_row(
        db: str, open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    states = [bytes(row[0]) for row in sql(db, "SELECT state FROM {events}")]
    assert len(states) == 14
    assert all(f'"chain":{CHAIN_FORMAT}'.encode() in state for state in states)


def test_the_newest_event_deleted_is_noticed_and_its_seq_never_reused(
        db: str, open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    sql(db, "DELETE FROM {events} WHERE originator_id = ? AND originator_version = 14",
        (cid(db),))
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"], found["events"]) == (False, 14, 13)
    assert "event 14 was recorded and cannot be found" in found["problem"]
    refuses_to_record(open_trek, db, "event 14 was recorded and cannot be found now")
    # Still noticed after a rebuild is asked for: replay refuses over the damage.
    with pytest.raises(TamperedLog, match="is damaged at event 14"):
        open_trek(db).replay()


def test_a_changed_topic_is_noticed_and_never_imported(db: str,
                                                       open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    # Event 14 (the day end) renamed as the standard library's `this`, which prints a poem
    # when imported.
    sql(db, "UPDATE {events} SET topic = 'this:x' WHERE originator_id = ? "
        "AND originator_version = 14", (cid(db),))
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"]) == (False, 14)
    assert "event 14 hashes to" in found["problem"]
    run = subprocess.run([sys.executable, "-m", "cli", "supplies", "add", "ammo=1"],
                         env=trek_env(db), capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 1, run
    assert "Beautiful is better than ugly" not in run.stdout + run.stderr
    # The damage is named, never blamed on a newer Trek.
    assert "damaged at event 14 (event 14 hashes to" in run.stderr
    assert "changed afterwards" in run.stderr
    assert "newer Trek" not in run.stderr
    assert count_events(db) == 14


def test_a_topic_changed_to_another_trek_event_is_noticed(db: str,
                                                         open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    # Event 7 (the day start) made to read as a day end of the same ruleset: a valid topic,
    # so only the chain over the row's identity can tell.
    [(topic,)] = sql(db, "SELECT topic FROM {events} WHERE originator_id = ? "
                     "AND originator_version = 7", (cid(db),))
    assert topic.endswith(":DayStarted")
    sql(db, "UPDATE {events} SET topic = ? WHERE originator_id = ? "
        "AND originator_version = 7", (topic.replace("DayStarted", "DayEnded"), cid(db)))
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"]) == (False, 7)
    assert "event 7 was changed after it was recorded" in found["problem"]


def test_an_edited_snapshot_is_refused(db: str, open_trek: OpenTrek,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tracker.app, "SNAPSHOT_EVERY", 5)
    trek = open_trek(db, create=True)
    record_full_day(trek)                 # snapshots at events 5 and 10
    provisions = trek.queries.status(None)["supplies"]["provisions"]
    trek.close()
    rows = sql(db, "SELECT originator_version, state FROM {snapshots} "
               "WHERE originator_id = ? ORDER BY originator_version", (cid(db),))
    assert [version for version, _ in rows] == [5, 10]
    state = bytes(rows[-1][1])
    edited = state.replace(b'"provisions":', b'"provisions":5000', 1)
    # The number that followed is now the tail of 5000N: still valid JSON, a bigger number.
    assert edited != state
    sql(db, "UPDATE {snapshots} SET state = ? WHERE originator_id = ? "
        "AND originator_version = 10", (edited, cid(db)))
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"]) == (False, 10)
    assert "the snapshot at event 10 was changed after it was taken" in found["problem"]
    refuses_to_record(open_trek, db, "snapshot at event 10 was changed")
    # The party cannot spend what the edit gave it either.
    with pytest.raises(TamperedLog):
        open_trek(db).handle(None, SpendSupplies({"provisions": provisions + 1}))


def test_snapshots_are_checked_a_page_at_a_time_to_the_last(
        db: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch) -> None:
    # Snapshots every 2 events, read 2 at a time: the edited one is on the last page.
    monkeypatch.setattr(tracker.app, "SNAPSHOT_EVERY", 2)
    monkeypatch.setattr(tracker.chain_reader, "SNAPSHOT_PAGE", 2)
    trek = open_trek(db, create=True)
    record_full_day(trek)
    trek.close()
    versions = [v for (v,) in sql(db, "SELECT originator_version FROM {snapshots} "
                                  "WHERE originator_id = ? ORDER BY originator_version",
                                  (cid(db),))]
    assert len(versions) >= 5
    assert report(open_trek, db)["intact"] is True
    last = versions[-1]
    [(state,)] = sql(db, "SELECT state FROM {snapshots} WHERE originator_id = ? "
                     "AND originator_version = ?", (cid(db), last))
    edited = bytes(state).replace(b'"provisions":', b'"provisions":5000', 1)
    assert edited != bytes(state)
    sql(db, "UPDATE {snapshots} SET state = ? WHERE originator_id = ? "
        "AND originator_version = ?", (edited, cid(db), last))
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"]) == (False, last)
    assert f"the snapshot at event {last} was changed after it was taken" in found["problem"]


def test_replay_refuses_over_an_edited_newest_event_until_told_to_accept_it(
        db: str, open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    edit_state(db, 14, b'"hours":8', b'"hours":9')
    assert report(open_trek, db)["broken_at"] == 14
    with pytest.raises(TamperedLog, match="accept-tampering"):
        open_trek(db).replay()
    # The refused replay changed nothing: verify still sees the edit.
    assert report(open_trek, db)["broken_at"] == 14
    refuses_to_record(open_trek, db, "event 14 was changed")
    # Told to take the log as it now stands, the rebuild goes ahead and the store records again.
    trek = open_trek(db)
    assert trek.replay(accept_tampering=True)["rebuilt"] is True
    assert trek.verify_chain()["verified"] is True
    trek.handle(None, AddSupplies({"ammo": 1}))
    assert count_events(db) == 15


def test_a_broken_chain_in_the_middle_refuses_new_events(db: str,
                                                        open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    edit_state(db, 12, b'"gained":2', b'"gained":5')
    refuses_to_record(open_trek, db, "damaged at event 12 (",
                      "event 12 was changed after it was recorded")



def views_of(store: str) -> list[tuple[Any, ...]]:
    """The stored read models (campaign row and state), as a rebuild would leave them."""
    return (sql(store, "SELECT events, last_hash, cancelled_json FROM trek_view_campaigns")
            + sql(store, "SELECT game_json FROM trek_view_state"))


DAMAGE = {
    # Each: the edit, and the event `trek verify` names as broken.
    "a middle event edited": (lambda s: edit_state(s, 12, b'"gained":2', b'"gained":5'), 12),
    "a middle event deleted": (lambda s: sql(
        s, "DELETE FROM {events} WHERE originator_id = ? AND originator_version = 9",
        (cid(s),)), 9),
    "the newest event edited": (lambda s: edit_state(s, 14, b'"hours":8', b'"hours":9'), 14),
    "the newest event deleted": (lambda s: sql(
        s, "DELETE FROM {events} WHERE originator_id = ? AND originator_version = 14",
        (cid(s),)), 14),
    "an event made unreadable": (lambda s: sql(
        s, "UPDATE {events} SET state = ? WHERE originator_id = ? AND originator_version = 11",
        (b"not json", cid(s))), 11),
    "a topic no release knows": (lambda s: sql(
        s, "UPDATE {events} SET topic = 'this:x' WHERE originator_id = ? "
        "AND originator_version = 13", (cid(s),)), 13),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_replay_checks_the_chain_as_it_folds_and_refuses_as_verify_reports(
        db: str, open_trek: OpenTrek, damage: str) -> None:
    """Replay reads the log once, checking each link as it folds; whatever the damage, it
    refuses with the break `trek verify` names and leaves the read models as they were."""
    journey(open_trek, db)
    before = views_of(db)
    edit, broken_at = DAMAGE[damage]
    edit(db)
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"]) == (False, broken_at)
    with pytest.raises(TamperedLog) as refused:
        open_trek(db).replay()
    assert f"is damaged at event {broken_at} ({found['problem']})" in str(refused.value)
    assert views_of(db) == before


def test_replay_of_an_intact_log_reads_it_once(db: str, open_trek: OpenTrek,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """On an intact log the chain is checked within the rebuild: the separate walk that
    `trek verify` makes (a second read of every event) is never taken."""
    replays_an_intact_log_reading_it_once(open_trek, db, monkeypatch)


def replays_an_intact_log_reading_it_once(open_trek: OpenTrek, db: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Replay a journey's intact log and check it is rebuilt as it stood, without the walk
    `trek verify` makes."""
    monkeypatch.setattr(tracker.app, "SNAPSHOT_EVERY", 5)
    journey(open_trek, db)
    before = views_of(db)

    def second_read(*_: Any, **__: Any) -> None:
        raise AssertionError("the log was walked a second time")

    monkeypatch.setattr(tracker.chain_reader, "check_chain", second_read)
    assert open_trek(db).replay()["notifications"] == 14
    assert views_of(db) == before


# -- the chains walked beside the replay (a long SQLite log) -----------------------------------


class _Beside(tracker.chain_reader.ParallelLinks):
    """`ParallelLinks`, kept to be looked at: whether its walk ran in a process of its own."""

    made: ClassVar[list[_Beside]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ran = False
        _Beside.made.append(self)

    def walked_elsewhere(self) -> bool:
        elsewhere = super().walked_elsewhere()
        self.ran = self.ran or elsewhere
        return elsewhere


@pytest.fixture
def beside(monkeypatch: pytest.MonkeyPatch) -> list[_Beside]:
    """Every replay walks the chains in a process of its own, however short its log; the
    walks made, in order."""
    monkeypatch.setattr(tracker.app, "PARALLEL_CHAIN_FROM", 0)
    monkeypatch.setattr(tracker.chain_reader, "ParallelLinks", _Beside)
    _Beside.made = []
    return _Beside.made


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_chain_walked_beside_the_replay_refuses_as_the_walk_in_process_does(
        tmp_path: Any, open_trek: OpenTrek, damage: str, beside: list[_Beside]) -> None:
    """Whatever the damage, the walk in a process of its own stops the replay with the break
    `trek verify` names, and the read models stay as they were."""
    db = str(tmp_path / "store.db")
    journey(open_trek, db)
    before = views_of(db)
    edit, broken_at = DAMAGE[damage]
    edit(db)
    found = report(open_trek, db)
    with pytest.raises(TamperedLog) as refused:
        open_trek(db).replay()
    assert f"is damaged at event {broken_at} ({found['problem']})" in str(refused.value)
    assert views_of(db) == before
    assert beside[0].ran
    assert beside[0].child is None  # nothing left running


def test_an_intact_log_walked_beside_the_replay_is_rebuilt_as_in_one_process(
        tmp_path: Any, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch,
        beside: list[_Beside]) -> None:
    replays_an_intact_log_reading_it_once(open_trek, str(tmp_path / "store.db"), monkeypatch)
    assert [links.ran for links in beside] == [True]


def test_a_deleted_chain_head_is_refused_beside_the_replay_too(
        tmp_path: Any, open_trek: OpenTrek, beside: list[_Beside]) -> None:
    db = str(tmp_path / "store.db")
    journey(open_trek, db)
    delete_heads(db)
    with pytest.raises(TamperedLog, match="is damaged at event 14"):
        open_trek(db).replay()
    assert beside[0].ran


def test_a_walk_that_cannot_start_is_made_in_process(
        tmp_path: Any, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch,
        beside: list[_Beside]) -> None:
    db = str(tmp_path / "store.db")
    journey(open_trek, db)
    before = views_of(db)
    monkeypatch.setattr(tracker.chain_reader.sys, "executable", str(tmp_path / "no-python"))
    assert open_trek(db).replay()["notifications"] == 14
    assert views_of(db) == before
    assert not beside[0].ran
    edit_state(db, 12, b'"gained":2', b'"gained":5')
    with pytest.raises(TamperedLog, match="is damaged at event 12"):
        open_trek(db).replay()


def test_a_walk_that_fails_leaves_the_check_to_this_process(
        tmp_path: Any, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch,
        beside: list[_Beside]) -> None:
    """A walk that ends without a verdict (here, given no such table) proves nothing: the chains
    are walked again in this process, and an intact log is rebuilt."""
    db = str(tmp_path / "store.db")
    journey(open_trek, db)
    before = views_of(db)
    monkeypatch.setattr(tracker.app.Projector, "events_table", lambda _self: "no_such_table")
    assert open_trek(db).replay()["rebuilt"] is True
    assert views_of(db) == before
    assert beside[0].ran


# -- damage is named, never blessed (a missing head, a snapshot's event, one sentence) ----------


def delete_heads(store: str) -> None:
    sql(store, "DELETE FROM trek_chain_heads")


def test_a_deleted_chain_head_is_damage_never_a_fresh_start(db: str,
                                                           open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    # The newest event edited, and the head that would tell it deleted.
    edit_state(db, 14, b'"gm":"gm-test"', b'"gm":"gm-evil"')
    delete_heads(db)
    assert report(open_trek, db)["broken_at"] == 14
    # Recording refuses (it would link a new event to the edit and bless it) ...
    refuses_to_record(open_trek, db, "damaged at event 14 (", "chain head", "nothing was recorded")
    # ... and verify keeps saying the chain is broken.
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"], found["events"]) == (False, 14, 14)


def test_a_deleted_chain_head_alone_is_reported_and_replay_needs_to_be_told(
        db: str, open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    delete_heads(db)
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"]) == (False, 14)
    assert "chain head Trek keeps for its newest event was deleted" in found["problem"]
    refuses_to_record(open_trek, db, "damaged at event 14 (")
    with pytest.raises(TamperedLog, match="is damaged at event 14"):
        open_trek(db).replay()
    # Taken as the truth, the head is kept again and recording goes on.
    trek = open_trek(db)
    trek.replay(accept_tampering=True)
    assert trek.verify_chain()["verified"] is True
    trek.handle(None, AddSupplies({"ammo": 1}))
    assert count_events(db) == 15


@pytest.mark.parametrize(("every", "edited"), [(5, 10), (7, 14)],
                         ids=["before-the-newest", "the-newest"])
def test_the_event_a_snapshot_was_taken_at_is_checked_before_recording(
        db: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch, every: int,
        edited: int) -> None:
    """Loading reads the newest snapshot and the events after it; the snapshot records the
    chain's hash at its event, so an edit of that event is refused too."""
    monkeypatch.setattr(tracker.app, "SNAPSHOT_EVERY", every)
    journey(open_trek, db)
    versions = [v for (v,) in sql(db, "SELECT originator_version FROM {snapshots}")]
    assert max(versions) == edited
    edit_state(db, edited, b'"gm":"gm-test"', b'"gm":"gm-evil"')
    assert report(open_trek, db)["broken_at"] == edited
    refuses_to_record(open_trek, db, f"damaged at event {edited} (",
                      f"event {edited} was changed after it was recorded")


def swap(store: str, a: int, b: int) -> None:
    for old, new in ((a, -1), (b, a), (-1, b)):
        sql(store, "UPDATE {events} SET originator_version = ? WHERE originator_id = ? "
            "AND originator_version = ?", (new, cid(store), old))


def test_swapped_rows_are_named_as_swapped(db: str, open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    swap(db, 4, 5)
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"], found["events"]) == (False, 4, 3)
    assert found["problem"].startswith("events 4 and 5 were swapped")
    refuses_to_record(open_trek, db, "damaged at event 4 (events 4 and 5 were swapped")


def test_a_row_moved_further_is_named_with_where_it_went(db: str,
                                                         open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    swap(db, 4, 7)
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"]) == (False, 4)
    assert "the event recorded as event 4 is now stored as event 7" in found["problem"]


def test_a_topic_changed_to_an_unknown_trek_event_is_damage_not_a_newer_trek(
        db: str, open_trek: OpenTrek) -> None:
    journey(open_trek, db)
    sql(db, "UPDATE {events} SET topic = 'domain.events:Nope' WHERE originator_id = ? "
        "AND originator_version = 14", (cid(db),))
    with pytest.raises(TamperedLog) as refused:
        open_trek(db).handle(None, AddSupplies({"ammo": 1}))
    assert "damaged at event 14 (event 14 hashes to" in str(refused.value)
    assert "newer Trek" not in str(refused.value)
    assert count_events(db) == 14


DELETED = {"the newest": 14, "a middle": 9}


@pytest.mark.parametrize("which", sorted(DELETED))
def test_a_deleted_event_gets_one_sentence_from_every_command(
        db: str, open_trek: OpenTrek, trek_run: Any, which: str) -> None:
    journey(open_trek, db)
    seq = DELETED[which]
    sql(db, "DELETE FROM {events} WHERE originator_id = ? AND originator_version = ?",
        (cid(db), seq))
    commands: list[tuple[str, ...]] = [("log",), ("log", "--json"), ("undo",),
                                       ("supplies", "add", "ammo=1")]
    if which == "the newest":
        commands += [("status",), ("status", "--json"), ("audit",), ("recap",),
                     ("diff", "1", "now")]
    for command in commands:
        run = trek_run(*command, db=db)
        assert run.returncode == 1, run
        [line] = run.stderr.splitlines()
        assert line.startswith(f"Error: The log of ashes-road is damaged at event {seq} ("), run
        assert line.endswith("`trek verify` says more."), run
        assert "could not finish" not in line, run
    assert count_events(db) == 13


def edit_read_models(store: str) -> None:
    """777 provisions in the kept status document and in the stored game state."""
    for table, column in (("trek_view_state", "status_json"), ("trek_view_state", "game_json")):
        [(text,)] = sql(store, f"SELECT {column} FROM {table}")
        document = json.loads(text)
        document["supplies"]["provisions"] = 777
        sql(store, f"UPDATE {table} SET {column} = ?", (json.dumps(document),))


def test_verify_compares_the_read_models_with_the_log(db: str, open_trek: OpenTrek,
                                                      trek_run: Any) -> None:
    journey(open_trek, db)
    provisions = open_trek(db).queries.status(None)["supplies"]["provisions"]
    edit_read_models(db)
    assert trek_run("status", "--json", db=db).json()["supplies"]["provisions"] == 777
    run = trek_run("verify", db=db)
    assert run.returncode == 1, run
    assert "hash chain of 14 events is intact" in run.stdout
    assert (f"Error: The read models of ashes-road differ from its log (supplies.provisions "
            f"is stored as 777 but the log gives {provisions}); `trek replay` rebuilds them."
            ) in run.stderr
    report_json = trek_run("verify", "--json", db=db).json()
    assert report_json["verified"] is False
    [found] = report_json["campaigns"]
    assert found["intact"] is True
    assert any("kept status document" in d for d in found["read_models"])
    # The log itself is intact: a replay rebuilds them, and verify passes.
    assert trek_run("replay", db=db).returncode == 0
    assert trek_run("verify", "--json", db=db).json()["verified"] is True
    assert trek_run("status", "--json", db=db).json()["supplies"]["provisions"] == provisions


TRACKING = {"deleted": "DELETE FROM trek_view_tracking",
            "past the end": "UPDATE trek_view_tracking SET notification_id = 999999",
            "negative": "UPDATE trek_view_tracking SET notification_id = -5"}


@pytest.mark.parametrize("damage", sorted(TRACKING))
def test_a_corrupted_tracking_row_warns_and_the_event_stands(
        db: str, open_trek: OpenTrek, trek_run: Any, damage: str) -> None:
    journey(open_trek, db)
    ammo = open_trek(db).queries.status(None)["supplies"]["ammo"]
    sql(db, TRACKING[damage])
    run = trek_run("supplies", "add", "ammo=1", db=db)
    # Recorded: exit 0 and the usual line, so a script never records it twice ...
    assert run.returncode == 0, run
    assert "#15 " in run.stdout
    # ... and one line on stderr says what happened to the read models.
    [warning] = run.stderr.splitlines()
    assert warning.startswith("Warning: "), run
    assert "repaired" in warning, run
    assert count_events(db) == 15
    status = trek_run("status", "--json", db=db).json()
    assert (status["events"], status["supplies"]["ammo"]) == (15, ammo + 1)
    verified = trek_run("replay", "--verify", "--json", db=db).json()
    assert (verified["verified"], verified["behind"]) == (True, 0)


# -- a head moved back, every event deleted (issue 40) -------------------------------------------


def truncate(store: str, keep: int) -> None:
    """Delete every event after `keep` and move the chain head back to event `keep`, with the
    hash the first deleted event linked to: the log and its head agree, as one edit could
    leave them."""
    [(state,)] = sql(store, "SELECT state FROM {events} WHERE originator_id = ? "
                     "AND originator_version = ?", (cid(store), keep + 1))
    linked = json.loads(bytes(state))["prev_hash"]
    sql(store, "DELETE FROM {events} WHERE originator_id = ? AND originator_version > ?",
        (cid(store), keep))
    sql(store, "UPDATE trek_chain_heads SET seq = ?, hash = ?", (keep, linked))


def test_newest_events_deleted_with_the_head_moved_back_stay_damage(
        db: str, open_trek: OpenTrek, trek_run: Any) -> None:
    """The read models folded events 13 and 14 with the head; a head moved back to event 12
    does not make their deletion a fresh end of the log, and their positions are never
    reused."""
    journey(open_trek, db)
    truncate(db, 12)
    found = report(open_trek, db)
    assert (found["intact"], found["broken_at"], found["events"]) == (False, 13, 12)
    assert "events 13 to 14 were recorded and cannot be found" in found["problem"]
    refuses_to_record(open_trek, db, "damaged at event 13 (events 13 to 14 were recorded",
                      "nothing was recorded")
    with pytest.raises(TamperedLog, match="is damaged at event 13"):
        open_trek(db).replay()
    # The refusals changed nothing: the damage is still told, by every command.
    for command in (("verify",), ("supplies", "add", "provisions=1"), ("replay",),
                    ("status",), ("log", "--last", "3")):
        run = trek_run(*command, db=db)
        assert run.returncode == 1, run
        # One sentence (verify lists each campaign's chain on the lines before it).
        line = run.stderr.splitlines()[-1]
        assert line.startswith("Error: The log of ashes-road is damaged at event 13 ("), run
    verified = trek_run("verify", db=db)
    assert "restore the store from a backup, or take the log as it now stands with `trek " \
        "replay --accept-tampering`" in verified.stderr
    assert count_events(db) == 12
    # Taken as the truth, the log records again from event 13.
    trek = open_trek(db)
    trek.replay(accept_tampering=True)
    assert trek.verify_chain()["verified"] is True
    trek.handle(None, AddSupplies({"ammo": 1}))
    assert count_events(db) == 13


def test_every_event_deleted_is_damage_named_by_every_command(
        db: str, open_trek: OpenTrek, trek_run: Any) -> None:
    journey(open_trek, db)
    sql(db, "DELETE FROM {events}")
    found = report(open_trek, db)
    assert (found["campaign"], found["intact"], found["broken_at"], found["events"]) == (
        "ashes-road", False, 1, 0)
    assert "events 1 to 14 were recorded and cannot be found" in found["problem"]
    refuses_to_record(open_trek, db, "damaged at event 1 (events 1 to 14 were recorded",
                      "nothing was recorded")
    for command in (("verify",), ("verify", "--campaign", "ashes-road"), ("replay",),
                    ("supplies", "add", "provisions=1"), ("status",), ("log",)):
        run = trek_run(*command, db=db)
        assert run.returncode == 1, run
        line = run.stderr.splitlines()[-1]
        assert line.startswith("Error: The log of ashes-road is damaged at event 1 (events 1 "
                               "to 14 were recorded and cannot be found"), run
    # Plain replay refused: the read models still know the campaign.
    assert sql(db, "SELECT slug FROM trek_view_campaigns") == [("ashes-road",)]
    # Told to take the empty log as the truth, the campaign is gone, and verify says so.
    assert trek_run("replay", "--accept-tampering", db=db).returncode == 0
    emptied = trek_run("verify", db=db)
    assert emptied.returncode == 0, emptied
    assert "The store holds no campaign" in emptied.stdout


def test_a_log_index_row_of_another_kind_is_one_sentence_and_verify_names_it(
        db: str, open_trek: OpenTrek, trek_run: Any) -> None:
    """Event 9 is a move; its index row made to say Foraged would have its stored move read
    as a forage (which has rolls the move lacks)."""
    journey(open_trek, db)
    [(topic,)] = sql(db, "SELECT topic FROM {events} WHERE originator_id = ? "
                     "AND originator_version = 9", (cid(db),))
    assert topic.endswith(":Moved")
    sql(db, "UPDATE trek_view_entries SET type = 'Foraged' WHERE seq = 9")
    sentence = ("Error: The log of ashes-road cannot be shown: the log's index names event 9 a "
                "Foraged, but the event store holds a Moved there, so one of them was changed "
                "behind Trek's back; `trek replay --verify` names every read model that differs "
                "from the log (`trek replay` rebuilds them) and `trek verify` checks the log "
                "itself.")
    for command in (("log",), ("log", "--json"), ("log", "--csv"), ("log", "--day", "1")):
        run = trek_run(*command, db=db)
        assert run.returncode == 1, run
        assert run.stderr.splitlines() == [sentence], run
    # A page that does not reach event 9 is shown as it is.
    assert trek_run("log", "--last", "3", db=db).returncode == 0
    verified = trek_run("verify", db=db)
    assert verified.returncode == 1, verified
    assert ("Error: The read models of ashes-road differ from its log (the log's index names "
            "event 9 a Foraged, but the event store holds a Moved there); `trek replay` "
            "rebuilds them.") in verified.stderr
    deep = trek_run("replay", "--verify", db=db)
    assert deep.returncode == 1, deep
    assert "ashes-road: log entry 9 differs" in deep.stdout + deep.stderr
    assert trek_run("replay", db=db).returncode == 0
    assert [e["type"] for e in trek_run("log", "--json", db=db).json()][8] == "Moved"
    assert trek_run("verify", db=db).returncode == 0

"""The Trek application on every store: one test body runs on memory, SQLite and PostgreSQL.

The numbers asserted are worked out by hand from RULES.md §3, not read back from the code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from journeys import MAP, record_full_day

from domain.besm.commands import ForcedMarch, Repair, TakeShortcut
from domain.campaign import Campaign, campaign_id
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.history import Redo, Undo
from domain.commands.roster import AddCharacter, AddMount
from domain.commands.supplies import AddSupplies, SetSupplies, SpendSupplies
from domain.commands.travel import Move, MoveOptions
from domain.errors import NotFound, RuleViolation, TrackerError
from domain.events import TrekEvent
from domain.geometry import Square
from domain.options import CharacterOptions
from tracker.app import SNAPSHOT_EVERY, Trek
from tracker.opening import MemoryStores
from tracker.stores import StoreError

OpenTrek = Callable[..., Trek]


# -- the journey --------------------------------------------------------------------------------


def snapshot_of(trek: Trek, slug: str | None = None) -> tuple[Any, ...]:
    """Everything a refused command must leave alone."""
    return (trek.queries.status(slug), trek.queries.log(slug),
            trek.app.recorder.max_notification_id(),
            len(list(trek.app.events.get(campaign_id(trek.resolve(slug))))))


def seqs_cancelled(trek: Trek) -> dict[int, int]:
    return {e["seq"]: e["cancelled_by"] for e in trek.queries.log(None) if e["cancelled_by"]}


# -- tests --------------------------------------------------------------------------------------


def test_full_besm_day_matches_the_rules_worked_by_hand(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)

    documents = {e["seq"]: e for e in trek.queries.log(None)}
    assert list(documents) == list(range(1, 15))
    # Shortcut: navigators' targets are Mind + max(navigation, survival) - 1 (shortcut penalty):
    # Kira 5+2-1 = 6, Oren 6+2-1 = 7, so Oren rolls; 6 <= 7 succeeds by 1 and adds bonus 2.
    shortcut = documents[8]
    assert (shortcut["type"], shortcut["by"], shortcut["target"], shortcut["roll"],
            shortcut["success"], shortcut["bonus"]) == ("ShortcutAttempted", "Oren", 7, 6, True, 2)
    # Forced march: rider targets Body-Soul + max(animal-ken, ride): Kira (6+4)//2+2 = 7,
    # Oren (5+5)//2+0 = 5. Kira's 9 fails (Dusty strains), Oren's 5 is spot on.
    march = documents[10]
    assert (march["target"], march["roll"], march["success"]) == ([7, 5], [9, 5], False)
    assert march["strain"] == {"Dusty": 1}
    assert march["provisions"] == 2
    # The move --to 6,1 from 4,1 takes the two cheapest steps.
    assert documents[11]["cost"] == 2
    assert documents[11]["path"][0] == [4, 1]
    assert documents[11]["path"][-1] == [6, 1]
    # Forage: Body-Mind + survival: Kira (6+5)//2+1 = 6, Oren (5+6)//2+2 = 7; Oren's 5 gives
    # 2 points, 2 provisions.
    forage = documents[12]
    assert (forage["by"], forage["target"], forage["roll"], forage["gained"]) == (
        "Oren", 7, 5, 2)

    status = trek.queries.status(None)
    assert status["campaign"] == "ashes-road"
    assert status["ruleset"] == "besm"
    assert (status["day"], status["day_open"]) == (1, False)
    assert status["position"] == {"x": 6, "y": 1}
    assert status["flying"] is False
    # Dusty lost its level: ground-speed 0 moves 1, so the group's base is 1. No day open: 0s.
    assert status["movement"] == {"base": 1, "budget": 0, "used": 0, "remaining": 0}
    # 4 provisions - 2 for the march + 2 foraged; ammo untouched.
    assert status["supplies"] == {"provisions": 4, "fuel": 0, "ammo": 2, "wealth": 0}
    kira, oren = status["characters"]["Kira"], status["characters"]["Oren"]
    # Kira: Health max (6+4)x5 = 50, Energy max (5+4)x5 = 45; harmed 12/20 -> 38/25; camp
    # gives Body 6 Health -> 44 and Mind-Soul (5+4)//2 = 4 Energy an hour x 8 = 32 -> 45 (cap).
    assert (kira["health"], kira["health_max"], kira["energy"], kira["energy_max"]) == (
        44, 50, 45, 45)
    # Oren: (5+5)x5 = 50 and (6+5)x5 = 55, unharmed, stays at the maxima.
    assert (oren["health"], oren["health_max"], oren["energy"], oren["energy_max"]) == (
        50, 50, 55, 55)
    assert kira["with_party"]
    assert oren["with_party"]
    assert kira["position"] == {"x": 6, "y": 1}
    dusty, bramble = status["conveyances"]["Dusty"], status["conveyances"]["Bramble"]
    assert {k: dusty[k] for k in ("kind", "attribute", "level", "base_level", "pending_strain",
                                  "state", "with_party")} == {
        "kind": "mount", "attribute": "ground-speed", "level": 0, "base_level": 1,
        "pending_strain": 0, "state": "ok", "with_party": True}
    assert (bramble["level"], bramble["pending_strain"], bramble["state"]) == (1, 0, "ok")
    assert status["events"] == 14

    day_end = documents[14]
    assert day_end["strain"] == {"Dusty": {"lost": 1, "level": 0, "state": "ok"}}
    assert day_end["recovery"]["Kira"] == {"mode": "camp", "health": 6, "energy": 32}
    assert day_end["recovery"]["Oren"] == {"mode": "camp", "health": 5, "energy": 40}


def test_a_refused_command_records_nothing(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    trek.init("Ashes Road", map_text=MAP, at=Square(1, 1), seed=42)
    trek.handle(None, AddCharacter(CharacterOptions(
        name="Kira", extra={"body": 6, "mind": 5, "soul": 4})))
    trek.handle(None, AddMount("Dusty", ("ground-speed", 1), "Kira"))

    refusals: list[Callable[[], object]] = [
        lambda: trek.handle(None, Move(MoveOptions(steps=("E",)))),                 # no day open
        lambda: trek.handle(None, EndDay(DayEndOptions())),                        # no day open
        lambda: trek.handle(None, Undo(1)),  # keeps the books
        lambda: trek.handle(None, Redo(2)),                                         # not cancelled
        lambda: trek.handle(None, Undo(99)),                                        # no such event
        lambda: trek.handle(None, SpendSupplies({"provisions": 1})),            # has none
        lambda: trek.handle(None, AddCharacter(CharacterOptions(name="Kira",
            extra={"body": 1, "mind": 1, "soul": 1}))),
        lambda: trek.init("Ashes Road"),                                    # same name
    ]
    for refuse in refusals:
        before = snapshot_of(trek)
        with pytest.raises(TrackerError):
            refuse()
        assert snapshot_of(trek) == before

    trek.handle(None, StartDay())  # budget 2: Dusty's ground-speed 1
    day_refusals: list[Callable[[], object]] = [
        lambda: trek.handle(None, Move(MoveOptions(steps=("E",)))),  # mountains at 2,1
        lambda: trek.handle(None, Move(MoveOptions(steps=("S", "S", "S")))),  # 3 > 2, all or none
        lambda: trek.handle(None, Move(MoveOptions(steps=("N", "N")))),             # off the map
        lambda: trek.handle(None, Move(MoveOptions(to=Square(9, 3)))),              # too far today
        lambda: trek.handle(None, ForcedMarch(rolls={"Kira": 5})),             # no provisions
        lambda: trek.handle(None, TakeShortcut(name="Nowhere", roll=5)),
        lambda: trek.handle(None, Repair(conveyance="Dusty", by="Kira", roll=5)),
        lambda: trek.handle(None, StartDay()),                                       # day 1 is open
    ]
    for refuse in day_refusals:
        before = snapshot_of(trek)
        with pytest.raises(TrackerError):
            refuse()
        assert snapshot_of(trek) == before
    assert trek.queries.status(None)["events"] == 4
    assert trek.verify_views()["verified"] is True


def test_undo_the_latest_event_then_redo_it(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)
    after_day = trek.queries.status(None)

    [undone] = trek.handle(None, Undo(reason="too early"))
    assert (undone["seq"], undone["type"], undone["cancels"]) == (15, "EventsCancelled", [14])
    status = trek.queries.status(None)
    # The day is open again: budget 2 + 2 (shortcut) + 2 (march) = 6, all of it used.
    assert (status["day"], status["day_open"]) == (1, True)
    assert status["movement"] == {"base": 2, "budget": 6, "used": 6, "remaining": 0}
    # The strain has not landed and nobody has rested.
    dusty = status["conveyances"]["Dusty"]
    assert (dusty["level"], dusty["pending_strain"]) == (1, 1)
    kira = status["characters"]["Kira"]
    assert (kira["health"], kira["energy"]) == (38, 25)
    assert status["events"] == 15
    assert seqs_cancelled(trek) == {14: 15}

    # A reversal is not itself undone: the next undo takes the harm (13) back.
    before_second = trek.queries.status(None)
    [second] = trek.handle(None, Undo())
    assert second["cancels"] == [13]
    assert trek.queries.status(None)["characters"]["Kira"]["health"] == 50
    [back13] = trek.handle(None, Redo(13))
    assert (back13["seq"], back13["type"], back13["restores"]) == (17, "EventsRestored", [13])
    assert trek.queries.status(None) == {**before_second, "events": 17}

    [redone] = trek.handle(None, Redo(14))
    assert (redone["seq"], redone["type"], redone["restores"]) == (18, "EventsRestored", [14])
    assert trek.queries.status(None) == {**after_day, "events": 18}
    assert seqs_cancelled(trek) == {}
    log = trek.queries.log(None)
    assert [e["seq"] for e in log] == list(range(1, 19))
    assert trek.verify_views()["verified"] is True


def test_undo_of_an_earlier_event_is_refused_then_cascades(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)
    after_day = trek.queries.status(None)
    before = snapshot_of(trek)

    # Without the shortcut the first move would cross the mountains on a budget of 2, and the
    # second move would start at 4,1 where the party no longer stands. The march, the forage,
    # the harm and the day's end still stand as recorded.
    with pytest.raises(RuleViolation) as refused:
        trek.handle(None, Undo(8))
    message = str(refused.value)
    assert "event 9 (Moved)" in message
    assert "event 11 (Moved)" in message
    assert "--cascade" in message
    for standing in (10, 12, 13, 14):
        assert f"event {standing} " not in message
    assert snapshot_of(trek) == before

    [reversal] = trek.handle(None, Undo(8, cascade=True, reason="the pass was snowed in"))
    assert (reversal["seq"], reversal["cancels"]) == (15, [8, 9, 11])
    assert seqs_cancelled(trek) == {8: 15, 9: 15, 11: 15}
    status = trek.queries.status(None)
    assert status["position"] == {"x": 1, "y": 1}
    # The march still cost 2 provisions and the forage still found 2.
    assert status["supplies"]["provisions"] == 4
    assert status["conveyances"]["Dusty"]["level"] == 0
    assert status["day_open"] is False

    # Redoing the reversal brings back everything it cancelled, under the same check.
    [restored] = trek.handle(None, Redo(15))
    assert restored["restores"] == [8, 9, 11]
    assert trek.queries.status(None) == {**after_day, "events": 16}
    assert trek.verify_views()["verified"] is True


def test_replay_then_verify_and_verify_notices_a_tampered_view(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)
    trek.handle(None, Undo())
    status, log = trek.queries.status(None), trek.queries.log(None)

    result = trek.replay()
    assert result["rebuilt"] is True
    assert result["notifications"] == 15
    assert trek.verify_views() == {"verified": True, "differences": [], "behind": 0}
    assert trek.queries.status(None) == status
    assert trek.queries.log(None) == log
    assert trek.queries.status(None)["events"] == 15  # replay records nothing

    with trek.views.transaction() as cursor:
        cursor.execute("SELECT campaign_id, game_json FROM trek_view_state")
        [(cid, game_json)] = cursor.fetchall()
        game = json.loads(game_json)
        game["supplies"]["provisions"] = 99
        cursor.execute("UPDATE trek_view_state SET game_json = ? WHERE campaign_id = ?",
                       (json.dumps(game), cid))
    checked = trek.verify_views()
    assert checked["verified"] is False
    assert any("supplies" in problem for problem in checked["differences"])
    trek.replay()
    assert trek.verify_views()["verified"] is True
    assert trek.queries.status(None) == status


def test_status_as_of_is_the_state_right_after_that_event(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)
    trek.handle(None, Undo(13))  # 15: the harm is taken back

    first = trek.queries.status(None, as_of=1)
    assert (first["day"], first["position"], first["characters"], first["events"]) == (
        0, {"x": 1, "y": 1}, {}, 1)
    opened = trek.queries.status(None, as_of=7)
    assert opened["day_open"] is True
    assert opened["movement"] == {"base": 2, "budget": 2, "used": 0, "remaining": 2}
    assert opened["supplies"] == {"provisions": 4, "fuel": 0, "ammo": 2, "wealth": 0}
    moved = trek.queries.status(None, as_of=9)
    assert moved["position"] == {"x": 4, "y": 1}
    assert moved["movement"] == {"base": 2, "budget": 4, "used": 3, "remaining": 1}
    marched = trek.queries.status(None, as_of=10)
    assert marched["movement"]["budget"] == 6
    assert marched["supplies"]["provisions"] == 2
    assert marched["conveyances"]["Dusty"]["pending_strain"] == 1
    # At 14 the harm still counted; the undo at 15 took it away.
    assert trek.queries.status(None, as_of=14)["characters"]["Kira"]["health"] == 44
    assert trek.queries.status(None, as_of=15)["characters"]["Kira"]["health"] == 50
    assert trek.queries.status(None, as_of=15) == trek.queries.status(None)
    for outside in (0, 16):
        with pytest.raises(NotFound, match=f"no event {outside}"):
            trek.queries.status(None, as_of=outside)


def test_two_campaigns_in_one_store(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    trek.init("Ashes Road", seed=1)
    trek.init("Iron Coast", seed=2, at=Square(5, 5))
    assert [c["slug"] for c in trek.campaigns()] == ["ashes-road", "iron-coast"]

    for needs_one in (lambda: trek.resolve(None), lambda: trek.queries.status(None),
                      lambda: trek.handle(None, AddSupplies({"provisions": 1}))):
        with pytest.raises(RuleViolation) as refused:
            needs_one()
        assert "ashes-road, iron-coast" in str(refused.value)
        assert "--campaign" in str(refused.value)

    trek.handle("iron-coast", AddSupplies({"ammo": 3}))
    trek.handle("ashes-road", StartDay())
    ashes, iron = trek.queries.status("ashes-road"), trek.queries.status("iron-coast")
    assert (ashes["events"], ashes["day_open"], ashes["supplies"]["ammo"]) == (2, True, 0)
    assert (iron["events"], iron["day_open"], iron["supplies"]["ammo"]) == (2, False, 3)
    assert iron["position"] == {"x": 5, "y": 5}
    assert [e["type"] for e in trek.queries.log("iron-coast")] == ["CampaignStarted",
                                                                    "SuppliesAdded"]
    assert {c["slug"]: c["events"] for c in trek.campaigns()} == {
        "ashes-road": 2, "iron-coast": 2}
    with pytest.raises(NotFound, match="no campaign called 'nowhere'"):
        trek.queries.status("nowhere")
    with pytest.raises(NotFound, match="ashes-road, iron-coast"):
        trek.handle("nowhere", AddSupplies({"ammo": 1}))
    trek.replay()
    assert trek.verify_views()["verified"] is True


def test_reopening_the_store_sees_the_same_state(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)
    trek.handle(None, Undo())
    status, log = trek.queries.status(None), trek.queries.log(None)
    trek.close()

    again = open_trek(store)
    assert again.queries.status(None) == status
    assert again.queries.log(None) == log
    assert again.verify_views()["verified"] is True
    [added] = again.handle(None, AddSupplies({"fuel": 1}))
    assert (added["seq"], added["type"]) == (16, "SuppliesAdded")
    again.close()

    reader = open_trek(store, writable=False)
    assert reader.queries.status(None)["events"] == 16
    assert reader.queries.log(None)[-1]["seq"] == 16


def test_a_snapshot_is_taken_and_loading_from_it_equals_a_full_fold(
        store: str, open_trek: OpenTrek, monkeypatch: pytest.MonkeyPatch) -> None:
    trek = open_trek(store, create=True)
    trek.init("Long Road", seed=5)                                               # 1
    trek.handle(None, AddCharacter(CharacterOptions(name="Kira",
        extra={"body": 6, "mind": 5, "soul": 4})))  # 2
    trek.handle(None, AddMount("Dusty", ("ground-speed", 1), "Kira"))                   # 3
    trek.handle(None, SetSupplies({"provisions": 10}))                               # 4
    days = 67
    for _ in range(days):                                   # 3 events a day: 5 .. 205
        trek.handle(None, StartDay())
        trek.handle(None, Move(MoveOptions(steps=("E", "E"))))  # Dusty: ground-speed 1 = 2 squares
        trek.handle(None, EndDay(DayEndOptions()))
    last = 4 + 3 * days
    assert last == 205 > SNAPSHOT_EVERY

    cid = campaign_id("long-road")
    assert trek.app.snapshots is not None
    snapshots = list(trek.app.snapshots.recorder.select_events(cid))
    latest = last // SNAPSHOT_EVERY * SNAPSHOT_EVERY
    assert [s.originator_version for s in snapshots] == list(
        range(SNAPSHOT_EVERY, latest + 1, SNAPSHOT_EVERY))

    # Loading reads the snapshot and only the events after it ...
    asked: list[dict[str, Any]] = []
    real_get = trek.app.events.get

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs)
        return real_get(*args, **kwargs)

    monkeypatch.setattr(trek.app.events, "get", spy)
    loaded = trek.reader.get(cid)
    monkeypatch.undo()
    assert [call.get("gt") for call in asked] == [latest]

    # ... and gives what a fold of every event gives.
    folded: Campaign | None = None
    for event in trek.app.events.get(cid):
        assert isinstance(event, TrekEvent)
        folded = event.mutate(folded)
    assert isinstance(loaded, Campaign)
    assert isinstance(folded, Campaign)
    assert loaded.version == folded.version == last
    assert loaded.game.dump() == folded.game.dump()
    assert (loaded.last_hash, loaded.cancelled_in(1, last)) == (
        folded.last_hash, folded.cancelled_in(1, last))

    status = trek.queries.status(None)
    assert status == trek.queries.status(None, as_of=last)
    assert (status["day"], status["day_open"], status["position"]) == (
        days, False, {"x": 2 * days, "y": 0})
    assert status["events"] == last

    # Recording on top of the snapshot, and undoing an event from before it, still work.
    [undo] = trek.handle(None, Undo(4))
    assert undo["cancels"] == [4]
    assert trek.queries.status(None)["supplies"]["provisions"] == 0
    assert trek.verify_views()["verified"] is True
    trek.close()
    reopened = open_trek(store)
    assert reopened.queries.status(None)["events"] == last + 1


def test_a_missing_store_is_not_created(store: str, open_trek: OpenTrek,
                                        memory_stores: MemoryStores) -> None:
    with pytest.raises(StoreError, match="create one with `trek init NAME`"):
        open_trek(store)
    if store.startswith("memory:"):
        assert store not in memory_stores
    elif store.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(store) as conn:
            row = conn.execute("SELECT count(*) FROM information_schema.tables "
                               "WHERE table_schema = current_schema()").fetchone()
        assert row == (0,)
    else:
        assert list(Path(store).parent.iterdir()) == []

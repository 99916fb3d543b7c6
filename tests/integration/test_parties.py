"""Splitting the party and merging parties (RULES.md §15) on memory, SQLite and PostgreSQL.

Every expected figure is worked out by hand from RULES.md §3, §5 and §15, in a comment beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from domain.besm.commands import ForcedMarch
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.history import Redo, Undo
from domain.commands.parties import MergeParties, SplitParty
from domain.commands.roster import AddCharacter, AddMount, AddVehicle, Harm
from domain.commands.supplies import SetSupplies
from domain.commands.travel import Move, MoveOptions
from domain.errors import NotFound, RuleViolation
from domain.geometry import Square
from domain.options import CharacterOptions
from tracker.app import Trek
from tracker.points import Point

OpenTrek = Callable[..., Trek]

OPEN = """\
[map]
name = "Long Road"
rows = [
  "..........",
  "..........",
  "..........",
]

[legend]
"." = { terrain = "open" }
"""

# Cypher: six-mile squares; the row y=0 is a road, (4,1) difficult ground (a third of the rate).
CYPHER = """\
[map]
name = "Steppe"
square_miles = 6
rows = [
  "======",
  "....d.",
]

[legend]
"=" = { terrain = "open", road = true }
"." = { terrain = "open" }
"d" = { terrain = "difficult" }
"""


def hero(name: str, body: int, mind: int, soul: int) -> AddCharacter:
    return AddCharacter(CharacterOptions(name=name,
                                         extra={"body": body, "mind": mind, "soul": soul}))


def steps(*directions: str) -> Move:
    return Move(MoveOptions(steps=directions))


def besm_table(trek: Trek) -> None:
    """Kira (Body 5, Mind 4, Soul 3) rides Dusty (ground-speed 2: 2×2 = 4 squares a day);
    Oren (Body 4, Mind 4, Soul 4) walks (1 a day). Five provisions."""
    trek.init("Long Road", ruleset="besm", map_text=OPEN, at=Square(0, 1), seed=3)     # 1
    trek.handle(None, hero("Kira", 5, 4, 3))                                            # 2
    trek.handle(None, hero("Oren", 4, 4, 4))                                            # 3
    trek.handle(None, AddMount("Dusty", ("ground-speed", 2), "Kira"))                   # 4
    trek.handle(None, SetSupplies({"provisions": 5}))                                   # 5


def status(trek: Trek, party: str | None = None) -> dict[str, Any]:
    return dict(trek.queries.status(None, party=party))


def test_the_riders_split_off_travel_at_their_mounts_rate_and_merge_later(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    besm_table(trek)
    # Together the group goes at its slowest: Oren on foot, 1 square a day.
    assert status(trek)["movement"]["base"] == 1
    [split] = trek.handle(None, SplitParty("riders", ("Kira", "Dusty"),
                                           {"provisions": 2}))                          # 6
    assert (split["type"], split["party"], split["name"]) == ("PartySplit", "main", "riders")
    assert (split["members"], split["supplies"], split["day"]) == (
        ["Kira", "Dusty"], {"provisions": 2}, 0)
    trek.handle(None, Harm("Kira", 10, 0, None))                                        # 7
    trek.handle(None, Harm("Oren", 10, 0, None))                                        # 8

    # The riders: base 4 (Dusty alone sets the pace).
    [day] = trek.handle(None, StartDay(), party="riders")                               # 9
    assert (day["party"], day["budget"]) == ("riders", 4)
    # Forced march: Kira rolls Body-Soul (5+3)/2 = 4 + ride 0 = target 4; 12 fails, so Dusty
    # takes one pending strain; it costs 1 provisions (one travelling mount) of the riders' 2.
    [march] = trek.handle(None, ForcedMarch(rolls={"Kira": 12}), party="riders")        # 10
    assert march["party"] == "riders"
    trek.handle(None, steps(*["E"] * 8), party="riders")                                # 11
    # The walkers keep base 1, their own day, and their own 3 provisions.
    trek.handle(None, StartDay())                                                       # 12
    trek.handle(None, steps("E"))                                                       # 13
    walkers = status(trek)
    assert walkers["party"] == "main"
    assert walkers["movement"] == {"base": 1, "budget": 1, "used": 1, "remaining": 0}
    assert walkers["supplies"]["provisions"] == 3
    assert walkers["position"] == {"x": 1, "y": 1}
    riders = status(trek, "riders")
    assert riders["movement"] == {"base": 4, "budget": 8, "used": 8, "remaining": 0}
    assert riders["supplies"]["provisions"] == 1                         # 2 taken, 1 marched
    assert riders["position"] == {"x": 8, "y": 1}
    assert riders["conveyances"]["Dusty"]["pending_strain"] == 1

    # Each party's day end rests its own: Kira gets camp Health + Body 5 (30 -> 35) at the
    # riders' day end, Oren + Body 4 (30 -> 34) at the walkers'; the strain lands on Dusty
    # (level 2 -> 1) only at the riders' day end.
    trek.handle(None, EndDay(DayEndOptions()), party="riders")                          # 14
    after = status(trek)
    assert (after["characters"]["Kira"]["health"], after["characters"]["Oren"]["health"]) == (
        35, 30)
    assert after["conveyances"]["Dusty"]["level"] == 1
    assert after["day_open"] is True                                     # the walkers' day
    trek.handle(None, EndDay(DayEndOptions()))                                          # 15
    after = status(trek)
    assert (after["characters"]["Kira"]["health"], after["characters"]["Oren"]["health"]) == (
        35, 34)

    # The riders ride back west three days (Dusty at level 1: 2 squares a day), to 2,1.
    for _ in range(3):
        trek.handle(None, StartDay(), party="riders")
        trek.handle(None, steps("W", "W"), party="riders")
        trek.handle(None, EndDay(DayEndOptions()), party="riders")                     # 16-24
    # The walkers walk one more day, to 2,1: their day 2 against the riders' day 4.
    trek.handle(None, StartDay())
    trek.handle(None, steps("E"))
    trek.handle(None, EndDay(DayEndOptions()))                                          # 25-27
    both = status(trek)["parties"]
    assert (both["main"]["day"], both["riders"]["day"]) == (2, 4)
    assert both["main"]["position"] == both["riders"]["position"] == {"x": 2, "y": 1}

    [merged] = trek.handle(None, MergeParties("riders"))                                # 28
    # The later count, 4; the walkers waited 4 - 2 = 2 days; supplies 3 + 1 = 4.
    assert (merged["type"], merged["party"], merged["name"]) == ("PartiesMerged", "main",
                                                                  "riders")
    assert (merged["day"], merged["waited"], merged["days"]) == (4, 2, {"main": 2, "riders": 4})
    whole = status(trek)
    assert whole["day"] == 4
    assert whole["supplies"]["provisions"] == 4
    assert list(whole["parties"]) == ["main"]
    assert whole["parties"]["main"]["members"] == ["Dusty", "Kira", "Oren"]
    assert whole["movement"]["base"] == 1                  # Oren on foot sets the pace again
    # Every event that acted on a party says which in the log.
    log = trek.queries.log(None)
    assert [e.get("party") for e in log[8:13]] == ["riders", "riders", "riders", "main", "main"]
    assert "party" not in log[6]                                           # harm: no party
    assert trek.queries.status(None)["characters"]["Kira"]["party"] == "main"


def test_a_split_then_a_merge_with_no_moves_between_restores_the_party(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    besm_table(trek)
    before = status(trek)
    trek.handle(None, SplitParty("riders", ("Kira", "Dusty"), {"provisions": 4}))
    assert status(trek)["supplies"]["provisions"] == 1
    assert status(trek, "riders")["supplies"]["provisions"] == 4
    [merged] = trek.handle(None, MergeParties("riders"))
    assert merged["waited"] == 0
    after = status(trek)
    for key in ("position", "day", "supplies", "movement", "characters", "conveyances",
                "parties"):
        assert after[key] == before[key], key


def test_the_party_in_use_is_kept_in_the_store(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    besm_table(trek)
    trek.handle(None, SplitParty("riders", ("Kira", "Dusty")))
    assert trek.use_party(None, "riders")["party"] == "riders"
    [day] = trek.handle(None, StartDay())
    assert (day["party"], day["budget"]) == ("riders", 4)
    assert status(trek)["party"] == "riders"
    # A command may still name another party.
    [other] = trek.handle(None, StartDay(), party="main")
    assert (other["party"], other["budget"]) == ("main", 1)
    with pytest.raises(NotFound, match=r"no party called 'scouts'.*main, riders"):
        trek.use_party(None, "scouts")
    with pytest.raises(NotFound, match="no party called 'scouts'"):
        trek.handle(None, StartDay(), party="scouts")
    assert status(trek)["events"] == 8


@pytest.mark.parametrize(("setup", "command", "match"), [
    # The rider without the mount.
    ((), SplitParty("riders", ("Kira",)),
     r"Kira and Dusty go together \(Dusty and everyone aboard it\); name Dusty too"),
    ((), SplitParty("riders", ("Dusty",)), r"Dusty and Kira go together"),
    # No character in the new party (a mount alone).
    ((AddMount("Bramble", ("ground-speed", 1), None),), SplitParty("pack", ("Bramble",)),
     "the new party pack needs at least one character"),
    # Nobody left behind with a character.
    ((), SplitParty("all", ("Kira", "Dusty", "Oren")),
     "party main must keep at least one character"),
    ((), SplitParty("riders", ("Kira", "Dusty"), {"provisions": 6}),
     "party main has 5 provisions, not the 6 to give party riders"),
    ((StartDay(),), SplitParty("riders", ("Kira", "Dusty")),
     r"party main has day 1 open; `trek day end --party main` closes it"),
    ((), SplitParty("main", ("Kira", "Dusty")), "there is already a party called 'main'"),
    ((), SplitParty("riders", ("Pell",)), "nobody called 'Pell' is on the roster"),
    ((), MergeParties("riders"), "there is no party called 'riders'; the campaign has main"),
    ((), MergeParties("main"), "party main cannot merge into itself"),
    ((SplitParty("riders", ("Kira", "Dusty")), StartDay()), MergeParties("riders"),
     "party main has day 1 open"),
    ((SplitParty("riders", ("Kira", "Dusty")), StartDay(), steps("E"), EndDay(DayEndOptions())),
     MergeParties("riders"),
     "party riders stands on 0,1 and party main on 1,1; parties merge on the same square"),
])
def test_each_refusal_of_section_15_records_nothing(
        store: str, open_trek: OpenTrek, setup: tuple[Any, ...], command: Any,
        match: str) -> None:
    trek = open_trek(store, create=True)
    besm_table(trek)
    for earlier in setup:
        trek.handle(None, earlier)
    before = status(trek)
    with pytest.raises(RuleViolation, match=match):
        trek.handle(None, command)
    assert status(trek) == before


def test_a_merge_waits_for_the_other_partys_day_to_close(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    besm_table(trek)
    trek.handle(None, SplitParty("riders", ("Kira", "Dusty")))
    trek.handle(None, StartDay(), party="riders")
    with pytest.raises(RuleViolation, match="party riders has day 1 open; `trek day end "
                                            "--party riders`"):
        trek.handle(None, MergeParties("riders"))
    with pytest.raises(RuleViolation, match="party riders has day 1 open"):
        trek.handle(None, MergeParties("main"), party="riders")


def test_undoing_a_split_needs_cascade_once_the_split_off_party_moved(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    besm_table(trek)
    trek.handle(None, SplitParty("riders", ("Kira", "Dusty")))                         # 6
    # Nothing after it: the split is undone alone.
    [undo] = trek.handle(None, Undo(6))                                                 # 7
    assert undo["cancels"] == [6]
    assert list(status(trek)["parties"]) == ["main"]
    trek.handle(None, SplitParty("riders", ("Kira", "Dusty")))                         # 8
    trek.handle(None, StartDay(), party="riders")                                       # 9
    trek.handle(None, steps("E", "E"), party="riders")                                  # 10
    with pytest.raises(RuleViolation, match=r"event 9 \(DayStarted\): there is no party "
                                            r"called 'riders'.*add --cascade"):
        trek.handle(None, Undo(8))
    [undo] = trek.handle(None, Undo(8, cascade=True))                                   # 11
    assert undo["cancels"] == [8, 9, 10]
    whole = status(trek)
    assert list(whole["parties"]) == ["main"]
    assert whole["position"] == {"x": 0, "y": 1}
    assert whole["parties"]["main"]["members"] == ["Dusty", "Kira", "Oren"]
    # Redo of the reversal brings the three back: the riders stand where they rode.
    trek.handle(None, Redo(11))
    assert status(trek, "riders")["position"] == {"x": 2, "y": 1}


def cypher_table(trek: Trek) -> None:
    """Ana and Bo walk (12 miles a day off the road); Cy drives a cart of 24 miles a day."""
    trek.init("Steppe", ruleset="cypher", map_text=CYPHER, at=Square(3, 1), seed=3)
    for name in ("Ana", "Bo"):
        trek.handle(None, AddCharacter(CharacterOptions(name=name)))
    trek.handle(None, AddCharacter(CharacterOptions(name="Cy")))
    trek.handle(None, AddVehicle("Cart", ("miles", 24), "Cy", ()))


def test_cypher_transit_is_each_partys_own(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    cypher_table(trek)
    trek.handle(None, SplitParty("cart", ("Cy", "Cart")))
    # The cart toward the difficult square 4,1: 6 miles at 24 × 1/3 = 8 a day costs 3/4 of a
    # day, paid whole on day 1.
    trek.handle(None, StartDay(), party="cart")
    trek.handle(None, steps("E"), party="cart")
    cart = status(trek, "cart")
    assert cart["position"] == {"x": 4, "y": 1}
    assert cart["movement"]["used"] == "3/4"
    trek.handle(None, EndDay(DayEndOptions()), party="cart")
    # The walkers toward 4,1: 6 miles at 12 × 1/3 = 4 a day costs 3/2 days: in transit after
    # day 1, with 1/2 still to pay.
    trek.handle(None, StartDay())
    trek.handle(None, steps("E"))
    walkers = status(trek)
    assert walkers["position"] == {"x": 3, "y": 1}
    assert walkers["movement"]["in_transit"] == {"to": {"x": 4, "y": 1}, "remaining": "1/2"}
    assert status(trek, "cart")["movement"]["in_transit"] is None
    trek.handle(None, EndDay(DayEndOptions()))
    with pytest.raises(RuleViolation, match="party main is in transit toward 4,1; it cannot "
                                            "merge until it arrives or drops the transit"):
        trek.handle(None, MergeParties("cart"))
    with pytest.raises(RuleViolation, match="party main is in transit toward 4,1; it cannot "
                                            "merge until it arrives"):
        trek.handle(None, MergeParties("main"), party="cart")
    with pytest.raises(RuleViolation, match="party main is in transit toward 4,1; it cannot "
                                            "split"):
        trek.handle(None, SplitParty("scout", ("Bo",)))
    # Day 2 pays the other 1/2: the walkers arrive, and the parties merge on 4,1.
    trek.handle(None, StartDay())
    trek.handle(None, steps("E"))
    trek.handle(None, EndDay(DayEndOptions()))
    [merged] = trek.handle(None, MergeParties("cart"))
    assert (merged["day"], merged["waited"]) == (2, 1)
    assert status(trek)["parties"]["main"]["members"] == ["Ana", "Bo", "Cart", "Cy"]


def test_audit_recap_and_diff_count_what_each_party_spent(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    besm_table(trek)                                             # 5: provisions set 0 -> 5
    trek.handle(None, SplitParty("riders", ("Kira", "Dusty"), {"provisions": 2}))      # 6
    trek.handle(None, StartDay(), party="riders")                                       # 7
    trek.handle(None, ForcedMarch(rolls={"Kira": 12}), party="riders")                  # 8
    trek.handle(None, EndDay(DayEndOptions()), party="riders")                          # 9
    [merged] = trek.handle(None, MergeParties("riders"))                                # 10
    assert (merged["day"], merged["waited"]) == (1, 1)
    # Handing supplies between parties neither gains nor spends them; the march spent 1.
    [audit] = trek.queries.audit(None)["sessions"]
    assert audit["supplies"] == {"gained": {"provisions": 5}, "spent": {"provisions": 1}}
    [roll] = audit["rolls"]
    assert (roll["seq"], roll["party"], roll["success"]) == (8, "riders", False)
    recap = trek.queries.recap(None)
    assert recap["supplies"]["spent"] == {"provisions": 1}
    assert recap["days"] == [1]
    # From the split to now: one day on, one provisions fewer, Dusty a level down.
    changed = {c["field"]: (c["a"], c["b"])
               for c in trek.queries.diff(None, Point.parse("5"), Point.parse("now"))["changes"]}
    assert changed["day"] == (0, 1)
    assert changed["supplies.provisions"] == (5, 4)
    assert changed["conveyances.Dusty.level"] == (2, 1)
    # Halfway, the riders stood apart: the diff names their party and its own square.
    apart = {c["field"]: (c["a"], c["b"])
             for c in trek.queries.diff(None, Point.parse("5"), Point.parse("6"))["changes"]}
    assert apart["characters.Kira.party"] == ("main", "riders")
    assert apart["parties.riders.supplies.provisions"] == (None, 2)


def test_a_split_campaign_across_snapshots_verifies_and_replays_the_same(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    besm_table(trek)
    trek.handle(None, SplitParty("riders", ("Kira", "Dusty")))                         # 6
    # 36 days for each party, three events a day: 6 + 216 = 222 events, past two snapshots.
    for day in range(36):
        for party in ("riders", "main"):
            trek.handle(None, StartDay(), party=party)
            trek.handle(None, steps("E" if day % 2 == 0 else "W"), party=party)
            trek.handle(None, EndDay(DayEndOptions()), party=party)
    shown = status(trek)
    assert shown["events"] == 222
    assert {name: (p["day"], p["position"]) for name, p in shown["parties"].items()} == {
        "main": (36, {"x": 0, "y": 1}), "riders": (36, {"x": 0, "y": 1})}
    assert trek.verify()["verified"] is True
    assert trek.verify_views()["verified"] is True
    # Opened again, the campaign loads from its newest snapshot and records on.
    again = open_trek(store)
    [day] = again.handle(None, StartDay(), party="riders")
    assert (day["seq"], day["party"], day["number"]) == (223, "riders", 37)

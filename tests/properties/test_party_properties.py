"""Properties of split parties over random command sequences (RULES.md §15): folding the log
again gives the parties the commands left, step by step, and a split undone by a merge at once
gives the party back exactly."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulesets import RULESETS

from domain.besm.commands import ForcedMarch
from domain.campaign import Campaign, Stamp
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.parties import MergeParties, SplitParty
from domain.commands.roster import AddCharacter, AddMount, AddVehicle, Leave, Rejoin
from domain.commands.supplies import SetSupplies
from domain.commands.travel import Move, MoveOptions
from domain.errors import RuleViolation
from domain.events import TrekEvent
from domain.geometry import DIRECTIONS, Square
from domain.history import fold_live
from domain.options import CharacterOptions
from domain.parties import PartiesMerged
from domain.state import Game
from tracker.mapformats.tomlfile import load_map

FIELD = load_map("""\
[map]
name = "Field"
rows = [
  ".....",
  ".....",
  ".....",
]

[legend]
"." = { terrain = "open" }
""", RULESETS.named("besm"))

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
PARTIES = ("main", "riders", "scouts")
MEMBERS = ("Kira", "Vic", "Pax", "Wal", "Dusty", "Rig")
PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Step:
    """One command on one party, shown by its label when hypothesis reports a sequence."""

    label: str
    run: Callable[[Campaign], TrekEvent] = field(compare=False)

    def __repr__(self) -> str:
        return self.label


def on(party: str, label: str, command: Any) -> Step:
    def run(campaign: Campaign) -> TrekEvent:
        campaign.acting_party = party
        try:
            return campaign.handle(command)
        finally:
            campaign.acting_party = None
    return Step(f"{label} --party {party}", run)


def table() -> Campaign:
    """Kira rides Dusty; Vic drives Rig carrying Pax; Wal walks. Six provisions, two fuel."""
    campaign = Campaign.start(STAMP, name="Field", ruleset="besm", rulesets=RULESETS, seed=9,
                              game_map=FIELD, at=Square(2, 1))
    for name in ("Kira", "Vic", "Pax", "Wal"):
        campaign.handle(AddCharacter(CharacterOptions(
            name=name, extra={"body": 5, "mind": 5, "soul": 5})))
    campaign.handle(AddMount("Dusty", ("ground-speed", 1), "Kira"))
    campaign.handle(AddVehicle("Rig", ("speed", 2), "Vic", ["Pax"]))
    campaign.handle(SetSupplies({"provisions": 6, "fuel": 2}))
    return campaign


_PARTY = st.sampled_from(("main", "main", "riders", "riders", "scouts"))
# Every sequence starts with the riders split off, so most commands have two parties to act on.
RIDERS = ("party split riders", SplitParty("riders", ("Kira", "Dusty"), {"provisions": 2}))
# Who travels together (a rider and mount, a vehicle and its crew), each a unit a split takes
# whole; now and then a lone member of one, which the split refuses.
UNITS = (("Kira", "Dusty"), ("Vic", "Rig", "Pax"), ("Wal",), ("Pax",))
_MEMBERS = st.lists(st.sampled_from(UNITS), min_size=1, max_size=2, unique=True).map(
    lambda units: list(dict.fromkeys(name for unit in units for name in unit)))
_SPLIT = st.builds(
    lambda party, name, members, provisions: on(
        party, f"party split {name} {members} provisions={provisions}",
        SplitParty(name, tuple(members), {"provisions": provisions})),
    _PARTY, _PARTY, _MEMBERS, st.integers(0, 3))
_MOVE = st.builds(lambda party, steps: on(party, f"move {steps}", Move(MoveOptions(
    steps=tuple(steps)))),
    _PARTY, st.lists(st.sampled_from(list(DIRECTIONS)), min_size=1, max_size=2))
STEPS = st.one_of(
    _SPLIT, _SPLIT, _SPLIT, _MOVE, _MOVE,
    st.builds(lambda party, name: on(party, f"party merge {name}", MergeParties(name)),
              _PARTY, _PARTY),
    st.builds(lambda party: on(party, "day start", StartDay()), _PARTY),
    st.builds(lambda party: on(party, "day start", StartDay()), _PARTY),
    st.builds(lambda party: on(party, "day end", EndDay(DayEndOptions())), _PARTY),
    st.builds(lambda party: on(party, "day end", EndDay(DayEndOptions())), _PARTY),
    st.builds(lambda party, steps: on(party, f"move {steps}", Move(MoveOptions(
        steps=tuple(steps)))),
        _PARTY, st.lists(st.sampled_from(list(DIRECTIONS)), min_size=1, max_size=2)),
    st.builds(lambda party, rolls: on(party, f"forced march {rolls}", ForcedMarch(rolls=rolls)),
              _PARTY, st.fixed_dictionaries({"Kira": st.integers(2, 12),
                                             "Vic": st.integers(2, 12)})),
    st.builds(lambda party, name: on(party, f"leave {name}", Leave(name)),
              _PARTY, st.sampled_from(MEMBERS)),
    st.builds(lambda party, name: on(party, f"rejoin {name}", Rejoin(name)),
              _PARTY, st.sampled_from(MEMBERS)),
)


def sides(game: Game) -> dict[str, dict[str, Any]]:
    """The game told from each party's side: everything but which party the game holds at
    its top level, which is how it is kept, not what it says."""
    told = {}
    for name in game.party_names():
        dump = game.focused(name).dump()
        dump.pop("parties")
        told[name] = dump
    return told


def play(campaign: Campaign, steps: list[Step]) -> list[dict[str, dict[str, Any]]]:
    """Run each step (a refusal changes nothing); the parties after each one that recorded."""
    after = []
    for step in steps:
        with contextlib.suppress(RuleViolation):
            step.run(campaign)
            after.append(sides(campaign.game))
    return after


@PROPERTY
@given(st.lists(STEPS, min_size=8, max_size=30))
def test_folding_the_log_again_gives_the_parties_step_by_step(steps: list[Step]) -> None:
    campaign = table()
    setup = len(campaign.pending_events)
    after = play(campaign, [on("main", *RIDERS), *steps])
    events = campaign.collect_events()
    assert len(events) == setup + len(after)
    for recorded, expected in enumerate(after, start=setup + 1):
        assert sides(fold_live(events[:recorded], lambda seq: True)) == expected
    # Each member belongs to exactly one party.
    game = campaign.game
    owners = [game.party_of(name) for name in MEMBERS]
    assert set(owners) <= set(game.party_names())
    assert all(name in game.party_names() for name in owners)


@PROPERTY
@given(st.lists(STEPS, min_size=4, max_size=20), _PARTY,
       _MEMBERS, st.integers(0, 3), st.integers(0, 2))
def test_a_split_merged_back_at_once_gives_the_party_back_exactly(
        steps: list[Step], parent: str, members: list[str], provisions: int,
        fuel: int) -> None:
    campaign = table()
    play(campaign, [on("main", *RIDERS), *steps])
    if parent not in campaign.game.party_names():
        return
    with contextlib.suppress(RuleViolation):
        on(parent, "day end", EndDay(DayEndOptions())).run(campaign)
    before = sides(campaign.game)
    name = next(p for p in ("split-off", *PARTIES) if p not in campaign.game.party_names())
    try:
        on(parent, "split", SplitParty(name, tuple(members), {"provisions": provisions,
                                                              "fuel": fuel})).run(campaign)
    except RuleViolation:
        assert sides(campaign.game) == before
        return
    split_off = campaign.game.focused(name)
    assert sorted(campaign.game.party_of(m) for m in members) == [name] * len(members)
    assert (split_off.supplies["provisions"], split_off.supplies["fuel"]) == (provisions, fuel)
    assert (campaign.game.focused(parent).supplies["provisions"] + provisions
            == before[parent]["supplies"]["provisions"])
    merged = on(parent, "merge", MergeParties(name)).run(campaign)
    assert isinstance(merged, PartiesMerged)
    assert merged.waited == 0
    assert sides(campaign.game) == before

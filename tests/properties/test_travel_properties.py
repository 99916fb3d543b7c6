"""Properties of BESM travel over random command sequences: budgets, supplies, folds and undo."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from journeys import besm_command
from rulesets import RULESETS

from domain.besm.events import DayEnded
from domain.besm.rules import Besm
from domain.besm.state import remaining, today
from domain.besm.undertakings import Repaired
from domain.campaign import Campaign, Stamp
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.roster import (
    AddCharacter,
    AddMount,
    AddVehicle,
    Assign,
    Dismount,
    Harm,
    Leave,
    Rejoin,
    SetRule,
)
from domain.commands.supplies import AddSupplies, SetSupplies, SpendSupplies
from domain.commands.travel import Move, MoveOptions
from domain.errors import RuleViolation
from domain.events import EventsCancelled, EventsRestored, TrekEvent
from domain.geometry import DIRECTIONS, Square
from domain.history import fold_live
from domain.options import CharacterOptions
from domain.state import SUPPLY_KINDS, Game, Role
from tracker.mapformats.tomlfile import load_map

SMALL = load_map("""\
[map]
name = "Small"
rows = [
  ".....",
  ".^,..",
  ".....",
  "..!..",
  ".....",
]

[legend]
"." = { terrain = "open" }
"," = { terrain = "open", penalty = 1 }
"^" = { terrain = "feature", name = "crag" }
"!" = { terrain = "hazard", name = "ley storm", penalty = 2 }

[[shortcut]]
name = "Gap"
path = [[1, 1]]
bonus = 1
penalty = 1
""", RULESETS.named("besm"))

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
BESM = Besm()
CHARACTERS = ("Kira", "Vic", "Pax", "Wal")
CONVEYANCES = ("Dusty", "Rig")
PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Command:
    """One GM command, shown by its label when hypothesis reports a failing sequence."""

    label: str
    run: Callable[[Campaign], TrekEvent] = field(compare=False)

    def __repr__(self) -> str:
        return self.label


def _setup(campaign: Campaign) -> None:
    """Kira rides Dusty, Vic drives Rig carrying Pax, Wal walks; a few supplies."""
    campaign.handle(AddCharacter(CharacterOptions(name="Kira",
                                            skills={"ride": 2, "navigation": 1},
                                                extra={"body": 7, "mind": 6, "soul": 4})))
    campaign.handle(AddCharacter(CharacterOptions(name="Vic",
                                            skills={"drive": 2, "technology": 2},
                                                extra={"body": 6, "mind": 7, "soul": 3})))
    campaign.handle(AddCharacter(CharacterOptions(name="Pax",
                                            skills={"survival": 2, "medicine": 1},
                                                extra={"body": 4, "mind": 5, "soul": 8})))
    campaign.handle(AddCharacter(CharacterOptions(name="Wal",
                                            attributes={"speed": 2},
                                                extra={"body": 8, "mind": 4, "soul": 5})))
    campaign.handle(AddMount("Dusty", ("ground-speed", 1), "Kira"))
    campaign.handle(AddVehicle("Rig", ("speed", 2), "Vic", ["Pax"]))
    campaign.handle(SetSupplies({"provisions": 5, "fuel": 4}))


_ROLL = st.integers(2, 12)
# Forced marches fail often enough that strain, death and repair all turn up.
_STRAIN_ROLL = st.one_of(_ROLL, st.just(12))
_CHARACTER = st.sampled_from(CHARACTERS)
_MEMBER = st.sampled_from(CHARACTERS + CONVEYANCES)
_KIND = st.sampled_from(SUPPLY_KINDS)


def _start_day() -> Command:
    return Command("day start", lambda c: c.handle(StartDay()))


def _end_day(rests: dict[str, str], hours: int) -> Command:
    return Command(f"day end {rests} --hours {hours}",
                   lambda c: c.handle(EndDay(DayEndOptions(rests=rests, hours=hours))))


def _move(steps: list[str], through: bool) -> Command:
    return Command(f"move {' '.join(steps)}" + (" --through-hazard" if through else ""),
                   lambda c: c.handle(Move(MoveOptions(steps=tuple(steps),
                                                       through_hazard=through))))


def _move_to(x: int, y: int, through: bool) -> Command:
    return Command(f"move --to {x},{y}" + (" --through-hazard" if through else ""),
                   lambda c: c.handle(Move(MoveOptions(to=Square(x, y), through_hazard=through))))


def _travel(command: str, rolls: dict[str, int], options: dict[str, Any]) -> Command:
    return Command(f"{command} {rolls} {options}",
                   lambda c: c.handle(besm_command(command, rolls, **options)))


def _forced_march(rolls: dict[str, int]) -> Command:
    return _travel("forced march", rolls, {})


def _assign(name: str, conveyance: str, role: Role) -> Command:
    return Command(f"assign {name} {conveyance} {role}",
                   lambda c: c.handle(Assign(name, conveyance, role)))


def _supplies(verb: str, kind: str, amount: int) -> Command:
    def run(c: Campaign) -> TrekEvent:
        if verb == "add":
            return c.handle(AddSupplies({kind: amount}))
        if verb == "spend":
            return c.handle(SpendSupplies({kind: amount}))
        return c.handle(SetSupplies({kind: amount}))

    return Command(f"supplies {verb} {kind}={amount}", run)


_END_DAY = st.builds(
    _end_day,
    st.dictionaries(_CHARACTER, st.sampled_from(["camp", "saddle", "vehicle", "none"]),
                    max_size=2),
    st.sampled_from([8, 8, 0, 4, 12]),
)
_STEPS = st.lists(st.sampled_from(list(DIRECTIONS)), min_size=1, max_size=2)
_REPAIR = st.builds(lambda roll, what, by: _travel("repair", {"repair": roll},
                                                  {"conveyance": what, "by": by}),
                    _ROLL, st.sampled_from(CONVEYANCES), _CHARACTER)
# What a party does during an open day.
DAY_COMMANDS = st.one_of(
    st.builds(_move, _STEPS, st.booleans()),
    st.builds(_move, _STEPS, st.booleans()),
    st.builds(_move, _STEPS, st.booleans()),
    st.builds(_move_to, st.integers(-1, 5), st.integers(0, 4), st.booleans()),
    st.builds(lambda roll: _travel("shortcut", {"shortcut": roll}, {"name": "Gap"}), _ROLL),
    st.builds(_forced_march, st.fixed_dictionaries(dict.fromkeys(CHARACTERS, _STRAIN_ROLL))),
    st.builds(lambda roll, by: _travel("night travel", {"night travel": roll}, {"by": by}),
              _ROLL, st.none() | _CHARACTER),
    st.builds(lambda roll, take: _travel("forage", {"forage": roll}, {"take": take}),
              _ROLL, _KIND),
    _REPAIR,
    st.builds(lambda name, h, e: Command(f"harm {name} {h} {e}",
                                         lambda c: c.handle(Harm(name, h, e, None))),
              _CHARACTER, st.integers(0, 30), st.integers(0, 30)),
)
# What a GM changes between days (or at any time).
_REJOIN = st.builds(lambda name: Command(f"rejoin {name}", lambda c: c.handle(Rejoin(name))),
                    _MEMBER)
_ASSIGN = st.builds(_assign, _CHARACTER, st.sampled_from(CONVEYANCES), st.sampled_from(list(Role)))
ROSTER_COMMANDS = st.one_of(
    st.builds(lambda name: Command(f"leave {name}", lambda c: c.handle(Leave(name))), _MEMBER),
    _REJOIN,
    _REJOIN,
    st.builds(lambda name: Command(f"dismount {name}", lambda c: c.handle(Dismount(name))),
              _CHARACTER),
    _ASSIGN,
    _ASSIGN,
    st.builds(_supplies, st.sampled_from(["add", "spend", "set"]), _KIND, st.integers(0, 3)),
    st.builds(lambda value: Command(f"rule upkeep-provisions={value}",
                                    lambda c: c.handle(SetRule("upkeep-provisions", value))),
              st.integers(0, 2)),
)
COMMANDS = st.one_of(st.just(_start_day()), _END_DAY, DAY_COMMANDS, ROSTER_COMMANDS)


def _day(between: list[Command], during: list[Command], end: Command | None) -> list[Command]:
    return [*between, _start_day(), *during, *([end] if end is not None else [])]


# Mostly whole days, so that most commands are legal; any command may still turn up anywhere.
_DAYS = st.builds(
    _day,
    st.lists(ROSTER_COMMANDS, max_size=2),
    st.lists(st.one_of(DAY_COMMANDS, DAY_COMMANDS, DAY_COMMANDS, COMMANDS), max_size=6)
    | st.builds(lambda repair, rest: [repair, *rest], _REPAIR, st.lists(DAY_COMMANDS, max_size=3)),
    st.one_of(_END_DAY, _END_DAY, _END_DAY, st.none()),
)


@dataclass
class Step:
    """One command as it went: the state around it and what it recorded, if anything."""

    command: Command
    before: dict[str, Any]
    after: dict[str, Any]
    event: TrekEvent | None
    version_before: int
    version_after: int


@dataclass
class Play:
    campaign: Campaign
    events: list[TrekEvent]
    steps: list[Step]


def play(commands: list[Command]) -> Play:
    """Run the commands on a fresh campaign, skipping the ones the rules refuse."""
    campaign = Campaign.start(STAMP, name="Ashes Road", ruleset="besm", rulesets=RULESETS, seed=11,
                              game_map=SMALL, at=Square(2, 2))
    _setup(campaign)
    events = campaign.collect_events()
    steps: list[Step] = []
    for command in commands:
        before, version = campaign.game.model_dump(), campaign.version
        event: TrekEvent | None
        try:
            event = command.run(campaign)
        except RuleViolation:
            event = None
            assert campaign.pending_events == [], f"{command} left pending events"
        events.extend(campaign.collect_events())
        steps.append(Step(command, before, campaign.game.model_dump(), event, version,
                          campaign.version))
    return Play(campaign, events, steps)


_SEQUENCES = st.lists(_DAYS, min_size=1, max_size=5).map(
    lambda days: [command for day in days for command in day]
)


@PROPERTY
@given(_SEQUENCES)
def test_the_budget_is_never_overspent(commands: list[Command]) -> None:
    result = play(commands)

    for step in result.steps:
        game = Game.model_validate(step.after)
        day = today(game)
        assert 0 <= day.used <= day.budget, step.command
        assert remaining(game) >= 0
    status = BESM.movement_status(result.campaign.situation())
    assert status["remaining"] >= 0
    assert status["used"] <= status["budget"]


@PROPERTY
@given(_SEQUENCES)
def test_supplies_never_go_negative(commands: list[Command]) -> None:
    result = play(commands)

    for step in result.steps:
        assert all(amount >= 0 for amount in step.after["supplies"].values()), step.command


@PROPERTY
@given(_SEQUENCES)
def test_conveyance_levels_change_only_at_day_end_or_by_a_repair(commands: list[Command]) -> None:
    result = play(commands)

    for step in result.steps:
        for name, after in step.after["conveyances"].items():
            before = step.before["conveyances"].get(name)
            if before is None:
                continue
            assert after["base_level"] == before["base_level"]
            if after["level"] != before["level"]:
                assert isinstance(step.event, DayEnded | Repaired), step.command
            if after["state"] != before["state"]:
                assert isinstance(step.event, DayEnded), step.command
            assert after["level"] <= after["base_level"]


@PROPERTY
@given(_SEQUENCES)
def test_a_refused_command_leaves_the_state_identical(commands: list[Command]) -> None:
    result = play(commands)

    for step in result.steps:
        if step.event is None:
            assert step.after == step.before, step.command
            assert step.version_after == step.version_before
        else:
            assert step.version_after == step.version_before + 1  # one command, one event


@PROPERTY
@given(_SEQUENCES)
def test_folding_the_recorded_events_afresh_gives_the_aggregates_game(
        commands: list[Command]) -> None:
    result = play(commands)

    assert [event.seq for event in result.events] == list(range(1, len(result.events) + 1))
    fresh = fold_live(result.events, lambda seq: True)
    assert fresh.model_dump() == result.campaign.game.model_dump()


def _undo(result: Play, seq: int) -> EventsCancelled:
    campaign = result.campaign
    before = fold_live(result.events[:seq - 1], campaign.is_live)
    reversal = campaign.cancel([seq], before=before, later=result.events[seq - 1:],
                               cascade=True, reason=None)
    result.events.extend(campaign.collect_events())
    assert isinstance(reversal, EventsCancelled)
    return reversal


def _redo(result: Play, seqs: list[int]) -> EventsRestored:
    campaign = result.campaign
    k = min(seqs)
    before = fold_live(result.events[:k - 1], campaign.is_live)
    restored = campaign.restore(seqs, before=before, later=result.events[k - 1:], reason=None)
    result.events.extend(campaign.collect_events())
    assert isinstance(restored, EventsRestored)
    return restored


def _read_model(events: list[TrekEvent]) -> dict[str, Any]:
    game = Game()
    for event in events:
        event.apply_to(game)
    return game.model_dump()


@PROPERTY
@given(_SEQUENCES, st.data())
def test_a_cascading_undo_of_any_live_event_leaves_the_fold_of_what_remains(
        commands: list[Command], data: st.DataObject) -> None:
    # given a random history and a random live event in it
    result = play(commands)
    campaign = result.campaign
    undoable = [e.seq for e in result.events if type(e).undoable and campaign.is_live(e.seq)]
    assume(undoable)
    target = data.draw(st.sampled_from(undoable), label="undo")
    original = campaign.game.model_dump()

    # when it is undone with --cascade
    reversal = _undo(result, target)

    # then the game is the fold of the live events that remain
    assert reversal.cancels[0] == target
    assert all(seq >= target for seq in reversal.cancels)
    assert all(not campaign.is_live(seq) for seq in reversal.cancels)
    remaining = fold_live(result.events, campaign.is_live).model_dump()
    assert campaign.game.model_dump() == remaining
    # and readers that apply the reversal's corrections see the same game
    assert _read_model(result.events) == remaining

    # and redoing everything that was cancelled gives back the game as it was
    _redo(result, list(reversal.cancels))
    assert campaign.game.model_dump() == original
    assert _read_model(result.events) == original


@dataclass(frozen=True)
class Undo:
    """`trek undo SEQ [--cascade]`, SEQ picked among the live events by `pick`."""

    pick: int
    cascade: bool


@dataclass(frozen=True)
class Redo:
    """`trek redo SEQ`, SEQ picked among the cancelled events by `pick`."""

    pick: int


_HISTORY = st.lists(
    st.builds(Undo, st.integers(0, 99), st.booleans()) | st.builds(Redo, st.integers(0, 99)),
    max_size=2,
)


def _history_op(result: Play, op: Undo | Redo) -> None:
    campaign = result.campaign
    before, version = campaign.game.model_dump(), campaign.version
    try:
        if isinstance(op, Undo):
            live = [e.seq for e in result.events if type(e).undoable and campaign.is_live(e.seq)]
            if not live:
                return
            seq = live[op.pick % len(live)]
            previous = fold_live(result.events[:seq - 1], campaign.is_live)
            campaign.cancel([seq], before=previous, later=result.events[seq - 1:],
                            cascade=op.cascade, reason=None)
        else:
            cancelled = sorted(campaign.cancelled_in(1, campaign.version))
            if not cancelled:
                return
            _redo(result, [cancelled[op.pick % len(cancelled)]])
    except RuleViolation:
        assert campaign.game.model_dump() == before
        assert campaign.version == version
        assert campaign.pending_events == []
    result.events.extend(campaign.collect_events())


@PROPERTY
@given(st.lists(st.tuples(_DAYS, _HISTORY), min_size=1, max_size=4))
def test_undo_and_redo_between_commands_keep_the_game_the_fold_of_the_live_events(
        days: list[tuple[list[Command], list[Undo | Redo]]]) -> None:
    result = play([])
    campaign = result.campaign
    for commands, history in days:
        for command in commands:
            with contextlib.suppress(RuleViolation):
                command.run(campaign)
            result.events.extend(campaign.collect_events())
        for op in history:
            _history_op(result, op)
            assert campaign.version == len(result.events)
            live = fold_live(result.events, campaign.is_live).model_dump()
            assert campaign.game.model_dump() == live, op
            assert _read_model(result.events) == live

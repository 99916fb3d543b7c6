"""Properties of Cypher rounds and chases over random moves, pushes, drifts and chase rolls.

Whatever the commands: a chase always ends by its rule and refuses rolls after its outcome;
no push or drift passes through a wall or onto another combatant; a refused command leaves the
campaign identical; undoing any event and redoing it restores the same state.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

from encounter_play import (
    Check,
    Play,
    Step,
    assert_refolds_the_same,
    play_steps,
    undo_then_redo,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rulesets import RULESETS

from domain.campaign import Campaign, Stamp
from domain.commands.encounter import (
    EnterCombatant,
    MoveCombatant,
    RemoveCombatant,
    StartEncounter,
    StartRound,
)
from domain.commands.roster import AddCharacter
from domain.cypher.combat import CypherState, Push, PushedOff, RollChase, StartChase
from domain.encounter import RoundStarted, cell_terrain
from domain.errors import RuleViolation
from domain.events import TrekEvent
from domain.geometry import DIRECTIONS, Square
from domain.options import CharacterOptions
from domain.state import Side
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
# A zero-gravity hold with a pillar, walled off from a deck of open, rough and difficult ground.
HOLD = """\
[map]
name = "Hold"
rows = [
  "###########",
  "#zzzzzzzzz#",
  "#zzzz#zzzz#",
  "#zzzzzzzzz#",
  "###########",
  "...,,::....",
  "...........",
]

[legend]
"." = { terrain = "open" }
"," = { terrain = "rough" }
":" = { terrain = "difficult" }
"z" = { terrain = "zero-gravity" }
"#" = { terrain = "wall" }
"""
NAMES = ("Kira", "Oren", "Drone", "Eel")
PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

def setup() -> Play:
    cypher = RULESETS.named("cypher")
    c = Campaign.start(STAMP, name="Hold", ruleset="cypher", rulesets=RULESETS, seed=9,
                       game_map=None, at=None)
    c.handle(AddCharacter(CharacterOptions(name="Kira", extra={"might": 10, "speed": 12})))
    c.handle(AddCharacter(CharacterOptions(name="Oren", skills={"swimming": 1},
                                           extra={"speed": 9})))
    c.handle(StartEncounter("Hold", load_battle_map(HOLD, cypher.battle_legend)))
    c.handle(EnterCombatant(name="Kira", at=Square(1, 1)))
    c.handle(EnterCombatant(name="Oren", at=Square(3, 6)))
    for name, at in (("Drone", Square(9, 3)), ("Eel", Square(8, 5))):
        c.handle(EnterCombatant(name=name, at=at, side=Side.ENEMY, from_roster=False,
                                         options=CharacterOptions(name=name, extra={"speed": 6})))
    return Play(c, c.collect_events())


_NAME = st.sampled_from(NAMES)
_DIRECTION = st.sampled_from(list(DIRECTIONS))
_ROLL = st.one_of(st.none(), st.integers(1, 20))


def _move(name: str, steps: list[str], kind: str | None, roll: int | None) -> Step:
    options: dict[str, object] = {kind: True} if kind else {}
    if roll is not None:
        options["roll"] = roll
    return Step(f"move {name} {' '.join(steps)} {options}",
                lambda c: c.handle(MoveCombatant(name=name, steps=tuple(steps), options=options)))


def _push(name: str, direction: str, feet: int, roll: int | None) -> Step:
    return Step(f"push {name} {direction} {feet} {roll}",
                lambda c: c.handle(Push(name=name, direction=direction, feet=feet, roll=roll)))


def _chase(name: str, level: int, roll: int | None, extended: bool) -> Step:
    return Step(f"chase {name} {level} {roll} {extended}",
                lambda c: c.handle(StartChase(name=name, level=level, roll=roll,
                                              extended=extended)))


def _chase_roll(name: str, roll: int | None) -> Step:
    return Step(f"chase-roll {name} {roll}", lambda c: c.handle(RollChase(name=name, roll=roll)))


_STEPS = st.one_of(
    st.builds(_move, _NAME, st.lists(_DIRECTION, min_size=1, max_size=4),
              st.sampled_from([None, "immediate", "long", "with_action"]), _ROLL),
    st.builds(_push, _NAME, _DIRECTION, st.sampled_from([3, 5, 10, 15, 20, 30, 45]),
              st.one_of(st.none(), st.integers(1, 20), st.just(20))),
    st.builds(_chase, _NAME, st.integers(1, 4), _ROLL, st.booleans()),
    st.builds(_chase_roll, _NAME, _ROLL),
    st.just(Step("round", lambda c: c.handle(StartRound()))),
)
_SEQUENCES = st.lists(_STEPS, min_size=1, max_size=40).map(
    lambda steps: [Step("round", lambda c: c.handle(StartRound())), *steps])


def play(steps: list[Step], check: Check | None = None) -> Play:
    return play_steps(setup(), steps, check)


def _no_wall_crossed(c: Campaign, event: TrekEvent) -> None:
    encounter = c.game.encounter
    assert encounter is not None
    cells = [combatant.at for combatant in encounter.combatants.values()]
    assert len(cells) == len(set(cells))
    for combatant in encounter.combatants.values():
        terrain = cell_terrain(encounter, combatant.at)
        assert terrain is not None
        assert terrain["terrain"] != "wall"
        CypherState.model_validate(combatant.state)
    lines: list[list[Square]] = []
    if isinstance(event, PushedOff):
        lines.append(list(event.path))
    if isinstance(event, RoundStarted):
        lines.extend(list(path) for path in event.paths.values())
    for line in lines:
        for here, there in itertools.pairwise(line):
            assert here.is_adjacent_or_same(there)
            assert there != here
            terrain = cell_terrain(encounter, there)
            assert terrain is not None
            assert terrain["terrain"] != "wall"


@PROPERTY
@given(_SEQUENCES)
def test_no_push_or_drift_passes_through_a_wall_or_a_combatant(steps: list[Step]) -> None:
    play(steps, _no_wall_crossed)


# Zero-gravity cells of the hold with a wall among their eight neighbours (all but the pillar's
# far side are on the room's rim or beside the pillar at 5,2).
_RIM = [Square(x, y) for y in (1, 2, 3) for x in range(1, 10)
        if y in (1, 3) or x in (1, 4, 6, 9)]


@PROPERTY
@given(st.sampled_from(_RIM), _DIRECTION, st.integers(5, 24), st.integers(1, 8))
def test_a_drift_never_passes_through_a_wall(start: Square, direction: str, feet: int,
                                             rounds: int) -> None:
    assume(start != Square(9, 3))            # the drone's cell; it stays as an obstacle
    result = setup()
    c = result.campaign
    c.handle(RemoveCombatant("Kira"))
    c.handle(EnterCombatant(name="Kira", at=start))
    c.handle(StartRound())
    try:
        # At most 24 feet: difficulty at most 6, so a 20 always succeeds.
        event = c.handle(Push(name="Kira", direction=direction, feet=feet, roll=20))
    except RuleViolation:
        assume(False)
        return
    _no_wall_crossed(c, event)
    assert isinstance(event, PushedOff)
    step = DIRECTIONS[direction]
    for _ in range(rounds):
        round_event = c.handle(StartRound())
        _no_wall_crossed(c, round_event)
        assert isinstance(round_event, RoundStarted)
        for here, there in itertools.pairwise(round_event.paths.get("Kira", [])):
            assert (there.x - here.x, there.y - here.y) == step
    encounter = c.game.encounter
    assert encounter is not None
    state = CypherState.model_validate(encounter.combatants["Kira"].state)
    if state.drifting is not None:
        # Still drifting: the cell ahead is free, and the drift is half the push.
        assert state.drifting.feet == feet // 2
        ahead = encounter.combatants["Kira"].at.step(direction)
        terrain = cell_terrain(encounter, ahead)
        assert terrain is not None
        assert terrain["terrain"] != "wall"


def _by_the_rule(level: int, successes: int, failures: int) -> str | None:
    # The seed's rule, restated: more failures than successes ends it badly; level + failures
    # successes end it well.
    if failures > successes:
        return "failed"
    if successes >= level + failures:
        return "succeeded"
    return None


@PROPERTY
@given(st.integers(1, 10), st.lists(st.integers(1, 20), max_size=30))
def test_a_chase_always_ends_by_the_rule(level: int, rolls: list[int]) -> None:
    result = setup()
    c = result.campaign
    c.handle(StartChase(name="Kira", level=level, extended=True))
    successes = failures = 0
    # Any rolls, then enough twenties to finish: it always ends, exactly by the rule.
    for roll in [*rolls, *[20] * (level + len(rolls) + 1)]:
        encounter = c.game.encounter
        assert encounter is not None
        chase = CypherState.model_validate(encounter.combatants["Kira"].state).chase
        assert chase is not None
        assert chase.outcome == _by_the_rule(level, successes, failures)
        if chase.outcome is not None:
            before = c.version
            try:
                c.handle(RollChase(name="Kira", roll=roll))
            except RuleViolation:
                assert c.version == before
            else:
                raise AssertionError("a roll after the outcome was recorded")
            return
        c.handle(RollChase(name="Kira", roll=roll))
        if roll >= 3 * level:
            successes += 1
        else:
            failures += 1
    raise AssertionError("the chase never ended")


@PROPERTY
@given(_SEQUENCES)
def test_folding_the_events_afresh_gives_the_same_game(steps: list[Step]) -> None:
    assert_refolds_the_same(play(steps))


@PROPERTY
@given(_SEQUENCES, st.data())
def test_undoing_any_event_then_redoing_it_restores_the_same_state(
        steps: list[Step], data: st.DataObject) -> None:
    result = play(steps)
    undoable = [e.seq for e in result.events if type(e).undoable]
    assume(undoable)
    undo_then_redo(result, data.draw(st.sampled_from(undoable)))

"""Properties of Move-Point encounters over random rounds of actions, moves, steps, conditions.

Whatever the commands: MP are never negative and always whole or half points; a transit's
paid amount never reaches past its cost; no movement type spends more than its Full Move in a
round; two combatants never share a cell; a refused command leaves the campaign identical;
folding the recorded events afresh gives the same game; undoing any event and redoing it
restores the same state.
"""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

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
from domain.commands.encounter import Act, EnterCombatant, MoveCombatant, StartEncounter, StartRound
from domain.commands.roster import AddCharacter
from domain.events import TrekEvent
from domain.geometry import DIRECTIONS, Square
from domain.movepoints.combat import MoveState
from domain.movepoints.commands import SetCondition
from domain.movepoints.commands import Step as StepCommand
from domain.options import CharacterOptions
from domain.state import Side
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
# A small ford: water (~), a wall (#), dear tiles (^ 5 with poor footing, = 9) and a 2 (+).
ARENA = """\
[map]
name = "Ford"
rows = [
  "..~~..",
  ".#~^..",
  "..+.=.",
  "......",
]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
"~" = { terrain = "water" }
"^" = { terrain = "open", cost = 5, poor_footing = true }
"=" = { terrain = "open", cost = 9 }
"+" = { terrain = "open", cost = 2 }
"""
# Full Moves: Kira 5 land; Mara 1 land, 6 swim; Gob 3 land, 4 fly; Orc 7 land.
FULL_MOVES = {"Kira": {"land": 5}, "Mara": {"land": 1, "swim": 6},
              "Gob": {"land": 3, "fly": 4}, "Orc": {"land": 7}}
NAMES = tuple(FULL_MOVES)
PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

def setup() -> Play:
    rules = RULESETS.named("movepoints")
    c = Campaign.start(STAMP, name="Ford", ruleset="movepoints", rulesets=RULESETS, seed=9,
                       game_map=None, at=None)
    for name in ("Kira", "Mara"):
        c.handle(AddCharacter(CharacterOptions(name=name, extra={
            "full_move": list(FULL_MOVES[name].items())})))
    c.handle(StartEncounter("Ford", load_battle_map(ARENA, rules.battle_legend)))
    c.handle(EnterCombatant(name="Kira", at=Square(0, 0)))
    c.handle(EnterCombatant(name="Mara", at=Square(0, 3)))
    for name, at in (("Gob", Square(4, 0)), ("Orc", Square(5, 3))):
        c.handle(EnterCombatant(
            name=name, at=at, side=Side.ENEMY, from_roster=False,
            options=CharacterOptions(name=name, extra={
                "full_move": list(FULL_MOVES[name].items())})))
    return Play(c, c.collect_events())


def _move(name: str, steps: list[str], fly: bool) -> Step:
    options = {"fly": True} if fly else {}
    return Step(f"move {name} {' '.join(steps)}{' --fly' if fly else ''}",
                lambda c: c.handle(MoveCombatant(name=name, steps=tuple(steps),
                                                         options=options)))


def _move_to(name: str, x: int, y: int) -> Step:
    return Step(f"move {name} --to {x},{y}",
                lambda c: c.handle(MoveCombatant(name=name, to=Square(x, y))))


_NAME = st.sampled_from(NAMES)
_MOVE = st.builds(_move, _NAME, st.lists(st.sampled_from(list(DIRECTIONS)), min_size=1,
                                         max_size=2), st.booleans())
_ACT = st.builds(lambda n, k: Step(f"act {n} {k}", lambda c: c.handle(Act(name=n, kind=k))),
                 _NAME, st.sampled_from(["move", "full"]))
# Moves and actions come up more often than the rest, so MP are gained and spent.
_STEPS = st.one_of(
    _MOVE, _MOVE, _MOVE, _ACT, _ACT,
    st.builds(_move_to, _NAME, st.integers(0, 5), st.integers(0, 3)),
    st.builds(lambda n, d: Step(f"step {n} {d}",
                                lambda c: c.handle(StepCommand(name=n, direction=d))),
              _NAME, st.sampled_from(list(DIRECTIONS))),
    st.builds(lambda n, w: Step(f"condition {n} {w}",
                                lambda c: c.handle(SetCondition(name=n, condition=w))),
              _NAME, st.sampled_from(["stunned", "immobile", "clear"])),
    st.just(Step("round", lambda c: c.handle(StartRound()))),
)
# Gob (land 3) on 4,0 is next to ^ at 3,1 (cost 5), Orc (land 7) on 5,3 next to = at 4,2
# (cost 9): both are entered only in transit, over rounds.
_TOWARD = st.sampled_from([_move("Gob", ["SW"], False), _move("Orc", ["NW"], False)])
_TRANSIT_STEPS = st.one_of(
    _TOWARD, _TOWARD, _TOWARD,
    st.builds(lambda n, k: Step(f"act {n} {k}", lambda c: c.handle(Act(name=n, kind=k))),
              st.sampled_from(["Gob", "Orc"]), st.sampled_from(["move", "full"])),
    st.just(Step("round", lambda c: c.handle(StartRound()))),
    _STEPS,
)
_SEQUENCES = st.one_of(
    st.lists(_STEPS, min_size=1, max_size=40),
    st.lists(_TRANSIT_STEPS, min_size=1, max_size=40),
).map(lambda steps: [Step("round", lambda c: c.handle(StartRound())), *steps])


def play(steps: list[Step], check: Check | None = None) -> Play:
    return play_steps(setup(), steps, check)


def _within_the_rules(c: Campaign, _event: TrekEvent) -> None:
    encounter = c.game.encounter
    assert encounter is not None
    cells = [combatant.at for combatant in encounter.combatants.values()]
    assert len(cells) == len(set(cells))
    for combatant in encounter.combatants.values():
        state = MoveState.model_validate(combatant.state)
        for amount in (state.mp, state.moved, *state.spent.values()):
            assert amount >= 0
            assert (Fraction(amount) * 2).denominator == 1
        for kind, spent in state.spent.items():
            assert spent <= FULL_MOVES[combatant.name].get(kind, 0)
        if state.in_transit is not None:
            assert 0 < state.in_transit.paid < state.in_transit.cost
        if state.condition is not None:
            assert state.mp == 0


@PROPERTY
@given(_SEQUENCES)
def test_mp_never_negative_transit_never_overpaid_caps_kept(steps: list[Step]) -> None:
    play(steps, _within_the_rules)


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

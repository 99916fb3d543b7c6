"""Properties of Shadowrun encounters over random Combat Turns of passes, walks, runs, sprints
and interceptions.

Whatever the commands: no pass moves a combatant beyond its pass limit and no turn beyond its
rate; two never share a cell and none stands on a wall; a refused command leaves the campaign
identical; folding the recorded events afresh gives the same game; undoing any event (a pass,
a move, a sprint, an interception...) and redoing it restores the same state.
"""

from __future__ import annotations

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
from domain.commands.encounter import EnterCombatant, MoveCombatant, StartEncounter, StartRound
from domain.commands.roster import AddCharacter
from domain.encounter import cell_terrain
from domain.events import TrekEvent
from domain.geometry import DIRECTIONS, Square
from domain.options import CharacterOptions
from domain.shadowrun.commands import Intercept, NextPass, Sprint
from domain.shadowrun.movement import MovedInPass, PassStarted
from domain.state import Side
from projections.views import encounter_of
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
SR = RULESETS.named("shadowrun")
ARENA = """\
[map]
name = "Yard"
rows = [
  "......",
  ".#,,..",
  ".#....",
  "...,..",
]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
"," = { terrain = "rough" }
"""
NAMES = ("Kira", "Dvorak", "Ganger", "Troll")
PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

def setup() -> Play:
    c = Campaign.start(STAMP, name="Yard", ruleset="shadowrun", rulesets=RULESETS, seed=9,
                       game_map=None, at=None)
    c.handle(AddCharacter(CharacterOptions(name="Kira", skills={"athletics": 3},
                                     extra={"quickness": 5, "metatype": "elf"})))
    c.handle(AddCharacter(CharacterOptions(name="Dvorak", skills={"athletics": 1},
                                     extra={"quickness": 4, "metatype": "dwarf"})))
    c.handle(StartEncounter("Yard", load_battle_map(ARENA, SR.battle_legend)))
    c.handle(EnterCombatant(name="Kira", at=Square(0, 0)))
    c.handle(EnterCombatant(name="Dvorak", at=Square(0, 3)))
    for name, at, quickness, metatype in (("Ganger", Square(5, 0), 4, "ork"),
                                          ("Troll", Square(5, 3), 3, "troll")):
        c.handle(EnterCombatant(
            name=name, at=at, side=Side.ENEMY, from_roster=False,
            options=CharacterOptions(name=name, skills={"athletics": 2},
                                     extra={"quickness": quickness, "metatype": metatype})))
    return Play(c, c.collect_events())


def _move(name: str, steps: list[str], options: dict[str, bool]) -> Step:
    return Step(f"move {name} {' '.join(steps)} {options}",
                lambda c: c.handle(MoveCombatant(name=name, steps=tuple(steps), options=options)))


def _move_to(name: str, x: int, y: int, options: dict[str, bool]) -> Step:
    return Step(f"move {name} --to {x},{y} {options}",
                lambda c: c.handle(MoveCombatant(name=name, to=Square(x, y), options=options)))


def _round(passes: dict[str, int]) -> Step:
    return Step(f"round {passes}",
                lambda c: c.handle(StartRound(
                    options={"passes": list(passes.items())} if passes else {})))


_NAME = st.sampled_from(NAMES)
_GAIT = st.fixed_dictionaries({}, optional={"walk": st.just(True), "run": st.just(True)})
_ROUND = st.builds(_round, st.dictionaries(_NAME, st.integers(1, 4), max_size=4))
_STEPS = st.one_of(
    st.builds(_move, _NAME, st.lists(st.sampled_from(list(DIRECTIONS)), min_size=1,
                                     max_size=5), _GAIT),
    st.builds(_move_to, _NAME, st.integers(0, 5), st.integers(0, 3), _GAIT),
    st.just(Step("pass", lambda c: c.handle(NextPass()))),
    st.just(Step("pass", lambda c: c.handle(NextPass()))),
    st.builds(lambda n, s: Step(f"sprint {n} --roll {s}",
                                lambda c: c.handle(Sprint(name=n, successes=s))),
              _NAME, st.integers(0, 3)),
    st.builds(lambda n: Step(f"sprint {n}", lambda c: c.handle(Sprint(name=n))), _NAME),
    st.builds(lambda n, b, x, y: Step(f"intercept {n} --by {b} --at {x},{y}",
                                      lambda c: c.handle(Intercept(name=n, by=b,
                                                                   at=Square(x, y)))),
              _NAME, _NAME, st.integers(0, 5), st.integers(0, 3)),
    _ROUND,
)
_SEQUENCES = st.tuples(_ROUND, st.lists(_STEPS, min_size=1, max_size=25)).map(
    lambda first_and_rest: [first_and_rest[0], *first_and_rest[1]])


def play(steps: list[Step], check: Check | None = None) -> Play:
    return play_steps(setup(), steps, check)


def _within_the_rules(c: Campaign, event: TrekEvent) -> None:
    doc = encounter_of(c.situation(), SR)
    assert doc is not None
    encounter = c.game.encounter
    assert encounter is not None
    cells = [combatant.at for combatant in encounter.combatants.values()]
    assert len(cells) == len(set(cells))
    for combatant in encounter.combatants.values():
        terrain = cell_terrain(encounter, combatant.at)
        assert terrain is not None
        assert terrain["terrain"] != "wall"
    assert 1 <= doc["pass"] <= doc["passes"]
    if isinstance(event, MovedInPass):
        # Worked out with the Quickness of the pass the move was made in.
        mover = doc["combatants"][event.name]
        assert 0 < mover["moved"] <= mover["pass_limit"]
        assert mover["moved"] <= mover["moved_turn"] <= mover["rate"]
        assert mover["remaining"] >= 0
    if isinstance(event, PassStarted):
        assert all(c["moved"] == 0 for c in doc["combatants"].values())


@PROPERTY
@given(_SEQUENCES)
def test_no_pass_exceeds_its_limit_and_no_turn_its_rate(steps: list[Step]) -> None:
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


@PROPERTY
@given(_SEQUENCES, st.data())
def test_undoing_a_pass_event_then_redoing_it_restores_the_same_state(
        steps: list[Step], data: st.DataObject) -> None:
    result = play([*steps, Step("pass", lambda c: c.handle(NextPass()))])
    passes = [e.seq for e in result.events if isinstance(e, PassStarted)]
    assume(passes)
    undo_then_redo(result, data.draw(st.sampled_from(passes)), check_undone=False)

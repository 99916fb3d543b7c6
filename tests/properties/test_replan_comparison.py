"""Re-checking history compares each new decision with the recorded event field by field
(`same_outcome`); the reference dumps both to JSON (`recorded_same`). On random BESM
histories, undoing any event, the two agree on every pair met, and the whole re-check (what is
dropped, why, what stands and the game it leaves) is the same under either.

`group_flies` and `base_movement` answer without making the travelling units; on random
parties they say what `travelling_units` says.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_undo_on_stores import HISTORIES, SETUP, RuleViolation, play, start

from domain.besm.events import Moved
from domain.besm.rules import base_movement, group_flies, travelling_units
from domain.events import TrekEvent
from domain.history import fold_live, recorded_same, replan, same_outcome
from domain.ruleset import Decision, Situation
from domain.state import Character, Conveyance, ConveyanceKind, ConveyanceState, Game
from tracker.app import Trek

OpenTrek = Callable[..., Trek]

_names = itertools.count()


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(commands=HISTORIES)
def test_the_field_comparison_agrees_with_the_json_one(open_trek: OpenTrek,
                                                       commands: list[Any]) -> None:
    trek = open_trek(f"memory:replan-{next(_names)}", create=True)
    slug = start(trek, "compared")
    for command in [*SETUP, *commands]:
        try:
            play(trek, slug, command)
        except RuleViolation:
            continue
    campaign = trek._load(slug)
    events = trek.reader.events(slug)
    met: list[tuple[Decision, TrekEvent]] = []

    def spied(here: Situation, event: TrekEvent) -> Decision:
        decision = campaign.redecide(here, event)
        met.append((decision, event))
        return decision

    for target in (e.seq for e in events if type(e).undoable):
        before = fold_live(events[:target - 1], campaign.is_live)
        situation = Situation(game=before, map=campaign.map, ruleset=campaign.ruleset_name)
        live = lambda seq, gone=target: campaign.is_live(seq) and seq != gone  # noqa: E731
        fast = replan(situation, events[target - 1:], live, spied)
        slow = replan(situation, events[target - 1:], live, campaign.redecide,
                      same=recorded_same)
        assert fast.dropped == slow.dropped
        assert fast.types == slow.types
        assert fast.kept == slow.kept
        assert fast.game.dump() == slow.game.dump()
    assert met
    for decision, event in met:
        assert same_outcome(decision, event) == recorded_same(decision, event)
    # Decisions that differ from what was recorded are met too, not only equal ones.
    moved = [(d, e) for d, e in met if isinstance(d, Moved)]
    for decision, event in moved[:3]:
        assert isinstance(decision, Moved)
        other = decision.model_copy(update={"cost": decision.cost + 1})
        assert not same_outcome(other, event)
        assert not recorded_same(other, event)


LEVEL = st.integers(-1, 3)
CHARACTERS = st.lists(st.tuples(st.booleans(), st.booleans(), LEVEL, LEVEL), max_size=4)
CONVEYANCES = st.lists(
    st.tuples(st.booleans(), st.sampled_from(list(ConveyanceState)),
              st.sampled_from([None, "flight", "ground-speed", "swimming"]), LEVEL),
    max_size=3)


@given(characters=CHARACTERS, conveyances=CONVEYANCES)
def test_the_pace_and_flight_are_what_the_travelling_units_say(
        characters: list[tuple[bool, bool, int, int]],
        conveyances: list[tuple[bool, ConveyanceState, str | None, int]]) -> None:
    game = Game()
    for n, (with_party, aboard, flight, speed) in enumerate(characters):
        game.characters[f"c{n}"] = Character(
            name=f"c{n}", with_party=with_party, conveyance="v0" if aboard else None,
            attributes={"flight": flight, "ground-speed": speed})
    for n, (with_party, state, attribute, level) in enumerate(conveyances):
        game.conveyances[f"v{n}"] = Conveyance(
            name=f"v{n}", kind=ConveyanceKind.MOUNT, with_party=with_party, state=state,
            attribute=attribute, level=level)
    units = travelling_units(game)
    assert group_flies(game) == (bool(units) and all(unit.flies for unit in units))
    assert base_movement(game) == min((unit.rate for unit in units), default=1)

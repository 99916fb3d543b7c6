"""Undo and redo on the Campaign aggregate (RULES.md §4), and the corrections reversals carry."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rulesets import RULESETS

from domain.besm.commands import Forage, ForcedMarch, TakeShortcut, TravelByNight
from domain.besm.state import pending_strain, today
from domain.campaign import Campaign, Stamp
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.roster import AddCharacter, AddMount, Dismount, Harm
from domain.commands.supplies import SetSupplies, SpendSupplies
from domain.commands.travel import Move, MoveOptions
from domain.errors import NotFound, RuleViolation
from domain.events import EventsCancelled, EventsRestored, TrekEvent
from domain.geometry import Square
from domain.history import fold_live
from domain.options import CharacterOptions
from domain.patch import Correction, apply, diff
from domain.state import Game
from tracker.mapformats.tomlfile import load_map

PLAIN = load_map("""\
[map]
name = "Plain"
rows = [
  ".....",
  ".....",
  ".....",
]

[legend]
"." = { terrain = "open" }

[[shortcut]]
name = "Old Road"
path = [[1, 1]]
bonus = 1
""", RULESETS.named("besm"))

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))


class Table:
    """A campaign and every event it recorded so far, as the application would load them."""

    def __init__(self) -> None:
        self.campaign = Campaign.start(STAMP, name="Ashes Road", ruleset="besm",
                                       rulesets=RULESETS, seed=3,
                                       game_map=PLAIN, at=Square(0, 0))
        self.events: list[TrekEvent] = self.campaign.collect_events()

    def do(self, command: Callable[[Campaign], TrekEvent]) -> int:
        event = command(self.campaign)
        self.events.extend(self.campaign.collect_events())
        return event.seq

    def undo(self, *seqs: int, cascade: bool = False) -> EventsCancelled:
        k = min(seqs)
        before = fold_live(self.events[:k - 1], self.campaign.is_live)
        event = self.campaign.cancel(list(seqs), before=before, later=self.events[k - 1:],
                                     cascade=cascade, reason=None)
        self.events.extend(self.campaign.collect_events())
        assert isinstance(event, EventsCancelled)
        return event

    def redo(self, *seqs: int) -> EventsRestored:
        k = min(seqs)
        before = fold_live(self.events[:k - 1], self.campaign.is_live)
        event = self.campaign.restore(list(seqs), before=before, later=self.events[k - 1:],
                                      reason=None)
        self.events.extend(self.campaign.collect_events())
        assert isinstance(event, EventsRestored)
        return event

    def state(self) -> dict[str, Any]:
        return self.campaign.game.model_dump()

    def live_fold(self) -> dict[str, Any]:
        return fold_live(self.events, self.campaign.is_live).model_dump()

    def read_model_fold(self) -> dict[str, Any]:
        """Every event in order, reversals applied by their corrections: what readers do."""
        game = Game()
        for event in self.events:
            event.apply_to(game)
        return game.model_dump()


def refused(table: Table, command: Callable[[], object], match: str | None = None) -> str:
    game = table.state()
    version = table.campaign.version
    cancelled = table.campaign.cancelled_in(1, version)
    with pytest.raises(RuleViolation, match=match) as caught:
        command()
    assert table.state() == game
    assert table.campaign.version == version
    assert table.campaign.cancelled_in(1, version) == cancelled
    assert table.campaign.pending_events == []
    return str(caught.value)


def party() -> Table:
    """Kira (rider target (7+4)/2 + ride 3 = 8) on Dusty, ground-speed 2; Bo walks at speed 4."""
    table = Table()
    table.do(lambda c: c.handle(AddCharacter(CharacterOptions(
        name="Kira", skills={"ride": 3, "survival": 2}, extra={"body": 7, "mind": 6, "soul": 4}))))
    table.do(lambda c: c.handle(AddMount("Dusty", ("ground-speed", 2), "Kira")))
    table.do(lambda c: c.handle(SetSupplies({"provisions": 4})))
    return table


def step(*directions: str) -> Callable[[Campaign], TrekEvent]:
    return lambda c: c.handle(Move(MoveOptions(steps=directions)))


def end_day(c: Campaign) -> TrekEvent:
    return c.handle(EndDay(DayEndOptions()))


LATEST: dict[str, Callable[[Campaign], TrekEvent]] = {
    "move": step("E", "SE"),
    "forage": lambda c: c.handle(Forage(roll=3)),
    "forced march": lambda c: c.handle(ForcedMarch(rolls={"Kira": 11})),
    "night travel": lambda c: c.handle(TravelByNight(roll=4)),
    "shortcut": lambda c: c.handle(TakeShortcut(name="Old Road", roll=2)),
    "harm": lambda c: c.handle(Harm("Kira", 5, 5, "a fall")),
    "day end": end_day,
    "supplies": lambda c: c.handle(SpendSupplies({"provisions": 2})),
    "dismount": lambda c: c.handle(Dismount("Kira")),
}


@pytest.mark.parametrize("command", list(LATEST))
def test_undoing_the_latest_event_restores_the_game_as_it_was_before_it(command: str) -> None:
    # given an open day and one more event
    table = party()
    table.do(lambda c: c.handle(StartDay()))
    before = table.state()
    seq = table.do(LATEST[command])
    assert table.state() != before

    # when it is undone
    reversal = table.undo(seq)

    # then the game is as it was, and the reversal names what it cancelled
    assert table.state() == before
    assert reversal.cancels == [seq]
    assert table.campaign.cancelled_in(1, reversal.seq) == {seq: reversal.seq}
    assert table.campaign.version == seq + 1  # the undo is recorded, nothing is deleted
    assert table.live_fold() == before
    assert table.read_model_fold() == before


def two_moves() -> tuple[Table, int, int]:
    table = party()
    table.do(lambda c: c.handle(StartDay()))  # budget 4
    first = table.do(step("E"))
    second = table.do(step("E"))
    assert table.campaign.game.position == Square(2, 0)
    return table, first, second


def test_undoing_an_earlier_move_is_refused_naming_the_later_move_it_would_break() -> None:
    table, first, second = two_moves()

    message = refused(table, lambda: table.undo(first))

    assert f"event {second} (Moved)" in message
    assert "1,0" in message  # the later move starts where the first one ended
    assert "--cascade" in message


def test_a_cascading_undo_cancels_the_later_events_that_depend_on_it() -> None:
    table, first, second = two_moves()

    reversal = table.undo(first, cascade=True)

    assert reversal.cancels == [first, second]
    assert table.campaign.game.position == Square(0, 0)
    assert today(table.campaign.game).used == 0
    assert table.state() == table.live_fold() == table.read_model_fold()


def test_undoing_an_earlier_event_keeps_the_later_ones_that_still_follow() -> None:
    # given a move, then a harm that does not depend on it
    table, _first, second = two_moves()
    harm = table.do(lambda c: c.handle(Harm("Kira", 3, 0, None)))

    reversal = table.undo(second)

    assert reversal.cancels == [second]
    assert table.campaign.is_live(harm)
    assert table.campaign.game.characters["Kira"].health == 52  # (7 + 4) × 5 = 55, − 3
    assert table.campaign.game.position == Square(1, 0)
    assert table.state() == table.live_fold() == table.read_model_fold()


def test_redo_restores_an_undone_event() -> None:
    table, _first, second = two_moves()
    after = table.state()
    table.undo(second)

    restored = table.redo(second)

    assert restored.restores == [second]
    assert table.state() == after
    assert table.campaign.cancelled_in(1, table.campaign.version) == {}
    assert table.state() == table.live_fold() == table.read_model_fold()


def test_redo_is_checked_like_undo() -> None:
    # given both moves cancelled by one cascade
    table, first, second = two_moves()
    table.undo(first, cascade=True)

    # then the second cannot come back without the first
    message = refused(table, lambda: table.redo(second))
    assert f"event {second} (Moved)" in message

    # but the first alone, or both together, can
    table.redo(first)
    assert table.campaign.game.position == Square(1, 0)
    table.redo(second)
    assert table.campaign.game.position == Square(2, 0)
    assert table.state() == table.live_fold() == table.read_model_fold()


def strained_day(roll: int) -> tuple[Table, int, int]:
    table = party()
    table.do(lambda c: c.handle(StartDay()))
    march = table.do(lambda c: c.handle(ForcedMarch(rolls={"Kira": roll})))
    day_end = table.do(end_day)
    return table, march, day_end


def test_undoing_a_forced_march_that_strained_a_mount_invalidates_the_day_end() -> None:
    # given a failed forced march (11 > 8) whose strain landed at the day's end
    table, march, day_end = strained_day(11)
    assert table.campaign.game.conveyances["Dusty"].level == 1

    message = refused(table, lambda: table.undo(march))

    assert f"event {day_end} (DayEnded)" in message
    assert "would no longer follow" in message


def test_a_cascading_undo_of_a_straining_forced_march_drops_the_day_end() -> None:
    table, march, day_end = strained_day(11)

    reversal = table.undo(march, cascade=True)

    assert reversal.cancels == [march, day_end]
    dusty = table.campaign.game.conveyances["Dusty"]
    assert (dusty.level, pending_strain(dusty)) == (2, 0)
    assert table.campaign.game.day.open  # the day is open again
    assert table.campaign.game.supplies["provisions"] == 4
    assert table.state() == table.live_fold() == table.read_model_fold()


def test_undoing_a_forced_march_without_strain_leaves_the_day_end_standing() -> None:
    table, march, day_end = strained_day(8)  # spot-on: no strain

    reversal = table.undo(march)

    assert reversal.cancels == [march]
    assert table.campaign.is_live(day_end)
    assert not table.campaign.game.day.open
    assert table.campaign.game.supplies["provisions"] == 4
    assert table.state() == table.live_fold() == table.read_model_fold()


def test_undoing_the_day_start_makes_every_later_travel_event_illegal() -> None:
    table, first, second = two_moves()
    day_start = first - 1

    message = refused(table, lambda: table.undo(day_start))
    assert f"event {first} (Moved)" in message
    assert f"event {second} (Moved)" in message

    reversal = table.undo(day_start, cascade=True)
    assert reversal.cancels == [day_start, first, second]
    assert not table.campaign.game.day.open


def test_undo_refuses_bookkeeping_events_cancelled_events_and_unknown_seqs() -> None:
    table, _first, second = two_moves()
    reversal = table.undo(second)

    refused(table, lambda: table.undo(1), match="keeps the books")  # CampaignStarted
    refused(table, lambda: table.undo(reversal.seq), match="redo")
    refused(table, lambda: table.undo(second), match=f"already cancelled by event {reversal.seq}")
    with pytest.raises(NotFound):
        table.undo(reversal.seq + 5)
    refused(table, lambda: table.redo(1), match="not cancelled")


# -- patch -----------------------------------------------------------------------------------


def test_diff_of_equal_documents_is_empty() -> None:
    document = {"a": 1, "b": {"c": [1, 2]}}

    assert diff(document, {"a": 1, "b": {"c": [1, 2]}}) == []


def test_diff_sets_changed_values_adds_keys_and_deletes_missing_ones() -> None:
    before = {"keep": 1, "gone": 2, "nested": {"x": 1, "y": [1, 2]}}
    after = {"keep": 1, "new": {"z": 3}, "nested": {"x": 2, "y": [1, 2, 3]}}

    corrections = diff(before, after)

    assert corrections == [
        Correction(path=("gone",), delete=True),
        Correction(path=("new",), value={"z": 3}),
        Correction(path=("nested", "x"), value=2),
        Correction(path=("nested", "y"), value=[1, 2, 3]),  # lists are replaced whole
    ]
    assert apply(before, corrections) == after


def test_diff_tells_a_boolean_from_an_equal_number() -> None:
    # True == 1 in Python, but a JSON document must keep the type it had
    corrections = diff({"flag": 1}, {"flag": True})

    assert corrections == [Correction(path=("flag",), value=True)]
    assert apply({"flag": 1}, corrections)["flag"] is True


def test_apply_leaves_its_input_untouched() -> None:
    before = {"a": {"b": 1}}

    after = apply(before, [Correction(path=("a", "b"), value=2)])

    assert before == {"a": {"b": 1}}
    assert after == {"a": {"b": 2}}


def test_a_whole_document_correction_replaces_the_document() -> None:
    assert apply({"a": 1}, diff({"a": 1}, {"b": 2})) == {"b": 2}
    assert apply({"a": 1}, [Correction(path=(), value={"c": 3})]) == {"c": 3}
    with pytest.raises(ValueError, match="object"):
        apply({"a": 1}, [Correction(path=(), value=[1])])


_SCALARS = (st.none() | st.booleans() | st.integers(-5, 5)
            | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=3))
_KEYS = st.sampled_from(["a", "b", "c", "d"])
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)
_DOCUMENTS = st.dictionaries(_KEYS, _JSON, max_size=4)


@settings(max_examples=200, deadline=None)
@given(before=_DOCUMENTS, after=_DOCUMENTS)
def test_applying_the_diff_turns_one_document_into_the_other(before: dict[str, Any],
                                                             after: dict[str, Any]) -> None:
    corrections = diff(before, after)

    assert apply(before, corrections) == after
    assert diff(after, apply(before, corrections)) == []
    # corrections survive the JSON round trip a stored reversal makes
    stored = [Correction.model_validate_json(c.model_dump_json()) for c in corrections]
    assert apply(before, stored) == after


@settings(max_examples=100, deadline=None)
@given(document=_DOCUMENTS)
def test_a_document_needs_no_corrections_to_become_itself(document: dict[str, Any]) -> None:
    assert diff(document, document) == []


_NAMES = st.sampled_from(["Kira", "Bo"])
_COUNTS = st.integers(0, 9)
_CHARACTERS = st.dictionaries(_NAMES, st.builds(
    lambda name, health, stats: {"name": name, "health": health, "stats": stats},
    _NAMES, _COUNTS, st.dictionaries(st.sampled_from(["body", "ride"]), _COUNTS, max_size=2)),
    max_size=2).map(lambda found: {name: {**c, "name": name} for name, c in found.items()})
_GAMES = st.fixed_dictionaries({}, optional={
    "position": st.tuples(_COUNTS, _COUNTS).map(list),
    "day": st.fixed_dictionaries({"number": _COUNTS, "open": st.booleans()}),
    "supplies": st.dictionaries(st.sampled_from(["provisions", "water"]), _COUNTS),
    "characters": _CHARACTERS,
    "rules": st.dictionaries(_KEYS, _COUNTS, max_size=2),
    "travel": st.dictionaries(_KEYS, _JSON, max_size=2),
}).map(Game.model_validate)


def _reversal(corrections: list[Correction]) -> EventsCancelled:
    return EventsCancelled.model_construct(cancels=[1], corrections=corrections)


@settings(max_examples=200, deadline=None)
@given(before=_GAMES, after=_GAMES)
def test_a_reversal_turns_the_game_into_the_one_its_corrections_were_worked_out_for(
        before: Game, after: Game) -> None:
    # The corrections name only the fields that differ; the fields they do not name must come
    # through as they were, and the result must be what patching the whole dump gives.
    corrections = diff(before.dump(), after.dump())
    whole = Game.model_validate(apply(before.dump(), corrections))
    game = before.model_copy(deep=True)

    _reversal(corrections).apply_to(game)

    assert game.dump() == after.dump() == whole.dump()


def test_a_correction_of_an_old_release_field_patches_the_whole_game() -> None:
    # Release 0.2 kept a ruleset's fields beside the game's own; a stored correction may
    # still name one, which belongs in the ruleset's travel document.
    game = Game.model_validate({"supplies": {"provisions": 3}, "travel": {"pace": 1}})

    _reversal([Correction(path=("strain",), value=2),
               Correction(path=("supplies", "provisions"), value=5)]).apply_to(game)

    assert game.travel == {"pace": 1, "strain": 2}
    assert game.supplies["provisions"] == 5


def night_then_day_end(**rests: str) -> tuple[Table, int, int]:
    """Day 1: a successful night travel (4 vs Kira's navigation target), then the day's end."""
    table = party()
    table.do(lambda c: c.handle(StartDay()))
    night = table.do(lambda c: c.handle(TravelByNight(roll=4)))
    day_end = table.do(lambda c: c.handle(EndDay(DayEndOptions(rests=rests))))
    return table, night, day_end


def test_undoing_night_travel_rechecks_the_rest_the_riders_took_by_default() -> None:
    # Kira rode through the night, so she rested in the saddle by default; without the night
    # travel she would have camped, so the recorded day end no longer follows.
    table, night, day_end = night_then_day_end()
    ended = table.events[day_end - 1]
    assert ended.recovery["Kira"].mode == "saddle"  # type: ignore[attr-defined]

    message = refused(table, lambda: table.undo(night))
    assert f"event {day_end} (DayEnded)" in message

    reversal = table.undo(night, cascade=True)
    assert reversal.cancels == [night, day_end]
    assert table.state() == table.live_fold() == table.read_model_fold()


def test_a_rest_the_gm_chose_stands_when_the_night_travel_is_undone() -> None:
    # The GM chose camp for Kira: the day end decides the same without the night travel.
    table, night, day_end = night_then_day_end(Kira="camp")
    reversal = table.undo(night)
    assert reversal.cancels == [night]
    assert table.campaign.is_live(day_end)
    assert table.events[day_end - 1].chosen == ["Kira"]  # type: ignore[attr-defined]
    assert table.state() == table.live_fold() == table.read_model_fold()

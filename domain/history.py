"""Re-checking later events when an earlier one is cancelled or restored."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from pydantic import ValidationError

from domain.errors import RuleViolation
from domain.events import ENVELOPE, TrekEvent
from domain.ruleset import Decision, Situation
from domain.state import Game
from domain.values import refusal

Redecide = Callable[[Situation, TrekEvent], Decision]


@dataclass
class Replan:
    """The game as if the history had gone the new way, and what could not stand in it."""

    game: Game
    dropped: list[tuple[int, str]] = field(default_factory=list)
    # How many live later events still stand (a count, not a list: memory stays flat).
    kept: int = 0
    # The event type of each dropped seq, for the refusal message: `later` may be a stream
    # that cannot be read twice.
    types: dict[int, str] = field(default_factory=dict)


# The bookkeeping every event carries, which a decision never has (see `TrekEvent.payload`),
# and the party an event acted on, which the campaign fills in as well.
_ENVELOPE = ENVELOPE | {"party"}


def recorded_same(decision: Decision, event: TrekEvent) -> bool:
    """The reference: the decision and the event say the same once both are dumped to JSON."""
    if type(decision) is not type(event):
        return False
    mine, recorded = decision.payload(), event.payload()
    mine.pop("party", None)
    recorded.pop("party", None)
    return mine == recorded


def same_outcome(decision: Decision, event: TrekEvent) -> bool:
    """Whether deciding again gives what the event recorded (as `recorded_same` answers).

    Both are the same model type, validated by the same schema, so their payload fields are
    compared as they are, without dumping either; only when those differ (a value equal as
    JSON but not as Python, say) is the reference asked.
    """
    kind = type(decision)
    if kind is not type(event):
        return False
    fields = _payload_fields.get(kind)
    if fields is None:
        fields = _payload_fields[kind] = _payload_getter(kind)
    return fields(decision.__dict__) == fields(event.__dict__) or recorded_same(decision, event)


def _payload_getter(kind: type[TrekEvent]) -> Callable[[dict[str, Any]], Any]:
    names = [name for name in kind.model_fields if name not in _ENVELOPE]
    if not names:
        return lambda _: ()
    return itemgetter(*names)


# Per event class: its payload fields' values, read from an event's __dict__ as one tuple.
_payload_fields: dict[type[TrekEvent], Callable[[dict[str, Any]], Any]] = {}


def stands_as_recorded(decision: Decision, event: TrekEvent, game: Game) -> bool:
    """Whether an event whose `derived` figures differ from the new decision's still stands:
    the question is whether it is still legal, not whether every figure it worked out from
    the state is unchanged. It stands when everything else it recorded is the same and
    applying it to `game` does exactly what applying the decision does, so folding the log
    (which applies what was recorded) still gives the game the rules give."""
    kind = type(event)
    if not kind.derived or type(decision) is not kind:
        return False
    names = [name for name in kind.model_fields
             if name not in _ENVELOPE and name not in kind.derived]
    if any(getattr(decision, name) != getattr(event, name) for name in names):
        mine = decision.model_dump(mode="json", include=set(names))
        if mine != event.model_dump(mode="json", include=set(names)):
            return False
    recorded, decided = game.model_copy(deep=True), game.model_copy(deep=True)
    try:
        # What it recorded may name someone the new history does not have.
        event.apply_to(recorded)
    except (KeyError, ValueError, AssertionError):
        return False
    decision.apply_to(decided)
    return recorded.dump() == decided.dump()


def replan(
    situation: Situation,
    later: Iterable[TrekEvent],
    is_live: Callable[[int], bool],
    redecide: Redecide,
    same: Callable[[Decision, TrekEvent], bool] = same_outcome,
) -> Replan:
    """Fold the live events of `later` onto a copy of the situation's game, re-checking each.

    An event stands when deciding it again, from what it recorded (its path, its dice, its
    options), gives the same outcome in the new history, or differs only in figures it
    worked out from the state while applying it still does the same (`stands_as_recorded`).
    One that does not is dropped, and the events after it are checked without it, so
    `dropped` is exactly what a cascade cancels.

    `later` is read once, in order, and nothing of it is kept but what was dropped: it may be a
    stream of a long campaign's events, and memory stays flat.
    """
    game = situation.game.model_copy(deep=True)
    result = Replan(game=game)
    # One Situation for the whole walk: it only holds references, and `game` changes in place.
    here = Situation(game=game, map=situation.map, ruleset=situation.ruleset)
    for event in later:
        if not type(event).undoable or not is_live(event.seq):
            continue
        try:
            decision = redecide(here, event)
        except (RuleViolation, ValidationError) as error:
            refused = refusal(error) if isinstance(error, ValidationError) else error
            result.dropped.append((event.seq, str(refused)))
            result.types[event.seq] = type(event).__name__
            continue
        if not same(decision, event) and not stands_as_recorded(decision, event, game):
            result.dropped.append((event.seq, "its recorded outcome would no longer follow"))
            result.types[event.seq] = type(event).__name__
            continue
        event.apply_to(game)
        result.kept += 1
    return result


def describe_dropped(dropped: list[tuple[int, str]], types: dict[int, str]) -> str:
    return "; ".join(
        f"event {seq} ({types.get(seq, 'event')}): {reason}" for seq, reason in dropped
    )


def fold_live(events: Iterable[TrekEvent], is_live: Callable[[int], bool],
              game: Game | None = None) -> Game:
    """The game as the live events make it: reversals' own corrections are not needed here.

    `game`, when given, is the game before the first of `events` (it is changed in place).
    """
    from domain.events import CampaignStarted

    game = game if game is not None else Game()
    for event in events:
        if isinstance(event, CampaignStarted) or (type(event).undoable and is_live(event.seq)):
            event.apply_to(game)
    return game

"""The route document: the party's journey day by day, as the events themselves describe it.

Nothing here knows a ruleset. Each event says which squares it walked (`route_path`) and what a
picture should mark for it (`route_marks`); this module only adds what the log knows about
every event: its day, its session, and whether a later reversal cancelled it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, singledispatch
from typing import Any, TypedDict

from domain.events import (
    CampaignStarted,
    EventsCancelled,
    EventsRestored,
    TrekEvent,
)
from domain.geometry import Square
from domain.parties import PartySplit
from domain.state import Game


class Route(TypedDict):
    """The party's journey as the events describe it (`build_route`)."""

    start: dict[str, int]
    position: dict[str, int]
    day: int
    events: int
    session: int | None
    days: list[int]
    segments: list[dict[str, Any]]
    marks: list[dict[str, Any]]
    # The party `position` and `day` are of, and every party's square and day (RULES.md §15);
    # each segment and mark names the party it belongs to.
    party: str
    parties: dict[str, dict[str, Any]]
    # Every party the log has known, the first one first, then in the order they split off:
    # what gives each its colours in a picture, the same in every view of the campaign.
    party_order: list[str]


def _square(square: Square) -> dict[str, int]:
    return {"x": square.x, "y": square.y}


@dataclass
class _Log:
    """What the log itself says about the journey: where it began, and which events a later
    reversal cancelled (event seq -> the reversal's)."""

    start: Square | None = None
    cancelled_by: dict[int, int] = field(default_factory=dict)


@singledispatch
def _note(event: TrekEvent, log: _Log) -> None:
    """Note what an event says about the log: most events say nothing."""


@_note.register
def _(event: CampaignStarted, log: _Log) -> None:
    log.start = event.start


@_note.register
def _(event: EventsCancelled, log: _Log) -> None:
    log.cancelled_by.update(dict.fromkeys(event.cancels, event.seq))


@_note.register
def _(event: EventsRestored, log: _Log) -> None:
    for seq in event.restores:
        log.cancelled_by.pop(seq, None)


# Each event class's case, asked once per class: a route folds every event of the log.
_note_of = cache(_note.dispatch)


def build_route(events: Iterable[TrekEvent], *, session: int | None = None,
                party: str | None = None) -> Route:
    """The route document of `events` (a campaign's log from its start, possibly cut short).

    The game is folded as the log folds it, reversals' corrections included, so an event's day
    and the square the party stood on are what they were when it was recorded. An event is
    `strong` unless `session` is given and the event belongs to another session. `position`
    and `day` are party `party`'s (when it exists at the end), else the last one acted on.
    """
    game = Game()
    log = _Log()
    segments: list[dict[str, Any]] = []
    marks: list[dict[str, Any]] = []
    last = 0
    order = [game.party]
    for event in events:
        event.apply_to(game)
        if isinstance(event, PartySplit):
            order.append(event.name)
        last = event.seq
        _note_of(type(event))(event, log)
        about = {"seq": event.seq, "type": type(event).__name__, "day": game.day.number,
                 "session": event.session, "party": event.party or game.party,
                 "strong": session is None or event.session == session}
        path = event.route_path()
        if len(path) > 1:
            segments.append({**about, "path": [_square(s) for s in path]})
        for mark in event.route_marks():
            at = mark.at if mark.at is not None else game.position
            marks.append({**about, "kind": mark.kind, "label": mark.label, "at": _square(at)})
    for item in (*segments, *marks):
        item["cancelled_by"] = log.cancelled_by.get(item["seq"])
    if party is not None and party in game.parties:
        game = game.focused(party)
    return {
        "start": _square(log.start if log.start is not None else Square(0, 0)),
        "position": _square(game.position),
        "day": game.day.number,
        "events": last,
        "session": session,
        "days": sorted({s["day"] for s in segments}),
        "segments": segments,
        "marks": marks,
        "party": game.party,
        "parties": {name: {"position": _square(side.position), "day": side.day.number}
                    for name, side in ((n, game.focused(n)) for n in game.party_names())},
        "party_order": list(dict.fromkeys(
            [*order, *(item["party"] for item in (*segments, *marks)), *game.party_names()])),
    }

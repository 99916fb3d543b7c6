"""The audit of a campaign, session by session: a fold over its events, deciding no rule.

Each event's effect is read off the same fold the read models use (supplies before and after,
conveyances before and after), so the audit counts what the events recorded, whatever the
ruleset. The rulesets name sections of their own (`Ruleset.audit_sections`; every campaign's
audit holds all the release's, so it has the same keys whatever its ruleset) and their events
fill them (`TrekEvent.audit_entries`). Totals count the events that stand today; rolls are
listed whether or not they were later cancelled (marked with the reversal that cancelled them);
undos and redos are listed with who made them, when and why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, singledispatch
from typing import Any, TypedDict

from domain.events import EventsCancelled, EventsRestored, TrekEvent
from domain.parties import PartiesMerged, PartySplit
from domain.sessions import SessionEnded, SessionStarted
from domain.state import SUPPLY_KINDS, Conveyance, Game


class AuditDocument(TypedDict):
    """`trek audit --json`: the campaign and a document per session (`SessionAudit.document`,
    which holds every ruleset's audit sections besides the shared counts, and `requests`: what
    each seat asked for while the session was open and what became of it, RULES §14)."""

    campaign: str
    sessions: list[dict[str, Any]]


@dataclass
class SessionAudit:
    """What happened in one play session (number None: events recorded outside any session)."""

    number: int | None
    title: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    gms: list[str] = field(default_factory=list)
    events: list[int] = field(default_factory=list)
    days: list[int] = field(default_factory=list)
    squares: int = 0
    miles: int = 0
    rolls: list[dict[str, Any]] = field(default_factory=list)
    gained: dict[str, int] = field(default_factory=dict)
    spent: dict[str, int] = field(default_factory=dict)
    # The rulesets' own sections, by name, in the order they were named.
    sections: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    undos: list[dict[str, Any]] = field(default_factory=list)

    def document(self) -> dict[str, Any]:
        return {
            "session": self.number, "title": self.title, "started_at": self.started_at,
            "ended_at": self.ended_at, "gms": self.gms,
            "events": {"first": self.events[0], "last": self.events[-1],
                       "count": len(self.events)} if self.events else None,
            "days": self.days, "squares_moved": self.squares, "miles": self.miles,
            "rolls": self.rolls,
            "supplies": {"gained": self.gained, "spent": self.spent},
            **self.sections,
            "undos": self.undos,
        }


class Auditor:
    """Folds a campaign's events in order into one SessionAudit per session."""

    def __init__(self, cancelled_by: Callable[[int], int | None],
                 sections: Sequence[str] = ()) -> None:
        self.cancelled_by = cancelled_by
        self.section_names = tuple(sections)
        self.game = Game()
        self.sessions: dict[int | None, SessionAudit] = {}
        self.types: dict[int, str] = {}

    def _session(self, number: int | None) -> SessionAudit:
        if number not in self.sessions:
            self.sessions[number] = SessionAudit(
                number, sections={name: [] for name in self.section_names})
        return self.sessions[number]

    def fold(self, events: Iterable[TrekEvent]) -> None:
        for event in events:
            self.add(event)

    def add(self, event: TrekEvent) -> None:
        game = self.game
        if event.party is not None and event.party in game.parties:
            # What the event changed is told from the side of the party it acted on.
            game.focus(event.party)
        supplies = {kind: game.supplies.get(kind, 0) for kind in SUPPLY_KINDS}
        fleet = {name: c.model_copy() for name, c in game.conveyances.items()}
        event.apply_to(game)
        kind = type(event)
        name = kind.__name__
        self.types[event.seq] = name
        audit = self._session(_session_of(kind)(event))
        _open_or_close_of(kind)(event, audit)
        audit.events.append(event.seq)
        # The GMs whose word recorded the session's events (an event stored before actors were
        # stamped: its GM).
        gm = event.recorded_for.name
        if gm and gm not in audit.gms:
            audit.gms.append(gm)
        # A day counts for the session that played some of it: while it was open, or its end.
        played = game.day.open or type(event).closes_day
        if game.day.number and played and game.day.number not in audit.days:
            audit.days.append(game.day.number)
        cancelled_by = self.cancelled_by(event.seq)
        for roll in event.rolls():
            audit.rolls.append({
                "seq": event.seq, "type": name, "day": game.day.number, "by": roll.by,
                "roll": roll.total, "dice": list(roll.dice) if roll.dice else None,
                "target": roll.target, "success": roll.success, "cancelled_by": cancelled_by,
                **({"party": event.party} if len(game.party_names()) > 1 else {}),
            })
        undo = _undo_of(kind)(event, self.types)
        if undo is not None:
            audit.undos.append(undo)
            return
        if cancelled_by is not None or not type(event).undoable:
            return
        self._count(audit, event, supplies, fleet)

    def _count(self, audit: SessionAudit, event: TrekEvent, supplies: dict[str, int],
               fleet: dict[str, Conveyance]) -> None:
        game = self.game
        squares, miles = event.distance()
        audit.squares += squares
        audit.miles += miles
        if isinstance(event, PartySplit | PartiesMerged):
            # Supplies handed from one party to another are neither gained nor spent.
            supplies = {kind: game.supplies.get(kind, 0) for kind in supplies}
        for kind, was in supplies.items():
            change = game.supplies.get(kind, 0) - was
            if change > 0:
                audit.gained[kind] = audit.gained.get(kind, 0) + change
            elif change < 0:
                audit.spent[kind] = audit.spent.get(kind, 0) - change
        for section, entry in event.audit_entries(fleet, game):
            audit.sections.setdefault(section, []).append(
                {"seq": event.seq, "day": game.day.number, **entry})

    def documents(self, session: int | None = None) -> list[dict[str, Any]]:
        chosen = [a for a in self.sessions.values() if session is None or a.number == session]
        # Sessions in order, then whatever was recorded outside any session.
        chosen.sort(key=lambda a: (a.number is None, a.number or 0))
        return [a.document() for a in chosen]


@singledispatch
def session_of(event: TrekEvent) -> int | None:
    """The session an event belongs to: the one it was recorded in."""
    return event.session


@session_of.register
def _(event: SessionStarted) -> int | None:
    # A session's opening event is stamped with the session before it; it belongs to its own.
    return event.number


@singledispatch
def _open_or_close(event: TrekEvent, audit: SessionAudit) -> None:
    """Note a session's start or end in its audit: any other event is neither."""


@_open_or_close.register
def _(event: SessionStarted, audit: SessionAudit) -> None:
    audit.title, audit.started_at = event.title, event.timestamp.isoformat()


@_open_or_close.register
def _(event: SessionEnded, audit: SessionAudit) -> None:
    audit.ended_at = event.timestamp.isoformat()


@singledispatch
def _undo(event: TrekEvent, types: dict[int, str]) -> dict[str, Any] | None:
    """A reversal's entry among the undos and redos (`types`: each seq's event type so far);
    None for any other event."""
    return None


@_undo.register
def _(event: EventsCancelled, types: dict[int, str]) -> dict[str, Any] | None:
    return _undo_entry(event, "undo", event.cancels, types)


@_undo.register
def _(event: EventsRestored, types: dict[int, str]) -> dict[str, Any] | None:
    return _undo_entry(event, "redo", event.restores, types)


# Each event class's cases, asked once per class: an audit or a recap folds every event.
_session_of = cache(session_of.dispatch)
_open_or_close_of = cache(_open_or_close.dispatch)
_undo_of = cache(_undo.dispatch)


def _undo_entry(event: EventsCancelled | EventsRestored, action: str, named: list[int],
                types: dict[int, str]) -> dict[str, Any]:
    return {
        "seq": event.seq, "action": action,
        "events": [{"seq": s, "type": types.get(s)} for s in named],
        "at": event.timestamp.isoformat(), "gm": event.recorded_for.name, "reason": event.reason,
    }

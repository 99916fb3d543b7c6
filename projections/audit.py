"""The audit of a campaign, session by session: a fold over its events, deciding no rule.

Each event's effect is read off the same fold the read models use (supplies before and after,
conveyances before and after), so the audit counts what the events recorded, whatever the
ruleset. Totals count the events that stand today; rolls are listed whether or not they were
later cancelled (marked with the reversal that cancelled them); undos and redos are listed with
who made them, when and why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from domain.events import (
    EventsCancelled,
    EventsRestored,
    SessionEnded,
    SessionStarted,
    TrekEvent,
)
from domain.state import SUPPLY_KINDS, Game


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
    strain: list[dict[str, Any]] = field(default_factory=list)
    deaths: list[dict[str, Any]] = field(default_factory=list)
    repairs: list[dict[str, Any]] = field(default_factory=list)
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
            "strain": self.strain, "deaths": self.deaths, "repairs": self.repairs,
            "undos": self.undos,
        }


def _fleet(game: Game) -> dict[str, tuple[int, int, str]]:
    return {name: (c.level, c.pending_strain, c.state.value)
            for name, c in game.conveyances.items()}


class Auditor:
    """Folds a campaign's events in order into one SessionAudit per session."""

    def __init__(self, cancelled_by: Callable[[int], int | None]) -> None:
        self.cancelled_by = cancelled_by
        self.game = Game()
        self.sessions: dict[int | None, SessionAudit] = {}
        self.types: dict[int, str] = {}

    def _session(self, number: int | None) -> SessionAudit:
        if number not in self.sessions:
            self.sessions[number] = SessionAudit(number)
        return self.sessions[number]

    def fold(self, events: Iterable[TrekEvent]) -> None:
        for event in events:
            self.add(event)

    def add(self, event: TrekEvent) -> None:
        game = self.game
        supplies = {kind: game.supplies.get(kind, 0) for kind in SUPPLY_KINDS}
        fleet = _fleet(game)
        event.apply_to(game)
        name = type(event).__name__
        self.types[event.seq] = name
        # A session's opening event is stamped with the session before it; it belongs to its own.
        audit = self._session(event.number if isinstance(event, SessionStarted)
                              else event.session)
        if isinstance(event, SessionStarted):
            audit.title, audit.started_at = event.title, event.timestamp.isoformat()
        elif isinstance(event, SessionEnded):
            audit.ended_at = event.timestamp.isoformat()
        audit.events.append(event.seq)
        if event.gm and event.gm not in audit.gms:
            audit.gms.append(event.gm)
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
            })
        if isinstance(event, EventsCancelled | EventsRestored):
            named = event.cancels if isinstance(event, EventsCancelled) else event.restores
            audit.undos.append({
                "seq": event.seq, "action": "undo" if isinstance(event, EventsCancelled)
                else "redo", "events": [{"seq": s, "type": self.types.get(s)} for s in named],
                "at": event.timestamp.isoformat(), "gm": event.gm, "reason": event.reason,
            })
            return
        if cancelled_by is not None or not type(event).undoable:
            return
        self._count(audit, event, supplies, fleet)

    def _count(self, audit: SessionAudit, event: TrekEvent, supplies: dict[str, int],
               fleet: dict[str, tuple[int, int, str]]) -> None:
        game = self.game
        squares, miles = event.distance()
        audit.squares += squares
        audit.miles += miles
        for kind, was in supplies.items():
            change = game.supplies.get(kind, 0) - was
            if change > 0:
                audit.gained[kind] = audit.gained.get(kind, 0) + change
            elif change < 0:
                audit.spent[kind] = audit.spent.get(kind, 0) - change
        for name, (level, pending, state) in _fleet(game).items():
            old_level, old_pending, old_state = fleet.get(name, (level, pending, state))
            if pending > old_pending or level < old_level:
                audit.strain.append({
                    "seq": event.seq, "day": game.day.number, "conveyance": name,
                    "pending_added": max(0, pending - old_pending),
                    "levels_lost": max(0, old_level - level),
                })
            if state != old_state and state != "ok":
                audit.deaths.append({"seq": event.seq, "day": game.day.number,
                                     "conveyance": name, "state": state})
        repair = event.repair_record()
        if repair is not None:
            audit.repairs.append({"seq": event.seq, "day": game.day.number, **repair})

    def documents(self, session: int | None = None) -> list[dict[str, Any]]:
        chosen = [a for a in self.sessions.values() if session is None or a.number == session]
        # Sessions in order, then whatever was recorded outside any session.
        chosen.sort(key=lambda a: (a.number is None, a.number or 0))
        return [a.document() for a in chosen]

"""A session recap: the audit's counts plus what the players lived through, deciding no rule.

The recap folds the same events as the audit (projections/audit.py) and adds what a handout
needs and the audit does not keep: the overland distance in miles (moves inside a fight are
left out), Health and Energy regained, the fights and their rounds, and what each event says it
did on the journey in its ruleset's own words (`TrekEvent.route_marks`, the same words the
route picture labels). It names no ruleset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, singledispatch
from typing import Any, TypedDict

from domain.encounter import EncounterStarted, RoundStarted
from domain.encounter_changes import EncounterEnded
from domain.events import TrekEvent
from domain.roster_events import SuppliesSet
from domain.state import Conveyance
from projections.audit import Auditor, SessionAudit, session_of


class SessionRecap(TypedDict):
    """One session's recap (or the whole campaign's): the audit's counts and what the players
    lived through; `sections` holds the rulesets' own audit sections by name."""

    session: int | None
    title: str | None
    whole_campaign: bool
    started_at: str | None
    ended_at: str | None
    gms: list[str]
    events: dict[str, int] | None
    days: list[int]
    distance: dict[str, int | None]
    supplies: dict[str, dict[str, int]]
    sections: dict[str, list[dict[str, Any]]]
    rests: list[dict[str, Any]]
    fights: list[dict[str, Any]]
    notes: list[dict[str, Any]]
    corrections: list[dict[str, Any]]


class RecapDocument(SessionRecap):
    """`trek recap --json`: the session's recap with the campaign it belongs to."""

    campaign: str
    name: str
    ruleset: str
    map: str | None
    # What each seat asked for while the session was open (a whole campaign's recap: ever)
    # and what became of it (RULES §14; tracker/seats.py COUNTED).
    requests: dict[str, dict[str, int]]


@dataclass
class SessionExtras:
    """What a recap adds to one session's audit."""

    squares: int = 0
    miles: int = 0
    rests: list[dict[str, Any]] = field(default_factory=list)
    fights: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)


class Recapper(Auditor):
    """The audit's fold, with every session's extras; `whole` folds all into one recap."""

    def __init__(self, cancelled_by: Callable[[int], int | None], *, square_miles: int | None,
                 whole: bool = False, sections: Sequence[str] = ()) -> None:
        super().__init__(cancelled_by, sections)
        self.square_miles = square_miles
        self.whole = whole
        self.extras: dict[int | None, SessionExtras] = {}
        self.fight: str | None = None

    def _key(self, event: TrekEvent) -> int | None:
        if self.whole:
            return None
        # As in the audit: a session's opening event belongs to the session it opens.
        return _session_of(type(event))(event)

    def _session(self, number: int | None) -> SessionAudit:
        return super()._session(None if self.whole else number)

    def add(self, event: TrekEvent) -> None:
        game = self.game
        before = {name: (c.health, c.energy) for name, c in game.characters.items()}
        overland = game.encounter is None
        super().add(event)
        extras = self.extras.setdefault(self._key(event), SessionExtras())
        if self.cancelled_by(event.seq) is not None or not type(event).undoable:
            return
        day = game.day.number
        if overland:
            squares, miles = event.distance()
            extras.squares += squares
            extras.miles += miles or squares * (self.square_miles or 0)
        for name, (health, energy) in before.items():
            member = game.characters.get(name)
            if member is None:
                continue
            gained_health = max(0, member.health - health)
            gained_energy = max(0, member.energy - energy)
            if gained_health or gained_energy:
                extras.rests.append({"seq": event.seq, "day": day, "character": name,
                                     "health": gained_health, "energy": gained_energy})
        # A fight is listed in every session that played some of it, with the rounds played
        # there.
        _fight_of(type(event))(event, self, extras.fights)
        for mark in event.route_marks():
            if not mark.audited:
                extras.notes.append({"seq": event.seq, "day": day, "kind": mark.kind,
                                     "text": mark.label[:1].upper() + mark.label[1:]})

    def _count(self, audit: SessionAudit, event: TrekEvent, supplies: dict[str, int],
               fleet: dict[str, Conveyance]) -> None:
        # `supplies set` states the stock (the opening one above all); the party neither
        # gained nor spent anything by it, so the recap counts no change for it (the audit
        # keeps its own count).
        if isinstance(event, SuppliesSet):
            supplies = dict(self.game.supplies)
        super()._count(audit, event, supplies, fleet)

    def recap(self, number: int | None) -> SessionRecap | None:
        """One session's recap document (or the whole campaign's), None when it saw nothing."""
        key = None if self.whole else number
        if key not in self.sessions:
            return None
        audit = self.sessions[key].document()
        extras = self.extras.get(key, SessionExtras())
        return {
            "session": audit["session"], "title": audit["title"],
            "whole_campaign": self.whole,
            "started_at": audit["started_at"], "ended_at": audit["ended_at"],
            "gms": audit["gms"], "events": audit["events"],
            "days": audit["days"],
            "distance": {"squares": extras.squares, "miles": extras.miles,
                         "square_miles": self.square_miles},
            "supplies": {"gained": audit["supplies"]["gained"],
                         "spent": audit["supplies"]["spent"]},
            # The ruleset's own audit sections, each with its entries of the session.
            "sections": {name: audit[name] for name in self.section_names},
            "rests": extras.rests, "fights": extras.fights, "notes": extras.notes,
            "corrections": audit["undos"],
        }


@singledispatch
def _fight(event: TrekEvent, recap: Recapper, fights: list[dict[str, Any]]) -> None:
    """What an event does to the session's list of fights: most events nothing."""


@_fight.register
def _(event: EncounterStarted, recap: Recapper, fights: list[dict[str, Any]]) -> None:
    recap.fight = event.name
    _listed(fights, event.name, event.seq, started=True)


@_fight.register
def _(event: RoundStarted, recap: Recapper, fights: list[dict[str, Any]]) -> None:
    if recap.fight is not None:
        _listed(fights, recap.fight, event.seq)["rounds"].append(event.number)


@_fight.register
def _(event: EncounterEnded, recap: Recapper, fights: list[dict[str, Any]]) -> None:
    if recap.fight is not None:
        _listed(fights, recap.fight, event.seq)["ended"] = True
        recap.fight = None


# Each event class's cases, asked once per class: a recap folds every event.
_session_of = cache(session_of.dispatch)
_fight_of = cache(_fight.dispatch)


def _listed(fights: list[dict[str, Any]], name: str, seq: int, *,
            started: bool = False) -> dict[str, Any]:
    """The entry of the fight under way among a session's fights: a new one when it starts,
    or when the session has not listed it yet."""
    if started or not fights or fights[-1]["name"] != name or fights[-1]["ended"]:
        fights.append({"seq": seq, "name": name, "started": started, "rounds": [],
                       "ended": False})
    return fights[-1]

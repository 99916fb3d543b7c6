"""The Campaign aggregate: checks each command by its ruleset, then records one event."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Self
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain import roster
from domain.dice import KeyedDice
from domain.errors import NotFound, RuleViolation
from domain.events import (
    CampaignStarted,
    DayEnded,
    DayStarted,
    EventsCancelled,
    EventsRestored,
    Moved,
    SessionEnded,
    SessionStarted,
    Travelled,
    TrekEvent,
)
from domain.geometry import Square
from domain.history import Replan, describe_dropped, replan
from domain.maps import GameMap, Terrain
from domain.patch import diff
from domain.ruleset import (
    CharacterOptions,
    DayEndOptions,
    Decision,
    MoveOptions,
    Ruleset,
    Situation,
)
from domain.rulesets import RULESETS, ruleset_named
from domain.state import Game, Role

_NAMESPACE = uuid.UUID("5b0c39a4-6f43-4c2a-9d55-2f7d1d3c7e11")
_SLUG_RE = re.compile(r"[^a-z0-9]+")


def slugify(name: str) -> str:
    slug = _SLUG_RE.sub("-", name.lower()).strip("-")
    if not slug:
        raise RuleViolation(f"{name!r} makes no campaign name; use letters or digits")
    return slug


def campaign_id(slug: str) -> UUID:
    """Each campaign's id follows from its slug, so a store needs no lookup table for it."""
    return uuid.uuid5(_NAMESPACE, slug)


@dataclass(frozen=True)
class Stamp:
    """Who records the next events, when, and in which session: given by the application."""

    gm: str
    at: datetime


class Campaign:
    """One table-top campaign's travel, as an event-sourced aggregate."""

    def __init__(self, started: CampaignStarted) -> None:
        self._id = started.originator_id
        self._version = 0
        self._created_on = started.timestamp
        self._modified_on = started.timestamp
        self._pending: list[TrekEvent] = []
        self.slug = started.slug
        self.name = started.name
        self.ruleset_name = started.ruleset
        self.seed = started.seed
        self.map: GameMap | None = started.map
        self.game = Game()
        # Cancelled event seq -> the seq of the reversal that cancelled it.
        self.cancelled: dict[int, int] = {}
        self.last_hash = ""
        self.session: int | None = None
        self.sessions = 0
        self.stamp: Stamp | None = None

    # -- the eventsourcing library's aggregate protocol ------------------------------------

    @property
    def id(self) -> UUID:
        return self._id

    @property
    def version(self) -> int:
        return self._version

    @version.setter
    def version(self, value: int) -> None:
        self._version = value

    @property
    def created_on(self) -> datetime:
        return self._created_on

    @property
    def modified_on(self) -> datetime:
        return self._modified_on

    @modified_on.setter
    def modified_on(self, value: datetime) -> None:
        self._modified_on = value

    @property
    def pending_events(self) -> list[TrekEvent]:
        return list(self._pending)

    def collect_events(self) -> list[TrekEvent]:
        collected, self._pending = self._pending, []
        return collected

    # -- folding events in -----------------------------------------------------------------

    @classmethod
    def begin(cls, started: CampaignStarted) -> Self:
        return cls(started)

    def absorb(self, event: TrekEvent) -> None:
        if event.originator_id != self._id or event.originator_version != self._version + 1:
            raise ValueError(
                f"event {event.originator_version} does not follow version {self._version}"
            )
        event.apply_to(self.game)
        if isinstance(event, EventsCancelled):
            for seq in event.cancels:
                self.cancelled[seq] = event.seq
        elif isinstance(event, EventsRestored):
            for seq in event.restores:
                self.cancelled.pop(seq, None)
        elif isinstance(event, SessionStarted):
            self.session = event.number
            self.sessions = event.number
        elif isinstance(event, SessionEnded):
            self.session = None
        self.last_hash = event.event_hash()
        self._version = event.originator_version
        self._modified_on = event.timestamp

    # -- recording ---------------------------------------------------------------------------

    @property
    def ruleset(self) -> Ruleset:
        return ruleset_named(self.ruleset_name)

    def situation(self) -> Situation:
        return Situation(game=self.game, map=self.map, ruleset=self.ruleset_name)

    def _record(self, decision: Decision) -> TrekEvent:
        cls, payload = decision
        if self.stamp is None:
            raise RuntimeError("the application stamps a campaign before recording")
        event = cls.model_validate({
            **payload,
            "originator_id": self._id,
            "originator_version": self._version + 1,
            "timestamp": self.stamp.at,
            "gm": self.stamp.gm,
            "session": self.session,
            "prev_hash": self.last_hash,
        })
        event.mutate(self)
        self._pending.append(event)
        return event

    def _dice(self, given: Mapping[str, int] | None = None) -> KeyedDice:
        return KeyedDice(self.seed, self._version + 1, given)

    @classmethod
    def start(cls, stamp: Stamp, *, name: str, ruleset: str, seed: int,
              game_map: GameMap | None, at: Square | None) -> Campaign:
        if ruleset not in RULESETS:
            raise RuleViolation(f"{ruleset!r} is not a ruleset; use {', '.join(RULESETS)}")
        slug = slugify(name)
        start = at if at is not None else Square(0, 0)
        if game_map is not None:
            if not game_map.contains(start):
                raise RuleViolation(
                    f"the start {start.x},{start.y} is off the map "
                    f"({game_map.width}×{game_map.height}); give --at X,Y inside it"
                )
            cell = game_map.cell(start)
            if cell.terrain is Terrain.FEATURE:
                raise RuleViolation(
                    f"the start {start.x},{start.y} is {cell.name or 'a terrain feature'}, which "
                    "is not passable; give --at X,Y on passable ground"
                )
        started = CampaignStarted(
            originator_id=campaign_id(slug), originator_version=1, timestamp=stamp.at,
            gm=stamp.gm, slug=slug, name=name, ruleset=ruleset, seed=seed, map=game_map,
            start=start,
        )
        campaign = cls(started)
        campaign.absorb(started)
        campaign._pending.append(started)
        campaign.stamp = stamp
        return campaign

    @classmethod
    def branch(cls, stamp: Stamp, origin: CampaignStarted, *, name: str, at: int,
               head: str) -> Campaign:
        """A new campaign whose history will be the original's copied up to event `at`.

        Its first event is the original's start under the new name, recording where it came
        from (`head` is the hash of the original's event `at`); `copy_in` adds the rest.
        """
        slug = slugify(name)
        started = CampaignStarted.model_validate({
            **origin.model_dump(), "originator_id": campaign_id(slug), "slug": slug,
            "name": name, "prev_hash": "",
            "branched_from": {"campaign": origin.slug, "seq": at, "hash": head,
                              "at": stamp.at, "gm": stamp.gm},
        })
        campaign = cls(started)
        campaign.absorb(started)
        campaign._pending.append(started)
        campaign.stamp = stamp
        return campaign

    def copy_in(self, event: TrekEvent) -> TrekEvent:
        """Append an event of the original's history as it was, linked into this chain."""
        copy = type(event).model_validate({
            **event.model_dump(), "originator_id": self._id, "prev_hash": self.last_hash,
        })
        copy.mutate(self)
        self._pending.append(copy)
        return copy

    # -- commands shared by every ruleset ----------------------------------------------------

    def add_character(self, options: CharacterOptions) -> TrekEvent:
        return self._record(roster.add_character(self.ruleset, self.situation(), options))

    def add_mount(self, name: str, move: tuple[str, int] | None, rider: str | None) -> TrekEvent:
        return self._record(roster.add_mount(self.ruleset, self.situation(), name, move, rider))

    def add_vehicle(self, name: str, move: tuple[str, int] | None, driver: str | None,
                    passengers: list[str]) -> TrekEvent:
        return self._record(
            roster.add_vehicle(self.ruleset, self.situation(), name, move, driver, passengers)
        )

    def assign(self, character: str, conveyance: str, role: Role) -> TrekEvent:
        return self._record(roster.assign(self.situation(), character, conveyance, role))

    def dismount(self, character: str) -> TrekEvent:
        return self._record(roster.dismount(self.situation(), character))

    def leave(self, name: str) -> TrekEvent:
        return self._record(roster.leave(self.situation(), name))

    def rejoin(self, name: str) -> TrekEvent:
        return self._record(roster.rejoin(self.situation(), name))

    def set_supplies(self, values: Mapping[str, int]) -> TrekEvent:
        return self._record(roster.set_supplies(self.situation(), values))

    def add_supplies(self, amounts: Mapping[str, int]) -> TrekEvent:
        return self._record(roster.add_supplies(self.situation(), amounts))

    def spend_supplies(self, amounts: Mapping[str, int]) -> TrekEvent:
        return self._record(roster.spend_supplies(self.situation(), amounts))

    def harm(self, character: str, health: int, energy: int, reason: str | None) -> TrekEvent:
        return self._record(roster.harm(self.situation(), character, health, energy, reason))

    def set_rule(self, key: str, value: int) -> TrekEvent:
        return self._record(roster.set_rule(self.situation(), key, value))

    def start_day(self) -> TrekEvent:
        return self._record(self.ruleset.start_day(self.situation()))

    def move(self, options: MoveOptions) -> TrekEvent:
        return self._record(self.ruleset.move(self.situation(), options))

    def end_day(self, options: DayEndOptions) -> TrekEvent:
        return self._record(self.ruleset.end_day(self.situation(), options))

    def travel_command(self, command: str, given: Mapping[str, int] | None = None,
                       **options: Any) -> TrekEvent:
        """A command only some rulesets offer (shortcut, forced march, forage, ...)."""
        ruleset = self.ruleset
        if command not in ruleset.extra_commands:
            raise RuleViolation(
                f"the {ruleset.name} ruleset has no {command}; nothing was recorded"
            )
        return self._record(ruleset.decide(command, self.situation(), self._dice(given),
                                           **options))

    # -- sessions ------------------------------------------------------------------------------

    def start_session(self, title: str | None) -> TrekEvent:
        if self.session is not None:
            raise RuleViolation(
                f"session {self.session} is still open; `trek session end` it first"
            )
        return self._record((SessionStarted, {"number": self.sessions + 1, "title": title}))

    def end_session(self) -> TrekEvent:
        if self.session is None:
            raise RuleViolation("no session is open; `trek session start` begins one")
        return self._record((SessionEnded, {"number": self.session}))

    # -- history -------------------------------------------------------------------------------

    def is_live(self, seq: int) -> bool:
        return seq not in self.cancelled

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision:
        """Decide a recorded event again from its own inputs and dice."""
        decision = roster.redecide(self.ruleset, situation, event)
        if decision is not None:
            return decision
        if isinstance(event, Moved | Travelled):
            return self.ruleset.redo_move(situation, event)
        decision = self.ruleset.redecide(situation, event)
        if decision is not None:
            return decision
        if isinstance(event, DayStarted):
            return self.ruleset.start_day(situation)
        if isinstance(event, DayEnded):
            chosen = event.chosen if event.chosen is not None else list(event.recovery)
            cls, payload = self.ruleset.end_day(situation, DayEndOptions(
                rests={name: rest.mode for name, rest in event.recovery.items()
                       if name in chosen},
                hours=event.hours,
            ))
            if event.chosen is None:
                payload = {**payload, "chosen": None}
            return cls, payload
        raise RuleViolation(f"event {event.seq} ({type(event).__name__}) cannot be checked again")

    def _replan(self, before: Game, later: Iterable[TrekEvent], gone: set[int],
                back: set[int]) -> Replan:
        situation = Situation(game=before, map=self.map, ruleset=self.ruleset_name)
        return replan(
            situation, later,
            lambda seq: (seq not in self.cancelled or seq in back) and seq not in gone,
            self.redecide,
        )

    def cancel(self, targets: list[int], *, before: Game, later: Iterable[TrekEvent],
               cascade: bool, reason: str | None) -> TrekEvent:
        """Record one reversal cancelling `targets` (and, with cascade, what depends on them).

        `before` is the game just before the earliest target, and `later` every event from it
        on, as the application loads them: read once, in order, so it may be a stream.
        """
        for seq in targets:
            if seq < 1 or seq > self._version:
                raise NotFound(f"there is no event {seq}; the log runs to {self._version}")
            if seq in self.cancelled:
                # Only an undoable event is ever cancelled, so this is the first thing wrong.
                raise RuleViolation(
                    f"event {seq} was already cancelled by event {self.cancelled[seq]}"
                )

        unseen = set(targets)

        def checked(events: Iterable[TrekEvent]) -> Iterator[TrekEvent]:
            # Each target is checked as the stream reaches it, before anything is decided.
            for event in events:
                if event.seq in unseen:
                    unseen.discard(event.seq)
                    if not type(event).undoable:
                        name = type(event).__name__
                        raise RuleViolation(
                            f"event {event.seq} ({name}) keeps the books and cannot be undone"
                            + ("; `trek redo` takes a reversal back" if "Events" in name
                               else "")
                        )
                yield event

        plan = self._replan(before, checked(later), set(targets), set())
        if unseen:
            raise NotFound(f"there is no event {min(unseen)}; the log runs to {self._version}")
        if plan.dropped and not cascade:
            raise RuleViolation(
                "undoing it would leave later events breaking the rules: "
                + describe_dropped(plan.dropped, plan.types)
                + "; add --cascade to cancel them as well"
            )
        cancels = sorted({*targets, *(seq for seq, _ in plan.dropped)})
        return self._record((EventsCancelled, {
            "cancels": cancels, "reason": reason,
            "corrections": diff(self.game.dump(), plan.game.dump()),
        }))

    def restore(self, targets: list[int], *, before: Game, later: Iterable[TrekEvent],
                reason: str | None) -> TrekEvent:
        """Record one entry bringing cancelled events back, if history still allows them.

        `later` is read once, in order, so it may be a stream (see `cancel`).
        """
        for seq in targets:
            if seq not in self.cancelled:
                raise RuleViolation(f"event {seq} is not cancelled; there is nothing to redo")
        plan = self._replan(before, later, set(), set(targets))
        if plan.dropped:
            raise RuleViolation(
                "restoring it would break the rules: " + describe_dropped(plan.dropped, plan.types)
            )
        return self._record((EventsRestored, {
            "restores": sorted(targets), "reason": reason,
            "corrections": diff(self.game.dump(), plan.game.dump()),
        }))

    # -- snapshots -----------------------------------------------------------------------------

    def snapshot_state(self) -> dict[str, Any]:
        return {
            "slug": self.slug, "name": self.name, "ruleset": self.ruleset_name,
            "seed": self.seed, "map": self.map.model_dump(mode="json") if self.map else None,
            "game": self.game.dump(), "cancelled": {str(k): v for k, v in self.cancelled.items()},
            "last_hash": self.last_hash, "session": self.session, "sessions": self.sessions,
            "created_on": self._created_on.isoformat(),
        }

    @classmethod
    def from_snapshot(cls, snapshot: CampaignSnapshot) -> Campaign:
        state = snapshot.state
        started = CampaignStarted(
            originator_id=snapshot.originator_id, originator_version=1,
            timestamp=datetime.fromisoformat(state["created_on"]),
            slug=state["slug"], name=state["name"], ruleset=state["ruleset"],
            seed=state["seed"],
            map=GameMap.model_validate(state["map"]) if state["map"] else None,
        )
        campaign = cls(started)
        campaign.game = Game.model_validate(state["game"])
        campaign.cancelled = {int(k): v for k, v in state["cancelled"].items()}
        campaign.last_hash = state["last_hash"]
        campaign.session = state["session"]
        campaign.sessions = state["sessions"]
        campaign._version = snapshot.originator_version
        campaign._modified_on = snapshot.timestamp
        return campaign


class CampaignSnapshot(BaseModel):
    """A campaign's state at a version, so loading it reads only the events since."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    class_version: ClassVar[int] = 1

    originator_id: UUID
    originator_version: int
    timestamp: datetime
    topic: str
    state: dict[str, Any]

    @classmethod
    def take(cls, campaign: Campaign) -> CampaignSnapshot:
        return cls(
            originator_id=campaign.id, originator_version=campaign.version,
            timestamp=campaign.modified_on, topic="domain.campaign:Campaign",
            state=campaign.snapshot_state(),
        )

    def mutate(self, aggregate: Campaign | None) -> Campaign:
        return Campaign.from_snapshot(self)

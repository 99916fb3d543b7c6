"""The Campaign aggregate: checks each command by its ruleset, then records one event."""

import hashlib
import re
import uuid
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from functools import cache, partial, singledispatch
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol, Self
from uuid import UUID

from pydantic import BaseModel, ConfigDict, ValidationError

from domain import roster
from domain.actors import Actor
from domain.bounds import MAX_CAMPAIGN_NAME, MAX_NAME, MAX_SEED
from domain.dice import KeyedDice
from domain.errors import NotFound, NotOffered, RuleViolation, TamperedLog
from domain.events import (
    CHAIN_FORMAT,
    CampaignStarted,
    EventsCancelled,
    EventsRestored,
    TrekEvent,
    canonical_bytes,
)
from domain.geometry import Square
from domain.grid import GRIDS
from domain.maps import GameMap, Terrain
from domain.partial import WithoutOverland
from domain.patch import diff
from domain.ruleset import (
    Command,
    Decision,
    Registry,
    Ruleset,
    Situation,
    option_flag,
)
from domain.state import Game
from domain.values import check_name, check_number, check_square, check_text, refusal

if TYPE_CHECKING:
    # The shared commands, each decided by a method below that it names (`decide_in`): the
    # campaign imports none of them, so a command loads its own part of play and no other.
    from domain.commands.days import EndDay, StartDay
    from domain.commands.encounter import (
        ChangeDoor,
        EndEncounter,
        EnterCombatant,
        RemoveCombatant,
        StartEncounter,
    )
    from domain.commands.parties import MergeParties, SplitParty
    from domain.commands.roster import (
        AddCharacter,
        AddMount,
        AddVehicle,
        Assign,
        Dismount,
        Harm,
        Leave,
        Rejoin,
        SetRule,
    )
    from domain.commands.rounds import MoveCombatant, StartRound
    from domain.commands.sessions import EndSession, StartSession
    from domain.commands.supplies import AddSupplies, SetSupplies, SpendSupplies
    from domain.commands.travel import Move
    from domain.history import Replan

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


class Cancellations(Protocol):
    """Which events stood cancelled when a campaign's snapshot was taken, read by key.

    A snapshot holds the campaign's state, not every cancellation ever made: the application
    gives a campaign loaded from one a `Cancellations` answering for the snapshot's version
    (`Campaign.kept_at`); what the events since changed the campaign keeps itself.
    """

    def cancelled_in(self, first: int, last: int) -> dict[int, int]:
        """Cancelled event seq -> the reversal that cancelled it, for seqs first..last."""
        ...

    def named_after(self, first: int) -> set[int] | None:
        """The events before `first` that a reversal at `first` or later cancelled or
        restored (or more), or None when that is not known."""
        ...


class CancellationMap:
    """The whole map of cancellations that snapshots of releases up to 0.2 carried."""

    def __init__(self, cancelled: Mapping[int, int]) -> None:
        self._cancelled = dict(cancelled)
        self._seqs = sorted(self._cancelled)

    def cancelled_in(self, first: int, last: int) -> dict[int, int]:
        seqs = self._seqs[bisect_left(self._seqs, first):bisect_right(self._seqs, last)]
        return {seq: self._cancelled[seq] for seq in seqs}

    def named_after(self, first: int) -> set[int] | None:
        # The map says what stood cancelled, not what a later reversal restored.
        return None


def overlay(cancelled: dict[int, int], changes: Iterable[tuple[int, int | None]]) -> None:
    """Apply, in order, what reversals did to events: (seq, the reversal that cancelled it, or
    None for one restored)."""
    for seq, by in changes:
        if by is None:
            cancelled.pop(seq, None)
        else:
            cancelled[seq] = by


# Cancellations are read from a campaign's `Cancellations` this many seqs at a time when a
# stream of events is checked in order.
CANCELLATION_WINDOW = 4096


class Stamp(NamedTuple):
    """Who records the next events and when, given by the application: the GM the store was
    opened by (`--gm`, TREK_GM, the server's GM) and the actor whose command it is (None: that
    GM's own)."""

    gm: str
    at: datetime
    actor: Actor | None = None

    @property
    def recorded_for(self) -> Actor:
        """Who the events are recorded for."""
        return self.actor if self.actor is not None else Actor.gm(self.gm)


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
        # Cancellations up to version `kept_at` are read from `_kept` (none before version 1);
        # `_changes` holds what the events folded in since made of them: cancelled event seq
        # -> the reversal that cancelled it, or None for one restored.
        self.kept_at = 0
        self._kept: Cancellations | None = None
        self._changes: dict[int, int | None] = {}
        self.last_hash = ""
        # The newest snapshot this campaign was loaded from (its version, the chain's hash at
        # that version), so recording can check that event still hashes so.
        self.snapshot_head: tuple[int, str] | None = None
        self.session: int | None = None
        self.sessions = 0
        self.stamp: Stamp | None = None
        # The rulesets this release plays; the application passes them in after loading.
        self._rulesets: Registry | None = None
        # The party the next commands act on (RULES.md §15), given by the application like
        # the stamp; None: the party the game holds at its top level.
        self.acting_party: str | None = None

    def keep(self, cancellations: Cancellations) -> Self:
        """Give the campaign the cancellations that stood at version `kept_at`."""
        self._kept = cancellations
        return self

    @property
    def needs_cancellations(self) -> bool:
        """True when the campaign was loaded from a snapshot and has no `Cancellations` yet."""
        return self.kept_at > 0 and self._kept is None

    def play_under(self, rulesets: Registry) -> Self:
        """Give the campaign the rulesets its commands are decided by."""
        self._rulesets = rulesets
        return self

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
        if event.prev_hash != self.last_hash:
            raise TamperedLog(
                f"event {event.seq} does not link to event {event.seq - 1} as it was recorded: "
                "the log was changed behind Trek's back; `trek verify` names the event")
        event.apply_to(self.game)
        _absorb_of(type(event))(event, self)
        self.last_hash = event.event_hash()
        self._version = event.originator_version
        self._modified_on = event.timestamp

    # -- recording ---------------------------------------------------------------------------

    @property
    def ruleset(self) -> Ruleset:
        if self._rulesets is None:
            raise RuntimeError("the application gives a campaign its rulesets before deciding")
        return self._rulesets.named(self.ruleset_name)

    def situation(self) -> Situation:
        """What a rule looks at, told from the acting party's side (a copy when that is not
        the party the game holds at its top level: the fold stays as the log makes it)."""
        return Situation(game=self.game.focused(self.acting_party), map=self.map,
                         ruleset=self.ruleset_name)

    def _record(self, decide: Callable[[], Decision]) -> TrekEvent:
        """Decide (a refusal, or an outcome out of bounds, records nothing), then record the
        event at the end of the log, its envelope filled in and checked."""
        if self.stamp is None:
            raise RuntimeError("the application stamps a campaign before recording")
        try:
            decided = decide()
            scoped = type(decided).party_scoped
            event: TrekEvent = type(decided).model_validate({
                **dict(decided),
                "party": (self.acting_party or self.game.party) if scoped else None,
                "originator_id": self._id,
                "originator_version": self._version + 1,
                "timestamp": self.stamp.at,
                "gm": self.stamp.gm,
                "actor": self.stamp.recorded_for.name,
                "requested_by": self.stamp.recorded_for.seat,
                "session": self.session,
                "prev_hash": self.last_hash,
                "chain": CHAIN_FORMAT,
            })
        except ValidationError as error:
            raise refusal(error) from None
        event.mutate(self)
        self._pending.append(event)
        return event

    def _dice(self, given: Mapping[str, int] | None = None) -> KeyedDice:
        return KeyedDice(self.seed, self._version + 1, given)

    @classmethod
    def start(cls, stamp: Stamp, *, name: str, ruleset: str, rulesets: Registry, seed: int,
              game_map: GameMap | None, at: Square | None) -> "Campaign":
        rulesets.named(ruleset)
        check_text(name, "campaign name", limit=MAX_CAMPAIGN_NAME)
        check_text(stamp.gm, "GM name", limit=MAX_NAME)
        slug = slugify(name)
        if not slug:
            raise RuleViolation(f"the campaign name {name!r} has no letters or digits to make "
                                "a slug of; give it a name such as 'Ashes Road'")
        start = at if at is not None else Square(0, 0)
        check_square(start, "the start")
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
        check_number(seed, "the seed", 0, MAX_SEED)
        try:
            started = CampaignStarted(
                originator_id=campaign_id(slug), originator_version=1, timestamp=stamp.at,
                gm=stamp.gm, actor=stamp.recorded_for.name,
                requested_by=stamp.recorded_for.seat, slug=slug, name=name, ruleset=ruleset,
                seed=seed, map=game_map, start=start, chain=CHAIN_FORMAT,
            )
        except ValidationError as error:
            raise refusal(error) from None
        campaign = cls(started)
        campaign.absorb(started)
        campaign._pending.append(started)
        campaign.stamp = stamp
        campaign.play_under(rulesets)
        return campaign

    @classmethod
    def branch(cls, stamp: Stamp, origin: CampaignStarted, *, name: str, at: int,
               head: str) -> "Campaign":
        """A new campaign whose history will be the original's copied up to event `at`.

        Its first event is the original's start under the new name, recording where it came
        from (`head` is the hash of the original's event `at`); `copy_in` adds the rest.
        """
        check_text(name, "branch name", limit=MAX_CAMPAIGN_NAME)
        slug = slugify(name)
        if not slug:
            raise RuleViolation(f"the branch name {name!r} has no letters or digits to make "
                                "a slug of; give it a name such as 'what-if'")
        started = CampaignStarted.model_validate({
            **origin.model_dump(), "originator_id": campaign_id(slug), "slug": slug,
            "name": name, "prev_hash": "", "chain": CHAIN_FORMAT,
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
            "chain": CHAIN_FORMAT,
        })
        copy.mutate(self)
        self._pending.append(copy)
        return copy

    # -- the one door: every command is decided here ----------------------------------------

    def handle(self, command: Command) -> TrekEvent:
        """Decide `command` by the rules and record its event (a refusal records nothing).

        The command says what decides it (`Command.decide_in`): each shared one (the
        domain.commands modules, an encounter's moves) a `decide_...` method below;
        any other the campaign's ruleset, which offers it or refuses it.
        """
        return command.decide_in(self)

    def decide_by_ruleset(self, command: Command) -> TrekEvent:
        """A command the campaign's ruleset decides, if it offers it."""
        ruleset = self.ruleset
        self._check_overland(command)
        if type(command) not in ruleset.commands:
            raise NotOffered(
                f"the {ruleset.name} ruleset has no {command.what}; nothing was recorded"
            )
        dice = self._dice(command.given_rolls())

        def decide() -> Decision:
            decision = ruleset.decide(command, self.situation(), dice)
            dice.check_all_given_used(command.what)
            return decision

        return self._record(decide)

    def decide_add_character(self, command: "AddCharacter") -> TrekEvent:
        return self._record(
            lambda: roster.add_character(self.ruleset, self.situation(), command.options))

    def decide_add_mount(self, command: "AddMount") -> TrekEvent:
        return self._record(lambda: roster.add_mount(
            self.ruleset, self.situation(), command.name, command.move, command.rider))

    def decide_add_vehicle(self, command: "AddVehicle") -> TrekEvent:
        return self._record(lambda: roster.add_vehicle(
            self.ruleset, self.situation(), command.name, command.move, command.driver,
            list(command.passengers)))

    def decide_assign(self, command: "Assign") -> TrekEvent:
        return self._record(lambda: roster.assign(
            self.situation(), command.character, command.conveyance, command.role))

    def decide_dismount(self, command: "Dismount") -> TrekEvent:
        return self._record(lambda: roster.dismount(self.situation(), command.character))

    def decide_leave(self, command: "Leave") -> TrekEvent:
        return self._record(lambda: roster.leave(self.situation(), command.name))

    def decide_rejoin(self, command: "Rejoin") -> TrekEvent:
        return self._record(lambda: roster.rejoin(self.situation(), command.name))

    def decide_set_supplies(self, command: "SetSupplies") -> TrekEvent:
        return self._record(lambda: roster.set_supplies(self.situation(), command.amounts))

    def decide_add_supplies(self, command: "AddSupplies") -> TrekEvent:
        return self._record(lambda: roster.add_supplies(self.situation(), command.amounts))

    def decide_spend_supplies(self, command: "SpendSupplies") -> TrekEvent:
        return self._record(lambda: roster.spend_supplies(self.situation(), command.amounts))

    def decide_harm(self, command: "Harm") -> TrekEvent:
        roster.check_harm_pools(self.situation(), command.character, command.health,
                                command.energy)
        return self._record(lambda: roster.harm(
            self.situation(), command.character, command.health, command.energy,
            command.reason))

    def decide_set_rule(self, command: "SetRule") -> TrekEvent:
        return self._record(
            lambda: roster.set_rule(self.ruleset, self.situation(), command.key, command.value))

    def decide_split_party(self, command: "SplitParty") -> TrekEvent:
        from domain import parties

        self._check_overland(command)
        self._check_parties()
        return self._record(lambda: parties.split(
            self.situation(), command.name, command.members, command.supplies or {}))

    def decide_merge_parties(self, command: "MergeParties") -> TrekEvent:
        from domain import parties

        self._check_overland(command)
        self._check_parties()
        return self._record(lambda: parties.merge(self.situation(), command.name))

    def decide_start_day(self, command: "StartDay") -> TrekEvent:
        self._check_overland(command)
        return self._record(lambda: self.ruleset.start_day(self.situation()))

    def decide_move(self, command: "Move") -> TrekEvent:
        self._check_overland(command)
        return self._record(lambda: self.ruleset.move(self.situation(), command.options))

    def decide_end_day(self, command: "EndDay") -> TrekEvent:
        self._check_overland(command)
        return self._record(lambda: self.ruleset.end_day(self.situation(), command.options))

    def _check_parties(self) -> None:
        """Parties travel overland (RULES.md §15): a ruleset without overland rules has one."""
        if isinstance(self.ruleset, WithoutOverland):
            raise NotOffered(f"the {self.ruleset_name} ruleset has no overland rules, so no "
                             "parties to split or merge; rosters, supplies and encounters work")

    def _check_overland(self, command: Command) -> None:
        if command.overland and self.game.encounter is not None:
            from domain.encounter import EncounterOpen

            raise EncounterOpen(
                f"no {command.what} while the encounter {self.game.encounter.name} is open; "
                "`trek encounter end` closes it (roster, supplies and harm still work)")

    # -- encounters ----------------------------------------------------------------------------

    def decide_start_encounter(self, command: "StartEncounter") -> TrekEvent:
        from domain import encounter

        name = command.name
        if not self.ruleset.encounters:
            raise NotOffered(f"the {self.ruleset_name} ruleset's encounter rules are not in this "
                             "release; nothing was recorded")
        grid = self.ruleset.grid
        battle_map = None if command.battle_map is None else dict(command.battle_map)
        if battle_map is not None and battle_map.get("grid", "square") != grid:
            raise RuleViolation(
                f"the battle map is a {battle_map.get('grid')} grid, and {self.ruleset_name} "
                f"plays on {GRIDS[grid].cells}; give a map with "
                f"grid = \"{grid}\"")
        return self._record(lambda: encounter.start(self.situation(), name, battle_map, grid))

    def decide_enter_combatant(self, command: "EnterCombatant") -> TrekEvent:
        from domain import encounter

        if command.from_roster is False:
            check_name(command.name)
        return self._record(lambda: encounter.enter(self.ruleset, self.situation(), command))

    def decide_remove_combatant(self, command: "RemoveCombatant") -> TrekEvent:
        from domain import encounter_changes

        return self._record(lambda: encounter_changes.remove(self.situation(), command.name))

    def decide_start_round(self, command: "StartRound") -> TrekEvent:
        from domain import encounter

        encounter.open_encounter(self.game)
        return self._record(lambda: self.ruleset.start_round(self.situation(), command))

    def decide_move_combatant(self, command: "MoveCombatant") -> TrekEvent:
        from domain import encounter

        encounter.open_encounter(self.game)
        allowed = self.ruleset.move_options
        foreign = sorted(set(command.options) - allowed)
        if foreign:
            offered = ", ".join(option_flag(o) for o in sorted(allowed)) or "none"
            raise NotOffered(
                f"{option_flag(foreign[0])} is not an option of a {self.ruleset_name} move "
                f"(its options: {offered}); nothing was recorded")
        situation = self.situation()._replace(dice=self._dice())
        return self._record(lambda: self.ruleset.move_combatant(situation, command))

    def decide_change_door(self, command: "ChangeDoor") -> TrekEvent:
        from domain import encounter_changes

        return self._record(lambda: encounter_changes.door(self.situation(), command.door,
                                                           command.closed))

    def decide_end_encounter(self, command: "EndEncounter") -> TrekEvent:
        from domain import encounter_changes

        return self._record(lambda: encounter_changes.end(self.situation()))

    # -- sessions ------------------------------------------------------------------------------

    def decide_start_session(self, command: "StartSession") -> TrekEvent:
        title = command.title
        if self.session is not None:
            raise RuleViolation(
                f"session {self.session} is still open; `trek session end` it first"
            )
        from domain.sessions import SessionStarted

        return self._record(lambda: SessionStarted(number=self.sessions + 1, title=title))

    def decide_end_session(self, command: "EndSession") -> TrekEvent:
        if self.session is None:
            raise RuleViolation("no session is open; `trek session start` begins one")
        from domain.sessions import SessionEnded

        return self._record(lambda: SessionEnded(number=self.session))

    # -- history -------------------------------------------------------------------------------

    def _kept_cancellations(self) -> Cancellations:
        if self._kept is None:
            raise RuntimeError("the application gives a campaign loaded from a snapshot its "
                               "cancellations before asking for them")
        return self._kept

    def cancelled_by(self, seq: int) -> int | None:
        """The reversal that cancelled event `seq`, or None while it stands."""
        if seq in self._changes:
            return self._changes[seq]
        if seq > self.kept_at:
            # A reversal only ever names events before it.
            return None
        return self._kept_cancellations().cancelled_in(seq, seq).get(seq)

    def is_live(self, seq: int) -> bool:
        return self.cancelled_by(seq) is None

    def cancelled_in(self, first: int, last: int) -> dict[int, int]:
        """Cancelled event seq -> the reversal that cancelled it, for seqs first..last."""
        found = (self._kept_cancellations().cancelled_in(first, min(last, self.kept_at))
                 if first <= self.kept_at else {})
        overlay(found, ((seq, by) for seq, by in self._changes.items() if first <= seq <= last))
        return dict(sorted(found.items()))

    def live_in_order(self) -> Callable[[int], bool]:
        """`is_live` for seqs asked in increasing order (a stream of events being checked):
        what was kept is read a window of seqs at a time, not one query per event."""
        changes = self._changes
        kept_at = self.kept_at
        window: list[Any] = [1, 0, {}]

        def live(seq: int) -> bool:
            if seq in changes:
                return changes[seq] is None
            if seq > kept_at:
                return True
            if not window[0] <= seq <= window[1]:
                last = min(seq + CANCELLATION_WINDOW - 1, kept_at)
                window[:] = [seq, last, self._kept_cancellations().cancelled_in(seq, last)]
            return seq not in window[2]

        return live

    def cancellations_differing(self, first: int, past: "Campaign") -> list[int]:
        """The events before `first` that stand cancelled or live now otherwise than in
        `past` (this campaign at version `first - 1`), in order."""
        named: set[int] | None = set()
        if self.kept_at >= first:
            named = self._kept_cancellations().named_after(first)
        if named is None:
            # Not known which: compare every cancellation before `first`.
            return sorted(set(self.cancelled_in(1, first - 1))
                          ^ set(past.cancelled_in(1, first - 1)))
        named |= {seq for seq in self._changes if seq < first}
        return [seq for seq in sorted(named) if self.is_live(seq) != past.is_live(seq)]

    def check_cancellable(self, targets: Iterable[int]) -> None:
        """Refuse targets that are not in the log or are already cancelled."""
        for seq in targets:
            if seq < 1 or seq > self._version:
                raise NotFound(f"there is no event {seq}; the log runs to {self._version}")
            by = self.cancelled_by(seq)
            if by is not None:
                # Only an undoable event is ever cancelled, so this is the first thing wrong.
                raise RuleViolation(f"event {seq} was already cancelled by event {by}")

    def check_restorable(self, targets: Iterable[int]) -> None:
        """Refuse targets that are not cancelled."""
        for seq in targets:
            if self.is_live(seq):
                raise RuleViolation(f"event {seq} is not cancelled; there is nothing to redo")

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision:
        """Decide a recorded event again from its own inputs and dice."""
        return self._redecide(self.ruleset, situation, event)

    @staticmethod
    def _redecide(ruleset: Ruleset, situation: Situation, event: TrekEvent) -> Decision:
        if type(event).overland and situation.game.encounter is not None:
            from domain.encounter import EncounterOpen

            # Recorded while no encounter was open, as every overland event is: a history in
            # which one is open then (its end undone, its start redone) cannot keep it.
            raise EncounterOpen(
                f"no overland travel while the encounter {situation.game.encounter.name} "
                "would be open")
        if event.party is not None and event.party != situation.game.party:
            # Told from the side of the party it acted on (refused when that party does not
            # exist in the history being checked).
            situation.game.focus(event.party)
        decision = event.redecided(ruleset, situation)
        if decision is None:
            decision = _encounter_redecide()(ruleset, situation, event)
        if decision is not None:
            return decision
        decision = ruleset.redecide(situation, event)
        if decision is not None:
            return decision
        raise RuleViolation(f"event {event.seq} ({type(event).__name__}) cannot be checked again")

    def _replan(self, before: Game, later: Iterable[TrekEvent], gone: set[int],
                back: set[int]) -> "Replan":
        from domain.history import replan

        situation = Situation(game=before, map=self.map, ruleset=self.ruleset_name)
        # The ruleset is looked up once for the whole walk, not once per later event.
        ruleset = self.ruleset
        live = self.live_in_order()
        return replan(
            situation, later,
            lambda seq: (seq in back or live(seq)) and seq not in gone,
            partial(self._redecide, ruleset),
        )

    def cancel(self, targets: list[int], *, before: Game, later: Iterable[TrekEvent],
               cascade: bool, reason: str | None) -> TrekEvent:
        """Record one reversal cancelling `targets` (and, with cascade, what depends on them).

        `before` is the game just before the earliest target, and `later` every event from it
        on, as the application loads them: read once, in order, so it may be a stream.
        """
        self.check_cancellable(targets)

        unseen = set(targets)

        def checked(events: Iterable[TrekEvent]) -> Iterator[TrekEvent]:
            # Each target is checked as the stream reaches it, before anything is decided.
            for event in events:
                if event.seq in unseen:
                    unseen.discard(event.seq)
                    if not type(event).undoable:
                        raise RuleViolation(
                            f"event {event.seq} ({type(event).__name__}) keeps the books and "
                            "cannot be undone" + _undo_hint(event)
                        )
                yield event

        plan = self._replan(before, checked(later), set(targets), set())
        if unseen:
            raise NotFound(f"there is no event {min(unseen)}; the log runs to {self._version}")
        if plan.dropped and not cascade:
            from domain.history import describe_dropped

            raise RuleViolation(
                "undoing it would leave later events breaking the rules: "
                + describe_dropped(plan.dropped, plan.types)
                + "; add --cascade to cancel them as well"
            )
        cancels = sorted({*targets, *(seq for seq, _ in plan.dropped)})
        return self._record(lambda: EventsCancelled(
            cancels=cancels,
            reason=reason,
            corrections=diff(self.game.dump(), plan.game.dump()),
        ))

    def restore(self, targets: list[int], *, before: Game, later: Iterable[TrekEvent],
                reason: str | None) -> TrekEvent:
        """Record one entry bringing cancelled events back, if history still allows them.

        `later` is read once, in order, so it may be a stream (see `cancel`).
        """
        self.check_restorable(targets)
        plan = self._replan(before, later, set(), set(targets))
        if plan.dropped:
            from domain.history import describe_dropped

            raise RuleViolation(
                "restoring it would break the rules: " + describe_dropped(plan.dropped, plan.types)
            )
        return self._record(lambda: EventsRestored(
            restores=sorted(targets),
            reason=reason,
            corrections=diff(self.game.dump(), plan.game.dump()),
        ))

    # -- snapshots -----------------------------------------------------------------------------

    def snapshot_state(self) -> dict[str, Any]:
        return {
            "slug": self.slug, "name": self.name, "ruleset": self.ruleset_name,
            "seed": self.seed, "map": self.map.model_dump(mode="json") if self.map else None,
            "game": self.game.dump(),
            "last_hash": self.last_hash, "session": self.session, "sessions": self.sessions,
            "created_on": self._created_on.isoformat(),
        }

    @classmethod
    def from_snapshot(cls, snapshot: "CampaignSnapshot") -> "Campaign":
        state = snapshot.state
        fields: dict[str, Any] = {
            "originator_id": snapshot.originator_id, "originator_version": 1,
            "timestamp": datetime.fromisoformat(state["created_on"]),
            "slug": state["slug"], "name": state["name"], "ruleset": state["ruleset"],
            "seed": state["seed"],
            "map": GameMap.model_validate(state["map"]) if state["map"] else None,
        }
        # A snapshot with a digest holds what was checked when it was taken (its digest was
        # checked as it was read, `CampaignSnapshot.mutate`): the campaign's own fields are
        # taken as they are. One of a release that took none is checked again.
        started = (CampaignStarted.model_construct(**fields) if snapshot.digest is not None
                   else CampaignStarted(**fields))
        campaign = cls(started)
        campaign.game = Game.model_validate(state["game"])
        # Which events stood cancelled is read by key (`keep`); a snapshot of release 0.2 or
        # earlier still carries the whole map, which is exactly that.
        campaign.kept_at = snapshot.originator_version
        if "cancelled" in state:
            campaign.keep(CancellationMap({int(k): v for k, v in state["cancelled"].items()}))
        campaign.last_hash = state["last_hash"]
        campaign.snapshot_head = (snapshot.originator_version, campaign.last_hash)
        campaign.session = state["session"]
        campaign.sessions = state["sessions"]
        campaign._version = snapshot.originator_version
        campaign._modified_on = snapshot.timestamp
        return campaign


@cache
def _encounter_redecide() -> Callable[[Ruleset, Situation, TrekEvent], Decision | None]:
    """The encounter's re-check, imported once, when history is first re-checked: undo asks it
    of every later event."""
    from domain.encounter import redecide

    return redecide


@singledispatch
def _absorb(event: TrekEvent, campaign: Campaign) -> None:
    """What folding an event in keeps beside the game: most events keep nothing more."""


@_absorb.register
def _(event: EventsCancelled, campaign: Campaign) -> None:
    for seq in event.cancels:
        campaign._changes[seq] = event.seq


@_absorb.register
def _(event: EventsRestored, campaign: Campaign) -> None:
    for seq in event.restores:
        campaign._changes[seq] = None


def _absorb_session(event: TrekEvent, campaign: Campaign) -> None:
    """A session's start or end: the session open after it."""
    campaign.session, campaign.sessions = event.sessions_after(campaign.session,
                                                               campaign.sessions)


@cache
def _absorb_of(kind: type[TrekEvent]) -> Callable[[TrekEvent, Campaign], None]:
    """Each event class's fold, asked once per class (loading a campaign folds every event
    since its snapshot): a session's start or end by what it says (its module loads only when
    a log holds one), the others as singledispatch finds them."""
    return _absorb_session if kind.changes_session else _absorb.dispatch(kind)


@singledispatch
def _undo_hint(event: TrekEvent) -> str:
    """What the refusal to undo an event that keeps the books adds for it: nothing, but for a
    reversal, which redo takes back."""
    return ""


@_undo_hint.register
def _(event: EventsCancelled | EventsRestored) -> str:
    return "; `trek redo` takes a reversal back"


class CampaignSnapshot(BaseModel):
    """A campaign's state at a version, so loading it reads only the events since."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    class_version: ClassVar[int] = 1

    originator_id: UUID
    originator_version: int
    timestamp: datetime
    topic: str
    state: dict[str, Any]
    # SHA-256 of the state as taken, so a snapshot edited behind Trek's back is refused
    # (snapshots of release 0.1 have none; `trek verify` folds the log to check those).
    digest: str | None = None

    @classmethod
    def take(cls, campaign: Campaign) -> "CampaignSnapshot":
        state = campaign.snapshot_state()
        return cls(
            originator_id=campaign.id, originator_version=campaign.version,
            timestamp=campaign.modified_on, topic="domain.campaign:Campaign",
            state=state, digest=state_digest(state),
        )

    def problem(self) -> str | None:
        """Why this snapshot may not be trusted, or None."""
        return snapshot_problem(self.originator_version, self.state, self.digest)

    def mutate(self, aggregate: Campaign | None) -> Campaign:
        problem = self.problem()
        if problem is not None:
            raise TamperedLog(f"{problem}: the store was edited behind Trek's back; "
                              "`trek verify` checks the log")
        return Campaign.from_snapshot(self)


def state_digest(state: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_bytes(state)).hexdigest()


def snapshot_problem(version: int, state: dict[str, Any], digest: str | None) -> str | None:
    """Why the snapshot at `version` (its state and the digest taken with it) may not be
    trusted, or None."""
    if digest is not None and digest != state_digest(state):
        return f"the snapshot at event {version} was changed after it was taken"
    return None

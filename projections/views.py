"""Read models: each campaign's position, supplies, roster, conveyances, Health/Energy and log.

Every read model is the same pure fold of events the write side uses (`TrekEvent.apply_to`),
persisted to its own table; reversals carry their corrections, so nothing here decides a rule.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache, singledispatch
from typing import Any, NotRequired, TypedDict, cast
from uuid import UUID

from domain.actors import Actor
from domain.events import (
    CampaignStarted,
    EventsCancelled,
    EventsRestored,
    TrekEvent,
)
from domain.geometry import Square
from domain.labels import labels_of
from domain.maps import GameMap
from domain.ruleset import Ruleset, Situation
from domain.state import (
    SUPPLY_KINDS,
    Game,
)
from projections.cancellations import save_cancellations
from projections.db import Cursor, insert_rows
from projections.logpages import log_entry, plain_document
from projections.stored_status import KINDS_KEY, code_stamp, kinds_stamp, status_text

ENTRY_COLUMNS = ("campaign_id", "seq", "type", "day", "session", "cancelled_by")


class CharacterStatus(TypedDict):
    """One character in the `trek status --json` document."""

    health: int
    health_max: int
    energy: int
    energy_max: int
    with_party: bool
    position: dict[str, int]
    conveyance: str | None
    role: str | None
    party: str


class EncounterDocument(TypedDict):
    """The open encounter as `trek encounter status --json` prints it. The fields a ruleset adds
    to the whole encounter (its `encounter_fields`, a round's parts, say) come between `map` and
    `combatants`, and each combatant carries its ruleset's own fields."""

    name: str
    ruleset: str
    grid: str
    round: int
    map: dict[str, Any] | None
    # The map's doors (RULES §16), each with its state now: name, from, to, closed.
    doors: list[dict[str, Any]]
    combatants: dict[str, dict[str, Any]]


class StatusDocument(TypedDict):
    """The `trek status --json` document: a conveyance carries its ruleset's own fields."""

    campaign: str
    name: str
    ruleset: str
    party: str
    day: int
    day_open: bool
    position: dict[str, int]
    flying: bool
    movement: dict[str, Any]
    supplies: dict[str, int]
    characters: dict[str, CharacterStatus]
    conveyances: dict[str, dict[str, Any]]
    # Every party's own square, day, movement, supplies and members (RULES.md §15).
    parties: dict[str, dict[str, Any]]
    session: int | None
    events: int
    encounter: EncounterDocument | None


# One `trek log --json` entry: what the log knows of the event, then the event's own fields
# (its `event_document` less seq and type), which differ by event. A reversal's entry read with
# its targets also holds `targets`, the documents of the events it names. (Written as a call so
# that `targets` is known to be optional when the program runs, as well as to mypy.)
LogEntryDocument = TypedDict("LogEntryDocument", {  # noqa: UP013
    "seq": int,
    "type": str,
    "day": int,
    "session": int | None,
    "gm": str,
    "actor": str,
    "requested_by": str | None,
    "recorded_at": str | None,
    "cancelled_by": int | None,
    "targets": NotRequired[list[dict[str, Any]]],
})


class LogEntry:
    """One travel-log entry made by an event, its fields read from the event when asked for.

    Only the event and the day it left the party on are kept, so folding a long log makes no
    per-row documents nobody reads.
    """

    __slots__ = ("cancelled_by", "day", "source")

    def __init__(self, event: TrekEvent, day: int) -> None:
        self.source = event
        self.day = day
        self.cancelled_by: int | None = None

    @property
    def seq(self) -> int:
        return self.source.seq

    @property
    def type(self) -> str:
        return type(self.source).__name__

    @property
    def session(self) -> int | None:
        return self.source.session

    @property
    def gm(self) -> str:
        return self.source.gm

    @property
    def recorded_for(self) -> Actor:
        return self.source.recorded_for

    @property
    def recorded_at(self) -> str:
        return self.source.timestamp.isoformat()

    @property
    def event(self) -> dict[str, Any]:
        """The event as scripts see it (`event_document`)."""
        return event_document(self.source)


class CampaignView:
    """One campaign's read models held in memory while events fold into them.

    The map of cancelled events is read from its stored JSON only when something asks for it
    (an undo or redo folding in, the log, verify): `trek status` and an ordinary command's
    catch-up never pay for it, however many events a long campaign has cancelled.
    """

    def __init__(self, campaign_id: str, slug: str, name: str, ruleset: str, seed: int,
                 map: GameMap | None, game: Game | None = None, events: int = 0,
                 last_hash: str = "", session: int | None = None, sessions: int = 0,
                 cancelled: dict[int, int] | None = None, *,
                 cancelled_json: str | None = None) -> None:
        self.campaign_id = campaign_id
        # Whether the store keeps its ruleset's event kinds as this code writes them.
        self.kinds_kept = False
        self.slug = slug
        self.name = name
        self.ruleset = ruleset
        self.seed = seed
        self.map = map
        self.game = game if game is not None else Game()
        self.events = events
        self._last_hash = last_hash
        # The last event folded in: its hash is taken when asked for, not once per event.
        self._last: TrekEvent | None = None
        self.session = session
        self.sessions = sessions
        self._cancelled: dict[int, int] | None = cancelled
        self._cancelled_json: str | None = None
        if cancelled is None:
            if cancelled_json is None:
                self._cancelled = {}
            else:
                self._cancelled_json = cancelled_json
        # Log rows made and cancellation marks changed since the view was loaded: as entries
        # holding their events (`apply`), or as the rows alone (`fold_indexed`).
        self.new_log: list[LogEntry] = []
        self.index_rows: list[tuple[int, str, int, int | None, int | None]] = []
        self.marks: dict[int, int | None] = {}
        # The reversals folded since then, for the cancellations kept by key.
        self.reversals: list[TrekEvent] = []

    @property
    def last_hash(self) -> str:
        """The hash of the last event folded in: what the next event's `prev_hash` links to."""
        if self._last is not None:
            self._last_hash = self._last.event_hash()
            self._last = None
        return self._last_hash

    @last_hash.setter
    def last_hash(self, value: str) -> None:
        self._last_hash = value
        self._last = None

    @property
    def cancelled(self) -> dict[int, int]:
        """Cancelled event seq -> the seq of the reversal that cancelled it."""
        if self._cancelled is None:
            self._cancelled = {int(k): v for k, v in
                               json.loads(self._cancelled_json or "{}").items()}
            self._cancelled_json = None
        return self._cancelled

    @cancelled.setter
    def cancelled(self, value: dict[int, int]) -> None:
        self._cancelled = value
        self._cancelled_json = None

    def cancellations_unread(self) -> bool:
        """True while the map of cancellations is still the stored text, untouched."""
        return self._cancelled is None

    def cancelled_json(self) -> str:
        """The stored form of `cancelled`; unchanged text when it was never read."""
        if self._cancelled is None:
            return self._cancelled_json or "{}"
        return _json({str(k): v for k, v in self._cancelled.items()})

    @classmethod
    def start(cls, event: CampaignStarted) -> CampaignView:
        return cls(
            campaign_id=str(event.originator_id), slug=event.slug, name=event.name,
            ruleset=event.ruleset, seed=event.seed, map=event.map,
        )

    def apply(self, event: TrekEvent) -> None:
        """Fold one event in."""
        self._fold(event)
        self.new_log.append(LogEntry(event, self.game.day.number))

    def fold_indexed(self, event: TrekEvent) -> None:
        """Fold one event in as `apply` does, keeping of it only its row of the log's index
        (seq, type, day, session): a rebuild lets each event go once it is folded."""
        # `_fold`, written out: a rebuild calls this once per stored event.
        seq = event.originator_version
        if seq != self.events + 1:
            raise ValueError(f"{self.slug}: event {seq} does not follow {self.events}")
        kind = type(event)
        fold, takes = _folds.get(kind) or _fold_for(kind)
        game = self.game
        if takes is _FOCUSED:
            # `events._focusing`'s wrapper, written out: its party held at the top level first.
            party = event.party
            if party is not None and party != game.party:
                game.focus(party)
            fold(event, game)
        elif takes is _GAME:
            fold(event, game)
        else:
            fold(event, self)
        self.events = seq
        self._last = event
        # Its row as `save_log` writes it: cancelled by no one yet (`save_log` marks it).
        self.index_rows.append((seq, kind.__name__, self.game.day.number, event.session, None))

    def _fold(self, event: TrekEvent) -> None:
        seq = event.originator_version
        if seq != self.events + 1:
            raise ValueError(f"{self.slug}: event {seq} does not follow {self.events}")
        _fold_of(type(event))(event, self)
        self.events = seq
        self._last = event

    @property
    def situation(self) -> Situation:
        return Situation(game=self.game, map=self.map, ruleset=self.ruleset)


@singledispatch
def _fold(event: TrekEvent, view: CampaignView) -> None:
    """Fold one event into the view's game: most events change nothing else."""
    event.apply_to(view.game)


@_fold.register
def _(event: EventsCancelled, view: CampaignView) -> None:
    view.reversals.append(event)
    event.apply_to(view.game)
    cancelled = view.cancelled
    for target in event.cancels:
        cancelled[target] = event.seq
        view.marks[target] = event.seq


@_fold.register
def _(event: EventsRestored, view: CampaignView) -> None:
    view.reversals.append(event)
    event.apply_to(view.game)
    cancelled = view.cancelled
    for target in event.restores:
        cancelled.pop(target, None)
        view.marks[target] = None


def _fold_session(event: TrekEvent, view: CampaignView) -> None:
    """A session's start or end: the game as it says, and the session open after it."""
    event.apply_to(view.game)
    view.session, view.sessions = event.sessions_after(view.session, view.sessions)


@cache
def _fold_of(kind: type[TrekEvent]) -> Callable[[Any, Any], None]:
    """The fold of each event class, asked once per class (a replay folds every event, and
    asking per event costs more than folding a small one): a session's start or end by what it
    says (its module loads only when a log holds one), the others as singledispatch finds
    them."""
    return _fold_session if kind.changes_session else _fold.dispatch(kind)
# What `fold_indexed` hands an event class's fold (see `_fold_for`).
_VIEW, _GAME, _FOCUSED = "view", "game", "focused"
_folds: dict[type[TrekEvent], tuple[Callable[[Any, Any], None], str]] = {}


def _fold_for(kind: type[TrekEvent]) -> tuple[Callable[[Any, Any], None], str]:
    """An event class's fold as `fold_indexed` calls it (two calls less per event),
    remembered: where the fold is the default one, which changes only the game, the class's
    own `apply_to` with `_FOCUSED` (the caller holds the event's party at the top level first,
    as the class's focusing wrapper would) or its `apply_to` with `_GAME`; else its registered
    fold with `_VIEW`, called with the view."""
    found = _fold_of(kind)
    apply_to: Any = kind.apply_to
    fold: tuple[Callable[[Any, Any], None], str]
    if found is not _fold.dispatch(object):
        fold = (found, _VIEW)
    elif getattr(apply_to, "_focuses", False):
        fold = (apply_to.__wrapped__, _FOCUSED)
    else:
        fold = (apply_to, _GAME)
    _folds[kind] = fold
    return fold


def event_document(event: TrekEvent) -> dict[str, Any]:
    """An event as scripts see it: seq, type, the payload, and its roll spelled out."""
    document: dict[str, Any] = {"seq": event.seq, "type": type(event).__name__}
    document.update(event.payload())
    rolls = event.rolls()
    if len(rolls) == 1:
        roll = rolls[0]
        document.update(roll=roll.total, dice=list(roll.dice) if roll.dice else None,
                        target=roll.target, success=roll.success, margin=roll.margin,
                        by=roll.by)
    elif rolls:
        document.update(
            roll=[r.total for r in rolls],
            dice=[list(r.dice) if r.dice else None for r in rolls],
            target=[r.target for r in rolls],
            success=all(r.success for r in rolls),
        )
    return document


# -- rows <-> view ---------------------------------------------------------------------------


def _square_or_none(x: int | None, y: int | None) -> Square | None:
    return None if x is None or y is None else Square(x, y)


# A campaign's row, its state, and whether its ruleset's event kinds are kept as this code
# writes them (`kept_log.save_kinds`); its two parameters are the kinds' key and stamp.
_VIEW_COLUMNS = (
    "c.slug, c.name, c.ruleset, c.seed, c.map_json, c.events, c.last_hash, c.session, "
    "c.sessions, c.cancelled_json, s.game_json, (SELECT 1 FROM trek_meta m "
    "WHERE m.key = ? || c.ruleset AND m.value LIKE ?)")
_VIEW_FROM = "trek_view_campaigns c LEFT JOIN trek_view_state s ON s.campaign_id = c.campaign_id"


def load_view(cursor: Cursor, campaign_id: str) -> CampaignView | None:
    """A campaign's stored read models (None: none), in one statement."""
    cursor.execute(f"SELECT {_VIEW_COLUMNS} FROM {_VIEW_FROM} WHERE c.campaign_id = ?",
                   (KINDS_KEY, kinds_stamp() + "%", campaign_id))
    rows = cursor.fetchall()
    return _view_of(campaign_id, rows[0]) if rows else None


def load_view_at(cursor: Cursor, campaign_id: str, tracking: str
                 ) -> tuple[int, CampaignView | None]:
    """The read models' tracking position `tracking` (0: none kept) and a campaign's stored read
    models (None: none), in one statement."""
    cursor.execute(
        "SELECT COALESCE((SELECT notification_id FROM trek_view_tracking WHERE name = ?), 0), "
        f"{_VIEW_COLUMNS} FROM (SELECT 1) AS one LEFT JOIN trek_view_campaigns c "
        "ON c.campaign_id = ? LEFT JOIN trek_view_state s ON s.campaign_id = c.campaign_id",
        (tracking, KINDS_KEY, kinds_stamp() + "%", campaign_id))
    position, *row = cursor.fetchall()[0]
    return int(position), None if row[0] is None else _view_of(campaign_id, row)


def _view_of(campaign_id: str, row: Sequence[Any]) -> CampaignView:
    (slug, name, ruleset, seed, map_json, events, last_hash, session, sessions, cancelled,
     game_json, kinds_kept) = row
    view = CampaignView(
        campaign_id=campaign_id, slug=slug, name=name, ruleset=ruleset, seed=int(seed),
        map=GameMap.model_validate_json(map_json) if map_json else None,
        events=int(events), last_hash=last_hash, session=session, sessions=int(sessions),
        cancelled_json=cancelled,
    )
    if game_json is not None:
        view.game = Game.model_validate_json(game_json)
    view.kinds_kept = kinds_kept is not None
    return view


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def save_view(cursor: Cursor, view: CampaignView, status: Mapping[str, Any], *,
              kept_index: bool = False) -> None:
    """Write every read model of one campaign, its `status` document (`status_of`) kept beside
    its state, and the log rows its new events made.

    `kept_index`: the log's index may already hold rows for these events (a rebuild keeps it
    rather than emptying it): each is compared with the row the fold made, and only a row that
    differs, is missing or is not the fold's is written or deleted (`refresh_index`)."""
    cid = view.campaign_id
    game = view.game
    # An update, not a delete and insert: a long campaign's map of cancellations is only
    # written when it changed (the database then leaves the big value's pages alone).
    unchanged = view.cancellations_unread()
    updated = cursor.execute(
        "UPDATE trek_view_campaigns SET events = ?, last_hash = ?, session = ?, sessions = ?"
        + ("" if unchanged else ", cancelled_json = ?") + " WHERE campaign_id = ?",
        (view.events, view.last_hash, view.session, view.sessions,
         *(() if unchanged else (view.cancelled_json(),)), cid))
    if not updated.rowcount:
        cursor.execute(
            "INSERT INTO trek_view_campaigns (campaign_id, slug, name, ruleset, seed, map_json, "
            "events, last_hash, session, sessions, cancelled_json) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (cid, view.slug, view.name, view.ruleset, view.seed,
             view.map.model_dump_json() if view.map else None, view.events, view.last_hash,
             view.session, view.sessions, view.cancelled_json()))
    cursor.execute(
        "INSERT INTO trek_chain_heads (campaign_id, seq, hash) VALUES (?, ?, ?) "
        "ON CONFLICT (campaign_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash "
        "WHERE excluded.seq > trek_chain_heads.seq", (cid, view.events, view.last_hash))
    # The state and the status document worked out from it, in one row.
    cursor.execute(
        "INSERT INTO trek_view_state (campaign_id, game_json, events, code, status_json) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (campaign_id) DO UPDATE SET "
        "game_json = excluded.game_json, events = excluded.events, code = excluded.code, "
        "status_json = excluded.status_json",
        (cid, game.model_dump_json(), view.events, code_stamp(), status_text(status)))
    save_log(cursor, view, kept_index=kept_index)


def save_log(cursor: Cursor, view: CampaignView, *, kept_index: bool = False) -> None:
    """Write the log rows a campaign's new events made, the cancellation marks they changed
    and the reversals' rows (`save_view`'s last part: a rebuild writes these a batch at a
    time, and the rest of the read models once, at its end)."""
    cid = view.campaign_id
    if view.new_log or view.index_rows:
        # A new row is cancelled only if a reversal in the same batch named it, so the map of
        # cancellations is looked at only when one was folded in.
        marked = view.cancelled if view.marks else {}
        rows = [(seq := (ev := e.source).originator_version, type(ev).__name__, e.day,
                 ev.session, marked.get(seq)) for e in view.new_log]
        rows += ([(seq, kind, day, session, marked.get(seq))
                  for seq, kind, day, session, _ in view.index_rows] if marked
                 else view.index_rows)
        if kept_index:
            refresh_index(cursor, cid, rows)
        else:
            insert_rows(cursor, "trek_view_entries", ENTRY_COLUMNS,
                        [(cid, *row) for row in rows])
    if view.marks:
        cursor.executemany(
            "UPDATE trek_view_entries SET cancelled_by = ? WHERE campaign_id = ? AND seq = ?",
            [(by, cid, seq) for seq, by in view.marks.items()])
    save_cancellations(cursor, view.reversals)
    view.new_log = []
    view.index_rows = []
    view.marks = {}
    view.reversals = []


def refresh_index(cursor: Cursor, campaign_id: str,
                  rows: Sequence[tuple[int, str, int, int | None, int | None]]) -> None:
    """Make the log's index hold exactly `rows` (seq, type, day, session, cancelled_by; seqs
    in order, one after another) over their range of seqs, writing only what differs.

    A rebuild mostly finds the rows it would write already there: reading and comparing
    them costs a fraction of deleting and inserting every row (and its index entry) again.
    """
    first, last = rows[0][0], rows[-1][0]
    cursor.execute("SELECT seq, type, day, session, cancelled_by FROM trek_view_entries "
                   "WHERE campaign_id = ? AND seq >= ? AND seq <= ? ORDER BY seq",
                   (campaign_id, first, last))
    stored = cursor.fetchall()
    if stored == rows:
        return
    wanted = set(rows)
    kept = set(stored)
    stale = [(campaign_id, row[0]) for row in stored if row not in wanted]
    if stale:
        cursor.executemany("DELETE FROM trek_view_entries WHERE campaign_id = ? AND seq = ?",
                           stale)
    fresh = [(campaign_id, *row) for row in rows if row not in kept]
    if fresh:
        insert_rows(cursor, "trek_view_entries", ENTRY_COLUMNS, fresh)


def drop_index_rows(cursor: Cursor, events: Mapping[str, int]) -> None:
    """Delete every row of the log's index outside its campaign's events 1 to N (`events`,
    campaign id -> N), and every row of a campaign not there: what a rebuild that kept the
    index (`refresh_index`) has not made."""
    cursor.execute("SELECT DISTINCT campaign_id FROM trek_view_entries")
    gone = [(cid,) for (cid,) in cursor.fetchall() if cid not in events]
    if gone:
        cursor.executemany("DELETE FROM trek_view_entries WHERE campaign_id = ?", gone)
    if events:
        cursor.executemany("DELETE FROM trek_view_entries WHERE campaign_id = ? "
                           "AND (seq < 1 OR seq > ?)", list(events.items()))


def _where(game: Game, with_party: bool, left_at: Square | None) -> tuple[int | None, int | None]:
    square = game.position if with_party else left_at
    return (square.x, square.y) if square is not None else (None, None)


# -- queries ----------------------------------------------------------------------------------


def status_of(view: CampaignView, ruleset: Ruleset, party: str | None = None
              ) -> StatusDocument:
    """The `trek status --json` document for a campaign's read models, its top-level fields
    told from party `party`'s side (None: the party the game holds at its top level)."""
    game = view.game.focused(party if party in view.game.party_names() else None)
    situation = Situation(game=game, map=view.map, ruleset=view.ruleset)
    sides = {name: game.focused(name) for name in game.party_names()}

    def where(name: str, left_at: Square | None) -> dict[str, int]:
        side = sides[game.party_of(name)]
        member = side.member(name)
        travelling = member is not None and member.with_party
        return (side.position if travelling or left_at is None else left_at).as_dict()

    def travelling(name: str) -> bool:
        member = sides[game.party_of(name)].member(name)
        return member is not None and member.with_party

    return {
        "campaign": view.slug,
        "name": view.name,
        "ruleset": view.ruleset,
        "party": game.party,
        "day": game.day.number,
        "day_open": game.day.open,
        "position": game.position.as_dict(),
        "flying": ruleset.flying(situation),
        "movement": ruleset.movement_status(situation),
        "supplies": {kind: game.supplies.get(kind, 0) for kind in SUPPLY_KINDS},
        "characters": {
            c.name: {
                "health": c.health, "health_max": c.health_max,
                "energy": c.energy, "energy_max": c.energy_max,
                "with_party": travelling(c.name),
                "position": where(c.name, c.left_at),
                "conveyance": c.conveyance,
                "role": c.role.value if c.role else None,
                "party": game.party_of(c.name),
            }
            for c in game.characters.values()
        },
        "conveyances": {
            c.name: {
                "kind": c.kind.value, "attribute": c.attribute, "level": c.level,
                "base_level": c.base_level, **ruleset.conveyance_status(c),
                "state": c.state.value, "with_party": travelling(c.name),
                "position": where(c.name, c.left_at),
                "party": game.party_of(c.name),
                **({"miles": c.miles} if c.miles is not None else {}),
            }
            for c in game.conveyances.values()
        },
        "parties": {name: party_of(side, view, ruleset) for name, side in sides.items()},
        "session": view.session,
        "events": view.events,
        "encounter": encounter_of(situation, ruleset),
    }


def party_of(side: Game, view: CampaignView, ruleset: Ruleset) -> dict[str, Any]:
    """One party's entry in the status document (`side`: the game told from its side)."""
    situation = Situation(game=side, map=view.map, ruleset=view.ruleset)
    return {
        "position": side.position.as_dict(),
        "day": side.day.number,
        "day_open": side.day.open,
        "movement": ruleset.movement_status(situation),
        "supplies": {kind: side.supplies.get(kind, 0) for kind in SUPPLY_KINDS},
        "members": sorted(name for name in side.member_names()
                          if side.party_of(name) == side.party),
    }


def encounter_of(situation: Situation, ruleset: Ruleset) -> EncounterDocument | None:
    """The open encounter as `trek encounter status --json` prints it, or None."""
    encounter = situation.game.encounter
    if encounter is None:
        return None
    labels = labels_of(encounter.labels, list(encounter.combatants))
    # The ruleset's fields of the whole encounter come beside the ones EncounterDocument names.
    return cast(EncounterDocument, {
        "name": encounter.name, "ruleset": ruleset.name, "grid": encounter.grid,
        "round": encounter.round,
        "map": ({"name": encounter.map["name"], "width": len(encounter.map["rows"][0]),
                 "height": len(encounter.map["rows"]), "rows": encounter.map["rows"],
                 "legend": encounter.map["legend"],
                 "walls": [[{"x": x, "y": y} for x, y in wall]
                           for wall in encounter.map.get("walls", ())],
                 # The picture under the grid, only on a map that has one.
                 **({"image": encounter.map["image"]} if "image" in encounter.map else {})}
                if encounter.map else None),
        "doors": [{"name": door["name"], "from": {"x": door["from"][0], "y": door["from"][1]},
                   "to": {"x": door["to"][0], "y": door["to"][1]},
                   "closed": encounter.doors.get(door["name"], door["closed"])}
                  for door in (encounter.map or {}).get("doors", ())],
        **ruleset.encounter_fields(situation),
        "combatants": {
            c.name: {"label": labels[c.name], "side": c.side.value,
                     "position": c.at.as_dict(), "facing": c.facing,
                     **ruleset.combatant_status(situation, c)}
            for c in encounter.combatants.values()
        },
    })


def log_entries(rows: Iterable[Sequence[Any]], types: Mapping[str, type[TrekEvent]]
                ) -> list[LogEntryDocument]:
    """Log rows (seq, type, day, session, cancelled_by, the event's stored JSON) as dicts."""
    entries: list[LogEntryDocument] = []
    for row in rows:
        state: dict[str, Any] = json.loads(row[5])
        entries.append(cast(LogEntryDocument, log_entry(
            row, state, stored_document(int(row[0]), row[1], dict(state), types))))
    return entries


def kinds_of(types: Mapping[str, type[TrekEvent]]) -> dict[str, Any]:
    """What the kept log needs to know of a ruleset's event classes: every name; those whose
    document spells out rolls (`stored_document` reads them back into their class); and the
    version of each class that has been upcast (a state stored at that version is its own
    dump; an older one is upcast through the class)."""
    return {"types": sorted(types),
            "rolls": sorted(name for name, cls in types.items()
                            if cls.rolls is not TrekEvent.rolls),
            "versions": {name: cls.class_version for name, cls in sorted(types.items())
                         if cls.class_version != 1}}


_ANY_ID = UUID(int=0)


def stored_document(seq: int, type_name: str, state: dict[str, Any],
                    types: Mapping[str, type[TrekEvent]]) -> dict[str, Any]:
    """The `event_document` of a log entry, from the event's state as stored (parsed), keys
    sorted.

    The log reads each event's stored JSON from the event store, so folding never serialises a
    document. For most events the document is that JSON less the bookkeeping every event
    carries (the stored state is the event's own JSON dump, which reads back to the same dump).
    An event with rolls (whose document spells them out) or a class that has been upcast is
    read back into its class and documented like a fresh one. A state without an event's
    bookkeeping is not a Trek event's and is returned as it is.
    """
    cls = types.get(type_name)
    if ("prev_hash" not in state or cls is None
            or (cls.rolls is TrekEvent.rolls and cls.class_version == 1)):
        return plain_document(seq, type_name, state)
    version = int(state.pop("class_version", 1))
    while version < cls.class_version:
        getattr(cls, f"upcast_v{version}_v{version + 1}")(state)
        version += 1
    event = cls.model_validate({**state, "originator_id": _ANY_ID, "originator_version": seq})
    # Through canonical JSON, so nested keys come sorted as in every other row.
    loaded: dict[str, Any] = json.loads(_json(event_document(event)))
    return loaded

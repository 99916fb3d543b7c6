"""Read models: each campaign's position, supplies, roster, conveyances, Health/Energy and log.

Every read model is the same pure fold of events the write side uses (`TrekEvent.apply_to`),
persisted to its own table; reversals carry their corrections, so nothing here decides a rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.events import (
    CampaignStarted,
    EventsCancelled,
    EventsRestored,
    SessionEnded,
    SessionStarted,
    TrekEvent,
)
from domain.geometry import Square
from domain.maps import GameMap
from domain.ruleset import Situation
from domain.rulesets import ruleset_named
from domain.state import (
    SUPPLY_KINDS,
    Character,
    Conveyance,
    Day,
    Game,
    HouseRules,
    Transit,
)
from projections.db import Cursor


@dataclass
class LogEntry:
    seq: int
    type: str
    day: int
    session: int | None
    gm: str
    recorded_at: str
    cancelled_by: int | None
    event: dict[str, Any]


@dataclass
class CampaignView:
    """One campaign's read models held in memory while events fold into them."""

    campaign_id: str
    slug: str
    name: str
    ruleset: str
    seed: int
    map: GameMap | None
    game: Game = field(default_factory=Game)
    events: int = 0
    last_hash: str = ""
    session: int | None = None
    sessions: int = 0
    cancelled: dict[int, int] = field(default_factory=dict)
    # Log rows made and cancellation marks changed since the view was loaded.
    new_log: list[LogEntry] = field(default_factory=list)
    marks: dict[int, int | None] = field(default_factory=dict)

    @classmethod
    def start(cls, event: CampaignStarted) -> CampaignView:
        return cls(
            campaign_id=str(event.originator_id), slug=event.slug, name=event.name,
            ruleset=event.ruleset, seed=event.seed, map=event.map,
        )

    def apply(self, event: TrekEvent) -> None:
        if event.seq != self.events + 1:
            raise ValueError(f"{self.slug}: event {event.seq} does not follow {self.events}")
        event.apply_to(self.game)
        if isinstance(event, EventsCancelled):
            for seq in event.cancels:
                self.cancelled[seq] = event.seq
                self.marks[seq] = event.seq
        elif isinstance(event, EventsRestored):
            for seq in event.restores:
                self.cancelled.pop(seq, None)
                self.marks[seq] = None
        elif isinstance(event, SessionStarted):
            self.session = event.number
            self.sessions = event.number
        elif isinstance(event, SessionEnded):
            self.session = None
        self.events = event.seq
        self.last_hash = event.event_hash()
        self.new_log.append(LogEntry(
            seq=event.seq, type=type(event).__name__, day=self.game.day.number,
            session=event.session, gm=event.gm, recorded_at=event.timestamp.isoformat(),
            cancelled_by=None, event=event_document(event),
        ))

    @property
    def situation(self) -> Situation:
        return Situation(game=self.game, map=self.map, ruleset=self.ruleset)


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


def load_view(cursor: Cursor, campaign_id: str) -> CampaignView | None:
    cursor.execute(
        "SELECT slug, name, ruleset, seed, map_json, events, last_hash, session, sessions, "
        "cancelled_json FROM trek_view_campaigns WHERE campaign_id = ?", (campaign_id,))
    rows = cursor.fetchall()
    if not rows:
        return None
    slug, name, ruleset, seed, map_json, events, last_hash, session, sessions, cancelled = rows[0]
    view = CampaignView(
        campaign_id=campaign_id, slug=slug, name=name, ruleset=ruleset, seed=int(seed),
        map=GameMap.model_validate_json(map_json) if map_json else None,
        events=int(events), last_hash=last_hash, session=session, sessions=int(sessions),
        cancelled={int(k): v for k, v in json.loads(cancelled).items()},
    )
    game = view.game
    cursor.execute("SELECT day_json, x, y, transit_json, rules_json FROM trek_view_position "
                   "WHERE campaign_id = ?", (campaign_id,))
    for day_json, x, y, transit_json, rules_json in cursor.fetchall():
        game.day = Day.model_validate_json(day_json)
        game.position = Square(int(x), int(y))
        game.transit = Transit.model_validate_json(transit_json) if transit_json else None
        game.rules = HouseRules.model_validate_json(rules_json)
    cursor.execute("SELECT kind, amount FROM trek_view_supplies WHERE campaign_id = ?",
                   (campaign_id,))
    game.supplies.update({kind: int(amount) for kind, amount in cursor.fetchall()})
    cursor.execute(
        "SELECT name, health, health_max, energy, energy_max, with_party, x, y, conveyance, "
        "role, sheet_json FROM trek_view_characters WHERE campaign_id = ? ORDER BY ord",
        (campaign_id,))
    for (name, health, health_max, energy, energy_max, with_party, x, y, conveyance, role,
         sheet) in cursor.fetchall():
        with_party = bool(with_party)
        game.characters[name] = Character(
            name=name, health=health, health_max=health_max, energy=energy,
            energy_max=energy_max, with_party=with_party,
            left_at=None if with_party else _square_or_none(x, y),
            conveyance=conveyance, role=role, **json.loads(sheet),
        )
    cursor.execute(
        "SELECT name, kind, attribute, level, base_level, pending_strain, state, with_party, "
        "x, y, miles FROM trek_view_conveyances WHERE campaign_id = ? ORDER BY ord",
        (campaign_id,))
    for (name, kind, attribute, level, base_level, pending, state, with_party, x, y,
         miles) in cursor.fetchall():
        with_party = bool(with_party)
        game.conveyances[name] = Conveyance(
            name=name, kind=kind, attribute=attribute, level=level, base_level=base_level,
            pending_strain=pending, state=state, with_party=with_party, miles=miles,
            left_at=None if with_party else _square_or_none(x, y),
        )
    return view


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def save_view(cursor: Cursor, view: CampaignView) -> None:
    """Write every read model of one campaign, and the log rows its new events made."""
    cid = view.campaign_id
    game = view.game
    cursor.execute("DELETE FROM trek_view_campaigns WHERE campaign_id = ?", (cid,))
    cursor.execute(
        "INSERT INTO trek_view_campaigns (campaign_id, slug, name, ruleset, seed, map_json, "
        "events, last_hash, session, sessions, cancelled_json) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (cid, view.slug, view.name, view.ruleset, view.seed,
         view.map.model_dump_json() if view.map else None, view.events, view.last_hash,
         view.session, view.sessions, _json({str(k): v for k, v in view.cancelled.items()})))
    ruleset = ruleset_named(view.ruleset)
    situation = view.situation
    for table in ("trek_view_position", "trek_view_supplies", "trek_view_characters",
                  "trek_view_conveyances"):
        cursor.execute(f"DELETE FROM {table} WHERE campaign_id = ?", (cid,))
    cursor.execute(
        "INSERT INTO trek_view_position (campaign_id, day, day_open, x, y, flying, movement_json,"
        " day_json, transit_json, rules_json) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (cid, game.day.number, int(game.day.open), game.position.x, game.position.y,
         int(ruleset.flying(situation)), _json(ruleset.movement_status(situation)),
         game.day.model_dump_json(), game.transit.model_dump_json() if game.transit else None,
         game.rules.model_dump_json()))
    cursor.executemany(
        "INSERT INTO trek_view_supplies (campaign_id, kind, amount) VALUES (?,?,?)",
        [(cid, kind, game.supplies.get(kind, 0)) for kind in SUPPLY_KINDS])
    cursor.executemany(
        "INSERT INTO trek_view_characters (campaign_id, name, ord, health, health_max, energy, "
        "energy_max, with_party, x, y, conveyance, role, sheet_json) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(cid, c.name, i, c.health, c.health_max, c.energy, c.energy_max, int(c.with_party),
          *_where(game, c.with_party, c.left_at), c.conveyance,
          c.role.value if c.role else None,
          _json(c.model_dump(mode="json", include={"body", "mind", "soul", "pools", "skills",
                                                   "attributes"})))
         for i, c in enumerate(game.characters.values())])
    cursor.executemany(
        "INSERT INTO trek_view_conveyances (campaign_id, name, ord, kind, attribute, level, "
        "base_level, pending_strain, state, with_party, x, y, miles) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(cid, c.name, i, c.kind.value, c.attribute, c.level, c.base_level, c.pending_strain,
          c.state.value, int(c.with_party), *_where(game, c.with_party, c.left_at), c.miles)
         for i, c in enumerate(game.conveyances.values())])
    if view.new_log:
        cursor.executemany(
            "INSERT INTO trek_view_log (campaign_id, seq, type, day, session, gm, recorded_at, "
            "cancelled_by, event_json) VALUES (?,?,?,?,?,?,?,?,?)",
            [(cid, e.seq, e.type, e.day, e.session, e.gm, e.recorded_at,
              view.cancelled.get(e.seq), _json(e.event)) for e in view.new_log])
    if view.marks:
        cursor.executemany(
            "UPDATE trek_view_log SET cancelled_by = ? WHERE campaign_id = ? AND seq = ?",
            [(by, cid, seq) for seq, by in view.marks.items()])
    view.new_log = []
    view.marks = {}


def _where(game: Game, with_party: bool, left_at: Square | None) -> tuple[int | None, int | None]:
    square = game.position if with_party else left_at
    return (square.x, square.y) if square is not None else (None, None)


# -- queries ----------------------------------------------------------------------------------


def status_of(view: CampaignView) -> dict[str, Any]:
    """The `trek status --json` document for a campaign's read models."""
    game = view.game
    ruleset = ruleset_named(view.ruleset)
    situation = view.situation
    return {
        "campaign": view.slug,
        "name": view.name,
        "ruleset": view.ruleset,
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
                "with_party": c.with_party,
                "position": (game.position if c.with_party or c.left_at is None
                             else c.left_at).as_dict(),
                "conveyance": c.conveyance,
                "role": c.role.value if c.role else None,
            }
            for c in game.characters.values()
        },
        "conveyances": {
            c.name: {
                "kind": c.kind.value, "attribute": c.attribute, "level": c.level,
                "base_level": c.base_level, "pending_strain": c.pending_strain,
                "state": c.state.value, "with_party": c.with_party,
                "position": (game.position if c.with_party or c.left_at is None
                             else c.left_at).as_dict(),
                **({"miles": c.miles} if c.miles is not None else {}),
            }
            for c in game.conveyances.values()
        },
        "session": view.session,
        "events": view.events,
    }


def log_entries(rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """Log rows (seq, type, day, session, gm, recorded_at, cancelled_by, event_json) as dicts."""
    entries = []
    for seq, type_, day, session, gm, recorded_at, cancelled_by, event_json in rows:
        event = json.loads(event_json)
        entries.append({
            "seq": int(seq), "type": type_, "day": int(day), "session": session, "gm": gm,
            "recorded_at": recorded_at, "cancelled_by": cancelled_by,
            **{k: v for k, v in event.items() if k not in ("seq", "type")},
        })
    return entries

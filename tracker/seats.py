"""Seats and their requests (RULES §14): tables of their own beside the event store.

A seat is one player's way in: a name, the characters it plays, whether the GM trusts it, and
the SHA-256 of its key (the key itself is printed once and kept nowhere). Seats are not events
of the campaign: a key must be taken back at once and for good, and an event stays in the log
for ever, so even a hash of a key never enters it. A removed seat's row stays (marked removed),
so its requests keep their seat and its key is recognised, and refused, until the end.

A request is kept as it was asked (its words, its preview, when) and moves once from `pending`
to a decision (`approved`, `rejected`, `stale`); a trusted seat's is `recorded` from the start.
The move out of `pending` is one conditional UPDATE, so of two GMs deciding at once (two
servers on one PostgreSQL store) one wins and the other is told it was decided.

An approval first claims its request (`approving`: its decided_at when, its event column
where the log stood then, `{"after": SEQ}`), records the command, then marks it `approved`. A
server that dies between the two leaves it `approving`; `recover` settles it: an event of that
seat's asking, of the request's kind, recorded after the claim and kept for no other request,
is its event, and the request is `approved` with it; with none after STUCK_AFTER seconds, the
command was never recorded and the request is `pending` again, for the GM to decide anew.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain.errors import NotFound, RuleViolation
from domain.values import check_name
from projections.db import Database

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS trek_seats (
        campaign TEXT NOT NULL, key_hash TEXT NOT NULL, name TEXT NOT NULL,
        characters_json TEXT NOT NULL, trusted SMALLINT NOT NULL, added_at TEXT NOT NULL,
        removed_at TEXT, PRIMARY KEY (campaign, key_hash))""",
    """CREATE TABLE IF NOT EXISTS trek_requests (
        campaign TEXT NOT NULL, id BIGINT NOT NULL, seat TEXT NOT NULL, argv_json TEXT,
        command_json TEXT, preview_json TEXT, asked_at TEXT NOT NULL, status TEXT NOT NULL,
        decided_by TEXT, decided_at TEXT, reason TEXT, event_json TEXT,
        PRIMARY KEY (campaign, id))""",
]
STATUSES = ("pending", "approved", "rejected", "stale", "recorded")
# What `recap` and `audit` count for each seat: the requests asked, and what became of them
# (`pending`: not decided yet, an approval under way included).
COUNTED = ("asked", "approved", "rejected", "stale", "recorded", "pending")
# While an approval's command is being recorded: no other decision may be taken.
APPROVING = "approving"
PAUSED_KEY = "paused:"
# How long an approval may hold its request before a recovery takes it for one whose server
# died: far longer than recording a command takes, short enough that a GM is not kept waiting.
STUCK_AFTER = 30.0


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    """A seat's key: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def _now() -> str:
    # To the microsecond: a request is counted in the session open when it was asked.
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True)
class Seat:
    name: str
    characters: tuple[str, ...]
    trusted: bool
    removed: bool = False

    def document(self) -> dict[str, Any]:
        return {"seat": self.name, "characters": list(self.characters),
                "trusted": self.trusted}


class Seats:
    """The seats, requests and pause switch of a store's campaigns."""

    def __init__(self, db: Database, *, writable: bool = True) -> None:
        self.db = db
        self.writable = writable
        if writable and not db.has_table("trek_requests"):
            # A store made before seats existed gets their tables on first use.
            with db.transaction() as cursor:
                for statement in SCHEMA:
                    cursor.execute(statement)

    def _ready(self) -> bool:
        return self.writable or self.db.has_table("trek_requests")

    # -- seats ---------------------------------------------------------------------------------

    def _rows(self, slug: str) -> list[tuple[Any, ...]]:
        if not self._ready():
            return []
        return self.db.query(
            "SELECT name, characters_json, trusted, removed_at, key_hash, added_at "
            "FROM trek_seats WHERE campaign = ? ORDER BY added_at, name", (slug,))

    def active(self, slug: str) -> list[Seat]:
        return [_seat(row) for row in self._rows(slug) if row[3] is None]

    def get(self, slug: str, name: str) -> Seat:
        for seat in self.active(slug):
            if seat.name == name:
                return seat
        known = ", ".join(s.name for s in self.active(slug)) or "none yet"
        raise NotFound(f"there is no seat {name!r} in {slug} (seats: {known}); "
                       "`trek seat list` shows them")

    def add(self, slug: str, name: str, characters: list[str], *, roster: list[str],
            trusted: bool = False) -> tuple[Seat, str]:
        """A new seat and its key (returned once, kept only as its hash)."""
        check_name(name, "seat name")
        if not characters:
            raise RuleViolation("a seat plays at least one character; name it with "
                                "--character C")
        for character in characters:
            if character not in roster:
                raise RuleViolation(
                    f"{character!r} is not a character of the roster; a seat plays one of: "
                    f"{', '.join(roster) or 'none yet (`trek roster add-character`)'}")
        if any(seat.name == name for seat in self.active(slug)):
            raise RuleViolation(f"the seat name {name!r} is in use; choose another, or "
                                f"`trek seat remove {name}` first")
        key = new_key()
        chosen: list[str] = list(dict.fromkeys(characters))
        with self.db.transaction() as cursor:
            cursor.execute(
                "INSERT INTO trek_seats (campaign, key_hash, name, characters_json, trusted, "
                "added_at) VALUES (?, ?, ?, ?, ?, ?)",
                (slug, key_hash(key), name, json.dumps(chosen), int(trusted), _now()))
        return Seat(name, tuple(chosen), trusted), key

    def remove(self, slug: str, name: str) -> Seat:
        seat = self.get(slug, name)
        with self.db.transaction() as cursor:
            cursor.execute("UPDATE trek_seats SET removed_at = ? WHERE campaign = ? AND "
                           "name = ? AND removed_at IS NULL", (_now(), slug, name))
        return seat

    def trust(self, slug: str, name: str, trusted: bool) -> Seat:
        seat = self.get(slug, name)
        with self.db.transaction() as cursor:
            cursor.execute("UPDATE trek_seats SET trusted = ? WHERE campaign = ? AND "
                           "name = ? AND removed_at IS NULL", (int(trusted), slug, name))
        return Seat(seat.name, seat.characters, trusted)

    def by_key(self, slug: str, key: str) -> Seat | None:
        """The seat whose key this is (removed ones included), compared in constant time."""
        given = key_hash(key)
        found: Seat | None = None
        for row in self._rows(slug):
            if hmac.compare_digest(given, str(row[4])):
                found = _seat(row)
        return found

    # -- the table's pause switch ----------------------------------------------------------------

    def paused(self, slug: str) -> bool:
        rows = self.db.query("SELECT value FROM trek_meta WHERE key = ?", (PAUSED_KEY + slug,))
        return bool(rows) and rows[0][0] == "1"

    def pause(self, slug: str, paused: bool) -> None:
        from projections.readmodels import save_setting

        with self.db.transaction() as cursor:
            save_setting(cursor, PAUSED_KEY + slug, "1" if paused else "0")

    # -- requests --------------------------------------------------------------------------------

    def ask(self, slug: str, seat: str, *, argv: list[str] | None,
            command: dict[str, Any] | None, preview: Any, status: str = "pending",
            event: Any = None, decided_by: str | None = None) -> dict[str, Any]:
        """Keep a request (a trusted seat's already `recorded`); its document."""
        now = _now()
        with self.db.transaction() as cursor:
            cursor.execute("SELECT COALESCE(MAX(id), 0) FROM trek_requests WHERE campaign = ?",
                           (slug,))
            number = int(cursor.fetchall()[0][0]) + 1
            cursor.execute(
                "INSERT INTO trek_requests (campaign, id, seat, argv_json, command_json, "
                "preview_json, asked_at, status, decided_by, decided_at, event_json) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (slug, number, seat, _dumps(argv), _dumps(command), _dumps(preview), now,
                 status, decided_by, now if decided_by else None, _dumps(event)))
        return self.request(slug, number)

    def requests(self, slug: str, *, status: str | None = None,
                 seat: str | None = None) -> list[dict[str, Any]]:
        """The requests, oldest first (of one status, or of one seat)."""
        if not self._ready():
            return []
        sql = ("SELECT id, seat, argv_json, command_json, status, preview_json, asked_at, "
               "decided_by, decided_at, reason, event_json FROM trek_requests "
               "WHERE campaign = ?")
        params: list[Any] = [slug]
        if status is not None:
            sql += " AND status = ?"
            params.append(status)
        if seat is not None:
            sql += " AND seat = ?"
            params.append(seat)
        return [_request(row) for row in self.db.query(sql + " ORDER BY id", params)]

    def request(self, slug: str, number: int) -> dict[str, Any]:
        for found in self.requests(slug):
            if found["request"] == number:
                return found
        raise NotFound(f"there is no request {number} in {slug}")

    def claim(self, slug: str, number: int, *, by: str, after: int) -> bool:
        """Take a pending request to approve it, the log standing at seq `after`: True for
        the one caller that took it."""
        with self.db.transaction() as cursor:
            taken = cursor.execute(
                "UPDATE trek_requests SET status = ?, decided_by = ?, decided_at = ?, "
                "event_json = ? WHERE campaign = ? AND id = ? AND status = 'pending'",
                (APPROVING, by, _now(), _dumps({"after": after}), slug, number)).rowcount
        return bool(taken == 1)

    def recover(self, slug: str, entries_after: Callable[[int], Iterable[dict[str, Any]]],
                *, now: datetime | None = None) -> list[tuple[int, str]]:
        """Settle the approvals a server left half-done (see the module's docstring):
        `entries_after(SEQ)` gives the log's entries past SEQ. The requests settled, each
        with its status now."""
        held = self.requests(slug, status=APPROVING)
        if not held:
            return []
        now = now or datetime.now(UTC)
        kept = {int(request["event"]["seq"]) for request in self.requests(slug)
                if request["status"] in ("approved", "recorded")
                and isinstance(request["event"], dict) and "seq" in request["event"]}
        settled: list[tuple[int, str]] = []
        for request in held:
            mark = request["event"] if isinstance(request["event"], dict) else {}
            found = next((entry for entry in entries_after(int(mark.get("after", 0)))
                          if int(entry["seq"]) not in kept and _asked_for(entry, request)),
                         None)
            claimed = _when(request["decided_at"])
            if found is not None:
                if self.decide(slug, request["request"], "approved",
                               by=request["decided_by"], event=found, was=APPROVING):
                    kept.add(int(found["seq"]))
                    settled.append((request["request"], "approved"))
            elif ((claimed is None or (now - claimed).total_seconds() >= STUCK_AFTER)
                  and self.decide(slug, request["request"], "pending", by=None,
                                  was=APPROVING)):
                settled.append((request["request"], "pending"))
        return settled

    def decide(self, slug: str, number: int, status: str, *, by: str | None,
               reason: str | None = None, event: Any = None,
               was: str = "pending") -> bool:
        """Move a request from `was` to its decision (or back to `pending`, undecided): True
        when this call made it."""
        with self.db.transaction() as cursor:
            made = cursor.execute(
                "UPDATE trek_requests SET status = ?, decided_by = ?, decided_at = ?, "
                "reason = ?, event_json = ? WHERE campaign = ? AND id = ? AND status = ?",
                (status, by, None if status == "pending" else _now(), reason, _dumps(event),
                 slug, number, was)).rowcount
        return bool(made == 1)

    def counts(self, slug: str, spans: Sequence[tuple[int | None, str | None, str | None]]
               ) -> dict[int | None, dict[str, dict[str, int]]]:
        """How many requests each seat asked in each span of time (a session's number, its
        start and its end, each an ISO time or None for no bound) and what became of them
        (COUNTED), by span; a request asked in none of them counts under None."""
        bounds = [(number, _when(start), _when(end)) for number, start, end in spans]
        counted: dict[int | None, dict[str, dict[str, int]]] = {}
        for request in self.requests(slug):
            asked = _when(request["asked_at"])
            key = next((number for number, start, end in bounds
                        if asked is not None and (start is None or start <= asked)
                        and (end is None or asked <= end)), None)
            seat = counted.setdefault(key, {}).setdefault(
                request["seat"], dict.fromkeys(COUNTED, 0))
            seat["asked"] += 1
            status = request["status"]
            seat[status if status in COUNTED else "pending"] += 1
        return counted


def _asked_for(entry: dict[str, Any], request: dict[str, Any]) -> bool:
    """Whether a log entry is what this request asked for: recorded at its seat's asking,
    of the kind its preview showed, for the same one (a combatant's name) when it names one."""
    preview = request["preview"] if isinstance(request["preview"], dict) else {}
    return (entry.get("requested_by") == request["seat"]
            and entry.get("type") == preview.get("type")
            and entry.get("name") == preview.get("name"))


def _when(stamp: Any) -> datetime | None:
    """An ISO time as a UTC one (a time without a zone is UTC); None for none."""
    if stamp is None:
        return None
    try:
        when = datetime.fromisoformat(str(stamp))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _seat(row: tuple[Any, ...]) -> Seat:
    return Seat(str(row[0]), tuple(json.loads(row[1])), bool(row[2]), row[3] is not None)


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _loads(text: Any) -> Any:
    return None if text is None else json.loads(text)


def _request(row: tuple[Any, ...]) -> dict[str, Any]:
    argv = _loads(row[2])
    command = _loads(row[3])
    return {"request": int(row[0]), "seat": row[1],
            "argv": argv if argv is not None else command, "status": row[4],
            "preview": _loads(row[5]), "asked_at": row[6], "decided_by": row[7],
            "decided_at": row[8], "reason": row[9], "event": _loads(row[10]),
            "command": command}

"""The API's door to the tracker: words (or a command as JSON) → a typed command → `Trek.handle`.

A request's words are read by cli/parse.py, as the command line reads them; what they make is
accepted only if its type is one the table plays (`table_types`: every command `Trek.handle`
takes and the read queries), then handed to the one `Trek` the server keeps open. The status of
a refusal comes from what refused it: words that make no command (400), a command that acts on
files or on the whole store (403), the rules (422).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from domain.errors import NotFound, TrackerError

if TYPE_CHECKING:
    from cli.bootstrap import Root
    from cli.reads import Query
    from domain.actors import Actor
    from domain.ruleset import Command, Registry
    from tracker.app import Trek
    from tracker.opening import MemoryStores
    from tracker.seats import Seat, Seats

T = TypeVar("T")

# What a seat may ask for (RULES §14): the party's overland move, and the moves and acts of its
# own combatants, the rulesets' own per-combatant moves among them (by class name).
SEAT_COMMANDS = frozenset({"Move", "MoveCombatant", "Act", "GoProne", "StandUp", "Step",
                           "Sprint", "Push", "ChangePosture"})

# Bounds on what a request may ask for: a command line a GM could type, not a payload.
MAX_WORDS = 64
MAX_WORD = 400

# How many commands read from words the door keeps, for words sent again.
READ_KEPT = 256

# Options the server fixes (the store, the campaign, who records) and options that print and
# end instead of answering: none has a place in a request.
FIXED_OPTIONS = ("--db", "--campaign", "--gm")
REFUSED_OPTIONS = ("--help", "-h", "--version")


class Refused(Exception):
    """A request the API will not run: the HTTP status and the sentence that says why."""

    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status
        self.sentence = sentence


def has_control(text: str) -> bool:
    """Whether `text` holds a control character (a terminal escape, a newline, DEL)."""
    return any(ord(ch) < 32 or ord(ch) == 127 for ch in text)


def check_words(argv: Sequence[str]) -> None:
    """Refuse (400), with a sentence, words out of a request's bounds."""
    if not argv:
        raise Refused(400, "Give the command's words in argv, for example [\"move\", \"E\"].")
    if len(argv) > MAX_WORDS:
        raise Refused(400, f"A command takes at most {MAX_WORDS} words, not {len(argv)}.")
    for word in argv:
        if len(word) > MAX_WORD:
            raise Refused(400, f"A word of a command is at most {MAX_WORD} characters long.")
        if has_control(word):
            raise Refused(400, "A command's words may not hold control characters.")
        option = word.split("=", 1)[0]
        if option in FIXED_OPTIONS:
            raise Refused(400, f"{option} is fixed by the server; leave it out of argv.")
        if option in REFUSED_OPTIONS:
            raise Refused(400, f"{option} is not available through the API.")


@cache
def table_types(registry: Registry) -> Mapping[str, type[Any]]:
    """The types of command the table plays, by class name: the shared commands, every
    ruleset's own, and the read queries. Nothing else reaches `Trek.handle` from the API."""
    from cli.reads import QUERIES
    from domain.commands.catalogue import SHARED

    shared = list(SHARED)
    own = [kind for ruleset in registry for kind in ruleset.commands]
    found: dict[str, type[Any]] = {}
    for kind in [*shared, *own, *QUERIES]:
        if found.setdefault(kind.__name__, kind) is not kind:
            raise RuntimeError(f"two command types are called {kind.__name__}")
    return found


def command_types(registry: Registry) -> dict[str, type[Command]]:
    """The table's commands (not its queries), by class name: what `{"command": ...}` names."""
    from domain.ruleset import Command

    return {name: kind for name, kind in table_types(registry).items()
            if issubclass(kind, Command)}


@dataclass(eq=False)
class _Waiting:
    """A command waiting at the door to be recorded with the others waiting (`Door.run`), and
    its answer once recorded: the documents, or the refusal."""

    slug: str
    command: Command
    party: str | None
    answer: Any = None
    refusal: Refused | None = None
    done: threading.Event = field(default_factory=threading.Event)
    # A request of the server's event loop awaits this instead of a thread waiting on `done`.
    future: asyncio.Future[Any] | None = None

    @property
    def answered(self) -> bool:
        return self.done.is_set()

    def tell(self, outcome: Any) -> None:
        if isinstance(outcome, Refused):
            self.refusal = outcome
        elif isinstance(outcome, TrackerError):
            self.refusal = Refused(422, _told(outcome))
        elif isinstance(outcome, Exception):
            self.refusal = Refused(500, f"Trek could not finish ({type(outcome).__name__})")
        else:
            self.answer = outcome
        self.done.set()
        if self.future is not None:
            # A loop closed meanwhile (the server stopping) has no one left to tell.
            with contextlib.suppress(RuntimeError):
                self.future.get_loop().call_soon_threadsafe(_settle, self.future, self)


def _settle(future: asyncio.Future[Any], waiting: _Waiting) -> None:
    if future.done():  # the request went away meanwhile
        return
    if waiting.refusal is not None:
        future.set_exception(waiting.refusal)
    else:
        future.set_result(waiting.answer)


class Door:
    """One `Trek` kept open on the server's store for its lifetime (opened on first use), and
    the one way a request reaches it. A Trek is used by one request at a time (a lock); a
    command that could not finish has the store opened afresh for the next.

    Commands that arrive while the door is busy wait together, and the door's recorder thread,
    when it next takes the door, records all of them in one transaction (`Trek.handle_each`):
    one commit, and the campaign loaded once, for as many commands as came meanwhile. Each
    request is woken as soon as its batch is done, not in turn behind the next batch."""

    def __init__(self, db: str, root: Root, memory: MemoryStores | None = None) -> None:
        self.db = db
        self.root = root
        self.memory = memory
        self.lock = threading.Lock()
        self._trek: Trek | None = None
        # The commands waiting to be recorded together, in the order they came.
        self._waiting: list[_Waiting] = []
        self._waiting_lock = threading.Lock()
        # Told when a command comes to wait, or when the door closes.
        self._arrived = threading.Condition(self._waiting_lock)
        self._recorder: threading.Thread | None = None
        self._closing = False
        # The commands words made (`read_words`), by the words.
        self._read: dict[tuple[str, ...], tuple[Command, bool, str | None]] = {}

    @property
    def registry(self) -> Registry:
        return self.root.registry

    def _open(self) -> Trek:
        if self._trek is None:
            from tracker.app import gm_from_env

            # Who records: TREK_GM, else the OS user, as for a command typed on this machine.
            self._trek = self.root.open(self.db, writable=True,
                                        gm=gm_from_env(os.environ.get("TREK_GM") or None),
                                        memory=self.memory)
        self._trek.appended.clear()
        return self._trek

    def close(self) -> None:
        with self._arrived:
            # The recorder records what still waits, then ends.
            self._closing = True
            self._arrived.notify()
            recorder = self._recorder
        if recorder is not None:
            recorder.join(timeout=30)
        with self.lock:
            self._drop()

    def _drop(self) -> None:
        trek, self._trek = self._trek, None
        if trek is not None:
            # Closing what failed: the next request opens the store afresh.
            with contextlib.suppress(Exception):
                trek.close()

    def campaigns(self) -> set[str]:
        with self.lock:
            return {campaign["slug"] for campaign in self._open().campaigns()}

    def read_words(self, argv: Sequence[str]) -> tuple[Command | Query, bool, str | None]:
        """The command or query the words make, whether they ask for --preview, and the party
        a command acts on (--party; None: the party in use)."""
        from cli.parse import NotATableCommand, ParseError, read
        from domain.ruleset import Command

        check_words(argv)
        key = tuple(argv)
        known = self._read.get(key)
        if known is not None:
            return known
        try:
            parsed = read(argv, self.root)
        except ParseError as error:
            raise Refused(400, str(error)) from None
        except NotATableCommand as error:
            raise Refused(403, str(error)) from None
        except TrackerError as error:
            raise Refused(422, _told(error)) from None
        if isinstance(parsed.command, Command):
            # Words make the same command each time (reading them opens nothing and reads no
            # clock), and a command is a frozen value: the table's repeated words are read
            # once.
            if len(self._read) >= READ_KEPT:
                self._read.clear()
            self._read[key] = (parsed.command, parsed.preview, parsed.party)
        return parsed.command, parsed.preview, parsed.party

    def read_json(self, given: Mapping[str, Any]) -> tuple[Command, str | None]:
        """The command a JSON object describes: `type`, one of the table's command types, and
        its fields, checked as the command line's are (pydantic, the command's own bounds);
        and the party it acts on: its `party` field, for a command that acts on one
        (RULES.md §15; None: the party in use)."""
        from pydantic import TypeAdapter, ValidationError

        fields = dict(given)
        name = fields.pop("type", None)
        kinds = command_types(self.registry)
        if not isinstance(name, str) or name not in kinds:
            raise Refused(400, "The command's type is not one of the table's commands; "
                               "/api/openapi.json lists them")
        # A command that acts on no party keeps `party` among its fields, and is told it has
        # no such field.
        party = fields.pop("party", None) if kinds[name].acts_on_party else None
        if party is not None and not (isinstance(party, str) and 0 < len(party) <= MAX_WORD
                                      and not has_control(party)):
            raise Refused(400, f"The command's field party is not valid: the name of a party "
                               f"(1 to {MAX_WORD} characters, no control characters), as "
                               "`trek party list` shows it")
        if fields.get("battle_map") is not None:
            raise Refused(403, "A battle map is read from a file: start the encounter with "
                               "`trek encounter start NAME --map FILE` on the command line")
        adapter = TypeAdapter(kinds[name])
        try:
            command: Command = adapter.validate_python(fields)
        except ValidationError as error:
            raise Refused(400, _invalid(error.errors())) from None
        except TrackerError as error:
            raise Refused(422, _told(error)) from None
        unknown = _unknown_key(fields, adapter.dump_python(command))
        if unknown is not None:
            raise Refused(400, f"The command {name} has no field {unknown}")
        return command, party

    def use_party(self, slug: str, name: str) -> Any:
        """Make `name` the party commands naming none act on (`trek party use`): a setting of
        the store, not a command of the table."""
        from domain.errors import TrackerError

        with self.lock:
            try:
                return self._open().use_party(slug, name)
            except TrackerError as error:
                raise Refused(422, _told(error)) from None

    def run(self, slug: str, asked: Command | Query, *, preview: bool = False,
            party: str | None = None) -> Any:
        """Hand a command of the table to `Trek.handle` (or answer a query): the document
        `--json` prints. The command acts on `party` (None: the party in use)."""
        from domain.ruleset import Command
        from tracker.app import decided_alone

        if preview or not isinstance(asked, Command) or not decided_alone(asked):
            with self.lock:
                return self._run(slug, asked, preview=preview, party=party)
        self._check_type(asked)
        waiting = self._wait(_Waiting(slug, asked, party))
        waiting.done.wait()
        if waiting.refusal is not None:
            raise waiting.refusal
        return waiting.answer

    def kept(self, slug: str, argv: Sequence[str]) -> Awaitable[Any] | None:
        """The answer to words read before that make a command recorded with the others
        waiting, to await on the server's event loop: no thread waits for it. None for any
        other words (`run` them): reading words anew may take a while."""
        from tracker.app import decided_alone

        check_words(argv)
        known = self._read.get(tuple(argv))
        if known is None:
            return None
        command, preview, party = known
        if preview or not decided_alone(command):
            return None
        self._check_type(command)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._wait(_Waiting(slug, command, party, future=future))
        return future

    def _wait(self, waiting: _Waiting) -> _Waiting:
        """Put `waiting` with the commands waiting at the door, the recorder woken."""
        with self._arrived:
            self._waiting.append(waiting)
            if self._recorder is None or not self._recorder.is_alive():
                self._recorder = threading.Thread(target=self._records, name="trek-door",
                                                  daemon=True)
                self._recorder.start()
            self._arrived.notify()
        return waiting

    def _records(self) -> None:
        """The recorder thread: whenever commands wait, take the door and record them; ends
        once the door closes with none waiting."""
        while True:
            with self._arrived:
                while not self._waiting and not self._closing:
                    self._arrived.wait()
                if not self._waiting:
                    return
            with self.lock:
                self._record_waiting()

    def _record_waiting(self) -> None:
        """Record every command waiting at the door, one transaction for each campaign's
        (under the lock): each is answered, recorded or refused, before the lock is let go."""
        with self._waiting_lock:
            waiting, self._waiting = self._waiting, []
        by_campaign: dict[str, list[_Waiting]] = {}
        for each in waiting:
            by_campaign.setdefault(each.slug, []).append(each)
        try:
            for slug, group in by_campaign.items():

                def more(slug: str = slug, group: list[_Waiting] = group
                         ) -> list[tuple[Command, str | None]]:
                    # The campaign's commands that came while this one waited its turn.
                    with self._waiting_lock:
                        came = [each for each in self._waiting if each.slug == slug]
                        self._waiting = [each for each in self._waiting if each.slug != slug]
                    group.extend(came)
                    waiting.extend(came)
                    return [(each.command, each.party) for each in came]

                try:
                    outcomes: list[Any] = self._open().handle_each(
                        slug, [(each.command, each.party) for each in group], more)
                except TrackerError as error:
                    # Nothing of the group was recorded: each is told why.
                    outcomes = [error] * len(group)
                except Exception as error:
                    # What the store holds is told by the next request, on a store opened
                    # afresh; none of the group was acknowledged.
                    self._drop()
                    outcomes = [error] * len(group)
                for each, outcome in zip(group, outcomes, strict=True):
                    each.tell(outcome)
        finally:
            for each in waiting:
                if not each.answered:
                    each.tell(Refused(500, "Trek could not finish (interrupted)"))


    def seats(self) -> Seats:
        """The seats and requests of the store (under the lock)."""
        from tracker.seats import Seats

        return Seats(self._open().views)

    def with_seats(self, act: Callable[[Seats], T]) -> T:
        with self.lock:
            try:
                return act(self.seats())
            except Refused:
                raise
            except TrackerError as error:
                raise Refused(404 if isinstance(error, NotFound) else 422, _told(error)) \
                    from None

    def ask(self, slug: str, seat: Seat, argv: list[str] | None,
            command: Mapping[str, Any] | None, *, preview: bool = False
            ) -> tuple[int, dict[str, Any]]:
        """A seat's request (RULES §14): refused (403) unless it is a command a seat may ask
        for, for its own characters, at a table that is not paused; refused (422) when the
        rules refuse it now, and then nothing is kept. A trusted seat's is recorded at once;
        another's kept pending with its preview. With `preview`, only the event it would
        record (a seat's ruler), nothing kept."""
        from domain.actors import Actor

        if argv is not None:
            asked, previewing, party = self.read_words(argv)
            if previewing:
                raise Refused(400, "A request asks for a command; leave --preview out")
        else:
            assert command is not None
            asked, party = self.read_json(command)
        may_ask(seat, asked)
        with self.lock:
            seats = self.seats()
            if seats.paused(slug):
                raise Refused(403, "The GM has paused the table: no requests until it "
                                   "resumes")
            from domain.ruleset import Command

            if isinstance(asked, Command) and asked.acts_on_party:
                # The overland move moves the party the seat's characters travel in; the
                # request keeps that party, so its approval moves the one it previewed.
                try:
                    status = self._open().queries.status(slug)
                except TrackerError as error:
                    raise Refused(422, _told(error)) from None
                chosen = seat_party(seat, status, party)
                if chosen is not None and chosen != party:
                    party = chosen
                    if argv is not None:
                        argv = [*argv, "--party", chosen]
                    else:
                        command = {**(command or {}), "party": chosen}
            if preview:
                return 200, {"request": None, "status": "preview",
                             "preview": self._run(slug, asked, preview=True, party=party)[0]}
            if seat.trusted:
                assert self._trek is not None
                docs = self._run(slug, asked, party=party, actor=Actor.request(
                    seat.name, approved_by=self._trek.gm))
                kept = seats.ask(slug, seat.name, argv=argv, command=_plain(command),
                                 preview=None, status="recorded", event=docs[0],
                                 decided_by=self._trek.gm)
                return 200, {"request": kept["request"], "status": "recorded",
                             "event": docs[0]}
            docs = self._run(slug, asked, preview=True, party=party)
            kept = seats.ask(slug, seat.name, argv=argv, command=_plain(command),
                             preview=docs[0])
            return 202, {"request": kept["request"], "status": "pending", "preview": docs[0]}

    def approve(self, slug: str, number: int) -> dict[str, Any]:
        """Record a pending request as the GM's word, checked against the campaign as it is
        now: refused now, the request is `stale` (422 with the rules' sentence)."""
        from domain.actors import Actor
        from tracker.seats import APPROVING

        with self.lock:
            seats = self.seats()
            self._recover(seats, slug)
            held = self._decidable(seats, slug, number)
            trek = self._open()
            if not seats.claim(slug, number, by=trek.gm, after=trek.queries.last_seq(slug)):
                raise Refused(409, f"Request {number} was decided already")
            try:
                asked, party = (self.read_json(held["command"])
                                if held["command"] is not None
                                else self.read_words(held["argv"])[::2])
                docs = self._run(slug, asked, party=party,
                                 actor=Actor.request(held["seat"], approved_by=trek.gm))
            except Refused as refusal:
                if refusal.status == 422:
                    self.seats().decide(slug, number, "stale", by=trek.gm,
                                        reason=refusal.sentence, was=APPROVING)
                else:
                    # Not the rules' word: the request waits for the GM again.
                    self.seats().decide(slug, number, "pending", by=None, was=APPROVING)
                raise
            # Held past STUCK_AFTER, a recovery elsewhere may have put the request back to
            # pending meanwhile: recorded now, it is approved all the same.
            if not self.seats().decide(slug, number, "approved", by=trek.gm, event=docs[0],
                                       was=APPROVING):
                self.seats().decide(slug, number, "approved", by=trek.gm, event=docs[0])
            return {"request": number, "status": "approved", "event": docs[0]}

    def recover(self, slug: str) -> list[tuple[int, str]]:
        """Settle the approvals a server that died left `approving` (tracker/seats.py); a
        store without seats' tables has none (and is not given them)."""
        with self.lock:
            if not self._open().views.has_table("trek_requests"):
                return []
            return self._recover(self.seats(), slug)

    def _recover(self, seats: Seats, slug: str) -> list[tuple[int, str]]:
        from projections.logpages import LogFilter

        trek = self._open()

        def entries_after(seq: int) -> list[dict[str, Any]]:
            return [dict(entry)
                    for entry in trek.queries.log_stream(slug, LogFilter(since=seq + 1)).entries]

        return seats.recover(slug, entries_after)

    def reject(self, slug: str, number: int, reason: str | None) -> dict[str, Any]:
        with self.lock:
            seats = self.seats()
            self._recover(seats, slug)
            self._decidable(seats, slug, number)
            assert self._trek is not None
            if not seats.decide(slug, number, "rejected", by=self._trek.gm, reason=reason):
                raise Refused(409, f"Request {number} was decided already")
            return {"request": number, "status": "rejected", "reason": reason}

    def _decidable(self, seats: Seats, slug: str, number: int) -> dict[str, Any]:
        try:
            held = seats.request(slug, number)
        except NotFound as error:
            raise Refused(404, _told(error)) from None
        if held["status"] != "pending":
            raise Refused(409, f"Request {number} was decided already ({held['status']})")
        return held


    def preview_after(self, slug: str, asked: Command | Query,
                      party: str | None = None) -> tuple[Any, Any]:
        """Preview a command; with it, the open encounter as the previewed event would leave
        it (None when it is not an encounter's)."""
        with self.lock:
            docs = self._run(slug, asked, preview=True, party=party)
            assert self._trek is not None
            return docs, self._trek.previewed_encounter()

    def _check_type(self, asked: object) -> None:
        if table_types(self.registry).get(type(asked).__name__) is not type(asked):
            raise Refused(403, f"{type(asked).__name__} is not a command of the table")

    def _run(self, slug: str, asked: Command | Query, *, preview: bool = False,
             party: str | None = None, actor: Actor | None = None) -> Any:
        from cli.reads import Query
        self._check_type(asked)
        if isinstance(asked, Query) and preview:
            raise Refused(400, f"`{asked.what}` records nothing; --preview goes with a "
                               "command that records")
        try:
            trek = self._open()
            if isinstance(asked, Query):
                return asked.answer(trek, slug)
            return trek.handle(slug, asked, preview=preview, party=party, actor=actor)
        except TrackerError as error:
            raise Refused(422, _told(error)) from None
        except Exception as error:
            # What the store holds is told by the next request, on a store opened afresh.
            self._drop()
            raise Refused(500, f"Trek could not finish ({type(error).__name__})") from None


def seat_party(seat: Seat, status: Mapping[str, Any], named: str | None) -> str | None:
    """The party a seat's overland move moves (RULES.md §15): the one its characters travel
    in. A seat whose characters travel in several names one of them (`--party`, or `party` in
    a command as JSON): none named is a usage mistake (400), another party is not the seat's
    to move (403). With one party, the party in use (None)."""
    parties = status.get("parties") or {}
    if len(parties) < 2:
        return named
    characters = status.get("characters") or {}
    own = sorted({str(characters[name]["party"]) for name in seat.characters
                  if characters.get(name, {}).get("party") is not None})
    if not own:
        return named
    if named is None:
        if len(own) == 1:
            return own[0]
        raise Refused(400, f"Seat {seat.name}'s characters travel in parties "
                           f"{' and '.join(own)}: name the one that moves with --party NAME "
                           "(\"party\" in a command sent as JSON)")
    if named not in own:
        where = f"party {own[0]}" if len(own) == 1 else f"parties {' and '.join(own)}"
        raise Refused(403, f"Seat {seat.name}'s characters travel in {where}, not in party "
                           f"{named}; a seat moves only its own characters' party")
    return named


def may_ask(seat: Seat, asked: object) -> None:
    """Refuse (403) a command a seat may not ask for, or one for a character not its own."""
    kind = type(asked).__name__
    if kind not in SEAT_COMMANDS:
        what = getattr(asked, "what", kind)
        raise Refused(403, f"A seat may ask only for the party's overland move and the moves "
                           f"and acts of its own combatants, not for {what}")
    name = getattr(asked, "name", None)
    if name is not None and name not in seat.characters:
        raise Refused(403, f"{name} is not a character of seat {seat.name}; it asks for "
                           f"{', '.join(seat.characters)}")


def _plain(command: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None if command is None else dict(command)


def _told(error: Exception) -> str:
    """The rules' sentence, as the command line tells it."""
    from cli.main import _sentence

    return _sentence(str(error))


def _unknown_key(given: Any, made: Any, at: str = "") -> str | None:
    """The first key of `given` that the command made of it does not hold (a misspelt field
    would otherwise be dropped without a word), by its dotted path."""
    if isinstance(given, Mapping) and isinstance(made, Mapping):
        for key, value in given.items():
            where = f"{at}.{key}" if at else str(key)
            if key not in made:
                return where
            found = _unknown_key(value, made[key], where)
            if found is not None:
                return found
    elif isinstance(given, list | tuple) and isinstance(made, list | tuple):
        for number, (value, kept) in enumerate(zip(given, made, strict=False)):
            found = _unknown_key(value, kept, f"{at}.{number}")
            if found is not None:
                return found
    return None


def _invalid(errors: Any) -> str:
    for error in errors:
        where = ".".join(str(part) for part in error.get("loc", ()))
        message = str(error.get("msg", "is not valid"))
        return f"The command's field {where or 'values'} is not valid: {message}"
    return "The command is not valid"

"""`trek serve`'s web application: the JSON API, the live stream and the two pages.

Every write goes through one door (cli/web/commands.py): the words are read into a typed
command by cli/parse.py, as the command line reads them, and the command is handed to
`Trek.handle` on the one store the server keeps open to record, so the API answers with the
documents `--json` prints and refuses with the CLI's sentences. Every read (the API's, the
pages', the live stream's) goes through the queries of one read-only store the server holds
from start-up to shutdown (cli/web/reads.py): the same documents, and no store opened per
request. Secrets: the GM's reads and writes, the players'
only reads; sent as `Authorization: Bearer SECRET`, or as `?key=` on a page load or a stream
(a browser's EventSource sends no header); writes take the header only, so no cross-site form
can record.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cli.web import pages, pictures
from cli.web.commands import MAX_WORD, Door, Refused, command_types, has_control
from cli.web.live import NUDGE, Live
from cli.web.reads import Reads
from domain.errors import TrackerError

if TYPE_CHECKING:
    from cli.bootstrap import Root
    from domain.ruleset import Registry
    from tracker.app import Trek
    from tracker.seats import Seat

HERE = Path(__file__).parent
MAX_BODY = 16 * 1024
# A comment line now and then, so a stream whose page went away is noticed and closed.
KEEPALIVE = 15.0
# How often an idle stream wakes to see whether the server is stopping.
WAKE = 0.5
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")

# How many drawn pages are kept (a GM's, the players', a seat's, whole and their live parts).
DRAWN_PAGES = 12

# The farthest a ruler may point: a battle map is never this wide.
MAX_CELL = 100_000

Role = Literal["gm", "player", "seat"]
Body = TypeVar("Body", bound=BaseModel)


@dataclass(frozen=True)
class ServeConfig:
    """What `trek serve` was started with."""

    db: str
    campaign: str
    gm_key: str
    player_key: str
    fog: bool = True
    poll_interval: float = 0.25


class CommandRequest(BaseModel):
    """The words after `trek` (global options excluded), or the command as JSON (`type`, one
    of the table's command types, and its fields); and whether to record or preview."""

    model_config = ConfigDict(extra="forbid")

    argv: list[str] | None = None
    command: dict[str, Any] | None = None
    preview: bool = False


class AskRequest(BaseModel):
    """A seat's request: the words after `trek`, or the command as JSON."""

    model_config = ConfigDict(extra="forbid")

    argv: list[str] | None = None
    command: dict[str, Any] | None = None
    # Only the event it would record (the seat's ruler): nothing kept, nothing recorded.
    preview: bool = False


class RejectRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str | None = Field(default=None, max_length=MAX_WORD)


class SeatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: str = Field(min_length=1, max_length=MAX_WORD)
    characters: list[Annotated[str, Field(min_length=1, max_length=MAX_WORD)]] = Field(
        min_length=1, max_length=64)
    trusted: bool = False


class TrustRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    trusted: bool


class TableRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    paused: bool


class RulerRequest(BaseModel):
    """A combatant and the cell the GM points at: what the ruler measures."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=MAX_WORD)
    to: tuple[Annotated[int, Field(ge=-MAX_CELL, le=MAX_CELL)],
              Annotated[int, Field(ge=-MAX_CELL, le=MAX_CELL)]]
    # One kind of move (a band of the ruleset's ruler); left out, the nearest the rules allow.
    band: str | None = Field(default=None, max_length=40)


class PartyRequest(BaseModel):
    """The party commands act on when they name none, as `trek party use NAME` chooses it."""

    model_config = ConfigDict(extra="forbid")

    party: str = Field(min_length=1, max_length=MAX_WORD)


class ApiError(Exception):
    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status
        self.sentence = sentence


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def create_app(config: ServeConfig, root: Root | None = None, *,
               open_store: Callable[[], Trek] | None = None,
               memory: Any = None) -> FastAPI:
    """The server over `config.db`, playing the rulesets of `root` (its composition root:
    made here over the shipped rulesets when none is given), kept on `app.state.root`. Its
    reads go through the store `open_store` opens (by default the configured store,
    read-only), opened once at start-up and closed at shutdown; its writes through the
    door, on a store kept open to record. `memory` holds a `memory:` store's tables (a
    test's)."""
    from cli.bootstrap import bootstrap, use

    root = use(root or bootstrap(config.db))
    if root.db is None:
        # The command line's root names its store once `trek serve` has read --db.
        root.db = config.db
    door = Door(config.db, root, memory)

    def open_reader() -> Trek:
        return root.open(config.db, writable=False, memory=memory)

    reads = Reads(open_store or open_reader)
    live = Live(reads, config.poll_interval)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # A store that cannot be opened now is tried again by the first read, which says why.
        with contextlib.suppress(Exception):
            await run_in_threadpool(reads.open)
        # An approval this server (or another) left half-done when it died is settled now,
        # or when it is next seen after STUCK_AFTER (`settle`).
        with contextlib.suppress(Exception):
            await run_in_threadpool(door.recover, config.campaign)
        live.start()
        try:
            yield
        finally:
            live.stop()
            door.close()
            reads.close()
            root.close()

    # The description is served by a route of its own, behind a secret like every other read.
    app = FastAPI(title="Trek", version="1", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None,
                  description="The API of `trek serve`: the documents of `trek ... --json`, "
                              "commands in the words of the command line, and a live stream "
                              "of the log. Send `Authorization: Bearer SECRET`.")
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    # -- errors: a sentence, never a traceback ---------------------------------------------

    @app.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError) -> Response:
        return JSONResponse({"error": _sentence(error.sentence)}, status_code=error.status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        sentence = {404: "There is nothing at this address",
                    405: "This address does not take that method"}.get(
            error.status_code, str(error.detail))
        return JSONResponse({"error": _sentence(sentence)}, status_code=error.status_code,
                            headers=error.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> Response:
        return JSONResponse({"error": _validation_sentence(error.errors())}, status_code=400)

    @app.exception_handler(Exception)
    async def crashed(request: Request, error: Exception) -> Response:
        return JSONResponse(
            {"error": f"Trek could not answer this request ({type(error).__name__})."},
            status_code=500)

    app.add_middleware(Guard)
    app.state.live = live
    app.state.root = root
    app.state.reads = reads
    app.state.door = door
    described = app.openapi

    def described_with_commands() -> dict[str, Any]:
        """The API's description, with the JSON schema of every command type of the table
        (what `{"command": {"type": ...}}` takes)."""
        if app.openapi_schema is None:
            schema = described()
            schema.setdefault("components", {}).setdefault("schemas", {}).update(
                command_schemas(door.registry))
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = described_with_commands  # type: ignore[method-assign]

    # -- who is asking -------------------------------------------------------------------------

    def _role_and_key(request: Request, *, header_only: bool = False
                      ) -> tuple[Role | None, str]:
        given: str | None = None
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, value = header.partition(" ")
            if scheme.lower() != "bearer" or not value.strip():
                raise ApiError(401, "Send the secret as `Authorization: Bearer SECRET`")
            given = value.strip()
        elif not header_only:
            given = request.query_params.get("key")
        if not given:
            raise ApiError(401, "This needs the GM's or the players' secret: send "
                                "`Authorization: Bearer SECRET`")
        # Both compared, each in constant time, whichever matches.
        gm = secrets.compare_digest(given.encode(), config.gm_key.encode())
        player = secrets.compare_digest(given.encode(), config.player_key.encode())
        if gm:
            return "gm", given
        if player:
            return "player", given
        return None, given

    async def who(request: Request, slug: str, *, header_only: bool = False
                  ) -> tuple[Role, Seat | None]:
        """The GM, the players, or one of the campaign's seats (a removed seat's key: 403)."""
        role, given = _role_and_key(request, header_only=header_only)
        if role is not None:
            return role, None
        await known(slug)
        seat = await seat_of(slug, given)
        if seat is None:
            raise ApiError(401, "That secret is not this server's")
        if seat.removed:
            raise ApiError(403, f"Seat {seat.name} was removed by the GM; its key no longer "
                                "works")
        return "seat", seat

    async def seat_of(slug: str, key: str) -> Seat | None:
        from tracker.seats import Seats

        found: Seat | None = await read(
            lambda trek: Seats(trek.views, writable=False).by_key(slug, key))
        return found

    async def gm_request(request: Request, slug: str, shape: type[Body], refusal: str
                         ) -> Body:
        """A write's body, from the GM (the header's secret only), bounded and of `shape`.
        A seat's key is known, so refused (403), not unknown (401): RULES §14."""
        role, seat = await who(request, slug, header_only=True)
        if role != "gm":
            if seat is not None:
                refusal = (f"Seat {seat.name}'s key only reads and asks: it asks for its "
                           f"characters' moves and acts with POST /api/campaigns/{slug}/requests")
            raise ApiError(403, refusal)
        body = await _bounded_body(request)
        try:
            return shape.model_validate_json(body)
        except ValidationError as error:
            raise ApiError(400, _validation_sentence(error.errors())) from None

    # Campaigns are never taken out of a store: one seen stays known.
    campaigns: set[str] = set()

    async def known(slug: str) -> None:
        if slug not in campaigns:
            campaigns.update(await run_in_threadpool(
                reads.run, lambda trek: {c["slug"] for c in trek.campaigns()}))
        if slug not in campaigns:
            raise ApiError(404, f"There is no campaign {slug!r} in this store")

    def through_door(slug: str, argv: list[str] | None, command: dict[str, Any] | None,
                     preview: bool) -> Any:
        """Words (or a command as JSON) → a typed command or query → `Trek.handle` (or the
        query's answer) → the document `--json` prints."""
        if command is not None:
            typed, party = door.read_json(command)
            return door.run(slug, typed, preview=preview, party=party)
        assert argv is not None
        asked, previewing, party = door.read_words(argv)
        return door.run(slug, asked, preview=preview or previewing, party=party)

    async def run(slug: str, argv: list[str] | None = None, *,
                  command: dict[str, Any] | None = None, preview: bool = False) -> Response:
        try:
            # Words read before that make a command recorded with the others waiting are
            # handed to the door here and awaited; any other goes through a worker thread.
            kept = (door.kept(slug, argv) if argv is not None and command is None
                    and not preview else None)
            document = (await kept if kept is not None else
                        await run_in_threadpool(through_door, slug, argv, command, preview))
        except Refused as refusal:
            return JSONResponse({"error": _sentence(refusal.sentence)},
                                status_code=refusal.status)
        if not preview:
            live.nudge()
        return JSONResponse(document)

    async def read(query: Callable[[Trek], Any]) -> Any:
        """A document read through the server's store; a refusal (a damaged log, a store
        that cannot be reached) is 422 with the command line's sentence."""
        from cli.main import _sentence as told

        try:
            return await run_in_threadpool(reads.run, query)
        except TrackerError as error:
            raise ApiError(422, told(str(error))) from None

    # -- the API -------------------------------------------------------------------------------

    @app.get("/api/campaigns/{slug}/status", tags=["reads"],
             summary="The document of `trek status --json`")
    async def status(slug: str, request: Request) -> Response:
        await who(request, slug)
        await known(slug)
        return JSONResponse(await read(lambda trek: trek.queries.status(slug)))

    @app.get("/api/campaigns/{slug}/log", tags=["reads"],
             summary="The document of `trek log --json` (`?from=SEQ`, `?last=N`)")
    async def log(slug: str, request: Request,
                  since: str | None = Query(None, alias="from", max_length=20),
                  last: str | None = Query(None, max_length=20)) -> Response:
        from projections.logpages import LogFilter

        role, _ = await who(request, slug)
        await known(slug)
        selection = LogFilter(since=_at_least_one("from", "the seq to start from", since),
                              last=_at_least_one("last", "the number of rows to show", last))
        entries = await read(lambda trek: list(trek.queries.log_stream(slug, selection).entries))
        if role != "gm":
            entries = [pages.for_players(entry) for entry in entries]
        return JSONResponse(entries)

    @app.get("/api/campaigns/{slug}/encounter", tags=["reads"],
             summary="The document of `trek encounter status --json` (null with none open)")
    async def encounter(slug: str, request: Request) -> Response:
        await who(request, slug)
        await known(slug)
        return JSONResponse(await read(lambda trek: trek.queries.encounter_status(slug)))

    @app.post("/api/campaigns/{slug}/commands", tags=["writes"],
              summary="Run a command of the table: the words after `trek`, or the command "
                      "as JSON",
              description=COMMANDS_DESCRIPTION,
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": _request_schema(root.registry)}}}})
    async def command(slug: str, request: Request) -> Response:
        given = await gm_request(request, slug, CommandRequest,
                                 "Only the GM's secret records; the players' secret reads")
        if (given.argv is None) == (given.command is None):
            raise ApiError(400, "Give the command's words in argv or the command as JSON in "
                                "command, one of them")
        await known(slug)
        return await run(slug, given.argv, command=given.command, preview=given.preview)

    @app.post("/api/campaigns/{slug}/party", tags=["writes"],
              summary="Choose the party commands act on when they name none",
              description="`{\"party\": \"riders\"}`: as `trek party use riders`, a "
                          "setting of the store, not an event (RULES.md §15). 200 with the "
                          "campaign, the party and the one before; 422 `{\"error\": "
                          "SENTENCE}` naming the parties when there is none so called. The "
                          "GM's secret only.",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": PartyRequest.model_json_schema()}}}})
    async def party_in_use(slug: str, request: Request) -> Response:
        given = await gm_request(request, slug, PartyRequest,
                                 "Only the GM's secret chooses the party; the players' secret "
                                 "reads")
        if has_control(given.party):
            raise ApiError(400, "A party's name may not hold control characters")
        await known(slug)
        try:
            chosen = await run_in_threadpool(door.use_party, slug, given.party)
        except Refused as refusal:
            return JSONResponse({"error": _sentence(refusal.sentence)},
                                status_code=refusal.status)
        return JSONResponse(chosen)

    @app.post("/api/campaigns/{slug}/ruler", tags=["writes"],
              summary="Measure a combatant's move to a cell before recording it",
              description="`{\"name\": \"Kira\", \"to\": [3, 2]}` (and `\"band\"` for "
                          "one kind of move): 200 with the words a click records (`argv`), "
                          "the band, the cost, what would remain and the previewed event; "
                          "422 `{\"error\": SENTENCE}` when no band of the ruleset allows "
                          "it. Records nothing. The GM's secret only.",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": RulerRequest.model_json_schema()}}}})
    async def ruler(slug: str, request: Request) -> Response:
        from cli.ruler import RulerRefused, measure

        role, seat = await who(request, slug, header_only=True)
        if role == "player":
            raise ApiError(403, "Only the GM's secret or a seat's measures moves; the players' "
                                "secret reads")
        given = await body_of(request, RulerRequest)
        if has_control(given.name):
            raise ApiError(400, "A combatant's name may not hold control characters")
        if seat is not None and given.name not in seat.characters:
            raise ApiError(403, f"{given.name} is not a character of seat {seat.name}")
        await known(slug)

        encounter = await read(lambda trek: trek.queries.encounter_status(slug))

        def measured() -> dict[str, Any]:
            def preview(argv: list[str]) -> tuple[int, Any, str, Any]:
                try:
                    asked, _, party = door.read_words(argv)
                    docs, after = door.preview_after(slug, asked, party)
                except Refused as refusal:
                    code = {422: 1, 400: 2}.get(refusal.status, 70)
                    return code, None, _sentence(refusal.sentence), None
                return 0, docs, "", after

            return measure(preview, encounter, given.name, given.to, given.band)

        try:
            return JSONResponse(await run_in_threadpool(measured))
        except RulerRefused as refusal:
            raise ApiError(422, str(refusal)) from None

    @app.get("/api/campaigns/{slug}/events", tags=["reads"],
             summary="Server-Sent Events: one `trek log --json` entry per event recorded "
                     "by anyone, each once and in order, its seq as the message's `id:`",
             description="Without more, the stream starts with the next event recorded. A "
                         "client that reconnects sends the last id it got as the "
                         "`Last-Event-ID` header (a browser's EventSource does) or as "
                         "`?last_event_id=SEQ`, and is sent every event after it, once; "
                         "`?from=SEQ` starts at event SEQ. With `?requests=1` the GM's and a "
                         "seat's stream also carry `event: requests` messages (the pause "
                         "switch and the requests) whenever they change.")
    async def events(slug: str, request: Request,
                     since: str | None = Query(None, alias="from", max_length=20),
                     last_event_id: str | None = Query(None, max_length=20),
                     requests: str | None = Query(None, max_length=5)) -> Response:
        role, seat = await who(request, slug)
        await known(slug)
        newest: int = await read(lambda trek: trek.queries.last_seq(slug))
        seat_key = _role_and_key(request)[1]
        listener = live.listen(slug, _stream_head(
            newest, request.headers.get("last-event-id") or last_event_id, since))

        async def stream() -> AsyncIterator[str]:
            try:
                yield "retry: 1000\n: listening\n\n"
                quiet = 0.0
                looked = 0.0
                table: Any = None
                while not live.closing.is_set():
                    if time.monotonic() - looked >= WAKE:
                        looked = time.monotonic()
                        # A removed seat's stream ends at once; the requests the page shows
                        # (all of them to the GM, its own to a seat) and the pause switch
                        # are sent whenever they change.
                        if seat is not None:
                            now = await seat_of(slug, seat_key)
                            if now is None or now.removed:
                                yield "event: ended\ndata: {}\n\n"
                                return
                        # Only to a page that asks (`?requests=1`): a reader of the log's
                        # messages alone gets nothing but log entries.
                        if role != "player" and requests is not None:
                            shown_table = await table_now(slug, seat)
                            if shown_table != table:
                                table = shown_table
                                yield (f"event: requests\ndata: "
                                       f"{json.dumps(table, ensure_ascii=False)}\n\n")
                    try:
                        entry = await asyncio.wait_for(listener.queue.get(), WAKE)
                        if entry is NUDGE:
                            # This server changed something: the table is looked at now.
                            looked = 0.0
                            continue
                    except TimeoutError:
                        # Awake now and then: to end with the server, and to say it is here.
                        quiet += WAKE
                        if quiet >= KEEPALIVE:
                            quiet = 0.0
                            yield ": still here\n\n"
                        continue
                    quiet = 0.0
                    shown = pages.for_players(entry) if role != "gm" else entry
                    yield f"id: {entry['seq']}\ndata: {json.dumps(shown, ensure_ascii=False)}\n\n"
            finally:
                live.leave(listener)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})

    # -- seats and their requests (RULES §14) -----------------------------------------------

    def listed(request: dict[str, Any]) -> dict[str, Any]:
        return {key: request[key] for key in ("request", "seat", "argv", "status", "preview",
                                              "asked_at", "reason", "decided_by")}

    async def table_now(slug: str, seat: Seat | None) -> dict[str, Any]:
        """What the pages show of the table: the pause switch and the requests (a seat's
        own, or all of them for the GM)."""
        from tracker.seats import Seats

        def looked(trek: Trek) -> dict[str, Any]:
            seats = Seats(trek.views, writable=False)
            return {"paused": seats.paused(slug),
                    "requests": [listed(r) for r in seats.requests(
                        slug, seat=seat.name if seat is not None else None)]}

        shown = dict(await read(looked))
        if await settle(slug, shown["requests"], often=True):
            shown = dict(await read(looked))
        return shown

    settling: dict[str, float] = {}

    async def settle(slug: str, requests: list[dict[str, Any]], *, often: bool = False
                     ) -> bool:
        """Settle the approvals left half-done among `requests` (tracker/seats.py `recover`):
        whether any was settled. What is looked at `often` (every stream's table) tries at
        most once a second."""
        from tracker.seats import APPROVING

        if not any(r["status"] == APPROVING for r in requests):
            return False
        if often and time.monotonic() - settling.get(slug, -1.0) < 1.0:
            return False
        settling[slug] = time.monotonic()
        try:
            settled = await run_in_threadpool(door.recover, slug)
        except (Refused, TrackerError):
            # Shown as it is; the next look tries again.
            return False
        if settled:
            live.nudge()
        return bool(settled)

    async def body_of(request: Request, shape: type[Body]) -> Body:
        body = await _bounded_body(request)
        try:
            return shape.model_validate_json(body)
        except ValidationError as error:
            raise ApiError(400, _validation_sentence(error.errors())) from None

    async def by_door(act: Callable[[], Any], *, changes: bool = True) -> Any:
        """`act` through the door; one that `changes` the table (records, decides, pauses,
        makes or removes a seat) nudges every open stream, refused or not (a refused
        approval still turns its request stale)."""
        try:
            return await run_in_threadpool(act)
        except Refused as refusal:
            raise ApiError(refusal.status, refusal.sentence) from None
        finally:
            if changes:
                live.nudge()

    @app.post("/api/campaigns/{slug}/requests", tags=["seats"],
              summary="A seat asks for a command for its own characters",
              description="`{\"argv\": [\"encounter\", \"move\", \"Kira\", \"--to\", "
                          "\"3,2\"]}` (or `{\"command\": {...}}`) with the seat's key: 202 "
                          "`{\"request\", \"status\": \"pending\", \"preview\"}`; a trusted "
                          "seat's is recorded at once, 200 `{\"request\", \"status\": "
                          "\"recorded\", \"event\"}`. 403 for another's character, a command "
                          "a seat may not ask for, or a paused table; 422 when the rules "
                          "refuse it now (nothing kept).")
    async def ask(slug: str, request: Request) -> Response:
        _, seat = await who(request, slug, header_only=True)
        if seat is None:
            raise ApiError(403, "Requests are asked with a seat's key; the GM records with "
                                "/commands and the players' key only reads")
        given = await body_of(request, AskRequest)
        if (given.argv is None) == (given.command is None):
            raise ApiError(400, "Give the command's words in argv or the command as JSON in "
                                "command, one of them")
        status, document = await by_door(
            lambda: door.ask(slug, seat, given.argv, given.command, preview=given.preview),
            changes=not given.preview)
        return JSONResponse(document, status_code=status)

    @app.get("/api/campaigns/{slug}/requests", tags=["seats"],
             summary="The requests, oldest first (`?status=pending`): all of them to the GM, "
                     "its own to a seat")
    async def requests_list(slug: str, request: Request,
                            status: str | None = Query(None, max_length=20)) -> Response:
        from tracker.seats import STATUSES, Seats

        role, seat = await who(request, slug)
        if role == "player":
            raise ApiError(403, "The requests are read with the GM's key or a seat's")
        if status is not None and status not in STATUSES:
            raise ApiError(400, f"Invalid value for 'status': {status!r} is not one of "
                                f"{', '.join(STATUSES)}")
        def looked(trek: Trek) -> list[dict[str, Any]]:
            return Seats(trek.views, writable=False).requests(
                slug, status=status, seat=seat.name if seat is not None else None)

        found = await read(looked)
        if await settle(slug, found):
            found = await read(looked)
        return JSONResponse([listed(r) for r in found])

    async def gm_only(request: Request, slug: str) -> None:
        if (await who(request, slug, header_only=True))[0] != "gm":
            raise ApiError(403, "Only the GM's key decides requests and pauses the table")
        await known(slug)

    @app.post("/api/campaigns/{slug}/requests/{number}/approve", tags=["seats"],
              summary="Record a pending request (checked against the campaign as it is now; "
                      "refused now: 422 and the request is stale; decided already: 409)")
    async def approve(slug: str, number: int, request: Request) -> Response:
        await gm_only(request, slug)
        return JSONResponse(await by_door(lambda: door.approve(slug, number)))

    @app.post("/api/campaigns/{slug}/requests/{number}/reject", tags=["seats"],
              summary="Turn a pending request down, with a reason (`{\"reason\": TEXT}`)")
    async def reject(slug: str, number: int, request: Request) -> Response:
        await gm_only(request, slug)
        given = await body_of(request, RejectRequest)
        reason = (given.reason or "").strip() or None
        if reason is not None and has_control(reason):
            raise ApiError(400, "A reason may not hold control characters")
        return JSONResponse(await by_door(lambda: door.reject(slug, number, reason)))

    @app.post("/api/campaigns/{slug}/table", tags=["seats"],
              summary="Pause (`{\"paused\": true}`) or resume every request")
    async def pause(slug: str, request: Request) -> Response:
        await gm_only(request, slug)
        given = await body_of(request, TableRequest)
        await by_door(lambda: door.with_seats(lambda seats: seats.pause(slug, given.paused)))
        return JSONResponse({"paused": given.paused})

    @app.get("/api/campaigns/{slug}/table", tags=["seats"],
             summary="Whether the table is paused")
    async def table(slug: str, request: Request) -> Response:
        await who(request, slug)
        return JSONResponse({"paused": (await table_now(slug, None))["paused"]})

    @app.get("/api/campaigns/{slug}/seats", tags=["seats"],
             summary="The seats, their characters and trust (never a key); the GM's key")
    async def seats_list(slug: str, request: Request) -> Response:
        await gm_only(request, slug)
        return JSONResponse(await by_door(lambda: door.with_seats(
            lambda seats: [seat.document() for seat in seats.active(slug)]), changes=False))

    @app.post("/api/campaigns/{slug}/seats", tags=["seats"],
              summary="Make a seat (`trek seat add`): its key and link, once, with the link "
                      "as a QR code (SVG)")
    async def seats_add(slug: str, request: Request) -> Response:
        await gm_only(request, slug)
        given = await body_of(request, SeatRequest)
        if any(has_control(text) for text in [given.seat, *given.characters]):
            raise ApiError(400, "A seat's name and characters may not hold control "
                                "characters")
        roster = list((await read(lambda trek: trek.queries.status(slug)))["characters"])
        made, key = await by_door(lambda: door.with_seats(lambda seats: seats.add(
            slug, given.seat, given.characters, roster=roster, trusted=given.trusted)))
        link = f"{request.base_url}seat?key={key}"
        if slug != config.campaign:
            link += f"&campaign={slug}"
        return JSONResponse({**made.document(), "key": key, "link": link,
                             "qr": await run_in_threadpool(_qr_svg, link)})

    @app.post("/api/campaigns/{slug}/seats/{name}/remove", tags=["seats"],
              summary="Remove a seat (`trek seat remove`): its key stops at once")
    async def seats_remove(slug: str, name: str, request: Request) -> Response:
        await gm_only(request, slug)
        removed = await by_door(lambda: door.with_seats(lambda seats: seats.remove(slug, name)))
        return JSONResponse({**removed.document(), "removed": True})

    @app.post("/api/campaigns/{slug}/seats/{name}/trust", tags=["seats"],
              summary="Trust a seat or stop trusting it (`{\"trusted\": bool}`)")
    async def seats_trust(slug: str, name: str, request: Request) -> Response:
        await gm_only(request, slug)
        given = await body_of(request, TrustRequest)
        changed = await by_door(lambda: door.with_seats(
            lambda seats: seats.trust(slug, name, given.trusted)))
        return JSONResponse(changed.document())

    async def reader(request: Request) -> None:
        """Any key that reads: the GM's, the players' or (RULES §14, reading what the players'
        key reads) a seat's of the campaign shown, as the pages take it."""
        await who(request, request.query_params.get("campaign") or config.campaign)

    @app.get("/api/openapi.json", include_in_schema=False)
    async def description(request: Request) -> Response:
        await reader(request)
        return JSONResponse(app.openapi())

    @app.get("/api/docs", include_in_schema=False)
    async def docs(request: Request) -> Response:
        await reader(request)
        # The link to the description carries the secret only if this page was opened with it.
        key = request.query_params.get("key")
        return HTMLResponse(pages.render("docs.html", api=app.openapi(),
                                         paths=_paths(app.openapi()), key=key))

    # -- the pages -----------------------------------------------------------------------------

    @app.get("/pictures/{sha256}", include_in_schema=False)
    async def picture(sha256: str, request: Request) -> Response:
        """A map's picture, at its SHA-256 and the signature the server gave the page that
        names it: sent once, then kept by the browser for good (its address changes with its
        bytes). No secret is in the address, and no page the fog hides it from names it."""
        if not re.fullmatch(r"[0-9a-f]{64}", sha256) or not pictures.signed(
                config.gm_key, request.query_params.get("v"), "picture", sha256):
            raise ApiError(404, "There is no such picture")
        etag = f'"{sha256}"'
        cached = {"ETag": etag, "Cache-Control": "private, max-age=31536000, immutable"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=cached)
        found = await read(lambda trek: trek.queries.picture(sha256))
        if found is None:
            raise ApiError(404, "There is no such picture")
        return Response(found[1], media_type=found[0], headers=cached)

    fogged_kept = pictures.FoggedPictures()

    @app.get("/pictures/fogged/{fog}", include_in_schema=False)
    async def fogged_picture(fog: str, request: Request) -> Response:
        """A campaign's overland picture as the players' fog leaves it (every square the
        party has not been near blank), for the fog `fog` the page was drawn with; were the
        fog to have lifted since, the picture as it is now, kept by no cache."""
        slug = request.query_params.get("campaign") or ""
        if not (re.fullmatch(r"[0-9a-f]{32}", fog) and pictures.signed(
                config.gm_key, request.query_params.get("v"), "fogged", slug, fog)):
            raise ApiError(404, "There is no such picture")
        await known(slug)
        route = await read(lambda trek: trek.queries.route(slug))
        game_map = route["map"]
        if game_map is None or "image" not in game_map:
            raise ApiError(404, "There is no such picture")
        sha256 = str(game_map["image"]["sha256"])
        seen = pages.seen_squares(route)
        now = pictures.fog_digest(seen, game_map["width"], game_map["height"])
        data = fogged_kept.get(sha256, now)
        if data is None:
            found = await read(lambda trek: trek.queries.picture(sha256))
            if found is None:
                raise ApiError(404, "There is no such picture")
            data = await run_in_threadpool(pictures.fogged_picture, found[1],
                                           game_map["image"], seen, game_map["width"],
                                           game_map["height"])
            fogged_kept.put(sha256, now, data)
        headers = ({"ETag": f'"{fog}"',
                    "Cache-Control": "private, max-age=31536000, immutable"}
                   if now == fog else {"Cache-Control": "no-store"})
        return Response(data, media_type="image/png", headers=headers)

    @app.get("/", include_in_schema=False)
    async def gm_page(request: Request) -> Response:
        return await page(request, "gm")

    @app.get("/players", include_in_schema=False)
    async def players_page(request: Request) -> Response:
        return await page(request, "player")

    @app.get("/seat", include_in_schema=False)
    async def seat_page(request: Request) -> Response:
        return await page(request, "seat")

    @app.get("/parts/{view}", include_in_schema=False)
    async def part(view: str, request: Request) -> Response:
        if view not in ("gm", "players", "seat"):
            raise ApiError(404, "There is no such part")
        shown: Role = "gm" if view == "gm" else "seat" if view == "seat" else "player"
        return await page(request, shown, part=True)

    # Each page drawn, as its HTML and that gzipped once (a fight on a big map is hundreds of
    # kilobytes of squares, a tenth of that on the wire).
    drawn: dict[str, tuple[str, bytes]] = {}

    async def page(request: Request, view: Role, *, part: bool = False) -> Response:
        shown = request.query_params.get("campaign") or config.campaign
        await known(shown)
        role, seat = await who(request, shown)
        if view == "gm" and role != "gm":
            raise ApiError(403, "The GM's page needs the GM's secret; the players' page is "
                                "/players")
        if view == "seat" and seat is None:
            raise ApiError(403, "A seat's page needs that seat's key (`trek seat add`)")
        mine = seat.characters if seat is not None else ()
        documents = await read(lambda trek: pages.documents(trek.queries, shown, mine))
        seat_document = seat.document() if seat is not None else None
        fog = config.fog and view != "gm"
        # A page is drawn from its documents alone: the same documents (every page open at a
        # table, until something is recorded) are drawn once.
        key = await run_in_threadpool(pages.page_key, documents, shown, view, fog, part,
                                      seat_document)
        found = drawn.get(key)
        if found is None:
            found = await run_in_threadpool(
                lambda: _packed(pages.page(documents, shown, view=view, fog=fog, part=part,
                                           seat=seat_document,
                                           picture_href=lambda sha: pictures.picture_address(
                                               config.gm_key, sha),
                                           fogged_href=lambda fog: pictures.fogged_address(
                                               config.gm_key, shown, fog))))
            drawn[key] = found
            while len(drawn) > DRAWN_PAGES:
                drawn.pop(next(iter(drawn)))
        html, packed = found
        if takes_gzip(request.headers.get("accept-encoding", "")):
            return Response(packed, media_type="text/html; charset=utf-8",
                            headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
        return HTMLResponse(html, headers={"Vary": "Accept-Encoding"})

    return app


def _packed(html: str) -> tuple[str, bytes]:
    """A page and its gzipped bytes (level 6: nearly the smallest, in milliseconds)."""
    import gzip

    return html, gzip.compress(html.encode(), compresslevel=6, mtime=0)


def takes_gzip(accepted: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (named, or `*`, without `q=0`)."""
    taken: dict[str, bool] = {}
    for part in accepted.split(","):
        name, _, rest = part.strip().partition(";")
        quality = rest.strip().removeprefix("q=").strip() if rest.strip().startswith("q=") else "1"
        try:
            taken[name.strip().lower()] = float(quality) > 0
        except ValueError:
            taken[name.strip().lower()] = False
    return taken.get("gzip", taken.get("x-gzip", taken.get("*", False)))


class Guard:
    """Bounds a request's declared size and gives every answer the security headers (an ASGI
    middleware, which leaves streamed answers streaming)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            refusal = JSONResponse({"error": f"A request body is at most {MAX_BODY} bytes."},
                                   status_code=413)
            await refusal(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                if "cache-control" not in headers:
                    headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_guarded)


async def _bounded_body(request: Request) -> bytes:
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ApiError(413, f"A request body is at most {MAX_BODY} bytes")
    return bytes(body)


def _qr_svg(link: str) -> str:
    """The link as a QR code, an SVG drawn here (no network) for a phone to scan, as a data:
    URI an <img> shows."""
    import segno

    svg: str = segno.make(link, error="m").svg_data_uri(scale=4, border=2)
    return svg


def _at_least_one(name: str, what: str, given: str | None) -> int | None:
    """A query parameter that counts from 1 (None when not given), refused (400) as the
    command line refuses its option."""
    if given is None:
        return None
    import click

    from cli.options import AtLeastOne

    try:
        return AtLeastOne(what).convert(given, None, None)
    except click.BadParameter as error:
        raise ApiError(400, f"Invalid value for '{name}': {error.message}") from None


def _stream_head(newest: int, resume: str | None, since: str | None) -> int:
    """The seq a new stream's first event comes after: the last one a reconnecting client got
    (Last-Event-ID), else the one before ?from=SEQ, else the newest (the next event recorded
    comes first). Never past the newest: a client that saw more than this store holds is
    sent what comes next. A value that is not a seq is passed over, as a browser would."""
    resumed = _seq(resume)
    if resumed is not None:
        return min(newest, resumed)
    start = _seq(since)
    if start is not None and start >= 1:
        return min(newest, start - 1)
    return newest


def _seq(text: str | None) -> int | None:
    text = (text or "").strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


COMMANDS_DESCRIPTION = (
    "`{\"argv\": [\"move\", \"E\", \"E\"], \"preview\": false}` (the words after `trek`, "
    "read as the command line reads them) or `{\"command\": {\"type\": \"Move\", \"options\": "
    "{\"steps\": [\"E\", \"E\"]}}}` (the command as JSON: `type` is one of the command types "
    "below, the other keys its fields; a command that acts on one party, such as `Move` or "
    "`StartDay`, also takes `\"party\": NAME`, as `--party NAME`). 200 with what `--json` "
    "prints; 422 `{\"error\": "
    "SENTENCE}` when the rules refuse it (nothing recorded); 400 for a usage mistake; 403 for a "
    "command that is not the table's (one that acts on files or on the whole store: `init`, "
    "`branch`, `demo`, `replay`, `map import`, `serve`, `shell`, `watch`, `campaigns`, or any "
    "option naming a file): run it with the trek command line. With `preview` the event that "
    "would be recorded, and nothing is. The words may also be a read (`status`, `log`, "
    "`encounter status`, `map show`, `audit`, `diff`, `rules show`). The GM's secret only.")


# The `party` field of a command that acts on one party (RULES.md §15), as `--party NAME`.
PARTY_FIELD = {"type": "string", "minLength": 1, "maxLength": MAX_WORD, "title": "Party",
               "description": "The party it acts on, as `--party NAME` (left out: the party "
                              "in use)."}


def _request_schema(registry: Registry) -> dict[str, Any]:
    """The body of a command request, its `command` one of the table's command types."""
    schema = CommandRequest.model_json_schema()
    schema["properties"]["command"] = {
        "oneOf": [{"$ref": f"#/components/schemas/{name}"}
                  for name in sorted(command_types(registry))] + [{"type": "null"}],
        "description": "The command as JSON: `type` and the command's fields."}
    return schema


def command_schemas(registry: Any) -> dict[str, Any]:
    """The JSON schema of each command type of the table (and of the values they hold), by
    name, as OpenAPI components."""
    from pydantic import TypeAdapter

    schemas: dict[str, Any] = {}
    for name, kind in sorted(command_types(registry).items()):
        schema = TypeAdapter(kind).json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(schema.pop("$defs", {}))
        schema["properties"] = {"type": {"const": name}, **schema.get("properties", {})}
        if kind.acts_on_party:
            schema["properties"]["party"] = PARTY_FIELD
        schema["required"] = ["type", *schema.get("required", [])]
        schema["title"] = name
        schemas[name] = schema
    return schemas


def _validation_sentence(errors: Any) -> str:
    for error in errors:
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
        message = str(error.get("msg", "is not valid"))
        if where:
            return f"The request's {where} is not valid: {message}"
        return f"The request is not valid: {message}"
    return "The request is not valid"


def _paths(api: dict[str, Any]) -> list[dict[str, str]]:
    found = []
    for path, methods in api.get("paths", {}).items():
        for method, operation in methods.items():
            found.append({"method": method.upper(), "path": path,
                          "summary": operation.get("summary", ""),
                          "description": operation.get("description", "")})
    return found

"""`trek serve`'s web application: the JSON API, the live stream and the two pages.

Every write and every API read goes through the `trek` click commands (cli/web/commands.py), so
the API answers with the documents `--json` prints and refuses with the CLI's sentences. The
pages are drawn from the same documents. Secrets: the GM's reads and writes, the players'
only reads; sent as `Authorization: Bearer SECRET`, or as `?key=` on a page load or a stream
(a browser's EventSource sends no header); writes take the header only, so no cross-site form
can record.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
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

from cli.web import pages
from cli.web.commands import MAX_WORD, Outcome, Refused, Runner, check_words, has_control
from cli.web.live import Live

if TYPE_CHECKING:
    from cli.bootstrap import Root

HERE = Path(__file__).parent
MAX_BODY = 16 * 1024
# A comment line now and then, so a stream whose page went away is noticed and closed.
KEEPALIVE = 15.0
# How often an idle stream wakes to see whether the server is stopping.
WAKE = 0.5
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")

# The farthest a ruler may point: a battle map is never this wide.
MAX_CELL = 100_000

Role = Literal["gm", "player"]
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
    """The words after `trek` (global options excluded), and whether to record or preview."""

    model_config = ConfigDict(extra="forbid")

    argv: list[str]
    preview: bool = False


class RulerRequest(BaseModel):
    """A combatant and the cell the GM points at: what the ruler measures."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=MAX_WORD)
    to: tuple[Annotated[int, Field(ge=-MAX_CELL, le=MAX_CELL)],
              Annotated[int, Field(ge=-MAX_CELL, le=MAX_CELL)]]
    # One kind of move (a band of the ruleset's ruler); left out, the nearest the rules allow.
    band: str | None = Field(default=None, max_length=40)


class ApiError(Exception):
    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status
        self.sentence = sentence


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def create_app(config: ServeConfig, root: Root | None = None) -> FastAPI:
    """The server over `config.db`, playing the rulesets of `root` (its composition root:
    made here over the shipped rulesets when none is given), kept on `app.state.root`."""
    from cli.bootstrap import bootstrap, use

    root = use(root or bootstrap(config.db))
    if root.db is None:
        # The command line's root names its store once `trek serve` has read --db.
        root.db = config.db
    runner = Runner(config.db)
    # The commands the server runs play its rulesets.
    runner.kept.root = root

    def open_reader() -> Any:
        return root.open(config.db, writable=False)

    live = Live(open_reader, config.poll_interval)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        live.start()
        try:
            yield
        finally:
            live.stop()
            runner.close()
            root.close()

    app = FastAPI(title="Trek", version="1", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json",
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

    # -- who is asking -------------------------------------------------------------------------

    def role_of(request: Request, *, header_only: bool = False) -> Role:
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
            return "gm"
        if player:
            return "player"
        raise ApiError(401, "That secret is not this server's")

    async def gm_request(request: Request, shape: type[Body], refusal: str) -> Body:
        """A write's body, from the GM (the header's secret only), bounded and of `shape`."""
        if role_of(request, header_only=True) != "gm":
            raise ApiError(403, refusal)
        body = await _bounded_body(request)
        try:
            return shape.model_validate_json(body)
        except ValidationError as error:
            raise ApiError(400, _validation_sentence(error.errors())) from None

    # Campaigns are never taken out of a store: one seen stays known.
    campaigns: set[str] = set()

    def known(slug: str) -> None:
        if slug not in campaigns:
            campaigns.update(pages.campaign_slugs(config.db))
        if slug not in campaigns:
            raise ApiError(404, f"There is no campaign {slug!r} in this store")

    async def run(slug: str, argv: list[str], *, preview: bool = False) -> Response:
        outcome: Outcome = await run_in_threadpool(runner.run, slug, argv, preview=preview)
        if outcome.exit_code == 0:
            try:
                document = outcome.document()
            except ValueError:
                raise ApiError(500, "The command printed no JSON document") from None
            return JSONResponse(document)
        status = {1: 422, 2: 400}.get(outcome.exit_code, 500)
        return JSONResponse({"error": _sentence(outcome.sentence())}, status_code=status)

    # -- the API -------------------------------------------------------------------------------

    @app.get("/api/campaigns/{slug}/status", tags=["reads"],
             summary="The document of `trek status --json`")
    async def status(slug: str, request: Request) -> Response:
        role_of(request)
        known(slug)
        return await run(slug, ["status"])

    @app.get("/api/campaigns/{slug}/log", tags=["reads"],
             summary="The document of `trek log --json` (`?from=SEQ`, `?last=N`)")
    async def log(slug: str, request: Request,
                  since: str | None = Query(None, alias="from", max_length=20),
                  last: str | None = Query(None, max_length=20)) -> Response:
        role = role_of(request)
        known(slug)
        argv = ["log"]
        if since is not None:
            argv += ["--from", since]
        if last is not None:
            argv += ["--last", last]
        response = await run(slug, argv)
        if role == "player" and response.status_code == 200:
            entries = json.loads(bytes(response.body))
            return JSONResponse([pages.for_players(entry) for entry in entries])
        return response

    @app.get("/api/campaigns/{slug}/encounter", tags=["reads"],
             summary="The document of `trek encounter status --json` (null with none open)")
    async def encounter(slug: str, request: Request) -> Response:
        role_of(request)
        known(slug)
        return await run(slug, ["encounter", "status"])

    @app.post("/api/campaigns/{slug}/commands", tags=["writes"],
              summary="Run a command: the words after `trek`, as the command line takes them",
              description="`{\"argv\": [\"move\", \"E\", \"E\"], \"preview\": false}`: 200 with "
                          "what `--json` prints; 422 `{\"error\": SENTENCE}` for a refusal "
                          "(nothing recorded); 400 for a usage mistake. With `preview` the "
                          "event that would be recorded, and nothing is. The GM's secret only.",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": CommandRequest.model_json_schema()}}}})
    async def command(slug: str, request: Request) -> Response:
        given = await gm_request(request, CommandRequest,
                                 "Only the GM's secret records; the players' secret reads")
        try:
            check_words(given.argv)
        except Refused as refusal:
            raise ApiError(400, str(refusal)) from None
        known(slug)
        return await run(slug, given.argv, preview=given.preview)

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

        given = await gm_request(request, RulerRequest, "Only the GM's secret measures moves; "
                                                        "the players' secret reads")
        if has_control(given.name):
            raise ApiError(400, "A combatant's name may not hold control characters")
        known(slug)

        def measured() -> dict[str, Any]:
            status = runner.run(slug, ["encounter", "status"])
            if status.exit_code != 0:
                raise RulerRefused(_sentence(status.sentence()))

            def preview(argv: list[str]) -> tuple[int, Any, str, Any]:
                outcome, after = runner.preview_after(slug, argv)
                if outcome.exit_code != 0:
                    return outcome.exit_code, None, _sentence(outcome.sentence()), None
                return 0, outcome.document(), "", after

            return measure(preview, status.document(), given.name, given.to, given.band)

        try:
            return JSONResponse(await run_in_threadpool(measured))
        except RulerRefused as refusal:
            raise ApiError(422, str(refusal)) from None

    @app.get("/api/campaigns/{slug}/events", tags=["reads"],
             summary="Server-Sent Events: one `trek log --json` entry per event recorded "
                     "by anyone, as it is recorded (`?from=SEQ` or Last-Event-ID: from there)")
    async def events(slug: str, request: Request,
                     since: str | None = Query(None, alias="from", max_length=20)) -> Response:
        role = role_of(request)
        known(slug)
        head = await run_in_threadpool(pages.last_seq, config.db, slug)
        # A stream picks up where it was (Last-Event-ID, as a browser reconnects) or at
        # ?from=SEQ; else with the next event recorded.
        resume = request.headers.get("last-event-id", "")
        if resume.isdigit():
            head = min(head, int(resume))
        elif since is not None and since.isdigit() and int(since) >= 1:
            head = min(head, int(since) - 1)
        listener = live.listen(slug, head)

        async def stream() -> AsyncIterator[str]:
            try:
                yield "retry: 1000\n: listening\n\n"
                quiet = 0.0
                while not live.closing.is_set():
                    try:
                        entry = await asyncio.wait_for(listener.queue.get(), WAKE)
                    except TimeoutError:
                        # Awake now and then: to end with the server, and to say it is here.
                        quiet += WAKE
                        if quiet >= KEEPALIVE:
                            quiet = 0.0
                            yield ": still here\n\n"
                        continue
                    quiet = 0.0
                    shown = pages.for_players(entry) if role == "player" else entry
                    yield f"id: {entry['seq']}\ndata: {json.dumps(shown, ensure_ascii=False)}\n\n"
            finally:
                live.leave(listener)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})

    @app.get("/api/docs", include_in_schema=False)
    async def docs() -> Response:
        return HTMLResponse(pages.render("docs.html", api=app.openapi(),
                                         paths=_paths(app.openapi())))

    # -- the pages -----------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def gm_page(request: Request) -> Response:
        return await page(request, "gm")

    @app.get("/players", include_in_schema=False)
    async def players_page(request: Request) -> Response:
        return await page(request, "player")

    @app.get("/parts/{view}", include_in_schema=False)
    async def part(view: str, request: Request) -> Response:
        if view not in ("gm", "players"):
            raise ApiError(404, "There is no such part")
        return await page(request, "gm" if view == "gm" else "player", part=True)

    async def page(request: Request, view: Role, *, part: bool = False) -> Response:
        role = role_of(request)
        shown = request.query_params.get("campaign") or config.campaign
        known(shown)
        if view == "gm" and role != "gm":
            raise ApiError(403, "The GM's page needs the GM's secret; the players' page is "
                                "/players")
        html = await run_in_threadpool(
            pages.page, config.db, shown, view=view,
            fog=config.fog and view == "player", part=part)
        return HTMLResponse(html)

    return app


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

"""`trek serve`: the table in a browser, the GM's page, the players' page and the JSON API.

The only module that loads the web parts (FastAPI, uvicorn, Jinja2), when `serve` runs, so no
other command starts slower for them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any
from urllib.parse import quote

import click

from cli.context import settings
from cli.options import TrekCommand, Whole, store_options
from domain.errors import TrackerError

KEY_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


class SecretType(click.ParamType[str]):
    """A secret for a URL: 16 to 200 letters, digits, - _ . or ~."""

    name = "SECRET"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        text = str(value)
        if not 16 <= len(text) <= 200 or not set(text) <= KEY_CHARACTERS:
            self.fail("a secret is 16 to 200 letters, digits, -, _, . or ~", param, ctx)
        return text


@click.command(cls=TrekCommand)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (0.0.0.0: every network of this machine).")
@click.option("--port", default=8765, show_default=True, type=Whole(0, 65535, what="the port"),
              help="The port to listen on; 0 picks a free one (the printed URLs say which).")
@click.option("--no-open", "no_open", is_flag=True,
              help="Do not open the GM's page in a browser.")
@click.option("--no-fog", "no_fog", is_flag=True,
              help="Show the players the whole map, not only where the party has been.")
@click.option("--gm-key", envvar="TREK_GM_KEY", type=SecretType(),
              help="The GM's secret (default: a new random one each start).")
@click.option("--player-key", envvar="TREK_PLAYER_KEY", type=SecretType(),
              help="The players' secret (default: a new random one each start).")
@store_options
def serve(host: str, port: int, no_open: bool, no_fog: bool, gm_key: str | None,
          player_key: str | None) -> None:
    """Serve the campaign to the table: a live map, log and undo for the GM, and a view for
    the players, updating by itself as events are recorded.

    Prints two lines, `GM: URL` and `Players: URL`, each ending in its secret (`?key=`): the
    GM's reads and records, the players' only reads. The JSON API (`/api/campaigns/SLUG/...`,
    described at /api/docs) takes the secret as `Authorization: Bearer SECRET`. Ctrl+C or
    SIGTERM stops the server.
    """
    import uvicorn

    from cli.context import root
    from cli.web.app import ServeConfig, create_app

    s = settings()
    with root().open(s.db, writable=False) as trek:
        slugs = sorted(c["slug"] for c in trek.campaigns())
        # Of several, the pages show the first; `?campaign=SLUG` another; the API has each.
        several = s.campaign is None and len(slugs) > 1
        slug = slugs[0] if several else trek.resolve(s.campaign)
        if slug not in slugs:
            raise TrackerError(f"there is no campaign {slug!r} in this store")
    gm_key = gm_key or secrets.token_urlsafe(24)
    player_key = player_key or secrets.token_urlsafe(24)
    if secrets.compare_digest(gm_key, player_key):
        raise click.UsageError("The GM's and the players' secrets must differ.")
    # A stop asked for from here on is a clean one, even before the server has started.
    stop_asked: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda number, frame: stop_asked.append(number))
    listener = _listen(host, port)
    config = ServeConfig(db=s.db, campaign=slug, gm_key=gm_key, player_key=player_key,
                         fog=not no_fog)
    bound = listener.getsockname()[1]
    shown_host = f"[{host}]" if ":" in host else host
    base = f"http://{shown_host}:{bound}"
    gm_url = f"{base}/?key={quote(gm_key)}"
    sys.stdout.write(f"GM: {gm_url}\nPlayers: {base}/players?key={quote(player_key)}\n")
    sys.stdout.flush()
    if not no_open and _can_open_browser():
        import webbrowser

        webbrowser.open(gm_url)
    app = create_app(config, root())
    server = _server(uvicorn.Config(app, log_level="warning", access_log=False,
                                    timeout_graceful_shutdown=2, server_header=False),
                     on_stop=app.state.live.closing.set)
    server.should_exit = bool(stop_asked)
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[listener])


def _server(config: Any, on_stop: Callable[[], None]) -> Any:
    """uvicorn's server, for which a stop asked by SIGINT or SIGTERM is a clean exit (0)
    rather than the signal raised again once the server has stopped; `on_stop` ends the open
    streams, which would otherwise hold the stop back."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            on_stop()
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True
            else:
                self.should_exit = True

    return Server(config)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
    except (OSError, OverflowError) as error:
        listener.close()
        reason = getattr(error, "strerror", None) or str(error)
        raise TrackerError(f"cannot listen on {host}:{port} ({reason})") from None
    return listener


def _can_open_browser() -> bool:
    """A graphical session to open a page in (a terminal browser would take the terminal)."""
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
